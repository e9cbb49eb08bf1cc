package opt_test

import (
	"testing"

	"miniil/ir"
	"miniil/opt"
)

func TestCoalesce(t *testing.T) {
	const src = `
.method public static int32 F(int32 a, int32 b) cil managed {
  .maxstack 3
  .locals init (int32 c, int32 d, int32 e)
  ldarg.0 ldarg.1 add stloc c
  ldarg.0 ldarg.1 mul dup stloc d stloc e
  ldloc c ldloc d add ldloc e add ret
}`
	f := importMethod(t, src, "F")
	c, d, e := ir.Value(f.NumArgs), ir.Value(f.NumArgs+1), ir.Value(f.NumArgs+2)
	if n := opt.Coalesce(f); n != 1 {
		t.Errorf("%d copies merged, want 1 (c's; the product is stored twice):\n%s", n, f)
	}
	if err := ir.Check(f); err != nil {
		t.Fatal(err)
	}
	var add, copies int
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			switch {
			case in.Op == ir.OpAdd && in.Dst == c:
				add++
			case in.Op == ir.OpCopy && (in.Dst == d || in.Dst == e):
				copies++
			case in.Op == ir.OpCopy && in.Dst == c:
				t.Errorf("c is still set by a copy: %s", f.Format(in, b))
			}
		}
	}
	if add != 1 || copies != 2 {
		t.Errorf("c = add: %d (want 1), copies into d and e: %d (want 2):\n%s", add, copies, f)
	}
}
