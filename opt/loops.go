package opt

import (
	"slices"

	"miniil/ir"
)

// Loop is a natural loop: a header block that dominates every block of
// the loop, and the blocks from which a path back to the header stays in
// the loop (the bodies of the back edges to the header, merged).
type Loop struct {
	Header *ir.Block
	// Blocks are the loop's own blocks, the header among them, in
	// f.Blocks order: those of its body that no loop nested in it holds.
	Blocks []*ir.Block
	Parent *Loop // the innermost loop containing this one (nil: none)
	Depth  int   // 1 for an outermost loop
	// Children are the loops nested directly in this one.
	Children []*Loop
	// body is every block of the loop, nested loops' included.
	body []*ir.Block
}

// Body returns every block of the loop, those of the loops nested in it
// included, in f.Blocks order (blocks added since, such as preheaders
// of nested loops, at the end). The slice belongs to the loop.
func (lp *Loop) Body() []*ir.Block { return lp.body }

// Innermost reports whether no loop is nested in lp.
func (lp *Loop) Innermost() bool { return len(lp.Children) == 0 }

// Loops is the loop nest of a function, as FindLoops computes it.
type Loops struct {
	// All lists the loops, each after the loops containing it.
	All []*Loop
	// of is the innermost loop of each block, by block ID.
	of []*Loop
	// dom is the dominator tree.
	dom *Dominators
}

// Of returns the innermost loop containing b (nil: none).
func (l *Loops) Of(b *ir.Block) *Loop {
	if b.ID < len(l.of) {
		return l.of[b.ID]
	}
	return nil
}

// Depth returns the number of loops containing b.
func (l *Loops) Depth(b *ir.Block) int {
	if lp := l.Of(b); lp != nil {
		return lp.Depth
	}
	return 0
}

// Dom returns the dominator tree the loops were found with.
func (l *Loops) Dom() *Dominators { return l.dom }

// Contains reports whether block b is in loop lp.
func (lp *Loop) Contains(l *Loops, b *ir.Block) bool {
	for x := l.Of(b); x != nil; x = x.Parent {
		if x == lp {
			return true
		}
	}
	return false
}

// FindLoops finds the natural loops of f. Block IDs must be positions
// (as every phase leaves them). A cycle that is no natural loop (an
// irreducible one, which IL's branches can make) is not reported; the
// passes that use loops then leave its blocks alone.
func FindLoops(f *ir.Func) *Loops {
	dom := Dominate(f)
	l := ir.New[Loops](f.Cache)
	l.of, l.dom = ir.Make[*Loop](f.Cache, len(f.Blocks)), dom
	// Until the nest is known, l.of holds each header's loop.
	byHeader := l.of
	var headers []*ir.Block
	for _, b := range f.Blocks {
		for _, h := range b.Succs {
			if !dom.Dominates(h, b) {
				continue
			}
			lp := byHeader[h.ID]
			if lp == nil {
				lp = ir.New[Loop](f.Cache)
				lp.Header = h
				byHeader[h.ID] = lp
				headers = ir.Append(f.Cache, headers, h)
			}
			lp.Blocks = ir.Append(f.Cache, lp.Blocks, b) // a latch, for now
		}
	}
	if len(headers) == 0 {
		return l
	}
	loops := ir.Make[*Loop](f.Cache, len(headers))
	for i, h := range headers {
		loops[i] = byHeader[h.ID]
		byHeader[h.ID] = nil
	}
	// Each loop's body: the header, and every block that reaches a latch
	// without passing through the header.
	in := ir.Make[bool](f.Cache, len(f.Blocks))
	var work []*ir.Block
	l.All = ir.Make[*Loop](f.Cache, len(loops))[:0]
	for _, lp := range loops {
		h := lp.Header
		latches := lp.Blocks
		lp.Blocks = ir.Append(f.Cache, nil, h)
		in[h.ID] = true
		work = work[:0]
		for _, b := range latches {
			if !in[b.ID] {
				in[b.ID] = true
				lp.Blocks = ir.Append(f.Cache, lp.Blocks, b)
				work = ir.Append(f.Cache, work, b)
			}
		}
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			for _, p := range b.Preds {
				if !in[p.ID] && dom.Reachable(p) {
					in[p.ID] = true
					lp.Blocks = ir.Append(f.Cache, lp.Blocks, p)
					work = ir.Append(f.Cache, work, p)
				}
			}
		}
		for _, b := range lp.Blocks {
			in[b.ID] = false
		}
		slices.SortFunc(lp.Blocks, func(a, b *ir.Block) int { return a.ID - b.ID })
		lp.body = lp.Blocks
		l.All = append(l.All, lp)
	}
	// Natural loops with different headers are nested or disjoint: the
	// larger ones first, each inner one finds its parent as the innermost
	// loop its header was in so far.
	slices.SortStableFunc(l.All, func(a, b *Loop) int { return len(b.body) - len(a.body) })
	for _, lp := range l.All {
		lp.Parent = l.of[lp.Header.ID]
		lp.Depth = 1
		if lp.Parent != nil {
			lp.Depth = lp.Parent.Depth + 1
			lp.Parent.Children = append(lp.Parent.Children, lp)
		}
		for _, b := range lp.body {
			l.of[b.ID] = lp
		}
	}
	// Each loop's own blocks: those whose innermost loop it is, each
	// list carved from one array (a block is its innermost loop's only),
	// capped so that appending to one (Preheader) copies it.
	own := ir.Make[*ir.Block](f.Cache, len(f.Blocks))[:0]
	for _, lp := range l.All {
		start := len(own)
		for _, b := range lp.body {
			if l.of[b.ID] == lp {
				own = append(own, b)
			}
		}
		lp.Blocks = own[start:len(own):len(own)]
	}
	return l
}

// Preheader returns the loop's preheader: the only predecessor of the
// header from outside the loop, when it is a block of the header's
// region whose only successor is the header. When there is none, it
// creates one (an empty block of the header's region, jumping to the
// header) and makes every edge from outside the loop into the header go
// to it; the block joins the loops enclosing lp. The dominator tree is
// not updated: a pass that needs it after creating preheaders finds the
// loops again. When the header is the method's entry, the preheader
// becomes the entry (block 0; the other blocks move up one). It returns
// nil when the header is a handler's entry, which no block may precede.
func (l *Loops) Preheader(f *ir.Func, lp *Loop) *ir.Block {
	h := lp.Header
	var outside []*ir.Block
	for _, p := range h.Preds {
		if !lp.Contains(l, p) && !slices.Contains(outside, p) {
			outside = append(outside, p)
		}
	}
	if isHandlerEntry(f, h) {
		return nil
	}
	if h == f.Blocks[0] {
		return l.newEntry(f, lp)
	}
	if len(outside) == 1 {
		p := outside[0]
		if len(p.Succs) == 1 && p.Region == h.Region && p.Term.Op == ir.OpJump && !isHandlerEntry(f, p) {
			return p
		}
	}
	ph := f.NewBlock(-1)
	ph.Region = h.Region
	ph.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: int32(h.ILOffset)}
	if len(h.Instrs) > 0 {
		ph.Term.Inline = h.Instrs[0].Inline
	} else {
		ph.Term.Inline = h.Term.Inline
	}
	ph.Term.ILOffset = max(ph.Term.ILOffset, 0)
	for _, p := range outside {
		for i, s := range p.Succs {
			if s == h {
				p.Succs[i] = ph
				ph.Preds = append(ph.Preds, p)
			}
		}
	}
	h.Preds = slices.DeleteFunc(h.Preds, func(p *ir.Block) bool { return slices.Contains(outside, p) })
	ph.Succs = []*ir.Block{h}
	h.Preds = append(h.Preds, ph)
	l.of = append(l.of, lp.Parent)
	for x := lp.Parent; x != nil; x = x.Parent {
		x.body = append(x.body, ph)
		if x == lp.Parent {
			x.Blocks = append(x.Blocks, ph)
		}
	}
	return ph
}

// newEntry makes a new entry block for f, jumping to lp's header (the
// old entry), as lp's preheader.
func (l *Loops) newEntry(f *ir.Func, lp *Loop) *ir.Block {
	h := lp.Header
	ph := &ir.Block{ILOffset: -1, Region: h.Region, Succs: []*ir.Block{h}}
	ph.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: int32(max(h.ILOffset, 0))}
	h.Preds = append(h.Preds, ph)
	f.Blocks = slices.Insert(f.Blocks, 0, ph)
	for i, b := range f.Blocks {
		b.ID = i
	}
	l.of = slices.Insert(l.of, 0, lp.Parent)
	for x := lp.Parent; x != nil; x = x.Parent {
		x.body = append(x.body, ph)
		if x == lp.Parent {
			x.Blocks = append(x.Blocks, ph)
		}
	}
	return ph
}

// isHandlerEntry reports whether b is the entry of a handler or filter.
func isHandlerEntry(f *ir.Func, b *ir.Block) bool {
	return b.Region != nil && b.Region.IsHandler() && b.Region.Entry == b
}

// Dominators is the dominator tree of a function's blocks. The entry
// block and every handler's entry block (which the runtime enters) are
// roots, children of a virtual root that dominates everything.
type Dominators struct {
	idom  []int // immediate dominator of each block by ID; -1: a root; -2: unreachable
	order []int // position of each block in reverse postorder (-1: unreachable)
	// pre and post number the dominator tree, so that dominance is a
	// comparison.
	pre, post []int
}

// Dominate computes the dominator tree of f (Cooper, Harvey and
// Kennedy's iteration over the reverse postorder). Block IDs must be
// positions.
func Dominate(f *ir.Func) *Dominators {
	n := len(f.Blocks)
	roots := []*ir.Block{f.Blocks[0]}
	for _, r := range f.Regions {
		if r.IsHandler() && r.Entry != nil {
			roots = append(roots, r.Entry)
		}
	}
	// One allocation for the tree's arrays and the scratch of its
	// construction (a compile builds the tree several times).
	buf := ir.Make[int](f.Cache, 7*n)
	d := ir.New[Dominators](f.Cache)
	*d = Dominators{idom: buf[:n:n], order: buf[n : 2*n : 2*n], pre: buf[2*n : 3*n : 3*n], post: buf[3*n : 4*n : 4*n]}
	first, next, isRoot := buf[4*n:5*n], buf[5*n:6*n], buf[6*n:]
	rpo := postorder(f, roots)
	slices.Reverse(rpo)
	for i := range d.idom {
		d.idom[i], d.order[i] = -2, -1
	}
	for i, b := range rpo {
		d.order[b] = i
	}
	for _, r := range roots {
		isRoot[r.ID] = 1
		d.idom[r.ID] = -1
	}
	// intersect climbs from two blocks to their nearest common dominator
	// (-1: only the virtual root).
	intersect := func(a, b int) int {
		for a != b {
			if a < 0 || b < 0 {
				return -1
			}
			for d.order[a] > d.order[b] {
				if a = d.idom[a]; a < 0 {
					return -1
				}
			}
			for d.order[b] > d.order[a] {
				if b = d.idom[b]; b < 0 {
					return -1
				}
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, b := range rpo {
			if isRoot[b] == 1 {
				continue
			}
			nd := -2
			for _, p := range f.Blocks[b].Preds {
				switch {
				case d.order[p.ID] < 0 || d.idom[p.ID] == -2:
					// Unreachable, or not reached yet.
				case nd == -2:
					nd = p.ID
				default:
					nd = intersect(nd, p.ID)
				}
			}
			if nd != d.idom[b] {
				d.idom[b], changed = nd, true
			}
		}
	}
	// Number the tree: children lists, then an iterative walk.
	for i := range first {
		first[i], next[i] = -1, -1
	}
	for i := n - 1; i >= 0; i-- {
		if p := d.idom[i]; p >= 0 {
			next[i], first[p] = first[p], i
		}
	}
	clk := 0
	type item struct{ b, child int }
	stack := make([]item, 0, 32) // on the Go stack unless the tree is deep
	for _, r := range rpo {
		if d.idom[r] != -1 {
			continue // not a tree's root (a root, or a block whose
			// dominators are only the virtual root: a catch's continuation)
		}
		stack = append(stack[:0], item{r, first[r]})
		d.pre[r] = clk
		clk++
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if c := top.child; c >= 0 {
				top.child = next[c]
				d.pre[c] = clk
				clk++
				stack = append(stack, item{c, first[c]})
				continue
			}
			d.post[top.b] = clk
			clk++
			stack = stack[:len(stack)-1]
		}
	}
	return d
}

// Reachable reports whether b is reached from the entry or a handler.
func (d *Dominators) Reachable(b *ir.Block) bool { return d.order[b.ID] >= 0 }

// Idom returns the immediate dominator of b, or nil for a root or an
// unreachable block.
func (d *Dominators) Idom(f *ir.Func, b *ir.Block) *ir.Block {
	if i := d.idom[b.ID]; i >= 0 {
		return f.Blocks[i]
	}
	return nil
}

// Dominates reports whether every path from a root to b passes a (a
// block dominates itself). Unreachable blocks dominate and are dominated
// by nothing.
func (d *Dominators) Dominates(a, b *ir.Block) bool {
	if !d.Reachable(a) || !d.Reachable(b) {
		return false
	}
	return d.pre[a.ID] <= d.pre[b.ID] && d.post[b.ID] <= d.post[a.ID]
}

// postorder returns the blocks reachable from roots in postorder (block
// IDs), with an explicit stack: block chains can be long.
func postorder(f *ir.Func, roots []*ir.Block) []int {
	seen := ir.Make[bool](f.Cache, len(f.Blocks))
	out := ir.Make[int](f.Cache, len(f.Blocks))[:0]
	type item struct {
		b    *ir.Block
		next int
	}
	stack := make([]item, 0, 32) // on the Go stack unless paths are long
	for _, r := range roots {
		if seen[r.ID] {
			continue
		}
		seen[r.ID] = true
		stack = append(stack, item{r, 0})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next < len(top.b.Succs) {
				s := top.b.Succs[top.next]
				top.next++
				if !seen[s.ID] {
					seen[s.ID] = true
					stack = append(stack, item{s, 0})
				}
				continue
			}
			out = append(out, top.b.ID)
			stack = stack[:len(stack)-1]
		}
	}
	return out
}
