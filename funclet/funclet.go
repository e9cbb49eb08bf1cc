// Package funclet splits a method's IR into the main body and one funclet
// per handler, and orders the blocks for code generation: the main body
// first, then every funclet (a filter immediately before its handler),
// each try region contiguous, each region's cold throw blocks at its end.
// It is internal to miniil: no compatibility promise.
package funclet

import (
	"fmt"
	"io"
	"sort"

	"miniil/abi"
	"miniil/ir"
)

// Funclet is the main body or one handler's code.
type Funclet struct {
	Kind   abi.FuncletKind
	Region *ir.Region  // the handler or filter region (nil for the main body)
	Clause int         // IL clause index (-1 for the main body)
	Blocks []*ir.Block // in code order; Blocks[0] is the entry
}

// Layout is a method's funclets in code order; Funcs[0] is the main body.
type Layout struct {
	Funcs []*Funclet
}

// Build partitions f's blocks into funclets, orders them, and renumbers
// f.Blocks in code order (block IDs follow).
func Build(f *ir.Func) (*Layout, error) {
	// The layout is read until the next compile (the code generator's
	// Code keeps it for dumps): it comes from f's cache.
	lay := ir.New[Layout](f.Cache)
	main := ir.New[Funclet](f.Cache)
	*main = Funclet{Kind: abi.Main, Clause: -1}
	lay.Funcs = ir.Append(f.Cache, lay.Funcs, main)
	// order's marks, by block ID: each call leaves them clear.
	n := f.BlockIDs()
	m := marks{in: ir.Make[bool](f.Cache, n), done: ir.Make[bool](f.Cache, n), cache: f.Cache}
	// Handler funclets in clause order, a filter before its handler.
	var handlers []*ir.Region
	for _, r := range f.Regions {
		if r.IsHandler() {
			handlers = append(handlers, r)
		}
	}
	// The blocks of each funclet (a method without handlers, most, has
	// only the main body's: all of them, with no map to build).
	mainBlocks, byFunclet := f.Blocks, map[*ir.Region][]*ir.Block(nil)
	if len(handlers) > 0 {
		mainBlocks, byFunclet = nil, map[*ir.Region][]*ir.Block{}
		for _, b := range f.Blocks {
			if fr := b.Region.Funclet(); fr != nil {
				byFunclet[fr] = append(byFunclet[fr], b)
			} else {
				mainBlocks = append(mainBlocks, b)
			}
		}
	}
	main.Blocks = m.order(nil, f.Blocks[0], mainBlocks)
	sort.SliceStable(handlers, func(i, j int) bool {
		a, b := handlers[i], handlers[j]
		if a.Clause != b.Clause {
			return a.Clause < b.Clause
		}
		return a.Kind == ir.RegionFilter && b.Kind != ir.RegionFilter
	})
	for _, r := range handlers {
		blocks := byFunclet[r]
		if r.Entry == nil || len(blocks) == 0 {
			return nil, fmt.Errorf("%s: %s region %d has no code", f.Method.FullName(), r.Kind, r.ID)
		}
		fn := ir.New[Funclet](f.Cache)
		*fn = Funclet{Kind: kinds[r.Kind], Region: r, Clause: r.Clause, Blocks: m.order(r, r.Entry, blocks)}
		lay.Funcs = ir.Append(f.Cache, lay.Funcs, fn)
	}
	all := ir.Make[*ir.Block](f.Cache, len(f.Blocks))[:0] // f's own list (the layout's are the Code's)
	for _, fn := range lay.Funcs {
		all = append(all, fn.Blocks...)
	}
	if len(all) != len(f.Blocks) {
		return nil, fmt.Errorf("%s: layout placed %d of %d blocks", f.Method.FullName(), len(all), len(f.Blocks))
	}
	f.Blocks = all
	for i, b := range all {
		b.ID = i
	}
	return lay, nil
}

// marks are order's block marks, by block ID: in the funclet being
// ordered, and placed.
type marks struct {
	in, done []bool
	cache    *ir.Cache // of the funclets' block lists
}

// kinds gives the funclet kind of each handler region kind.
var kinds = [...]abi.FuncletKind{
	ir.RegionCatch: abi.CatchFunclet, ir.RegionFilter: abi.FilterFunclet, ir.RegionFilterHandler: abi.FilterHandlerFunclet,
	ir.RegionFinally: abi.FinallyFunclet, ir.RegionFault: abi.FaultFunclet,
}

// order lays out the blocks of the funclet of region top (nil: main body):
// entry first, then the rest in their original order with cold blocks
// after hot ones, each block followed by its fall-through successor when
// that block has no other predecessor (so a check's continuation comes
// right after the check, not after every other block), and every try
// region nested in the funclet placed as one contiguous run where its
// first block would come.
// It leaves m's marks clear, so that the calls for every funclet cost
// their own blocks only.
func (m marks) order(top *ir.Region, entry *ir.Block, blocks []*ir.Block) []*ir.Block {
	in, done := m.in, m.done
	for _, b := range blocks {
		in[b.ID] = true
	}
	defer func() {
		for _, b := range blocks {
			in[b.ID], done[b.ID] = false, false
		}
	}()
	sorted := ir.Make[*ir.Block](m.cache, len(blocks))[:0]
	chain := func(b *ir.Block) {
		for b != nil && !done[b.ID] {
			done[b.ID] = true
			sorted = append(sorted, b)
			b = fallThrough(b, in, done)
		}
	}
	chain(entry)
	for _, cold := range []bool{false, true} {
		for _, b := range blocks {
			if b.Cold == cold {
				chain(b)
			}
		}
	}
	return nest(top, sorted)
}

// nest groups blocks by try region: it returns them in their order in
// bs, except that every try region nested in top (the funclet's region,
// nil for the main body) comes as one contiguous run where its first
// block would come, recursively. One walk up from each block to the
// first region already seen, then one walk of the region tree: linear in
// blocks and regions.
func nest(top *ir.Region, bs []*ir.Block) []*ir.Block {
	// item is a block or a region, in the order they appear within
	// their parent region.
	type item struct {
		b *ir.Block
		r *ir.Region
	}
	flat := true // every block directly in top: nothing to group
	for _, b := range bs {
		if b.Region != top {
			flat = false
			break
		}
	}
	if flat {
		return bs
	}
	items := map[*ir.Region][]item{}
	seen := map[*ir.Region]bool{}
	for _, b := range bs {
		items[b.Region] = append(items[b.Region], item{b: b})
		// The regions between b and top first seen here take their place
		// in their parent now.
		for r := b.Region; r != top && r != nil && !seen[r]; r = r.Parent {
			seen[r] = true
			items[r.Parent] = append(items[r.Parent], item{r: r})
		}
	}
	out := make([]*ir.Block, 0, len(bs))
	type frame struct {
		items []item
		next  int
	}
	stack := []frame{{items: items[top]}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next == len(f.items) {
			stack = stack[:len(stack)-1]
			continue
		}
		it := f.items[f.next]
		f.next++
		if it.b != nil {
			out = append(out, it.b)
		} else {
			stack = append(stack, frame{items: items[it.r]})
		}
	}
	return out
}

// fallThrough returns the successor of b to place right after it: a hot
// block of the same funclet, not yet placed, reached from b alone; for a
// conditional branch the not-taken (IL fall-through) side first; for a
// callfinally, its continuation.
func fallThrough(b *ir.Block, in, done []bool) *ir.Block {
	var cands []*ir.Block
	switch b.Term.Op {
	case ir.OpIf:
		cands = []*ir.Block{b.Succs[1], b.Succs[0]}
	case ir.OpJump, ir.OpCallFinally:
		// A callfinally's continuation too: placed elsewhere, the finally
		// would return to a jump, and a loop around a try/finally would
		// take that jump backward (a second poll per iteration).
		cands = b.Succs
	}
	for _, c := range cands {
		if in[c.ID] && !done[c.ID] && !c.Cold && len(c.Preds) == 1 {
			return c
		}
	}
	return nil
}

// Fprint prints the layout: each funclet with its blocks and regions.
func Fprint(w io.Writer, f *ir.Func, lay *Layout) {
	fmt.Fprintf(w, "funclets of %s\n", f.Method.Signature())
	for i, fn := range lay.Funcs {
		what := "main body"
		if fn.Region != nil {
			what = fmt.Sprintf("%s funclet of clause %d", fn.Kind, fn.Clause)
		}
		fmt.Fprintf(w, "  #%d %s: blocks", i, what)
		for _, b := range fn.Blocks {
			fmt.Fprintf(w, " b%d", b.ID)
			if b.Region != nil && b.Region != fn.Region {
				fmt.Fprintf(w, "(%s#%d)", b.Region.Kind, b.Region.ID)
			}
		}
		fmt.Fprintln(w)
	}
}
