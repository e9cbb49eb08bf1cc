package jitrt

import (
	"errors"
	"fmt"
	"sort"

	"miniil/abi"

	"miniil/il"
)

// Exception dispatch: CoreCLR's two-pass model over funclets, as an
// explicit state machine. Every dispatch is a tracker on a stack; the
// machine state is only ever changed by exit handlers, which either resume
// native code (to run a funclet, or to continue after a catch) or end the
// run. Funclets run on the native stack below the throw site, called with
// RDI = the establisher frame and RSI = the exception, and return to a
// stub that exits with ExitFuncletReturn, so no Go frame waits for them.

// frame is one managed frame seen by a stack walk. pc is a return address
// (of the call to the next frame or to an exit stub).
type frame struct {
	pc, sp, bp uintptr
	code       *codeRange
	funclet    int // index in code.funclets (0: the main body)
	seg        int // 0: the current native call; n: n nested calls out
	first      int // code.firstClause(offset()), for frames of a tracker
}

// traceRef is a frame of a stack trace as the dispatcher records it: the
// code and the return address's offset in it, named (traceSite) only when
// a trace is reported.
type traceRef struct {
	code *codeRange
	ret  int
}

// traceSites names the frames of a trace.
func traceSites(trace []traceRef) []traceSite {
	s := make([]traceSite, len(trace))
	for i, r := range trace {
		s[i] = r.code.traceSite(r.ret)
	}
	return s
}

// pcInfo is what the dispatcher knows of a return address: its code, the
// funclet and the first clause an exception there is offered to. The
// runtime caches it per address (frameInfo).
type pcInfo struct {
	pc             uintptr
	code           *codeRange
	funclet, first int32
}

// pcCacheSize is the number of entries of the return address cache (a
// power of two).
const pcCacheSize = 512

// frameInfo returns what the dispatcher knows of return address pc, nil
// when it is not in managed code.
func (rt *Runtime) frameInfo(pc uintptr) *pcInfo {
	e := &rt.pcCache[(pc^pc>>9)&(pcCacheSize-1)]
	if e.pc == pc && e.code != nil {
		return e
	}
	r := rt.methodAt(pc - 1)
	if r == nil {
		return nil
	}
	off := int(pc-r.start) - 1
	*e = pcInfo{pc: pc, code: r, funclet: int32(r.funcletAt(off)), first: int32(r.firstClause(off))}
	return e
}

// offset is the code offset of the frame's call site (pc-1 lies inside
// the call instruction, so a call at the end of a try still counts).
func (f *frame) offset() int { return int(f.pc-f.code.start) - 1 }

// runKind says which funclet a tracker is running.
type runKind uint8

const (
	runNone runKind = iota
	runFilter
	runFinally // finally or fault, in the second pass
	runCatch   // catch or filter handler
)

// tracker is one exception dispatch.
type tracker struct {
	exc     uintptr
	frames  []frame // from the throw site outward, as far as the walk got
	walk    walkState
	ended   endKind // why the walk stopped, once walk.done
	throwSP uintptr // funclets run below this
	// outerLen is the number of the machine's nested calls when the
	// dispatch started: frames[i].seg counts outward from there.
	outerLen int
	// trace lists the frames' call or throw sites for the report of an
	// unhandled exception (names are made only then). Frame i is
	// trace[i+traceOff]; frames below traceSkip are not in the trace (a
	// rethrow's own frame is the catching frame the old trace ends with).
	trace     []traceRef
	traceOff  int
	traceSkip int

	second  bool // in the second pass
	swallow bool // second pass up to a filter that the exception escapes
	// fi is the frame being examined, ci the next clause of its chain
	// (chainStart: the frame's first clause, -1: the chain is done).
	fi, ci int
	hf, hc int // handling frame and clause (second pass; hc -1: none)

	running   runKind
	runFrame  int     // frame whose funclet runs
	funcletSP uintptr // RSP of the running funclet's frame
	// site is the exit the exception was thrown at and regs the
	// registers there: while a filter runs, the GC stack walk goes on
	// from the filter to the throw site, through the frames the
	// exception passed, which are still on the stack (gcwalk.go).
	site      walkState
	regs      [abi.NumRegs]uint64
	regsSaved bool // regs holds them (saved before the first filter runs)
	// filters lists the filters the first pass ran, in order, and
	// diverged says that a plan's filter accepted or threw, or that a
	// filter's exception was swallowed: the search is not remembered
	// (ehcache.go).
	filters  []planStep
	diverged bool

	// A planned second pass (ehplan.go): the funclets it runs, where its
	// header and first record are, and the frame its catch resumes.
	plan            bool
	steps           []planStep
	planHdr, planLo uintptr
	targetSP        uintptr // the RSP the catch's continuation resumes with
}

// endKind says why a stack walk stopped.
type endKind uint8

const (
	endTop    endKind = iota // no more managed frames: the exception is unhandled
	endFilter                // a filter's frame: exceptions escaping it are swallowed
)

// resumeAt asks the exit handlers of enclosing native calls to abandon
// the calls (levels of them) and resume native code at pc with sp and bp:
// a handler was found in a frame outside the managed code that the
// runtime called (from a base library method such as Console.WriteLine).
type resumeAt struct {
	pc, sp, bp uintptr
	levels     int
}

func (r *resumeAt) Error() string {
	return fmt.Sprintf("jitrt: resuming %d native call(s) out at %#x", r.levels, r.pc)
}

// chainStart in tracker.ci means that the examination of frame fi starts
// at the first clause covering its offset.
const chainStart = -2

// walkState is where a tracker's stack walk goes on.
type walkState struct {
	pc, sp, bp uintptr
	seg        int
	done       bool
}

// maxFrames bounds a stack walk (a corrupt frame chain would loop).
const maxFrames = 1 << 24

// nextFrame appends the next frame an exception travels through to t's
// frames (and trace), or returns false when the walk is over (t.ended
// says why). Frames are walked as the first pass needs them, so a throw
// caught near where it was thrown costs the same however deep the stack
// is (the trace, like CoreCLR's, runs from the throw to the catch). The
// caller of any frame is found through RBP: funclets run with their
// method's main RBP, so the frame after a funclet is the caller of its
// main body (the main body's own frame is skipped: the funclet's clause
// chain already reaches the clauses enclosing it, as the CLR's duplicate
// clauses do). Where managed code was called by the runtime (a nested
// native call), the walk continues at the exit the runtime was serving.
func (rt *Runtime) nextFrame(t *tracker) bool {
	w := &t.walk
	lo, hi := rt.mach.StackBounds()
	for !w.done {
		info := rt.frameInfo(w.pc)
		if info == nil || len(t.frames) >= maxFrames {
			outer := rt.mach.outer
			if info != nil || w.seg >= len(outer) {
				w.done, t.ended = true, endTop
				break
			}
			o := outer[len(outer)-1-w.seg]
			w.seg++
			w.pc, w.sp, w.bp = o.pc, o.sp, o.bp
			continue
		}
		r := info.code
		if len(t.frames) >= t.traceSkip {
			t.trace = append(t.trace, traceRef{r, int(w.pc - r.start)})
		}
		// Field by field into the slice (see cachedDispatch).
		t.frames = append(t.frames, frame{})
		f := &t.frames[len(t.frames)-1]
		f.pc, f.sp, f.bp, f.code, f.seg, f.funclet, f.first = w.pc, w.sp, w.bp, r, w.seg, int(info.funclet), int(info.first)
		switch {
		case r.funclets[f.funclet].InFilter:
			w.done, t.ended = true, endFilter
		case w.bp < lo || w.bp+16 > hi:
			w.done, t.ended = true, endTop
		default:
			if f.funclet != 0 && len(rt.mach.outer) > 0 {
				// The frames after a funclet that the dispatcher invoked
				// belong to the native call of its establisher frame,
				// which may be an outer one (a catch outside the base
				// library method whose callback threw): the funclet runs
				// on top of the nested calls. Without nested calls there
				// is only one.
				w.seg = max(w.seg, rt.establisherSeg(*f))
			}
			w.pc, w.sp, w.bp = rt.returnAddress(w.bp+8), w.bp+16, uintptr(rt.mach.ReadStack(w.bp))
		}
		return true
	}
	return false
}

// establisherSeg returns the native call (frame.seg) of the frame for
// which the dispatcher invoked funclet frame f, or 0 for a funclet its
// parent called.
func (rt *Runtime) establisherSeg(f frame) int {
	size := uintptr(f.code.funclets[f.funclet].FrameSize)
	if !rt.isDispatchReturn(uintptr(rt.mach.ReadStack(f.sp + size + 8))) {
		return 0
	}
	if i := rt.invokerOf(f.sp, len(rt.trackers)); i >= 0 {
		o := rt.trackers[i]
		return o.frames[o.runFrame].seg
	}
	return 0
}

// traceSite returns the trace frame of the call or exit site whose
// return address is at code offset ret (IL offset -1 if none is
// recorded).
func (r *codeRange) traceSite(ret int) traceSite {
	ts := traceSite{method: r.method, ilOff: -1}
	k := sort.Search(len(r.sites), func(i int) bool { return r.sites[i].Offset >= ret })
	if k < len(r.sites) && r.sites[k].Offset == ret {
		s := &r.sites[k]
		ts.ilOff = s.ILOffset
		if s.Inline > 0 {
			ts.inlines, ts.inline = r.inlines, s.Inline
		}
	}
	return ts
}

// newTracker starts a dispatch of exc thrown at the current exit,
// reusing a finished tracker's memory.
func (rt *Runtime) newTracker(m *Machine, exc uintptr) *tracker {
	var t *tracker
	if n := len(rt.freeTrackers); n > 0 {
		t = rt.freeTrackers[n-1]
		rt.freeTrackers = rt.freeTrackers[:n-1]
		// Field by field: a composite literal would build the whole
		// tracker (registers included) and copy it, per throw.
		t.frames, t.trace, t.steps = t.frames[:0], t.trace[:0], t.steps[:0]
		t.ended, t.traceOff, t.traceSkip = endTop, 0, 0
		t.second, t.swallow, t.fi, t.hf, t.hc = false, false, 0, 0, 0
		t.running, t.runFrame, t.funcletSP, t.regsSaved = runNone, 0, 0, false
		t.filters, t.diverged = t.filters[:0], false
		t.plan, t.planHdr, t.planLo, t.targetSP = false, 0, 0, 0
	} else {
		t = &tracker{}
	}
	t.exc, t.throwSP, t.ci, t.outerLen = exc, m.SP(), chainStart, len(m.outer)
	// Field by field: a walkState built aside and copied would be
	// loaded before its stores are done (a store forwarding stall, per
	// throw).
	pc, sp, bp := m.PC(), m.SP(), uintptr(m.Reg(abi.CtxRBP))
	t.walk.pc, t.walk.sp, t.walk.bp, t.walk.seg, t.walk.done = pc, sp, bp, 0, false
	t.site.pc, t.site.sp, t.site.bp, t.site.seg, t.site.done = pc, sp, bp, 0, false
	rt.trackers = append(rt.trackers, t)
	return t
}

// throw starts dispatching exc, thrown at the current exit.
func (rt *Runtime) throw(m *Machine, exc uintptr) error {
	rt.syncPlans()
	if rt.innerTraces != nil {
		delete(rt.innerTraces, exc) // thrown anew: a new trace
	}
	return rt.dispatch(m, rt.newTracker(m, exc))
}

// dispatch starts new tracker t's first pass, or its second pass with a
// remembered search (ehcache.go).
func (rt *Runtime) dispatch(m *Machine, t *tracker) error {
	if ok, err := rt.cachedDispatch(m, t); ok {
		return err
	}
	return rt.firstPass(m, t)
}

// rethrow rethrows the exception of the running catch (or filter
// handler) of IL clause ilClause in the frame making the exit: the catch
// that lexically encloses the rethrow, which may be in a funclet nested in
// it. Funclets run with their method's frame pointer, so RBP names the
// frame.
func (rt *Runtime) rethrow(m *Machine, ilClause int) error {
	rt.syncPlans()
	bp := uintptr(m.Reg(abi.CtxRBP))
	for i := len(rt.trackers) - 1; i >= 0; i-- {
		old := rt.trackers[i]
		if old.running != runCatch || old.hc < 0 {
			continue
		}
		if f := &old.frames[old.hf]; f.bp != bp || f.code.clauses[old.hc].ILClause != ilClause {
			continue
		}
		t := rt.newTracker(m, old.exc)
		// The trace keeps the original frames up to the catching one, then
		// the frames above it (CoreCLR preserves the trace on rethrow);
		// the rethrow's own frame is the catching one.
		keep := min(old.hf+old.traceOff+1, len(old.trace))
		t.trace = append(t.trace, old.trace[:keep]...)
		t.traceSkip, t.traceOff = 1, keep-1
		return rt.dispatch(m, t)
	}
	return errors.New("jitrt: rethrow outside a running catch handler")
}

// firstPass looks for a handler, running filters, from the tracker's scan
// position. It returns after starting a filter funclet (native code then
// runs it), after starting the second pass, or with the run's end.
func (rt *Runtime) firstPass(m *Machine, t *tracker) error {
	for ; t.fi < len(t.frames) || rt.nextFrame(t); t.fi, t.ci = t.fi+1, chainStart {
		f := &t.frames[t.fi]
		if t.ci == chainStart {
			t.ci = f.first
		}
		for ; t.ci >= 0; t.ci = f.code.clauses[t.ci].Next {
			c := &f.code.clauses[t.ci]
			switch c.Kind {
			case il.EHCatch:
				if rt.isInstance(t.exc, f.code.catchRT[t.ci]) {
					return rt.startSecondPass(m, t, t.fi, t.ci, nil)
				}
			case il.EHFilter:
				t.filters = append(t.filters, newPlanStep(t, t.fi, t.ci, c.FilterStart, runFilter))
				if !t.regsSaved {
					// The first filter: the machine still has the
					// registers of the throw site (its exit is being
					// served), which the GC walk needs while filters run.
					t.saveRegs(m)
				}
				t.running, t.runFrame = runFilter, t.fi
				return rt.invoke(m, t, f, c.FilterStart)
			}
		}
	}
	return rt.noHandler(m, t)
}

// saveRegs keeps the registers of the throw site, which the machine
// still has (its exit is being served).
func (t *tracker) saveRegs(m *Machine) {
	for n := range t.regs {
		t.regs[n] = m.Reg(abi.RegCtx(n))
	}
	t.regsSaved = true
}

// noHandler ends a first pass that found no handler.
func (rt *Runtime) noHandler(m *Machine, t *tracker) error {
	if t.ended == endFilter {
		// The exception escapes a filter: the filter's frame acts as a
		// catch-all. Finally blocks up to it run, then the exception is
		// swallowed and the filter counts as false.
		t.swallow = true
		return rt.startSecondPass(m, t, len(t.frames)-1, -1, nil)
	}
	rt.pop(t)
	// Unhandled: no second pass runs (CoreCLR on Linux).
	u := &UnhandledException{}
	if et := rt.typeOf(t.exc); et.kind != tkClass || !et.class.IsSubclassOf(rt.mod.Class(il.ExceptionClass)) {
		// CoreCLR wraps objects that are not exceptions.
		u.Type = "System.Runtime.CompilerServices.RuntimeWrappedException"
		u.Message = "An object that does not derive from System.Exception has been wrapped in a RuntimeWrappedException."
	} else {
		// The exception and its inner exceptions, each with its Message.
		at, exc := u, t.exc
		for n := 0; ; n++ {
			at.Type = rt.typeOf(exc).name
			msg, err := rt.message(exc)
			if err != nil {
				return err
			}
			at.Message = msg
			if exc = rt.innerOf(exc); exc == 0 || n == il.MaxInnerExceptions {
				break
			}
			at.Inner = &UnhandledException{}
			at = at.Inner
			if it, ok := rt.innerTraces[exc]; ok {
				at.Trace, at.ILOffsets = visibleTrace(it.trace)
			}
		}
	}
	rt.trackers, rt.freeTrackers = nil, nil
	m.SetReg(abi.CtxPlansDone, 0)
	u.Trace, u.ILOffsets = visibleTrace(traceSites(t.trace))
	return u
}

// startSecondPass records the handler (hc -1: none, run every finally of
// frame hf) and runs the finally and fault funclets between the throw site
// and it; steps, if not nil, are the plan's (a remembered search's).
func (rt *Runtime) startSecondPass(m *Machine, t *tracker, hf, hc int, steps []planStep) error {
	t.second, t.hf, t.hc = true, hf, hc
	t.fi, t.ci = 0, chainStart
	if rt.planSecondPass(m, t, steps) {
		return nil
	}
	if len(steps) > 0 && steps[0].kind == runFilter {
		// A remembered search whose filters only a plan would run: the
		// first pass runs them (over the frames already walked).
		t.second, t.hf, t.hc, t.fi, t.ci = false, 0, 0, 0, chainStart
		t.diverged = true
		return rt.firstPass(m, t)
	}
	return rt.secondPass(m, t)
}

func (rt *Runtime) secondPass(m *Machine, t *tracker) error {
	for ; t.fi <= t.hf; t.fi, t.ci = t.fi+1, chainStart {
		f := &t.frames[t.fi]
		if t.ci == chainStart {
			t.ci = f.first
		}
		for t.ci >= 0 && (t.fi != t.hf || t.ci != t.hc) {
			c := &f.code.clauses[t.ci]
			t.ci = c.Next
			if c.Kind == il.EHFinally || c.Kind == il.EHFault {
				t.running, t.runFrame = runFinally, t.fi
				return rt.invoke(m, t, f, c.HandlerStart)
			}
		}
		if t.fi == t.hf {
			break
		}
	}
	if t.swallow {
		// Every dispatch above the filter's owner ran inside the filter
		// (this one, and any whose handler the escaping exception left):
		// they end with it.
		for i := len(rt.trackers) - 1; i >= 0; i-- {
			if owner := rt.trackers[i]; owner.running == runFilter {
				rt.freeTrackers = append(rt.freeTrackers, rt.trackers[i+1:]...)
				rt.trackers = rt.trackers[:i+1]
				// A plan running the filter ends: the first pass goes on
				// here.
				owner.running, owner.plan, owner.diverged = runNone, false, true
				owner.ci = owner.frames[owner.fi].code.clauses[owner.ci].Next
				return rt.firstPass(m, owner)
			}
		}
		return errors.New("jitrt: exception escaped a filter that is not running")
	}
	// Every inner finally ran: call the catch (or filter handler) funclet.
	f := &t.frames[t.hf]
	c := &f.code.clauses[t.hc]
	t.running, t.runFrame = runCatch, t.hf
	return rt.invoke(m, t, f, c.HandlerStart)
}

// funcletReturned continues the dispatch whose funclet just returned.
func (rt *Runtime) funcletReturned(m *Machine) error {
	rt.syncPlans()
	var t *tracker
	for i := len(rt.trackers) - 1; i >= 0 && t == nil; i-- {
		if rt.trackers[i].running != runNone {
			t = rt.trackers[i]
		}
	}
	if t == nil {
		return errors.New("jitrt: a funclet returned with no dispatch running it")
	}
	result := m.Reg(abi.CtxRAX)
	kind := t.running
	t.running = runNone
	switch kind {
	case runFilter:
		if t.plan {
			// A plan's filter accepted (the plan stub goes on only
			// when they decline): the plan ends, the first pass
			// decides anew.
			t.plan, t.diverged = false, true
		}
		if int32(result) != 0 {
			return rt.startSecondPass(m, t, t.fi, t.ci, nil)
		}
		t.ci = t.frames[t.fi].code.clauses[t.ci].Next
		return rt.firstPass(m, t)
	case runFinally:
		return rt.secondPass(m, t)
	}
	// The catch returned its continuation: resume in the frame of the
	// code holding the clause's try (for a duplicate clause found in a
	// nested funclet's frame, one of its physical parents) and discard
	// every frame below it, with the dispatches they held.
	var scratch frame
	fp, err := rt.tryFrame(m, &t.frames[t.hf], t.frames[t.hf].code.clauses[t.hc].TryFunclet, &scratch)
	if err != nil {
		return err
	}
	f := *fp
	rt.pop(t)
	// Dispatches whose funclets ran below the frame resumed are abandoned.
	// They are the newest ones: a dispatch starts inside the funclet of
	// any older one that is running, so running funclets lie deeper the
	// newer their dispatch.
	n := len(rt.trackers)
	for n > 0 && (rt.trackers[n-1].running == runNone || rt.trackers[n-1].runningBelow() < f.sp) {
		n--
	}
	rt.freeTrackers = append(rt.freeTrackers, rt.trackers[n:]...)
	rt.trackers = rt.trackers[:n]
	if f.seg > 0 {
		return &resumeAt{pc: uintptr(result), sp: f.sp, bp: f.bp, levels: f.seg}
	}
	rt.unwindTo(f.sp)
	m.SetPC(uintptr(result))
	m.SetSP(f.sp)
	m.SetReg(abi.CtxRBP, uint64(f.bp))
	return nil
}

// tryFrame climbs from frame f (of a funclet) to the frame of the same
// method invocation whose code is funclet k: a funclet called on the
// normal path (callfinally) was called by its parent, whose frame sits
// right above its own; one invoked by the dispatcher has its establisher
// frame recorded by the tracker that invoked it.
//
// The frame found is f itself, a tracker's frame or, for a frame of a
// callfinally, *scratch, which it fills: pointers, not copies, as the
// frames were often just written field by field, and a copy would load
// them before the stores are done (a store forwarding stall per throw).
func (rt *Runtime) tryFrame(m *Machine, f *frame, k int, scratch *frame) (*frame, error) {
	// Each step goes to an older frame at a higher address. The funclets
	// met were invoked by ever older dispatches, so the search for the
	// next one's tracker continues down the tracker stack from the last
	// one found (a deep nest of catches that rethrow climbs once).
	below := len(rt.trackers)
	for f.funclet != k {
		if f.funclet == 0 {
			return f, fmt.Errorf("jitrt: no frame of %s runs the code of its try (funclet %d)", f.code.method.FullName(), k)
		}
		// f may be scratch, which next may become: what the check below
		// compares is read first.
		fsp, fcode := f.sp, f.code
		size := uintptr(f.code.funclets[f.funclet].FrameSize)
		ret := uintptr(m.ReadStack(f.sp + size + 8))
		var next *frame
		if rt.isDispatchReturn(ret) {
			i := rt.invokerOf(f.sp, below)
			if i < 0 {
				return f, fmt.Errorf("jitrt: no dispatch invoked the funclet at sp %#x", f.sp)
			}
			below = i
			o := rt.trackers[i]
			next = &o.frames[o.runFrame]
		} else {
			// f may be scratch: the fields are read before it is written.
			sp, bp, code, seg := f.sp+size+16, f.bp, f.code, f.seg
			next = scratch
			next.pc, next.sp, next.bp, next.code, next.seg, next.first = ret, sp, bp, code, seg, 0
			next.funclet = code.funcletAt(next.offset())
		}
		if next.sp <= fsp {
			return f, fmt.Errorf("jitrt: the frames of %s do not lead outward from sp %#x", fcode.method.FullName(), fsp)
		}
		f = next
	}
	return f, nil
}

// invokerOf returns the index of the tracker running the funclet whose
// frame is at sp, searching down from below-1 first (-1: none).
func (rt *Runtime) invokerOf(sp uintptr, below int) int {
	for _, r := range [][2]int{{below - 1, 0}, {len(rt.trackers) - 1, below}} {
		for i := r[0]; i >= r[1]; i-- {
			if o := rt.trackers[i]; o.running != runNone && o.funcletSP == sp {
				return i
			}
		}
	}
	return -1
}

// invoke makes native code call a funclet of frame f at code offset off
// when the exit handler returns: below the throw site, with the
// establisher frame in RDI and the exception in RSI, returning to the
// funclet-return stub.
func (rt *Runtime) invoke(m *Machine, t *tracker, f *frame, off int) error {
	k := f.code.funcletAt(off)
	sp := (t.throwSP-256)&^15 - 8 // as after a CALL: sp+8 is 16-byte aligned
	m.WriteStack(sp, uint64(rt.funcletReturn))
	m.SetSP(sp)
	m.SetPC(f.code.start + uintptr(off))
	m.SetReg(abi.CtxRDI, uint64(f.sp))
	m.SetReg(abi.CtxRSI, uint64(t.exc))
	m.SetReg(abi.CtxRBP, uint64(f.bp))
	t.funcletSP = sp - 8 - uintptr(f.code.funclets[k].FrameSize)
	return nil
}

// pop removes tracker t from the stack; its memory is reused by the next
// dispatch.
func (rt *Runtime) pop(t *tracker) {
	for i := len(rt.trackers) - 1; i >= 0; i-- {
		if rt.trackers[i] == t {
			rt.trackers = append(rt.trackers[:i], rt.trackers[i+1:]...)
			rt.freeTrackers = append(rt.freeTrackers, t)
			return
		}
	}
}

// throwNewAt raises a new base library exception of the named class at the
// current exit (implicit exceptions raised inside helpers).
func (rt *Runtime) throwNewAt(m *Machine, class string) error {
	exc, err := rt.newObject(rt.mod.Class(class))
	if err != nil {
		return err
	}
	msg, _ := il.DefaultMessage(class)
	rt.gc.writeRef(exc+abi.ObjFields, uint64(rt.StringAddr(msg)))
	return rt.throw(m, exc)
}

// resumeOuter serves a resume request coming out of a nested native call
// that a base library method made: one level is abandoned per exit
// handler, and the one it was addressed to resumes there.
func (rt *Runtime) resumeOuter(m *Machine, err error) error {
	if err == nil {
		return nil // the common case, without errors.As's allocation
	}
	var r *resumeAt
	if !errors.As(err, &r) {
		return err
	}
	if r.levels > 1 {
		r.levels--
		return r
	}
	rt.unwindTo(r.sp)
	m.SetPC(r.pc)
	m.SetSP(r.sp)
	m.SetReg(abi.CtxRBP, uint64(r.bp))
	return nil
}

func (k runKind) String() string {
	return [...]string{"none", "filter", "finally", "catch"}[k]
}

func (t *tracker) String() string {
	return fmt.Sprintf("tracker{exc %#x, %d frames, pass %v, running %s}", t.exc, len(t.frames), t.second, t.running)
}
