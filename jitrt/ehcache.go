package jitrt

import (
	"miniil/abi"
	"miniil/il"
)

// The dispatch cache. A program that throws from one place usually
// throws the same type there, through the same callers, to the same
// handler: the first pass's search (each frame's clause chain, a type
// test per typed catch) and the plan's list of funclets come out the same
// every time. The dispatcher remembers them per throw site and exception
// type, and a later throw from that site with that type takes them if
// its frames, from the throw site to the handling frame, have the same
// return addresses as the ones the search went through: a return address
// names the code, the funclet and the clause chain of its frame, and
// whether a typed catch takes the exception depends only on the
// exception's type, so the search would find the same handler, and the
// second pass the same finally and fault funclets. Only the frames'
// stack and frame pointers differ; the plan is written with them.
//
// Filters run every time (their verdict can change from one throw to
// the next, and they have side effects): a remembered search lists the
// filters it ran, all of which declined, and the plan runs them first;
// one that accepts or throws ends the plan and the first pass goes on
// from it in Go (ehplan.go), and such a search is not remembered. Only
// searches whose second pass was planned are remembered, whose frames
// all lie in the current native call and none of which is a filter's. A
// funclet's frame is followed to its caller the same way whatever
// dispatch invoked it, but with nested native calls its caller may
// belong to an outer one (establisherSeg): a remembered search through
// a funclet's frame is then not taken. The frame of the catch's
// continuation (tryFrame), the call-depth checkpoints and the stack room
// are looked at anew on every throw, as for any plan. Installing code
// leaves the cache valid: it adds addresses no search went through, and
// the codeRange pointers it holds never move.

// dispatchSets is the number of sets of the dispatch cache (a power of
// two), chosen by the throw site; each holds dispatchWays entries, so a
// throw site raising two types, or reached by two paths, keeps both.
const (
	dispatchSets = 128
	dispatchWays = 2
)

// cachedFrame is one frame of a remembered search: its return address
// and what frameInfo says of it.
type cachedFrame struct {
	pc      uintptr
	code    *codeRange
	funclet int
	first   int
}

// dispatchEntry is a remembered search: the exception type, the frames
// from the throw site (frames[0].pc) to the handling frame (the last),
// the handling clause of that frame, and the plan's steps (the filters
// the search ran, then the second pass's funclets).
type dispatchEntry struct {
	excType  uint64 // the exception's method table
	frames   []cachedFrame
	hc       int
	steps    []planStep
	funclets bool // some frame is a funclet's
}

// dispatchSet is a set of the dispatch cache: its entries, and which one
// was used last (the other is replaced first).
type dispatchSet struct {
	ways [dispatchWays]dispatchEntry
	last int
}

// dispatchSet returns the cache set of throw site pc.
func (rt *Runtime) dispatchSet(pc uintptr) *dispatchSet {
	return &rt.dispatchCache[(pc^pc>>7)&(dispatchSets-1)]
}

// excType returns the type of exception object exc as its method table
// (one per type, and they do not move).
func (rt *Runtime) excType(exc uintptr) uint64 {
	return rt.u64(exc + abi.ObjMT)
}

// rememberDispatch records t's search, whose second pass was just
// planned, if the cache may reuse it.
func (rt *Runtime) rememberDispatch(t *tracker) {
	// Filters must have declined: the handler is a catch. They are run
	// again, as the plan's first records.
	if t.diverged || !t.plan || t.hc < 0 || t.frames[t.hf].code.clauses[t.hc].Kind != il.EHCatch ||
		len(t.filters)+len(t.steps) > maxPlanSteps+1 {
		return
	}
	funclets := false
	for i := 0; i <= t.hf; i++ {
		f := &t.frames[i]
		if f.seg != 0 || f.code.funclets[f.funclet].InFilter {
			return
		}
		funclets = funclets || f.funclet != 0
	}
	s := rt.dispatchSet(t.frames[0].pc)
	s.last = (s.last + 1) % dispatchWays
	e := &s.ways[s.last]
	e.excType, e.hc, e.funclets = rt.excType(t.exc), t.hc, funclets
	e.frames = e.frames[:0]
	for i := 0; i <= t.hf; i++ {
		f := &t.frames[i]
		e.frames = append(e.frames, cachedFrame{pc: f.pc, code: f.code, funclet: f.funclet, first: f.first})
	}
	e.steps = append(append(e.steps[:0], t.filters...), t.steps...)
}

// cachedDispatch dispatches t, a tracker that has not looked at any
// frame yet, with a remembered search if one fits: it reports whether it
// did, and then the second pass's start.
func (rt *Runtime) cachedDispatch(m *Machine, t *tracker) (bool, error) {
	id := rt.excType(t.exc)
	s := rt.dispatchSet(t.walk.pc)
	for k := range s.ways {
		e := &s.ways[k]
		if len(e.frames) == 0 || e.frames[0].pc != t.walk.pc || e.excType != id || e.funclets && len(m.outer) > 0 {
			continue
		}
		if rt.takeFrames(m, t, e.frames) {
			s.last = k
			rt.dispatchHits++
			return true, rt.startSecondPass(m, t, len(e.frames)-1, e.hc, e.steps)
		}
	}
	return false, nil
}

// takeFrames walks t's frames from the throw site if their return
// addresses are those of the remembered frames, or leaves t as it was
// and returns false.
func (rt *Runtime) takeFrames(m *Machine, t *tracker, frames []cachedFrame) bool {
	lo, hi := m.StackBounds()
	// The walk in locals, read and written field by field (see
	// newTracker).
	pc, sp, bp := t.walk.pc, t.walk.sp, t.walk.bp
	trace0 := len(t.trace)
	for i := range frames {
		cf := &frames[i]
		if pc != cf.pc || bp < lo || bp+16 > hi {
			// Another path to the throw site.
			t.frames, t.trace = t.frames[:0], t.trace[:trace0]
			return false
		}
		if len(t.frames) >= t.traceSkip {
			t.trace = append(t.trace, traceRef{cf.code, int(pc - cf.code.start)})
		}
		// Field by field into the slice: a frame built aside and copied
		// would be loaded before its stores are done (a store
		// forwarding stall per frame).
		t.frames = append(t.frames, frame{})
		f := &t.frames[len(t.frames)-1]
		f.pc, f.sp, f.bp, f.code, f.funclet, f.first = pc, sp, bp, cf.code, cf.funclet, cf.first
		// The caller's RBP and return address, with one bounds check
		// (the bounds were checked above).
		link := m.stackWordsAt(bp, 2)
		pc, sp, bp = uintptr(link[1]), bp+16, uintptr(link[0])
		if pc == rt.checkpointStub {
			pc = rt.returnAddress(sp - 8)
		}
	}
	t.walk.pc, t.walk.sp, t.walk.bp = pc, sp, bp
	return true
}
