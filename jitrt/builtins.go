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
	a := args(m, meth)
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
	case il.StringConcatStringString, il.StringConcatStringStringString:
		var parts [][]uint16
		for _, s := range a {
			parts = append(parts, rt.str(uintptr(s)))
		}
		return ret(rt.concat(parts...))
	case il.StringConcatObjectObject:
		var parts [][]uint16
		for _, o := range a {
			s, err := rt.toStringOf(uintptr(o))
			if err != nil {
				return err
			}
			parts = append(parts, rt.str(s))
		}
		return ret(rt.concat(parts...))
	case il.StringGetLength:
		if a[0] == 0 {
			return rt.throwNewAt(m, "System.NullReferenceException")
		}
		return ret(uintptr(rt.u64(uintptr(a[0])+abi.StrLen)), nil)
	case il.StringOpEquality:
		x, y := uintptr(a[0]), uintptr(a[1])
		eq := x == y || x != 0 && y != 0 && equalUnits(rt.str(x), rt.str(y))
		return ret(b2u(eq), nil)
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
	case il.MathSqrt, il.MathAbsDouble, il.MathAbsInt32, il.MathAbsInt64,
		il.MathMinDouble, il.MathMinInt32, il.MathMinInt64,
		il.MathMaxDouble, il.MathMaxInt32, il.MathMaxInt64,
		il.MathFloor, il.MathCeiling, il.MathRound, il.MathTruncate,
		il.MathPow, il.MathExp, il.MathLog, il.MathLog10,
		il.MathSin, il.MathCos, il.MathTan, il.MathAtan, il.MathAtan2,
		il.Int32Parse, il.Int64Parse, il.DoubleParse,
		il.EnvironmentGetTickCount64, il.StopwatchGetTimestamp:
		return rt.libBuiltin(m, k, a)
	case il.ExceptionGetMessage, il.ExceptionToString:
		this := uintptr(a[0])
		if this == 0 {
			return rt.throwNewAt(m, "System.NullReferenceException")
		}
		if k == il.ExceptionGetMessage {
			return ret(rt.excMessage(this))
		}
		return ret(rt.excToString(this))
	}
	if k.IsExceptionCtor() {
		return rt.excCtor(m, meth, a)
	}
	return fmt.Errorf("jitrt: base library method %v is not implemented", k)
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
	default:
		if len(a) == 2 { // .ctor(string message)
			msg = uintptr(a[1])
		} else if s, ok := il.DefaultMessage(meth.Owner.Name); ok {
			msg = rt.StringAddr(s)
		}
	}
	rt.setU64(this+abi.ObjFields, uint64(msg))
	return nil
}

// excMessage is System.Exception's get_Message.
func (rt *Runtime) excMessage(exc uintptr) (uintptr, error) {
	if s := uintptr(rt.u64(exc + abi.ObjFields)); s != 0 {
		return s, nil
	}
	return rt.StringAddr(il.ExceptionDefaultMessage(rt.typeOf(exc).name)), nil
}

// excToString is System.Exception's ToString: "TYPE: MESSAGE", or "TYPE"
// for an empty message, with the virtual Message.
func (rt *Runtime) excToString(exc uintptr) (uintptr, error) {
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
	if len(rt.str(msg)) == 0 {
		return rt.StringAddr(t.name), nil
	}
	return rt.concat(utf16Of(t.name+": "), rt.str(msg))
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
	s, err := rt.alloc(rt.classMT[rt.mod.Class(il.StringClass)], il.StringSize(n))
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

func equalUnits(a, b []uint16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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
