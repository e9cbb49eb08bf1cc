package jitrt

import (
	"fmt"
	"sort"

	"miniil/abi"
)

// The GC information verifier (Options.VerifyGC). At every exit of
// native code it walks the managed frames (walkGC) and checks every
// location reported:
//
//   - a reference is null or the start of an object: of the managed
//     heap (which is parsed, object after object, as it grows: an
//     object's size follows from its method table) or of the metadata
//     arena (interned strings, the preallocated OutOfMemoryException);
//   - an interior pointer is null or points into an object of the heap
//     or of the metadata arena, into the native stack or into the
//     statics.
//
// So that a location holding garbage cannot pass by chance (stale
// references of earlier frames lie all over the stack), the free stack
// below the exit's RSP is then filled with a value no check accepts:
// the frames that later calls build there hold it until they initialize
// their slots.

// poisonBytes is how much free stack below RSP each exit poisons.
const poisonBytes = 16 << 10

// poison is what the free stack is filled with: no reference, no
// interior pointer (not even a canonical address).
const poison = 0xBAD0BAD0BAD0BAD8

// gcVerifier checks GC information at every exit.
type gcVerifier struct {
	rt  *Runtime
	idx *objIndex
	// meta lists the objects of the metadata arena, sorted (remade when
	// strings are interned).
	meta     []uintptr
	metaStrs int
	stats    GCVerifyStats
}

// GCVerifyStats are the counts of a run's GC information checks.
type GCVerifyStats struct {
	Exits     int // exits whose frames were walked
	Roots     int // locations checked
	Refs      int // of which non-null references
	Interior  int // non-null interior pointers
	Untracked int // non-null untracked slots
	Registers int // non-null registers
	Arguments int // non-null arguments at prestubs
	gcWalkStats
}

func newGCVerifier(rt *Runtime) *gcVerifier {
	return &gcVerifier{rt: rt, idx: newObjIndex(rt.gc), metaStrs: -1}
}

// GCVerifyStats returns the counts of the GC information checks so far
// (zero unless Options.VerifyGC).
func (rt *Runtime) GCVerifyStats() GCVerifyStats {
	if rt.gcv == nil {
		return GCVerifyStats{}
	}
	return rt.gcv.stats
}

// atExit is the machine's exit hook.
func (v *gcVerifier) atExit(m *Machine, code uint64) error {
	switch code {
	case abi.ExitReturn, abi.ExitFuncletReturn, abi.ExitNone:
		return nil
	}
	if err := v.idx.update(); err != nil {
		return fmt.Errorf("jitrt: GC information check: %w", err)
	}
	v.metaObjects()
	v.stats.Exits++
	if err := v.rt.walkGC(m, code, v.check, &v.stats.gcWalkStats); err != nil {
		return fmt.Errorf("jitrt: GC information check failed at the %s exit (pc %#x): %w", abi.ExitName(int(code)), m.PC(), err)
	}
	lo, _ := m.StackBounds()
	for a := max(lo, m.SP()-poisonBytes); a < m.SP(); a += 8 {
		m.WriteStack(a, poison)
	}
	return nil
}

// check checks one location.
func (v *gcVerifier) check(r gcRoot) error {
	v.stats.Roots++
	x := uintptr(*r.p)
	switch {
	case x == 0:
		return nil
	case !r.interior && !v.isObject(x):
		return fmt.Errorf("%v holds %#x, which is neither null nor an object", r, x)
	case r.interior && !v.isInterior(x):
		return fmt.Errorf("%v holds %#x, which points into no object, the stack or the statics", r, x)
	}
	st := &v.stats
	if r.interior {
		st.Interior++
	} else {
		st.Refs++
	}
	switch {
	case r.why == "untracked":
		st.Untracked++
	case r.ret < 0:
		st.Arguments++
	}
	if r.loc.IsReg() {
		st.Registers++
	}
	return nil
}

// metaObjects remakes the list of the metadata arena's objects if
// strings were interned since it was made.
func (v *gcVerifier) metaObjects() {
	rt := v.rt
	if len(rt.strs) == v.metaStrs {
		return
	}
	v.meta = v.meta[:0]
	for _, p := range rt.strs {
		v.meta = append(v.meta, p)
	}
	v.meta = append(v.meta, rt.oom)
	sort.Slice(v.meta, func(i, j int) bool { return v.meta[i] < v.meta[j] })
	v.metaStrs = len(rt.strs)
}

// isObject reports whether x is the start of an object.
func (v *gcVerifier) isObject(x uintptr) bool {
	if v.idx.inHeap(x) {
		return v.idx.isObject(x)
	}
	k := sort.Search(len(v.meta), func(i int) bool { return v.meta[i] >= x })
	return k < len(v.meta) && v.meta[k] == x
}

// isInterior reports whether x points into an object, the native stack
// or the statics.
func (v *gcVerifier) isInterior(x uintptr) bool {
	rt := v.rt
	if lo, hi := rt.mach.StackBounds(); x >= lo && x < hi {
		return true
	}
	if x >= rt.statics && x < rt.statics+uintptr(8*(rt.mod.StaticWords+1)) {
		return true
	}
	if v.idx.inHeap(x) {
		_, ok := v.idx.objectContaining(x)
		return ok
	}
	k := sort.Search(len(v.meta), func(i int) bool { return v.meta[i] > x }) - 1
	if k < 0 {
		return false
	}
	n, err := v.idx.size(v.meta[k])
	return err == nil && x < v.meta[k]+n
}
