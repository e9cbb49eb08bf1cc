package interp

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

	"miniil/il"
)

// unknownBuiltin is the kind of a base library method that resolution
// gave none: calling it is an engine error (see fail).
const unknownBuiltin il.BuiltinKind = math.MaxUint16

// classifyBuiltin prepares base library method dm: its kind, and what
// its implementation needs to know beyond it.
func classifyBuiltin(dm *dmethod) {
	m := dm.il
	dm.bi = m.BuiltinKind
	switch dm.bi {
	case il.BuiltinNone:
		dm.bi = unknownBuiltin
	case il.ConsoleWriteLine:
		dm.bnl = true
		dm.bkind = il.KVoid
	case il.ConsoleWriteLineString, il.ConsoleWriteLineBoolean, il.ConsoleWriteLineChar,
		il.ConsoleWriteLineInt32, il.ConsoleWriteLineUInt32, il.ConsoleWriteLineInt64,
		il.ConsoleWriteLineUInt64, il.ConsoleWriteLineDouble, il.ConsoleWriteLineSingle,
		il.ConsoleWriteLineObject:
		dm.bnl = true
		dm.bkind = canonType(m.Params[0].Type).Kind
	case il.ConsoleWriteString, il.ConsoleWriteBoolean, il.ConsoleWriteChar,
		il.ConsoleWriteInt32, il.ConsoleWriteUInt32, il.ConsoleWriteInt64,
		il.ConsoleWriteUInt64, il.ConsoleWriteDouble, il.ConsoleWriteSingle,
		il.ConsoleWriteObject:
		dm.bkind = canonType(m.Params[0].Type).Kind
	case il.ArgumentNullExceptionCtorString, il.ArgumentOutOfRangeExceptionCtorString:
		// CoreCLR: the argument is the parameter name, and Message is the
		// default message plus " (Parameter 'NAME')".
		msg, _ := il.DefaultMessage(m.Owner.Name)
		dm.bmsg = newString(msg)
	default:
		if dm.bi.IsExceptionCtor() && len(m.Params) == 0 {
			if msg, ok := il.DefaultMessage(m.Owner.Name); ok {
				dm.bmsg = newString(msg)
			}
		}
	}
}

// excMessage is System.Exception's get_Message.
func (s *state) excMessage(o *managedObject) *managedString {
	if str, ok := o.f[0].r.(*managedString); ok {
		return str
	}
	return newString(il.ExceptionDefaultMessage(o.cls.name))
}

// excToString is System.Exception's ToString given the Message: "TYPE:
// MESSAGE" (a new string), or the type name (as the JIT, an interned
// string, not charged) for an empty message. exc is the
// OutOfMemoryException to throw instead when the string does not fit.
func (s *state) excToString(o *managedObject, msg *managedString) (str *managedString, exc *managedObject) {
	name := newString(o.cls.name)
	if msg == nil || len(msg.u) == 0 {
		return name, nil
	}
	return s.concat(name, newString(": "), msg)
}

// quickString returns the virtual ToString of r when no managed code is
// involved (ok false: a managed method must run). New strings are charged
// to the heap; exc is the OutOfMemoryException to throw when they do not
// fit. Strings the JIT interns (type names, "") are not charged.
func (s *state) quickString(r any) (str *managedString, ok bool, exc *managedObject) {
	switch o := r.(type) {
	case nil:
		return s.empty, true, nil
	case *managedString:
		return o, true, nil
	case *boxedValue:
		str := primString(o.k, o.n)
		if !s.charge(il.StringSize(len(str.u))) {
			return nil, true, s.outOfMemory()
		}
		return str, true, nil
	case *managedArray:
		return newString(typeName(o)), true, nil
	case *managedObject:
		t := o.cls.vtable[s.toStringSlot]
		switch t.bi {
		case il.ObjectToString:
			return newString(o.cls.name), true, nil
		case il.ExceptionToString:
			if o.cls.vtable[s.msgSlot].bi == il.ExceptionGetMessage {
				str, exc := s.excToString(o, s.excMessage(o))
				return str, true, exc
			}
		}
	}
	return nil, false, nil
}

// throwing makes exc the pending exception of a base library call.
func (s *state) throwing(exc *managedObject) (value, bstatus) {
	s.pend = exc
	return value{}, stThrow
}

// strResult returns a new string as a base library call's result, or throws
// exc.
func (s *state) strResult(str *managedString, exc *managedObject) (value, bstatus) {
	if exc != nil {
		return s.throwing(exc)
	}
	return value{r: str}, stOK
}

// builtin runs a base library method on args (this first).
func (s *state) builtin(dm *dmethod, args []value) (value, bstatus) {
	switch k := dm.bi; k {
	case il.ObjectCtor:
		return value{}, stOK
	case il.ObjectToString:
		switch o := args[0].r.(type) {
		case nil:
			return s.nre()
		case *managedObject:
			return value{r: newString(o.cls.name)}, stOK
		default:
			str, _, exc := s.quickString(o)
			return s.strResult(str, exc)
		}
	case il.StringConcatStringString:
		a, _ := args[0].r.(*managedString)
		b, _ := args[1].r.(*managedString)
		return s.strResult(s.concat(a, b))
	case il.StringConcatStringStringString:
		a, _ := args[0].r.(*managedString)
		b, _ := args[1].r.(*managedString)
		c, _ := args[2].r.(*managedString)
		return s.strResult(s.concat(a, b, c))
	case il.StringConcatObjectObject:
		// In order, as the JIT: each ToString, then the concatenation.
		n := &native{op: natConcat, vals: [2]any{args[0].r, args[1].r}, n: 2}
		for ; n.i < 2; n.i++ {
			str, ok, exc := s.quickString(n.vals[n.i])
			if exc != nil {
				return s.throwing(exc)
			}
			if !ok {
				return s.pushNative(n)
			}
			n.strs[n.i] = str
		}
		return s.strResult(s.concat(n.strs[0], n.strs[1]))
	case il.StringGetLength:
		str, ok := args[0].r.(*managedString)
		if !ok {
			return s.nre()
		}
		return value{n: int64(len(str.u))}, stOK
	case il.StringOpEquality:
		a, _ := args[0].r.(*managedString)
		b, _ := args[1].r.(*managedString)
		return value{n: b2i(stringsEqual(a, b))}, stOK
	case il.ConsoleWriteLine,
		il.ConsoleWriteLineString, il.ConsoleWriteLineBoolean, il.ConsoleWriteLineChar,
		il.ConsoleWriteLineInt32, il.ConsoleWriteLineUInt32, il.ConsoleWriteLineInt64,
		il.ConsoleWriteLineUInt64, il.ConsoleWriteLineDouble, il.ConsoleWriteLineSingle,
		il.ConsoleWriteLineObject,
		il.ConsoleWriteString, il.ConsoleWriteBoolean, il.ConsoleWriteChar,
		il.ConsoleWriteInt32, il.ConsoleWriteUInt32, il.ConsoleWriteInt64,
		il.ConsoleWriteUInt64, il.ConsoleWriteDouble, il.ConsoleWriteSingle,
		il.ConsoleWriteObject:
		return s.write(dm, args)
	case il.MathSqrt, il.MathAbsDouble, il.MathAbsInt32, il.MathAbsInt64,
		il.MathMinDouble, il.MathMinInt32, il.MathMinInt64,
		il.MathMaxDouble, il.MathMaxInt32, il.MathMaxInt64,
		il.MathFloor, il.MathCeiling, il.MathRound, il.MathTruncate,
		il.MathPow, il.MathExp, il.MathLog, il.MathLog10,
		il.MathSin, il.MathCos, il.MathTan, il.MathAtan, il.MathAtan2,
		il.Int32Parse, il.Int64Parse, il.DoubleParse,
		il.EnvironmentGetTickCount64, il.StopwatchGetTimestamp:
		return s.libBuiltin(dm, args)
	case il.ExceptionGetMessage, il.ExceptionToString:
		o, ok := args[0].r.(*managedObject)
		if !ok {
			return s.nre()
		}
		if k == il.ExceptionGetMessage {
			return value{r: s.excMessage(o)}, stOK
		}
		mt := o.cls.vtable[s.msgSlot]
		if mt.bi == il.ExceptionGetMessage {
			return s.strResult(s.excToString(o, s.excMessage(o)))
		}
		return s.pushNative(&native{op: natExcToString, vals: [2]any{o}, n: 1})
	}
	if dm.bi.IsExceptionCtor() {
		return s.excCtor(dm, args)
	}
	return value{}, s.fail(dm)
}

// excCtor runs dm, a constructor of System.Exception or of a base library
// exception class.
func (s *state) excCtor(dm *dmethod, args []value) (value, bstatus) {
	o, ok := args[0].r.(*managedObject)
	if !ok {
		return s.nre()
	}
	switch {
	case dm.bi == il.ArgumentNullExceptionCtorString || dm.bi == il.ArgumentOutOfRangeExceptionCtorString:
		o.f[0].r = dm.bmsg
		if p, _ := args[1].r.(*managedString); p != nil && len(p.u) > 0 {
			msg, exc := s.concat(dm.bmsg, newString(" (Parameter '"), p, newString("')"))
			if exc != nil {
				return s.throwing(exc)
			}
			o.f[0].r = msg
		}
	case len(args) == 2: // .ctor(string message)
		o.f[0].r = args[1].r
	case dm.bmsg != nil:
		o.f[0].r = dm.bmsg
	default:
		o.f[0].r = nil
	}
	return value{}, stOK
}

// write runs Console.Write and Console.WriteLine.
func (s *state) write(dm *dmethod, args []value) (value, bstatus) {
	o := s.out
	if len(args) == 1 {
		n := args[0].n
		switch dm.bkind {
		case il.KString:
			str, _ := args[0].r.(*managedString)
			if str != nil {
				o.units(str.u)
			}
		case il.KChar:
			o.char(uint16(n))
		case il.KObject:
			str, ok, exc := s.quickString(args[0].r)
			if exc != nil {
				return s.throwing(exc)
			}
			if !ok {
				return s.pushNative(&native{op: natWrite, nl: dm.bnl, vals: [2]any{args[0].r}, n: 1})
			}
			o.units(str.u)
		case il.KI4:
			o.ascii(strconv.AppendInt(o.scratch[:0], int64(int32(n)), 10))
		case il.KI8:
			o.ascii(strconv.AppendInt(o.scratch[:0], n, 10))
		default:
			o.ascii(append(o.scratch[:0], formatPrim(dm.bkind, n)...))
		}
	}
	if dm.bnl {
		o.ascii(newline)
	}
	return value{}, stOK
}

var newline = []byte{'\n'}

func (s *state) nre() (value, bstatus) {
	s.pend = s.newExc("System.NullReferenceException")
	return value{}, stThrow
}

// fail reports a base library method the interpreter does not implement
// as an engine error (not an exception a program could catch).
func (s *state) fail(dm *dmethod) bstatus {
	s.deferred = fmt.Errorf("interp: base library method %v (%s) is not implemented", dm.il.BuiltinKind, dm.il.Signature())
	return stErr
}

// natOp is the work of a native frame.
type natOp uint8

const (
	natWrite       natOp = iota // Console.Write(object)/WriteLine(object)
	natConcat                   // String.Concat(object, object)
	natExcToString              // Exception.ToString with a managed Message
)

// native is a base library method that calls managed code (a ToString or
// get_Message override): a frame on the frame stack that collects the
// strings vals[0:n] turn into, then finishes.
type native struct {
	op   natOp
	nl   bool
	vals [2]any
	strs [2]*managedString
	n, i int
}

// pushNative pushes a native frame and starts it; it always waits for at
// least one managed call.
func (s *state) pushNative(n *native) (value, bstatus) {
	callbacks := s.topCallbacks() + 1
	if callbacks > il.MaxCallbackDepth {
		s.deferred = &StackOverflowError{}
		return value{}, stErr
	}
	end := s.topEnd()
	s.frames = append(s.frames, frame{kind: fkNative, nat: n, end: end, lbase: end, sbase: end, depth: s.topDepth(), callbacks: callbacks})
	if err := s.natRun(); err != nil {
		s.deferred = err
		return value{}, stErr
	}
	return value{}, stPushed
}

// natResume receives the result of a managed call made by the native
// frame on top.
func (s *state) natResume(v value) error {
	n := s.frames[len(s.frames)-1].nat
	n.strs[n.i], _ = v.r.(*managedString)
	n.i++
	return s.natRun()
}

func (s *state) natRun() error {
	n := s.frames[len(s.frames)-1].nat
	for n.i < n.n {
		v := n.vals[n.i]
		if n.op == natExcToString {
			o := v.(*managedObject)
			mt := o.cls.vtable[s.msgSlot]
			if mt.bi != il.ExceptionGetMessage {
				return s.callFromGo(mt, value{r: o})
			}
			n.strs[n.i] = s.excMessage(o)
		} else if str, ok, exc := s.quickString(v); exc != nil {
			return s.throw(exc, false)
		} else if ok {
			n.strs[n.i] = str
		} else {
			o := v.(*managedObject)
			t := o.cls.vtable[s.toStringSlot]
			if t.bi == il.ExceptionToString {
				if _, st := s.pushNative(&native{op: natExcToString, vals: [2]any{o}, n: 1}); st == stErr {
					err := s.deferred
					s.deferred = nil
					return err
				}
				return nil
			}
			return s.callFromGo(t, value{r: o})
		}
		n.i++
	}
	var res value
	has := true
	switch n.op {
	case natWrite:
		s.out.units(n.strs[0].orEmpty())
		if n.nl {
			s.out.ascii(newline)
		}
		has = false
	case natConcat:
		str, exc := s.concat(n.strs[0], n.strs[1])
		if exc != nil {
			return s.throw(exc, false)
		}
		res.r = str
	case natExcToString:
		str, exc := s.excToString(n.vals[0].(*managedObject), n.strs[0])
		if exc != nil {
			return s.throw(exc, false)
		}
		res.r = str
	}
	s.popFrame()
	return s.deliver(res, has)
}

func (str *managedString) orEmpty() []uint16 {
	if str == nil {
		return nil
	}
	return str.u
}

// outWriter buffers standard output and encodes UTF-16 to UTF-8 like .NET's
// console stream: a surrogate pair written in two calls still forms one
// character, lone surrogates become U+FFFD. With lines set it flushes after
// every write that ends a line (as C's stdio does for a terminal);
// otherwise only when the buffer fills and when the run ends.
type outWriter struct {
	w       *bufio.Writer
	hi      uint16 // pending high surrogate
	lines   bool   // flush after every write containing a newline
	scratch []byte
}

func newOutWriter(w io.Writer, lines bool) *outWriter {
	return &outWriter{w: bufio.NewWriterSize(w, 64<<10), lines: lines, scratch: make([]byte, 0, 64)}
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

// char writes one UTF-16 unit (Console.Write(char)).
func (o *outWriter) char(c uint16) {
	o.unit(c)
	if o.lines && c == '\n' {
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
