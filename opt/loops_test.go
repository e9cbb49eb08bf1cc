package opt_test

import (
	"testing"

	"miniil/internal/corpustest"
	"miniil/reader"

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
// A cycle entered at both of its blocks: no natural loop. Then a call
// after it, in no cycle.
.method public static int32 Irreducible(int32 n) cil managed {
  .locals init (int32 i)
  ldarg.0 brtrue.s B
A: ldloc i ldc.i4.1 add stloc i
B: ldloc i ldarg.0 blt.s A
  ldloc i call int32 Irreducible(int32) ret
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

// TestSpanDepths checks ir.SpanDepths, the inliner's pre-check before it
// finds loops: every block of a cycle, irreducible ones included, must
// have a depth above zero, and the block after the only cycle zero.
func TestSpanDepths(t *testing.T) {
	f := importMethod(t, loopsSrc, "Irreducible")
	if l := opt.FindLoops(f); len(l.All) != 0 {
		t.Fatalf("%d natural loops in an irreducible cycle, want 0:\n%s", len(l.All), f)
	}
	depth := ir.SpanDepths(f.Cache, f.Blocks)
	for i, b := range f.Blocks {
		inCycle := false
		for _, s := range b.Succs {
			inCycle = inCycle || reaches(s, b)
		}
		hasCall := false
		for _, in := range b.Instrs {
			hasCall = hasCall || in.Op == ir.OpCall
		}
		switch {
		case inCycle && depth[i] == 0:
			t.Errorf("b%d is in a cycle but at depth 0:\n%s", b.ID, f)
		case hasCall && depth[i] != 0:
			t.Errorf("b%d, after the only cycle, is at depth %d:\n%s", b.ID, depth[i], f)
		}
	}
}

// TestSpanDepthsCorpus checks over the golden corpus that every block of
// a natural loop has a depth above zero.
func TestSpanDepthsCorpus(t *testing.T) {
	loopBlocks := 0
	for _, p := range corpustest.Load(t, "corpus") {
		for _, m := range p.Mod.AllMethods() {
			if m.Builtin || m.Abstract {
				continue
			}
			f, err := reader.Import(p.Mod, m)
			if err != nil {
				t.Fatalf("%s: %v", m.FullName(), err)
			}
			depth, l := ir.SpanDepths(f.Cache, f.Blocks), opt.FindLoops(f)
			for i, b := range f.Blocks {
				if l.Depth(b) > 0 {
					loopBlocks++
					if depth[i] == 0 {
						t.Errorf("%s: b%d is in a loop but at depth 0", m.FullName(), b.ID)
					}
				}
			}
		}
	}
	if loopBlocks == 0 {
		t.Fatal("the corpus has no loop")
	}
}

// reaches reports whether block to is reachable from block from.
func reaches(from, to *ir.Block) bool {
	seen := map[*ir.Block]bool{}
	work := []*ir.Block{from}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if b == to {
			return true
		}
		if seen[b] {
			continue
		}
		seen[b] = true
		work = append(work, b.Succs...)
	}
	return false
}
