// Package funclet splits a method's IR into the main body and one funclet
// per handler, and orders the blocks for code generation: the main body
// first, then every funclet (a filter immediately before its handler),
// each try region contiguous, each region's cold throw blocks at its end.
package funclet

import (
	"fmt"
	"io"
	"sort"

	"miniil/ir"
)

// Kind is the kind of a funclet.
type Kind uint8

// Funclet kinds.
const (
	Main Kind = iota
	Catch
	Filter
	FilterHandler
	Finally
	Fault
)

func (k Kind) String() string {
	return [...]string{"main", "catch", "filter", "filter-handler", "finally", "fault"}[k]
}

// Funclet is the main body or one handler's code.
type Funclet struct {
	Kind   Kind
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
	byFunclet := map[*ir.Region][]*ir.Block{}
	for _, b := range f.Blocks {
		fr := b.Region.Funclet()
		byFunclet[fr] = append(byFunclet[fr], b)
	}
	lay := &Layout{}
	main := &Funclet{Kind: Main, Clause: -1}
	main.Blocks = order(nil, f.Blocks[0], byFunclet[nil])
	lay.Funcs = append(lay.Funcs, main)
	// Handler funclets in clause order, a filter before its handler.
	var handlers []*ir.Region
	for _, r := range f.Regions {
		if r.IsHandler() {
			handlers = append(handlers, r)
		}
	}
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
		fn := &Funclet{Region: r, Clause: r.Clause, Blocks: order(r, r.Entry, blocks)}
		fn.Kind = map[ir.RegionKind]Kind{
			ir.RegionCatch: Catch, ir.RegionFilter: Filter, ir.RegionFilterHandler: FilterHandler,
			ir.RegionFinally: Finally, ir.RegionFault: Fault,
		}[r.Kind]
		lay.Funcs = append(lay.Funcs, fn)
	}
	var all []*ir.Block
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

// order lays out the blocks of the funclet of region top (nil: main body):
// entry first, then the rest in their original order with cold blocks
// after hot ones, each block followed by its fall-through successor when
// that block has no other predecessor (so a check's continuation comes
// right after the check, not after every other block), and every try
// region nested in the funclet placed as one contiguous run where its
// first block would come.
func order(top *ir.Region, entry *ir.Block, blocks []*ir.Block) []*ir.Block {
	in := make(map[*ir.Block]bool, len(blocks))
	for _, b := range blocks {
		in[b] = true
	}
	var sorted []*ir.Block
	done := map[*ir.Block]bool{}
	chain := func(b *ir.Block) {
		for b != nil && !done[b] {
			done[b] = true
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
	// child returns the region directly below node on b's region chain
	// (nil when b is directly in node).
	child := func(node *ir.Region, b *ir.Block) *ir.Region {
		var c *ir.Region
		for r := b.Region; r != node && r != nil; r = r.Parent {
			c = r
		}
		return c
	}
	var out []*ir.Block
	placed := map[*ir.Region]bool{}
	var place func(node *ir.Region, bs []*ir.Block)
	place = func(node *ir.Region, bs []*ir.Block) {
		for _, b := range bs {
			c := child(node, b)
			if c == nil {
				out = append(out, b)
				continue
			}
			if placed[c] {
				continue
			}
			placed[c] = true
			var sub []*ir.Block
			for _, x := range bs {
				if c.Contains(x.Region) {
					sub = append(sub, x)
				}
			}
			place(c, sub)
		}
	}
	place(top, sorted)
	return out
}

// fallThrough returns the successor of b to place right after it: a hot
// block of the same funclet, not yet placed, reached from b alone; for a
// conditional branch the not-taken (IL fall-through) side first.
func fallThrough(b *ir.Block, in, done map[*ir.Block]bool) *ir.Block {
	var cands []*ir.Block
	switch b.Term.Op {
	case ir.OpIf:
		cands = []*ir.Block{b.Succs[1], b.Succs[0]}
	case ir.OpJump:
		cands = b.Succs
	}
	for _, c := range cands {
		if in[c] && !done[c] && !c.Cold && len(c.Preds) == 1 {
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
