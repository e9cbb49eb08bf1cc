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

// excToString is System.Exception's ToString given the Message and, for
// an exception with an inner exception (hasInner), the inner exception's
// ToString: "TYPE: MESSAGE" (": MESSAGE" only for a message that is not
// empty), then for the inner exception "\n ---> INNER\n   --- End of inner
// exception stack trace ---", as one new string; just the type name (as
// the JIT, an interned string, not charged) when there is neither. exc is
// the OutOfMemoryException to throw instead when the string does not fit.
func (s *state) excToString(o *managedObject, msg, inner *managedString, hasInner bool) (str *managedString, exc *managedObject) {
	name := newString(o.cls.name)
	hasMsg := msg != nil && len(msg.u) > 0
	if !hasMsg && !hasInner {
		return name, nil
	}
	parts := []*managedString{name}
	if hasMsg {
		parts = append(parts, newString(": "), msg)
	}
	if hasInner {
		parts = append(parts, newString("\n"+il.InnerExceptionPrefix), inner, newString("\n   "+il.EndOfInnerExceptionStack))
	}
	return s.concat(parts...)
}

// innerOf returns an exception's InnerException (nil: none).
func innerOf(o *managedObject) *managedObject {
	in, _ := o.f[1].r.(*managedObject)
	return in
}

// innerTooDeep reports whether o's chain of inner exceptions is longer
// than il.MaxInnerExceptions (or a cycle): its ToString is then a stack
// overflow, at the same call on both engines.
func innerTooDeep(o *managedObject) bool {
	n := 0
	for in := innerOf(o); in != nil; in = innerOf(in) {
		if n++; n > il.MaxInnerExceptions {
			return true
		}
	}
	return false
}

// quickExcString is the builtin Exception.ToString of o when no managed
// code is involved: its Message and those of its inner exceptions are
// the builtin get_Message, and their ToStrings builtin (ok false
// otherwise, and for a chain of inner exceptions too long to follow,
// which the slow path reports). New strings are charged to the heap; exc
// is the OutOfMemoryException to throw when they do not fit.
func (s *state) quickExcString(o *managedObject) (str *managedString, ok bool, exc *managedObject) {
	if o.cls.vtable[s.msgSlot].bi != il.ExceptionGetMessage || innerTooDeep(o) {
		return nil, false, nil
	}
	var inner *managedString
	in := innerOf(o)
	h := len(s.held)
	if in != nil {
		if inner, ok, exc = s.quickString(in); !ok || exc != nil {
			return nil, ok, exc
		}
		if inner != nil {
			s.hold(inner) // maybe a new string: live while the concatenation is made
		}
	}
	str, exc = s.excToString(o, s.excMessage(o), inner, in != nil)
	s.release(h)
	return str, true, exc
}

// excToStringNative runs the builtin Exception.ToString of o in a native
// frame, which calls the managed get_Message or inner ToString it needs;
// a chain of inner exceptions too long to follow is a stack overflow.
// nested: another native frame asks, with no managed frame in between.
func (s *state) excToStringNative(o *managedObject, nested bool) (value, bstatus) {
	if innerTooDeep(o) {
		s.deferred = &StackOverflowError{}
		return value{}, stErr
	}
	n := &native{op: natExcToString, vals: [3]any{o}, n: 1, nested: nested}
	if in := innerOf(o); in != nil {
		n.vals[1], n.n = in, 2
	}
	return s.pushNative(n)
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
		if !s.chargeStr(str) {
			return nil, true, s.outOfMemory()
		}
		return str, true, nil
	case *managedArray, *svalue:
		return newString(typeName(o)), true, nil
	case *managedObject:
		t := o.cls.vtable[s.toStringSlot]
		switch t.bi {
		case il.ObjectToString:
			return newString(o.cls.name), true, nil
		case il.ExceptionToString:
			return s.quickExcString(o)
		case il.StringBuilderToString:
			str, exc := s.sbString(o)
			return str, true, exc
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

// builtin runs a base library method on args (this first), which are
// roots of the heap limit's mark while it runs (the caller's evaluation
// stack no longer counts them).
func (s *state) builtin(dm *dmethod, args []value) (value, bstatus) {
	s.args = args
	v, st := s.runBuiltin(dm, args)
	s.args = nil
	return v, st
}

func (s *state) runBuiltin(dm *dmethod, args []value) (value, bstatus) {
	if dm.bi.InCorelib() {
		return s.libBuiltin(dm, args)
	}
	if dm.bi.IsStringBuilder() {
		return s.sbBuiltin(dm, args)
	}
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
		return s.strResult(s.concatOf(a, b))
	case il.StringConcatStringStringString:
		a, _ := args[0].r.(*managedString)
		b, _ := args[1].r.(*managedString)
		c, _ := args[2].r.(*managedString)
		return s.strResult(s.concatOf(a, b, c))
	case il.StringConcatObjectObject, il.StringConcatObjectObjectObject:
		// In order, as the JIT: each ToString, then the concatenation.
		n := &native{op: natConcat, n: len(args)}
		for i, a := range args {
			n.vals[i] = a.r
		}
		defer s.release(s.hold(n)) // the strings made so far stay live
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
	case il.StringGetLength:
		str, ok := args[0].r.(*managedString)
		if !ok {
			return s.nre()
		}
		return value{n: int64(len(str.u))}, stOK
	case il.StringOpEquality, il.StringOpInequality:
		a, _ := args[0].r.(*managedString)
		b, _ := args[1].r.(*managedString)
		return value{n: b2i(stringsEqual(a, b) == (k == il.StringOpEquality))}, stOK
	case il.StringGetChars, il.StringSubstringInt32, il.StringSubstringInt32Int32,
		il.StringIndexOfChar, il.StringIndexOfString, il.StringEqualsString,
		il.StringToUpperInvariant, il.StringToLowerInvariant:
		return s.stringMethod(k, args)
	case il.ObjectEquals, il.ObjectReferenceEquals, il.StringConcatObjectArray,
		il.StringIndexOfCharInt32, il.StringIndexOfStringInt32, il.StringLastIndexOfChar,
		il.StringContains, il.StringStartsWith, il.StringEndsWith, il.StringEqualsObject:
		return s.libMember(k, args)
	case il.StringCompareOrdinal:
		a, _ := args[0].r.(*managedString)
		b, _ := args[1].r.(*managedString)
		switch {
		case a == b:
			return value{n: 0}, stOK
		case a == nil:
			return value{n: -1}, stOK
		case b == nil:
			return value{n: 1}, stOK
		}
		return value{n: int64(il.CompareOrdinal(a.u, b.u))}, stOK
	case il.StringConcatStringStringStringString:
		var parts [4]*managedString
		for i := range parts {
			parts[i], _ = args[i].r.(*managedString)
		}
		return s.strResult(s.concatOf(parts[:]...))
	case il.StringConcatStringArray:
		arr, ok := args[0].r.(*managedArray)
		if !ok {
			return s.throwing(s.newExcMsg(il.ArgumentNullClass, il.ArgumentNullMessage("values")))
		}
		if len(arr.r) <= 1 {
			// CoreCLR: the element itself (String.Empty for none or null).
			if len(arr.r) == 1 {
				if str, _ := arr.r[0].(*managedString); str != nil {
					return value{r: str}, stOK
				}
			}
			return value{r: s.empty}, stOK
		}
		parts := make([]*managedString, len(arr.r))
		n := 0
		for i, r := range arr.r {
			parts[i], _ = r.(*managedString)
			n += len(parts[i].orEmpty())
		}
		if n == 0 {
			return value{r: s.empty}, stOK
		}
		return s.strResult(s.concat(parts...))
	case il.StringCtorCharInt32:
		// newobj, through Method.NewobjCall: (char, count), no this.
		c, count := uint16(args[0].n), int32(args[1].n)
		switch {
		case count < 0:
			return s.throwing(s.newExcMsg(il.ArgumentOutOfRangeClass, il.ParamMessage(il.MsgCountNegative, "count")))
		case count == 0:
			return value{r: s.empty}, stOK
		}
		if !s.charge(il.StringSize(int(count))) {
			return s.throwing(s.outOfMemory())
		}
		u := make([]uint16, count)
		for i := range u {
			u[i] = c
		}
		return value{r: &managedString{u: u, charged: true}}, stOK
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
	case il.ExceptionGetInnerException:
		o, ok := args[0].r.(*managedObject)
		if !ok {
			return s.nre()
		}
		return value{r: o.f[1].r}, stOK
	case il.ExceptionGetMessage, il.ExceptionToString:
		o, ok := args[0].r.(*managedObject)
		if !ok {
			return s.nre()
		}
		if k == il.ExceptionGetMessage {
			return value{r: s.excMessage(o)}, stOK
		}
		if str, ok, exc := s.quickExcString(o); ok || exc != nil {
			return s.strResult(str, exc)
		}
		return s.excToStringNative(o, false)
	case il.Int32ToString, il.Int64ToString, il.UInt32ToString, il.UInt64ToString,
		il.DoubleToString, il.SingleToString, il.BooleanToString, il.CharToString:
		// this is a managed pointer to the value.
		v, ok := s.ptrLoad(args[0])
		if !ok {
			return s.nre()
		}
		t := k.PrimitiveToString()
		str := primString(t.Kind, normalize(t.Kind, v.n))
		if !s.chargeStr(str) {
			return s.throwing(s.outOfMemory())
		}
		return value{r: str}, stOK
	}
	if dm.bi.IsExceptionCtor() {
		return s.excCtor(dm, args)
	}
	return value{}, s.fail(dm)
}

// stringMethod runs the instance methods of System.String on args (this
// first): a null this is a NullReferenceException, as CoreCLR's call of
// an instance method on null.
func (s *state) stringMethod(k il.BuiltinKind, args []value) (value, bstatus) {
	str, ok := args[0].r.(*managedString)
	if !ok {
		return s.nre()
	}
	u := str.u
	switch k {
	case il.StringGetChars:
		i := int32(args[1].n)
		if uint32(i) >= uint32(len(u)) {
			return s.throwing(s.newExc("System.IndexOutOfRangeException"))
		}
		return value{n: int64(u[i])}, stOK
	case il.StringSubstringInt32, il.StringSubstringInt32Int32:
		n, start := int32(len(u)), int32(args[1].n)
		one := k == il.StringSubstringInt32
		length := n - start
		if !one {
			length = int32(args[2].n)
		}
		switch out, msg := il.Substring(n, start, length, one); out {
		case il.SubstringSame:
			return value{r: str}, stOK
		case il.SubstringEmpty:
			return value{r: s.empty}, stOK
		case il.SubstringThrow:
			return s.throwing(s.newExcMsg(il.ArgumentOutOfRangeClass, msg))
		}
		return s.strResult(s.newStr(u[start : start+length]))
	case il.StringIndexOfChar:
		return value{n: int64(il.IndexOfChar(u, uint16(args[1].n)))}, stOK
	case il.StringIndexOfString:
		v, ok := args[1].r.(*managedString)
		if !ok {
			return s.throwing(s.newExcMsg(il.ArgumentNullClass, il.ArgumentNullMessage("value")))
		}
		return value{n: int64(il.IndexOfString(u, v.u))}, stOK
	case il.StringEqualsString:
		v, _ := args[1].r.(*managedString)
		return value{n: b2i(v != nil && (v == str || slices.Equal(u, v.u)))}, stOK
	case il.StringToUpperInvariant, il.StringToLowerInvariant:
		if len(u) == 0 {
			return value{r: s.empty}, stOK
		}
		f := il.ToUpperInvariant
		if k == il.StringToLowerInvariant {
			f = il.ToLowerInvariant
		}
		out, changed := f(u)
		if !changed {
			return value{r: str}, stOK
		}
		return s.strResult(s.newStr(out))
	}
	return value{}, s.fail(s.method(s.mod.BuiltinMethod(k)))
}

// newStr makes a new string of units u (which it keeps: strings are
// immutable) charged to the heap, or returns the OutOfMemoryException to
// throw.
func (s *state) newStr(u []uint16) (*managedString, *managedObject) {
	if !s.charge(il.StringSize(len(u))) {
		return nil, s.outOfMemory()
	}
	return &managedString{u: u, charged: true}, nil
}

// concatOf is String.Concat of 2 to 4 strings (null counts as empty) as
// CoreCLR returns it: String.Empty when every part is empty, the one
// part that is not when there is one, else a new string charged to the
// heap (exc: the OutOfMemoryException to throw when it does not fit).
func (s *state) concatOf(parts ...*managedString) (str *managedString, exc *managedObject) {
	var one *managedString
	n := 0
	for _, p := range parts {
		if p != nil && len(p.u) > 0 {
			one = p
			n++
		}
	}
	switch n {
	case 0:
		return s.empty, nil
	case 1:
		return one, nil
	}
	return s.concat(parts...)
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
	case dm.bi == il.TypeInitializationExceptionCtorStringException:
		// .ctor(string fullTypeName, Exception innerException)
		name, _ := args[1].r.(*managedString)
		msg, exc := s.concat(newString("The type initializer for '"), name, newString("' threw an exception."))
		if exc != nil {
			return s.throwing(exc)
		}
		o.f[0].r, o.f[1].r = msg, args[2].r
		s.keepInnerTrace(args[2].r)
	case len(args) == 3: // .ctor(string message, Exception innerException)
		o.f[0].r, o.f[1].r = args[1].r, args[2].r
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
				return s.pushNative(&native{op: natWrite, nl: dm.bnl, vals: [3]any{args[0].r}, n: 1})
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
	natConcat                   // String.Concat(object, object) and (object, object, object)
	natExcToString              // Exception.ToString with a managed Message or inner ToString
	natAppend                   // StringBuilder.Append(object): vals[1] is the builder
	natConcatArray              // String.Concat(object[]): the elements of arr into parts
	natValueEquals              // Object.Equals of a boxed value type calling Equals overrides (eq, callee)
)

// native is a base library method that calls managed code (a ToString or
// get_Message override): a frame on the frame stack that collects the
// strings vals[0:n] turn into (for natConcatArray, the elements of arr,
// each read when its turn comes, into parts), then finishes.
type native struct {
	op     natOp
	nl     bool
	nested bool // pushed by another native frame (see pushNative)
	vals   [3]any
	strs   [3]*managedString
	arr    *managedArray
	parts  []*managedString
	eq     []eqWork // natValueEquals
	callee *dmethod // natValueEquals: the Equals override to call next
	n, i   int
}

// val returns the value whose string the frame collects next.
func (n *native) val() any {
	if n.op == natConcatArray {
		return n.arr.r[n.i]
	}
	return n.vals[n.i]
}

// put records the string of the value val returned, and moves on.
func (n *native) put(str *managedString) {
	if n.op == natConcatArray {
		n.parts[n.i] = str
	} else {
		n.strs[n.i] = str
	}
	n.i++
}

// pushNative pushes a native frame and starts it; it always waits for at
// least one managed call. Callbacks are counted as the JIT counts the
// managed calls its runtime makes from Go: a native frame that another
// one pushes (an Exception.ToString that Console.Write or an outer
// ToString needs) adds no level, as the JIT's Go code calls it without
// a managed call in between.
func (s *state) pushNative(n *native) (value, bstatus) {
	callbacks := s.topCallbacks()
	if !n.nested {
		callbacks++
	}
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
	if n.op == natValueEquals {
		if uint8(v.n) == 0 { // an override said the fields differ
			s.popFrame()
			return s.deliver(value{n: 0}, true)
		}
		return s.natEquals(n)
	}
	str, _ := v.r.(*managedString)
	n.put(str)
	return s.natRun()
}

func (s *state) natRun() error {
	n := s.frames[len(s.frames)-1].nat
	if n.op == natValueEquals {
		return s.natEquals(n)
	}
	for n.i < n.n {
		v := n.val()
		if n.op == natExcToString && n.i == 0 { // the Message; then the inner exception's ToString
			o := v.(*managedObject)
			mt := o.cls.vtable[s.msgSlot]
			if mt.bi != il.ExceptionGetMessage {
				return s.callFromGo(mt, value{r: o})
			}
			n.put(s.excMessage(o))
		} else if str, ok, exc := s.quickString(v); exc != nil {
			return s.throw(exc, false)
		} else if ok {
			n.put(str)
		} else {
			o := v.(*managedObject)
			t := o.cls.vtable[s.toStringSlot]
			if t.bi == il.ExceptionToString {
				if _, st := s.excToStringNative(o, true); st == stErr {
					err := s.deferred
					s.deferred = nil
					return err
				}
				return nil
			}
			return s.callFromGo(t, value{r: o})
		}
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
		str, exc := s.concatOf(n.strs[:n.n]...)
		if exc != nil {
			return s.throw(exc, false)
		}
		res.r = str
	case natConcatArray:
		str, exc := s.concatArrayOf(n.parts)
		if exc != nil {
			return s.throw(exc, false)
		}
		res.r = str
	case natExcToString:
		str, exc := s.excToString(n.vals[0].(*managedObject), n.strs[0], n.strs[1], n.n == 2)
		if exc != nil {
			return s.throw(exc, false)
		}
		res.r = str
	case natAppend:
		o := n.vals[1].(*managedObject)
		if exc := s.sbAppend(o, n.strs[0].orEmpty()); exc != nil {
			return s.throw(exc, false)
		}
		res.r = o
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
