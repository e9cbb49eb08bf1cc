package opt

import "miniil/ir"

// Unreachable removes the blocks that no path of edges reaches from the
// entry block or from a handler's entry (the runtime, not an edge,
// enters a handler), drops them from the predecessor lists of the
// blocks that stay, and renumbers f.Blocks (IDs are positions, the
// order is kept). It returns the number of blocks removed.
//
// The reader makes no unreachable block; they appear when a pass
// removes edges, as NullChecks does to the throw blocks of the checks it
// removes.
//
// Regions stay, also one left without blocks: ehclauses.Build wants a
// try region and a handler for every IL clause, and gives a try with no
// code no clause, as it does for a try whose leave falls into its step
// block. Handlers never lose their entry, so each still has the code
// funclet.Build makes its funclet of, even the handler of a try without
// code (which then never runs).
func Unreachable(f *ir.Func) int {
	if len(f.Blocks) == 0 {
		return 0
	}
	reached := make(map[*ir.Block]bool, len(f.Blocks))
	var work []*ir.Block // an explicit stack: block chains can be long
	visit := func(b *ir.Block) {
		if b != nil && !reached[b] {
			reached[b] = true
			work = append(work, b)
		}
	}
	visit(f.Blocks[0])
	for _, r := range f.Regions {
		if r.IsHandler() {
			visit(r.Entry)
		}
	}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, s := range b.Succs {
			visit(s)
		}
	}
	if len(reached) == len(f.Blocks) {
		return 0
	}
	kept := f.Blocks[:0]
	for _, b := range f.Blocks {
		if reached[b] {
			b.ID = len(kept)
			kept = append(kept, b)
		}
	}
	removed := len(f.Blocks) - len(kept)
	clear(f.Blocks[len(kept):])
	f.Blocks = kept
	for _, b := range kept {
		preds := b.Preds[:0]
		for _, p := range b.Preds {
			if reached[p] {
				preds = append(preds, p)
			}
		}
		b.Preds = preds
	}
	return removed
}
