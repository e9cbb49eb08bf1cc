package miniil

import (
	"context"
	"strconv"
	"testing"

	"miniil/il"
)

// sbLoops holds loops over StringBuilder members, each a static method
// that runs n times.
const sbLoops = `.assembly t {}
// members builds a builder per iteration with every member the JIT
// serves natively, in a buffer that never grows: s, i%100, '-', the
// int64 -(i%10), the uint32 i%10; then adds Length, the first unit, the
// lengths of ToString through Object::ToString and StringBuilder's own
// (two new strings), and Length after Clear.
.method public static int32 members(string s, int32 n) cil managed {
  .maxstack 4
  .locals init (int32 i, int32 acc, class [mscorlib]System.Text.StringBuilder sb)
  br T
L: newobj instance void [mscorlib]System.Text.StringBuilder::.ctor() stloc sb
  ldloc sb ldarg s callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(string)
  ldloc i ldc.i4.s 100 rem callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(int32)
  ldc.i4.s 45 callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(char)
  ldc.i4.0 ldloc i ldc.i4.s 10 rem sub conv.i8 callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(int64)
  ldloc i ldc.i4.s 10 rem callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(uint32)
  pop
  ldloc acc ldloc sb callvirt instance int32 [mscorlib]System.Text.StringBuilder::get_Length() add stloc acc
  ldloc acc ldloc sb ldc.i4.0 callvirt instance char [mscorlib]System.Text.StringBuilder::get_Chars(int32) add stloc acc
  ldloc acc ldloc sb callvirt instance string [mscorlib]System.Object::ToString()
  callvirt instance int32 [mscorlib]System.String::get_Length() add stloc acc
  ldloc acc ldloc sb call instance string [mscorlib]System.Text.StringBuilder::ToString()
  callvirt instance int32 [mscorlib]System.String::get_Length() add stloc acc
  ldloc sb callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Clear()
  callvirt instance int32 [mscorlib]System.Text.StringBuilder::get_Length() ldloc acc add stloc acc
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg n blt L
  ldloc acc ret
}
// sized makes builders of capacity i%1000 (0 is the default, 16) and
// appends one unit to each.
.method public static int32 sized(string s, int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i, int32 acc)
  br.s T
L: ldloc acc
  ldloc i ldc.i4 1000 rem newobj instance void [mscorlib]System.Text.StringBuilder::.ctor(int32)
  ldc.i4.s 97 callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(char)
  callvirt instance int32 [mscorlib]System.Text.StringBuilder::get_Length() add stloc acc
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg n blt.s L
  ldloc acc ret
}
// nulls appends a null string n times to one builder.
.method public static int32 nulls(string s, int32 n) cil managed {
  .maxstack 2
  .locals init (int32 i, class [mscorlib]System.Text.StringBuilder sb)
  newobj instance void [mscorlib]System.Text.StringBuilder::.ctor() stloc sb
  br.s T
L: ldloc sb ldnull callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(string) pop
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg n blt.s L
  ldloc sb callvirt instance int32 [mscorlib]System.Text.StringBuilder::get_Length() ret
}
// chars, strings and ints append to one builder n times: s[0], s, and
// the int32 -n.
.method public static int32 chars(string s, int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i, class [mscorlib]System.Text.StringBuilder sb)
  newobj instance void [mscorlib]System.Text.StringBuilder::.ctor() stloc sb
  br.s T
L: ldloc sb ldarg s ldc.i4.0 callvirt instance char [mscorlib]System.String::get_Chars(int32)
  callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(char) pop
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg n blt.s L
  ldloc sb callvirt instance int32 [mscorlib]System.Text.StringBuilder::get_Length() ret
}
.method public static int32 strings(string s, int32 n) cil managed {
  .maxstack 2
  .locals init (int32 i, class [mscorlib]System.Text.StringBuilder sb)
  newobj instance void [mscorlib]System.Text.StringBuilder::.ctor() stloc sb
  br.s T
L: ldloc sb ldarg s callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(string) pop
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg n blt.s L
  ldloc sb callvirt instance int32 [mscorlib]System.Text.StringBuilder::get_Length() ret
}
.method public static int32 ints(string s, int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i, class [mscorlib]System.Text.StringBuilder sb)
  newobj instance void [mscorlib]System.Text.StringBuilder::.ctor() stloc sb
  br.s T
L: ldloc sb ldc.i4.0 ldarg n sub callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(int32) pop
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg n blt.s L
  ldloc sb callvirt instance int32 [mscorlib]System.Text.StringBuilder::get_Length() ret
}
// format returns the text Append(int64) gives v, through a builder of
// capacity 20 (no negative int64 needs more).
.method public static string format(int64 v) cil managed {
  .maxstack 2
  ldc.i4.s 20 newobj instance void [mscorlib]System.Text.StringBuilder::.ctor(int32)
  ldarg v callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(int64)
  callvirt instance string [mscorlib]System.Object::ToString() ret
}
.method public static string format32(int32 v) cil managed {
  .maxstack 2
  ldc.i4.s 11 newobj instance void [mscorlib]System.Text.StringBuilder::.ctor(int32)
  ldarg v callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(int32)
  callvirt instance string [mscorlib]System.Object::ToString() ret
}
.method public static void entry() cil managed { .entrypoint .maxstack 1 ret }`

// sbGrowths returns how many times a builder of the default capacity
// grows while n pieces of w units are appended to it one at a time (the
// helper exits those appends make).
func sbGrowths(n, w int) int {
	capacity, length, grown := int64(il.StringBuilderDefaultCapacity), int64(0), 0
	for range n {
		if length+int64(w) > capacity {
			capacity, _ = il.StringBuilderGrow(capacity, length+int64(w))
			grown++
		}
		length += int64(w)
	}
	return grown
}

// TestStringBuilderBuiltinExits checks which StringBuilder calls the JIT
// serves without leaving native code, by the base library exits loops of
// n calls make once compiled: none where the buffer has room (the
// constructors, appends, Length, get_Chars, Clear and both ToStrings,
// their objects allocated in the nursery), one per growth of the buffer
// (the exit grows it by il's policy).
func TestStringBuilderBuiltinExits(t *testing.T) {
	mod, rt := jitRuntimeOf(t, "sbloops.il", sbLoops)
	method := func(name string) *il.Method { return methodNamed(t, mod, name) }
	const n = 1000
	members := func(n int64) int64 {
		acc := int64(0)
		for i := range n {
			l := int64(5 + len(strconv.Itoa(int(i%100))) + 1 + len(strconv.Itoa(int(-(i % 10)))) + len(strconv.Itoa(int(i%10))))
			acc += l + 'h' + l + l
		}
		return acc
	}
	for _, tc := range []struct {
		method string
		want   func(n int64) int64 // the result for "hello" and n
		exits  int                 // base library exits for n iterations
	}{
		{"members", members, 0},
		{"sized", func(n int64) int64 { return n }, 0},
		{"nulls", func(n int64) int64 { return 0 }, 0},
		{"chars", func(n int64) int64 { return n }, sbGrowths(n, 1)},
		{"strings", func(n int64) int64 { return 5 * n }, sbGrowths(n, 5)},
		{"ints", func(n int64) int64 { return int64(len(strconv.Itoa(-int(n)))) * n }, sbGrowths(n, len(strconv.Itoa(-n)))},
	} {
		t.Run(tc.method, func(t *testing.T) {
			m := method(tc.method)
			run := func(n int64) {
				got, err := rt.Call(context.Background(), m, []any{"hello", n})
				if err != nil || got != tc.want(n) {
					t.Fatalf("%s(\"hello\", %d) = %v, %v; want %d", tc.method, n, got, err, tc.want(n))
				}
			}
			run(5) // compile
			checkExits(t, rt, func() { run(n) }, tc.exits, tc.exits)
		})
	}
	if got := sbGrowths(n, 1); got != 6 { // 16 -> 32 -> ... -> 1024
		t.Errorf("sbGrowths(%d, 1) = %d, want 6", n, got)
	}

	// Append(int64) and Append(int32) format as strconv does, natively.
	format, format32 := method("format"), method("format32")
	values := []int64{0, 1, -1, 9, 10, -10, 99, 100, 1 << 31, -1 << 31, 1<<31 - 1, -1<<31 - 1, 1<<63 - 1, -1 << 63, -1<<63 + 1}
	for p := int64(1); p <= 1e18; p *= 10 {
		values = append(values, p-1, p, p+1, -p+1, -p, -p-1)
	}
	for x := uint64(0x9E3779B97F4A7C15); len(values) < 2000; x = x*6364136223846793005 + 1442695040888963407 {
		values = append(values, int64(x), int64(x)>>(x%63), int64(int32(x>>7)))
	}
	// The first calls compile (up to 4 exits), and a full nursery exits.
	checkExits(t, rt, func() {
		for _, v := range values {
			got, err := rt.Call(context.Background(), format, []any{v})
			if want := strconv.FormatInt(v, 10); err != nil || got != want {
				t.Fatalf("format(%d) = %q, %v; want %q", v, got, err, want)
			}
			got, err = rt.Call(context.Background(), format32, []any{int64(int32(v))})
			if want := strconv.FormatInt(int64(int32(v)), 10); err != nil || got != want {
				t.Fatalf("format32(%d) = %q, %v; want %q", int32(v), got, err, want)
			}
		}
	}, 0, 4)
}
