package funclet_test

import (
	"testing"

	"miniil/abi"

	"miniil/funclet"
	"miniil/il"
	"miniil/ir"
	"miniil/reader"
)

const src = `.assembly extern mscorlib {}
.assembly t {}
.class public Box extends [mscorlib]System.Object
{
  .field public int32 a
  .field public int32[] arr
}
.method public static void main() cil managed
{
  .entrypoint
  ret
}
.method public static int32 f(class Box b, int32 i) cil managed
{
  .locals init (int32 s, int32 j)
  .try
  {
  LOOP:
    ldloc j
    ldarg.1
    bge.s DONE
    ldarg.0
    ldfld int32[] Box::arr
    ldloc j
    ldelem.i4
    ldarg.0
    ldfld int32 Box::a
    div
    ldloc s
    add
    stloc s
    ldloc j
    ldc.i4.1
    add
    stloc j
    br.s LOOP
  DONE:
    leave.s OUT
  }
  catch [mscorlib]System.Exception
  {
    pop
    ldarg.0
    ldfld int32 Box::a
    stloc s
    leave.s OUT
  }
OUT:
  ldloc s
  ret
}
`

// TestLayout checks the block order of a method with checks inside a try
// and a catch: the main body first, a try contiguous, every check followed
// by its continuation, cold blocks after the hot ones of their region.
func TestLayout(t *testing.T) {
	f, lay := layoutOf(t, src)
	if len(lay.Funcs) != 2 || lay.Funcs[0].Kind != abi.Main || lay.Funcs[1].Kind != abi.CatchFunclet {
		t.Fatalf("funclets: got %d, want the main body and one catch", len(lay.Funcs))
	}
	checks := 0
	for k, fn := range lay.Funcs {
		for i, b := range fn.Blocks {
			if b.ID != f.Blocks[b.ID].ID || f.Blocks[b.ID] != b {
				t.Fatalf("block IDs do not follow the layout")
			}
			if b.Term.Op == ir.OpIf && b.Succs[1].Cold {
				checks++
				if i+1 >= len(fn.Blocks) || fn.Blocks[i+1] != b.Succs[0] {
					t.Errorf("funclet %d: the continuation of check b%d does not follow it", k, b.ID)
				}
			}
			if b.Cold {
				// Everything after a cold block of this region is cold or
				// in another region.
				for _, c := range fn.Blocks[i+1:] {
					if c.Region == b.Region && !c.Cold {
						t.Errorf("funclet %d: hot block b%d after cold block b%d of the same region", k, c.ID, b.ID)
					}
				}
			}
		}
	}
	if checks < 4 {
		t.Errorf("found %d checks, want at least 4 (the test no longer exercises the layout)", checks)
	}
	// The try region's blocks are contiguous.
	first, last := -1, -1
	for i, b := range lay.Funcs[0].Blocks {
		if b.Region != nil && b.Region.Kind == ir.RegionTry {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	for _, b := range lay.Funcs[0].Blocks[first : last+1] {
		if b.Region == nil || b.Region.Kind != ir.RegionTry {
			t.Errorf("b%d lies inside the try's range but not in the try", b.ID)
		}
	}
}

// TestCallFinallyContinuation checks that the continuation of a
// callfinally comes right after it, so that a loop around a try/finally
// has one back edge (one poll) and the finally returns to straight-line
// code.
func TestCallFinallyContinuation(t *testing.T) {
	const loop = `.assembly extern mscorlib {}
.assembly t {}
.class public auto ansi beforefieldinit P extends [mscorlib]System.Object
{
  .method public static void main() cil managed { .entrypoint ret }
  .method public static int32 f(int32 n) cil managed
  {
    .locals init (int32 i, int32 s)
  L: ldloc i ldarg.0 bge E
    .try {
      ldloc s ldloc i add stloc s
      leave N
    } finally {
      ldloc s ldc.i4 1 xor stloc s
      endfinally
    }
  N: ldloc i ldc.i4 1 add stloc i
    br L
  E: ldloc s ret
  }
}
`
	_, lay := layoutOf(t, loop)
	calls := 0
	for _, fn := range lay.Funcs {
		for i, b := range fn.Blocks {
			if b.Term.Op != ir.OpCallFinally {
				continue
			}
			calls++
			if i+1 >= len(fn.Blocks) || fn.Blocks[i+1] != b.Succs[0] {
				t.Errorf("the continuation b%d of callfinally b%d does not follow it", b.Succs[0].ID, b.ID)
			}
		}
	}
	if calls == 0 {
		t.Fatal("no callfinally in the layout (the test no longer exercises it)")
	}
}

// layoutOf imports method f of the program src and lays it out.
func layoutOf(t *testing.T, src string) (*ir.Func, *funclet.Layout) {
	t.Helper()
	mod, err := il.Load("t.il", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var f *ir.Func
	for _, m := range mod.AllMethods() {
		if m.Name == "f" && !m.Abstract {
			if f, err = reader.Import(mod, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if f == nil {
		t.Fatal("no method f")
	}
	lay, err := funclet.Build(f)
	if err != nil {
		t.Fatal(err)
	}
	return f, lay
}
