package interp

import "miniil/il"

// Value types and managed pointers.
//
// A value of a value type is laid out in 8-byte words (il.Type.Words),
// each a value. Where the heap or the statics hold one (a field of an
// object, an element of an array, a static) its words sit in that
// storage's own words, nested values flattened. Everywhere else (the
// evaluation stack, an argument, a local, a box) it is a *svalue of its
// own: a struct-typed local or argument is a value whose r is its
// *svalue, created when the frame is pushed (locals) or handed over by
// the caller (arguments, which the caller's evaluation stack owned). A
// struct value is copied whenever it is loaded (ldloc, ldarg, ldfld,
// ldsfld, ldelem, ldobj, unbox.any, dup) and stored into its location's
// words (stloc, starg, stfld, ...), so no two locations share one and a
// managed pointer to a location stays valid across stores into it.
//
// A managed pointer is a value whose r names a storage and whose n holds
// a word index in it and, in the top byte, the il.Kind of the location
// it points to (the normalization stind applies). The storages are:
//
//	*frameVars     s.vals (arguments and locals not of a value type), by absolute index
//	*staticsBase   s.statics
//	*managedObject o.f
//	*svalue        sv.w (struct locals, arguments, boxes of value types)
//	*managedArray  a.w, a.p or a.r (by element index for the last two)
//	*boxedValue    b.n (a boxed primitive, through unbox)
//
// A pointer is read through its storage every time, so it stays valid
// when the value stack grows. A null pointer (an uninitialized T& local)
// has r == nil.

// svalue is a value of a value type: its words. A box of a value type is
// a *svalue too (a reference on the stack, typed statically as an
// object), always a copy of the value boxed, with boxed set: only a box
// is on the heap (counted against the heap limit).
type svalue struct {
	cls   *il.Class
	w     []value
	boxed bool
	kept  bool // a temporary of the JIT holds it (temps.go): a box is a copy
	mark  uint32
}

func newSvalue(c *il.Class) *svalue {
	return &svalue{cls: c, w: make([]value, max(c.NumFields, 1))}
}

// copySvalue returns a copy of the value in words w, of class c.
func copySvalue(c *il.Class, w []value) *svalue {
	sv := &svalue{cls: c, w: make([]value, len(w))}
	copy(sv.w, w)
	return sv
}

// frameVars and staticsBase name the interpreter's own storages in a
// managed pointer.
type (
	frameVars   struct{ _ byte }
	staticsBase struct{ _ byte }
)

var (
	theVars    = &frameVars{}
	theStatics = &staticsBase{}
)

const (
	ptrKindShift = 56
	ptrIdxMask   = 1<<ptrKindShift - 1
)

// mkPtr makes a managed pointer to word i of storage base, a location of
// kind k.
func mkPtr(base any, i int, k il.Kind) value {
	return value{r: base, n: int64(i) | int64(k)<<ptrKindShift}
}

func ptrIdx(p value) int      { return int(p.n & ptrIdxMask) }
func ptrKind(p value) il.Kind { return il.Kind(uint64(p.n) >> ptrKindShift) }
func ptrAdd(p value, off int, k il.Kind) value {
	return mkPtr(p.r, ptrIdx(p)+off, k)
}

// ptrLoad reads the word p points to; false for a null pointer.
func (s *state) ptrLoad(p value) (value, bool) {
	i := ptrIdx(p)
	switch b := p.r.(type) {
	case *frameVars:
		return s.vals[i], true
	case *staticsBase:
		return s.statics[i], true
	case *managedObject:
		return b.f[i], true
	case *svalue:
		return b.w[i], true
	case *managedArray:
		switch {
		case b.w != nil:
			return b.w[i], true
		case b.r != nil:
			return value{r: b.r[i]}, true
		}
		return value{n: b.p[i]}, true
	case *boxedValue:
		return value{n: b.n}, true
	}
	return value{}, false
}

// ptrStore writes v to the word p points to, normalized to the
// location's kind; false for a null pointer.
func (s *state) ptrStore(p value, v value) bool {
	i := ptrIdx(p)
	v.n = normalize(ptrKind(p), v.n)
	switch b := p.r.(type) {
	case *frameVars:
		s.vals[i] = v
	case *staticsBase:
		s.statics[i] = v
	case *managedObject:
		b.f[i] = v
	case *svalue:
		b.w[i] = v
	case *managedArray:
		switch {
		case b.w != nil:
			b.w[i] = v
		case b.r != nil:
			b.r[i] = v.r
		default:
			b.p[i] = v.n
		}
	case *boxedValue:
		b.n = v.n
	default:
		return false
	}
	return true
}

// loadStruct returns a copy of the value of value type c that p points
// to (false for a null pointer).
func (s *state) loadStruct(p value, c *il.Class) (value, bool) {
	w := s.ptrWords(p, words(c))
	if w == nil {
		return value{}, false
	}
	return value{r: copySvalue(c, w)}, true
}

// storeStruct copies value v into the location p points to (false for a
// null pointer).
func (s *state) storeStruct(p, v value) bool {
	src := wordsOf(v)
	w := s.ptrWords(p, len(src))
	if w == nil {
		return false
	}
	copy(w, src)
	return true
}

// ptrWords returns the n words at p, a pointer to a value of a value
// type (never into s.vals, a primitive array or a primitive box); nil for
// a null pointer.
func (s *state) ptrWords(p value, n int) []value {
	i := ptrIdx(p)
	var w []value
	switch b := p.r.(type) {
	case *staticsBase:
		w = s.statics
	case *managedObject:
		w = b.f
	case *svalue:
		w = b.w
	case *managedArray:
		w = b.w
	default:
		return nil
	}
	return w[i : i+n : i+n]
}

// wordsOf returns the words of a struct value on the stack.
func wordsOf(v value) []value { return v.r.(*svalue).w }

// structLocal is a local of a value type, which pushFrame gives a fresh
// zero value.
type structLocal struct {
	idx int // among the frame's variables
	cls *il.Class
}
