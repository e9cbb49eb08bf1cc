package interp

import "miniil/il"

// The heap limit. An allocation of n bytes throws OutOfMemoryException
// exactly when the bytes of the objects reachable at that moment plus n
// exceed the limit: the rule of the JIT, whose collector frees the rest.
// Objects are sized as the JIT lays them out (il.ObjectSize, il.StringSize,
// il.ArraySize, il.BoxSize, il.BoxSizeOf); what the JIT does not allocate
// on its heap (interned string literals, type names, default messages,
// the preallocated OutOfMemoryException) is not charged, so not counted.
//
// heapUsed is an upper bound of the live bytes: every charge adds to it,
// and nothing is subtracted when objects become garbage (Go's collector
// frees them). Only when a charge would pass the limit does the
// interpreter count what is live, with a mark from its roots (liveBytes),
// and make that the new bound.
//
// The roots are what the JIT's collector finds, which the interpreter
// holds for the program (markRoots): each frame's arguments, locals and
// evaluation stack where the JIT's GC information reports them live
// (live.go), and the JIT's temporaries of value types (temps.go); the
// object a newobj frame constructs if its caller reads it; the statics
// (which hold the TypeInitializationException of a failed static
// constructor); the exceptions the JIT's dispatch trackers hold (a
// catch's until it returns, those a filter or finally of a dispatch runs
// for, those a newer dispatch abandoned until its catch returns); what
// the native frames' Go code holds (the strings made so far; its
// arguments too while no managed call it made runs); and what a base
// library method holds in Go while it allocates: its arguments (s.args)
// and the new objects it has not stored anywhere yet (s.held), and the
// strings Call passed. An object counts once however many references
// reach it.
//
// The mark reads the r of every value it meets, so a value of a
// primitive type must have r nil, wherever it sits: instructions that
// produce one in a slot that held a reference write the whole value
// (ldc, ldlen, ceq of references...), and every other value is copied
// whole from one that obeys the rule.

// charge counts an allocation of n bytes against the heap limit; false
// means it does not fit (nothing is counted then).
func (s *state) charge(n int64) bool {
	if n > s.heapLimit-s.heapUsed {
		live, bound := s.liveCount()
		s.heapUsed = bound
		if n > s.heapLimit-live {
			return false
		}
	}
	s.heapUsed += n
	return true
}

// chargeStr charges a new string to the heap and records that it was
// charged (false: it does not fit).
func (s *state) chargeStr(str *managedString) bool {
	if !s.charge(il.StringSize(len(str.u))) {
		return false
	}
	str.charged = true
	return true
}

// hold keeps r, a new object a base library method holds only in Go, as a
// root until release(mark) with the mark it returns.
func (s *state) hold(r any) int {
	mark := len(s.held)
	s.held = append(s.held, r)
	return mark
}

// release ends the holds since mark.
func (s *state) release(mark int) {
	clear(s.held[mark:])
	s.held = s.held[:mark]
}

// marker is the state of a mark: its number (an object's mark field
// equal to it says the mark has reached the object), the objects reached
// whose references are still to be followed, the bytes counted.
type marker struct {
	epoch uint32
	work  []any
	live  int64
	oom   *managedObject // not charged
}

// ref marks what r references, counting it unless it was reached already
// or not charged, and queues the objects it references in turn.
func (k *marker) ref(r any) {
	switch o := r.(type) {
	case *managedObject:
		if o == nil || o.mark == k.epoch {
			return
		}
		o.mark = k.epoch
		if o != k.oom {
			k.live += il.ObjectSize(o.cls.c.NumFields)
		}
	case *managedString:
		if o != nil && o.mark != k.epoch {
			o.mark = k.epoch
			if o.charged {
				k.live += il.StringSize(len(o.u))
			}
		}
		return
	case *managedArray:
		if o == nil || o.mark == k.epoch {
			return
		}
		o.mark = k.epoch
		k.live += il.ArraySize(o.elem, int64(o.length()))
		if o.r == nil && o.w == nil {
			return
		}
	case *boxedValue:
		if o != nil && o.mark != k.epoch {
			o.mark = k.epoch
			k.live += il.BoxSize
		}
		return
	case *svalue:
		if o == nil || o.mark == k.epoch {
			return
		}
		o.mark = k.epoch
		if o.boxed {
			t := il.Type{Kind: il.KValue, Name: o.cls.Name, Class: o.cls}
			k.live += il.BoxSizeOf(&t)
		}
	case *sbBuffer:
		// The char[] of the JIT's builder, which only its builder holds:
		// every buffer a constructor or a growth makes has a capacity.
		if o != nil && cap(o.u) > 0 {
			k.live += il.ArraySize(il.Char, int64(cap(o.u)))
		}
		return
	case *native:
		if o == nil {
			return
		}
	default:
		// nil, or a storage of the interpreter's own that a managed
		// pointer names (the frames' variables, the statics): roots.
		return
	}
	k.work = append(k.work, r)
}

func (k *marker) values(vs []value) {
	for i := range vs {
		if r := vs[i].r; r != nil {
			k.ref(r)
		}
	}
}

// liveBytes returns the bytes of the charged objects reachable from the
// roots, in time linear in what is reachable.
func (s *state) liveBytes() int64 {
	live, _ := s.liveCount()
	return live
}

// liveCount returns the bytes of the charged objects reachable from the
// roots, and a bound of what later counts can find of them: that and
// what the arguments of the native frames waiting for managed calls
// reach. They do not count while those calls run, but will when the
// base library methods go on (the JIT frees nothing meanwhile: it does
// not collect while its Go code waits for a managed call).
func (s *state) liveCount() (live, bound int64) {
	k := &s.mark
	k.epoch++
	if k.epoch == 0 { // wrapped: 0 is no mark's
		k.epoch = 1
	}
	k.live, k.oom = 0, s.oom
	s.markRoots(k)
	k.drain()
	live = k.live
	for i := range s.frames {
		if fr := &s.frames[i]; fr.kind == fkNative {
			k.native(fr.nat, true)
		}
	}
	k.drain()
	return live, k.live
}

// drain follows the references of the objects marked so far.
func (k *marker) drain() {
	for len(k.work) > 0 {
		r := k.work[len(k.work)-1]
		k.work[len(k.work)-1] = nil
		k.work = k.work[:len(k.work)-1]
		k.follow(r)
	}
}

// markRoots marks the references the interpreter holds for the program.
func (s *state) markRoots(k *marker) {
	s.markFrames(k)
	for i := range s.recs {
		switch r := &s.recs[i]; r.kind {
		case recCatch:
			if !s.catchReturned(i) {
				k.ref(r.exc)
				k.anys(r.kept)
			}
		case recDispatch:
			k.ref(r.d.exc)
			k.anys(r.d.abandoned)
		}
	}
	k.values(s.statics)
	k.values(s.args)
	k.anys(s.goArgs)
	for _, r := range s.held {
		k.ref(r)
	}
}

// follow marks the references of r, a marked object that has some.
func (k *marker) follow(r any) {
	switch o := r.(type) {
	case *managedObject:
		k.values(o.f)
	case *managedArray:
		for _, e := range o.r {
			if e != nil {
				k.ref(e)
			}
		}
		k.values(o.w)
	case *svalue:
		k.values(o.w)
	case *native:
		k.native(o, true)
	}
}

// native marks what a native frame holds for the heap limit, as the
// JIT's Go code for the same method holds it: the strings made so far
// (rt.hold), and, while it runs (no managed call above it), the base
// library method's arguments. While a managed call it made runs, the
// JIT counts no argument of the method: that call's own (its this, the
// pair an Equals override compares) count as its frame's arguments do.
func (k *marker) native(n *native, running bool) {
	switch n.op {
	case natConcat:
		k.strings(n.strs[:n.i])
		if running {
			k.anys(n.vals[:n.n])
		}
	case natConcatArray:
		k.strings(n.parts[:n.i])
		if running && n.arr != nil {
			k.ref(n.arr)
		}
	case natExcToString:
		k.strings(n.strs[:n.i]) // the Message, then the inner exception's ToString
		if running {
			k.ref(n.vals[0])
		}
	case natAppend:
		k.strings(n.strs[:n.i])
		if running {
			k.anys(n.vals[:2])
		}
	case natWrite:
		if running {
			k.ref(n.vals[0])
		}
	case natValueEquals:
		if running && len(n.eq) > 0 {
			k.ref(n.eq[0].xv)
			k.ref(n.eq[0].yv)
		}
	}
}

func (k *marker) strings(ss []*managedString) {
	for _, str := range ss {
		if str != nil {
			k.ref(str)
		}
	}
}

func (k *marker) anys(rs []any) {
	for _, r := range rs {
		k.ref(r)
	}
}

// markFrames marks what the frames hold that is live (live.go).
func (s *state) markFrames(k *marker) {
	ri := 0                  // the records of the handlers running in the frame
	running := len(s.frames) // the native frames from there up run (no managed frame above)
	for running > 0 && s.frames[running-1].kind == fkNative {
		running--
	}
	for i := range s.frames {
		fr := &s.frames[i]
		if fr.kind == fkNative {
			k.native(fr.nat, i >= running)
			continue
		}
		if fr.disp != nil {
			k.ref(fr.disp.exc)
			k.anys(fr.disp.abandoned)
		}
		l := s.liveness(fr.m)
		at, pc := fr.at, fr.pc
		if pc < 0 { // at the entry, a type initializer first
			at, pc = atBefore, 0
		}
		set := s.liveSet(l.nw, 0)
		switch at {
		case atCall, atAlloc:
			l.after(pc, set)
		case atBefore:
			l.after(pc, set)
			l.transfer(pc, set)
		default:
			clear(set)
		}
		for ; ri < len(s.recs) && s.recs[ri].frame <= i; ri++ {
			// A finally that a leave runs: the frame continues at the
			// leave's target after it.
			if r := &s.recs[ri]; r.frame == i && r.kind == recLeave && at != atThrow {
				in := s.liveSet(l.nw, 1)
				t := fr.m.leaves[r.leave].target
				l.after(t, in)
				l.transfer(t, in)
				for w := range set {
					set[w] |= in[w]
				}
			}
		}
		if fr.kind == fkManaged {
			k.values(s.vals[fr.tbase : fr.tbase+fr.m.ntemps]) // untracked
		}
		vars := s.vals[fr.lbase : fr.lbase+fr.m.nvars]
		for v := range vars {
			if r := vars[v].r; r != nil && (l.always[v] || has(set, v)) {
				k.ref(r)
			}
		}
		stk := s.vals[fr.sbase : fr.sbase+fr.sp]
		operands := len(stk) // the first operand the instruction still reads
		if at == atAlloc {
			operands = int(l.steps[pc].in - l.steps[pc].pops)
		}
		for d := range stk {
			r := stk[d].r
			if r == nil {
				continue
			}
			if d >= operands || has(set, l.nvars+d) || isValue(r) {
				k.ref(r)
			}
		}
		// The object a newobj constructs, while the constructor runs:
		// live if the newobj's result is (a value is in a frame block).
		if i+1 < len(s.frames) {
			if obj := s.frames[i+1].newobj; obj != nil && (isValue(obj) || at != atThrow && has(set, l.nvars+fr.sp)) {
				k.ref(obj)
			}
		}
	}
}

// isValue reports whether r is a value of a value type (not a boxed one):
// the JIT keeps those in frame blocks, which it always reports.
func isValue(r any) bool {
	sv, ok := r.(*svalue)
	return ok && !sv.boxed
}

// liveSet returns scratch set k (0 or 1) of nw words.
func (s *state) liveSet(nw, k int) []uint64 {
	if cap(s.liveBufs[k]) < nw {
		s.liveBufs[k] = make([]uint64, nw)
	}
	return s.liveBufs[k][:nw]
}

// catchReturned reports whether the catch handler of record j (recCatch)
// has returned for the JIT, which ends its tracker there: a leave out of
// it is running a finally outside it (the interpreter keeps the record
// until the leave's finallys have run, for a rethrow in one nested in
// the catch).
func (s *state) catchReturned(j int) bool {
	rc := &s.recs[j]
	m := s.frames[rc.frame].m
	c := &m.eh[rc.clause]
	for i := j + 1; i < len(s.recs) && s.recs[i].frame == rc.frame; i++ {
		r := &s.recs[i]
		if r.kind != recLeave {
			continue
		}
		li := &m.leaves[r.leave]
		if c.inHandler(li.from) && !c.inHandler(li.target) && !c.inHandler(m.eh[r.clause].tryStart) {
			return true
		}
	}
	return false
}
