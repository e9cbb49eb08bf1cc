package opt_test

import (
	"testing"

	"miniil/ir"
	"miniil/opt"
)

const cseSrc = `
.class public CCell extends [mscorlib]System.Object { .field public int32 v }
// c[i*n+j] = c[i*n+j] + s: one multiply, one add, one bounds check.
.method public static void Index(float64[] c, int32 i, int32 n, int32 j, float64 s) cil managed {
  ldarg.0 ldarg.1 ldarg.2 mul ldarg.3 add
  ldarg.0 ldarg.1 ldarg.2 mul ldarg.3 add ldelem.r8 ldarg.s s add
  stelem.r8
  ret
}
// x*y twice, but x is written in between.
.method public static int32 Redefined(int32 x, int32 y) cil managed {
  ldarg.0 ldarg.1 mul
  ldc.i4.5 starg.s x
  ldarg.0 ldarg.1 mul add ret
}
// o.v + o.v: one load.
.method public static int32 Loads(class CCell o) cil managed {
  ldarg.0 ldfld int32 CCell::v ldarg.0 ldfld int32 CCell::v add ret
}
// o.v, a store to o.v, o.v: two loads.
.method public static int32 Stored(class CCell o) cil managed {
  ldarg.0 ldfld int32 CCell::v
  ldarg.0 ldc.i4.3 stfld int32 CCell::v
  ldarg.0 ldfld int32 CCell::v add ret
}
// o.v, a call, o.v: two loads.
.method public static int32 Called(class CCell o) cil managed {
  ldarg.0 ldfld int32 CCell::v
  ldc.i4.1 call void [mscorlib]System.Console::WriteLine(int32)
  ldarg.0 ldfld int32 CCell::v add ret
}
`

// countOps counts f's instructions of the given operations and its
// bounds checks.
func countOps(f *ir.Func, ops ...ir.Op) (instrs, checks int) {
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			for _, op := range ops {
				if in.Op == op {
					instrs++
				}
			}
		}
	}
	return instrs, boundsChecks(f)
}

func TestCSE(t *testing.T) {
	ops := []ir.Op{ir.OpMul, ir.OpAdd, ir.OpLdField}
	for _, tc := range []struct {
		method                   string
		instrs, checks           int // before
		instrsAfter, checksAfter int
	}{
		{"Index", 5, 2, 3, 1}, // mul, add (index), add (the sum)
		{"Redefined", 3, 0, 3, 0},
		{"Loads", 3, 0, 2, 0},
		{"Stored", 3, 0, 3, 0},
		{"Called", 3, 0, 3, 0},
	} {
		t.Run(tc.method, func(t *testing.T) {
			f := importMethod(t, cseSrc, tc.method)
			prepare(f)
			if n, c := countOps(f, ops...); n != tc.instrs || c != tc.checks {
				t.Fatalf("before: %d instructions and %d bounds checks, want %d and %d:\n%s", n, c, tc.instrs, tc.checks, f)
			}
			opt.CSE(f)
			if err := ir.Check(f); err != nil {
				t.Fatalf("%v\n%s", err, f)
			}
			if n, c := countOps(f, ops...); n != tc.instrsAfter || c != tc.checksAfter {
				t.Errorf("after: %d instructions and %d bounds checks, want %d and %d:\n%s", n, c, tc.instrsAfter, tc.checksAfter, f)
			}
		})
	}
}
