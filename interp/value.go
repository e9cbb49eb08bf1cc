package interp

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"miniil/il"
)

// value is one evaluation-stack entry, argument, local, field or static.
// Integers are in n (int32 sign-extended), floating-point values are the
// float64 bits in n, object references are in r (nil is null). Which field
// is meaningful is known statically from the IL.
type value struct {
	n int64
	r any
}

// The reference types of the heap. An object reference is a value.r
// holding one of *managedObject, *managedString, *managedArray,
// *boxedValue or *svalue (a boxed value type).

// managedObject is an instance of a class (exceptions included).
type managedObject struct {
	cls   *rtClass
	f     []value
	trace []*dmethod // for thrown objects: the stack trace, innermost first
	mark  uint32     // the heap limit's last mark that reached it (heap.go)
}

// managedString is a System.String: UTF-16 code units, like the CLR's.
// charged says it was charged to the heap limit: literals, type names
// and default messages are not (the JIT does not allocate them).
type managedString struct {
	u       []uint16
	charged bool
	mark    uint32
}

// managedArray is a single-dimension zero-based array. Primitive elements are kept
// in p (stack form: integers normalized to the element type, floats as
// float64 bits), references in r, values of a value type in w, ew words
// each.
type managedArray struct {
	elem *il.Type
	p    []int64
	r    []any
	w    []value
	ew   int
	mark uint32
}

func (a *managedArray) length() int {
	switch {
	case a.r != nil:
		return len(a.r)
	case a.ew > 0:
		return len(a.w) / a.ew
	}
	return len(a.p)
}

// boxedValue is a boxed primitive value of kind k; n is in stack form.
type boxedValue struct {
	k    il.Kind
	mark uint32
	n    int64
}

// rtClass is the runtime view of a class.
type rtClass struct {
	c      *il.Class
	name   string
	vtable []*dmethod
	nf     int
	// itab holds, by interface index, the methods implementing each of
	// that interface's slots (nil: not implemented).
	itab [][]*dmethod
}

func newString(s string) *managedString {
	// Fast path for ASCII.
	u := make([]uint16, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			u = append(u, uint16(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			u = append(u, uint16(r1), uint16(r2))
		} else {
			u = append(u, uint16(r))
		}
	}
	return &managedString{u: u}
}

// goString converts to UTF-8; lone surrogates become U+FFFD.
func (s *managedString) goString() string {
	if s == nil {
		return ""
	}
	b := make([]byte, 0, len(s.u))
	for i := 0; i < len(s.u); i++ {
		c := s.u[i]
		if c < utf8.RuneSelf {
			b = append(b, byte(c))
			continue
		}
		r := rune(c)
		if utf16.IsSurrogate(r) {
			if c < 0xDC00 && i+1 < len(s.u) && s.u[i+1] >= 0xDC00 && s.u[i+1] < 0xE000 {
				r = utf16.DecodeRune(r, rune(s.u[i+1]))
				i++
			} else {
				r = utf8.RuneError
			}
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

func concatStrings(ss ...*managedString) *managedString {
	n := 0
	for _, s := range ss {
		if s != nil {
			n += len(s.u)
		}
	}
	u := make([]uint16, 0, n)
	for _, s := range ss {
		if s != nil {
			u = append(u, s.u...)
		}
	}
	return &managedString{u: u}
}

func stringsEqual(a, b *managedString) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.u) != len(b.u) {
		return false
	}
	for i := range a.u {
		if a.u[i] != b.u[i] {
			return false
		}
	}
	return true
}

// primKindByName maps System.Int32-style class names to primitive kinds.
var primKindByName = map[string]il.Kind{
	"System.Boolean": il.KBool, "System.Char": il.KChar, "System.SByte": il.KI1,
	"System.Byte": il.KU1, "System.Int16": il.KI2, "System.UInt16": il.KU2,
	"System.Int32": il.KI4, "System.UInt32": il.KU4, "System.Int64": il.KI8,
	"System.UInt64": il.KU8, "System.IntPtr": il.KI, "System.UIntPtr": il.KU,
	"System.Single": il.KR4, "System.Double": il.KR8,
}

// canonType maps class types that name a primitive (System.Int32) or one
// of the two primitive-named classes to the primitive type, also as the
// innermost element type of (jagged) arrays.
func canonType(t *il.Type) *il.Type {
	if t == nil {
		return nil
	}
	elem, depth := t, 0
	for elem.Kind == il.KArray {
		elem, depth = elem.Elem, depth+1
	}
	c := canonElem(elem)
	if c == elem {
		return t
	}
	for range depth {
		c = il.ArrayOf(c)
	}
	return c
}

// canonElem is canonType of a type that is no array.
func canonElem(t *il.Type) *il.Type {
	if t.Kind != il.KClass {
		return t
	}
	switch t.Name {
	case il.ObjectClass:
		return il.Object
	case il.StringClass:
		return il.String
	}
	if t.Class == nil {
		if k, ok := primKindByName[t.Name]; ok {
			return il.PrimitiveType(k)
		}
	}
	return t
}

// typeName is the CLR name of the runtime type of a non-null reference.
func typeName(r any) string {
	switch o := r.(type) {
	case *managedObject:
		return o.cls.name
	case *managedString:
		return il.StringClass
	case *managedArray:
		return o.elem.CLRName() + "[]"
	case *boxedValue:
		return il.PrimitiveType(o.k).CLRName()
	case *svalue:
		return o.cls.Name
	}
	return il.ObjectClass
}

// isInstance reports whether the non-null reference r is an instance of t.
func isInstance(r any, t *il.Type) bool {
	switch t.Kind {
	case il.KObject:
		return true
	case il.KString:
		_, ok := r.(*managedString)
		return ok
	case il.KClass:
		if t.Class == nil {
			return false
		}
		switch t.Class.Name {
		case il.ObjectClass:
			return true
		case il.StringClass:
			_, ok := r.(*managedString)
			return ok
		case il.ValueTypeClass:
			switch r.(type) {
			case *boxedValue, *svalue:
				return true
			}
			return false
		}
		o, ok := r.(*managedObject)
		if ok && t.Class.Interface {
			return o.cls.c.ImplementsIface(t.Class)
		}
		return ok && o.cls.c.IsSubclassOf(t.Class)
	case il.KArray:
		a, ok := r.(*managedArray)
		return ok && arrayElemAssignable(a.elem, t.Elem)
	case il.KValue:
		b, ok := r.(*svalue)
		return ok && b.cls == t.Class
	default:
		b, ok := r.(*boxedValue)
		return ok && b.k == t.Kind
	}
}

// arrayElemAssignable reports whether an array with element type from can
// be cast to an array with element type to: same type, reference covariance,
// or integer types of the same size that differ only in signedness. The
// element types of jagged arrays are compared level by level, in a loop.
func arrayElemAssignable(from, to *il.Type) bool {
	for from.Kind == il.KArray && to.Kind == il.KArray {
		from, to = from.Elem, to.Elem
	}
	if from.IsRef() && to.IsRef() {
		switch to.Kind {
		case il.KObject:
			return true
		case il.KString:
			return from.Kind == il.KString
		case il.KClass:
			if to.Class != nil && to.Class.Name == il.ObjectClass {
				return true
			}
			if to.Class != nil && to.Class.Name == il.StringClass {
				return from.Kind == il.KString
			}
			if from.Kind != il.KClass || from.Class == nil || to.Class == nil {
				return false
			}
			if to.Class.Interface {
				return from.Class.ImplementsIface(to.Class)
			}
			return from.Class.IsSubclassOf(to.Class)
		}
		return false // to is an array, from is not
	}
	if from.IsRef() || to.IsRef() {
		return false
	}
	if from.Kind == il.KValue || to.Kind == il.KValue {
		return from.Equal(to)
	}
	return intEquiv(from.Kind) == intEquiv(to.Kind)
}

func intEquiv(k il.Kind) il.Kind {
	switch k {
	case il.KU1:
		return il.KI1
	case il.KU2:
		return il.KI2
	case il.KU4:
		return il.KI4
	case il.KU8:
		return il.KI8
	case il.KU:
		return il.KI
	}
	return k
}

// normalize converts a stack value to what a location of kind k holds.
func normalize(k il.Kind, n int64) int64 {
	switch k {
	case il.KBool, il.KU1:
		return int64(uint8(n))
	case il.KI1:
		return int64(int8(n))
	case il.KI2:
		return int64(int16(n))
	case il.KU2, il.KChar:
		return int64(uint16(n))
	case il.KI4, il.KU4:
		return int64(int32(n))
	case il.KR4:
		return fbits(r4(f64(n)))
	}
	return n
}

// formatPrim formats a primitive value as Console.Write and ToString do.
func formatPrim(k il.Kind, n int64) string {
	switch k {
	case il.KBool:
		if n != 0 {
			return "True"
		}
		return "False"
	case il.KChar:
		return (&managedString{u: []uint16{uint16(n)}}).goString()
	case il.KU1, il.KU2:
		return strconv.FormatUint(uint64(n), 10)
	case il.KU4:
		return strconv.FormatUint(uint64(uint32(n)), 10)
	case il.KU8, il.KU:
		return strconv.FormatUint(uint64(n), 10)
	case il.KR4:
		return il.FormatR4(float32(f64(n)))
	case il.KR8:
		return il.FormatR8(f64(n))
	}
	return strconv.FormatInt(n, 10)
}

// primString is formatPrim as a managed string; a boxed char keeps its
// UTF-16 unit exactly.
func primString(k il.Kind, n int64) *managedString {
	if k == il.KChar {
		return &managedString{u: []uint16{uint16(n)}}
	}
	return newString(formatPrim(k, n))
}
