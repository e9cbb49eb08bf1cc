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

// NullChecks removes the null checks of values already known to be
// non-null: the reader checks a reference before every field access,
// array access and call through it, and a value that passed a check, or
// came from newobj, newarr, box or ldstr, stays non-null until it is
// redefined. It is a forward must-analysis over the blocks (the set of
// values known non-null at each block's entry is the intersection over
// its predecessors; a check adds its value on the edge to its
// continuation); handler entries start knowing nothing, since exceptional
// control flow has no edges in the IR. A removed check's block jumps
// straight to its continuation. It returns the number of checks removed.
func NullChecks(f *ir.Func) int {
	nv := len(f.Kinds)
	index := make(map[*ir.Block]int, len(f.Blocks))
	for i, b := range f.Blocks {
		index[b] = i
	}
	roots := map[*ir.Block]bool{f.Blocks[0]: true}
	for _, r := range f.Regions {
		if r.IsHandler() && r.Entry != nil {
			roots[r.Entry] = true
		}
	}
	in := make([]ir.ValueSet, len(f.Blocks))
	for i, b := range f.Blocks {
		in[i] = ir.NewValueSet(nv)
		if !roots[b] {
			in[i].Fill(nv) // unknown yet: the top of the lattice
		}
	}
	out := ir.NewValueSet(nv)
	for changed := true; changed; {
		changed = false
		for i, b := range f.Blocks {
			copy(out, in[i])
			transfer(b, out)
			v, isCheck := nullCheck(b)
			for k, s := range b.Succs {
				j := index[s]
				if roots[s] {
					continue
				}
				add := isCheck && k == 0 && !out.Has(v)
				if add {
					out.Add(v)
				}
				if in[j].And(out) {
					changed = true
				}
				if add {
					out.Remove(v)
				}
			}
		}
	}
	removed := 0
	for i, b := range f.Blocks {
		copy(out, in[i])
		transfer(b, out)
		if v, ok := nullCheck(b); ok && out.Has(v) {
			throw := b.Succs[1]
			throw.Preds = without(throw.Preds, b)
			b.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: b.Term.ILOffset}
			b.Succs = b.Succs[:1]
			removed++
		}
	}
	return removed
}

// transfer applies block b's instructions to known, the set of values
// known to be non-null.
func transfer(b *ir.Block, known ir.ValueSet) {
	for _, in := range b.Instrs {
		for _, d := range []ir.Value{in.Dst, in.Dst2} {
			if d != ir.NoValue {
				known.Remove(d)
			}
		}
		switch in.Op {
		case ir.OpAlloc, ir.OpNewArr, ir.OpBox, ir.OpStr:
			known.Add(in.Dst)
		case ir.OpCopy:
			if known.Has(in.Args[0]) {
				known.Add(in.Dst)
			}
		}
	}
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
