package interp

import (
	"bufio"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"miniil/il"
)

// builtinID identifies a base library method.
type builtinID uint8

const (
	bNone builtinID = iota
	bUnknown
	bObjCtor
	bObjToString
	bExcCtor0
	bExcCtor1
	bExcCtorParam // .ctor(string paramName) of ArgumentNullException, ArgumentOutOfRangeException
	bExcGetMessage
	bExcToString
	bConcat2
	bConcat3
	bConcatObj
	bStrLength
	bStrEq
	bWrite // Console.Write/WriteLine; bkind is the parameter kind (KVoid: none)
)

func classifyBuiltin(dm *dmethod) {
	m := dm.il
	ps := m.Params
	owner := m.Owner.Name
	dm.bi = bUnknown
	switch {
	case owner == il.ObjectClass:
		switch {
		case m.Name == ".ctor" && len(ps) == 0:
			dm.bi = bObjCtor
		case m.Name == "ToString" && len(ps) == 0:
			dm.bi = bObjToString
		}
	case owner == il.StringClass:
		switch {
		case m.Name == "Concat" && len(ps) == 2 && ps[0].Type.Kind == il.KString && ps[1].Type.Kind == il.KString:
			dm.bi = bConcat2
		case m.Name == "Concat" && len(ps) == 3:
			dm.bi = bConcat3
		case m.Name == "Concat" && len(ps) == 2:
			dm.bi = bConcatObj
		case m.Name == "get_Length":
			dm.bi = bStrLength
		case m.Name == "op_Equality":
			dm.bi = bStrEq
		}
	case owner == il.ConsoleClass:
		if m.Name == "Write" || m.Name == "WriteLine" {
			dm.bi = bWrite
			dm.bnl = m.Name == "WriteLine"
			dm.bkind = il.KVoid
			if len(ps) == 1 {
				dm.bkind = canonType(ps[0].Type).Kind
			}
		}
	default: // exception classes
		switch {
		case m.Name == ".ctor" && len(ps) == 0:
			dm.bi = bExcCtor0
			if msg, ok := il.DefaultMessage(owner); ok {
				dm.bmsg = newString(msg)
			}
		case m.Name == ".ctor" && len(ps) == 1:
			dm.bi = bExcCtor1
			if owner == "System.ArgumentNullException" || owner == "System.ArgumentOutOfRangeException" {
				// CoreCLR: the argument is the parameter name, and Message
				// is the default message plus " (Parameter 'NAME')".
				dm.bi = bExcCtorParam
				msg, _ := il.DefaultMessage(owner)
				dm.bmsg = newString(msg)
			}
		case m.Name == "get_Message":
			dm.bi = bExcGetMessage
		case m.Name == "ToString":
			dm.bi = bExcToString
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

// excToString is System.Exception's ToString given the Message.
func excToString(o *managedObject, msg *managedString) *managedString {
	name := newString(o.cls.name)
	if msg == nil || len(msg.u) == 0 {
		return name
	}
	return concatStrings(name, newString(": "), msg)
}

// quickString returns the virtual ToString of r when no managed code is
// involved.
func (s *state) quickString(r any) (*managedString, bool) {
	switch o := r.(type) {
	case nil:
		return s.empty, true
	case *managedString:
		return o, true
	case *boxedValue:
		return primString(o.k, o.n), true
	case *managedArray:
		return newString(typeName(o)), true
	case *managedObject:
		t := o.cls.vtable[s.toStringSlot]
		switch t.bi {
		case bObjToString:
			return newString(o.cls.name), true
		case bExcToString:
			if o.cls.vtable[s.msgSlot].bi == bExcGetMessage {
				return excToString(o, s.excMessage(o)), true
			}
		}
	}
	return nil, false
}

// builtin runs a base library method on args (this first).
func (s *state) builtin(dm *dmethod, args []value) (value, bstatus) {
	switch dm.bi {
	case bObjCtor:
		return value{}, stOK
	case bObjToString:
		switch o := args[0].r.(type) {
		case nil:
			return s.nre()
		case *managedObject:
			return value{r: newString(o.cls.name)}, stOK
		default:
			str, _ := s.quickString(o)
			return value{r: str}, stOK
		}
	case bExcCtor0, bExcCtor1, bExcCtorParam, bExcGetMessage, bExcToString:
		o, ok := args[0].r.(*managedObject)
		if !ok {
			return s.nre()
		}
		switch dm.bi {
		case bExcCtor0:
			if dm.bmsg != nil {
				o.f[0].r = dm.bmsg
			} else {
				o.f[0].r = nil
			}
			return value{}, stOK
		case bExcCtor1:
			o.f[0].r = args[1].r
			return value{}, stOK
		case bExcCtorParam:
			o.f[0].r = dm.bmsg
			if p, _ := args[1].r.(*managedString); p != nil && len(p.u) > 0 {
				o.f[0].r = concatStrings(dm.bmsg, newString(" (Parameter '"), p, newString("')"))
			}
			return value{}, stOK
		case bExcGetMessage:
			return value{r: s.excMessage(o)}, stOK
		default:
			mt := o.cls.vtable[s.msgSlot]
			if mt.bi == bExcGetMessage {
				return value{r: excToString(o, s.excMessage(o))}, stOK
			}
			return s.pushNative(&native{op: natExcToString, vals: [2]any{o}, n: 1})
		}
	case bConcat2:
		a, _ := args[0].r.(*managedString)
		b, _ := args[1].r.(*managedString)
		return value{r: concatStrings(a, b)}, stOK
	case bConcat3:
		a, _ := args[0].r.(*managedString)
		b, _ := args[1].r.(*managedString)
		c, _ := args[2].r.(*managedString)
		return value{r: concatStrings(a, b, c)}, stOK
	case bConcatObj:
		a, ok1 := s.quickString(args[0].r)
		b, ok2 := s.quickString(args[1].r)
		if ok1 && ok2 {
			return value{r: concatStrings(a, b)}, stOK
		}
		return s.pushNative(&native{op: natConcat, vals: [2]any{args[0].r, args[1].r}, n: 2})
	case bStrLength:
		str, ok := args[0].r.(*managedString)
		if !ok {
			return s.nre()
		}
		return value{n: int64(len(str.u))}, stOK
	case bStrEq:
		a, _ := args[0].r.(*managedString)
		b, _ := args[1].r.(*managedString)
		return value{n: b2i(stringsEqual(a, b))}, stOK
	case bWrite:
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
				o.unit(uint16(n))
			case il.KObject:
				str, ok := s.quickString(args[0].r)
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
	return value{}, s.fail(dm)
}

var newline = []byte{'\n'}

func (s *state) nre() (value, bstatus) {
	s.pend = s.newExc("System.NullReferenceException")
	return value{}, stThrow
}

func (s *state) fail(dm *dmethod) bstatus {
	o := s.newExc("System.NotSupportedException")
	o.f[0].r = newString("interp: base library method " + dm.il.Signature() + " is not implemented")
	s.pend = o
	return stThrow
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
			if mt.bi != bExcGetMessage {
				return s.callFromGo(mt, value{r: o})
			}
			n.strs[n.i] = s.excMessage(o)
		} else if str, ok := s.quickString(v); ok {
			n.strs[n.i] = str
		} else {
			o := v.(*managedObject)
			t := o.cls.vtable[s.toStringSlot]
			if t.bi == bExcToString {
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
		res.r = concatStrings(n.strs[0], n.strs[1])
	case natExcToString:
		res.r = excToString(n.vals[0].(*managedObject), n.strs[0])
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
// character, lone surrogates become U+FFFD.
type outWriter struct {
	w       *bufio.Writer
	hi      uint16 // pending high surrogate
	scratch []byte
}

func newOutWriter(w io.Writer) *outWriter {
	return &outWriter{w: bufio.NewWriterSize(w, 64<<10), scratch: make([]byte, 0, 64)}
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
}

func (o *outWriter) finish() error {
	o.flushHi()
	return o.w.Flush()
}
