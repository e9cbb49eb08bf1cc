// Package opt holds the JIT's optimization passes over the IR: small
// passes, each keeping the IR valid (ir.Check) and the program's
// behavior, exceptions included, unchanged. It is internal to miniil: no
// compatibility promise.
package opt

import (
	"fmt"
	"slices"

	"miniil/ir"
)

// Run runs every pass over f in order: NullChecks, then Unreachable,
// which removes the throw blocks of the checks NullChecks removed (the
// reader leaves no block unreachable, so Unreachable has nothing to do
// before).
func Run(f *ir.Func) error {
	NullChecks(f)
	Unreachable(f)
	if err := ir.Check(f); err != nil {
		return fmt.Errorf("opt: %w", err)
	}
	return nil
}

// NullChecks removes the null checks of values already known to be
// non-null: the reader checks a reference before every field access,
// array access and call through it, and a value that passed a check, or
// came from newobj, newarr, box or ldstr (or is an address the reader
// computed), stays non-null until it is
// redefined. It is a forward must-analysis over the blocks (the set of
// values known non-null at each block's entry is the intersection over
// its predecessors; a check adds its value on the edge to its
// continuation); handler entries start knowing nothing, since exceptional
// control flow has no edges in the IR. A removed check's block jumps
// straight to its continuation. It returns the number of checks removed.
//
// Only the checked values, and the values copied into them, are
// tracked, and blocks are revisited only when their entry set shrank, in
// reverse postorder: a method without null checks costs one pass over
// its instructions, and the sets are as large as the values they track.
func NullChecks(f *ir.Func) int {
	nn := nonNull(f)
	if nn == nil {
		return 0
	}
	u, in := nn.u, nn.in
	out := ir.MakeValueSet(f.Cache, u.n)
	removed := 0
	for i, b := range f.Blocks {
		v, ok := nullCheck(b)
		if !ok {
			continue
		}
		copy(out, in[i])
		u.transfer(b, out)
		if out.Has(u.bit(v)) {
			throw := b.Succs[1]
			throw.Preds = without(throw.Preds, b)
			b.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: b.Term.ILOffset, Inline: b.Term.Inline}
			b.Succs = b.Succs[:1]
			removed++
		}
	}
	return removed
}

// nonNullSets is the null-check analysis: the tracked values known
// non-null at each block's entry.
type nonNullSets struct {
	u     *universe
	in    []ir.ValueSet
	index func(*ir.Block) int
}

// nonNull runs the null-check analysis (nil when f checks nothing).
func nonNull(f *ir.Func) *nonNullSets {
	u := tracked(f)
	if u == nil {
		return nil
	}
	index := blockIndex(f)
	roots := make([]bool, len(f.Blocks))
	roots[0] = true
	for _, r := range f.Regions {
		if r.IsHandler() && r.Entry != nil {
			roots[index(r.Entry)] = true
		}
	}
	in := make([]ir.ValueSet, len(f.Blocks))
	for i := range f.Blocks {
		in[i] = ir.MakeValueSet(f.Cache, u.n)
		if !roots[i] {
			in[i].Fill(u.n) // unknown yet: the top of the lattice
		}
	}
	// The greatest fixed point does not depend on the visiting order;
	// reverse postorder reaches it in few rounds.
	order := reversePostorder(f, index, roots)
	dirty := make([]bool, len(f.Blocks))
	for i := range dirty {
		dirty[i] = true
	}
	out := ir.MakeValueSet(f.Cache, u.n)
	for changed := true; changed; {
		changed = false
		for _, i := range order {
			if !dirty[i] {
				continue
			}
			dirty[i] = false
			b := f.Blocks[i]
			copy(out, in[i])
			u.transfer(b, out)
			v, isCheck := nullCheck(b)
			for k, s := range b.Succs {
				j := index(s)
				if roots[j] {
					continue
				}
				add := isCheck && k == 0 && !out.Has(u.bit(v))
				if add {
					out.Add(u.bit(v))
				}
				if in[j].And(out) {
					dirty[j], changed = true, true
				}
				if add {
					out.Remove(u.bit(v))
				}
			}
		}
	}
	return &nonNullSets{u: u, in: in, index: index}
}

// atEnd returns a function reporting whether a value is known non-null
// at the end of block b (one of the blocks the analysis ran on, as it
// is now).
func (nn *nonNullSets) atEnd(b *ir.Block) func(ir.Value) bool {
	if nn == nil {
		return func(ir.Value) bool { return false }
	}
	out := ir.NewValueSet(nn.u.n)
	copy(out, nn.in[nn.index(b)])
	nn.u.transfer(b, out)
	n := len(nn.u.bits)
	return func(v ir.Value) bool { return int(v) < n && nn.u.has(v) && out.Has(nn.u.bit(v)) }
}

// hasNullCheck reports whether a block of f ends in a null check.
func hasNullCheck(f *ir.Func) bool {
	for _, b := range f.Blocks {
		if _, ok := nullCheck(b); ok {
			return true
		}
	}
	return false
}

// universe numbers the values the null-check analysis tracks: the
// checked values and, transitively, the sources of copies into them.
type universe struct {
	bits []int32 // value -> bit, -1 when untracked
	n    int
	// finallyDefs are the tracked values finally and fault code defines.
	finallyDefs ir.ValueSet
}

func (u *universe) bit(v ir.Value) ir.Value { return ir.Value(u.bits[v]) }

// has reports whether v is tracked (values made after the analysis are
// not).
func (u *universe) has(v ir.Value) bool {
	return v != ir.NoValue && int(v) < len(u.bits) && u.bits[v] >= 0
}

// tracked returns the values whose non-nullness can matter (nil when f
// checks nothing).
func tracked(f *ir.Func) *universe {
	if !hasNullCheck(f) {
		return nil // and no allocation: most small methods check nothing
	}
	u := &universe{bits: ir.Make[int32](f.Cache, len(f.Kinds))}
	for i := range u.bits {
		u.bits[i] = -1
	}
	var work []ir.Value
	add := func(v ir.Value) {
		if u.bits[v] < 0 {
			u.bits[v] = int32(u.n)
			u.n++
			work = append(work, v)
		}
	}
	for _, b := range f.Blocks {
		if v, ok := nullCheck(b); ok {
			add(v)
		}
	}
	copied := map[ir.Value][]ir.Value{} // copy destination -> sources
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == ir.OpCopy {
				copied[in.Dst] = append(copied[in.Dst], in.Args[0])
			}
		}
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		for _, src := range copied[v] {
			add(src)
		}
	}
	u.finallyDefs = finallyDefs(f, u)
	return u
}

// finallyDefs returns the tracked values that code in finally and fault
// handlers (and in regions nested in them) defines: a callfinally's edge
// to its continuation must forget them.
func finallyDefs(f *ir.Func, u *universe) ir.ValueSet {
	in := map[*ir.Region]bool{}
	for _, r := range f.Regions { // parents first
		in[r] = r.Kind == ir.RegionFinally || r.Kind == ir.RegionFault || in[r.Parent]
	}
	defs := ir.MakeValueSet(f.Cache, u.n)
	for _, b := range f.Blocks {
		if !in[b.Region] {
			continue
		}
		for _, i := range b.Instrs {
			for _, d := range []ir.Value{i.Dst, i.Dst2} {
				if u.has(d) {
					defs.Add(u.bit(d))
				}
			}
		}
	}
	return defs
}

// transfer applies block b's instructions to known, the set of tracked
// values known to be non-null.
func (u *universe) transfer(b *ir.Block, known ir.ValueSet) {
	defer func() {
		if b.Term.Op == ir.OpCallFinally {
			// The edge to the continuation skips the finally's code, which
			// runs in between and may redefine values.
			known.AndNot(u.finallyDefs)
		}
	}()
	for _, in := range b.Instrs {
		if u.has(in.Dst) {
			known.Remove(u.bit(in.Dst))
		}
		if u.has(in.Dst2) {
			known.Remove(u.bit(in.Dst2))
		}
		if !u.has(in.Dst) {
			continue
		}
		switch in.Op {
		case ir.OpAlloc, ir.OpNewArr, ir.OpBox, ir.OpStr,
			ir.OpSlotAddr, ir.OpStaticAddr, ir.OpFieldAddr, ir.OpBoxData, ir.OpElemAddr, ir.OpLea:
			// Addresses of frame blocks, statics, fields and elements of
			// checked objects, and offsets from them, are never null.
			known.Add(u.bit(in.Dst))
		case ir.OpCopy:
			if known.Has(u.bit(in.Args[0])) {
				known.Add(u.bit(in.Dst))
			}
		}
	}
}

// blockIndex returns a function giving each block's position in
// f.Blocks: its ID when the IDs are the positions, as the reader leaves
// them.
func blockIndex(f *ir.Func) func(*ir.Block) int {
	for i, b := range f.Blocks {
		if b.ID != i {
			m := make(map[*ir.Block]int, len(f.Blocks))
			for i, b := range f.Blocks {
				m[b] = i
			}
			return func(b *ir.Block) int { return m[b] }
		}
	}
	return func(b *ir.Block) int { return b.ID }
}

// reversePostorder returns the positions of f's blocks in reverse
// postorder of a depth-first walk from the roots, then any block no root
// reaches.
func reversePostorder(f *ir.Func, index func(*ir.Block) int, roots []bool) []int {
	n := len(f.Blocks)
	seen := make([]bool, n)
	post := make([]int, 0, n)
	type frame struct{ b, next int }
	var stack []frame
	walk := func(root int) {
		if seen[root] {
			return
		}
		seen[root] = true
		stack = append(stack, frame{root, 0})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			succs := f.Blocks[top.b].Succs
			if top.next < len(succs) {
				s := index(succs[top.next])
				top.next++
				if !seen[s] {
					seen[s] = true
					stack = append(stack, frame{s, 0})
				}
				continue
			}
			post = append(post, top.b)
			stack = stack[:len(stack)-1]
		}
	}
	for i, r := range roots {
		if r {
			walk(i)
		}
	}
	slices.Reverse(post)
	for i := range n {
		if !seen[i] {
			post = append(post, i)
		}
	}
	return post
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
		throw.Term.Aux.Class() == nil || throw.Term.Aux.Class().Name != "System.NullReferenceException" {
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
