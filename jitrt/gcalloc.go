package jitrt

import (
	"miniil/abi"
	"miniil/il"
)

// Allocation in the collected heap (gcheap.go) and the safepoints where
// collections run.

// tryNursery bump-allocates n bytes in the nursery within its limit,
// making more of it resident first if needed.
func (h *gcHeap) tryNursery(n uintptr) (uintptr, bool) {
	p := uintptr(*h.top)
	if n >= h.large || p+n > h.nurLimit() {
		return 0, false
	}
	if p+n > h.populated {
		h.populate(p + n)
	}
	*h.top = uint64(p + n)
	h.setNurseryLimit()
	return p, true
}

// fits reports whether n more bytes stay under the heap limit without a
// collection.
func (h *gcHeap) fits(n uintptr) bool {
	return h.oldTop-h.oldLo+h.nurseryUsed()-8+n <= h.limit
}

// allocOld allocates n zeroed bytes in the old generation (there must be
// room) with their cards set: code may store young references into a
// new object without the write barrier (see the code generator).
func (h *gcHeap) allocOld(n uintptr) uintptr {
	p := h.bumpOld(n)
	clear(h.mem[p-h.base : p-h.base+n])
	h.markCards(p, n)
	h.notePeak()
	if h.oldTop-h.oldLo >= h.fullAt {
		h.pending = true
	}
	h.setNurseryLimit()
	return p
}

func (h *gcHeap) notePeak() {
	h.stats.PeakHeapBytes = max(h.stats.PeakHeapBytes, int64(h.used()))
}

// allocNoGC allocates n bytes (a multiple of 8) where no collection may
// run: in the nursery if it fits, else in the old generation, asking for
// a collection at the next safepoint. Past the heap limit it measures
// what is live (a mark that moves nothing) and fails only if that and n
// exceed the limit.
func (h *gcHeap) allocNoGC(n uintptr) (uintptr, error) {
	if p, ok := h.tryNursery(n); ok {
		return p, nil
	}
	if n < h.large {
		h.pending = true
	}
	if !h.fits(n) && h.liveBytes()+n > h.limit {
		return 0, ErrHeapExhausted
	}
	if n > h.oldHi-h.oldTop {
		return 0, ErrHeapExhausted
	}
	h.stats.DeferredAllocBytes += int64(n)
	return h.allocOld(n), nil
}

// gcAlloc allocates n bytes (a multiple of 8) at a safepoint, the exit
// with the given code: a collection runs first if one is due or if the
// object does not fit.
func (rt *Runtime) gcAlloc(m *Machine, code uint64, n uintptr) (uintptr, error) {
	h := rt.gc
	if h.noGC > 0 {
		return h.allocNoGC(n)
	}
	if err := rt.safepoint(m, code); err != nil {
		return 0, err
	}
	if p, ok := h.tryNursery(n); ok {
		h.notePeak()
		return p, nil
	}
	if n < h.large || !h.fits(n) || h.oldTop-h.oldLo+n >= h.fullAt {
		// The nursery is full, or the old generation is: collect, fully
		// if the object would not fit otherwise.
		h.notePeak()
		if err := rt.collect(m, code, nil, false, n); err != nil {
			return 0, err
		}
		if h.oldTop-h.oldLo+n > h.limit {
			return 0, ErrHeapExhausted
		}
		if p, ok := h.tryNursery(n); ok {
			return p, nil
		}
	}
	if n > h.oldHi-h.oldTop || h.oldTop-h.oldLo+h.nurseryUsed()-8+n > h.limit {
		return 0, ErrHeapExhausted
	}
	return h.allocOld(n), nil
}

// liveBytes returns the bytes of the objects reachable from the roots at
// the current exit, marking without moving anything (for an allocation
// where no collection may run, near the heap limit).
func (h *gcHeap) liveBytes() uintptr {
	rt := h.rt
	rs, err := rt.gatherRoots(rt.mach, rt.curExit, nil)
	if err != nil {
		return 0 // the walk fails only on a bug; the collection will say so
	}
	lo := h.base
	hi := h.oldTop
	w0, w1 := uintptr(0), (hi-lo+511)/8/64
	marks := h.marks[w0:w1]
	clear(marks)
	var stack []uintptr
	live := uintptr(0)
	mark := func(p uintptr) {
		w := (p - lo) / 8
		if marks[w/64]&(1<<(w%64)) != 0 {
			return
		}
		marks[w/64] |= 1 << (w % 64)
		live += h.objSize(p, h.typeAt(p))
		stack = append(stack, p)
	}
	inHeap := func(v uintptr) bool {
		return (v >= h.nurLo+8 && v < uintptr(*h.top)) || h.inOld(v)
	}
	for _, p := range rs.refs {
		if v := uintptr(*p); inHeap(v) {
			mark(v)
		}
	}
	for _, v := range h.held {
		if inHeap(v) {
			mark(v)
		}
	}
	if rt.curExit == abi.HelperBuiltin {
		// The arguments of the base library method running.
		if meth := rt.builtins[rt.mach.ExitArg()]; meth != nil {
			ni := 0
			for i := range meth.NumArgs() {
				t := meth.ArgType(i)
				if t.Kind == il.KR4 || t.Kind == il.KR8 {
					continue
				}
				if v := uintptr(rt.mach.Reg(intArgSlots[ni])); t.IsRef() && inHeap(v) {
					mark(v)
				}
				ni++
			}
		}
	}
	var starts []uintptr
	for _, p := range rs.interiors {
		v := uintptr(*p)
		switch {
		case h.inOld(v):
			mark(h.objectAt(v))
		case inHeap(v):
			if starts == nil {
				starts = h.nurseryStarts(uintptr(*h.top))
			}
			for i := len(starts) - 1; i >= 0; i-- {
				if starts[i] <= v {
					mark(starts[i])
					break
				}
			}
		}
	}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t := h.typeAt(p)
		h.eachRef(p, t, p, p+h.objSize(p, t), func(slot uintptr) {
			if v := uintptr(h.word(slot)); inHeap(v) {
				mark(v)
			}
		})
	}
	return live
}

// callBuiltin runs the base library method an exit asks for; when it
// returns normally, the exit is a safepoint with its result as a root.
func (rt *Runtime) callBuiltin(m *Machine) error {
	k := il.BuiltinKind(m.ExitArg())
	if int(k) >= len(rt.builtinCalls) {
		rt.builtinCalls = append(rt.builtinCalls, make([]int, int(k)+1-len(rt.builtinCalls))...)
	}
	rt.builtinCalls[k]++
	pc, sp := m.PC(), m.SP()
	err := rt.oomAt(m, rt.resumeOuter(m, rt.builtin(m, k)))
	if err != nil || m.PC() != pc || m.SP() != sp || !rt.gc.mayCollect() {
		return err
	}
	var extra []*uint64
	if meth := rt.builtins[k]; meth != nil && meth.Ret.IsRef() {
		extra = append(extra, m.word(abi.CtxRAX))
	}
	return rt.safepoint(m, abi.HelperBuiltin, extra...)
}

// exitHook runs at every exit under VerifyGC or GCStress: the GC
// information check, and stress collections at polls.
func (rt *Runtime) exitHook(m *Machine, code uint64) error {
	rt.syncPlans()
	if rt.gcv != nil {
		if err := rt.gcv.atExit(m, code); err != nil {
			return err
		}
	}
	if code == abi.ExitPoll && rt.gc.stressEvery > 0 {
		return rt.safepoint(m, code)
	}
	return nil
}

// hold keeps objects Go code holds, not stored anywhere yet, live until
// the returned function runs: counted for the heap limit, and roots of
// any collection meanwhile (Call holds its string arguments during the
// whole call, across collections).
func (rt *Runtime) hold(ps ...uintptr) (release func()) {
	h := rt.gc
	n := len(h.held)
	h.held = append(h.held, ps...)
	return func() { h.held = h.held[:n] }
}

// heldAcross runs f, a nested call of managed code during which Go code
// holds object addresses: no collection moves objects until it returns.
func (rt *Runtime) heldAcross(f func() (uint64, error)) (uint64, error) {
	rt.gc.noGC++
	defer func() { rt.gc.noGC-- }()
	ret, err := f()
	rt.syncPlans() // plans that ended in the call are popped now
	return ret, err
}
