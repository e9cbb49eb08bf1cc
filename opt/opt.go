// Package opt holds the JIT's optimization passes over the IR: small
// passes, each keeping the IR valid (ir.Check) and the program's
// behavior, exceptions included, unchanged.
package opt

import (
	"fmt"

	"miniil/ir"
)

// Run runs every pass over f in order.
func Run(f *ir.Func) error {
	NullChecks(f)
	if err := ir.Check(f); err != nil {
		return fmt.Errorf("opt: %w", err)
	}
	return nil
}

// NullChecks removes null checks made redundant by a dominating check of
// the same value: the reader checks a reference before every field access,
// array access and call through it, and a value that passed a check stays
// non-null as long as it is not redefined. Only values that never change
// qualify: arguments never stored to, and temporaries with a single
// definition that dominates all their uses (then a path from a check's
// continuation to a later check of the same value cannot pass through the
// definition again without passing the check again). A removed check's
// block jumps straight to its continuation. It returns the number of
// checks removed.
func NullChecks(f *ir.Func) int {
	idom := dominators(f)
	dominates := func(a, b *ir.Block) bool {
		for ; b != nil; b = idom[b] {
			if b == a {
				return true
			}
		}
		return false
	}
	stable := stableValues(f, dominates)
	// The continuation of every null check, per value, in block order.
	conts := map[ir.Value][]*ir.Block{}
	for _, b := range f.Blocks {
		if v, ok := nullCheck(b); ok && stable[v] {
			conts[v] = append(conts[v], b.Succs[0])
		}
	}
	removed := 0
	for _, b := range f.Blocks {
		v, ok := nullCheck(b)
		if !ok || !stable[v] {
			continue
		}
		for _, c := range conts[v] {
			if c != b.Succs[0] && dominates(c, b) {
				throw := b.Succs[1]
				throw.Preds = without(throw.Preds, b)
				b.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: b.Term.ILOffset}
				b.Succs = b.Succs[:1]
				removed++
				break
			}
		}
	}
	return removed
}

// stableValues returns the values that hold one value for their whole
// life: arguments never stored to, and temporaries defined once by a
// definition that comes before every use (dominating it).
func stableValues(f *ir.Func, dominates func(a, b *ir.Block) bool) map[ir.Value]bool {
	type site struct {
		b *ir.Block
		i int // instruction index (len(b.Instrs) for the terminator)
	}
	defs := map[ir.Value][]site{}
	uses := map[ir.Value][]site{}
	for _, b := range f.Blocks {
		for i, in := range append(append([]*ir.Instr(nil), b.Instrs...), b.Term) {
			for _, a := range in.Args {
				uses[a] = append(uses[a], site{b, i})
			}
			for _, d := range []ir.Value{in.Dst, in.Dst2} {
				if d != ir.NoValue {
					defs[d] = append(defs[d], site{b, i})
				}
			}
		}
	}
	stable := map[ir.Value]bool{}
	for v := range len(f.Kinds) {
		val := ir.Value(v)
		switch {
		case v < f.NumArgs:
			stable[val] = len(defs[val]) == 0
		case v < f.NumArgs+f.NumLocals:
			// Locals are also defined by the prolog's zeroing.
		case len(defs[val]) == 1:
			d := defs[val][0]
			ok := true
			for _, u := range uses[val] {
				if u.b == d.b && u.i <= d.i || u.b != d.b && !dominates(d.b, u.b) {
					ok = false
					break
				}
			}
			stable[val] = ok
		}
	}
	return stable
}

// nullCheck reports whether block b ends in a null check of a reference
// (if v -> continuation, throw NullReferenceException) and returns v.
func nullCheck(b *ir.Block) (ir.Value, bool) {
	t := b.Term
	if t == nil || t.Op != ir.OpIf || len(b.Succs) != 2 {
		return ir.NoValue, false
	}
	throw := b.Succs[1]
	if !throw.Cold || len(throw.Instrs) != 0 || throw.Term.Op != ir.OpThrowHelper ||
		throw.Term.Aux.Class == nil || throw.Term.Aux.Class.Name != "System.NullReferenceException" {
		return ir.NoValue, false
	}
	return t.Args[0], true
}

func without(bs []*ir.Block, b *ir.Block) []*ir.Block {
	out := bs[:0]
	for _, x := range bs {
		if x != b {
			out = append(out, x)
		}
	}
	return out
}

// dominators returns each block's immediate dominator (nil for roots and
// unreachable blocks). The roots are the entry block and every handler
// region's entry: exceptional control flow has no edges in the IR, so
// nothing outside a handler dominates it. The algorithm is Cooper, Harvey
// and Kennedy's iteration over reverse postorder.
func dominators(f *ir.Func) map[*ir.Block]*ir.Block {
	roots := []*ir.Block{f.Blocks[0]}
	for _, r := range f.Regions {
		if r.IsHandler() && r.Entry != nil {
			roots = append(roots, r.Entry)
		}
	}
	// Reverse postorder from a virtual root above all roots.
	seen := map[*ir.Block]bool{}
	var post []*ir.Block
	var visit func(b *ir.Block)
	visit = func(b *ir.Block) {
		seen[b] = true
		for _, s := range b.Succs {
			if !seen[s] {
				visit(s)
			}
		}
		post = append(post, b)
	}
	for i := len(roots) - 1; i >= 0; i-- {
		if !seen[roots[i]] {
			visit(roots[i])
		}
	}
	order := map[*ir.Block]int{} // reverse postorder number; the virtual root is -1
	for i := range post {
		order[post[len(post)-1-i]] = i
	}
	isRoot := map[*ir.Block]bool{}
	for _, r := range roots {
		isRoot[r] = true
	}
	// idom[b] == nil with b processed means the virtual root.
	idom := map[*ir.Block]*ir.Block{}
	done := map[*ir.Block]bool{}
	for _, r := range roots {
		done[r] = true
	}
	intersect := func(a, b *ir.Block) *ir.Block {
		for a != b {
			if a == nil || b == nil {
				return nil
			}
			for order[a] > order[b] {
				if a = idom[a]; a == nil {
					return nil
				}
			}
			for order[b] > order[a] {
				if b = idom[b]; b == nil {
					return nil
				}
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for i := len(post) - 1; i >= 0; i-- {
			b := post[i]
			if isRoot[b] {
				continue
			}
			var d *ir.Block
			first := true
			for _, p := range b.Preds {
				if !done[p] {
					continue
				}
				if first {
					d, first = p, false
				} else {
					d = intersect(d, p)
				}
			}
			if first {
				continue
			}
			if !done[b] || idom[b] != d {
				idom[b], done[b] = d, true
				changed = true
			}
		}
	}
	return idom
}
