package jitrt

import (
	"miniil/abi"
	"miniil/il"
)

// Static constructors. il.InitTriggered says which sites need their class
// initialized, and the code generator tests the class's state there
// (unless the class was initialized when the method was compiled) and
// calls il.TypeInit.Run, IL compiled like any method, which runs the
// .cctor once and throws the TypeInitializationException of a failed run.
// The runtime only runs the module initializer, reports whether a class
// is initialized, and keeps the frames of a failed .cctor's exception for
// the report of an unhandled TypeInitializationException.

// innerTrace is the trace of an inner exception (see keepInnerTrace).
type innerTrace struct {
	trace []traceSite
}

// traceSite is one frame of a stack trace: the method whose code holds
// the call or throw site and the site's IL offset (-1: unknown); when
// the site is in code the compiler inlined, the inlined calls (the
// method's abi.Method.Inlines) and the one it is in, each shown as a
// frame of its own (see visibleTrace).
type traceSite struct {
	method  *il.Method
	ilOff   int
	inlines []abi.InlineSite
	inline  int32
}

// Initialized reports whether type initializer ti has run to its end (a
// class whose state is il.InitDone stays so: code compiled from then on
// needs no check).
func (rt *Runtime) Initialized(ti *il.TypeInit) bool {
	return rt.u64(rt.StaticAddr(ti.State)) == il.InitDone
}

// runModuleInit runs the module initializer (a global .cctor), if any,
// before the first method a run calls, as CoreCLR runs it when the module
// loads: a failure's TypeInitializationException has no frames.
func (rt *Runtime) runModuleInit() error {
	ti := rt.mod.Init
	if ti == nil {
		return nil
	}
	rt.startDepth()
	_, err := rt.mach.Call(rt.ctx, rt.cells.Get(ti.Run.Index), nil, rt.handle)
	rt.syncPlans()
	return err
}

// keepInnerTrace records, when a TypeInitializationException is made with
// inner exception exc inside the catch handler that caught exc, the
// frames exc was thrown through (from its throw to that handler), for the
// report of an unhandled exception: CoreCLR prints them for the inner
// exception of a failed type initializer (the .cctor's frames). Other
// inner exceptions are reported without frames.
func (rt *Runtime) keepInnerTrace(exc uintptr) {
	if exc == 0 {
		return
	}
	rt.syncPlans()
	for i := len(rt.trackers) - 1; i >= 0; i-- {
		if t := rt.trackers[i]; t.running == runCatch && t.exc == exc {
			if rt.innerTraces == nil {
				rt.innerTraces = map[uintptr]innerTrace{}
			}
			rt.innerTraces[exc] = innerTrace{traceSites(t.trace)}
			return
		}
	}
}

// visibleTrace returns the names and IL offsets of a trace's frames,
// without the hidden methods (il.TypeInit.Run). A site in inlined code
// stands for a frame of each inlined call around it, innermost first,
// as the trace would show had the calls been made: the inlined method at
// the site's IL offset, then each caller at the IL offset of its call.
func visibleTrace(trace []traceSite) ([]string, []int) {
	names, offs := make([]string, 0, len(trace)), make([]int, 0, len(trace))
	add := func(m *il.Method, off int) {
		if !m.Hidden {
			names = append(names, m.TraceName())
			offs = append(offs, off)
		}
	}
	for _, s := range trace {
		off := s.ilOff
		for k := s.inline; k > 0; k = s.inlines[k-1].Parent {
			add(s.inlines[k-1].Method, off)
			off = s.inlines[k-1].ILOffset
		}
		add(s.method, off)
	}
	return names, offs
}
