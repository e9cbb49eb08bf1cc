package interp

import "miniil/il"

// Static constructors. il.InitTriggered says which sites need their
// class initialized; il.TypeInit.Run (IL that the interpreter runs like
// any method) runs the .cctor once and throws the TypeInitializationException
// of a failed run. A site runs Run when the class's state is neither done
// nor running on this (the only) thread, then runs again: it then finds
// the class done or running and proceeds, or Run has thrown. A field
// site's decoded instruction becomes an oInit, which checks, then runs
// the instruction (kept aside in dmethod.initSites); the entry of a
// method whose call triggers its class is checked when its frame is
// pushed, so a failure's trace starts in that method, as on CoreCLR.

// typeInit is a type initializer as the interpreter runs it.
type typeInit struct {
	ti    *il.TypeInit
	state int32 // static slot of ti.State
	run   *dmethod
}

// typeInit returns the index in s.inits of the interpreter's form of ti.
func (s *state) typeInit(ti *il.TypeInit) int32 {
	if i, ok := s.initIdx[ti]; ok {
		return i
	}
	if s.initIdx == nil {
		s.initIdx = map[*il.TypeInit]int32{}
	}
	t := &typeInit{ti: ti, state: int32(ti.State.Slot), run: s.method(ti.Run)}
	t.run.initRun = true
	s.inits = append(s.inits, t)
	s.initIdx[ti] = int32(len(s.inits) - 1)
	return int32(len(s.inits) - 1)
}

// markTriggers records the sites of a decoded method that trigger a type
// initializer: its entry (dm.init) and its static field accesses, whose
// instructions become oInit (a: the instruction in dm.initSites, b: the
// initializer's index in s.inits).
func (s *state) markTriggers(dm *dmethod) {
	m := dm.il
	if ti := il.InitTriggered(m, nil); ti != nil {
		dm.init = s.inits[s.typeInit(ti)]
	}
	for i, in := range m.Code {
		ti := il.InitTriggered(m, in)
		if ti == nil || dm.code[i].op == oUnreachable {
			continue
		}
		dm.initSites = append(dm.initSites, dm.code[i])
		dm.code[i] = inst{op: oInit, a: int32(len(dm.initSites) - 1), b: s.typeInit(ti)}
	}
}

// mustInit reports whether a site of type initializer t must run t.run:
// the class is neither done nor being initialized (by this thread).
func (s *state) mustInit(t *typeInit) bool {
	return s.statics[t.state].n < il.InitRunning
}

// runInit pushes a frame running t.run above the top frame, whose pc is
// the triggering site: when Run returns, the site runs again (see oRet).
func (s *state) runInit(t *typeInit) error {
	return s.pushFrame(t.run, s.topEnd())
}

// enterInit runs, when the top frame has just been pushed for a method
// whose entry triggers a type initializer that must run, that
// initializer first, in a frame above it.
func (s *state) enterInit() error {
	fr := &s.frames[len(s.frames)-1]
	if t := fr.m.init; t != nil && s.mustInit(t) {
		// Before the first instruction, where no clause of the method
		// covers the check (CoreCLR makes it in the prolog); the return
		// of Run sets pc to 0.
		fr.pc = -1
		return s.runInit(t)
	}
	return nil
}

// runModuleInit runs the module initializer (a global .cctor), if any,
// before the first method a run calls: CoreCLR runs it when the module
// loads, so a failure's TypeInitializationException has no frames.
func (s *state) runModuleInit() error {
	ti := s.mod.Init
	if ti == nil {
		return nil
	}
	if err := s.callFromGo(s.inits[s.typeInit(ti)].run); err != nil {
		return err
	}
	return s.run()
}

// keepInnerTrace records, when a TypeInitializationException is made with
// inner exception exc inside the catch handler that caught exc, the
// frames exc was thrown through (from its throw to that handler), for the
// report of an unhandled exception: CoreCLR prints them for the inner
// exception of a failed type initializer (the .cctor's frames). Other
// inner exceptions are reported without frames.
func (s *state) keepInnerTrace(exc any) {
	if exc == nil {
		return
	}
	for k := len(s.recs) - 1; k >= 0; k-- {
		if r := &s.recs[k]; r.kind == recCatch && r.exc == exc {
			if s.innerTraces == nil {
				s.innerTraces = map[any][]*dmethod{}
			}
			s.innerTraces[exc] = append([]*dmethod(nil), s.trace(exc)...)
			return
		}
	}
}

// traceNames returns the names of a trace's frames, without the hidden
// methods (il.TypeInit.Run).
func traceNames(t []*dmethod) []string {
	var names []string
	for _, m := range t {
		if !m.il.Hidden {
			names = append(names, m.traceName())
		}
	}
	return names
}
