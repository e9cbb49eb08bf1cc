package jitrt

import (
	"fmt"
	"unsafe"

	"miniil/abi"
	"miniil/il"
)

// The GC stack walk: every location of the native stack and of the
// registers that holds a reference or an interior pointer a managed
// frame will use, found with the JIT's GC information (abi.GCInfo): the
// collector's stack roots (gc.go); the verifier (gcverify.go) checks what
// the walk reports.
//
// The walk starts at an exit, where the exit stub saved every register
// in the context, and goes outward:
//
//   - A frame suspended at a safepoint it will continue from reports the
//     safepoint's live locations: frame slots at its RBP, registers
//     where the walk knows their values are (the context at the exit, a
//     callee's save slot, a nested call's saved registers). Registers
//     move into the save slots of each main body frame passed (its
//     prolog saved its caller's callee-saved registers; funclets save
//     none), and caller-saved registers are dead in every caller.
//   - A method invocation's untracked slots (shared with its funclets,
//     and the reference words of its frame blocks) are reported once,
//     by the first of its frames the walk meets (they are at the same RBP
//     offsets in all of them), except at the main body's prolog, which
//     has not initialized them yet.
//   - A funclet's caller is the frame under it: its parent's code that
//     called it (callfinally), whose frame continues after the call; or,
//     for a funclet the exception dispatcher invoked, the frame of the
//     dispatch that runs it (its parent, at the throw or call site in
//     its try), which will never continue there: it reports its
//     untracked slots only, and the walk goes on with its callers, whose
//     callee-saved registers are in its save slots (a method with
//     handlers saves them all). A filter is the exception: the first
//     pass leaves the frames from the throw site to the filter's parent
//     where they stand, and any of them continues there if the dispatch
//     is abandoned (a finally's exception caught inward of the parent),
//     so the walk goes on from the filter to the throw site, with the
//     registers saved there, and those frames report their live values
//     as at any other exit (CoreCLR reports them too while a filter
//     runs).
//   - Where a nested call of the runtime (a base library method calling
//     managed code back) began, the walk continues at the exit it was
//     made from, with the registers saved for it.
//
// Register values that the walk cannot place (a caller-saved register
// in a caller frame, any register above a frame the dispatcher left)
// are an error if a safepoint lists them.

// gcRoot is one location a stack walk reports.
type gcRoot struct {
	p        *uint64 // the word: on the native stack, in the context, or in a nested call's saved registers
	interior bool    // an interior pointer (else a reference)
	// What reported it, for messages: the method, the safepoint's return
	// address offset (-1: none), the location, and how it was reported.
	method *il.Method
	ret    int
	loc    abi.GCLoc
	why    string
}

func (g gcRoot) String() string {
	name := "?"
	if g.method != nil {
		name = g.method.FullName()
	}
	if g.ret >= 0 {
		return fmt.Sprintf("%s (%s at return address +%#x): %s", name, g.why, g.ret, g.loc)
	}
	return fmt.Sprintf("%s (%s): %s", name, g.why, g.loc)
}

// gcWalker is the state of one stack walk.
type gcWalker struct {
	rt     *Runtime
	m      *Machine
	regs   [abi.NumRegs]*uint64 // where each register's value for the current frame is (nil: unknown)
	seen   map[uintptr]bool     // invocations (their main RBP) whose untracked slots were reported
	visit  func(gcRoot) error
	frames int
	stats  *gcWalkStats
}

// gcWalkStats counts what stack walks met, for tests.
type gcWalkStats struct {
	Frames     int // frames that reported their live locations
	Funclets   int // of which funclet frames
	Dispatched int // frames the walk reached through an exception dispatch
	Filtering  int // walks from a running filter to its exception's throw site
	Nested     int // nested runtime calls crossed
	Prestubs   int // walks that started at a method's prestub
	SavedRegs  int // registers reported from a callee's save slot
}

// calleeSaved marks the registers a managed call preserves.
var calleeSaved = [abi.NumRegs]bool{abi.RegRBX: true, abi.RegR12: true, abi.RegR13: true, abi.RegR14: true}

// walkGC reports to visit every root of the managed frames on the stack
// at an exit with the given code (see the comment above). Exits that
// are not in managed code (the entry's return, a funclet's return to
// the dispatcher) have none to report.
func (rt *Runtime) walkGC(m *Machine, code uint64, visit func(gcRoot) error, stats *gcWalkStats) error {
	if stats == nil {
		stats = &gcWalkStats{}
	}
	w := &gcWalker{rt: rt, m: m, seen: map[uintptr]bool{}, visit: visit, stats: stats}
	for n := range w.regs {
		w.regs[n] = m.word(abi.RegCtx(n))
	}
	pc, sp, bp := m.PC(), m.SP(), uintptr(m.Reg(abi.CtxRBP))
	switch code {
	case abi.ExitReturn, abi.ExitFuncletReturn, abi.ExitNone:
		return nil
	case abi.ExitCompile:
		// The prestub of the method being called: its arguments are
		// where the caller put them, then the caller is at its call.
		w.stats.Prestubs++
		if err := w.arguments(rt.methods[m.ExitArg()], sp+8); err != nil {
			return err
		}
		fallthrough
	case abi.ExitStubBuiltin:
		// A stub called by a managed call (its return address at SP).
		ret, err := w.read(sp)
		if err != nil {
			return err
		}
		pc, sp = uintptr(ret), sp+8
		w.callerSaved()
	case abi.ExitCheckpoint:
		// A frame returned to the checkpoint stub: its caller continues
		// at the real return address.
		n := len(rt.checkpoints)
		if n == 0 {
			return fmt.Errorf("a checkpoint exit without checkpoints")
		}
		pc = rt.checkpoints[n-1].ret
		w.callerSaved()
	}
	return w.walk(pc, sp, bp, len(m.outer)-1)
}

// callerSaved forgets where the caller-saved registers are: they are
// dead in a frame suspended at a managed call.
func (w *gcWalker) callerSaved() {
	for n := range w.regs {
		if !calleeSaved[n] {
			w.regs[n] = nil
		}
	}
}

// stack returns the word at native stack address a.
func (w *gcWalker) stack(a uintptr) (*uint64, error) {
	lo, hi := w.m.StackBounds()
	if a < lo || a+8 > hi || a%8 != 0 {
		return nil, fmt.Errorf("stack slot %#x outside the native stack [%#x, %#x)", a, lo, hi)
	}
	return (*uint64)(w.m.stackPtr(a)), nil
}

// read reads the word at native stack address a.
func (w *gcWalker) read(a uintptr) (uint64, error) {
	p, err := w.stack(a)
	if err != nil {
		return 0, err
	}
	return *p, nil
}

// arguments reports the arguments of method meth that are references or
// pointers, where a caller puts them: the argument registers, and the
// stack from args up (the managed convention, amd64.classify).
func (w *gcWalker) arguments(meth *il.Method, args uintptr) error {
	intRegs := [...]int{abi.RegRDI, abi.RegRSI, abi.RegRDX, abi.RegRCX, abi.RegR8, abi.RegR9}
	types := make([]*il.Type, 0, meth.NumArgs()+1)
	for i := range meth.NumArgs() {
		types = append(types, meth.ArgType(i))
	}
	if meth.Ret.Kind == il.KValue {
		types = append(types, il.ByRefOf(meth.Ret)) // the return buffer
	}
	ni, nf, ns := 0, 0, 0
	for _, t := range types {
		float := t.Kind == il.KR4 || t.Kind == il.KR8
		var loc abi.GCLoc
		var p *uint64
		switch interior := t.Kind == il.KByRef || t.Kind == il.KValue; {
		case float && nf < 8:
			nf++
			continue
		case !float && ni < len(intRegs):
			loc, p = abi.RegLoc(intRegs[ni], interior), w.regs[intRegs[ni]]
			ni++
		default:
			a := args + uintptr(8*ns)
			ns++
			var err error
			if p, err = w.stack(a); err != nil {
				return err
			}
			loc = abi.FrameLoc(int(a-(args-16)), interior) // as the callee's [RBP+16+8k]
		}
		if t.IsRef() || loc.Interior() {
			if err := w.visit(gcRoot{p: p, interior: loc.Interior(), method: meth, ret: -1, loc: loc, why: "argument at the prestub"}); err != nil {
				return err
			}
		}
	}
	return nil
}

// walk visits the frames from the one suspended at pc (with sp and bp)
// outward; when they end, it continues at the exit m.outer[next] (-1:
// none) that the native call holding them was made from.
func (w *gcWalker) walk(pc, sp, bp uintptr, next int) error {
	rt, m := w.rt, w.m
	dispatch := false // the frame will not continue at pc: its untracked slots only
	for {
		if w.frames++; w.frames > maxFrames {
			return fmt.Errorf("more than %d frames", maxFrames)
		}
		r := rt.methodAt(pc - 1)
		if r == nil {
			if next < 0 {
				return nil
			}
			o := m.outer[next]
			next--
			if o.regs == nil {
				return fmt.Errorf("a nested call's exit without saved registers")
			}
			for n := range w.regs {
				w.regs[n] = o.regs.savedReg(abi.RegCtx(n))
			}
			pc, sp, bp, dispatch = o.pc, o.sp, o.bp, false
			w.stats.Nested++
			continue
		}
		off := int(pc - r.start)
		s := r.gc.At(off)
		if s == nil {
			return fmt.Errorf("%s: no GC information at return address +%#x", r.method.FullName(), off)
		}
		mainProlog := s.Flags&abi.SPProlog != 0 && s.Funclet == 0
		if dispatch {
			w.stats.Dispatched++
		} else {
			w.stats.Frames++
			if s.Funclet > 0 {
				w.stats.Funclets++
			}
			for _, l := range r.gc.LiveAt(s) {
				if err := w.live(r, s, l, bp); err != nil {
					return err
				}
			}
		}
		if !mainProlog {
			if err := w.untracked(r, bp); err != nil {
				return err
			}
		}
		w.callerSaved()
		if s.Funclet == 0 {
			if !mainProlog {
				for _, sv := range r.gc.Saves {
					p, err := w.stack(bp + uintptr(sv.Offset))
					if err != nil {
						return err
					}
					w.regs[sv.Reg] = p
				}
			}
			ret, err := w.read(bp + 8)
			if err != nil {
				return err
			}
			caller, err := w.read(bp)
			if err != nil {
				return err
			}
			if uintptr(ret) == rt.checkpointStub {
				ret = uint64(rt.returnAddress(bp + 8))
			}
			pc, sp, bp, dispatch = uintptr(ret), bp+16, uintptr(caller), false
			continue
		}
		size := uintptr(r.funclets[s.Funclet].FrameSize)
		ret, err := w.read(sp + size + 8)
		if err != nil {
			return err
		}
		if !rt.isDispatchReturn(uintptr(ret)) {
			// Called by its parent (callfinally), which continues after the
			// call, in the same invocation (RBP): unless the funclet's frame
			// will not continue either (an exception left it for a handler
			// outside it) and no catch inside the funclet can resume it.
			// Then the parent's registers at the call may be nowhere the
			// walk knows (it came through a dispatch), and need not be.
			pc, sp = uintptr(ret), sp+size+16
			dispatch = dispatch && !r.catchesIn(int(s.Funclet))
			continue
		}
		i := rt.invokerOf(sp, len(rt.trackers))
		if i < 0 {
			return fmt.Errorf("%s: no dispatch invoked the funclet at sp %#x", r.method.FullName(), sp)
		}
		o := rt.trackers[i]
		if o.running == runFilter {
			// The first pass left every frame from the throw site to the
			// filter's parent where it stood: the walk goes on there, with
			// the registers of the throw site (the filter's code may have
			// changed the machine's), and each frame reports its live
			// values, as it will continue there if the dispatch is
			// abandoned (a finally's exception caught inward of the
			// parent).
			w.stats.Filtering++
			for n := range w.regs {
				w.regs[n] = &o.regs[n]
			}
			pc, sp, bp, dispatch = o.site.pc, o.site.sp, o.site.bp, false
			next = o.outerLen - 1
			continue
		}
		parent := o.frames[o.runFrame]
		for n := range w.regs {
			w.regs[n] = nil
		}
		pc, sp, bp, dispatch = parent.pc, parent.sp, parent.bp, true
		next = o.outerLen - 1 - parent.seg
	}
}

// live reports location l, live at safepoint s of the frame of r at bp.
func (w *gcWalker) live(r *codeRange, s *abi.Safepoint, l abi.GCLoc, bp uintptr) error {
	root := gcRoot{interior: l.Interior(), method: r.method, ret: int(s.Offset), loc: l, why: "live"}
	if l.IsReg() {
		if n := l.Reg(); n >= 0 && n < abi.NumRegs {
			root.p = w.regs[n]
		}
		if root.p == nil {
			return fmt.Errorf("%v: the register's value is nowhere the walk can find it", root)
		}
		if lo, hi := w.m.StackBounds(); uintptr(unsafe.Pointer(root.p)) >= lo && uintptr(unsafe.Pointer(root.p)) < hi {
			w.stats.SavedRegs++
		}
	} else {
		p, err := w.stack(bp + uintptr(l.Offset()))
		if err != nil {
			return fmt.Errorf("%v: %v", root, err)
		}
		root.p = p
	}
	return w.visit(root)
}

// untracked reports the untracked slots of the invocation of r whose
// frames have RBP bp, unless the walk did already.
func (w *gcWalker) untracked(r *codeRange, bp uintptr) error {
	if w.seen[bp] {
		return nil
	}
	w.seen[bp] = true
	for _, l := range r.gc.Untracked {
		root := gcRoot{interior: l.Interior(), method: r.method, ret: -1, loc: l, why: "untracked"}
		p, err := w.stack(bp + uintptr(l.Offset()))
		if err != nil {
			return fmt.Errorf("%v: %v", root, err)
		}
		root.p = p
		if err := w.visit(root); err != nil {
			return err
		}
	}
	return nil
}

// catchesIn reports whether a catch (or filter) handler of r has its try
// in funclet k: an exception caught there resumes inside the funclet.
func (r *codeRange) catchesIn(k int) bool {
	for _, c := range r.clauses {
		if c.TryFunclet == k && (c.Kind == il.EHCatch || c.Kind == il.EHFilter) {
			return true
		}
	}
	return false
}
