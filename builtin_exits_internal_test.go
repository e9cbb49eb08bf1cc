package miniil

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"miniil/jitrt"
)

// stringLoops holds loops over the characters of a string, each a static
// method loop(string s, int32 n) that runs n times over s.
const stringLoops = `.assembly t {}
.method public static int32 length(string s, int32 n) cil managed {
  .maxstack 2
  .locals init (int32 i, int32 acc)
  br.s T
L: ldloc acc ldarg s callvirt instance int32 [mscorlib]System.String::get_Length() add stloc acc
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg n blt.s L
  ldloc acc ret
}
.method public static int32 chars(string s, int32 n) cil managed {
  .maxstack 4
  .locals init (int32 i, int32 acc)
  br.s T
L: ldloc acc ldarg s ldloc i ldarg s call instance int32 [mscorlib]System.String::get_Length() rem
  callvirt instance char [mscorlib]System.String::get_Chars(int32) add stloc acc
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg n blt.s L
  ldloc acc ret
}
.method public static int32 substring(string s, int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i, int32 acc)
  br.s T
L: ldloc acc ldarg s ldc.i4.1 callvirt instance string [mscorlib]System.String::Substring(int32)
  callvirt instance int32 [mscorlib]System.String::get_Length() add stloc acc
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg n blt.s L
  ldloc acc ret
}
.method public static int32 equality(string s, int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i, int32 acc, string t)
  ldstr "_hello" ldc.i4.1 callvirt instance string [mscorlib]System.String::Substring(int32) stloc t
  br.s T
L: ldloc acc ldarg s ldloc t call bool [mscorlib]System.String::op_Equality(string, string) add stloc acc
  ldloc acc ldarg s ldloc t call bool [mscorlib]System.String::op_Inequality(string, string) add stloc acc
  ldloc acc ldarg s ldloc t callvirt instance bool [mscorlib]System.String::Equals(string) add stloc acc
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg n blt.s L
  ldloc acc ret
}
.method public static int32 concat(string s, int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i, int32 acc)
  br.s T
L: ldloc acc ldarg s ldarg s call string [mscorlib]System.String::Concat(string, string)
  callvirt instance int32 [mscorlib]System.String::get_Length() add stloc acc
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg n blt.s L
  ldloc acc ret
}
.method public static void entry() cil managed { .entrypoint .maxstack 1 ret }`

// TestStringBuiltinExits checks which base library calls on strings the
// JIT serves without leaving native code, by the exits a loop of n calls
// makes once compiled: none for the methods read inline or compared
// natively, one per call for the rest (which shows the count works).
func TestStringBuiltinExits(t *testing.T) {
	mod, rt := jitRuntimeOf(t, "loops.il", stringLoops)
	const n = 1000
	for _, tc := range []struct {
		method string
		want   func(n int64) int64 // the result for "hello" and n
		exits  int                 // base library exits for n iterations
	}{
		{"length", func(n int64) int64 { return 5 * n }, 0},
		{"chars", func(n int64) int64 { return 532 * n / 5 }, 0}, // n a multiple of 5
		// Equal strings, not the same reference; one Substring makes it.
		{"equality", func(n int64) int64 { return 2 * n }, 1},
		{"concat", func(n int64) int64 { return 10 * n }, 0}, // new strings in the nursery
		{"substring", func(n int64) int64 { return 4 * n }, n},
	} {
		t.Run(tc.method, func(t *testing.T) {
			m := methodNamed(t, mod, tc.method)
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
}

// checkExits runs f and checks that it made from lo to hi base library
// exits, plus at most one per stretch of the nursery populated meanwhile:
// an allocation that reaches the end of the nursery's resident part exits
// (the runtime populates the next stretch), also from the base library's
// native routines, which then take their helper exit.
func checkExits(t *testing.T, rt *jitrt.Runtime, f func(), lo, hi int) {
	t.Helper()
	before, pops := baseLibraryCalls(rt), rt.GCStats().NurseryPopulates
	f()
	pops = rt.GCStats().NurseryPopulates - pops
	if got := baseLibraryCalls(rt) - before; got < lo || got > hi+pops {
		t.Errorf("%d base library exits; want %d to %d (and up to %d more, one per stretch of the nursery populated)", got, lo, hi, pops)
	}
}

// baseLibraryCalls returns the calls of base library methods rt has made
// from native code through exits.
func baseLibraryCalls(rt *jitrt.Runtime) int {
	n := 0
	for name, c := range rt.ExitCounts() {
		if strings.HasPrefix(name, "call ") {
			n += c
		}
	}
	return n
}

// intToStringLoop is, for an integer type (its IL name and class), a
// static method NAME(int64 v, int32 n) that makes the type's ToString of
// v (converted with CONV) n times and returns the sum of the strings'
// lengths.
const intToStringLoop = `.method public static int64 %[1]s(int64 v, int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i, int64 acc, %[2]s x)
  ldarg v %[4]s stloc x
  br.s T
L: ldloc acc ldloca x call instance string [mscorlib]System.%[3]s::ToString()
  callvirt instance int32 [mscorlib]System.String::get_Length() conv.i8 add stloc acc
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg n blt.s L
  ldloc acc ret
}
`

// intToStringLoops holds an intToStringLoop per integer type: i4, u4, i8
// and u8.
var intToStringLoops = ".assembly t {}\n" +
	fmt.Sprintf(intToStringLoop, "i4", "int32", "Int32", "conv.i4") +
	fmt.Sprintf(intToStringLoop, "u4", "uint32", "UInt32", "conv.u4") +
	fmt.Sprintf(intToStringLoop, "i8", "int64", "Int64", "nop") +
	fmt.Sprintf(intToStringLoop, "u8", "uint64", "UInt64", "nop") +
	".method public static void entry() cil managed { .entrypoint .maxstack 1 ret }"

// TestIntToStringExits checks that the integer types' ToString stays in
// native code (amd64/tostring.go, the runtime's integer ToString
// routine): no exit in a loop of n calls, but for a UInt64 of 2^63 or
// more, which the base library formats (one exit per call), and the
// strings' lengths are right.
func TestIntToStringExits(t *testing.T) {
	mod, rt := jitRuntimeOf(t, "loops.il", intToStringLoops)
	const n = 1000
	for _, tc := range []struct {
		method string
		v      int64
		length int64 // of the string
		exits  int   // base library exits for n calls
	}{
		{"i4", -2147483648, 11, 0},
		{"i4", 7, 1, 0},
		{"u4", -1, 10, 0}, // 4294967295
		{"i8", -9223372036854775808, 20, 0},
		{"i8", 1234567890123, 13, 0},
		{"u8", 9223372036854775807, 19, 0},
		{"u8", -1, 20, n}, // 18446744073709551615: the base library's
	} {
		t.Run(fmt.Sprintf("%s(%d)", tc.method, tc.v), func(t *testing.T) {
			m := methodNamed(t, mod, tc.method)
			run := func(n int64) {
				got, err := rt.Call(context.Background(), m, []any{tc.v, n})
				if err != nil || got != tc.length*n {
					t.Fatalf("%s(%d, %d) = %v, %v; want %d", tc.method, tc.v, n, got, err, tc.length*n)
				}
			}
			run(5) // compile
			checkExits(t, rt, func() { run(n) }, tc.exits, tc.exits)
		})
	}
}
