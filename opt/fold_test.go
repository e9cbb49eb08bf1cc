package opt_test

import (
	"slices"
	"testing"

	"miniil/ir"
	"miniil/opt"
)

// foldSrc reads fields through managed pointers, and through an object.
const foldSrc = `
.class public sequential sealed V extends [mscorlib]System.ValueType {
  .field public float64 x
  .field public float64 y
}
.class public sealed In extends [mscorlib]System.ValueType {
  .field public int32 a
  .field public valuetype V v
}
.class public C extends [mscorlib]System.Object { .field public valuetype V v }
// p.v.y - p.v.x, and p.v.x = 0: three leas fold, none is left.
.method public static float64 ThroughPtr(valuetype In& p) cil managed {
  ldarg.0 ldflda valuetype V In::v ldfld float64 V::y
  ldarg.0 ldflda valuetype V In::v ldfld float64 V::x
  sub
  ldarg.0 ldflda valuetype V In::v ldc.r8 0 stfld float64 V::x
  ret
}
// The pointer variable changes between the lea and the load: the load
// reads the old pointer's field, nothing folds.
.method public static float64 Rewritten(valuetype In& p, valuetype In& q) cil managed {
  ldarg.0 ldflda valuetype V In::v
  ldarg.1 starg.s p
  ldfld float64 V::y
  ret
}
// An object's field address is no managed pointer's: nothing folds.
.method public static float64 ThroughObject(class C c) cil managed {
  ldarg.0 ldflda valuetype V C::v ldfld float64 V::y
  ret
}
`

func TestFoldAddresses(t *testing.T) {
	for _, tc := range []struct {
		method       string
		folded, leas int // folded, and leas left
		offsets      []int64
	}{
		{"ThroughPtr", 3, 0, []int64{16, 8, 8}},
		{"Rewritten", 0, 1, []int64{8}},
		{"ThroughObject", 0, -1, nil},
	} {
		t.Run(tc.method, func(t *testing.T) {
			f := importMethod(t, foldSrc, tc.method)
			prepare(f)
			if n := opt.FoldAddresses(f); n != tc.folded {
				t.Errorf("folded %d, want %d:\n%s", n, tc.folded, f)
			}
			if err := ir.Check(f); err != nil {
				t.Fatalf("%v\n%s", err, f)
			}
			leas := 0
			var offsets []int64
			for _, b := range f.Blocks {
				for _, in := range b.Instrs {
					switch in.Op {
					case ir.OpLea:
						leas++
					case ir.OpLoad, ir.OpStore:
						offsets = append(offsets, in.Aux.Int)
					}
				}
			}
			if tc.leas >= 0 && leas != tc.leas {
				t.Errorf("%d leas left, want %d:\n%s", leas, tc.leas, f)
			}
			if tc.offsets != nil && !slices.Equal(offsets, tc.offsets) {
				t.Errorf("load and store offsets %v, want %v:\n%s", offsets, tc.offsets, f)
			}
		})
	}
}
