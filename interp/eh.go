package interp

import (
	"errors"

	"miniil/il"
)

// dispatch is one exception in flight: the CLR's exception tracker. The
// first pass walks frames outward from the throw point (fi, ci: the frame
// and the next clause to examine), running filters in pushed filter frames;
// the second pass runs finally and fault handlers inner to outer (popping
// frames as it leaves them) and then transfers to the handler (hf, hc).
type dispatch struct {
	exc     any
	rethrow bool
	second  bool

	fi, ci int
	traced int // the frame whose trace entry was last recorded

	hf, hc int // handling frame and clause; hc < 0: a filter frame's boundary

	inFrame  bool
	spc, sci int // second pass: pc in the top frame, next clause

	// abandoned are the exceptions of the handlers and dispatches this
	// one left (their frames popped, or their handlers exited): the JIT
	// keeps their trackers until the catch that handles this exception
	// returns, so they still count for the heap limit until then.
	abandoned []any
}

// abandon records, in d.abandoned, the exceptions the records from
// s.recs[from:] hold, which d's dispatch is about to drop.
func (s *state) abandon(d *dispatch, from int) {
	for i := from; i < len(s.recs); i++ {
		switch r := &s.recs[i]; r.kind {
		case recCatch:
			d.abandoned = append(d.abandoned, r.exc)
			d.abandoned = append(d.abandoned, r.kept...)
		case recDispatch:
			if r.d != d {
				d.abandoned = append(d.abandoned, r.d.exc)
				d.abandoned = append(d.abandoned, r.d.abandoned...)
			}
		}
	}
}

// throw starts dispatching exc from the top frame, whose pc is the
// throwing instruction.
func (s *state) throw(exc any, rethrow bool) error {
	if !rethrow {
		s.setTrace(exc, nil)
		if s.innerTraces != nil {
			delete(s.innerTraces, exc) // thrown anew: a new trace
		}
	}
	d := &dispatch{exc: exc, rethrow: rethrow, fi: len(s.frames) - 1, traced: -1}
	return s.runDispatch(d)
}

// runDispatch advances a dispatch until it suspends (a filter or finally
// starts running), control reaches a handler, or the exception turns out
// to be unhandled.
func (s *state) runDispatch(d *dispatch) error {
	for {
		if !d.second {
			found, err := s.firstPass(d)
			if err != nil || !found {
				return err
			}
			d.second = true
		}
		if s.secondPass(d) {
			return nil
		}
		d = s.transfer(d)
		if d == nil {
			return nil
		}
	}
}

// clauseVisible reports whether clause c can see exceptions raised in fr:
// in a filter frame only the clauses inside the filter block do, since an
// exception escaping a filter is swallowed.
func (s *state) clauseVisible(fr *frame, c *clause) bool {
	if fr.kind != fkFilter {
		return true
	}
	f := &fr.m.eh[fr.fclause]
	return c.tryStart >= f.fStart && c.tryEnd <= f.hStart
}

// firstPass searches for a handler. It returns found, or (false, nil) when
// it suspended to run a filter, or an *unhandledSignal.
func (s *state) firstPass(d *dispatch) (bool, error) {
	for ; d.fi >= 0; d.fi, d.ci = d.fi-1, 0 {
		fr := &s.frames[d.fi]
		if fr.kind == fkNative {
			continue
		}
		if d.traced != d.fi {
			first := d.traced == -1
			d.traced = d.fi
			t := s.trace(d.exc)
			if !(first && d.rethrow && len(t) > 0 && t[len(t)-1] == fr.m) {
				s.setTrace(d.exc, append(t, fr.m))
			}
		}
		cl := fr.m.eh
		for ; d.ci < len(cl); d.ci++ {
			c := &cl[d.ci]
			if !c.covers(fr.pc) || !s.clauseVisible(fr, c) {
				continue
			}
			switch c.kind {
			case il.EHCatch:
				if c.catchType == nil || isInstance(d.exc, c.catchType) {
					d.hf, d.hc = d.fi, d.ci
					return true, nil
				}
			case il.EHFilter:
				return false, s.pushFilter(d, d.fi, d.ci)
			}
		}
		if fr.kind == fkFilter {
			// The exception escapes the filter: the filter boundary
			// catches it (its finallys still run).
			d.hf, d.hc = d.fi, -1
			return true, nil
		}
	}
	return false, &unhandledSignal{exc: d.exc}
}

// pushFilter runs the filter block of clause ci of frame fi in a new frame
// that shares fi's arguments and locals.
func (s *state) pushFilter(d *dispatch, fi, ci int) error {
	owner := &s.frames[fi]
	m := owner.m
	lbase := owner.lbase
	sbase := s.topEnd()
	end := sbase + m.maxStack + 2
	if end > len(s.vals) {
		s.grow(end)
	}
	s.vals[sbase] = value{r: d.exc}
	s.frames = append(s.frames, frame{m: m, pc: m.eh[ci].fStart, sp: 1, lbase: lbase, tbase: owner.tbase, sbase: sbase,
		end: end, kind: fkFilter, fclause: ci, disp: d, depth: owner.depth, callbacks: s.topCallbacks()})
	return nil
}

// secondPass runs the next finally or fault handler between the top frame
// and the handling frame and returns true, or returns false when none is
// left (the top frame is then the handling frame).
func (s *state) secondPass(d *dispatch) bool {
	for {
		fi := len(s.frames) - 1
		fr := &s.frames[fi]
		if !d.inFrame {
			d.spc, d.sci, d.inFrame = fr.pc, 0, true
		}
		if fr.kind != fkNative {
			cl := fr.m.eh
			limit := len(cl)
			if fi == d.hf && d.hc >= 0 {
				limit = d.hc
			}
			for ; d.sci < limit; d.sci++ {
				c := &cl[d.sci]
				if (c.kind == il.EHFinally || c.kind == il.EHFault) && c.covers(d.spc) && s.clauseVisible(fr, c) {
					s.recs = append(s.recs, rec{frame: fi, kind: recDispatch, clause: d.sci, d: d})
					d.sci++
					fr.pc, fr.sp = c.hStart, 0
					return true
				}
			}
		}
		if fi == d.hf {
			return false
		}
		if d.hc >= 0 {
			k := len(s.recs)
			for k > 0 && s.recs[k-1].frame >= fi {
				k--
			}
			s.abandon(d, k)
		}
		s.popFrame()
		d.inFrame = false
	}
}

// transfer starts the handler of a dispatch whose second pass is done. For
// an exception that escaped a filter it pops the filter frame and returns
// the dispatch that ran the filter, to continue its first pass.
func (s *state) transfer(d *dispatch) *dispatch {
	fi := len(s.frames) - 1
	fr := &s.frames[fi]
	if d.hc < 0 {
		outer := fr.disp
		s.popFrame()
		outer.ci++
		return outer
	}
	c := &fr.m.eh[d.hc]
	// Handlers of this frame that the exception left are abandoned.
	k := len(s.recs)
	for k > 0 {
		r := &s.recs[k-1]
		if r.frame != fi || fr.m.eh[r.clause].inHandler(c.hStart) {
			break
		}
		k--
	}
	s.abandon(d, k)
	clear(s.recs[k:])
	s.recs = s.recs[:k]
	fr.pc, fr.sp = c.hStart, 1
	s.vals[fr.sbase] = value{r: d.exc}
	s.recs = append(s.recs, rec{frame: fi, kind: recCatch, clause: d.hc, exc: d.exc, kept: d.abandoned})
	return nil
}

// report builds the UnhandledException for exc, with its chain of inner
// exceptions. A Message overridden in managed code runs on a fresh stack;
// if it fails the stored message is used.
func (s *state) report(exc any) error {
	u := &UnhandledException{Trace: traceNames(s.trace(exc))}
	o, ok := exc.(*managedObject)
	if !ok || !o.cls.c.IsSubclassOf(s.excClass) {
		u.Type = "System.Runtime.CompilerServices.RuntimeWrappedException"
		u.Message = "An object that does not derive from System.Exception has been wrapped in a RuntimeWrappedException."
		return u
	}
	at := u
	for n := 0; ; n++ {
		at.Type = o.cls.name
		msg, err := s.reportMessage(o)
		if err != nil {
			return err
		}
		at.Message = msg
		if o = innerOf(o); o == nil || n == il.MaxInnerExceptions {
			return u
		}
		at.Inner = &UnhandledException{Trace: traceNames(s.innerTraces[o])}
		at = at.Inner
	}
}

// reportMessage returns the Message of exception o for the report of an
// unhandled exception, running a managed get_Message on a fresh stack.
func (s *state) reportMessage(o *managedObject) (string, error) {
	msg := s.excMessage(o).goString()
	mt := o.cls.vtable[s.msgSlot]
	if mt.bi != il.BuiltinNone {
		return msg, nil
	}
	for len(s.frames) > 0 {
		s.popFrame()
	}
	s.recs = s.recs[:0]
	s.hasResult = false
	err := s.callFromGo(mt, value{r: o})
	if err == nil {
		err = s.run()
	}
	if err == nil && s.hasResult {
		str, _ := s.result.r.(*managedString)
		return str.goString(), nil
	} else if err != nil && !errors.As(err, new(*unhandledSignal)) && !errors.As(err, new(*StackOverflowError)) {
		return "", err
	}
	return msg, nil
}

// trace returns the stack trace recorded for a thrown object. Objects keep
// theirs; other thrown references (unusual) use a side table.
func (s *state) trace(exc any) []*dmethod {
	if o, ok := exc.(*managedObject); ok {
		return o.trace
	}
	return s.traces[exc]
}

func (s *state) setTrace(exc any, t []*dmethod) {
	if o, ok := exc.(*managedObject); ok {
		o.trace = t
		return
	}
	if t == nil {
		delete(s.traces, exc)
	} else {
		s.traces[exc] = t
	}
}
