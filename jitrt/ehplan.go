package jitrt

import (
	"miniil/abi"
	"miniil/amd64"
	"miniil/il"
)

// Planned second passes. Once the first pass has found a catch (or a
// filter that accepted), everything the second pass does is known: the
// finally and fault funclets to run, inner to outer, then the catch
// funclet, and the frame the catch's continuation resumes in. Instead of
// invoking each funclet with a return to Go (an exit per funclet), the
// dispatcher writes that plan on the native stack below the throw site
// and resumes the plan stub, which calls the funclets one after the other
// and then jumps to the continuation the catch returned, with the
// handling frame's RSP and RBP: one exit per throw and catch.
//
// Layout: the catch record at (throwSP-256)&^15, where the funclet-at-a-
// time path calls every funclet, the header above it, the others below:
//
//	hdr:       progress (the record running), target RSP, target RBP, 0
//	hdr-48*n:  record 0 .. record n-1 (the catch), each
//	           funclet address, RDI (establisher frame), RBP, the
//	           exception (in the catch's record; 0), hdr, kind
//	           (recFinally, recCatch, recFilter)
//
// The stub stores RSP (the record) into the header's progress word, then
// calls the funclet with RSP at the record, so the funclet's frame lies
// below its record and no record above it is touched, and RSI = the
// exception of the catch's record (a GC root, updated when the exception
// moves). After the catch it increments CtxPlansDone and resumes the
// continuation. A remembered search (ehcache.go) puts the filters of its
// first pass before the finally records: the stub goes on after a
// filter that declines, and exits as a filter's return to the
// dispatcher would after one that accepts (planAt has set the first
// pass's position from the progress word), which ends the plan. Go learns what a
// plan did when it next looks (syncPlans, at every exit and before every
// use of the tracker stack): the progress word says which funclet runs
// (the tracker's running, runFrame and funcletSP then are what invoke
// would have set, so stack walks need no special case beyond the return
// address planRet), and CtxPlansDone how many of the newest plans ended.
// Those end as a catch's return to Go ended a dispatch: the tracker is
// popped, and the dispatches whose funclets ran below the resumed frame
// are abandoned.
//
// A plan is made when nothing needs Go between the funclets: not for the
// second pass of an exception escaping a filter, nor when the resumed
// frame lies beyond a nested native call (resumeAt), nor when it would
// discard call-depth checkpoints, nor for more than maxPlanSteps funclets
// or without stack room; those use the funclet-at-a-time path of eh.go.

// planRecord is the size of a plan record; planHeader of the header.
const (
	planRecord   = 48
	planHeader   = 32
	maxPlanSteps = 64
)

// planStep is one funclet of a plan.
type planStep struct {
	frame     int     // index in tracker.frames of the establisher frame
	clause    int     // index in code.clauses of the funclet's clause
	entry     uintptr // the funclet's entry address
	frameSize uintptr // the funclet's frame size
	kind      runKind // runFilter, runFinally (finally or fault) or runCatch
}

// newPlanStep returns the step that runs the funclet at code offset off
// of frame fi (of t) for clause ci.
func newPlanStep(t *tracker, fi, ci, off int, kind runKind) planStep {
	r := t.frames[fi].code
	return planStep{frame: fi, clause: ci, entry: r.start + uintptr(off), frameSize: uintptr(r.funclets[r.funcletAt(off)].FrameSize), kind: kind}
}

// Plan record kinds (the record's last word).
const (
	recFinally = 0
	recCatch   = 1 // the last record
	recFilter  = 2
)

// emitPlanStub emits the plan stub; it returns the mark of planRet, the
// return address of its funclet calls.
func emitPlanStub(a *amd64.Assembler) amd64.MarkID {
	loop, next, filter, done := a.NewLabel(), a.NewLabel(), a.NewLabel(), a.NewLabel()
	rsp := func(d int32) amd64.Operand { return amd64.Mem(amd64.RSP, d) }
	a.Bind(loop)
	a.I(amd64.MOVQ, rsp(32), amd64.R(amd64.RAX))
	a.I(amd64.MOVQ, amd64.R(amd64.RSP), amd64.Mem(amd64.RAX, 0))
	a.I(amd64.MOVQ, rsp(8), amd64.R(amd64.RDI))
	a.I(amd64.MOVQ, rsp(16), amd64.R(amd64.RBP))
	// The exception from the catch record, which the collector updates
	// (a funclet run before may have moved it).
	a.I(amd64.MOVQ, amd64.Mem(amd64.RAX, -planRecord+24), amd64.R(amd64.RSI))
	a.I(amd64.CALL, rsp(0))
	ret := a.Mark()
	a.I(amd64.MOVQ, rsp(40), amd64.R(amd64.RCX))
	a.I(amd64.CMPQ, amd64.R(amd64.RCX), amd64.Imm(recCatch))
	a.Jump(amd64.JEQ, done)
	a.Jump(amd64.JHI, filter)
	a.Bind(next)
	a.I(amd64.ADDQ, amd64.Imm(planRecord), amd64.R(amd64.RSP))
	a.Jump(amd64.JMP, loop)
	// A filter that declines lets the plan go on; one that accepts ends
	// it, returning to the dispatcher as a filter it invoked would.
	a.Bind(filter)
	a.I(amd64.TESTL, amd64.R(amd64.RAX), amd64.R(amd64.RAX))
	a.Jump(amd64.JEQ, next)
	emitExitStub(a, abi.ExitFuncletReturn, 0, false, amd64.UD2)
	a.Bind(done)
	a.I(amd64.MOVQ, rsp(32), amd64.R(amd64.RCX))
	a.I(amd64.INCQ, ctx(abi.CtxPlansDone))
	a.I(amd64.MOVQ, amd64.Mem(amd64.RCX, 16), amd64.R(amd64.RBP))
	a.I(amd64.MOVQ, amd64.Mem(amd64.RCX, 8), amd64.R(amd64.RSP))
	a.I(amd64.JMP, amd64.R(amd64.RAX))
	return ret
}

// installPlanStub installs the plan stub and sets rt.planStub and
// rt.planRet.
func (rt *Runtime) installPlanStub() error {
	h := rt.code
	h.asmMu.Lock()
	var ret amd64.MarkID
	b, err := assemble(h.asm, func(a *amd64.Assembler) { ret = emitPlanStub(a) })
	h.asmMu.Unlock()
	if err != nil {
		return err
	}
	addr, err := h.Install(b.Code)
	if err != nil {
		return err
	}
	rt.planStub, rt.planRet, rt.planEnd = addr, addr+uintptr(b.Marks[ret]), addr+uintptr(len(b.Code))
	return nil
}

// isDispatchReturn says whether ret, the return address of a funclet, is
// where funclets the dispatcher invokes return (rather than a
// callfinally of the funclet's parent).
func (rt *Runtime) isDispatchReturn(ret uintptr) bool {
	return ret == rt.funcletReturn || ret == rt.planRet
}

// planSecondPass starts t's second pass (handler hf, hc) as a plan, if it
// can; false: the caller runs it funclet by funclet. The plan's steps are
// cached if not nil (a remembered search's), else found from the frames'
// clauses, and then the search is remembered.
func (rt *Runtime) planSecondPass(m *Machine, t *tracker, cached []planStep) bool {
	if t.swallow || t.hc < 0 || t.frames[t.hf].seg != 0 {
		return false
	}
	if cached != nil {
		t.steps = append(t.steps[:0], cached...)
		return rt.writePlan(m, t)
	}
	if !rt.findPlanSteps(t) || !rt.writePlan(m, t) {
		return false
	}
	rt.rememberDispatch(t)
	return true
}

// findPlanSteps sets t.steps to the funclets of t's second pass: the
// finally and fault funclets up to the handler, then the catch; false if
// there are too many for a plan.
func (rt *Runtime) findPlanSteps(t *tracker) bool {
	steps := t.steps[:0]
	for fi := 0; fi <= t.hf; fi++ {
		f := &t.frames[fi]
		for ci := f.first; ci >= 0 && (fi != t.hf || ci != t.hc); ci = f.code.clauses[ci].Next {
			c := &f.code.clauses[ci]
			if c.Kind == il.EHFinally || c.Kind == il.EHFault {
				if len(steps) == maxPlanSteps {
					t.steps = steps
					return false
				}
				steps = append(steps, newPlanStep(t, fi, ci, c.HandlerStart, runFinally))
			}
		}
	}
	hf := &t.frames[t.hf]
	c := &hf.code.clauses[t.hc]
	t.steps = append(steps, newPlanStep(t, t.hf, t.hc, c.HandlerStart, runCatch))
	return true
}

// writePlan writes t's plan (t.steps) below its throw site and points the
// machine at the plan stub, if it can; false: nothing was written.
func (rt *Runtime) writePlan(m *Machine, t *tracker) bool {
	steps := t.steps
	hf := &t.frames[t.hf]
	c := &hf.code.clauses[t.hc]
	var scratch frame
	target, err := rt.tryFrame(m, hf, c.TryFunclet, &scratch)
	if err != nil || target.seg != 0 {
		return false // the path of eh.go reports it, or resumes beyond
	}
	if n := len(rt.checkpoints); n > 0 && rt.checkpoints[n-1].slot < target.sp {
		return false // unwindTo must run when the continuation resumes
	}
	// The catch record where the funclet-at-a-time path runs every
	// funclet (so a catch uses no more stack: recursion from catch
	// handlers reaches the same depth), the header above it, the filter
	// and finally records below.
	last := (t.throwSP - 256) &^ 15
	hdr := last + planRecord
	lo := last - uintptr(planRecord*(len(steps)-1))
	if lo < m.HardStackLimit()+4096 || lo < m.stackLo {
		return false
	}
	// One bounds check for the whole plan: records, then the header.
	words := m.stackWordsAt(lo, (len(steps)*planRecord+planHeader)/8)
	h := words[len(steps)*planRecord/8:]
	h[0], h[1], h[2], h[3] = uint64(lo), uint64(target.sp), uint64(target.bp), 0
	for i, s := range steps {
		f := &t.frames[s.frame]
		r := words[i*planRecord/8 : (i+1)*planRecord/8]
		var exc, kind uint64
		switch s.kind {
		case runCatch:
			exc, kind = uint64(t.exc), recCatch
		case runFilter:
			kind = recFilter
		}
		r[0], r[1], r[2], r[3], r[4], r[5] = uint64(s.entry), uint64(f.sp), uint64(f.bp), exc, uint64(hdr), kind
	}
	if steps[0].kind == runFilter && !t.regsSaved {
		// The GC walk needs the throw site's registers while a filter
		// runs (see firstPass).
		t.saveRegs(m)
	}
	t.plan, t.planHdr, t.planLo, t.targetSP = true, hdr, lo, target.sp
	rt.planAt(t, lo)
	m.SetPC(rt.planStub)
	m.SetSP(lo)
	return true
}

// planAt sets t's running funclet to the plan record at rec.
func (rt *Runtime) planAt(t *tracker, rec uintptr) {
	k := int(rec-t.planLo) / planRecord
	if rec < t.planLo || k >= len(t.steps) {
		k = 0 // cannot happen while the plan is live
	}
	s := &t.steps[k]
	t.running, t.runFrame = s.kind, s.frame
	if s.kind == runFilter {
		// Where the first pass stands, as if the dispatcher had invoked
		// the filter: the plan ends here if it accepts or throws.
		t.fi, t.ci = s.frame, s.clause
	}
	t.funcletSP = t.planLo + uintptr(planRecord*k) - 16 - s.frameSize
}

// planExc returns the address of the exception word of t's catch record
// (a root: the collector updates it when the exception moves).
func (rt *Runtime) planExc(t *tracker) *uint64 {
	return (*uint64)(rt.mach.stackPtr(t.planHdr - planRecord + 24))
}

// runningBelow returns the address below which t's running funclet lies:
// a dispatch resumed at a frame above it abandons t.
func (t *tracker) runningBelow() uintptr {
	if t.plan {
		return t.planHdr
	}
	return t.funcletSP
}

// syncPlans ends the plans whose catch returned (the newest ones, as many
// as CtxPlansDone counts) and updates the running funclet of the others
// from their progress words.
func (rt *Runtime) syncPlans() {
	if len(rt.trackers) == 0 {
		return
	}
	m := rt.mach
	done := m.Reg(abi.CtxPlansDone)
	if done != 0 {
		m.SetReg(abi.CtxPlansDone, 0)
	}
	for ; done > 0; done-- {
		i := len(rt.trackers) - 1
		for i >= 0 && !rt.trackers[i].plan {
			i--
		}
		if i < 0 {
			break
		}
		t := rt.trackers[i]
		// Dispatches newer than t ran inside its funclets and were
		// abandoned; so are older ones whose funclets ran below the
		// frame resumed.
		n := i
		for n > 0 && (rt.trackers[n-1].running == runNone || rt.trackers[n-1].runningBelow() < t.targetSP) {
			n--
		}
		rt.freeTrackers = append(rt.freeTrackers, rt.trackers[n:]...)
		rt.trackers = rt.trackers[:n]
		rt.unwindTo(t.targetSP)
	}
	for _, t := range rt.trackers {
		if t.plan {
			rt.planAt(t, uintptr(m.ReadStack(t.planHdr)))
		}
	}
}
