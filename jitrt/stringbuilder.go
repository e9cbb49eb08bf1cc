package jitrt

import (
	"fmt"
	"unsafe"

	"miniil/abi"
	"miniil/il"
)

// System.Text.StringBuilder (il/stringbuilder.go has the representation
// and the growth policy the interpreter shares): a builder's field 0
// points to its buffer, a char[] whose length is the capacity; field 1
// is the number of units in use.
const (
	sbChars  = abi.SbChars  // il.StringBuilderCharsField
	sbLength = abi.SbLength // il.StringBuilderLengthField, right after it
)

// sbBuiltin runs the methods of System.Text.StringBuilder for a
// HelperBuiltin exit or ToString's stub. It reads the arguments straight
// from the registers (this in RDI, an integer argument in RSI, a float
// one in XMM0): appends are frequent, and this saves args' slice.
func (rt *Runtime) sbBuiltin(m *Machine, k il.BuiltinKind) error {
	this := uintptr(m.Reg(abi.CtxRDI))
	if this == 0 {
		return rt.throwNewAt(m, "System.NullReferenceException")
	}
	arg := m.Reg(abi.CtxRSI)
	var kind il.Kind // an Append of a bool or a number: its kind and value
	switch k {
	case il.StringBuilderCtor, il.StringBuilderCtorInt32:
		n := int64(il.StringBuilderDefaultCapacity)
		if k == il.StringBuilderCtorInt32 {
			c := int32(arg)
			var ok bool
			if n, ok = il.StringBuilderCapacity(c); !ok {
				return rt.throwNewCharged(m, il.ArgumentOutOfRangeClass, il.NonNegativeMessage("capacity", c))
			}
		}
		if n > il.MaxArrayLength {
			return rt.throwNew(m, il.OutOfMemoryClass, il.ArrayTooLongMessage)
		}
		arr, err := rt.newCharArray(n)
		if err != nil {
			return err
		}
		f, _ := rt.sbState(this)
		f[0], f[1] = uint64(arr), 0
		return nil
	case il.StringBuilderAppendString:
		return rt.sbAppend(m, this, rt.str(uintptr(arg)))
	case il.StringBuilderAppendObject:
		// ToString first (a managed override may change the builder),
		// then the append.
		s, err := rt.toStringOf(uintptr(arg))
		if err != nil {
			return err
		}
		release := rt.hold(s)
		err = rt.sbAppend(m, this, rt.str(s))
		release()
		return err
	case il.StringBuilderAppendChar:
		return rt.sbAppend(m, this, []uint16{uint16(arg)})
	case il.StringBuilderAppendBoolean:
		kind, arg = il.KBool, uint64(uint8(arg))
	case il.StringBuilderAppendInt32:
		kind, arg = il.KI4, uint64(int64(int32(arg)))
	case il.StringBuilderAppendUInt32:
		kind, arg = il.KU4, uint64(uint32(arg))
	case il.StringBuilderAppendInt64:
		kind = il.KI8
	case il.StringBuilderAppendUInt64:
		kind = il.KU8
	case il.StringBuilderAppendDouble:
		kind, arg = il.KR8, m.Reg(abi.CtxXMM0)
	case il.StringBuilderAppendSingle:
		kind, arg = il.KR4, uint64(uint32(m.Reg(abi.CtxXMM0)))
	case il.StringBuilderToString:
		return rt.result(rt.sbString(this))
	case il.StringBuilderGetLength:
		f, _ := rt.sbState(this)
		return rt.result(uintptr(f[1]), nil)
	case il.StringBuilderClear:
		f, _ := rt.sbState(this)
		f[1] = 0
		return rt.result(this, nil)
	case il.StringBuilderGetChars:
		i := int32(arg)
		f, buf := rt.sbState(this)
		if uint32(i) >= uint32(f[1]) {
			return rt.throwNewAt(m, "System.IndexOutOfRangeException")
		}
		return rt.result(uintptr(buf[i]), nil)
	case il.StringBuilderSetLength:
		n := int32(arg)
		if n < 0 {
			return rt.throwNewCharged(m, il.ArgumentOutOfRangeClass, il.NonNegativeMessage("value", n))
		}
		f, buf := rt.sbState(this)
		if old := int(f[1]); int(n) > old {
			// Pads with NUL characters, as .NET appends them.
			buf, tooLong, err := rt.sbReserve(f, buf, int64(n)-int64(old))
			if err != nil || tooLong {
				return rt.sbGrowFailed(m, err)
			}
			clear(buf[old:n])
		}
		f[1] = uint64(n)
		return nil
	default:
		return fmt.Errorf("jitrt: base library method %v is not implemented", k)
	}
	// Append of a bool or a number: its text, formatted straight into the
	// buffer as .NET does (no string is allocated).
	var tmp [32]uint16
	return rt.sbAppend(m, this, il.AppendPrimitive(tmp[:0], kind, arg))
}

// sbAppend appends units to builder this and returns the builder.
func (rt *Runtime) sbAppend(m *Machine, this uintptr, units []uint16) error {
	if len(units) > 0 {
		f, buf := rt.sbState(this)
		n := int(f[1])
		if n+len(units) > len(buf) {
			var tooLong bool
			var err error
			if buf, tooLong, err = rt.sbReserve(f, buf, int64(len(units))); err != nil || tooLong {
				return rt.sbGrowFailed(m, err)
			}
		}
		copy(buf[n:], units)
		f[1] = uint64(n + len(units))
	}
	return rt.result(this, nil)
}

// sbGrowFailed raises what a buffer that could not grow raises: err
// (ErrHeapExhausted, an OutOfMemoryException at the exit), or for a
// builder that would exceed il.StringBuilderMaxLength an
// OutOfMemoryException with newarr's message.
func (rt *Runtime) sbGrowFailed(m *Machine, err error) error {
	if err != nil {
		return err
	}
	return rt.throwNew(m, il.OutOfMemoryClass, il.ArrayTooLongMessage)
}

// sbState returns builder this's two fields, to read and write in place
// (valid until the next collection), and its buffer (its whole capacity).
func (rt *Runtime) sbState(this uintptr) (f *[2]uint64, buf []uint16) {
	f = (*[2]uint64)(unsafe.Pointer(&rt.bytes(this+sbChars, 16)[0]))
	return f, rt.chars(uintptr(f[0]))
}

// sbReserve returns the buffer of a builder (fields f, buffer buf) with
// room for extra more units: buf itself, or when they do not fit a new
// buffer of the capacity il.StringBuilderGrow gives, holding the units
// in use, which becomes the builder's. tooLong reports a builder that
// would exceed il.StringBuilderMaxLength; err is ErrHeapExhausted when
// the new buffer does not fit in the heap.
func (rt *Runtime) sbReserve(f *[2]uint64, buf []uint16, extra int64) (nbuf []uint16, tooLong bool, err error) {
	n := int64(f[1])
	need := n + extra
	if need <= int64(len(buf)) {
		return buf, false, nil
	}
	capacity, ok := il.StringBuilderGrow(int64(len(buf)), need)
	if !ok {
		return nil, true, nil
	}
	arr, err := rt.newCharArray(capacity)
	if err != nil {
		return nil, false, err
	}
	nbuf = rt.chars(arr)
	copy(nbuf, buf[:n])
	f[0] = uint64(arr)
	rt.gc.barrier(uintptr(unsafe.Pointer(&f[0])), arr)
	return nbuf, false, nil
}

// sbString is StringBuilder.ToString: String.Empty (interned) for an
// empty builder, else a new string.
func (rt *Runtime) sbString(this uintptr) (uintptr, error) {
	f, buf := rt.sbState(this)
	if f[1] == 0 {
		return rt.StringAddr(""), nil
	}
	return rt.newString(buf[:f[1]])
}

// newCharArray allocates a char[] of n elements (0 < n <=
// il.MaxArrayLength).
func (rt *Runtime) newCharArray(n int64) (uintptr, error) {
	if rt.charArray == nil {
		t, err := rt.typeFor(il.ArrayOf(il.Char))
		if err != nil {
			return 0, err
		}
		rt.charArray = t
	}
	p, err := rt.alloc(rt.charArray, il.ArraySize(il.Char, n))
	if err != nil {
		return 0, err
	}
	rt.setU64(p+abi.ArrLen, uint64(n))
	return p, nil
}

// chars returns the elements of a char[] (nil for null or empty).
func (rt *Runtime) chars(arr uintptr) []uint16 {
	if arr == 0 {
		return nil
	}
	n := int(rt.u64(arr + abi.ArrLen))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&rt.bytes(arr+abi.ArrData, 2*n)[0])), n)
}

// throwNewCharged throws a new base library exception of the named class
// whose message is built at run time: the exception, then its message,
// are allocated on the heap, in that order (as the interpreter charges
// them).
func (rt *Runtime) throwNewCharged(m *Machine, class, msg string) error {
	exc, err := rt.newObject(rt.mod.Class(class))
	if err != nil {
		return err
	}
	s, err := rt.newString(il.AppendUTF16(nil, msg))
	if err != nil {
		return err
	}
	rt.gc.writeRef(exc+abi.ObjFields, uint64(s))
	return rt.throw(m, exc)
}
