package interp

import (
	"math"

	"miniil/il"
)

// The base library members of il/library.go: Object.Equals and
// ReferenceEquals, String's !=, concatenations of objects and searches.

// libMember runs the base library method of kind k (one of
// il/library.go's) on args (this first).
func (s *state) libMember(k il.BuiltinKind, args []value) (value, bstatus) {
	switch k {
	case il.ObjectEquals:
		return value{n: b2i(s.objectEquals(args[0].r, args[1].r))}, stOK
	case il.StringEqualsObject:
		// String.Equals(object): true for the same reference (a null
		// this too, reached with call), false for anything but a
		// string, then the comparison, which needs this.
		this, obj := args[0].r, args[1].r
		if this == obj {
			return value{n: 1}, stOK
		}
		if _, ok := obj.(*managedString); !ok {
			return value{n: 0}, stOK
		}
		if this == nil {
			return s.nre()
		}
		x, _ := this.(*managedString)
		return value{n: b2i(stringsEqual(x, obj.(*managedString)))}, stOK
	case il.ObjectReferenceEquals:
		return value{n: b2i(args[0].r == args[1].r)}, stOK
	case il.StringOpInequality:
		a, _ := args[0].r.(*managedString)
		b, _ := args[1].r.(*managedString)
		return value{n: b2i(!stringsEqual(a, b))}, stOK
	case il.StringConcatObjectObjectObject:
		// In order, as the JIT: each ToString, then the concatenation.
		n := &native{op: natConcat, vals: [3]any{args[0].r, args[1].r, args[2].r}, n: 3}
		for ; n.i < n.n; n.i++ {
			str, ok, exc := s.quickString(n.vals[n.i])
			if exc != nil {
				return s.throwing(exc)
			}
			if !ok {
				return s.pushNative(n)
			}
			n.strs[n.i] = str
		}
		return s.strResult(s.concatOf(n.strs[:n.n]...))
	case il.StringConcatObjectArray:
		arr, ok := args[0].r.(*managedArray)
		if !ok {
			return s.throwing(s.newExcMsg(il.ArgumentNullClass, il.ArgumentNullMessage("args")))
		}
		n := &native{op: natConcatArray, arr: arr, parts: make([]*managedString, len(arr.r)), n: len(arr.r)}
		for ; n.i < n.n; n.i++ {
			str, ok, exc := s.quickString(arr.r[n.i])
			if exc != nil {
				return s.throwing(exc)
			}
			if !ok {
				return s.pushNative(n)
			}
			n.parts[n.i] = str
		}
		return s.strResult(s.concatArrayOf(n.parts))
	case il.StringIndexOfCharInt32, il.StringIndexOfStringInt32, il.StringLastIndexOfChar,
		il.StringContains, il.StringStartsWith, il.StringEndsWith:
		return s.searchMethod(k, args)
	}
	return value{}, s.fail(s.method(s.mod.BuiltinMethod(k)))
}

// objectEquals is Object.Equals(object) of this and obj: a boxed
// primitive equals a box of its own type with an equal value
// (il.BoxEquals, as the primitive's override decides), any other object
// only itself (strings too: a callvirt on a string reaches String's
// override instead); null equals only null.
func (s *state) objectEquals(this, obj any) bool {
	if this == obj {
		return true
	}
	if x, ok := this.(*boxedValue); ok {
		y, ok := obj.(*boxedValue)
		return ok && x.k == y.k && il.BoxEquals(x.k, boxBits(x), boxBits(y))
	}
	return false
}

// boxBits is a box's value in the form il.BoxEquals takes: float32 as
// its 32 bits (the interpreter keeps it as float64 bits).
func boxBits(b *boxedValue) uint64 {
	if b.k == il.KR4 {
		return uint64(math.Float32bits(float32(f64(b.n))))
	}
	return uint64(b.n)
}

// searchMethod runs String's IndexOf(char, int32), IndexOf(string,
// int32), LastIndexOf(char), Contains, StartsWith and EndsWith: a null
// this is a NullReferenceException, a null string argument an
// ArgumentNullException (parameter value), a start index outside 0 ..
// Length an ArgumentOutOfRangeException.
func (s *state) searchMethod(k il.BuiltinKind, args []value) (value, bstatus) {
	str, ok := args[0].r.(*managedString)
	if !ok {
		return s.nre()
	}
	u := str.u
	switch k {
	case il.StringIndexOfCharInt32:
		i, ok := il.IndexOfCharFrom(u, uint16(args[1].n), int32(args[2].n))
		if !ok {
			return s.throwing(s.newExcMsg(il.ArgumentOutOfRangeClass, il.StartIndexMessage()))
		}
		return value{n: int64(i)}, stOK
	case il.StringLastIndexOfChar:
		return value{n: int64(il.LastIndexOfChar(u, uint16(args[1].n)))}, stOK
	}
	v, ok := args[1].r.(*managedString)
	if !ok {
		return s.throwing(s.newExcMsg(il.ArgumentNullClass, il.ArgumentNullMessage("value")))
	}
	switch k {
	case il.StringIndexOfStringInt32:
		i, ok := il.IndexOfStringFrom(u, v.u, int32(args[2].n))
		if !ok {
			return s.throwing(s.newExcMsg(il.ArgumentOutOfRangeClass, il.StartIndexMessage()))
		}
		return value{n: int64(i)}, stOK
	case il.StringContains:
		return value{n: b2i(il.IndexOfString(u, v.u) >= 0)}, stOK
	case il.StringStartsWith:
		return value{n: b2i(il.StartsWith(u, v.u))}, stOK
	case il.StringEndsWith:
		return value{n: b2i(il.EndsWith(u, v.u))}, stOK
	}
	return value{}, s.fail(s.method(s.mod.BuiltinMethod(k)))
}

// concatArrayOf is String.Concat(object[]) once each element's ToString
// is known (nil: null, empty): String.Empty for no element, the string
// itself for one, else String.Empty when every string is empty or a new
// string charged to the heap (exc: the OutOfMemoryException to throw).
func (s *state) concatArrayOf(parts []*managedString) (*managedString, *managedObject) {
	switch len(parts) {
	case 0:
		return s.empty, nil
	case 1:
		if parts[0] != nil {
			return parts[0], nil
		}
		return s.empty, nil
	}
	n := 0
	for _, p := range parts {
		n += len(p.orEmpty())
	}
	if n == 0 {
		return s.empty, nil
	}
	return s.concat(parts...)
}
