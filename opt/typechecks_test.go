package opt_test

import (
	"testing"

	"miniil/ir"
	"miniil/opt"
)

const typeChecksSrc = `
.class public A extends [mscorlib]System.Object {
  .field public int32 x
}
.class public B extends A {
}
.class public C extends [mscorlib]System.Object {
}
// After isinst B succeeds, castclass B and castclass A need no test;
// castclass C does.
.method public static int32 Is(object o) cil managed {
  ldarg.0 isinst B brfalse.s N
  ldarg.0 castclass B ldfld int32 A::x
  ldarg.0 castclass A ldfld int32 A::x add
  ldarg.0 castclass C pop ret
N: ldc.i4.m1 ret
}
// After castclass B passes, a second castclass B and an isinst B are v
// itself; after o is written they are tests again.
.method public static object Twice(object o) cil managed {
  ldarg.0 castclass B pop
  ldarg.0 castclass B pop
  ldarg.0 isinst B pop
  ldnull starg.s o
  ldarg.0 castclass B ret
}
`

// castTests counts the type tests left: isinst instructions.
func castTests(f *ir.Func) int {
	n := 0
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == ir.OpIsInst {
				n++
			}
		}
	}
	return n
}

func TestTypeChecks(t *testing.T) {
	for _, tc := range []struct {
		method        string
		before, after int // isinst instructions (each castclass holds one)
	}{
		{"Is", 4, 2},    // the isinst, and castclass C
		{"Twice", 4, 2}, // the first castclass, and the one after the store
	} {
		t.Run(tc.method, func(t *testing.T) {
			f := importMethod(t, typeChecksSrc, tc.method)
			if n := castTests(f); n != tc.before {
				t.Fatalf("%d type tests before, want %d:\n%s", n, tc.before, f)
			}
			opt.TypeChecks(f)
			opt.Unreachable(f)
			if err := ir.Check(f); err != nil {
				t.Fatalf("%v\n%s", err, f)
			}
			if n := castTests(f); n != tc.after {
				t.Errorf("%d type tests after, want %d:\n%s", n, tc.after, f)
			}
		})
	}
}
