package reader

import (
	"cmp"
	"slices"

	"miniil/il"
	"miniil/ir"
)

// buildRegions creates the EH regions of the method from its IL clauses
// and records the innermost region of every instruction. Regions nest or
// are disjoint (the verifier checked), so one sort and a sweep with a
// stack of open regions finds every parent (the smallest region strictly
// containing it; of two regions with one range, the first made is the
// one code and inner regions belong to): O(R log R + n) for R regions and
// n instructions.
func (r *reader) buildRegions() error {
	m, f := r.m, r.f
	r.regionRange = ir.Emptied(&r.maps.regionRange)
	r.handlerOf = ir.Emptied(&r.maps.handlerOf)
	r.filterOf = ir.Emptied(&r.maps.filterOf)
	r.finallyOf = ir.Emptied(&r.maps.finallyOf)
	tries := ir.Emptied(&r.maps.tries)
	add := func(kind ir.RegionKind, clause, start, end int) *ir.Region {
		reg := &ir.Region{Kind: kind, Clause: clause}
		r.regionRange[reg] = [2]int{start, end}
		f.Regions = append(f.Regions, reg)
		return reg
	}
	for i, c := range m.EH {
		try := tries[[2]int{c.TryStart, c.TryEnd}]
		if try == nil {
			try = add(ir.RegionTry, i, c.TryStart, c.TryEnd)
			tries[[2]int{c.TryStart, c.TryEnd}] = try
		}
		switch c.Kind {
		case il.EHCatch:
			r.handlerOf[i] = add(ir.RegionCatch, i, c.HandlerStart, c.HandlerEnd)
		case il.EHFinally:
			r.handlerOf[i] = add(ir.RegionFinally, i, c.HandlerStart, c.HandlerEnd)
			if _, ok := r.finallyOf[try]; !ok {
				r.finallyOf[try] = i
			}
		case il.EHFault:
			r.handlerOf[i] = add(ir.RegionFault, i, c.HandlerStart, c.HandlerEnd)
		case il.EHFilter:
			r.filterOf[i] = add(ir.RegionFilter, i, c.FilterStart, c.HandlerStart)
			r.handlerOf[i] = add(ir.RegionFilterHandler, i, c.HandlerStart, c.HandlerEnd)
		}
	}
	// Outer before inner: by start, longest first, then in the order made.
	made := make(map[*ir.Region]int, len(f.Regions))
	for i, x := range f.Regions {
		made[x] = i
	}
	sorted := slices.Clone(f.Regions)
	slices.SortFunc(sorted, func(a, b *ir.Region) int {
		ar, br := r.regionRange[a], r.regionRange[b]
		if ar[0] != br[0] {
			return cmp.Compare(ar[0], br[0])
		}
		if ar[1] != br[1] {
			return cmp.Compare(br[1], ar[1])
		}
		return cmp.Compare(made[a], made[b])
	})
	// open holds the regions containing the current start, outer first;
	// a region with the range of an open one is its sibling, not pushed.
	depth := make(map[*ir.Region]int, len(sorted))
	maxDepth := 0
	var open []*ir.Region
	for _, x := range sorted {
		xr := r.regionRange[x]
		for len(open) > 0 && r.regionRange[open[len(open)-1]][1] <= xr[0] {
			open = open[:len(open)-1]
		}
		if len(open) > 0 {
			top := open[len(open)-1]
			if r.regionRange[top] == xr {
				x.Parent, depth[x] = top.Parent, depth[top]
				continue
			}
			x.Parent, depth[x] = top, depth[top]+1
			maxDepth = max(maxDepth, depth[x])
		}
		open = append(open, x)
	}
	// Outer regions first (by depth, then in the order made), then
	// number them.
	byDepth := make([][]*ir.Region, maxDepth+1)
	for _, x := range f.Regions {
		byDepth[depth[x]] = append(byDepth[depth[x]], x)
	}
	f.Regions = f.Regions[:0]
	for _, xs := range byDepth {
		f.Regions = append(f.Regions, xs...)
	}
	for i, x := range f.Regions {
		x.ID = i
	}
	if err := f.IndexRegions(); err != nil {
		return err
	}
	// The innermost region of each instruction: the top of the open
	// regions (only the first made of regions with one range is pushed).
	r.instrRegion = nil
	if len(f.Regions) == 0 {
		return nil // every instruction in none (regionAt)
	}
	r.instrRegion = ir.Make[*ir.Region](r.opts.Cache, len(m.Code))
	open = open[:0]
	next := 0
	for i := range m.Code {
		for len(open) > 0 && r.regionRange[open[len(open)-1]][1] <= i {
			open = open[:len(open)-1]
		}
		for ; next < len(sorted) && r.regionRange[sorted[next]][0] == i; next++ {
			x := sorted[next]
			if len(open) > 0 && r.regionRange[open[len(open)-1]] == r.regionRange[x] {
				continue
			}
			open = append(open, x)
		}
		if len(open) > 0 {
			r.instrRegion[i] = open[len(open)-1]
		}
	}
	return nil
}

// handlerEntries creates the entry block of every handler and filter
// funclet: catch, filter and filter-handler entries receive the exception
// object (OpCatchArg) and pass it on the stack to the first IL block.
func (r *reader) handlerEntries() {
	r.handlerRoot = ir.Emptied(&r.maps.handlerRoot)
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
		r.stack = r.stack[:0]
		switch reg.Kind {
		case ir.RegionCatch, ir.RegionFilter, ir.RegionFilterHandler:
			r.push(r.value(ir.OpCatchArg, ir.Ref, ir.Aux{}))
		}
		r.jumpTo(r.target(start))
	}
	r.cur, r.stack, r.region = nil, r.stack[:0], nil
}

// finallyClause returns the index of the finally clause of try region reg,
// or -1 when it has none.
func (r *reader) finallyClause(reg *ir.Region) int {
	if i, ok := r.finallyOf[reg]; ok {
		return i
	}
	return -1
}

// regionAt returns the innermost region of IL instruction i (nil: none).
func (r *reader) regionAt(i int) *ir.Region {
	if r.instrRegion == nil {
		return nil
	}
	return r.instrRegion[i]
}

// leave lowers `leave target`: for every region it exits, inner to outer,
// a finally is called from a block in the region enclosing its try, and a
// catch (or filter handler) returns to a block in its enclosing region;
// then control jumps to the target. The evaluation stack is emptied.
func (r *reader) leave(target int) {
	r.stack = r.stack[:0]
	dest := r.regionAt(target)
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
