package jitrt

import (
	"errors"
	"fmt"
	"math/bits"

	"miniil/abi"
	"miniil/il"
)

// Checking the heap: an index of object starts (the heap parsed object
// after object: an object's size follows from its method table), used
// by the GC information verifier at every exit and by the heap verifier
// after every collection (Options.VerifyHeap, on under GC stress). The
// heap verifier checks that
//
//   - both generations parse: every object starts with a method table of
//     the runtime, and the objects tile the used ranges exactly;
//   - every reference slot of every object, every root reference and
//     every static is null or the start of an object of the heap or of
//     the metadata arena;
//   - every root interior pointer points into an object, the native
//     stack or the statics;
//   - no forwarding address is left in the nursery's objects, and every
//     old-to-young reference has its card set (the nursery is empty
//     after a collection, so none may exist then).

// objIndex marks the words of the heap that start an object. It parses
// the generations incrementally as they grow, and from scratch after a
// collection moved things.
type objIndex struct {
	h      *gcHeap
	starts []uint64 // a bit per word of [h.base, h.end), as far as parsed
	epoch  int      // collections when last parsed
	nurLo  uintptr
	nurTo  uintptr // nursery parsed up to
	oldTo  uintptr // old generation parsed up to
}

func newObjIndex(h *gcHeap) *objIndex {
	x := &objIndex{h: h, epoch: -1}
	return x
}

// update parses what was allocated since the last update.
func (x *objIndex) update() error {
	h := x.h
	if e := h.stats.Minor + h.stats.Full; e != x.epoch || x.nurLo != h.nurLo {
		clear(x.starts)
		x.epoch, x.nurLo = e, h.nurLo
		x.nurTo, x.oldTo = h.nurLo+8, h.oldLo
	}
	if need := int((h.oldTop-h.base)/8/64 + 1); need > len(x.starts) {
		x.starts = append(x.starts, make([]uint64, need-len(x.starts))...)
	}
	var err error
	if x.nurTo, err = x.parse(x.nurTo, uintptr(*h.top)); err != nil {
		return fmt.Errorf("the nursery: %w", err)
	}
	if x.oldTo, err = x.parse(x.oldTo, h.oldTop); err != nil {
		return fmt.Errorf("the old generation: %w", err)
	}
	return nil
}

// parse marks the objects of [p, end) and returns where it stopped.
func (x *objIndex) parse(p, end uintptr) (uintptr, error) {
	for p < end {
		n, err := x.size(p)
		if err != nil {
			return p, fmt.Errorf("the heap does not parse at %#x: %w", p, err)
		}
		if p+n > end {
			return p, fmt.Errorf("the object at %#x (%d bytes) passes the end of its generation at %#x", p, n, end)
		}
		w := (p - x.h.base) / 8
		x.starts[w/64] |= 1 << (w % 64)
		p += n
	}
	return p, nil
}

// size returns the size of the object at p (heap or metadata arena), from
// its method table, or why there is no object.
func (x *objIndex) size(p uintptr) (uintptr, error) {
	rt := x.h.rt
	mt := uintptr(rt.u64(p))
	if mt&1 != 0 {
		return 0, fmt.Errorf("a forwarding address (%#x) left behind", mt&^1)
	}
	if mt%8 != 0 || !rt.meta.contains(mt, abi.MTVTable) {
		return 0, fmt.Errorf("no method table at its start (%#x)", mt)
	}
	id := rt.u64(mt + abi.MTTypeID)
	if id >= uint64(len(rt.types)) || rt.types[id].mt != mt {
		return 0, fmt.Errorf("%#x is no method table", mt)
	}
	t := rt.types[id]
	if t.kind > tkBox {
		return 0, fmt.Errorf("a type of unknown kind %d", t.kind)
	}
	if t.kind == tkBox {
		return uintptr(il.BoxSize), nil
	}
	return x.h.objSize(p, t), nil
}

// inHeap reports whether x lies in the parsed part of a generation.
func (x *objIndex) inHeap(p uintptr) bool {
	return (p >= x.nurLo && p < x.nurTo) || (p >= x.h.oldLo && p < x.oldTo)
}

// isObject reports whether p, in the heap, starts an object.
func (x *objIndex) isObject(p uintptr) bool {
	w := (p - x.h.base) / 8
	return p%8 == 0 && x.inHeap(p) && x.starts[w/64]&(1<<(w%64)) != 0
}

// objectContaining returns the start of the object p, in the heap,
// points into.
func (x *objIndex) objectContaining(p uintptr) (uintptr, bool) {
	lo := x.h.oldLo
	if p < lo {
		lo = x.nurLo
	}
	w := (p - x.h.base) / 8
	i := int(w / 64)
	word := x.starts[i] & (^uint64(0) >> (63 - w%64)) // bits 0..w%64
	for {
		if word != 0 {
			s := x.h.base + 8*(uintptr(i)*64+uintptr(bits.Len64(word)-1))
			if s < lo {
				return 0, false
			}
			n, err := x.size(s)
			return s, err == nil && p < s+n
		}
		if i--; i < 0 || x.h.base+uintptr(i+1)*512 <= lo {
			return 0, false
		}
		word = x.starts[i]
	}
}

// verifyHeap checks the heap and the roots after a collection.
func (rt *Runtime) verifyHeap(rs *rootSet) error {
	h := rt.gc
	x := newObjIndex(h)
	if err := x.update(); err != nil {
		return err
	}
	meta := map[uintptr]bool{rt.oom: true}
	for _, p := range rt.strs {
		meta[p] = true
	}
	ref := func(v uintptr) bool { return v == 0 || x.isObject(v) || meta[v] }
	var errs []error
	report := func(format string, args ...any) {
		if len(errs) < 10 {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	for _, p := range rs.refs {
		if v := uintptr(*p); !ref(v) {
			report("a root (%s) holds %#x, which is neither null nor an object", rs.what[p], v)
		}
	}
	for _, p := range rs.interiors {
		v := uintptr(*p)
		if v == 0 || !x.inHeap(v) {
			continue // the stack, the statics, the metadata arena: not moved
		}
		if _, ok := x.objectContaining(v); !ok {
			report("a root interior pointer (%s) holds %#x, which points into no object", rs.what[p], v)
		}
	}
	check := func(lo, hi uintptr) {
		for p := lo; p < hi; {
			t := h.typeAt(p)
			n := h.objSize(p, t)
			h.eachRef(p, t, p, p+n, func(slot uintptr) {
				v := uintptr(h.word(slot))
				switch {
				case !ref(v):
					report("%s at %#x: the reference at +%#x holds %#x, which is neither null nor an object", t.name, p, slot-p, v)
				case h.inYoung(v) && h.inOld(slot) && h.cards[(slot-h.base)>>cardShift] == 0:
					report("%s at %#x: the old-to-young reference at +%#x has a clean card", t.name, p, slot-p)
				}
			})
			p += n
		}
	}
	check(h.nurLo+8, uintptr(*h.top))
	check(h.oldLo, h.oldTop)
	if h.oldTop-h.oldLo > h.oldHi-h.oldLo {
		report("the old generation's top %#x passes its end %#x", h.oldTop, h.oldHi)
	}
	return errors.Join(errs...)
}
