package interp

import (
	"math"
	"slices"

	"miniil/il"
)

// System.Text.StringBuilder (il/stringbuilder.go has the representation
// and the growth policy the JIT shares): a builder's hidden field 0 holds
// its *sbBuffer; field 1, the JIT's length, stays unused here (the
// buffer's slice has it).

// sbBuffer is a builder's buffer: the units in use are u, and cap(u) is
// the capacity, the length of the char[] the JIT allocates (and both
// engines charge).
type sbBuffer struct{ u []uint16 }

// sbOf returns the buffer of builder o (an empty one for a builder no
// constructor ran on, which cannot happen through newobj).
func sbOf(o *managedObject) *sbBuffer {
	b, _ := o.f[0].r.(*sbBuffer)
	if b == nil {
		b = &sbBuffer{}
		o.f[0].r = b
	}
	return b
}

// sbBuiltin runs the methods of System.Text.StringBuilder on args (this
// first): a null this is a NullReferenceException, also with call.
func (s *state) sbBuiltin(dm *dmethod, args []value) (value, bstatus) {
	o, ok := args[0].r.(*managedObject)
	if !ok {
		return s.nre()
	}
	this := value{r: o}
	done := func(exc *managedObject) (value, bstatus) {
		if exc != nil {
			return s.throwing(exc)
		}
		return this, stOK
	}
	var v uint64 // a number's value as il.AppendPrimitive takes it
	switch k := dm.bi; k {
	case il.StringBuilderCtor, il.StringBuilderCtorInt32:
		n := int64(il.StringBuilderDefaultCapacity)
		if k == il.StringBuilderCtorInt32 {
			c := int32(args[1].n)
			if n, ok = il.StringBuilderCapacity(c); !ok {
				return s.throwing(s.newExcCharged(il.ArgumentOutOfRangeClass, il.NonNegativeMessage("capacity", c)))
			}
		}
		if n > il.MaxArrayLength {
			return s.throwing(s.tooLong(il.OutOfMemoryClass))
		}
		if !s.charge(il.ArraySize(il.Char, n)) {
			return s.throwing(s.outOfMemory())
		}
		o.f[0].r = &sbBuffer{u: make([]uint16, 0, n)}
		return value{}, stOK
	case il.StringBuilderAppendString:
		str, _ := args[1].r.(*managedString)
		return done(s.sbAppend(o, str.orEmpty()))
	case il.StringBuilderAppendObject:
		str, ok, exc := s.quickString(args[1].r)
		if exc != nil {
			return s.throwing(exc)
		}
		if !ok {
			// A managed ToString: it runs first (and may change the
			// builder), then natRun appends what it returns.
			return s.pushNative(&native{op: natAppend, vals: [3]any{args[1].r, o}, n: 1})
		}
		if str == nil {
			return this, stOK
		}
		// Maybe a new string (a box's ToString): live while the buffer grows.
		h := s.hold(str)
		exc = s.sbAppend(o, str.u)
		s.release(h)
		return done(exc)
	case il.StringBuilderAppendChar:
		return done(s.sbAppend(o, []uint16{uint16(args[1].n)}))
	case il.StringBuilderAppendBoolean:
		v = uint64(b2i(args[1].n != 0))
	case il.StringBuilderAppendInt32:
		v = uint64(int64(int32(args[1].n)))
	case il.StringBuilderAppendUInt32:
		v = uint64(uint32(args[1].n))
	case il.StringBuilderAppendInt64, il.StringBuilderAppendUInt64, il.StringBuilderAppendDouble:
		v = uint64(args[1].n)
	case il.StringBuilderAppendSingle:
		v = uint64(math.Float32bits(float32(f64(args[1].n))))
	case il.StringBuilderToString:
		str, exc := s.sbString(o)
		return s.strResult(str, exc)
	case il.StringBuilderGetLength:
		return value{n: int64(len(sbOf(o).u))}, stOK
	case il.StringBuilderClear:
		b := sbOf(o)
		b.u = b.u[:0]
		return this, stOK
	case il.StringBuilderGetChars:
		u, i := sbOf(o).u, int32(args[1].n)
		if uint32(i) >= uint32(len(u)) {
			return s.throwing(s.newExc("System.IndexOutOfRangeException"))
		}
		return value{n: int64(u[i])}, stOK
	case il.StringBuilderSetLength:
		n := int32(args[1].n)
		if n < 0 {
			return s.throwing(s.newExcCharged(il.ArgumentOutOfRangeClass, il.NonNegativeMessage("value", n)))
		}
		b := sbOf(o)
		if old := len(b.u); int(n) > old {
			// Pads with NUL characters, as .NET appends them.
			if exc := s.sbReserve(b, int64(n)-int64(old)); exc != nil {
				return s.throwing(exc)
			}
			b.u = b.u[:n]
			clear(b.u[old:])
		} else {
			b.u = b.u[:n]
		}
		return value{}, stOK
	default:
		return value{}, s.fail(dm)
	}
	// Append of a bool or a number: its text, formatted straight into the
	// buffer as .NET does (no string is allocated).
	var tmp [32]uint16
	return done(s.sbAppend(o, il.AppendPrimitive(tmp[:0], canonType(dm.il.Params[0].Type).Kind, v)))
}

// sbReserve makes room in b for extra more units, moving them to a new
// buffer of the capacity il.StringBuilderGrow gives (charged) when they
// do not fit; it returns the exception to throw when that fails.
func (s *state) sbReserve(b *sbBuffer, extra int64) *managedObject {
	need := int64(len(b.u)) + extra
	if need <= int64(cap(b.u)) {
		return nil
	}
	n, ok := il.StringBuilderGrow(int64(cap(b.u)), need)
	if !ok {
		return s.tooLong(il.OutOfMemoryClass)
	}
	if !s.charge(il.ArraySize(il.Char, n)) {
		return s.outOfMemory()
	}
	u := make([]uint16, len(b.u), n)
	copy(u, b.u)
	b.u = u
	return nil
}

// sbAppend appends units to builder o; it returns the exception to throw
// when the buffer cannot grow.
func (s *state) sbAppend(o *managedObject, units []uint16) *managedObject {
	if len(units) == 0 {
		return nil
	}
	b := sbOf(o)
	if exc := s.sbReserve(b, int64(len(units))); exc != nil {
		return exc
	}
	b.u = append(b.u, units...)
	return nil
}

// sbString is StringBuilder.ToString: String.Empty for an empty builder,
// else a new string (charged; exc is the OutOfMemoryException when it
// does not fit).
func (s *state) sbString(o *managedObject) (str *managedString, exc *managedObject) {
	u := sbOf(o).u
	if len(u) == 0 {
		return s.empty, nil
	}
	return s.newStr(slices.Clone(u))
}

// newExcCharged creates an exception of a base library class whose
// message is built at run time: the exception, then its message, are
// charged to the heap, in that order (as the JIT allocates them). It
// returns the OutOfMemoryException when either does not fit.
func (s *state) newExcCharged(class, msg string) *managedObject {
	o, ok := s.allocExc(class)
	if !ok {
		return s.outOfMemory()
	}
	return s.withUnheldMessage(o, newString(msg))
}
