package jitrt

import (
	"fmt"
	"math/bits"
	"sort"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"miniil/abi"
)

// The collector: generational, precise, stop-the-world (there is one
// thread).
//
// A nursery collection copies every object reachable from the roots and
// from the old generation's dirty cards out of the nursery, to the end of
// the old generation (Cheney's algorithm, the promoted objects being the
// queue), leaves a forwarding address (the new address with bit 0 set)
// in each copied object's method table word, and empties the nursery.
//
// A full collection first empties the nursery that way, then marks the
// old generation from the roots, a bit per word of every live object,
// and slides the live objects down. Because every word of a live object
// is marked, the new address of any word of it, an interior pointer as
// well as an object start, is the old generation's base plus the number
// of live words below it: a running count per 64-word chunk plus a
// popcount in the chunk's bitmap word. The update of references and the
// move are one pass in address order.
//
// Roots (rootSet): the stack walk of gcwalk.go (references and interior
// pointers of managed frames, in frame slots, saved registers and the
// context), the statics' reference words, the exception objects of the
// dispatcher's trackers, the fields of the preallocated
// OutOfMemoryException, the objects Go code holds (rt.hold: Call's string
// arguments), and extra words the runtime holds at the safepoint (a base
// library method's result). Go code that holds object
// addresses across a nested call of managed code raises gcHeap.noGC: no
// collection runs until it returns (allocations then go to the old
// generation and ask for a collection at the next safepoint).

// rootSet is the roots of one collection: words that hold references and
// words that hold interior pointers.
type rootSet struct {
	refs, interiors []*uint64
	// what says what each root is, for the heap verifier's messages
	// (made only when it runs).
	what map[*uint64]string
}

// gatherRoots finds the roots at an exit with the given code.
func (rt *Runtime) gatherRoots(m *Machine, code uint64, extra []*uint64) (*rootSet, error) {
	rt.syncPlans()
	rs := &rootSet{}
	if rt.gcVerifyHeap {
		rs.what = map[*uint64]string{}
	}
	err := rt.walkGC(m, code, func(r gcRoot) error {
		if rs.what != nil {
			rs.what[r.p] = r.String()
		}
		if r.interior {
			rs.interiors = append(rs.interiors, r.p)
		} else {
			rs.refs = append(rs.refs, r.p)
		}
		return nil
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("jitrt: finding the roots at the %s exit (pc %#x): %w", abi.ExitName(int(code)), m.PC(), err)
	}
	for _, p := range rt.staticRefs {
		rs.refs = append(rs.refs, rt.wordPtr(p))
	}
	for _, t := range rt.trackers {
		rs.refs = append(rs.refs, (*uint64)(unsafe.Pointer(&t.exc)))
		if t.plan {
			rs.refs = append(rs.refs, rt.planExc(t))
		}
	}
	// Objects Go code holds (rt.hold) across a collection: Runtime.Call's
	// string arguments during the whole call.
	for i := range rt.gc.held {
		rs.refs = append(rs.refs, (*uint64)(unsafe.Pointer(&rt.gc.held[i])))
	}
	if rs.what != nil {
		for _, p := range rt.staticRefs {
			rs.what[rt.wordPtr(p)] = fmt.Sprintf("static at %#x", p)
		}
		for i, t := range rt.trackers {
			rs.what[(*uint64)(unsafe.Pointer(&t.exc))] = fmt.Sprintf("exception of tracker %d", i)
			if t.plan {
				rs.what[rt.planExc(t)] = fmt.Sprintf("exception in the catch record of tracker %d's plan", i)
			}
		}
		for _, p := range extra {
			rs.what[p] = "a word the runtime holds (a base library result)"
		}
	}
	for _, off := range rt.classMT[rt.mod.Class("System.OutOfMemoryException")].refs {
		rs.refs = append(rs.refs, rt.wordPtr(rt.oom+off))
	}
	rs.refs = append(rs.refs, extra...)
	// A word reported twice would be moved twice by a full collection.
	rs.refs, rs.interiors = uniqueWords(rs.refs), uniqueWords(rs.interiors)
	return rs, nil
}

// uniqueWords sorts ps by address and drops repeats.
func uniqueWords(ps []*uint64) []*uint64 {
	sort.Slice(ps, func(i, j int) bool { return uintptr(unsafe.Pointer(ps[i])) < uintptr(unsafe.Pointer(ps[j])) })
	out := ps[:0]
	for i, p := range ps {
		if i == 0 || p != ps[i-1] {
			out = append(out, p)
		}
	}
	return out
}

// wordPtr returns a pointer to the managed memory word at p.
func (rt *Runtime) wordPtr(p uintptr) *uint64 {
	return (*uint64)(unsafe.Pointer(&rt.bytes(p, 8)[0]))
}

// safepoint runs a collection if one is due: asked for by an allocation
// that could not run one, or by GC stress. code is the exit the machine
// stands at; extra are words the runtime holds (references).
func (rt *Runtime) safepoint(m *Machine, code uint64, extra ...*uint64) error {
	h := rt.gc
	if h.noGC > 0 {
		return nil
	}
	full := false
	switch {
	case h.stressDue():
		h.stats.StressCollections++
		full = h.stats.StressCollections%4 == 0
	case h.pending:
	default:
		return nil
	}
	return rt.collect(m, code, extra, full, 0)
}

// mayCollect reports cheaply whether a safepoint may collect now.
func (h *gcHeap) mayCollect() bool {
	return h.noGC == 0 && (h.pending || h.stressEvery > 0)
}

// stressDue counts a safepoint under GC stress and reports whether it
// collects.
func (h *gcHeap) stressDue() bool {
	if h.stressEvery <= 0 {
		return false
	}
	h.stressCount++
	if h.stressCount < h.stressEvery {
		return false
	}
	h.stressCount = 0
	return true
}

// collect empties the nursery, then runs a full collection if asked, if
// the old generation has grown to its trigger, or if need more bytes
// would not fit under the heap limit.
func (rt *Runtime) collect(m *Machine, code uint64, extra []*uint64, full bool, need uintptr) error {
	h := rt.gc
	rs, err := rt.gatherRoots(m, code, extra)
	if err != nil {
		return err
	}
	h.pending = false
	h.minor(rs)
	if full || h.oldTop-h.oldLo >= h.fullAt || h.oldTop-h.oldLo+need > h.limit {
		h.full(rs)
	}
	h.setNurseryLimit()
	if rt.gcVerifyHeap {
		if err := rt.verifyHeap(rs); err != nil {
			return fmt.Errorf("jitrt: heap verification after a collection at the %s exit (pc %#x): %w", abi.ExitName(int(code)), m.PC(), err)
		}
		h.stats.Verified++
	}
	return nil
}

// minor empties the nursery into the old generation.
func (h *gcHeap) minor(rs *rootSet) {
	start := time.Now()
	scan := h.oldTop
	top := uintptr(*h.top)
	// Interior pointers into the nursery: find their objects before any
	// is overwritten by a forwarding address.
	var starts []uintptr
	for _, p := range rs.interiors {
		if v := uintptr(*p); h.inYoung(v) && starts == nil {
			starts = h.nurseryStarts(top)
		}
	}
	for _, p := range rs.refs {
		if v := uintptr(*p); v != 0 && h.inYoung(v) {
			*p = uint64(h.evacuate(v))
		}
	}
	for _, p := range rs.interiors {
		v := uintptr(*p)
		if !h.inYoung(v) {
			continue
		}
		k := sort.Search(len(starts), func(i int) bool { return starts[i] > v }) - 1
		s := starts[k]
		*p = uint64(h.evacuate(s) + (v - s))
	}
	h.scanCards(scan)
	for scan < h.oldTop {
		t := h.typeAt(scan)
		n := h.objSize(scan, t)
		h.eachRef(scan, t, scan, scan+n, h.fixYoung)
		scan += n
	}
	h.rekeyInnerTraces(func(p uintptr) uintptr {
		if h.inYoung(p) {
			if mt := h.word(p); mt&1 != 0 {
				return uintptr(mt &^ 1)
			}
			return 0 // dead
		}
		return p
	})
	h.resetNursery(top)
	d := time.Since(start).Nanoseconds()
	h.stats.Minor++
	h.stats.MinorNanos += d
	h.stats.MinorMaxNanos = max(h.stats.MinorMaxNanos, d)
}

// fixYoung evacuates the nursery object a heap slot refers to, if any,
// and updates the slot.
func (h *gcHeap) fixYoung(slot uintptr) {
	if v := uintptr(h.word(slot)); v != 0 && h.inYoung(v) {
		h.setWord(slot, uint64(h.evacuate(v)))
	}
}

// evacuate copies nursery object p to the old generation once and
// returns its new address.
func (h *gcHeap) evacuate(p uintptr) uintptr {
	mt := h.word(p)
	if mt&1 != 0 {
		return uintptr(mt &^ 1)
	}
	t := h.typeOfMT(uintptr(mt))
	n := h.objSize(p, t)
	q := h.bumpOld(n)
	copy(h.mem[q-h.base:q-h.base+n], h.mem[p-h.base:p-h.base+n])
	h.setWord(p, uint64(q)|1)
	h.stats.SurvivedBytes += int64(n)
	return q
}

// nurseryStarts returns the starts of the nursery's objects, in order.
func (h *gcHeap) nurseryStarts(top uintptr) []uintptr {
	var starts []uintptr
	for p := h.nurLo + 8; p < top; {
		starts = append(starts, p)
		p += h.objSize(p, h.typeAt(p))
	}
	return starts
}

// scanCards updates the old-to-young references of the old generation
// below end whose cards are dirty, and clears the cards.
func (h *gcHeap) scanCards(end uintptr) {
	if end == h.oldLo {
		return
	}
	first := (h.oldLo - h.base) >> cardShift
	last := (end - 1 - h.base) >> cardShift
	for c := first; c <= last; c++ {
		// Skip clean cards eight at a time.
		if c%8 == 0 && c+8 <= last+1 && *(*uint64)(unsafe.Pointer(&h.cards[c])) == 0 {
			c += 7
			continue
		}
		if h.cards[c] == 0 {
			continue
		}
		h.cards[c] = 0
		h.stats.CardsScanned++
		lo := h.base + c<<cardShift
		hi := min(lo+cardBytes, end)
		for q := h.cross[(lo-h.oldLo)>>cardShift]; q < hi; {
			t := h.typeAt(q)
			n := h.objSize(q, t)
			h.eachRef(q, t, lo, hi, h.fixYoung)
			q += n
		}
	}
}

// resetNursery empties the nursery, whose objects ended at top: zeroed
// for inline allocation, or under stress the other half is used and this
// one poisoned, so that a stale pointer into it reads garbage.
func (h *gcHeap) resetNursery(top uintptr) {
	used := h.mem[h.nurLo-h.base : top-h.base]
	if h.stressEvery > 0 {
		fill(used, 0xe5)
		if h.nurLo == h.base {
			h.nurLo = h.base + h.nurBytes
		} else {
			h.nurLo = h.base
		}
		clear(h.mem[h.nurLo-h.base : h.nurLo-h.base+h.nurBytes])
	} else {
		clear(used)
	}
	clear(h.cards[:(h.youngHi-h.base)>>cardShift])
	*h.top = uint64(h.nurLo + 8)
}

func fill(b []byte, v byte) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// full compacts the old generation (the nursery is empty).
func (h *gcHeap) full(rs *rootSet) {
	start := time.Now()
	lo, hi := h.oldLo, h.oldTop
	// The mark bits of [lo, hi): word i of marks covers 64 heap words.
	w0, w1 := (lo-h.base)/8/64, (hi-h.base+511)/8/64
	marks := h.marks[w0:w1]
	clear(marks)
	var stack []uintptr
	mark := func(p uintptr) {
		w := (p - lo) / 8
		if marks[w/64]&(1<<(w%64)) != 0 {
			return
		}
		n := h.objSize(p, h.typeAt(p)) / 8
		setBits(marks, w, n)
		stack = append(stack, p)
	}
	for _, p := range rs.refs {
		if v := uintptr(*p); h.inOld(v) {
			mark(v)
		}
	}
	for _, p := range rs.interiors {
		if v := uintptr(*p); h.inOld(v) {
			mark(h.objectAt(v))
		}
	}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t := h.typeAt(p)
		h.eachRef(p, t, p, p+h.objSize(p, t), func(slot uintptr) {
			if v := uintptr(h.word(slot)); h.inOld(v) {
				mark(v)
			}
		})
	}
	// Live words below each chunk.
	prefix := make([]uint32, len(marks)+1)
	for i, m := range marks {
		prefix[i+1] = prefix[i] + uint32(bits.OnesCount64(m))
	}
	fwd := func(p uintptr) uintptr {
		w := (p - lo) / 8
		return lo + 8*(uintptr(prefix[w/64])+uintptr(bits.OnesCount64(marks[w/64]&(1<<(w%64)-1))))
	}
	for _, p := range rs.refs {
		if v := uintptr(*p); h.inOld(v) {
			*p = uint64(fwd(v))
		}
	}
	for _, p := range rs.interiors {
		if v := uintptr(*p); h.inOld(v) {
			// fwd maps words: the pointer keeps its byte in the word (an
			// int32 or char element's address need not be 8-aligned).
			*p = uint64(fwd(v) + v%8)
		}
	}
	h.rekeyInnerTraces(func(p uintptr) uintptr {
		if !h.inOld(p) {
			return p
		}
		if w := (p - lo) / 8; marks[w/64]&(1<<(w%64)) == 0 {
			return 0
		}
		return fwd(p)
	})
	// Slide, in address order, and update the moved object's references.
	newTop := lo
	clear(h.cross[:min(len(h.cross), int((hi-lo+cardBytes-1)>>cardShift))])
	for p := lo; p < hi; {
		t := h.typeAt(p)
		n := h.objSize(p, t)
		if w := (p - lo) / 8; marks[w/64]&(1<<(w%64)) != 0 {
			q := newTop
			if q != p {
				copy(h.mem[q-h.base:q-h.base+n], h.mem[p-h.base:p-h.base+n])
			}
			h.eachRef(q, t, q, q+n, func(slot uintptr) {
				if v := uintptr(h.word(slot)); h.inOld(v) {
					h.setWord(slot, uint64(fwd(v)))
				}
			})
			h.noteStart(q, n)
			newTop += n
		}
		p += n
	}
	h.oldTop = newTop
	h.release(newTop, hi)
	clear(h.cards[(lo-h.base)>>cardShift : (hi-h.base+cardBytes-1)>>cardShift])
	h.fullAt = fullTrigger(newTop - lo)
	d := time.Since(start).Nanoseconds()
	h.stats.Full++
	h.stats.FullNanos += d
	h.stats.FullMaxNanos = max(h.stats.FullMaxNanos, d)
}

// fullTrigger returns the old generation's size at which the next full
// collection runs, live bytes having survived the last one: when it has
// doubled, or grown by 1 MiB for a small one, so that promoted garbage
// never piles up (a program with little live data keeps a flat resident
// set at the cost of full collections of little).
func fullTrigger(live uintptr) uintptr {
	return live + max(live, 1<<20)
}

// setBits sets bits [w, w+n) of a bitmap.
func setBits(b []uint64, w, n uintptr) {
	for n > 0 {
		i, k := w/64, w%64
		c := min(64-k, n)
		if c == 64 {
			b[i] = ^uint64(0)
		} else {
			b[i] |= (1<<c - 1) << k
		}
		w += c
		n -= c
	}
}

// release gives the pages of the old generation's freed range [lo, hi)
// back to the system (under stress, poisons it first).
func (h *gcHeap) release(lo, hi uintptr) {
	if hi <= lo {
		return
	}
	b := h.mem[lo-h.base : hi-h.base]
	if h.stressEvery > 0 {
		fill(b, 0xe7)
	}
	first := uintptr(roundUp(int(lo-h.base), pageSize)) + h.base
	if first < hi {
		_ = unix.Madvise(h.mem[first-h.base:hi-h.base], unix.MADV_DONTNEED)
	}
}

// rekeyInnerTraces moves the traces kept for inner exceptions to their
// exceptions' new addresses (move returns 0 for a dead exception).
func (h *gcHeap) rekeyInnerTraces(move func(uintptr) uintptr) {
	rt := h.rt
	if len(rt.innerTraces) == 0 {
		return
	}
	m := make(map[uintptr]innerTrace, len(rt.innerTraces))
	for p, tr := range rt.innerTraces {
		if q := move(p); q != 0 {
			m[q] = tr
		}
	}
	rt.innerTraces = m
}
