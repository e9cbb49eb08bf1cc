package interp

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"miniil/il"
)

// builtinOutput is what Console.Write and WriteLine print, called in kind
// order with the arguments builtinArg gives.
const builtinOutput = "\ns\nTrue\nA\n7\n7\n7\n7\n1.5\n1.5\nSystem.Object\nsTrueA77771.51.5System.Object"

// builtinArg makes an argument of type t for a base library method: a
// new instance for this and objects (a builder holding "s"), "s" for
// strings, {"s", "t"} for a string or object array, 'A' for a char, 1
// for a bool, 7 for an integer (0 for String's and StringBuilder's
// methods, whose indexes and counts must fit "s"), 1.5 for a float.
func builtinArg(t *testing.T, s *state, meth *il.Method, typ *il.Type) value {
	t.Helper()
	switch typ.Kind {
	case il.KBool:
		return value{n: 1}
	case il.KChar:
		return value{n: 'A'}
	case il.KI4, il.KU4, il.KI8, il.KU8:
		if meth.Owner.Name == il.StringClass || meth.Owner.Name == il.StringBuilderClass {
			return value{n: 0}
		}
		return value{n: 7}
	case il.KR4, il.KR8:
		return value{n: fbits(1.5)}
	case il.KString:
		return value{r: newString("s")}
	case il.KObject:
		return value{r: &managedObject{cls: s.rtc(s.objClass)}}
	case il.KClass:
		rc := s.rtc(typ.Class)
		o := &managedObject{cls: rc, f: make([]value, rc.nf)}
		if typ.Class.Name == il.StringBuilderClass {
			o.f[0].r = &sbBuffer{u: append(make([]uint16, 0, il.StringBuilderDefaultCapacity), 's')}
		}
		return value{r: o}
	case il.KArray:
		if typ.Elem.Kind == il.KString || typ.Elem.Kind == il.KObject {
			return value{r: &managedArray{elem: typ.Elem, r: []any{newString("s"), newString("t")}}}
		}
	case il.KByRef:
		// A pointer to the value in a box.
		v := builtinArg(t, s, meth, typ.Elem)
		return mkPtr(&boxedValue{k: typ.Elem.Kind, n: v.n}, 0, typ.Elem.Kind)
	}
	t.Fatalf("no test argument of type %v", typ)
	return value{}
}

// TestBuiltinDispatch runs every base library method kind through the
// interpreter's dispatch: each must be implemented (an unknown kind is an
// error), a method returning a string must return one, and the Console
// methods must print what they are given.
func TestBuiltinDispatch(t *testing.T) {
	mod, err := il.Load("t.il", []byte(".method static void main() { .entrypoint ret }"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	s := newState(context.Background(), mod, Options{Stdout: &out})
	if err := s.setup(); err != nil {
		t.Fatal(err)
	}
	for _, k := range il.BuiltinKinds() {
		meth := mod.BuiltinMethod(k)
		if meth.NewobjCall != nil {
			meth = meth.NewobjCall // what newobj calls
		}
		var args []value
		for i := range meth.NumArgs() {
			args = append(args, builtinArg(t, s, meth, meth.ArgType(i)))
		}
		if k == il.Int32Parse || k == il.Int64Parse || k == il.DoubleParse {
			args[0] = value{r: newString("7")} // "s" would throw
		}
		res, st := s.builtin(s.method(meth), args)
		if st != stOK {
			t.Errorf("%v: status %d, error %v, exception %v", k, st, s.deferred, s.pend)
			s.deferred, s.pend = nil, nil
			continue
		}
		if _, ok := res.r.(*managedString); meth.Ret.Kind == il.KString && !ok {
			t.Errorf("%v returned %v, not a string", k, res.r)
		}
	}
	if err := s.out.finish(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != builtinOutput {
		t.Errorf("Console methods printed %q, want %q", got, builtinOutput)
	}
	for _, k := range []il.BuiltinKind{il.BuiltinNone, il.BuiltinKind(len(il.BuiltinKinds()) + 1), math.MaxUint16} {
		meth := &il.Method{Name: "Fake", Owner: s.objClass, Static: true, Ret: il.Void, Builtin: true, BuiltinKind: k}
		_, st := s.builtin(s.method(meth), nil)
		if st != stErr || s.deferred == nil || !strings.Contains(s.deferred.Error(), "not implemented") {
			t.Errorf("kind %d: status %d, error %v; want not implemented", k, st, s.deferred)
		}
		s.deferred = nil
	}
}
