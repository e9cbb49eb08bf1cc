package amd64_test

import (
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestLoopPolls checks which loops poll at their back edge: those with a
// path around them that calls no compiled method. A loop that calls one
// on every iteration leaves the polling to the callee's prolog.
func TestLoopPolls(t *testing.T) {
	const src = `
.method public static int32 Step(int32 x) cil managed {
  .locals init (int32 r)
  .try { ldarg.0 ldc.i4.1 add stloc.0 leave.s D } finally { endfinally }
D: ldloc.0 ret
}
.method public static int32 Always(int32 n) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.0 bge.s D
  ldloc s call int32 Step(int32) stloc s
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
.method public static int32 Sometimes(int32 n) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.0 bge.s D
  ldloc i ldc.i4.1 and brfalse.s N
  ldloc s call int32 Step(int32) stloc s
N: ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
.method public static int32 Library(int32 n) cil managed {
  .locals init (int32 i)
L: ldloc i ldarg.0 bge.s D
  ldloc i call void [mscorlib]System.Console::WriteLine(int32)
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc i ret
}
.method public static int32 NoCall(int32 n) cil managed {
  .locals init (int32 i)
L: ldloc i ldarg.0 bge.s D
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc i ret
}
`
	for _, tc := range []struct {
		method string
		polls  int
	}{
		{"Always", 0},    // every iteration calls Step
		{"Sometimes", 1}, // odd iterations only
		{"Library", 1},   // a base library method has no prolog check
		{"NoCall", 1},
	} {
		t.Run(tc.method, func(t *testing.T) {
			_, code := compileNamed(t, src, tc.method)
			n := 0
			for _, in := range decodeCode(t, code.Code[:code.ColdStart]) {
				if m, ok := in.Args[0].(x86asm.Mem); ok && in.Op == x86asm.CMP && m.Base == x86asm.R15 && m.Disp == 0 {
					n++
				}
			}
			if n != tc.polls {
				t.Errorf("%d polls, want %d", n, tc.polls)
			}
		})
	}
}
