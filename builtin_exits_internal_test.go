package miniil

import (
	"context"
	"io"
	"strings"
	"testing"

	"miniil/il"
	"miniil/jit"
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
	mod, err := il.Load("loops.il", []byte(stringLoops))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := jitrt.NewRuntime(mod, jitrt.Options{Stdout: io.Discard, Compile: compileMethod(mod, jit.Config{Validate: true})})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
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
			var m *il.Method
			for _, x := range mod.Methods {
				if x.Name == tc.method {
					m = x
				}
			}
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
