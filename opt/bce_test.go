package opt_test

import (
	"testing"

	"miniil/ir"
	"miniil/opt"
)

// bceSrc holds loops over arrays: those BoundsChecks takes, and those
// it must leave alone.
const bceSrc = `
.method public static int32 Len(int32[] a) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.0 ldlen conv.i4 bge.s D
  ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
// n = a.Length before the loop; a[i] read and written.
.method public static void LenVar(int32[] a) cil managed {
  .locals init (int32 i, int32 n)
  ldarg.0 ldlen conv.i4 stloc n
  ldc.i4.2 stloc i
L: ldloc i ldloc n bge.s D
  ldarg.0 ldloc i ldarg.0 ldloc i ldelem.i4 ldc.i4.1 add stelem.i4
  ldloc i ldc.i4.1 add stloc i br.s L
D: ret
}
// C#'s shape: the test at the bottom, the header a null check of a.
.method public static int32 Bottom(int32[] a) cil managed {
  .locals init (int32 i, int32 s)
  ldc.i4.0 stloc i
  br.s T
B: ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
  ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg.0 ldlen conv.i4 blt.s B
  ldloc s ret
}
// The bound is not a's length.
.method public static int32 OtherBound(int32[] a, int32 n) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.1 bge.s D
  ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
// a is replaced in the loop.
.method public static int32 Reassigned(int32[] a, int32[] b) cil managed {
  .locals init (int32 i, int32 n, int32 s)
  ldarg.0 ldlen conv.i4 stloc n
L: ldloc i ldloc n bge.s D
  ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
  ldarg.1 starg.s a
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
// i steps by 2, starts below 0, is written twice, or is read after its
// increment; the index is i + 1.
.method public static int32 Step2(int32[] a) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.0 ldlen conv.i4 bge.s D
  ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
  ldloc i ldc.i4.2 add stloc i br.s L
D: ldloc s ret
}
.method public static int32 Negative(int32[] a) cil managed {
  .locals init (int32 i, int32 s)
  ldc.i4.m1 stloc i
L: ldloc i ldarg.0 ldlen conv.i4 bge.s D
  ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
.method public static int32 TwoWrites(int32[] a) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.0 ldlen conv.i4 bge.s D
  ldloc i ldc.i4.1 add stloc i
  ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
.method public static int32 AfterInc(int32[] a) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.0 ldlen conv.i4 bge.s D
  ldloc i ldc.i4.1 add stloc i
  ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
  br.s L
D: ldloc s ret
}
.method public static int32 Plus1(int32[] a) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.0 ldlen conv.i4 bge.s D
  ldloc s ldarg.0 ldloc i ldc.i4.1 add ldelem.i4 add stloc s
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
// The loop is inside a try: the checks go too.
.method public static int32 InTry(int32[] a) cil managed {
  .locals init (int32 i, int32 s)
  .try {
L:  ldloc i ldarg.0 ldlen conv.i4 bge.s D
    ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
    ldloc i ldc.i4.1 add stloc i br.s L
D:  leave.s E
  } catch [mscorlib]System.Exception { pop leave.s E }
E: ldloc s ret
}
`

// boundsChecks counts the blocks ending in an array bounds check.
func boundsChecks(f *ir.Func) int {
	n := 0
	for _, b := range f.Blocks {
		if b.Term.Op == ir.OpIf && len(b.Succs) == 2 && b.Succs[0].Term.Op == ir.OpThrowHelper &&
			b.Succs[0].Term.Aux.Class().Name == "System.IndexOutOfRangeException" {
			n++
		}
	}
	return n
}

// prepare runs the passes the jit runs before the loop passes.
func prepare(f *ir.Func) {
	opt.NullChecks(f)
	opt.Unreachable(f)
	opt.Coalesce(f)
}

func TestBoundsChecks(t *testing.T) {
	for _, tc := range []struct {
		method        string
		before, after int
	}{
		{"Len", 1, 0},
		{"LenVar", 2, 0},
		{"Bottom", 1, 0},
		{"InTry", 1, 0},
		{"OtherBound", 1, 1},
		{"Reassigned", 1, 1},
		{"Step2", 1, 1},
		{"Negative", 1, 1},
		{"TwoWrites", 1, 1},
		{"AfterInc", 1, 1},
		{"Plus1", 1, 1},
	} {
		t.Run(tc.method, func(t *testing.T) {
			f := importMethod(t, bceSrc, tc.method)
			prepare(f)
			if n := boundsChecks(f); n != tc.before {
				t.Fatalf("%d bounds checks before, want %d:\n%s", n, tc.before, f)
			}
			removed := opt.BoundsChecks(f)
			if err := ir.Check(f); err != nil {
				t.Fatalf("%v\n%s", err, f)
			}
			if n := boundsChecks(f); n != tc.after || removed != tc.before-tc.after {
				t.Errorf("%d bounds checks after (%d removed), want %d:\n%s", n, removed, tc.after, f)
			}
		})
	}
}
