package opt_test

import (
	"testing"

	"miniil/ir"
	"miniil/opt"
)

const loopsSrc = `
// Two nested loops: the outer one's own blocks leave out the inner's.
.method public static int32 Nest(int32 n) cil managed {
  .locals init (int32 i, int32 j, int32 s)
  ldc.i4.0 stloc i
LI: ldloc i ldarg.0 bge DONE
  ldc.i4.0 stloc j
LJ: ldloc j ldarg.0 bge NI
  ldloc s ldc.i4.1 add stloc s
  ldloc j ldc.i4.1 add stloc j br LJ
NI: ldloc i ldc.i4.1 add stloc i br LI
DONE: ldloc s ret
}
// A loop entered from two places: no block can be its preheader.
.method public static int32 TwoEntries(int32 n) cil managed {
  .locals init (int32 i)
  ldarg.0 brtrue.s L
  ldc.i4.1 stloc i
  br.s L
L: ldloc i ldarg.0 bge.s D
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc i ret
}
`

func TestFindLoopsNest(t *testing.T) {
	f := importMethod(t, loopsSrc, "Nest")
	l := opt.FindLoops(f)
	if len(l.All) != 2 {
		t.Fatalf("%d loops, want 2:\n%s", len(l.All), f)
	}
	outer, inner := l.All[0], l.All[1]
	if inner.Parent != outer || !inner.Innermost() || outer.Innermost() || len(outer.Children) != 1 {
		t.Fatalf("nest: inner's parent %p, outer %p, children %d", inner.Parent, outer, len(outer.Children))
	}
	if got, want := len(outer.Body()), len(outer.Blocks)+len(inner.Body()); got != want {
		t.Errorf("outer body has %d blocks, want its own %d plus the inner loop's %d", got, len(outer.Blocks), len(inner.Body()))
	}
	for _, b := range outer.Blocks {
		if l.Of(b) != outer {
			t.Errorf("b%d is among the outer loop's own blocks but in loop %p", b.ID, l.Of(b))
		}
	}
	for _, lp := range l.All {
		n := len(f.Blocks)
		ph := l.Preheader(f, lp)
		if ph == nil || len(f.Blocks) != n {
			t.Errorf("loop at b%d: preheader %v, %d blocks made; want an existing block", lp.Header.ID, ph, len(f.Blocks)-n)
		}
	}
}

func TestPreheaderCreated(t *testing.T) {
	f := importMethod(t, loopsSrc, "TwoEntries")
	l := opt.FindLoops(f)
	if len(l.All) != 1 {
		t.Fatalf("%d loops, want 1", len(l.All))
	}
	lp := l.All[0]
	n := len(f.Blocks)
	ph := l.Preheader(f, lp)
	if ph == nil || len(f.Blocks) != n+1 {
		t.Fatalf("preheader %v, %d blocks made; want a new one", ph, len(f.Blocks)-n)
	}
	if err := ir.Check(f); err != nil {
		t.Fatalf("%v\n%s", err, f)
	}
	outside := 0
	for _, p := range lp.Header.Preds {
		if !lp.Contains(l, p) {
			outside++
			if p != ph {
				t.Errorf("b%d still enters the header", p.ID)
			}
		}
	}
	if outside != 1 || len(ph.Preds) != 2 {
		t.Errorf("%d outside predecessors, preheader has %d; want 1 and 2:\n%s", outside, len(ph.Preds), f)
	}
	if again := l.Preheader(f, lp); again != ph {
		t.Errorf("second call made another preheader")
	}
}
