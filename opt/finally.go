package opt

import (
	"slices"

	"miniil/ir"
)

// Finally cloning, as RyuJIT's fgCloneFinally: the normal path of a
// try/finally runs a copy of the finally's code, inlined at each call of
// the finally (OpCallFinally, which `leave` makes), instead of calling
// the funclet; the funclet stays, for the exceptional path. The copy is
// ordinary code of the region the call was in (so an exception it throws
// meets the handlers the call's would have), its OpEndFinally a jump to
// where the call continued. The finally's temporaries get new values in
// each copy; its variables (arguments, locals) are the method's own,
// shared with the funclet (WriteThru keeps those in registers on the
// normal path).
//
// A finally is cloned when it holds no region of its own (a try, or a
// handler, inside it) and the copies fit a budget: MaxFinallyClone
// instructions per copy, and a method grows by at most FinallyBudget.

// Finally cloning limits.
const (
	MaxFinallyClone = 200  // instructions of one finally
	FinallyBudget   = 2000 // instructions all the copies of a method add
)

// CloneFinally clones finally handlers into their normal-path calls and
// returns the number of calls replaced.
func CloneFinally(f *ir.Func) int {
	if len(f.Regions) == 0 {
		return 0
	}
	// The finally regions by clause; those holding a region are left.
	byClause := map[int]*ir.Region{}
	holds := map[*ir.Region]bool{}
	for _, r := range f.Regions {
		if r.Kind == ir.RegionFinally {
			byClause[r.Clause] = r
		}
		if r.Parent != nil {
			if h := r.Parent.Funclet(); h != nil {
				holds[h] = true
			}
		}
	}
	blocksOf := map[*ir.Region][]*ir.Block{}
	for _, b := range f.Blocks {
		if r := b.Region; r != nil && r.Kind == ir.RegionFinally {
			blocksOf[r] = append(blocksOf[r], b)
		}
	}
	budget := FinallyBudget
	after := map[*ir.Block][]*ir.Block{}
	var cold []*ir.Block
	n := 0
	for _, b := range slices.Clone(f.Blocks) {
		if b.Term.Op != ir.OpCallFinally {
			continue
		}
		fin := byClause[int(b.Term.Aux.Int)]
		if fin == nil || holds[fin] || fin.Entry == nil {
			continue
		}
		size := 0
		for _, x := range blocksOf[fin] {
			size += len(x.Instrs) + 1
		}
		if size > MaxFinallyClone || size > budget {
			continue
		}
		budget -= size
		hot, cld := cloneFinally(f, b, fin, blocksOf[fin])
		after[b] = hot
		cold = append(cold, cld...)
		n++
	}
	if n == 0 {
		return 0
	}
	placeAfter(f, after, cold)
	return n
}

// cloneFinally replaces the call of finally fin that ends block b by a
// copy of its blocks and returns the copies (hot, then cold).
func cloneFinally(f *ir.Func, b *ir.Block, fin *ir.Region, blocks []*ir.Block) (hot, cold []*ir.Block) {
	cont := b.Succs[0]
	vars := ir.Value(f.NumArgs + f.NumLocals)
	rename := map[ir.Value]ir.Value{}
	val := func(v ir.Value) ir.Value {
		if v == ir.NoValue || v < vars {
			return v
		}
		if w, ok := rename[v]; ok {
			return w
		}
		w := f.NewValue(f.Kinds[v])
		rename[v] = w
		return w
	}
	copies := map[*ir.Block]*ir.Block{}
	for _, x := range blocks {
		nb := &ir.Block{ILOffset: x.ILOffset, Region: b.Region, Cold: x.Cold}
		copies[x] = nb
		if x.Cold {
			cold = append(cold, nb)
		} else {
			hot = append(hot, nb)
		}
	}
	// The entry first, so it follows the call's block.
	entry := copies[fin.Entry]
	if i := slices.Index(hot, entry); i > 0 {
		copy(hot[1:i+1], hot[:i])
		hot[0] = entry
	}
	copyInstr := func(x *ir.Instr) *ir.Instr {
		y := *x
		y.Args = make([]ir.Value, len(x.Args))
		for i, a := range x.Args {
			y.Args[i] = val(a)
		}
		y.Dst, y.Dst2 = val(x.Dst), val(x.Dst2)
		return &y
	}
	for _, x := range blocks {
		nb := copies[x]
		for _, in := range x.Instrs {
			nb.Instrs = append(nb.Instrs, copyInstr(in))
		}
		if x.Term.Op == ir.OpEndFinally {
			nb.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: x.Term.ILOffset, Inline: x.Term.Inline}
			nb.Succs = []*ir.Block{cont}
			continue
		}
		nb.Term = copyInstr(x.Term)
		for _, s := range x.Succs {
			nb.Succs = append(nb.Succs, copies[s])
		}
	}
	b.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: b.Term.ILOffset, Inline: b.Term.Inline}
	b.Succs = []*ir.Block{entry}
	return hot, cold
}

// placeAfter puts the blocks of after[b] right after b in f.Blocks (and
// after them what was placed after them), cold ones at the end, then
// renumbers the blocks and their predecessors.
func placeAfter(f *ir.Func, after map[*ir.Block][]*ir.Block, cold []*ir.Block) {
	var order, stack []*ir.Block
	for i := len(f.Blocks) - 1; i >= 0; i-- {
		stack = append(stack, f.Blocks[i])
	}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, b)
		next := after[b]
		for i := len(next) - 1; i >= 0; i-- {
			stack = append(stack, next[i])
		}
	}
	f.Blocks = append(order, cold...)
	Renumber(f)
}
