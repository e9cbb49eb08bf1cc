package jitrt

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"

	"miniil/abi"
	"miniil/il"
	"miniil/internal/prefault"
)

// The managed heap: a young generation (the nursery) and an old
// generation in one reservation, collected by gc.go.
//
//	base                                                            end
//	| nursery (2 halves) | old generation: [oldLo, oldTop) used ... oldHi |
//
// Native code allocates in the nursery inline, bumping CtxHeapTop up to
// CtxHeapLimit. The nursery holds one half's worth (the second half is
// used only under GC stress, which alternates the halves so that a stale
// pointer into the last one reads poison). Survivors of a nursery
// collection are copied, all of them, to the end of the old generation
// (promotion), which stays contiguous: a full collection compacts it by
// sliding.
//
// The heap limit (Options.HeapBytes) bounds the bytes of reachable
// objects: an allocation of n bytes fails exactly when, after a full
// collection, the old generation's n-plus-used bytes exceed it. The
// nursery's allocation limit keeps old-used + nursery-used within the
// heap limit, so the check needs a collection only where it might fail.
// The old generation reserves twice the limit (address space only) so
// that allocations made where no collection may run (in Go code holding
// object addresses) always have room.
//
// Cards: one byte per cardBytes of the reservation, set by the write
// barrier native code runs after storing a nursery reference into memory
// in the heap (and by the runtime's own stores). A nursery collection
// scans the old generation's dirty cards for old-to-young references.

const (
	cardShift = abi.CardShift
	cardBytes = 1 << cardShift
	// DefaultNurseryBytes is the nursery size when Options.NurseryBytes
	// is zero: Mono's default, about the size of a large L2 cache.
	DefaultNurseryBytes = 4 << 20
	// MinNurseryBytes and MaxNurseryBytes bound the nursery size.
	MinNurseryBytes = 4 << 10
	MaxNurseryBytes = 1 << 30
	// largeObjectBytes is the size from which objects are allocated in
	// the old generation directly (CoreCLR's large object threshold).
	largeObjectBytes = 85000
	// oldSlack is address space of the old generation beyond twice the
	// heap limit.
	oldSlack = 16 << 20
)

// gcHeap is the managed heap.
type gcHeap struct {
	rt    *Runtime
	mem   []byte
	words []uint64 // mem as words
	base  uintptr  // of the reservation
	end   uintptr

	// The nursery: the current half [nurLo, nurLo+nurBytes); young
	// covers both halves.
	nurLo, nurBytes uintptr
	youngHi         uintptr
	top, lim        *uint64 // CtxHeapTop and CtxHeapLimit
	// populated is the end of the nursery's first bytes made resident
	// (populate); native code allocates no further, and the allocation
	// that exits there populates the next stretch.
	populated uintptr

	oldLo, oldTop, oldHi uintptr
	limit                uintptr // the heap limit

	cards []byte    // one per card of [base, end)
	cross []uintptr // per old-generation card: start of the object covering its first byte
	marks []uint64  // a bit per word of [base, end), for full collections

	fullAt uintptr // old-generation size that triggers a full collection
	large  uintptr // objects this large are allocated in the old generation
	// pending asks for a collection at the next safepoint (an
	// allocation went to the old generation where none could run).
	pending bool
	// noGC counts the Go frames holding object addresses across a nested
	// call of managed code: no collection moves objects while it is > 0.
	noGC int
	// held are objects Go code made and holds without having stored them
	// anywhere yet (hold): live for the heap limit's count.
	held []uintptr
	// Stress (Options.GCStress): collect at every stressEvery-th
	// safepoint.
	stressEvery, stressCount int

	stats GCStats
	// The last method table typeOfMT looked up.
	lastMT uintptr
	lastT  *rtType
}

// GCStats counts a runtime's collections.
type GCStats struct {
	Minor, Full        int
	MinorNanos         int64 // total time of the nursery collections
	MinorMaxNanos      int64
	FullNanos          int64
	FullMaxNanos       int64
	SurvivedBytes      int64 // promoted by nursery collections
	PeakHeapBytes      int64 // the most the old generation and nursery held
	Verified           int   // heap verifications after collections
	CardsScanned       int64
	StressCollections  int
	DeferredAllocBytes int64 // allocated in the old generation where no collection could run
	// NurseryPopulates counts the stretches of the nursery made resident
	// (populate): each is an allocation that reached the end of the
	// resident part, so native code's inline allocation, or the base
	// library routine making it, exited to Go.
	NurseryPopulates int
}

// GCStats returns the counts of the runtime's collections.
func (rt *Runtime) GCStats() GCStats {
	st := rt.gc.stats
	st.PeakHeapBytes = max(st.PeakHeapBytes, int64(rt.gc.used()))
	return st
}

// newGCHeap maps the heap: nursery bytes of young generation (times two
// under stress) and an old generation for a heap limit of limit bytes.
func newGCHeap(rt *Runtime, limit, nursery int, stress int) (*gcHeap, error) {
	nursery = roundUp(nursery, pageSize)
	region := 2 * nursery
	old := roundUp(2*limit+oldSlack+largeObjectBytes, pageSize)
	total := region + old
	mem, err := unix.Mmap(-1, 0, total, unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("jitrt: mapping %s for the managed heap (twice the heap limit and the nursery): %w", formatBytes(total), err)
	}
	h := &gcHeap{rt: rt, mem: mem, base: uintptr(unsafe.Pointer(&mem[0]))}
	h.words = unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), len(mem)/8)
	h.end = h.base + uintptr(total)
	h.nurLo, h.nurBytes, h.youngHi = h.base, uintptr(nursery), h.base+uintptr(region)
	h.populated = h.nurLo
	if stress > 0 {
		h.populated = h.youngHi // the halves swap: left to page faults
	}
	h.oldLo, h.oldHi = h.youngHi, h.end
	h.oldTop = h.oldLo
	h.limit = uintptr(limit)
	h.fullAt = fullTrigger(0)
	h.stressEvery = stress
	h.large = min(largeObjectBytes, h.nurBytes/2)
	ncards := total >> cardShift
	if h.cards, err = mapBytes(ncards); err != nil {
		h.unmap()
		return nil, err
	}
	if h.marks, err = mapWords(total / 8 / 64); err != nil {
		h.unmap()
		return nil, err
	}
	_ = unix.Madvise(mem[region:], unix.MADV_HUGEPAGE)
	return h, nil
}

func mapBytes(n int) ([]byte, error) {
	b, err := unix.Mmap(-1, 0, roundUp(max(n, 1), pageSize), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("jitrt: mapping the managed heap's card table and mark bits: %w", err)
	}
	return b[:n], nil
}

func mapWords(n int) ([]uint64, error) {
	b, err := mapBytes(8 * n)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n), nil
}

func unmapBytes(b []byte) error {
	if cap(b) == 0 {
		return nil
	}
	return unix.Munmap(b[:cap(b)])
}

func (h *gcHeap) unmap() error {
	if h == nil {
		return nil
	}
	var errs []error
	if h.marks != nil {
		errs = append(errs, unmapBytes(unsafe.Slice((*byte)(unsafe.Pointer(&h.marks[0])), roundUp(8*len(h.marks), pageSize))))
	}
	errs = append(errs, unmapBytes(h.cards), unix.Munmap(h.mem))
	h.mem, h.words, h.cards, h.marks = nil, nil, nil, nil
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// attach makes the machine's allocation context the nursery's.
func (h *gcHeap) attach(m *Machine) {
	h.top = m.word(abi.CtxHeapTop)
	h.lim = m.word(abi.CtxHeapLimit)
	*h.top = uint64(h.nurLo + 8) // no object at the reservation's base
	h.setNurseryLimit()
	m.SetReg(abi.CtxYoungLo, uint64(h.base))
	m.SetReg(abi.CtxYoungSpan, uint64(h.youngHi-h.base))
	m.SetReg(abi.CtxHeapLo, uint64(h.base))
	m.SetReg(abi.CtxHeapSpan, uint64(h.end-h.base))
	m.SetReg(abi.CtxCards, uint64(uintptr(unsafe.Pointer(&h.cards[0]))))
}

// setNurseryLimit lets native code allocate in the nursery as far as the
// heap limit allows with the old generation as it is.
// Under GC stress the limit is the top: every allocation exits.
func (h *gcHeap) setNurseryLimit() {
	if h.stressEvery > 0 {
		*h.lim = *h.top
		return
	}
	*h.lim = uint64(min(h.nurLimit(), max(h.populated, uintptr(*h.top))))
}

// populateMin and populateMax bound the stretch of nursery populate
// makes resident at a time, as large as what is already resident: it
// starts small (a program that allocates little pays little) and
// doubles the resident part each time.
const (
	populateMin = 64 << 10
	populateMax = 1 << 20
)

// populate makes the nursery resident up to end at least, in one system
// call (MADV_POPULATE_WRITE) instead of a page fault per page as bump
// allocation first touches it: a fault costs about ten times what
// populating a page does. The pages stay resident (collections clear
// the nursery, they do not release it), so each page is populated once.
// Advice only: where the kernel lacks it (before Linux 5.14) the pages
// fault in as before.
func (h *gcHeap) populate(end uintptr) {
	done := h.populated - h.nurLo
	step := min(max(populateMin, done), populateMax)
	hi := min(max(end, h.populated+step), h.nurLo+h.nurBytes)
	hi = h.nurLo + uintptr(roundUp(int(hi-h.nurLo), pageSize))
	prefault.Bytes(h.mem[h.populated-h.base : hi-h.base])
	h.populated = hi
	h.stats.NurseryPopulates++
}

// nurLimit is the end of the nursery's allocatable part.
func (h *gcHeap) nurLimit() uintptr {
	room := uintptr(0)
	if used := h.oldTop - h.oldLo; used < h.limit {
		room = h.limit - used
	}
	return h.nurLo + min(h.nurBytes, room+8)
}

// word and setWord access the heap.
func (h *gcHeap) word(p uintptr) uint64       { return h.words[(p-h.base)/8] }
func (h *gcHeap) setWord(p uintptr, v uint64) { h.words[(p-h.base)/8] = v }

func (h *gcHeap) inYoung(p uintptr) bool { return p-h.base < h.youngHi-h.base }
func (h *gcHeap) inOld(p uintptr) bool   { return p-h.oldLo < h.oldTop-h.oldLo }

// contains reports whether [p, p+n) is allocated heap memory.
func (h *gcHeap) contains(p uintptr, n int) bool {
	top := uintptr(*h.top)
	if p >= h.nurLo && p+uintptr(n) <= top {
		return true
	}
	return p >= h.oldLo && p+uintptr(n) <= h.oldTop
}

// nurseryUsed returns the bytes allocated in the nursery.
func (h *gcHeap) nurseryUsed() uintptr { return uintptr(*h.top) - h.nurLo }

// used returns the bytes of both generations.
func (h *gcHeap) used() int { return int(h.oldTop - h.oldLo + h.nurseryUsed() - 8) }

// typeAt returns the runtime type of the object at p.
func (h *gcHeap) typeAt(p uintptr) *rtType {
	return h.typeOfMT(uintptr(h.word(p)))
}

// typeOfMT returns the runtime type of method table mt, remembering the
// last one asked: objects of one type come in runs.
func (h *gcHeap) typeOfMT(mt uintptr) *rtType {
	if mt == h.lastMT {
		return h.lastT
	}
	t := h.rt.mtType(mt)
	h.lastMT, h.lastT = mt, t
	return t
}

// objSize returns the size of the object at p of type t.
func (h *gcHeap) objSize(p uintptr, t *rtType) uintptr {
	switch t.kind {
	case tkString:
		return uintptr(il.StringSize(int(h.word(p + abi.StrLen))))
	case tkArray:
		return uintptr(il.ArraySize(t.elem, int64(h.word(p+abi.ArrLen))))
	}
	return t.size
}

// eachRef calls fn with the address of every reference slot of the
// object at p of type t that lies in [lo, hi).
func (h *gcHeap) eachRef(p uintptr, t *rtType, lo, hi uintptr, fn func(slot uintptr)) {
	switch t.kind {
	case tkClass:
		if lo <= p && p+t.size <= hi { // the whole object: no range test
			for _, off := range t.refs {
				fn(p + off)
			}
			return
		}
		for _, off := range t.refs {
			if s := p + off; s >= lo && s < hi {
				fn(s)
			}
		}
	case tkArray:
		if t.refs == nil {
			return
		}
		n := uintptr(h.word(p + abi.ArrLen))
		es := uintptr(t.elemSize)
		data := p + abi.ArrData
		i, j := uintptr(0), n
		if lo > data {
			i = (lo - data) / es
		}
		if hi < data+n*es {
			j = min(n, (hi-data+es-1)/es)
		}
		for ; i < j; i++ {
			e := data + i*es
			for _, off := range t.refs {
				if s := e + off; s >= lo && s < hi {
					fn(s)
				}
			}
		}
	}
}

// layoutType fills in what the collector needs of t: its size when
// fixed and the offsets of its reference words (per element for arrays).
func layoutType(t *rtType) {
	switch t.kind {
	case tkClass:
		t.size = uintptr(il.ObjectSize(t.class.NumFields))
		t.refs = nil
		for _, w := range classRefWords(t.class) {
			t.refs = append(t.refs, abi.ObjFields+8*uintptr(w))
		}
	case tkBox:
		t.size = il.BoxSize
	case tkArray:
		switch {
		case t.elem.IsRef():
			t.refs = []uintptr{0}
		case t.elem.Kind == il.KValue:
			for _, w := range t.elem.Class.RefWords {
				t.refs = append(t.refs, 8*uintptr(w))
			}
		}
	}
}

// classRefWords returns the field words of an instance of c (its bases'
// included) that hold references. A value type's are its RefWords.
func classRefWords(c *il.Class) []int {
	if c.ValueType {
		return c.RefWords
	}
	var ws []int
	for k := c; k != nil; k = k.Base {
		for _, f := range k.Fields {
			switch {
			case f.Static:
			case f.Type.IsRef():
				ws = append(ws, f.Slot)
			case f.Type.Kind == il.KValue:
				for _, w := range f.Type.Class.RefWords {
					ws = append(ws, f.Slot+w)
				}
			}
		}
	}
	return ws
}

// markCards sets the cards of [p, p+n).
func (h *gcHeap) markCards(p, n uintptr) {
	if n == 0 {
		return
	}
	for c := (p - h.base) >> cardShift; c <= (p+n-1-h.base)>>cardShift; c++ {
		h.cards[c] = 1
	}
}

// writeRef stores reference v at slot p of a heap object (or of the
// statics) with the write barrier.
func (h *gcHeap) writeRef(p uintptr, v uint64) {
	h.rt.setU64(p, v)
	h.barrier(p, uintptr(v))
}

// barrier is the write barrier for a store of reference v at p.
func (h *gcHeap) barrier(p, v uintptr) {
	if p-h.base < h.end-h.base && h.inYoung(v) {
		h.cards[(p-h.base)>>cardShift] = 1
	}
}

// bumpOld allocates n bytes (a multiple of 8) at the end of the old
// generation, which must have room, and records the object's start for
// the cards it covers.
func (h *gcHeap) bumpOld(n uintptr) uintptr {
	p := h.oldTop
	h.oldTop += n
	h.noteStart(p, n)
	return p
}

// noteStart records that an object of n bytes starts at p in the old
// generation: it covers the first byte of every card starting in
// [p, p+n).
func (h *gcHeap) noteStart(p, n uintptr) {
	first := (p - h.oldLo + cardBytes - 1) >> cardShift
	last := (p + n - 1 - h.oldLo) >> cardShift
	if last >= uintptr(len(h.cross)) {
		grow := int(last) + 1 - len(h.cross)
		h.cross = append(h.cross, make([]uintptr, max(grow, len(h.cross)/2))...)
	}
	for c := first; c <= last; c++ {
		h.cross[c] = p
	}
}

// objectAt returns the start of the old-generation object containing p:
// from the object covering the first byte of p's card (the generation is
// contiguous, so one always does), parsing forward.
func (h *gcHeap) objectAt(p uintptr) uintptr {
	q := h.cross[(p-h.oldLo)>>cardShift]
	for {
		n := h.objSize(q, h.typeAt(q))
		if p < q+n {
			return q
		}
		q += n
	}
}
