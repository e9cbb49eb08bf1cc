package amd64

import (
	"fmt"
	"slices"
	"sort"
	"strings"

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
	// after maps safepoint instructions (hasSafepoint) to the tracked
	// values live across them (absent: none); poll maps blocks whose
	// terminator polls (a back edge) to those live at the poll.
	after map[*ir.Instr][]ir.Value
	poll  map[*ir.Block][]ir.Value
}

// hasSafepoint reports whether the code of in may make calls or exits,
// which are safepoints (the code of others makes none, polls apart):
// calls, allocations, type tests, throws, calls of finally funclets,
// and the float remainder and float-to-uint64 conversion helpers.
func hasSafepoint(in *ir.Instr) bool {
	switch in.Op {
	case ir.OpCall, ir.OpCallVirt, ir.OpAlloc, ir.OpNewArr, ir.OpBox, ir.OpIsInst, ir.OpTypeIs, ir.OpCanStore,
		ir.OpThrow, ir.OpRethrow, ir.OpThrowHelper, ir.OpCallFinally:
		return true
	case ir.OpRem:
		return in.Kind.IsFloat()
	case ir.OpConv:
		return in.Aux.Type.Kind == il.KU8 || in.Aux.Type.Kind == il.KU
	}
	return false
}

// polls reports whether the terminator of block b is preceded by a poll
// (a branch to a block at or before it in layout order).
func polls(b *ir.Block) bool {
	for _, s := range b.Succs {
		if s.ID <= b.ID {
			return true
		}
	}
	return false
}

// planGC computes the GC plan of f, laid out as lay, with the plan p,
// the main body's liveness mainLive and the homes.
func planGC(f *ir.Func, lay *funclet.Layout, p *plan, mainLive []blockLive, homes []Reg, transient map[ir.Value]bool) *gcPlan {
	gc := &gcPlan{}
	zeroed := map[int]bool{}
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
	first := make([]int32, nv)
	for v := range first {
		first[v] = -1
	}
	multi := ir.NewValueSet(nv)
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
	funcOf := make([]int, len(f.Blocks)) // funclet of each block
	pos := make([]int, len(f.Blocks))    // position in its funclet
	for k, fn := range lay.Funcs {
		for i, b := range fn.Blocks {
			funcOf[b.ID], pos[b.ID] = k, i
			for _, in := range b.Code() {
				mention(in.Dst, int32(k))
				mention(in.Dst2, int32(k))
				for _, a := range in.Args {
					mention(a, int32(k))
				}
			}
		}
	}
	shared := ir.NewValueSet(nv)
	share := func(vs valueList, onlyMulti bool) {
		for _, v := range vs {
			if f.Kinds[v].IsGC() && (!onlyMulti || multi.Has(v)) {
				shared.Add(v)
			}
		}
	}
	live := make([][]blockLive, len(lay.Funcs))
	live[0] = mainLive
	for k := 1; k < len(lay.Funcs); k++ {
		live[k] = liveness(f, lay.Funcs[k].Blocks)
		share(live[k][0].in, false) // read before the funclet defines it
	}
	for _, b := range f.Blocks {
		switch b.Term.Op {
		case ir.OpCatchRet: // read where the catch resumes
			c := b.Succs[0]
			share(live[funcOf[c.ID]][pos[c.ID]].in, false)
		case ir.OpCallFinally: // maybe left by the finally
			share(live[funcOf[b.ID]][pos[b.ID]].out, true)
		}
	}
	gc.shared = shared
	for v := range nv {
		if !shared.Has(ir.Value(v)) || transient[ir.Value(v)] {
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

	// The tracked values live across each safepoint: a backward walk of
	// every block from its live-out set in its funclet's liveness.
	gc.after = map[*ir.Instr][]ir.Value{}
	gc.poll = map[*ir.Block][]ir.Value{}
	set := newSparseSet(nv)
	tracked := func(v ir.Value) bool { return v != ir.NoValue && f.Kinds[v].IsGC() && !shared.Has(v) }
	for k, fn := range lay.Funcs {
		for i, b := range fn.Blocks {
			set.clear()
			for _, v := range live[k][i].out {
				if tracked(v) {
					set.add(v)
				}
			}
			t := b.Term
			if hasSafepoint(t) && set.len() > 0 {
				gc.after[t] = set.sorted()
			}
			for _, a := range t.Args {
				if tracked(a) {
					set.add(a)
				}
			}
			if polls(b) {
				if c := p.blocks[b.ID].fused; c != nil {
					for _, a := range c.Args {
						if tracked(a) {
							set.add(a)
						}
					}
				}
				if set.len() > 0 {
					gc.poll[b] = set.sorted()
				}
			}
			for j := len(b.Instrs) - 1; j >= 0; j-- {
				in := b.Instrs[j]
				set.remove(in.Dst)
				set.remove(in.Dst2)
				if hasSafepoint(in) && set.len() > 0 {
					gc.after[in] = set.sorted()
				}
				for _, a := range in.Args {
					if tracked(a) {
						set.add(a)
					}
				}
			}
		}
	}
	return gc
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

// sorted returns the members in increasing order, in a new slice.
func (s *sparseSet) sorted() []ir.Value {
	vs := slices.Clone(s.dense)
	slices.Sort(vs)
	return vs
}

// gcRegs maps the registers that may hold GC values at a safepoint to
// their abi numbers.
var gcRegs = map[Reg]int{
	RAX: abi.RegRAX, RBX: abi.RegRBX, RCX: abi.RegRCX, RDX: abi.RegRDX, RSI: abi.RegRSI, RDI: abi.RegRDI,
	R8: abi.RegR8, R9: abi.RegR9, R10: abi.RegR10, R11: abi.RegR11, R12: abi.RegR12, R13: abi.RegR13, R14: abi.RegR14,
}

// gcReg returns the abi number of register r.
func gcReg(r Reg) int {
	n, ok := gcRegs[r]
	if !ok {
		panic(fmt.Sprintf("%s cannot hold a GC value at a safepoint", r))
	}
	return n
}

// safepoint is the GC information of one call or exit, by the mark just
// after it.
type safepoint struct {
	mark     MarkID
	ilOffset int
	funclet  int
	flags    abi.SafepointFlags
	live     []abi.GCLoc
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

// gcLocs returns the locations of values vs.
func (g *gen) gcLocs(vs []ir.Value) []abi.GCLoc {
	if len(vs) == 0 {
		return nil
	}
	ls := make([]abi.GCLoc, len(vs))
	for i, v := range vs {
		ls[i] = g.gcLoc(v)
	}
	return ls
}

// siteLive returns the GC locations live across the call or exit the
// current instruction makes.
func (g *gen) siteLive() []abi.GCLoc {
	in := g.curInstr
	if in == nil || !hasSafepoint(in) {
		panic(fmt.Sprintf("a call or exit in the code of %v, which has no safepoint", in))
	}
	return g.gcLocs(g.gc.after[in])
}

// pollLive returns the GC locations live at the poll before block b's
// terminator: the tracked values live there, and RAX when it holds a GC
// value the terminator reads.
func (g *gen) pollLive(b *ir.Block) []abi.GCLoc {
	vs := g.gc.poll[b]
	var ls []abi.GCLoc
	for _, v := range vs {
		if v == g.avail {
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
	locs, _ := classify(f.Kinds[:f.NumArgs])
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
			g.zeroFrame(off, g.f.SlotWords(s))
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
// registers' slots.
func (g *gen) gcInfo(blob *Blob) abi.GCInfo {
	var gi abi.GCInfo
	pool := map[string]uint32{}
	var key strings.Builder
	for _, s := range g.safepoints {
		sp := abi.Safepoint{Offset: int32(blob.Marks[s.mark]), ILOffset: int32(s.ilOffset), Funclet: int32(s.funclet),
			Flags: s.flags, NLive: uint32(len(s.live))}
		if len(s.live) > 0 {
			key.Reset()
			for _, l := range s.live {
				fmt.Fprintf(&key, "%d,", l)
			}
			start, ok := pool[key.String()]
			if !ok {
				start = uint32(len(gi.Locs))
				gi.Locs = append(gi.Locs, s.live...)
				pool[key.String()] = start
			}
			sp.Live = start
		}
		gi.Safepoints = append(gi.Safepoints, sp)
	}
	sort.SliceStable(gi.Safepoints, func(i, j int) bool { return gi.Safepoints[i].Offset < gi.Safepoints[j].Offset })
	for _, v := range g.gc.untracked {
		gi.Untracked = append(gi.Untracked, g.gcLoc(v))
	}
	for i := range g.f.Slots {
		for _, w := range g.f.SlotRefWords(i) {
			gi.Untracked = append(gi.Untracked, abi.FrameLoc(g.frame.blocks[i]+8*w, false))
		}
	}
	slices.Sort(gi.Untracked)
	for _, sv := range g.frame.saves {
		gi.Saves = append(gi.Saves, abi.CalleeSave{Reg: gcReg(sv.Reg), Offset: sv.Offset})
	}
	return gi
}
