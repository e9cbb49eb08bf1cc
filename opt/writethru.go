package opt

import (
	"miniil/ir"
)

// EH write-thru, as RyuJIT's (lvEHWriteThru): a variable that the main
// body and a handler both use lives in a register in the main body and
// in its frame slot, which the handlers read and write. Funclets reach
// the method's values only through their frame slots, and the register
// allocator keeps every value a funclet mentions in its slot; so the
// main body gets a value of its own for each such variable, its register
// copy, and:
//
//   - every definition of the copy in the main body also stores the
//     variable (the write-thru), so a handler always finds the current
//     value in the slot;
//   - the copy is loaded from the slot where the main body starts (the
//     prolog stored the arguments and zeroed the locals there), where a
//     catch resumes (resuming restores only RSP and RBP: the new block
//     on the catch's edge loads every copy), and after a call of a
//     finally that writes the variable.
//
// A variable that a filter writes keeps its slot alone: a filter runs in
// the first pass, while the frames between the throw and it are still
// on the stack, and if the exception is then caught inside them (a
// finally of the second pass throwing), those frames continue where they
// stood, the main body among them, with no reload.

// WriteThru gives the variables the main body shares with handlers a
// register copy, and returns how many it gave one.
func WriteThru(f *ir.Func) int {
	if len(f.Regions) == 0 {
		return 0
	}
	vars := f.NumArgs + f.NumLocals
	n := len(f.Kinds)
	inMain := ir.NewValueSet(n)
	inHandler := ir.NewValueSet(n)
	handlerDefs := ir.NewValueSet(n)
	filterDefs := ir.NewValueSet(n)
	for _, b := range f.Blocks {
		h := b.Region.Funclet()
		for in := range b.Each {
			set := inMain
			if h != nil {
				set = inHandler
			}
			for _, a := range in.Args {
				set.Add(a)
			}
			for _, d := range [2]ir.Value{in.Dst, in.Dst2} {
				if d == ir.NoValue {
					continue
				}
				set.Add(d)
				if h != nil {
					handlerDefs.Add(d)
					if inFilter(b.Region) {
						filterDefs.Add(d)
					}
				}
			}
		}
	}
	// The variables to split, and their register copies.
	copyOf := map[ir.Value]ir.Value{}
	var split []ir.Value
	for v := range ir.Value(vars) {
		if inMain.Has(v) && inHandler.Has(v) && !filterDefs.Has(v) {
			copyOf[v] = f.NewValue(f.Kinds[v])
			split = append(split, v)
		}
	}
	if len(split) == 0 {
		return 0
	}
	// The main body uses the copies and writes each definition through.
	for _, b := range f.Blocks {
		if b.Region.Funclet() != nil {
			continue
		}
		code := make([]*ir.Instr, 0, len(b.Instrs))
		for _, in := range b.Instrs {
			for i, a := range in.Args {
				if c, ok := copyOf[a]; ok {
					in.Args[i] = c
				}
			}
			code = append(code, in)
			for _, d := range []*ir.Value{&in.Dst, &in.Dst2} {
				if c, ok := copyOf[*d]; ok {
					v := *d
					*d = c
					code = append(code, &ir.Instr{Op: ir.OpCopy, Kind: f.Kinds[v], Dst: v, Dst2: ir.NoValue,
						Args: []ir.Value{c}, ILOffset: in.ILOffset, Inline: in.Inline})
				}
			}
		}
		b.Instrs = code
		for i, a := range b.Term.Args {
			if c, ok := copyOf[a]; ok {
				b.Term.Args[i] = c
			}
		}
	}
	// Loads of the copies that are live: at the entry, on the edges where
	// catches resume, after calls of finallys that write them. (A load
	// where the copy is dead would make the variable live there: the GC
	// information would report it where it did not.)
	isCopy := ir.NewValueSet(len(f.Kinds))
	for _, c := range copyOf {
		isCopy.Add(c)
	}
	live := liveness(f, isCopy.Has)
	load := func(b *ir.Block, vs []ir.Value, at *ir.Instr, before *ir.Block) {
		for _, v := range vs {
			if live.liveIn(before, copyOf[v]) {
				b.Instrs = append(b.Instrs, &ir.Instr{Op: ir.OpCopy, Kind: f.Kinds[v], Dst: copyOf[v], Dst2: ir.NoValue,
					Args: []ir.Value{v}, ILOffset: at.ILOffset, Inline: at.Inline})
			}
		}
	}
	var written []ir.Value // split variables a handler writes
	for _, v := range split {
		if handlerDefs.Has(v) {
			written = append(written, v)
		}
	}
	after := map[*ir.Block][]*ir.Block{}
	first := f.Blocks[0]
	entry := &ir.Block{ILOffset: -1, Region: first.Region}
	load(entry, split, &ir.Instr{ILOffset: int32(first.ILOffset)}, first)
	entry.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: int32(first.ILOffset)}
	entry.Succs = []*ir.Block{first}
	for _, b := range f.Blocks {
		switch {
		case b.Term.Op == ir.OpCatchRet && b.Succs[0].Region.Funclet() == nil:
			// A catch resuming in the main body: every copy from its slot.
			step := &ir.Block{ILOffset: -1, Region: b.Succs[0].Region}
			load(step, split, b.Term, b.Succs[0])
			step.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: b.Term.ILOffset, Inline: b.Term.Inline}
			step.Succs = []*ir.Block{b.Succs[0]}
			b.Succs[0] = step
			after[b] = append(after[b], step)
		case b.Term.Op == ir.OpCallFinally && b.Region.Funclet() == nil && len(written) > 0:
			step := &ir.Block{ILOffset: -1, Region: b.Succs[0].Region}
			load(step, written, b.Term, b.Succs[0])
			step.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: b.Term.ILOffset, Inline: b.Term.Inline}
			step.Succs = []*ir.Block{b.Succs[0]}
			b.Succs[0] = step
			after[b] = append(after[b], step)
		}
	}
	f.Blocks = append([]*ir.Block{entry}, f.Blocks...)
	placeAfter(f, after, nil)
	return len(split)
}

// inFilter reports whether region r is a filter or inside one.
func inFilter(r *ir.Region) bool {
	for ; r != nil; r = r.Parent {
		if r.Kind == ir.RegionFilter {
			return true
		}
	}
	return false
}
