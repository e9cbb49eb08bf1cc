package amd64

import (
	"cmp"
	"fmt"
	"slices"

	"miniil/abi"
	"miniil/funclet"
	"miniil/il"
	"miniil/ir"
)

// GC information (abi.GCInfo): at every safepoint, which locations hold
// live references (ir.Ref values) and interior pointers (ir.Ptr values).
//
// A value of a GC kind is tracked by the liveness of the funclets that
// mention it (the main body is funclet 0; arguments are the main body's,
// whose prolog stores them): a safepoint reports the values live across
// it (live after the instruction, its results apart) in its funclet's
// liveness, in their register homes (main body only) or frame slots.
// That suffices while a value lives within one funclet's activation. A
// value whose life crosses from one funclet into another is shared
// instead: one live into a funclet's entry (the funclet reads what its
// parent or another funclet left), live where a catch resumes (the main
// body or a funclet reads what the catch or a filter left), or
// mentioned by two funclets and live across a call to a finally funclet
// (the caller reads what the finally left). Shared values are
// untracked, as the words of frame blocks holding references are: live
// at every safepoint but the prologs', reported once per method
// invocation by whichever of its frames a stack walk meets first (see
// abi.GCInfo). They never have register homes (regalloc keeps every
// value a funclet mentions, or live into a catch's continuation, in the
// frame), and the prolog zeroes what it does not initialize anyway: the
// slots of shared temporaries (arguments are stored and locals zeroed
// already) and the reference words of frame blocks that are not zeroed
// locals (temporaries, exposed arguments).
//
// Besides its frame's values, a safepoint may list registers that hold
// GC values for the code after it: RAX at a poll, when the instruction
// before the poll left its result there for the terminator; the
// argument registers at the main body's prolog (and [RBP+16+8k] for the
// arguments passed on the stack), and RSI at a catch or filter funclet's
// prolog (the exception object).

// gcPlan is what Allocate decides about the GC information, for Emit.
type gcPlan struct {
	// shared marks the shared values (see above).
	shared ir.ValueSet
	// untracked are the shared values of a GC kind with a location, in
	// order.
	untracked []ir.Value
	// zero are the shared temporaries the prolog zeroes; zeroBlocks the
	// frame blocks whose reference words it zeroes (ir.Func.ZeroSlots are
	// zeroed whole anyway).
	zero       []ir.Value
	zeroBlocks []int
	// out is the live-out set of each block (by ID) in its funclet's
	// liveness (nil for the blocks of funclets without GC values; nil
	// altogether for a function without any).
	out []valueList
	// What blockSafepoints works with: the function, its plan, a set,
	// and the pool its lists are kept in.
	f    *ir.Func
	plan *plan
	set  *sparseSet
	pool []ir.Value
}

// vlist is a list of values kept in gcPlan.pool.
type vlist struct{ start, n int32 }

// keep keeps the members of s in gc.pool, in increasing order.
func (gc *gcPlan) keep(s *sparseSet) vlist {
	start := len(gc.pool)
	gc.pool = append(gc.pool, s.dense...)
	slices.Sort(gc.pool[start:])
	return vlist{int32(start), int32(len(s.dense))}
}

// list returns the values of l.
func (gc *gcPlan) list(l vlist) []ir.Value { return gc.pool[l.start : l.start+l.n : l.start+l.n] }

// hasSafepoint reports whether the code of in may make calls or exits,
// which are safepoints (the code of others makes none, polls apart):
// calls, allocations, type tests, throws, calls of finally funclets,
// the float remainder and float-to-uint64 conversion helpers, and the
// out-of-line call of an inlined call's depth check.
func hasSafepoint(in *ir.Instr) bool {
	switch in.Op {
	case ir.OpCall, ir.OpCallVirt, ir.OpAlloc, ir.OpNewArr, ir.OpBox, ir.OpCanStore,
		ir.OpThrow, ir.OpRethrow, ir.OpThrowHelper, ir.OpCallFinally, ir.OpDepthCheck:
		return true
	case ir.OpIsInst, ir.OpTypeIs:
		return typeTestExits(in)
	case ir.OpRem:
		return in.Kind.IsFloat()
	case ir.OpConv:
		return in.Aux.Type.Kind == il.KU8 || in.Aux.Type.Kind == il.KU
	}
	return false
}

// pollBlocks reports, by block ID, whether a block's terminator is
// preceded by a poll: it branches back, to a block at or before it in
// layout order, and some path from that block back to it makes no call
// of a compiled method. A loop that calls one on every iteration needs
// no poll, as RyuJIT's loops with calls need no GC poll: the callee's
// prolog polls through its stack check (a poll request raises the
// limit). The search gives up, keeping the poll, past maxPollSearch
// blocks, so that it stays linear in the method's size. The result is
// f.Cache scratch (the plan's, for this compile).
func pollBlocks(f *ir.Func) []bool {
	polls := ir.Make[bool](f.Cache, len(f.Blocks))
	var hasCall []bool // by block ID, computed at the first back edge
	calls := func(b *ir.Block) bool {
		if hasCall == nil {
			hasCall = ir.Make[bool](f.Cache, len(f.Blocks))
			for _, x := range f.Blocks {
				hasCall[x.ID] = slices.ContainsFunc(x.Instrs, callsCompiled)
			}
		}
		return hasCall[b.ID]
	}
	var seen []int32 // by block ID: the latch whose search last saw it, plus one
	var work []*ir.Block
	for _, b := range f.Blocks {
		for _, h := range b.Succs {
			if h.ID > b.ID || polls[b.ID] {
				continue
			}
			if calls(b) || calls(h) {
				continue // every path from h back to b passes the call
			}
			if seen == nil {
				seen = ir.Make[int32](f.Cache, len(f.Blocks))
			}
			// A call-free path from h to b? Blocks with a call end paths.
			mark := int32(b.ID + 1)
			work = ir.Append(f.Cache, work[:0], h)
			seen[h.ID] = mark
			visited := 0
			for len(work) > 0 && !polls[b.ID] {
				x := work[len(work)-1]
				work = work[:len(work)-1]
				if visited++; visited > maxPollSearch {
					polls[b.ID] = true
					break
				}
				for _, s := range x.Succs {
					switch {
					case s == b:
						polls[b.ID] = true
					case seen[s.ID] != mark && !calls(s):
						seen[s.ID] = mark
						work = ir.Append(f.Cache, work, s)
					}
				}
			}
		}
	}
	return polls
}

// maxPollSearch bounds the blocks pollBlocks visits per back edge.
const maxPollSearch = 64

// callsCompiled reports whether in surely calls a compiled method, whose
// prolog checks the stack limit: a base library method (or a virtual
// one, which an override in a base library class may implement) may not.
func callsCompiled(in *ir.Instr) bool {
	return (in.Op == ir.OpCall || in.Op == ir.OpCallVirt) && in.Aux.Method() != nil && !in.Aux.Method().Builtin
}

// planGC computes the GC plan of f, laid out as lay, with the plan p,
// the main body's liveness mainLive and the homes.
func planGC(f *ir.Func, lay *funclet.Layout, p *plan, mainLive []blockLive, homes []Reg, transient ir.ValueSet) *gcPlan {
	gc := ir.Keep[gcPlan](f.Cache) // one a compile: kept in the cache
	*gc = gcPlan{f: f, plan: p}
	zeroed := ir.Make[bool](f.Cache, len(f.Slots))
	for _, s := range f.ZeroSlots {
		zeroed[s] = true
	}
	for i := range f.Slots {
		if !zeroed[i] && len(f.SlotRefWords(i)) > 0 {
			gc.zeroBlocks = append(gc.zeroBlocks, i)
		}
	}
	if !slices.ContainsFunc(f.Kinds, ir.Kind.IsGC) {
		return gc
	}
	nv := len(f.Kinds)
	// first is the first funclet that mentions each GC value (-1: none
	// yet), multi marks those mentioned by more than one.
	first := ir.Make[int32](f.Cache, nv)
	for v := range first {
		first[v] = -1
	}
	multi := ir.MakeValueSet(f.Cache, nv)
	mention := func(v ir.Value, k int32) {
		if v == ir.NoValue || !f.Kinds[v].IsGC() {
			return
		}
		if first[v] < 0 {
			first[v] = k
		} else if first[v] != k {
			multi.Add(v)
		}
	}
	for v := 0; v < f.NumArgs; v++ {
		mention(ir.Value(v), 0)
	}
	funcOf := make([]int32, len(f.Blocks)) // funclet of each block
	pos := make([]int32, len(f.Blocks))    // position in its funclet
	mentions := make([]bool, len(lay.Funcs))
	for k, fn := range lay.Funcs {
		for i, b := range fn.Blocks {
			funcOf[b.ID], pos[b.ID] = int32(k), int32(i)
			for _, in := range b.Instrs {
				mention(in.Dst, int32(k))
				mention(in.Dst2, int32(k))
				for _, a := range in.Args {
					mentions[k] = mentions[k] || f.Kinds[a].IsGC()
					mention(a, int32(k))
				}
				mentions[k] = mentions[k] || in.Dst != ir.NoValue && f.Kinds[in.Dst].IsGC()
			}
			for _, a := range b.Term.Args {
				mentions[k] = mentions[k] || f.Kinds[a].IsGC()
				mention(a, int32(k))
			}
		}
	}
	shared := ir.MakeValueSet(f.Cache, nv)
	share := func(vs valueList, onlyMulti bool) {
		for _, v := range vs {
			if f.Kinds[v].IsGC() && (!onlyMulti || multi.Has(v)) {
				shared.Add(v)
			}
		}
	}
	// The funclets' liveness, computed over all of them at once (the main
	// body's is regalloc's): a catch's edge to where it resumes in an
	// enclosing funclet makes what is live there live in the catch too,
	// which changes nothing, as those values are shared anyway. Without
	// GC values in funclets there is none to compute.
	live := make([][]blockLive, len(lay.Funcs))
	live[0] = mainLive
	if slices.Contains(mentions[1:], true) {
		var blocks []*ir.Block
		for _, fn := range lay.Funcs[1:] {
			blocks = append(blocks, fn.Blocks...)
		}
		all := livenessOf(f, blocks, ir.Kind.IsGC)
		for k, fn := range lay.Funcs[1:] {
			live[k+1], all = all[:len(fn.Blocks)], all[len(fn.Blocks):]
			share(live[k+1][0].in, false) // read before the funclet defines it
		}
	}
	for _, b := range f.Blocks {
		switch b.Term.Op {
		case ir.OpCatchRet: // read where the catch resumes
			if c := b.Succs[0]; live[funcOf[c.ID]] != nil {
				share(live[funcOf[c.ID]][pos[c.ID]].in, false)
			}
		case ir.OpCallFinally: // maybe left by the finally
			if live[funcOf[b.ID]] != nil {
				share(live[funcOf[b.ID]][pos[b.ID]].out, true)
			}
		}
	}
	for _, v := range f.Untracked {
		shared.Add(v) // shared before the passes that removed why (opt.MarkUntracked)
	}
	gc.shared = shared
	for v := range nv {
		if !shared.Has(ir.Value(v)) || transient.Has(ir.Value(v)) {
			continue
		}
		if homes[v] != NoReg {
			panic(fmt.Sprintf("%s is shared with a funclet but has a register home", ir.Value(v)))
		}
		gc.untracked = append(gc.untracked, ir.Value(v))
		if v >= f.NumArgs+f.NumLocals {
			gc.zero = append(gc.zero, ir.Value(v))
		}
	}

	gc.out = make([]valueList, len(f.Blocks))
	for k, fn := range lay.Funcs {
		if live[k] != nil {
			for i, b := range fn.Blocks {
				gc.out[b.ID] = live[k][i].out
			}
		}
	}
	gc.set = newSparseSet(nv)
	gc.f, gc.plan = f, p
	return gc
}

// blockSafepoints returns the tracked values live at the safepoints of
// block b: after[i] across the calls and exits of b.Instrs[i] (i =
// len(b.Instrs): of the terminator), poll at the poll before the
// terminator. A backward walk of the block from its live-out set in its
// funclet's liveness; after reuses buf. The lists are kept in gc.pool.
func (gc *gcPlan) blockSafepoints(b *ir.Block, buf []vlist) (after []vlist, poll vlist) {
	n := len(b.Instrs) + 1
	if cap(buf) < n {
		buf = ir.Make[vlist](gc.f.Cache, max(n, 2*cap(buf)))
	}
	after = buf[:n]
	clear(after)
	if gc.out == nil || gc.out[b.ID] == nil && !gc.anyLive(b) {
		return after, poll
	}
	f, set := gc.f, gc.set
	// A null read as an immediate has no location to report.
	tracked := func(v ir.Value) bool {
		return v != ir.NoValue && f.Kinds[v].IsGC() && !gc.shared.Has(v) && !gc.plan.slotless.Has(v)
	}
	set.clear()
	for _, v := range gc.out[b.ID] {
		if tracked(v) {
			set.add(v)
		}
	}
	t := b.Term
	if hasSafepoint(t) && set.len() > 0 {
		after[len(b.Instrs)] = gc.keep(set)
	}
	for _, a := range t.Args {
		if tracked(a) {
			set.add(a)
		}
	}
	if gc.plan.polls[b.ID] {
		if c := gc.plan.blocks[b.ID].fused; c != nil {
			for _, a := range c.Args {
				if tracked(a) {
					set.add(a)
				}
			}
		}
		if set.len() > 0 {
			poll = gc.keep(set)
		}
	}
	for j := len(b.Instrs) - 1; j >= 0; j-- {
		in := b.Instrs[j]
		set.remove(in.Dst)
		set.remove(in.Dst2)
		if hasSafepoint(in) && set.len() > 0 {
			after[j] = gc.keep(set)
		}
		for _, a := range in.Args {
			if tracked(a) {
				set.add(a)
			}
		}
	}
	return after, poll
}

// anyLive reports whether block b, with nothing live out of it, mentions
// a GC value (which may then be live inside it).
func (gc *gcPlan) anyLive(b *ir.Block) bool {
	for _, in := range b.Instrs {
		for _, a := range in.Args {
			if gc.f.Kinds[a].IsGC() {
				return true
			}
		}
	}
	for _, a := range b.Term.Args {
		if gc.f.Kinds[a].IsGC() {
			return true
		}
	}
	return false
}

// sparseSet is a set of values with constant-time add and remove and
// iteration in the size of the set (Briggs and Torczon).
type sparseSet struct {
	dense  []ir.Value
	sparse []int32 // position in dense + 1 (0: absent, or stale)
}

func newSparseSet(n int) *sparseSet { return &sparseSet{sparse: make([]int32, n)} }

func (s *sparseSet) has(v ir.Value) bool {
	i := s.sparse[v] - 1
	return i >= 0 && int(i) < len(s.dense) && s.dense[i] == v
}

func (s *sparseSet) add(v ir.Value) {
	if !s.has(v) {
		s.dense = append(s.dense, v)
		s.sparse[v] = int32(len(s.dense))
	}
}

func (s *sparseSet) remove(v ir.Value) {
	if v == ir.NoValue || !s.has(v) {
		return
	}
	i := s.sparse[v] - 1
	last := s.dense[len(s.dense)-1]
	s.dense[i] = last
	s.sparse[last] = i + 1
	s.dense = s.dense[:len(s.dense)-1]
	s.sparse[v] = 0
}

func (s *sparseSet) len() int { return len(s.dense) }

func (s *sparseSet) clear() { s.dense = s.dense[:0] }

// gcRegs maps the registers that may hold GC values at a safepoint to
// their abi numbers (-1: none may).
var gcRegs = [X0]int{
	RAX: abi.RegRAX, RBX: abi.RegRBX, RCX: abi.RegRCX, RDX: abi.RegRDX, RSI: abi.RegRSI, RDI: abi.RegRDI,
	R8: abi.RegR8, R9: abi.RegR9, R10: abi.RegR10, R11: abi.RegR11, R12: abi.RegR12, R13: abi.RegR13, R14: abi.RegR14,
	RSP: -1, RBP: -1, R15: -1,
}

// gcRegNumber returns the abi number of register r, if r may hold a GC
// value at a safepoint.
func gcRegNumber(r Reg) (int, bool) {
	if r < 0 || r >= X0 || gcRegs[r] < 0 {
		return 0, false
	}
	return gcRegs[r], true
}

// gcReg returns the abi number of register r.
func gcReg(r Reg) int {
	n, ok := gcRegNumber(r)
	if !ok {
		panic(fmt.Sprintf("%s cannot hold a GC value at a safepoint", r))
	}
	return n
}

// safepoint is the GC information of one call or exit, by the mark just
// after it: the live values (their locations are looked up when the
// information is packed), RAX if set, and fixed locations (a prolog's).
type safepoint struct {
	mark     MarkID
	ilOffset int32
	inline   int32 // the inlined call the safepoint's code belongs to (ir.Instr.Inline)
	funclet  int
	flags    abi.SafepointFlags
	vals     []ir.Value
	rax      ir.Value // a GC value RAX holds at a poll (NoValue: none)
	fixed    []abi.GCLoc
}

// gcLoc returns where value v is (its home or frame slot) as a GC
// location; v must have one.
func (g *gen) gcLoc(v ir.Value) abi.GCLoc {
	interior := g.f.Kinds[v] == ir.Ptr
	if r := g.homes[v]; r != NoReg {
		return abi.RegLoc(gcReg(r), interior)
	}
	if off := g.frame.slots[v]; off != 0 {
		return abi.FrameLoc(off, interior)
	}
	panic(fmt.Sprintf("%s is live at a safepoint but has no location", v))
}

// pollSafepoint returns the GC information of the poll before block b's
// terminator: the tracked values live there, and RAX when it holds a GC
// value the terminator reads.
func (g *gen) pollSafepoint(b *ir.Block) safepoint {
	sp := safepoint{ilOffset: b.Term.ILOffset, inline: b.Term.Inline, funclet: g.curFunclet, vals: g.gc.list(g.curPoll), rax: ir.NoValue}
	if slices.Contains(sp.vals, g.avail) {
		sp.rax = g.avail
	}
	return sp
}

// appendLocs appends the locations of safepoint s to ls.
func (g *gen) appendLocs(ls []abi.GCLoc, s *safepoint) []abi.GCLoc {
	ls = append(ls, s.fixed...)
	for _, v := range s.vals {
		if v == s.rax {
			ls = append(ls, abi.RegLoc(abi.RegRAX, g.f.Kinds[v] == ir.Ptr))
			if g.homes[v] == NoReg && g.frame.slots[v] == 0 {
				continue // only in RAX (an elided result)
			}
		}
		ls = append(ls, g.gcLoc(v))
	}
	return ls
}

// prologLive returns the GC locations of the main body's prolog: the
// arguments where the caller put them.
func (g *gen) prologLive() []abi.GCLoc {
	f := g.f
	locs, _ := classify(f.Cache, f.Kinds[:f.NumArgs])
	var ls []abi.GCLoc
	for i, l := range locs {
		k := f.Kinds[i]
		if !k.IsGC() {
			continue
		}
		if l.stack >= 0 {
			ls = append(ls, abi.FrameLoc(16+8*l.stack, k == ir.Ptr))
		} else {
			ls = append(ls, abi.RegLoc(gcReg(l.reg), k == ir.Ptr))
		}
	}
	return ls
}

// funcletPrologLive returns the GC locations of funclet k's prolog: the
// exception object of a catch or filter funclet.
func (g *gen) funcletPrologLive(k int) []abi.GCLoc {
	switch g.lay.Funcs[k].Kind {
	case abi.CatchFunclet, abi.FilterFunclet, abi.FilterHandlerFunclet:
		return []abi.GCLoc{abi.RegLoc(abi.RegRSI, false)}
	}
	return nil
}

// zeroUntracked zeroes, in the prolog, the untracked locations nothing
// else initializes: the slots of shared temporaries and the reference
// words of frame blocks that are not zeroed locals. It runs after
// zeroSlots and uses the same registers (RAX and R11).
func (g *gen) zeroUntracked() {
	a, gc := g.a, g.gc
	if len(gc.zero) == 0 && len(gc.zeroBlocks) == 0 {
		return
	}
	a.I(XORL, R(RAX), R(RAX))
	for _, s := range gc.zeroBlocks {
		off, refs := g.frame.blocks[s], g.f.SlotRefWords(s)
		if len(refs) > unrollWords {
			g.zeroWords(RBP, off, g.f.SlotWords(s), R11) // leaves RAX zero
			continue
		}
		for _, w := range refs {
			a.I(MOVQ, R(RAX), Mem(RBP, int32(off+8*w)))
		}
	}
	for _, v := range gc.zero {
		a.I(MOVQ, R(RAX), g.slot(v))
	}
}

// gcInfo packs the safepoints recorded during emission (sorted by their
// offsets in blob), the untracked locations and the callee-saved
// registers' slots. Its lists come from the compile's cache, but for
// Locs, which grows by append (see Code).
func (g *gen) gcInfo(blob *Blob) abi.GCInfo {
	var gi abi.GCInfo
	gi.Safepoints = ir.Make[abi.Safepoint](g.f.Cache, len(g.sites)+len(g.safepoints))[:0]
	last := -1 // where the last list starts in gi.Locs: an equal list is shared
	add := func(sp abi.Safepoint, s *safepoint) {
		if start := len(gi.Locs); len(s.vals) > 0 || len(s.fixed) > 0 {
			gi.Locs = g.appendLocs(gi.Locs, s)
			sp.Live, sp.NLive = uint32(start), uint32(len(gi.Locs)-start)
			if last >= 0 && slices.Equal(gi.Locs[last:start], gi.Locs[start:]) {
				gi.Locs = gi.Locs[:start]
				sp.Live = uint32(last)
			} else {
				last = start
			}
		}
		gi.Safepoints = append(gi.Safepoints, sp)
	}
	for i := range g.sites {
		s := &g.sites[i]
		add(abi.Safepoint{Offset: int32(blob.Marks[s.mark]), ILOffset: s.ilOffset, Inline: s.inline, Funclet: s.funclet, Flags: s.flags},
			&safepoint{vals: g.gc.list(s.vals), rax: ir.NoValue})
	}
	for i := range g.safepoints {
		s := &g.safepoints[i]
		add(abi.Safepoint{Offset: int32(blob.Marks[s.mark]), ILOffset: s.ilOffset, Inline: s.inline, Funclet: int32(s.funclet), Flags: s.flags}, s)
	}
	slices.SortStableFunc(gi.Safepoints, func(a, b abi.Safepoint) int { return cmp.Compare(a.Offset, b.Offset) })
	for _, v := range g.gc.untracked {
		gi.Untracked = ir.Append(g.f.Cache, gi.Untracked, g.gcLoc(v))
	}
	for i := range g.f.Slots {
		for _, w := range g.f.SlotRefWords(i) {
			gi.Untracked = ir.Append(g.f.Cache, gi.Untracked, abi.FrameLoc(g.frame.blocks[i]+8*w, false))
		}
	}
	slices.Sort(gi.Untracked)
	for _, sv := range g.frame.saves {
		gi.Saves = ir.Append(g.f.Cache, gi.Saves, abi.CalleeSave{Reg: gcReg(sv.Reg), Offset: sv.Offset})
	}
	return gi
}
