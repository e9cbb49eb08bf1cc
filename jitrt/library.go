package jitrt

import (
	"fmt"
	"slices"

	"miniil/abi"
	"miniil/il"
)

// The base library members of il/library.go: Object.Equals and
// ReferenceEquals, String's !=, concatenations of objects and searches.

// libMember runs the base library method of kind k (one of
// il/library.go's) on arguments a (this first).
func (rt *Runtime) libMember(m *Machine, k il.BuiltinKind, a []uint64) error {
	switch k {
	case il.ObjectEquals:
		return rt.result(b2u(rt.objectEquals(uintptr(a[0]), uintptr(a[1]))), nil)
	case il.StringEqualsObject:
		// String.Equals(object): true for the same reference (a null
		// this too, reached with call), false for anything but a
		// string, then the comparison, which needs this.
		this, obj := uintptr(a[0]), uintptr(a[1])
		switch {
		case this == obj:
			return rt.result(1, nil)
		case obj == 0 || rt.typeOf(obj).kind != tkString:
			return rt.result(0, nil)
		case this == 0:
			return rt.throwNewAt(m, "System.NullReferenceException")
		}
		return rt.result(b2u(slices.Equal(rt.str(this), rt.str(obj))), nil)
	case il.ObjectReferenceEquals:
		return rt.result(b2u(a[0] == a[1]), nil)
	case il.StringOpInequality:
		x, y := uintptr(a[0]), uintptr(a[1])
		eq := x == y || x != 0 && y != 0 && slices.Equal(rt.str(x), rt.str(y))
		return rt.result(b2u(!eq), nil)
	case il.StringConcatObjectObjectObject:
		var strs [3]uintptr
		for i, o := range a {
			s, err := rt.toStringOf(uintptr(o))
			if err != nil {
				return err
			}
			strs[i] = s
		}
		return rt.result(rt.concatOf(strs[:]...))
	case il.StringConcatObjectArray:
		return rt.concatObjects(m, uintptr(a[0]))
	case il.StringIndexOfCharInt32, il.StringIndexOfStringInt32, il.StringLastIndexOfChar,
		il.StringContains, il.StringStartsWith, il.StringEndsWith:
		return rt.searchMethod(m, k, a)
	}
	return fmt.Errorf("jitrt: base library method %v is not implemented", k)
}

// objectEquals is Object.Equals(object) of this and obj: a boxed
// primitive equals a box of its own type with an equal value
// (il.BoxEquals, as the primitive's override decides), any other object
// only itself (strings too: a callvirt on a string reaches String's
// override, through String's method table); null equals only null.
func (rt *Runtime) objectEquals(this, obj uintptr) bool {
	if this == obj {
		return true
	}
	if this == 0 || obj == 0 {
		return false
	}
	x, y := rt.typeOf(this), rt.typeOf(obj)
	return x.kind == tkBox && y.kind == tkBox && x.prim == y.prim &&
		il.BoxEquals(x.prim, rt.u64(this+abi.BoxValue), rt.u64(obj+abi.BoxValue))
}

// concatObjects is String.Concat(object[]): ArgumentNullException
// (parameter args) for a null array; String.Empty for no element; for
// one the element's ToString itself (String.Empty for null); else each
// element's ToString in order (an element is read when its turn comes),
// then String.Empty if every string is empty, or a new string.
func (rt *Runtime) concatObjects(m *Machine, arr uintptr) error {
	if arr == 0 {
		return rt.throwNew(m, il.ArgumentNullClass, il.ArgumentNullMessage("args"))
	}
	n := int(rt.u64(arr + abi.ArrLen))
	parts := make([][]uint16, n)
	var one uintptr
	total := 0
	for i := range parts {
		s, err := rt.toStringOf(uintptr(rt.u64(arr + abi.ArrData + uintptr(8*i))))
		if err != nil {
			return err
		}
		one = s
		parts[i] = rt.str(s)
		total += len(parts[i])
	}
	switch {
	case n == 1 && one != 0: // 0: a ToString override returned null
		return rt.result(one, nil)
	case total == 0:
		return rt.result(rt.StringAddr(""), nil)
	}
	return rt.result(rt.concat(parts...))
}

// searchMethod runs String's IndexOf(char, int32), IndexOf(string,
// int32), LastIndexOf(char), Contains, StartsWith and EndsWith on
// arguments a (this first): a null this is a NullReferenceException, a
// null string argument an ArgumentNullException (parameter value), a
// start index outside 0 .. Length an ArgumentOutOfRangeException.
func (rt *Runtime) searchMethod(m *Machine, k il.BuiltinKind, a []uint64) error {
	this := uintptr(a[0])
	if this == 0 {
		return rt.throwNewAt(m, "System.NullReferenceException")
	}
	u := rt.str(this)
	switch k {
	case il.StringIndexOfCharInt32:
		i, ok := il.IndexOfCharFrom(u, uint16(a[1]), int32(a[2]))
		if !ok {
			return rt.throwNew(m, il.ArgumentOutOfRangeClass, il.StartIndexMessage())
		}
		return rt.result(uintptr(uint32(i)), nil)
	case il.StringLastIndexOfChar:
		return rt.result(uintptr(uint32(il.LastIndexOfChar(u, uint16(a[1])))), nil)
	}
	if a[1] == 0 {
		return rt.throwNew(m, il.ArgumentNullClass, il.ArgumentNullMessage("value"))
	}
	v := rt.str(uintptr(a[1]))
	switch k {
	case il.StringIndexOfStringInt32:
		i, ok := il.IndexOfStringFrom(u, v, int32(a[2]))
		if !ok {
			return rt.throwNew(m, il.ArgumentOutOfRangeClass, il.StartIndexMessage())
		}
		return rt.result(uintptr(uint32(i)), nil)
	case il.StringContains:
		return rt.result(b2u(il.IndexOfString(u, v) >= 0), nil)
	case il.StringStartsWith:
		return rt.result(b2u(il.StartsWith(u, v)), nil)
	case il.StringEndsWith:
		return rt.result(b2u(il.EndsWith(u, v)), nil)
	}
	return fmt.Errorf("jitrt: base library method %v is not implemented", k)
}
