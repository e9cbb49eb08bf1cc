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
		eq, err := rt.objectEquals(uintptr(a[0]), uintptr(a[1]))
		return rt.result(b2u(eq), err)
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
// (il.BoxEquals, as the primitive's override decides), a boxed value
// type a box of its own type whose fields are equal (valueEquals, as
// ValueType.Equals decides), any other object only itself (strings too:
// a callvirt on a string reaches String's override, through String's
// method table); null equals only null. The error is that of an Equals
// override that valueEquals called.
func (rt *Runtime) objectEquals(this, obj uintptr) (bool, error) {
	if this == obj {
		return true, nil
	}
	if this == 0 || obj == 0 {
		return false, nil
	}
	x, y := rt.typeOf(this), rt.typeOf(obj)
	switch {
	case x.kind == tkBox:
		return y.kind == tkBox && x.prim == y.prim &&
			il.BoxEquals(x.prim, rt.u64(this+abi.BoxValue), rt.u64(obj+abi.BoxValue)), nil
	case x.kind == tkClass && x.class.ValueType:
		if y != x {
			return false, nil
		}
		return rt.valueEquals(x.class, this+abi.BoxValue, obj+abi.BoxValue)
	}
	return false, nil
}

// valueEquals is ValueType.Equals of two values of value type c at p and
// q (in boxes): their leaves (il.ValueLeaves) compared in order up to the
// first that differs, primitives as il.BoxEquals does, references with
// the first one's virtual Equals (null equals only null), which may be
// an override: current .NET compares fields so, floats included (.NET
// Core 2.0 compared the bits of a struct without references or padding).
func (rt *Runtime) valueEquals(c *il.Class, p, q uintptr) (bool, error) {
	for _, l := range il.ValueLeaves(c) {
		off := uintptr(8 * l.Word)
		u, v := rt.u64(p+off), rt.u64(q+off)
		if !l.Type.IsRef() {
			if !il.BoxEquals(l.Type.Kind, u, v) {
				return false, nil
			}
			continue
		}
		if eq, err := rt.virtualEquals(uintptr(u), uintptr(v)); err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

// virtualEquals is a's virtual Equals(object) called on b, or whether b
// is null for a null a.
func (rt *Runtime) virtualEquals(a, b uintptr) (bool, error) {
	if a == 0 {
		return b == 0, nil
	}
	t := rt.typeOf(a)
	switch t.kind {
	case tkString:
		return b != 0 && rt.typeOf(b).kind == tkString && slices.Equal(rt.str(a), rt.str(b)), nil
	case tkClass:
		slot := methodSlot(rt.mod.Class(il.ObjectClass), "Equals")
		if !t.class.VTable[slot].Builtin {
			if rt.mach.depth > il.MaxCallbackDepth {
				return false, &StackOverflowError{PC: rt.mach.PC(), SP: rt.mach.SP()}
			}
			target := uintptr(rt.u64(uintptr(rt.u64(a+abi.ObjMT)) + abi.MTVTable + uintptr(abi.MTSlotSize*slot)))
			ret, err := rt.heldAcross(func() (uint64, error) {
				return rt.mach.Call(rt.ctx, target, []uint64{uint64(a), uint64(b)}, rt.handle)
			})
			return uint8(ret) != 0, err
		}
	}
	return rt.objectEquals(a, b)
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
	defer rt.hold()() // the strings made so far stay live
	for i := range parts {
		s, err := rt.toStringOf(uintptr(rt.u64(arr + abi.ArrData + uintptr(8*i))))
		if err != nil {
			return err
		}
		rt.hold(s)
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
