package opt

import (
	"miniil/il"
	"miniil/ir"
)

// TypeChecks removes the type tests of values already known to be of the
// type tested: after `r = isinst v, T` is found non-null (C#'s `if (o is
// T)`), or after a `castclass T` of v passed, v is known to be a T (or
// null) until it is redefined, and a later `castclass` of v to T or to a
// base class of T needs no test (the reader's castCheck shape: `if v` to
// a block testing `isinst v, T` against null and throwing
// InvalidCastException, then joining), and a later `isinst v, T` is v
// itself.
//
// It is a forward must-analysis over the blocks, as NullChecks is: the
// facts at a block's entry are those of every predecessor's edge; a
// branch on an isinst result adds its fact on the non-null edge; a
// definition of v forgets v's facts, and so does the edge from a call of
// a finally to its continuation for what finally and fault code defines;
// handler entries know nothing. The tracked facts are the pairs (value,
// type) of the method's isinst instructions, so a method without type
// tests costs one pass over its instructions. It returns the number of
// tests removed.
func TypeChecks(f *ir.Func) int {
	var tf typeFacts // on the stack: most methods test no types
	tf.init(f)
	if tf.n == 0 {
		return 0
	}
	nb := len(f.Blocks)
	roots := make([]bool, nb)
	roots[0] = true
	for _, r := range f.Regions {
		if r.IsHandler() && r.Entry != nil {
			roots[r.Entry.ID] = true
		}
	}
	in := make([]ir.ValueSet, nb)
	for i := range in {
		in[i] = ir.NewValueSet(tf.n)
		if !roots[i] {
			in[i].Fill(tf.n)
		}
	}
	order := postorder(f, rootBlocks(f, roots))
	out := ir.NewValueSet(tf.n)
	for changed := true; changed; {
		changed = false
		for k := len(order) - 1; k >= 0; k-- {
			b := f.Blocks[order[k]]
			copy(out, in[b.ID])
			tf.transfer(b, out)
			for i, s := range b.Succs {
				if roots[s.ID] {
					continue
				}
				edge := tf.edge(b, i, out)
				if in[s.ID].And(edge) {
					changed = true
				}
			}
		}
	}
	removed := 0
	for _, b := range f.Blocks {
		known := ir.NewValueSet(tf.n)
		copy(known, in[b.ID])
		for i, x := range b.Instrs {
			if x.Op == ir.OpIsInst && tf.holds(known, x.Args[0], x.Aux.Type) {
				b.Instrs[i] = &ir.Instr{Op: ir.OpCopy, Kind: ir.Ref, Dst: x.Dst, Dst2: ir.NoValue, Args: []ir.Value{x.Args[0]},
					ILOffset: x.ILOffset, Inline: x.Inline}
				removed++
			}
			tf.step(x, known)
		}
		if v, t, join, ok := castCheck(b); ok && tf.holds(known, v, t) {
			b.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: b.Term.ILOffset, Inline: b.Term.Inline}
			b.Succs = []*ir.Block{join}
			removed++
		}
	}
	if removed > 0 {
		Renumber(f)
	}
	return removed
}

// typeFacts numbers the facts "value v is a T or null" that isinst
// instructions could establish.
type typeFacts struct {
	f     *ir.Func
	n     int
	facts []typeFact
	of    map[ir.Value][]int // the facts about each value
	// finallyDefs are the values code of finally and fault handlers
	// defines (forgotten on a callfinally's edge).
	finallyDefs map[ir.Value]bool
}

type typeFact struct {
	v ir.Value
	t *il.Type
}

// init collects f's facts into tf.
func (tf *typeFacts) init(f *ir.Func) {
	*tf = typeFacts{f: f} // of and seen are made at the first isinst
	var seen map[typeFact]bool
	for _, b := range f.Blocks {
		for _, x := range b.Instrs {
			if x.Op == ir.OpIsInst && !seen[typeFact{x.Args[0], x.Aux.Type}] {
				fc := typeFact{x.Args[0], x.Aux.Type}
				if seen == nil {
					seen, tf.of = map[typeFact]bool{}, map[ir.Value][]int{}
				}
				seen[fc] = true
				tf.of[fc.v] = append(tf.of[fc.v], len(tf.facts))
				tf.facts = append(tf.facts, fc)
			}
		}
	}
	tf.n = len(tf.facts)
	if tf.n == 0 {
		return
	}
	in := map[*ir.Region]bool{}
	for _, r := range f.Regions { // parents first
		in[r] = r.Kind == ir.RegionFinally || r.Kind == ir.RegionFault || in[r.Parent]
	}
	tf.finallyDefs = map[ir.Value]bool{}
	for _, b := range f.Blocks {
		if in[b.Region] {
			for _, x := range b.Instrs {
				tf.finallyDefs[x.Dst] = true
				tf.finallyDefs[x.Dst2] = true
			}
		}
	}
}

// kill forgets the facts about v.
func (tf *typeFacts) kill(v ir.Value, known ir.ValueSet) {
	for _, k := range tf.of[v] {
		known.Remove(ir.Value(k))
	}
}

// step applies instruction x to known.
func (tf *typeFacts) step(x *ir.Instr, known ir.ValueSet) {
	if x.Dst != ir.NoValue {
		tf.kill(x.Dst, known)
	}
	if x.Dst2 != ir.NoValue {
		tf.kill(x.Dst2, known)
	}
}

// transfer applies block b's instructions to known.
func (tf *typeFacts) transfer(b *ir.Block, known ir.ValueSet) {
	for _, x := range b.Instrs {
		tf.step(x, known)
	}
}

// edge returns the facts on block b's edge to its successor i, given the
// facts out at the end of b (out is not changed; the result may be out).
func (tf *typeFacts) edge(b *ir.Block, i int, out ir.ValueSet) ir.ValueSet {
	switch b.Term.Op {
	case ir.OpIf:
		if c := b.Term.Args[0]; i == 1 && tf.f.Kinds[c] == ir.Ref && len(tf.of[c]) > 0 {
			// `if v` on its false edge: v is null, which is a T for every T.
			e := make(ir.ValueSet, len(out))
			copy(e, out)
			for _, k := range tf.of[c] {
				e.Add(ir.Value(k))
			}
			return e
		}
		if v, t, onTrue, ok := tf.tested(b); ok && onTrue == (i == 0) {
			if k, ok := tf.index(v, t); ok && !out.Has(ir.Value(k)) {
				e := make(ir.ValueSet, len(out))
				copy(e, out)
				e.Add(ir.Value(k))
				return e
			}
		}
	case ir.OpCallFinally:
		if len(tf.finallyDefs) > 0 {
			e := make(ir.ValueSet, len(out))
			copy(e, out)
			for d := range tf.finallyDefs {
				if d != ir.NoValue {
					tf.kill(d, e)
				}
			}
			return e
		}
	}
	return out
}

// index returns the number of fact (v, t).
func (tf *typeFacts) index(v ir.Value, t *il.Type) (int, bool) {
	for _, k := range tf.of[v] {
		if tf.facts[k].t == t {
			return k, true
		}
	}
	return 0, false
}

// holds reports whether v is known to be a t (or null): a fact about v
// with t or a class derived from t.
func (tf *typeFacts) holds(known ir.ValueSet, v ir.Value, t *il.Type) bool {
	for _, k := range tf.of[v] {
		if known.Has(ir.Value(k)) && assignable(tf.facts[k].t, t) {
			return true
		}
	}
	return false
}

// assignable reports whether a value of type from is a t: the same type,
// or a class derived from class t.
func assignable(from, t *il.Type) bool {
	if from == t {
		return true
	}
	return from.Kind == il.KClass && t.Kind == il.KClass && from.Class != nil && t.Class != nil &&
		!t.Class.Interface && from.Class.IsSubclassOf(t.Class)
}

// tested returns what the OpIf ending block b tests: `if r` on r = isinst
// v, t (v is a t on the true edge), or `if c` on c = cmp.eq/ne r, null
// with r = isinst v, t, all in b with nothing redefining r, v or c after.
func (tf *typeFacts) tested(b *ir.Block) (v ir.Value, t *il.Type, onTrue, ok bool) {
	defOf := func(x ir.Value, upto int) (*ir.Instr, int) {
		for i := upto - 1; i >= 0; i-- {
			if in := b.Instrs[i]; in.Dst == x || in.Dst2 == x {
				return in, i
			}
		}
		return nil, -1
	}
	clean := func(x ir.Value, from int) bool { // x not redefined in b.Instrs[from:]
		for _, in := range b.Instrs[from:] {
			if in.Dst == x || in.Dst2 == x {
				return false
			}
		}
		return true
	}
	cond := b.Term.Args[0]
	d, i := defOf(cond, len(b.Instrs))
	if d == nil {
		return
	}
	r, onTrue := cond, true
	if d.Op == ir.OpCmp && d.Kind == ir.Ref && (d.Aux.Cond == ir.Eq || d.Aux.Cond == ir.Ne) {
		n, _ := defOf(d.Args[1], i)
		if n == nil || n.Op != ir.OpConst || n.Kind != ir.Ref {
			return
		}
		r, onTrue = d.Args[0], d.Aux.Cond == ir.Ne
		if d, i = defOf(r, i); d == nil {
			return
		}
	}
	if d.Op != ir.OpIsInst || !clean(d.Args[0], i+1) || !clean(r, i+1) {
		return
	}
	return d.Args[0], d.Aux.Type, onTrue, true
}

// castCheck recognizes the reader's test for `castclass t` of v ending
// block b: `if v -> chk, join`, chk testing `isinst v, t` against null
// and branching to a throw of InvalidCastException or to a block that
// only jumps to join. It returns v, t and join.
func castCheck(b *ir.Block) (v ir.Value, t *il.Type, join *ir.Block, ok bool) {
	if b.Term.Op != ir.OpIf || len(b.Succs) != 2 {
		return
	}
	v, chk, join := b.Term.Args[0], b.Succs[0], b.Succs[1]
	if len(chk.Instrs) != 3 || chk.Term.Op != ir.OpIf || len(chk.Preds) != 1 {
		return
	}
	is, null, cmp := chk.Instrs[0], chk.Instrs[1], chk.Instrs[2]
	if is.Op != ir.OpIsInst || is.Args[0] != v || null.Op != ir.OpConst || null.Kind != ir.Ref ||
		cmp.Op != ir.OpCmp || cmp.Aux.Cond != ir.Eq || cmp.Args[0] != is.Dst || cmp.Args[1] != null.Dst || chk.Term.Args[0] != cmp.Dst {
		return
	}
	fail, next := chk.Succs[0], chk.Succs[1]
	if fail.Term.Op != ir.OpThrowHelper || len(next.Instrs) != 0 || next.Term.Op != ir.OpJump || next.Succs[0] != join {
		return
	}
	return v, is.Aux.Type, join, true
}

// rootBlocks returns the blocks marked in roots.
func rootBlocks(f *ir.Func, roots []bool) []*ir.Block {
	var out []*ir.Block
	for i, r := range roots {
		if r {
			out = append(out, f.Blocks[i])
		}
	}
	return out
}
