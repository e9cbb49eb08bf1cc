package opt_test

import (
	"testing"

	"miniil/ir"
	"miniil/opt"
)

const finallySrc = `
.method public static int32 Two(int32 n) cil managed {
  .maxstack 2
  .locals init (int32 s)
  .try {
    ldarg.0 brtrue.s A
    leave.s X
  A: leave.s Y
  } finally {
    ldloc s ldc.i4.7 add stloc s
    endfinally
  }
X: ldloc s ret
Y: ldloc s ldc.i4.1 add ret
}
.method public static int32 Nested(int32 n) cil managed {
  .maxstack 2
  .locals init (int32 s)
  .try {
    leave.s X
  } finally {
    .try { leave.s E } catch [mscorlib]System.Exception { pop leave.s E }
  E: endfinally
  }
X: ldloc s ret
}
`

// finallyCalls counts the calls of finallys left in the main body.
func finallyCalls(f *ir.Func) int {
	n := 0
	for _, b := range f.Blocks {
		if b.Term.Op == ir.OpCallFinally {
			n++
		}
	}
	return n
}

func TestCloneFinally(t *testing.T) {
	f := importMethod(t, finallySrc, "Two")
	if finallyCalls(f) != 2 {
		t.Fatalf("want two calls of the finally before:\n%s", f)
	}
	var funcletTemps []ir.Value
	for _, b := range f.Blocks {
		if b.Region != nil && b.Region.Kind == ir.RegionFinally {
			for _, in := range b.Instrs {
				if in.Dst != ir.NoValue && int(in.Dst) >= f.NumArgs+f.NumLocals {
					funcletTemps = append(funcletTemps, in.Dst)
				}
			}
		}
	}
	if n := opt.CloneFinally(f); n != 2 {
		t.Errorf("%d calls cloned, want 2", n)
	}
	if err := ir.Check(f); err != nil {
		t.Fatalf("%v\n%s", err, f)
	}
	if n := finallyCalls(f); n != 0 {
		t.Errorf("%d calls of the finally left:\n%s", n, f)
	}
	// The funclet stays (the exceptional path), and the copies share no
	// temporary with it.
	adds, funclet := 0, false
	for _, b := range f.Blocks {
		inFinally := b.Region != nil && b.Region.Kind == ir.RegionFinally
		funclet = funclet || inFinally
		for _, in := range b.Instrs {
			if in.Op == ir.OpAdd && in.Kind == ir.I32 && !inFinally {
				adds++
				for _, v := range funcletTemps {
					if in.Dst == v {
						t.Errorf("a copy defines the funclet's temporary %s", v)
					}
				}
			}
		}
		if !inFinally && b.Term.Op == ir.OpEndFinally {
			t.Errorf("endfinally outside the finally:\n%s", f)
		}
	}
	if !funclet {
		t.Errorf("the finally funclet is gone:\n%s", f)
	}
	if adds != 3 { // s+7 in each copy, and s+1
		t.Errorf("%d int32 adds in the main body, want 3:\n%s", adds, f)
	}

	f = importMethod(t, finallySrc, "Nested")
	if n := opt.CloneFinally(f); n != 0 || finallyCalls(f) != 1 {
		t.Errorf("a finally holding a try was cloned (%d):\n%s", n, f)
	}
}
