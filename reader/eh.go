package reader

import (
	"miniil/il"
	"miniil/ir"
)

// buildRegions creates the EH regions of the method from its IL clauses
// and records the innermost region of every instruction.
func (r *reader) buildRegions() {
	m, f := r.m, r.f
	r.regionRange = map[*ir.Region][2]int{}
	r.handlerOf = map[int]*ir.Region{}
	r.filterOf = map[int]*ir.Region{}
	tries := map[[2]int]*ir.Region{}
	add := func(kind ir.RegionKind, clause, start, end int) *ir.Region {
		reg := &ir.Region{Kind: kind, Clause: clause}
		r.regionRange[reg] = [2]int{start, end}
		f.Regions = append(f.Regions, reg)
		return reg
	}
	for i, c := range m.EH {
		if tries[[2]int{c.TryStart, c.TryEnd}] == nil {
			tries[[2]int{c.TryStart, c.TryEnd}] = add(ir.RegionTry, i, c.TryStart, c.TryEnd)
		}
		switch c.Kind {
		case il.EHCatch:
			r.handlerOf[i] = add(ir.RegionCatch, i, c.HandlerStart, c.HandlerEnd)
		case il.EHFinally:
			r.handlerOf[i] = add(ir.RegionFinally, i, c.HandlerStart, c.HandlerEnd)
		case il.EHFault:
			r.handlerOf[i] = add(ir.RegionFault, i, c.HandlerStart, c.HandlerEnd)
		case il.EHFilter:
			r.filterOf[i] = add(ir.RegionFilter, i, c.FilterStart, c.HandlerStart)
			r.handlerOf[i] = add(ir.RegionFilterHandler, i, c.HandlerStart, c.HandlerEnd)
		}
	}
	// Parents: the smallest region strictly containing each region (the
	// verifier guarantees regions nest or are disjoint).
	size := func(x *ir.Region) int { rg := r.regionRange[x]; return rg[1] - rg[0] }
	for _, x := range f.Regions {
		xr := r.regionRange[x]
		for _, y := range f.Regions {
			yr := r.regionRange[y]
			if x != y && yr[0] <= xr[0] && xr[1] <= yr[1] && size(y) > size(x) &&
				(x.Parent == nil || size(y) < size(x.Parent)) {
				x.Parent = y
			}
		}
	}
	// Outer regions first, then number them.
	depth := func(x *ir.Region) int {
		d := 0
		for ; x != nil; x = x.Parent {
			d++
		}
		return d
	}
	regs := f.Regions
	for a := 1; a < len(regs); a++ {
		for b := a; b > 0 && depth(regs[b]) < depth(regs[b-1]); b-- {
			regs[b], regs[b-1] = regs[b-1], regs[b]
		}
	}
	for i, x := range regs {
		x.ID = i
	}
	r.instrRegion = make([]*ir.Region, len(m.Code))
	for i := range m.Code {
		for _, x := range regs {
			if rg := r.regionRange[x]; rg[0] <= i && i < rg[1] {
				if cur := r.instrRegion[i]; cur == nil || size(x) < size(cur) {
					r.instrRegion[i] = x
				}
			}
		}
	}
}

// handlerEntries creates the entry block of every handler and filter
// funclet: catch, filter and filter-handler entries receive the exception
// object (OpCatchArg) and pass it on the stack to the first IL block.
func (r *reader) handlerEntries() {
	r.handlerRoot = map[*ir.Region]*ir.Block{}
	for _, reg := range r.f.Regions {
		if !reg.IsHandler() {
			continue
		}
		start := r.regionRange[reg][0]
		r.region = reg
		r.ilOff = r.m.Code[start].Offset
		b := r.newBlock()
		r.handlerRoot[reg] = b
		reg.Entry = b
		r.cur = b
		r.stack = nil
		switch reg.Kind {
		case ir.RegionCatch, ir.RegionFilter, ir.RegionFilterHandler:
			r.push(r.value(ir.OpCatchArg, ir.Ref, ir.Aux{}))
		}
		r.jumpTo(r.target(start))
	}
	r.cur, r.stack, r.region = nil, nil, nil
}

// finallyClause returns the index of the finally clause of try region reg,
// or -1 when it has none.
func (r *reader) finallyClause(reg *ir.Region) int {
	rg := r.regionRange[reg]
	for i, c := range r.m.EH {
		if c.Kind == il.EHFinally && c.TryStart == rg[0] && c.TryEnd == rg[1] {
			return i
		}
	}
	return -1
}

// leave lowers `leave target`: for every region it exits, inner to outer,
// a finally is called from a block in the region enclosing its try, and a
// catch (or filter handler) returns to a block in its enclosing region;
// then control jumps to the target. The evaluation stack is emptied.
func (r *reader) leave(target int) {
	r.stack = nil
	dest := r.instrRegion[target]
	for reg := r.region; reg != nil && !reg.Contains(dest); reg = reg.Parent {
		switch reg.Kind {
		case ir.RegionTry:
			fc := r.finallyClause(reg)
			if fc < 0 {
				continue
			}
			r.region = reg.Parent
			step := r.newBlock()
			r.terminate(ir.OpJump, nil, ir.Aux{}, step)
			r.cur = step
			next := r.newBlock()
			r.terminate(ir.OpCallFinally, nil, ir.Aux{Int: int64(fc)}, next)
			r.cur = next
		case ir.RegionCatch, ir.RegionFilterHandler:
			r.region = reg.Parent
			next := r.newBlock()
			r.terminate(ir.OpCatchRet, nil, ir.Aux{}, next)
			r.cur = next
		}
	}
	r.jumpTo(r.target(target))
}
