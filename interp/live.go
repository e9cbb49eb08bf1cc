package interp

import "miniil/il"

// Liveness: which arguments, locals and evaluation-stack entries of a
// frame a live count (heap.go) marks. The JIT's collector marks what its
// GC information reports (docs/ARCHITECTURE.md, "GC information"): a
// reference or managed pointer only while it is live, read later on some
// path, and it is the reference here, as CoreCLR's optimized code is.
// The interpreter computes the same at the IL level, once per method (on
// a method's first live count), and follows the JIT's rules:
//
//   - A variable is untracked, and so marked wherever its frame stands,
//     when the JIT keeps it in a frame block (a value of a value type,
//     or a variable whose address the method takes), and when its life
//     crosses from one funclet into another (a handler, a filter, or the
//     main body around them): live into a funclet's entry, live where a
//     catch or filter handler resumes, or mentioned by two funclets and
//     live after a leave that runs a finally. Primitive variables are
//     marked too, holding no reference.
//   - Any other reference or managed pointer variable is tracked: marked
//     only where it is live. The dataflow follows the IL's branches and
//     each leave to its target, not the exceptional edges into handlers
//     (no more than the JIT's per-funclet liveness does): what a handler
//     reads of its method's variables, or what the code after a catch
//     reads, is untracked by the rule above.
//   - An evaluation-stack entry is live when an instruction consumes it
//     later (pop does not), or when it crosses into the next basic block
//     (the JIT copies it into a spill temporary there). ldloc, ldarg and
//     dup make no copy: the JIT pushes the variable's own register, read
//     by whatever consumes the entry, so the variable is live before them
//     only if it or the entry is live after. A value of a value type on
//     the stack is always marked (the JIT keeps it in a frame block).
//
// A frame stands at one of four points (frame.at): in a call (what is
// live after the call), allocating within an instruction (live after it,
// and its operands, which the rest of the instruction reads: a newobj's
// constructor arguments), throwing an implicit exception (the JIT's
// throw blocks have nothing live: untracked variables only), or before
// an instruction (a type initializer's check). The frames from the
// thrower to the parent of a filter that runs stand where the exception
// left them, and count as such: any of them continues there if the
// dispatch is abandoned (the JIT's walk reports them from the throw site).

// frameAt says where a frame stands for a live count.
type frameAt uint8

const (
	atCall   frameAt = iota // suspended in a call (or a base library method) at pc
	atAlloc                 // allocating within the instruction at pc, its operands on the stack
	atThrow                 // allocating the implicit exception of the instruction at pc
	atBefore                // about to run the instruction at pc (a type initializer first)
)

// Kinds of liveness steps.
const (
	lsGeneric uint8 = iota // uses what it pops, defines what it pushes
	lsLoad                 // ldloc, ldarg: pushes variable v itself
	lsStore                // stloc, starg: pops into variable v
	lsDup                  // pushes the top entry again
	lsPop                  // drops the top entry unread
	lsNone                 // unreachable
)

// lstep is an instruction as liveness sees it.
type lstep struct {
	kind  uint8
	spill bool // its block ends after it: the stack entries left cross into the next
	// lsStore: an entry under the value stored is the variable's own
	// (pushed by a load of it in the block): the JIT copies it aside
	// first, which reads the variable.
	protect bool
	v       int32 // lsLoad, lsStore: the variable
	in      int32 // stack depth before
	pops    int32 // entries popped
	out     int32 // stack depth after
}

// liveInfo is a method's liveness. Sets are bit sets of nw words: bit v
// for variable v (arguments, then locals), bit nvars+d for the stack
// entry at depth d.
type liveInfo struct {
	nvars  int
	nw     int
	always []bool    // per variable: untracked (marked wherever the frame stands)
	steps  []lstep   // per instruction
	succs  [][]int32 // per instruction ending a block: its successors
	block  []int32   // per instruction: its block
	ends   []int32   // per block: its last instruction
	out    []uint64  // per block: its live-out set (nw words)
}

// liveness returns the liveness of dm, computing it on first use.
func (s *state) liveness(dm *dmethod) *liveInfo {
	if dm.live == nil {
		dm.live = s.computeLiveness(dm)
	}
	return dm.live
}

func (s *state) computeLiveness(dm *dmethod) *liveInfo {
	m := dm.il
	n := len(m.Code)
	d := &decoder{s: s, dm: dm, m: m}
	l := &liveInfo{nvars: dm.nvars, always: make([]bool, dm.nvars), steps: make([]lstep, n)}
	if err := d.infer(); err != nil {
		// Decoding succeeded on the same method, so this cannot happen:
		// one block where everything is live.
		l.nw = (dm.nvars + dm.maxStack + 63) / 64
		l.block = make([]int32, n)
		l.ends = []int32{int32(n - 1)}
		l.succs = make([][]int32, n)
		l.out = make([]uint64, l.nw)
		for w := range l.out {
			l.out[w] = ^uint64(0)
		}
		return l
	}
	l.nw = (dm.nvars + d.max + 63) / 64
	nargs := dm.nargs
	exposed := make([]bool, dm.nvars)
	for v := range dm.nvars {
		var t *il.Type
		if v < nargs {
			t = m.ArgType(v)
		} else {
			t = m.Locals[v-nargs].Type
		}
		if st := kindStyp(t); st != sO && st != sP {
			l.always[v] = true // a value (a frame block), or no reference
		}
	}

	// The funclets: the main body (0) and each handler and filter
	// (1+2k, 2+2k for clause k), innermost first.
	ranges := nest(n, 2*len(dm.eh), func(k int) (int, int) {
		c := &dm.eh[k/2]
		if k%2 == 0 {
			return c.hStart, c.hEnd
		}
		if c.kind == il.EHFilter {
			return c.fStart, c.hStart
		}
		return 0, 0
	})
	funclet := func(pc int) int32 { return ranges.first[pc] + 1 }

	leader := leaders(m, dm.eh)

	// The steps, and who mentions each variable.
	first := make([]int32, dm.nvars) // the first funclet mentioning it (-1: none)
	multi := make([]bool, dm.nvars)
	for v := range first {
		first[v] = -1
		if v < nargs {
			first[v] = 0
		}
	}
	mention := func(v int, f int32) {
		if first[v] < 0 {
			first[v] = f
		} else if first[v] != f {
			multi[v] = true
		}
	}
	l.succs = make([][]int32, n)
	for i, in := range m.Code {
		st := &l.steps[i]
		if d.states[i] == nil {
			st.kind = lsNone
			continue
		}
		depth := len(d.states[i])
		after, _ := d.step(i, false)
		st.in, st.pops, st.out = int32(depth), int32(d.pops), int32(len(after))
		op := in.Op.Canon()
		if sb, ok := shortBranch[op]; ok {
			op = sb
		}
		switch op {
		case il.Ldarg0, il.Ldarg1, il.Ldarg2, il.Ldarg3, il.LdargS, il.Ldarg:
			st.kind, st.v = lsLoad, int32(varIndex(op, in))
		case il.Ldloc0, il.Ldloc1, il.Ldloc2, il.Ldloc3, il.LdlocS, il.Ldloc:
			st.kind, st.v = lsLoad, int32(nargs+varIndex(op, in))
		case il.StargS, il.Starg:
			st.kind, st.v = lsStore, int32(in.Int)
		case il.Stloc0, il.Stloc1, il.Stloc2, il.Stloc3, il.StlocS, il.Stloc:
			st.kind, st.v = lsStore, int32(nargs+varIndex(op, in))
		case il.LdargaS, il.Ldarga:
			exposed[in.Int] = true
			mention(int(in.Int), funclet(i))
		case il.LdlocaS, il.Ldloca:
			exposed[nargs+int(in.Int)] = true
			mention(nargs+int(in.Int), funclet(i))
		case il.Dup:
			st.kind = lsDup
		case il.Pop:
			st.kind = lsPop
		}
		if st.kind == lsLoad || st.kind == lsStore {
			mention(int(st.v), funclet(i))
		}
		// Successors, as the decoder's.
		var succ []int32
		switch op {
		case il.Br, il.Leave:
			succ = []int32{int32(in.Target())}
		case il.Ret, il.Throw, il.Rethrow, il.Endfinally, il.Endfilter:
		default:
			for _, t := range in.Targets() {
				succ = append(succ, int32(t))
			}
			if i+1 < n {
				succ = append(succ, int32(i+1))
			}
		}
		if leader[i+1] || in.Op.IsBranch() || endsBlock(in.Op) {
			st.spill = true
			l.succs[i] = succ
		}
	}

	// Stores under a load of the same variable, which the JIT copies
	// aside: a forward walk of each block, with the variables the stack
	// entries are (-1: none).
	var sym []int32
	for i := range m.Code {
		st := &l.steps[i]
		if leader[i] {
			sym = sym[:0]
		}
		if st.kind == lsNone {
			continue
		}
		for len(sym) < int(st.in) {
			sym = append(sym, -1)
		}
		sym = sym[:st.in]
		in := m.Code[i]
		switch op := in.Op.Canon(); {
		case st.kind == lsLoad:
			sym = append(sym, st.v)
		case st.kind == lsDup:
			sym = append(sym, sym[len(sym)-1])
		case st.kind == lsStore:
			sym = sym[:len(sym)-1]
			for d, v := range sym {
				if v == st.v {
					st.protect = true
					sym[d] = -1
				}
			}
		case op == il.Castclass, (op == il.Box || op == il.UnboxAny) && in.Type().IsRef():
			// The JIT pushes the operand itself again.
		default:
			sym = sym[:st.in-st.pops]
			for len(sym) < int(st.out) {
				sym = append(sym, -1)
			}
		}
	}

	// Blocks.
	l.block = make([]int32, n)
	nb := int32(-1)
	for i := range n {
		if leader[i] {
			nb++
			l.ends = append(l.ends, int32(i))
		}
		l.block[i] = nb
		l.ends[nb] = int32(i)
	}
	nblocks := len(l.ends)
	preds := make([][]int32, nblocks)
	for b, e := range l.ends {
		for _, t := range l.succs[e] {
			preds[l.block[t]] = append(preds[l.block[t]], int32(b))
		}
	}

	// The dataflow: live-out sets, to the fixed point.
	l.out = make([]uint64, nblocks*l.nw)
	starts := make([]int32, nblocks)
	for b := range nblocks {
		starts[b] = 0
		if b > 0 {
			starts[b] = l.ends[b-1] + 1
		}
	}
	in := make([]uint64, nblocks*l.nw)
	queued := make([]bool, nblocks)
	work := make([]int32, 0, nblocks)
	for b := nblocks - 1; b >= 0; b-- {
		work = append(work, int32(b))
		queued[b] = true
	}
	set := make([]uint64, l.nw)
	for len(work) > 0 {
		b := work[0]
		work = work[1:]
		queued[b] = false
		l.blockOut(int(b), in, set)
		copy(l.out[int(b)*l.nw:], set)
		for j := l.ends[b]; j >= starts[b]; j-- {
			l.transfer(int(j), set)
		}
		old := in[int(b)*l.nw : int(b+1)*l.nw]
		changed := false
		for w := range set {
			if set[w] != old[w] {
				changed = true
				old[w] = set[w]
			}
		}
		if changed {
			for _, p := range preds[b] {
				if !queued[p] {
					queued[p] = true
					work = append(work, p)
				}
			}
		}
	}

	// Untracked variables: exposed ones, and those whose life crosses
	// funclets.
	live := func(i int, v int) bool {
		b := l.block[i]
		return starts[b] == int32(i) && in[int(b)*l.nw+v/64]&(1<<(v%64)) != 0
	}
	share := func(i int, onlyMulti bool) {
		for v := range dm.nvars {
			if live(i, v) && (!onlyMulti || multi[v]) {
				l.always[v] = true
			}
		}
	}
	for v := range dm.nvars {
		if exposed[v] {
			l.always[v] = true
		}
	}
	for _, c := range dm.eh {
		share(c.hStart, false) // read before the funclet defines it
		if c.kind == il.EHFilter {
			share(c.fStart, false)
		}
	}
	for _, li := range dm.leaves {
		// The innermost handler around the leave: a catch it exits (the
		// outer ones hold the target if that one does).
		catchret := false
		if k := ranges.first[li.from]; k >= 0 && k%2 == 0 {
			c := &dm.eh[k/2]
			catchret = (c.kind == il.EHCatch || c.kind == il.EHFilter) && !c.inHandler(li.target)
		}
		switch {
		case catchret:
			share(li.target, false) // read where the catch resumes
		case len(li.finallys) > 0:
			share(li.target, true) // maybe left by a finally
		}
	}
	return l
}

// varIndex is the variable index of a ldarg, ldloc, starg or stloc.
func varIndex(op il.Op, in *il.Instr) int {
	switch op {
	case il.Ldarg0, il.Ldloc0, il.Stloc0:
		return 0
	case il.Ldarg1, il.Ldloc1, il.Stloc1:
		return 1
	case il.Ldarg2, il.Ldloc2, il.Stloc2:
		return 2
	case il.Ldarg3, il.Ldloc3, il.Stloc3:
		return 3
	}
	return int(in.Int)
}

// blockOut sets set to the live-out set of block b: what its successors
// read, and the stack entries its last instruction leaves (spilled).
func (l *liveInfo) blockOut(b int, in []uint64, set []uint64) {
	clear(set)
	e := l.ends[b]
	for _, t := range l.succs[e] {
		s := in[int(l.block[t])*l.nw:]
		for w := range set {
			set[w] |= s[w]
		}
	}
	if st := &l.steps[e]; st.spill && st.kind != lsNone {
		l.setRange(set, 0, int(st.out), true)
	}
}

// setRange adds (or removes) the stack entries at depths [from, to).
func (l *liveInfo) setRange(set []uint64, from, to int, add bool) {
	for d := from; d < to; d++ {
		b := l.nvars + d
		if add {
			set[b/64] |= 1 << (b % 64)
		} else {
			set[b/64] &^= 1 << (b % 64)
		}
	}
}

func has(set []uint64, b int) bool { return set[b/64]&(1<<(b%64)) != 0 }

// transfer turns set, what is live after instruction i, into what is live
// before it.
func (l *liveInfo) transfer(i int, set []uint64) {
	st := &l.steps[i]
	top := l.nvars + int(st.in) // the bit of the entry pushed at depth in
	switch st.kind {
	case lsNone:
		clear(set)
	case lsLoad:
		if has(set, top) {
			set[st.v/64] |= 1 << (st.v % 64)
		}
		set[top/64] &^= 1 << (top % 64)
	case lsStore:
		if !st.protect {
			set[st.v/64] &^= 1 << (st.v % 64)
		}
		set[(top-1)/64] |= 1 << ((top - 1) % 64)
	case lsDup:
		if has(set, top) {
			set[(top-1)/64] |= 1 << ((top - 1) % 64)
		}
		set[top/64] &^= 1 << (top % 64)
	case lsPop:
		set[(top-1)/64] &^= 1 << ((top - 1) % 64)
	default:
		base := int(st.in - st.pops)
		l.setRange(set, base, int(st.out), false)
		l.setRange(set, base, int(st.in), true)
	}
}

// after sets set to what is live after instruction pc.
func (l *liveInfo) after(pc int, set []uint64) {
	b := int(l.block[pc])
	copy(set, l.out[b*l.nw:(b+1)*l.nw])
	for j := int(l.ends[b]); j > pc; j-- {
		l.transfer(j, set)
	}
}

// endsBlock reports whether op ends a basic block without a branch.
func endsBlock(op il.Op) bool {
	switch op.Canon() {
	case il.Ret, il.Throw, il.Rethrow, il.Endfinally, il.Endfilter:
		return true
	}
	return false
}
