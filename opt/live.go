package opt

import "miniil/ir"

// liveSets is a backward liveness of some of a function's values (the
// tracked ones), over every block: normal edges only (a handler is
// reached by no edge), so the main body's liveness is its own, and a
// catch's code sees what is live where it resumes.
type liveSets struct {
	bit []int32 // each value's bit, -1 for a value not tracked
	in  []ir.ValueSet
	out []ir.ValueSet
}

// liveness computes the liveness of the values track selects. Its cost
// is the blocks times the tracked values, not all values.
func liveness(f *ir.Func, track func(ir.Value) bool) *liveSets {
	l := &liveSets{bit: make([]int32, len(f.Kinds))}
	n := 0
	for v := range f.Kinds {
		l.bit[v] = -1
		if track(ir.Value(v)) {
			l.bit[v] = int32(n)
			n++
		}
	}
	nb := len(f.Blocks)
	use, def := make([]ir.ValueSet, nb), make([]ir.ValueSet, nb)
	l.in, l.out = make([]ir.ValueSet, nb), make([]ir.ValueSet, nb)
	for i, b := range f.Blocks {
		use[i], def[i] = ir.MakeValueSet(f.Cache, n), ir.MakeValueSet(f.Cache, n)
		l.in[i], l.out[i] = ir.MakeValueSet(f.Cache, n), ir.MakeValueSet(f.Cache, n)
		for in := range b.Each {
			for _, a := range in.Args {
				if k := l.bit[a]; k >= 0 && !def[i].Has(ir.Value(k)) {
					use[i].Add(ir.Value(k))
				}
			}
			for _, d := range [2]ir.Value{in.Dst, in.Dst2} {
				if d != ir.NoValue && l.bit[d] >= 0 {
					def[i].Add(ir.Value(l.bit[d]))
				}
			}
		}
	}
	if n == 0 {
		return l
	}
	// Iterate to the fixed point, visiting blocks in reverse order of
	// their position (successors tend to come later), with a worklist.
	queued := make([]bool, nb)
	work := make([]int, 0, nb)
	for i := nb - 1; i >= 0; i-- {
		work = append(work, i)
		queued[i] = true
	}
	tmp := ir.MakeValueSet(f.Cache, n)
	for len(work) > 0 {
		i := work[0]
		work = work[1:]
		queued[i] = false
		b := f.Blocks[i]
		out := l.out[i]
		for _, s := range b.Succs {
			out.Or(l.in[s.ID])
		}
		copy(tmp, out)
		for w := range tmp {
			tmp[w] = tmp[w]&^def[i][w] | use[i][w]
		}
		changed := false
		for w := range tmp {
			if tmp[w] != l.in[i][w] {
				changed = true
				break
			}
		}
		if !changed {
			continue
		}
		copy(l.in[i], tmp)
		for _, p := range b.Preds {
			if !queued[p.ID] {
				queued[p.ID] = true
				work = append(work, p.ID)
			}
		}
	}
	return l
}

// liveIn reports whether tracked value v is live into block b.
func (l *liveSets) liveIn(b *ir.Block, v ir.Value) bool {
	k := l.bit[v]
	return k >= 0 && l.in[b.ID].Has(ir.Value(k))
}

// liveOut reports whether tracked value v is live out of block b.
func (l *liveSets) liveOut(b *ir.Block, v ir.Value) bool {
	k := l.bit[v]
	return k >= 0 && l.out[b.ID].Has(ir.Value(k))
}

// MarkUntracked records in f.Untracked the GC values that the GC
// information must report at every safepoint, by the rule the code
// generator applies (amd64's planGC): values live into a handler or
// filter, live where a catch resumes, or mentioned by two funclets and
// live across a call of a finally. CloneFinally and WriteThru remove
// some of those calls and uses; the values stay untracked, so that the
// collector sees, at every safepoint, the objects the code before those
// passes would have shown it (and the interpreter, whose heap limit
// follows the JIT's GC information, counts).
func MarkUntracked(f *ir.Func) {
	if len(f.Regions) == 0 {
		return
	}
	gc := func(v ir.Value) bool { return f.Kinds[v].IsGC() }
	l := liveness(f, gc)
	// The funclet (handler region, nil: the main body) that first
	// mentions each value, and the values mentioned by more than one.
	first := make([]*ir.Region, len(f.Kinds))
	seen := make([]bool, len(f.Kinds))
	multi := ir.MakeValueSet(f.Cache, len(f.Kinds))
	mention := func(v ir.Value, h *ir.Region) {
		switch {
		case v == ir.NoValue || !gc(v):
		case !seen[v]:
			seen[v], first[v] = true, h
		case first[v] != h:
			multi.Add(v)
		}
	}
	for v := range f.NumArgs {
		mention(ir.Value(v), nil)
	}
	for _, b := range f.Blocks {
		h := b.Region.Funclet()
		for in := range b.Each {
			mention(in.Dst, h)
			mention(in.Dst2, h)
			for _, a := range in.Args {
				mention(a, h)
			}
		}
	}
	// In bits of the liveness: the values live into a handler, where a
	// catch resumes, or across a call of a finally.
	n := len(l.in[0]) * 64
	shared := ir.MakeValueSet(f.Cache, n)
	multiBits := ir.MakeValueSet(f.Cache, n)
	for v := range ir.Value(len(f.Kinds)) {
		if k := l.bit[v]; k >= 0 && multi.Has(v) {
			multiBits.Add(ir.Value(k))
		}
	}
	for _, r := range f.Regions {
		if r.IsHandler() && r.Entry != nil {
			shared.Or(l.in[r.Entry.ID])
		}
	}
	tmp := ir.MakeValueSet(f.Cache, n)
	for _, b := range f.Blocks {
		switch b.Term.Op {
		case ir.OpCatchRet:
			shared.Or(l.in[b.Succs[0].ID])
		case ir.OpCallFinally:
			copy(tmp, l.out[b.ID])
			tmp.And(multiBits)
			shared.Or(tmp)
		}
	}
	f.Untracked = f.Untracked[:0]
	for v := range ir.Value(len(f.Kinds)) {
		if k := l.bit[v]; k >= 0 && shared.Has(ir.Value(k)) {
			f.Untracked = append(f.Untracked, v)
		}
	}
}
