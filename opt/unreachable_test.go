package opt_test

import (
	"slices"
	"testing"

	"miniil/ir"
	"miniil/opt"
)

// TestUnreachable runs Unreachable on IR where blocks became (or were
// made) unreachable, and checks what it removes, what it keeps, and that
// the IR stays valid with block IDs equal to positions.
func TestUnreachable(t *testing.T) {
	tests := []struct {
		name string
		src  string
		// prepare changes the imported IR before the pass and returns
		// the blocks the pass must remove.
		prepare func(t *testing.T, f *ir.Func) []*ir.Block
		keep    func(t *testing.T, f *ir.Func) // checks what must stay
	}{
		{"nothing to remove", box + `
.method public static int32 f(class Box x) cil managed
{
  ldarg.0
  ldfld int32 Box::a
  ret
}`, func(t *testing.T, f *ir.Func) []*ir.Block { return nil }, nil},
		{"the throw block of a removed null check", box + `
.method public static int32 f() cil managed
{
  newobj instance void Box::.ctor()
  ldfld int32 Box::a
  ret
}`, func(t *testing.T, f *ir.Func) []*ir.Block {
			var throw *ir.Block
			for _, b := range f.Blocks {
				if b.Cold {
					throw = b
				}
			}
			if n := opt.NullChecks(f); n != 1 || throw == nil || len(throw.Preds) != 0 {
				t.Fatalf("NullChecks removed %d checks; want the one check removed and its throw block orphaned:\n%s", n, f)
			}
			return []*ir.Block{throw}
		}, nil},
		{"a block whose only predecessor is unreachable, and its edge into a live block", box + `
.method public static int32 f(int32 c) cil managed
{
  ldarg.0
  brfalse.s Z
  ldc.i4.1
  ret
Z:
  ldc.i4.2
  ret
}`, func(t *testing.T, f *ir.Func) []*ir.Block {
			// dead -> dead2 -> b0's successor, and a self loop on dead2.
			live := f.Blocks[0].Succs[0]
			dead, dead2 := f.NewBlock(-1), f.NewBlock(-1)
			dead.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue}
			dead.Succs = []*ir.Block{dead2}
			dead2.Term = &ir.Instr{Op: ir.OpIf, Dst: ir.NoValue, Dst2: ir.NoValue, Args: []ir.Value{0}}
			dead2.Succs = []*ir.Block{dead2, live}
			dead2.Preds = []*ir.Block{dead, dead2}
			live.Preds = append(live.Preds, dead2)
			if err := ir.Check(f); err != nil {
				t.Fatal(err)
			}
			return []*ir.Block{dead, dead2}
		}, func(t *testing.T, f *ir.Func) {
			for _, b := range f.Blocks {
				if len(b.Preds) > 1 {
					t.Errorf("b%d keeps %d predecessors", b.ID, len(b.Preds))
				}
			}
		}},
		{"the handler of an unreachable try", box + `
.method public static int32 f() cil managed
{
  .locals init (int32 r)
  br.s OUT
  .try
  {
    ldc.i4.1
    stloc r
    leave.s OUT
  }
  catch [mscorlib]System.Exception
  {
    pop
    ldc.i4.2
    stloc r
    leave.s OUT
  }
OUT:
  ldloc r
  ret
}`, func(t *testing.T, f *ir.Func) []*ir.Block { return nil }, func(t *testing.T, f *ir.Func) {
			// The runtime enters handlers: the catch keeps its code.
			for _, r := range f.Regions {
				if r.Kind == ir.RegionCatch && (r.Entry == nil || !slices.Contains(f.Blocks, r.Entry)) {
					t.Errorf("the catch lost its entry block")
				}
			}
			if len(f.Regions) != 2 {
				t.Errorf("%d regions, want the try and the catch", len(f.Regions))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := importMethod(t, tt.src, "f")
			dead := tt.prepare(t, f)
			before := len(f.Blocks)
			n := opt.Unreachable(f)
			if n != len(dead) || len(f.Blocks) != before-n {
				t.Errorf("removed %d blocks (%d left of %d), want %d", n, len(f.Blocks), before, len(dead))
			}
			for i, b := range f.Blocks {
				if slices.Contains(dead, b) {
					t.Errorf("unreachable b%d kept", b.ID)
				}
				if b.ID != i {
					t.Errorf("block at %d has ID %d", i, b.ID)
				}
			}
			if err := ir.Check(f); err != nil {
				t.Errorf("the pass broke the IR: %v", err)
			}
			if tt.keep != nil {
				tt.keep(t, f)
			}
			if opt.Unreachable(f) != 0 {
				t.Errorf("a second run removed more")
			}
			if t.Failed() {
				t.Logf("after:\n%s", f)
			}
		})
	}
}
