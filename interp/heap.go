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
// The roots are what the interpreter holds for the program: each frame's
// arguments, locals and evaluation stack (below its sp: the run loop
// stores sp in the frame before anything that may allocate) and the
// object a newobj frame constructs; the statics (which hold the
// TypeInitializationException of a failed static constructor); the
// exceptions the handlers in progress hold (a catch's, those a filter or
// finally of a dispatch runs for); the native frames' values; and what a
// base library method holds in Go while it allocates: its arguments
// (s.args) and the new objects it has not stored anywhere yet (s.held).
// An object counts once however many references reach it. A frame's
// arguments and locals count until it returns, read again or not: the
// JIT's collector, which follows liveness, may count fewer.
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
		s.heapUsed = s.liveBytes()
		if n > s.heapLimit-s.heapUsed {
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
	k := &s.mark
	k.epoch++
	if k.epoch == 0 { // wrapped: 0 is no mark's
		k.epoch = 1
	}
	k.live, k.oom = 0, s.oom
	s.markRoots(k)
	for len(k.work) > 0 {
		r := k.work[len(k.work)-1]
		k.work[len(k.work)-1] = nil
		k.work = k.work[:len(k.work)-1]
		k.follow(r)
	}
	return k.live
}

// markRoots marks the references the interpreter holds for the program.
func (s *state) markRoots(k *marker) {
	for i := range s.frames {
		fr := &s.frames[i]
		if fr.kind == fkNative {
			k.ref(fr.nat)
			continue
		}
		k.values(s.vals[fr.lbase : fr.lbase+fr.m.nvars])
		k.values(s.vals[fr.sbase : fr.sbase+fr.sp])
		k.ref(fr.newobj)
		if fr.disp != nil {
			k.ref(fr.disp.exc)
		}
	}
	for i := range s.recs {
		r := &s.recs[i]
		k.ref(r.exc)
		if r.d != nil {
			k.ref(r.d.exc)
		}
	}
	k.values(s.statics)
	k.values(s.args)
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
		for _, v := range o.vals {
			k.ref(v)
		}
		for _, str := range o.strs {
			if str != nil {
				k.ref(str)
			}
		}
		if o.arr != nil {
			k.ref(o.arr)
		}
		for _, str := range o.parts {
			if str != nil {
				k.ref(str)
			}
		}
		for i := range o.eq {
			if w := &o.eq[i]; w.xv != nil && w.yv != nil {
				k.ref(w.xv)
				k.ref(w.yv)
			}
		}
	}
}
