package jitrt

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"miniil/abi"

	"miniil/il"
)

// Integer argument registers in SysV order, and the XMM ones.
var (
	intArgSlots   = []int{abi.CtxRDI, abi.CtxRSI, abi.CtxRDX, abi.CtxRCX, abi.CtxR8, abi.CtxR9}
	floatArgSlots = []int{abi.CtxXMM0, abi.CtxXMM1, abi.CtxXMM2, abi.CtxXMM3, abi.CtxXMM4, abi.CtxXMM5, abi.CtxXMM6, abi.CtxXMM7}
)

// args reads a base library method's arguments (this first) from the
// registers of a HelperBuiltin exit.
func args(m *Machine, meth *il.Method) []uint64 {
	vs := make([]uint64, 0, 4)
	ni, nf := 0, 0
	for i := 0; i < meth.NumArgs(); i++ {
		t := meth.ArgType(i)
		if t.Kind == il.KR4 || t.Kind == il.KR8 {
			vs = append(vs, m.Reg(floatArgSlots[nf]))
			nf++
		} else {
			vs = append(vs, m.Reg(intArgSlots[ni]))
			ni++
		}
	}
	return vs
}

// builtin runs the base library method of kind k for a HelperBuiltin exit
// or a virtual base library method's stub.
func (rt *Runtime) builtin(m *Machine, k il.BuiltinKind) error {
	var meth *il.Method
	if int(k) < len(rt.builtins) {
		meth = rt.builtins[k]
	}
	if meth == nil {
		return fmt.Errorf("jitrt: base library method %v is not implemented", k)
	}
	if k.IsStringBuilder() {
		return rt.sbBuiltin(m, k)
	}
	a := args(m, meth)
	if k.InCorelib() {
		return rt.libBuiltin(m, k, a)
	}
	ret := func(p uintptr, err error) error { return rt.result(p, err) }
	switch k {
	case il.ObjectCtor:
		return nil
	case il.ObjectToString:
		// Object's own ToString (called directly, or inherited): the type
		// name of a class instance; strings, boxes and arrays have their
		// own text.
		if a[0] == 0 {
			return rt.throwNewAt(m, "System.NullReferenceException")
		}
		if t := rt.typeOf(uintptr(a[0])); t.kind == tkClass {
			return ret(rt.StringAddr(t.name), nil)
		}
		return ret(rt.toStringOf(uintptr(a[0])))
	case il.StringConcatStringString, il.StringConcatStringStringString, il.StringConcatStringStringStringString:
		strs := make([]uintptr, len(a))
		for i, s := range a {
			strs[i] = uintptr(s)
		}
		return ret(rt.concatOf(strs...))
	case il.StringConcatObjectObject, il.StringConcatObjectObjectObject:
		return ret(rt.concatToStrings(a))
	case il.StringConcatStringArray:
		return rt.concatArray(m, uintptr(a[0]))
	case il.StringGetLength:
		if a[0] == 0 {
			return rt.throwNewAt(m, "System.NullReferenceException")
		}
		return ret(uintptr(rt.u64(uintptr(a[0])+abi.StrLen)), nil)
	case il.StringOpEquality, il.StringOpInequality:
		x, y := uintptr(a[0]), uintptr(a[1])
		eq := x == y || x != 0 && y != 0 && slices.Equal(rt.str(x), rt.str(y))
		return ret(b2u(eq == (k == il.StringOpEquality)), nil)
	case il.StringGetChars, il.StringSubstringInt32, il.StringSubstringInt32Int32,
		il.StringIndexOfChar, il.StringIndexOfString, il.StringEqualsString,
		il.StringToUpperInvariant, il.StringToLowerInvariant:
		return rt.stringMethod(m, k, a)
	case il.ObjectEquals, il.ObjectReferenceEquals, il.StringConcatObjectArray,
		il.StringIndexOfCharInt32, il.StringIndexOfStringInt32, il.StringLastIndexOfChar,
		il.StringContains, il.StringStartsWith, il.StringEndsWith, il.StringEqualsObject:
		return rt.libMember(m, k, a)
	case il.StringCompareOrdinal:
		x, y := uintptr(a[0]), uintptr(a[1])
		var r int32
		switch {
		case x == y:
		case x == 0:
			r = -1
		case y == 0:
			r = 1
		default:
			r = il.CompareOrdinal(rt.str(x), rt.str(y))
		}
		return ret(uintptr(uint32(r)), nil)
	case il.StringCtorCharInt32:
		// newobj, through Method.NewobjCall: (char, count), no this.
		c, count := uint16(a[0]), int32(a[1])
		switch {
		case count < 0:
			return rt.throwNew(m, il.ArgumentOutOfRangeClass, il.ParamMessage(il.MsgCountNegative, "count"))
		case count == 0:
			return ret(rt.StringAddr(""), nil)
		}
		p, err := rt.alloc(rt.stringT, il.StringSize(int(count)))
		if err != nil {
			return err
		}
		rt.setU64(p+abi.StrLen, uint64(count))
		u := unsafe.Slice((*uint16)(unsafe.Pointer(&rt.bytes(p+abi.StrData, 2*int(count))[0])), count)
		for i := range u {
			u[i] = c
		}
		return ret(p, nil)
	case il.ConsoleWriteLine:
		rt.out.ascii(newline)
		return nil
	case il.ConsoleWriteLineString, il.ConsoleWriteLineBoolean, il.ConsoleWriteLineChar,
		il.ConsoleWriteLineInt32, il.ConsoleWriteLineUInt32, il.ConsoleWriteLineInt64,
		il.ConsoleWriteLineUInt64, il.ConsoleWriteLineDouble, il.ConsoleWriteLineSingle,
		il.ConsoleWriteLineObject:
		if err := rt.write(meth.Params[0].Type.Kind, a[0]); err != nil {
			return err
		}
		rt.out.ascii(newline)
		return nil
	case il.ConsoleWriteString, il.ConsoleWriteBoolean, il.ConsoleWriteChar,
		il.ConsoleWriteInt32, il.ConsoleWriteUInt32, il.ConsoleWriteInt64,
		il.ConsoleWriteUInt64, il.ConsoleWriteDouble, il.ConsoleWriteSingle,
		il.ConsoleWriteObject:
		return rt.write(meth.Params[0].Type.Kind, a[0])
	case il.ExceptionGetMessage, il.ExceptionToString, il.ExceptionGetInnerException:
		this := uintptr(a[0])
		if this == 0 {
			return rt.throwNewAt(m, "System.NullReferenceException")
		}
		switch k {
		case il.ExceptionGetMessage:
			return ret(rt.excMessage(this))
		case il.ExceptionGetInnerException:
			return ret(rt.innerOf(this), nil)
		}
		return ret(rt.excToString(this))
	case il.Int32ToString, il.Int64ToString, il.UInt32ToString, il.UInt64ToString,
		il.DoubleToString, il.SingleToString, il.BooleanToString, il.CharToString:
		// this is the address of the value (a managed pointer).
		p := uintptr(a[0])
		if p == 0 {
			return rt.throwNewAt(m, "System.NullReferenceException")
		}
		t := k.PrimitiveToString()
		return ret(rt.newString(utf16Of(formatPrim(t.Kind, rt.loadAt(m, p, il.ElemSize(t))))))
	}
	if k.IsExceptionCtor() {
		return rt.excCtor(m, meth, a)
	}
	return fmt.Errorf("jitrt: base library method %v is not implemented", k)
}

// loadAt reads the n-byte value (n is 1, 2, 4 or 8, and the value
// naturally aligned) a managed pointer p points to: in the heap, in the
// statics of the metadata arena, or in a frame on m's native stack.
func (rt *Runtime) loadAt(m *Machine, p uintptr, n int) uint64 {
	if lo, hi := m.StackBounds(); p >= lo && p < hi {
		w := m.ReadStack(p&^7) >> (8 * (p & 7))
		if n < 8 {
			w &= 1<<(8*n) - 1
		}
		return w
	}
	var v uint64
	for i, b := range rt.bytes(p, n) {
		v |= uint64(b) << (8 * i)
	}
	return v
}

// excCtor runs meth, a constructor of System.Exception or of a base
// library exception class, on arguments a (this first).
func (rt *Runtime) excCtor(m *Machine, meth *il.Method, a []uint64) error {
	this := uintptr(a[0])
	if this == 0 {
		return rt.throwNewAt(m, "System.NullReferenceException")
	}
	var msg uintptr
	switch meth.BuiltinKind {
	case il.ArgumentNullExceptionCtorString, il.ArgumentOutOfRangeExceptionCtorString:
		// CoreCLR: the argument is the parameter name.
		def, _ := il.DefaultMessage(meth.Owner.Name)
		msg = rt.StringAddr(def)
		if p := rt.str(uintptr(a[1])); len(p) > 0 {
			var err error
			if msg, err = rt.concat(utf16Of(def+" (Parameter '"), p, utf16Of("')")); err != nil {
				return err
			}
		}
	case il.TypeInitializationExceptionCtorStringException:
		// .ctor(string fullTypeName, Exception innerException)
		var err error
		if msg, err = rt.concat(utf16Of("The type initializer for '"), rt.str(uintptr(a[1])), utf16Of("' threw an exception.")); err != nil {
			return err
		}
		rt.gc.writeRef(this+excInner, a[2])
		rt.keepInnerTrace(uintptr(a[2]))
	default:
		switch len(a) {
		case 3: // .ctor(string message, Exception innerException)
			msg = uintptr(a[1])
			rt.gc.writeRef(this+excInner, a[2])
		case 2: // .ctor(string message)
			msg = uintptr(a[1])
		default:
			if s, ok := il.DefaultMessage(meth.Owner.Name); ok {
				msg = rt.StringAddr(s)
			}
		}
	}
	rt.gc.writeRef(this+abi.ObjFields, uint64(msg))
	return nil
}

// excInner is the offset of System.Exception's _innerException, the
// field after _message.
const excInner = abi.ObjFields + 8

// innerOf returns an exception's InnerException (0: none).
func (rt *Runtime) innerOf(exc uintptr) uintptr { return uintptr(rt.u64(exc + excInner)) }

// innerTooDeep reports whether exc's chain of inner exceptions is longer
// than il.MaxInnerExceptions (or a cycle): its ToString is then a stack
// overflow, at the same call on both engines.
func (rt *Runtime) innerTooDeep(exc uintptr) bool {
	n := 0
	for in := rt.innerOf(exc); in != 0; in = rt.innerOf(in) {
		if n++; n > il.MaxInnerExceptions {
			return true
		}
	}
	return false
}

// stringMethod runs the instance methods of System.String on arguments
// a (this first): a null this is a NullReferenceException, as CoreCLR's
// call of an instance method on null.
func (rt *Runtime) stringMethod(m *Machine, k il.BuiltinKind, a []uint64) error {
	this := uintptr(a[0])
	if this == 0 {
		return rt.throwNewAt(m, "System.NullReferenceException")
	}
	u := rt.str(this)
	switch k {
	case il.StringGetChars:
		i := int32(a[1])
		if uint32(i) >= uint32(len(u)) {
			return rt.throwNewAt(m, "System.IndexOutOfRangeException")
		}
		return rt.result(uintptr(u[i]), nil)
	case il.StringSubstringInt32, il.StringSubstringInt32Int32:
		n, start := int32(len(u)), int32(a[1])
		one := k == il.StringSubstringInt32
		length := n - start
		if !one {
			length = int32(a[2])
		}
		switch out, msg := il.Substring(n, start, length, one); out {
		case il.SubstringSame:
			return rt.result(this, nil)
		case il.SubstringEmpty:
			return rt.result(rt.StringAddr(""), nil)
		case il.SubstringThrow:
			return rt.throwNew(m, il.ArgumentOutOfRangeClass, msg)
		}
		return rt.result(rt.concat(u[start : start+length]))
	case il.StringIndexOfChar:
		return rt.result(uintptr(uint32(il.IndexOfChar(u, uint16(a[1])))), nil)
	case il.StringIndexOfString:
		if a[1] == 0 {
			return rt.throwNew(m, il.ArgumentNullClass, il.ArgumentNullMessage("value"))
		}
		return rt.result(uintptr(uint32(il.IndexOfString(u, rt.str(uintptr(a[1]))))), nil)
	case il.StringEqualsString:
		v := uintptr(a[1])
		return rt.result(b2u(v != 0 && (v == this || slices.Equal(u, rt.str(v)))), nil)
	case il.StringToUpperInvariant, il.StringToLowerInvariant:
		if len(u) == 0 {
			return rt.result(rt.StringAddr(""), nil)
		}
		f := il.ToUpperInvariant
		if k == il.StringToLowerInvariant {
			f = il.ToLowerInvariant
		}
		out, changed := f(u)
		if !changed {
			return rt.result(this, nil)
		}
		return rt.result(rt.concat(out))
	}
	return fmt.Errorf("jitrt: base library method %v is not implemented", k)
}

// concatOf is String.Concat of 2 to 4 strings (0 for null, which counts
// as empty) as CoreCLR returns it: String.Empty when every part is
// empty, the one part that is not when there is one, else a new string.
func (rt *Runtime) concatOf(strs ...uintptr) (uintptr, error) {
	var one uintptr
	n := 0
	parts := make([][]uint16, len(strs))
	for i, p := range strs {
		if parts[i] = rt.str(p); len(parts[i]) > 0 {
			one = p
			n++
		}
	}
	switch n {
	case 0:
		return rt.StringAddr(""), nil
	case 1:
		return one, nil
	}
	return rt.concat(parts...)
}

// concatArray is String.Concat(string[]): ArgumentNullException for a
// null array; for no element String.Empty, for one the element itself
// (String.Empty for null); else String.Empty if every element is null or
// empty, or a new string.
func (rt *Runtime) concatArray(m *Machine, arr uintptr) error {
	if arr == 0 {
		return rt.throwNew(m, il.ArgumentNullClass, il.ArgumentNullMessage("values"))
	}
	n := int(rt.u64(arr + abi.ArrLen))
	elem := func(i int) uintptr { return uintptr(rt.u64(arr + abi.ArrData + uintptr(8*i))) }
	switch n {
	case 0:
		return rt.result(rt.StringAddr(""), nil)
	case 1:
		if s := elem(0); s != 0 {
			return rt.result(s, nil)
		}
		return rt.result(rt.StringAddr(""), nil)
	}
	parts := make([][]uint16, n)
	total := 0
	for i := range parts {
		parts[i] = rt.str(elem(i))
		total += len(parts[i])
	}
	if total == 0 {
		return rt.result(rt.StringAddr(""), nil)
	}
	return rt.result(rt.concat(parts...))
}

// excMessage is System.Exception's get_Message.
func (rt *Runtime) excMessage(exc uintptr) (uintptr, error) {
	if s := uintptr(rt.u64(exc + abi.ObjFields)); s != 0 {
		return s, nil
	}
	return rt.StringAddr(il.ExceptionDefaultMessage(rt.typeOf(exc).name)), nil
}

// excToString is System.Exception's ToString: "TYPE: MESSAGE" (": MESSAGE"
// only for a message that is not empty) with the virtual Message, then
// for an inner exception "\n ---> INNER\n   --- End of inner exception
// stack trace ---" with INNER its virtual ToString; "TYPE" alone is
// interned. A chain of inner exceptions too long to follow is a stack
// overflow.
func (rt *Runtime) excToString(exc uintptr) (uintptr, error) {
	if rt.innerTooDeep(exc) {
		return 0, &StackOverflowError{PC: rt.mach.PC(), SP: rt.mach.SP()}
	}
	t := rt.typeOf(exc)
	var msg uintptr
	var err error
	if t.class.VTable[rt.getMessage].BuiltinKind == il.ExceptionGetMessage {
		msg, err = rt.excMessage(exc)
	} else {
		msg, err = rt.callVirtual(exc, rt.getMessage)
	}
	if err != nil {
		return 0, err
	}
	inner := rt.innerOf(exc)
	if len(rt.str(msg)) == 0 && inner == 0 {
		return rt.StringAddr(t.name), nil
	}
	defer rt.hold(msg)()
	parts := [][]uint16{utf16Of(t.name)}
	if m := rt.str(msg); len(m) > 0 {
		parts = append(parts, utf16Of(": "), m)
	}
	if inner != 0 {
		s, err := rt.toStringOf(inner)
		if err != nil {
			return 0, err
		}
		rt.hold(s) // released with msg
		parts = append(parts, utf16Of("\n"+il.InnerExceptionPrefix), rt.str(s), utf16Of("\n   "+il.EndOfInnerExceptionStack))
	}
	return rt.concat(parts...)
}

// concatToStrings is String.Concat of two or three objects: their
// ToStrings in order, each kept live while the next is made, then
// concatenated. (A function of its own: a defer in builtin's switch
// would slow every base library call.)
func (rt *Runtime) concatToStrings(a []uint64) (uintptr, error) {
	var strs [3]uintptr
	defer rt.hold()()
	for i, o := range a {
		s, err := rt.toStringOf(uintptr(o))
		if err != nil {
			return 0, err
		}
		strs[i] = s
		rt.hold(s)
	}
	return rt.concatOf(strs[:len(a)]...)
}

// toStringOf is the virtual ToString of obj ("" for null).
func (rt *Runtime) toStringOf(obj uintptr) (uintptr, error) {
	if obj == 0 {
		return rt.StringAddr(""), nil
	}
	t := rt.typeOf(obj)
	switch t.kind {
	case tkString:
		return obj, nil
	case tkArray:
		return rt.StringAddr(t.name), nil
	case tkBox:
		return rt.newString(utf16Of(formatPrim(t.prim, rt.u64(obj+abi.BoxValue))))
	}
	impl := t.class.VTable[rt.toString]
	switch {
	case !impl.Builtin:
		return rt.callVirtual(obj, rt.toString)
	case impl.BuiltinKind == il.ExceptionToString:
		return rt.excToString(obj)
	case impl.BuiltinKind == il.StringBuilderToString:
		return rt.sbString(obj)
	}
	return rt.StringAddr(t.name), nil
}

// write prints one Console.Write argument of type kind k.
func (rt *Runtime) write(k il.Kind, v uint64) error {
	switch k {
	case il.KString:
		rt.out.units(rt.str(uintptr(v)))
	case il.KChar:
		rt.out.char(uint16(v))
	case il.KObject:
		s, err := rt.toStringOf(uintptr(v))
		if err != nil {
			return err
		}
		rt.out.units(rt.str(s))
	default:
		rt.out.ascii([]byte(formatPrim(k, v)))
	}
	return nil
}

// formatPrim formats a primitive value (in its register or box form) as
// Console.Write and ToString do.
func formatPrim(k il.Kind, v uint64) string {
	switch k {
	case il.KBool:
		if uint8(v) != 0 {
			return "True"
		}
		return "False"
	case il.KChar:
		return goString([]uint16{uint16(v)})
	case il.KI1:
		return strconv.FormatInt(int64(int8(v)), 10)
	case il.KU1:
		return strconv.FormatUint(uint64(uint8(v)), 10)
	case il.KI2:
		return strconv.FormatInt(int64(int16(v)), 10)
	case il.KU2:
		return strconv.FormatUint(uint64(uint16(v)), 10)
	case il.KI4:
		return strconv.FormatInt(int64(int32(v)), 10)
	case il.KU4:
		return strconv.FormatUint(uint64(uint32(v)), 10)
	case il.KU8, il.KU:
		return strconv.FormatUint(v, 10)
	case il.KR4:
		return il.FormatR4(math.Float32frombits(uint32(v)))
	case il.KR8:
		return il.FormatR8(math.Float64frombits(v))
	}
	return strconv.FormatInt(int64(v), 10)
}

// concat allocates the concatenation of UTF-16 strings, copying each part
// once, straight into the new string.
func (rt *Runtime) concat(parts ...[]uint16) (uintptr, error) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	s, err := rt.alloc(rt.stringT, il.StringSize(n))
	if err != nil {
		return 0, err
	}
	rt.setU64(s+abi.StrLen, uint64(n))
	if n > 0 {
		dst := unsafe.Slice((*uint16)(unsafe.Pointer(&rt.bytes(s+abi.StrData, 2*n)[0])), n)
		for _, p := range parts {
			dst = dst[copy(dst, p):]
		}
	}
	return s, nil
}

func utf16Of(s string) []uint16 { return utf16.Encode([]rune(s)) }

func goString(u []uint16) string { return string(utf16.Decode(u)) }

var newline = []byte{'\n'}

// outWriter buffers standard output and encodes UTF-16 to UTF-8 like
// .NET's console stream: a surrogate pair written in two calls still forms
// one character, lone surrogates become U+FFFD. With lines set it flushes
// after every write that ends a line (as C's stdio does for a terminal);
// otherwise only when the buffer fills and when the run ends.
type outWriter struct {
	w     *bufio.Writer
	hi    uint16 // pending high surrogate
	lines bool   // flush after every write containing a newline
}

func newOutWriter(w io.Writer, lines bool) *outWriter {
	return &outWriter{w: bufio.NewWriterSize(w, 64<<10), lines: lines}
}

func (o *outWriter) flushHi() {
	if o.hi != 0 {
		o.w.WriteRune(utf8.RuneError)
		o.hi = 0
	}
}

func (o *outWriter) ascii(b []byte) {
	o.flushHi()
	o.w.Write(b)
	if o.lines && bytes.IndexByte(b, '\n') >= 0 {
		o.w.Flush()
	}
}

func (o *outWriter) unit(c uint16) {
	switch {
	case c < utf8.RuneSelf && o.hi == 0:
		o.w.WriteByte(byte(c))
	case c >= 0xD800 && c < 0xDC00:
		o.flushHi()
		o.hi = c
	case c >= 0xDC00 && c < 0xE000:
		if o.hi != 0 {
			o.w.WriteRune(utf16.DecodeRune(rune(o.hi), rune(c)))
			o.hi = 0
		} else {
			o.w.WriteRune(utf8.RuneError)
		}
	default:
		o.flushHi()
		o.w.WriteRune(rune(c))
	}
}

// char writes one UTF-16 unit (Console.Write(char)).
func (o *outWriter) char(c uint16) {
	o.unit(c)
	if o.lines && c == '\n' {
		o.w.Flush()
	}
}

func (o *outWriter) units(u []uint16) {
	for _, c := range u {
		o.unit(c)
	}
	if o.lines && slices.Contains(u, '\n') {
		o.w.Flush()
	}
}

func (o *outWriter) finish() error {
	o.flushHi()
	return o.w.Flush()
}
