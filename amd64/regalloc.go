package amd64

import (
	"slices"
	"sort"

	"miniil/funclet"
	"miniil/internal/chunked"
	"miniil/ir"
)

// Register homes.
//
// The allocator gives some virtual registers of a method's main body a
// machine register as their home for their whole life; the others keep
// their frame slot. It is a linear scan over one
// conservative interval per value (from its first to its last live
// position in layout order, holes included), in the spirit of Poletto
// and Sarkar, with spill decisions by use weight rather than by interval
// end, so loop variables win over short temporaries.
//
// Homes are chosen from registers the code generator never uses as
// scratch and that exits (helpers, polls, the prestub) preserve: RBX,
// R10-R14 for integers and references, XMM8-15 for floats. RBX and
// R12-R14 are callee-saved in the managed convention (a method saves the
// ones it uses in its frame and restores them before returning), so an
// integer value live across a managed call may live there; the others
// are caller-saved, for values no call interrupts. A float live across a
// call keeps its slot; so does every value live across a call to a
// finally funclet holding a try (a catch inside the funclet may resume it
// with the callee-saved registers of the frames it unwound). The call of
// any other finally is an ordinary managed call: the funclet itself
// uses no callee-saved register (it has no homes), its callees restore
// those they use, and an exception leaving it never returns to the call.
//
// R8 and R9, argument registers of the managed convention, are homes for
// values that no call comes near: the code generator writes them only to
// pass arguments (a fifth and sixth integer argument, or a result computed
// straight into them for the call after it) and the runtime's native
// routines (string and StringBuilder) clobber them, so a value in R8 or R9
// lives across no call of any kind, is no call's operand and is not read
// by the instruction before a call; and in a method whose own arguments
// arrive in them, they are not homes at all (the entry block may still
// read the arguments from their registers). Loops without calls, inlined
// bodies among them, get eight integer homes instead of six. XMM2-7, the
// third to eighth float argument registers, are float homes under the
// same rule (exits preserve them, only calls write them): after XMM8-15,
// for loops of float code with more values live at once than eight
// (nbody's Advance), which would otherwise go through the frame.
//
// Only the main body's values get homes, and not all of them (DESIGN.md:
// values live into or out of a handler stay in the frame): funclets reach
// the method's values through RBP, so a value any funclet mentions keeps
// its slot; and resuming after a catch restores only RSP and RBP, so a
// value live at the start of a catch's continuation keeps its slot too.
var (
	gprHomes = []Reg{RSI, RDI, R8, R9, R10, R11, RBX, R12, R13, R14} // caller-saved first
	xmmHomes = []Reg{X8, X9, X10, X11, X12, X13, X14, X15, X2, X3, X4, X5, X6, X7}
	// CalleeSaved lists the callee-saved registers of the managed
	// convention besides RBP, in save-slot order.
	CalleeSaved = []Reg{RBX, R12, R13, R14}
)

// minCalleeSavedWeight is the least weight for which a value live across
// a call takes a callee-saved register: the register costs a store and a
// load on every path through the method, the slot a store per definition
// and a load per use. 8 is one use inside a loop (fib's argument, used
// three times outside any loop, stays in its slot; the leaf path then
// touches no callee-saved register).
const minCalleeSavedWeight = 8

// isCalleeSaved reports whether r is in CalleeSaved.
func isCalleeSaved(r Reg) bool { return slices.Contains(CalleeSaved, r) }

// interval is the part of the layout (in positions) where a value lives.
type interval struct {
	v           ir.Value
	start, end  int
	weight      float64
	crossesCall bool // live across a managed call: callee-saved registers only
	nearCall    bool // live across, or read by or just before, a call of any kind: not R8 or R9
	// nearArgUse: live across, or read by or just before, an instruction
	// whose code writes RDI or RSI (usesRDIRSI), or live in a block
	// where the arguments may still be read from their registers (the
	// entry block and the blocks only it reaches, readsArgRegs): not RDI
	// or RSI.
	nearArgUse bool
}

// allocate returns the home of every value (NoReg for a slot) and the
// values live into and out of each block of the main body (in layout
// order). skip marks values that need no location at all (see
// gen.transient).
func allocate(f *ir.Func, lay *funclet.Layout, skip ir.ValueSet) ([]Reg, []blockLive) {
	homes := ir.Make[Reg](f.Cache, len(f.Kinds))
	for i := range homes {
		homes[i] = NoReg
	}
	blocks := lay.Funcs[0].Blocks
	live := liveness(f, blocks)
	framed := ir.MakeValueSet(f.Cache, len(f.Kinds)) // values that must stay in the frame
	for _, v := range f.Untracked {
		framed.Add(v) // the GC information reports their slots everywhere
	}
	index := blockIndex(f.Cache, blocks)
	for _, fn := range lay.Funcs[1:] {
		for _, b := range fn.Blocks {
			for in := range b.Each {
				for _, v := range [2]ir.Value{in.Dst, in.Dst2} {
					if v != ir.NoValue {
						framed.Add(v)
					}
				}
				for _, v := range in.Args {
					if v != ir.NoValue {
						framed.Add(v)
					}
				}
			}
			if b.Term.Op == ir.OpCatchRet {
				if k, ok := index.at(b.Succs[0]); ok {
					for _, v := range live[k].in {
						framed.Add(v)
					}
				}
			}
		}
	}
	ivs, calls, finallyCalls, anyCalls, argUses, argBlocks := intervals(f, blocks, live)
	crosses := func(iv *interval, at []int) bool {
		k := sort.SearchInts(at, iv.start+1)
		return k < len(at) && at[k] < iv.end
	}
	var cands []*interval
	for i := range ivs {
		iv := &ivs[i]
		if iv.start > iv.end || skip.Has(iv.v) || framed.Has(iv.v) || crosses(iv, finallyCalls) {
			continue
		}
		iv.crossesCall = crosses(iv, calls)
		// A call reads its operands at its position c: near it are the
		// intervals with start <= c <= end+2 (the instruction before the
		// call may compute into an argument register; an interval may start
		// at a read, when the write is laid out after it).
		if k := sort.SearchInts(anyCalls, iv.start); k < len(anyCalls) && anyCalls[k] <= iv.end+2 {
			iv.nearCall = true
		}
		if k := sort.SearchInts(argUses, iv.start); overlaps(iv, argBlocks) || k < len(argUses) && argUses[k] <= iv.end+2 {
			iv.nearArgUse = true
		}
		if iv.crossesCall && (f.Kinds[iv.v].IsFloat() || iv.weight < minCalleeSavedWeight) {
			continue
		}
		cands = append(cands, iv)
	}
	slices.SortStableFunc(cands, func(a, b *interval) int { return a.start - b.start })
	gprs := gprHomes
	if n := intArgs(f); n >= 5 {
		// R8 brings the fifth argument, R9 the sixth.
		gprs = slices.DeleteFunc(slices.Clone(gprHomes), func(r Reg) bool { return r == R8 || r == R9 && n == 6 })
	}
	scan(f, cands, homes, false, gprs)
	xmms := xmmHomes
	if n := floatArgs(f); n > 2 {
		// XMM2 brings the third float argument, and so on.
		xmms = slices.DeleteFunc(slices.Clone(xmmHomes), func(r Reg) bool { return r >= X2 && r < X0+Reg(n) })
	}
	scan(f, cands, homes, true, xmms)
	return homes, live
}

// isArgHome reports whether home r is an argument register of the
// managed convention (R8, R9, XMM2-7), which only values no call comes
// near may take.
func isArgHome(r Reg) bool { return r == R8 || r == R9 || r >= X2 && r <= X7 }

// floatArgs returns how many of f's arguments arrive in float argument
// registers (at most 8).
func floatArgs(f *ir.Func) int {
	n := 0
	for _, k := range f.Kinds[:f.NumArgs] {
		if k.IsFloat() {
			n++
		}
	}
	return min(n, len(floatArgRegs))
}

// intArgs returns how many of f's arguments arrive in integer argument
// registers (at most 6).
func intArgs(f *ir.Func) int {
	n := 0
	for _, k := range f.Kinds[:f.NumArgs] {
		if !k.IsFloat() {
			n++
		}
	}
	return min(n, len(intArgRegs))
}

// scan is the linear scan of the candidates of one register class.
func scan(f *ir.Func, cands []*interval, homes []Reg, float bool, regs []Reg) {
	free := ir.Make[Reg](f.Cache, len(regs))
	copy(free, regs)
	var saved [X15 + 1]bool // registers given to some value so far
	var order [X15 + 1]int  // each register's position in regs
	for k, r := range regs {
		order[r] = k
	}
	var active []*interval // sorted by end
	for _, iv := range cands {
		if f.Kinds[iv.v].IsFloat() != float {
			continue
		}
		// Expire intervals that ended before this one starts.
		n := 0
		for _, a := range active {
			if a.end < iv.start {
				free = append(free, homes[a.v])
				continue
			}
			active[n] = a
			n++
		}
		active = active[:n]
		fits := func(r Reg) bool {
			return (!iv.crossesCall || isCalleeSaved(r)) && !(iv.nearCall && isArgHome(r)) &&
				!(iv.nearArgUse && (r == RDI || r == RSI))
		}
		// Of the free registers that fit, take a caller-saved one, else a
		// callee-saved one the method already saves, else a new one (each
		// costs a save and a restore); the first in regs among equals.
		pick, best := -1, 0
		for k, r := range free {
			if !fits(r) {
				continue
			}
			rank := order[r]
			if isCalleeSaved(r) {
				rank += len(regs)
				if !saved[r] {
					rank += len(regs)
				}
			}
			if pick < 0 || rank < best {
				pick, best = k, rank
			}
		}
		if pick < 0 {
			// Evict the lightest active interval whose register fits, if
			// it weighs less.
			light := -1
			for k, a := range active {
				if fits(homes[a.v]) && (light < 0 || a.weight < active[light].weight) {
					light = k
				}
			}
			if light < 0 || active[light].weight >= iv.weight {
				continue
			}
			victim := active[light]
			free = append(free, homes[victim.v])
			pick = len(free) - 1
			homes[victim.v] = NoReg
			active = append(active[:light], active[light+1:]...)
		}
		homes[iv.v] = free[pick]
		saved[free[pick]] = true
		free = append(free[:pick], free[pick+1:]...)
		k := sort.Search(len(active), func(j int) bool { return active[j].end > iv.end })
		active = append(active, nil)
		copy(active[k+1:], active[k:])
		active[k] = iv
	}
}

// intervals computes each value's live interval over the blocks in layout
// order, the positions of the managed calls and those of the calls to
// finally funclets that a catch may resume inside (resumableFinallys;
// the calls of the others are managed calls). Instruction i of the
// layout reads its operands at position 2i+2 and writes its results at
// 2i+3; arguments and locals are written at position 0 (the prolog).
func intervals(f *ir.Func, blocks []*ir.Block, live []blockLive) (ivs []interval, calls, finallyCalls, anyCalls, argUses []int, argBlocks [][2]int) {
	nv := len(f.Kinds)
	ivs = ir.Make[interval](f.Cache, nv)
	for v := range ivs {
		ivs[v] = interval{v: ir.Value(v), start: 1 << 30, end: -1}
	}
	touch := func(v ir.Value, p int, w float64) {
		iv := &ivs[v]
		iv.start = min(iv.start, p)
		iv.end = max(iv.end, p)
		iv.weight += w
	}
	for v := 0; v < f.NumArgs+f.NumLocals && v < nv; v++ {
		touch(ir.Value(v), 0, 0)
	}
	depth := ir.SpanDepths(f.Cache, blocks) // loop nesting, estimated from back edges in layout order
	resumable := resumableFinallys(f)
	pos := 2
	for bi, b := range blocks {
		first := pos
		w := 1.0
		for d := int32(0); d < min(depth[bi], 6); d++ {
			w *= 8
		}
		for in := range b.Each {
			for _, a := range in.Args {
				touch(a, pos, w)
			}
			for _, d := range []ir.Value{in.Dst, in.Dst2} {
				if d != ir.NoValue {
					touch(d, pos+1, w)
				}
			}
			if in.Op == ir.OpCall || in.Op == ir.OpCallVirt {
				anyCalls = ir.Append(f.Cache, anyCalls, pos)
			}
			if usesRDIRSI(in) {
				argUses = ir.Append(f.Cache, argUses, pos)
			}
			switch {
			case in.Op == ir.OpCallFinally && resumable[int(in.Aux.Int)]:
				finallyCalls = ir.Append(f.Cache, finallyCalls, pos+1)
			case in.Op == ir.OpCallFinally:
				calls = ir.Append(f.Cache, calls, pos+1)
			case clobbers(in):
				calls = ir.Append(f.Cache, calls, pos+1)
			}
			pos += 2
		}
		last := pos - 1
		if readsArgRegs(f, b) {
			start := first
			if bi == 0 {
				start = 0 // the prolog, where the arguments are defined
			}
			argBlocks = ir.Append(f.Cache, argBlocks, [2]int{start, last})
		}
		for _, v := range live[bi].in {
			touch(v, first, 0)
		}
		for _, v := range live[bi].out {
			touch(v, last, 0)
		}
	}
	return ivs, calls, finallyCalls, anyCalls, argUses, argBlocks
}

// readsArgRegs reports whether the code of block b may read arguments
// from the registers that brought them (as the code generator's block
// does): the entry block, and a block reached from it alone when nothing
// branches back to the entry. No value living there may take RDI or RSI
// as its home.
func readsArgRegs(f *ir.Func, b *ir.Block) bool {
	entry := f.Blocks[0]
	return b == entry || len(b.Preds) == 1 && b.Preds[0] == entry && len(entry.Preds) == 0
}

// overlaps reports whether iv meets one of the position ranges rs.
func overlaps(iv *interval, rs [][2]int) bool {
	for _, r := range rs {
		if iv.start <= r[1] && iv.end >= r[0] {
			return true
		}
	}
	return false
}

// usesRDIRSI reports whether the code of in may write RDI or RSI: calls
// (their arguments), calls of finallys (the establisher frame), the
// helper exits of allocations, boxes, type tests, store checks and
// throws (their arguments), and reference stores and value copies (the
// write barrier).
func usesRDIRSI(in *ir.Instr) bool {
	switch in.Op {
	case ir.OpCall, ir.OpCallVirt, ir.OpCallFinally, ir.OpAlloc, ir.OpNewArr, ir.OpBox, ir.OpIsInst, ir.OpTypeIs,
		ir.OpCanStore, ir.OpThrow, ir.OpThrowHelper, ir.OpRethrow, ir.OpCopyBlk, ir.OpCatchArg:
		return true
	case ir.OpStField, ir.OpStElem, ir.OpStore:
		return in.Kind == ir.Ref
	}
	return false
}

// clobbers reports whether in is a call to managed code, which may change
// every caller-saved register.
func clobbers(in *ir.Instr) bool {
	switch in.Op {
	case ir.OpCallVirt:
		return true
	case ir.OpCall:
		return !in.Aux.Method().Builtin
	}
	return false
}

// blockPos gives each block of a list its position in the list, by
// block ID (-1: not in the list).
type blockPos []int32

// at returns b's position in the list, and whether it is in it.
func (p blockPos) at(b *ir.Block) (int, bool) {
	if b.ID < 0 || b.ID >= len(p) || p[b.ID] < 0 {
		return -1, false
	}
	return int(p[b.ID]), true
}

// blockIndex maps each block to its position in blocks.
func blockIndex(c *ir.Cache, blocks []*ir.Block) blockPos {
	n := 0
	for _, b := range blocks {
		n = max(n, b.ID+1)
	}
	index := blockPos(ir.Make[int32](c, n))
	for i := range index {
		index[i] = -1
	}
	for i, b := range blocks {
		index[b.ID] = int32(i)
	}
	return index
}

// valueList is a set of values as an increasing list.
type valueList []ir.Value

// Has reports whether v is in l.
func (l valueList) Has(v ir.Value) bool {
	_, ok := slices.BinarySearch(l, v)
	return ok
}

// blockLive is the set of values live on entry to and exit from a block.
type blockLive struct{ in, out valueList }

// liveness computes the values live into and out of each block. It works
// one value at a time, walking back from each block that reads the value
// before writing it through predecessors until blocks that write it (as
// in the SSA-based "path exploration" of Brandner et al.), so its cost is
// the size of the live sets it returns plus the code, not blocks times
// values. The sets are those of the usual backward dataflow.
func liveness(f *ir.Func, blocks []*ir.Block) []blockLive {
	return livenessOf(f, blocks, nil)
}

// livenessOf is liveness restricted to the values of the kinds only
// accepts (nil: every value).
func livenessOf(f *ir.Func, blocks []*ir.Block, only func(ir.Kind) bool) []blockLive {
	nv := len(f.Kinds)
	nb := len(blocks)
	index := blockIndex(f.Cache, blocks)
	// Per value: the blocks that read it before any write (upward-exposed
	// uses), and the blocks that write it, as flat lists (value v's are
	// uses[ustart[v]:ustart[v+1]]): counted in a first walk over the code,
	// filled in a second (marks i+1, then -(i+1)). One allocation for all
	// the per-value and per-block arrays.
	ints := ir.Make[int32](f.Cache, 6*nv+2+3*nb+1)
	ustart, ints := ints[:nv+1], ints[nv+1:]
	dstart, ints := ints[:nv+1], ints[nv+1:]
	ucur, ints := ints[:nv], ints[nv:]
	dcur, ints := ints[:nv], ints[nv:]
	lastUse, ints := ints[:nv], ints[nv:] // mark of the block that last recorded a use or def of v
	lastDef, ints := ints[:nv], ints[nv:]
	pstart, ints := ints[:nb+1], ints[nb+1:]
	inMark, ints := ints[:nb], ints[nb:] // value+1 live into the block
	outMark := ints[:nb]                 // value+1 live out of the block
	walk := func(fill bool, uses, defs []int32) {
		for i, b := range blocks {
			mark := int32(i + 1)
			if fill {
				mark = -mark
			}
			for k := 0; k <= len(b.Instrs); k++ {
				in := b.Term
				if k < len(b.Instrs) {
					in = b.Instrs[k]
				}
				for _, a := range in.Args {
					if only != nil && !only(f.Kinds[a]) {
						continue
					}
					if lastDef[a] != mark && lastUse[a] != mark {
						lastUse[a] = mark
						if fill {
							uses[ucur[a]] = int32(i)
							ucur[a]++
						} else {
							ustart[a+1]++
						}
					}
				}
				for _, d := range [2]ir.Value{in.Dst, in.Dst2} {
					if d != ir.NoValue && lastDef[d] != mark {
						lastDef[d] = mark
						if fill {
							defs[dcur[d]] = int32(i)
							dcur[d]++
						} else {
							dstart[d+1]++
						}
					}
				}
			}
		}
	}
	walk(false, nil, nil)
	for v := range nv {
		ustart[v+1] += ustart[v]
		dstart[v+1] += dstart[v]
	}
	copy(ucur, ustart[:nv])
	copy(dcur, dstart[:nv])
	flat := ir.Make[int32](f.Cache, int(ustart[nv]+dstart[nv]))
	uses, defs := flat[:ustart[nv]], flat[ustart[nv]:]
	walk(true, uses, defs)
	// Predecessors among the blocks, from the successor lists (the
	// dataflow's edges), flat as well.
	for _, b := range blocks {
		for _, s := range b.Succs {
			if k, ok := index.at(s); ok {
				pstart[k+1]++
			}
		}
	}
	for k := range nb {
		pstart[k+1] += pstart[k]
	}
	preds := ir.Make[int32](f.Cache, int(pstart[nb]))
	pcur := inMark // free until the dataflow below
	copy(pcur, pstart[:nb])
	for i, b := range blocks {
		for _, s := range b.Succs {
			if k, ok := index.at(s); ok {
				preds[pcur[k]] = int32(i)
				pcur[k]++
			}
		}
	}
	clear(inMark)
	defines := ir.Make[bool](f.Cache, nb)
	// The live sets, as (block, value) pairs in increasing value order,
	// bucketed by block at the end. The pair lists grow by chunks (a
	// large method has several pairs per block, and append would copy
	// them over and over) and are kept for the next compile.
	s := ir.Keep[liveScratch](f.Cache)
	ins, outs, work := &s.ins, &s.outs, s.work[:0]
	ins.Reset()
	outs.Reset()
	defer func() { s.work = work[:0] }()
	for v := range nv {
		if ustart[v] == ustart[v+1] {
			continue
		}
		mark := int32(v + 1)
		vdefs := defs[dstart[v]:dstart[v+1]]
		for _, i := range vdefs {
			defines[i] = true
		}
		for _, i := range uses[ustart[v]:ustart[v+1]] {
			if inMark[i] != mark {
				inMark[i] = mark
				work = append(work, i)
			}
		}
		for len(work) > 0 {
			i := work[len(work)-1]
			work = work[:len(work)-1]
			ins.Append(livePair{i, ir.Value(v)})
			for _, k := range preds[pstart[i]:pstart[i+1]] {
				if outMark[k] == mark {
					continue
				}
				outMark[k] = mark
				outs.Append(livePair{k, ir.Value(v)})
				if !defines[k] && inMark[k] != mark {
					inMark[k] = mark
					work = append(work, k)
				}
			}
		}
		for _, i := range vdefs {
			defines[i] = false
		}
	}
	live := ir.Make[blockLive](f.Cache, nb)
	vals := ir.Make[ir.Value](f.Cache, ins.Len()+outs.Len())
	bucketLive(live, ins, vals[:ins.Len()], pstart, true)
	bucketLive(live, outs, vals[ins.Len():], pstart, false)
	return live
}

// liveScratch is the lists livenessOf keeps from compile to compile.
type liveScratch struct {
	ins, outs chunked.List[livePair]
	work      []int32
}

// livePair is a value live into or out of block b.
type livePair struct {
	b int32
	v ir.Value
}

// bucketLive sets each block's in (or out) set from pairs, in their
// order, using vals as storage and start (len(live)+1) as scratch.
func bucketLive(live []blockLive, pairs *chunked.List[livePair], vals []ir.Value, start []int32, in bool) {
	clear(start)
	for p := range pairs.All {
		start[p.b+1]++
	}
	for k := range len(live) {
		start[k+1] += start[k]
	}
	for k := range live {
		lo, hi := start[k], start[k+1]
		if lo == hi {
			continue
		}
		if in {
			live[k].in = vals[lo:lo:hi]
		} else {
			live[k].out = vals[lo:lo:hi]
		}
	}
	for p := range pairs.All {
		if in {
			live[p.b].in = append(live[p.b].in, p.v)
		} else {
			live[p.b].out = append(live[p.b].out, p.v)
		}
	}
}

// resumableFinallys returns the clauses whose finally holds a try: a
// catch of that try may resume inside the finally's funclet, with the
// callee-saved registers the frames it unwound left.
func resumableFinallys(f *ir.Func) map[int]bool {
	res := map[int]bool{}
	for _, r := range f.Regions {
		if r.Kind != ir.RegionTry {
			continue
		}
		for p := r.Parent; p != nil; p = p.Parent {
			if p.Kind == ir.RegionFinally {
				res[p.Clause] = true
			}
		}
	}
	return res
}
