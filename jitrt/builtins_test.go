//go:build linux && amd64

package jitrt

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"miniil/abi"
	"miniil/il"
)

// builtinOutput is what Console.Write and WriteLine print, called in kind
// order with the arguments builtinArg gives.
const builtinOutput = "\ns\nTrue\nA\n7\n7\n7\n7\n1.5\n1.5\nSystem.Object\nsTrueA77771.51.5System.Object"

// builtinArg makes an argument of type t for a base library method: a
// new instance for this and objects (a builder holding "s"), "s" for
// strings, {"s", "t"} for a string or object array, 'A' for a char, 1
// for a bool, 7 for an integer (0 for String's and StringBuilder's
// methods, whose indexes and counts must fit "s"), 1.5 for a float (in
// its register form).
func builtinArg(t *testing.T, rt *Runtime, meth *il.Method, typ *il.Type) uint64 {
	t.Helper()
	var p uintptr
	var err error
	switch typ.Kind {
	case il.KBool:
		return 1
	case il.KChar:
		return 'A'
	case il.KI4, il.KU4, il.KI8, il.KU8:
		if meth.Owner.Name == il.StringClass || meth.Owner.Name == il.StringBuilderClass {
			return 0
		}
		return 7
	case il.KR8:
		return math.Float64bits(1.5)
	case il.KR4:
		return uint64(math.Float32bits(1.5))
	case il.KString:
		p, err = rt.newString(utf16Of("s"))
	case il.KObject:
		p, err = rt.newObject(rt.mod.Class(il.ObjectClass))
	case il.KClass:
		if p, err = rt.newObject(typ.Class); err == nil && typ.Class.Name == il.StringBuilderClass {
			var arr uintptr
			if arr, err = rt.newCharArray(il.StringBuilderDefaultCapacity); err == nil {
				rt.chars(arr)[0] = 's'
				rt.setU64(p+sbChars, uint64(arr))
				rt.setU64(p+sbLength, 1)
			}
		}
	case il.KArray:
		if typ.Elem.Kind != il.KString && typ.Elem.Kind != il.KObject {
			t.Fatalf("no test argument of type %v", typ)
		}
		at, err := rt.typeFor(typ)
		if err != nil {
			t.Fatal(err)
		}
		if p, err = rt.alloc(at, il.ArraySize(typ.Elem, 2)); err != nil {
			t.Fatal(err)
		}
		rt.setU64(p+abi.ArrLen, 2)
		for i, str := range []string{"s", "t"} {
			rt.setU64(p+abi.ArrData+uintptr(8*i), uint64(rt.StringAddr(str)))
		}
	case il.KByRef:
		// A pointer to the value in the first element of an int64[1].
		at, err := rt.typeFor(il.ArrayOf(il.Int64))
		if err != nil {
			t.Fatal(err)
		}
		if p, err = rt.alloc(at, il.ArraySize(il.Int64, 1)); err != nil {
			t.Fatal(err)
		}
		rt.setU64(p+abi.ArrLen, 1)
		rt.setU64(p+abi.ArrData, builtinArg(t, rt, meth, typ.Elem))
		return uint64(p + abi.ArrData)
	default:
		t.Fatalf("no test argument of type %v", typ)
	}
	if err != nil {
		t.Fatal(err)
	}
	return uint64(p)
}

// TestBuiltinDispatch runs every base library method kind through the
// runtime's dispatch: each must be implemented (an unknown kind is an
// error), a method returning a string must return one, and the Console
// methods must print what they are given.
func TestBuiltinDispatch(t *testing.T) {
	var out bytes.Buffer
	rt, mod := newTinyRuntime(t, Options{Stdout: &out})
	m := rt.mach
	for _, k := range il.BuiltinKinds() {
		meth := mod.BuiltinMethod(k)
		if meth.NewobjCall != nil {
			meth = meth.NewobjCall // what newobj calls
		}
		ni, nf := 0, 0
		for i := range meth.NumArgs() {
			typ := meth.ArgType(i)
			if typ.Kind == il.KR4 || typ.Kind == il.KR8 {
				m.SetReg(floatArgSlots[nf], builtinArg(t, rt, meth, typ))
				nf++
			} else {
				m.SetReg(intArgSlots[ni], builtinArg(t, rt, meth, typ))
				ni++
			}
		}
		if k == il.Int32Parse || k == il.Int64Parse || k == il.DoubleParse {
			p, err := rt.newString(utf16Of("7")) // "s" would throw
			if err != nil {
				t.Fatal(err)
			}
			m.SetReg(intArgSlots[0], uint64(p))
		}
		m.SetReg(abi.CtxRAX, 0)
		if err := rt.builtin(m, k); err != nil {
			t.Errorf("%v: %v", k, err)
			continue
		}
		if meth.Ret.Kind == il.KString {
			if p := uintptr(m.Reg(abi.CtxRAX)); p == 0 || rt.typeOf(p).kind != tkString {
				t.Errorf("%v returned %#x, not a string", k, p)
			}
		}
	}
	if err := rt.out.finish(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != builtinOutput {
		t.Errorf("Console methods printed %q, want %q", got, builtinOutput)
	}
	for _, k := range []il.BuiltinKind{il.BuiltinNone, il.BuiltinKind(len(il.BuiltinKinds()) + 1), math.MaxUint16} {
		if err := rt.builtin(m, k); err == nil || !strings.Contains(err.Error(), "not implemented") {
			t.Errorf("kind %d: error %v, want not implemented", k, err)
		}
	}
}

// TestPrimitiveToString calls the primitive types' ToString with this
// pointing into a frame of the native stack (a word of its own) and into
// the heap (the second element of an array of the type, packed): each
// reads the value with its type's width.
func TestPrimitiveToString(t *testing.T) {
	rt, _ := newTinyRuntime(t, Options{})
	m := rt.mach
	tests := []struct {
		kind il.BuiltinKind
		bits uint64 // the value, in the low bytes; the rest is noise the width drops
		want string
	}{
		{il.Int32ToString, 0xdead_beef_ffff_fffb, "-5"},
		{il.Int64ToString, 0x8000_0000_0000_0000, "-9223372036854775808"},
		{il.UInt32ToString, 0x1234_5678_ffff_ffff, "4294967295"},
		{il.UInt64ToString, 0xffff_ffff_ffff_ffff, "18446744073709551615"},
		{il.DoubleToString, math.Float64bits(-0.1), "-0.1"},
		{il.SingleToString, 0x7777_7777_0000_0000 | uint64(math.Float32bits(2.5)), "2.5"},
		{il.BooleanToString, 0xffff_ff00, "False"},
		{il.BooleanToString, 0xffff_ff02, "True"},
		{il.CharToString, 0xffff_0041, "A"},
	}
	_, hi := m.StackBounds()
	slot := hi - 64
	for _, tt := range tests {
		typ := tt.kind.PrimitiveToString()
		size := il.ElemSize(typ)
		at, err := rt.typeFor(il.ArrayOf(typ))
		if err != nil {
			t.Fatal(err)
		}
		arr, err := rt.alloc(at, il.ArraySize(typ, 3))
		if err != nil {
			t.Fatal(err)
		}
		rt.setU64(arr+abi.ArrLen, 3)
		elem := arr + abi.ArrData + uintptr(size)
		b := rt.bytes(elem, size)
		for i := range b {
			b[i] = byte(tt.bits >> (8 * i))
		}
		m.WriteStack(slot, tt.bits)
		for _, p := range []uintptr{slot, elem} {
			m.SetReg(intArgSlots[0], uint64(p))
			if err := rt.builtin(m, tt.kind); err != nil {
				t.Fatalf("%v: %v", tt.kind, err)
			}
			if got := goString(rt.str(uintptr(m.Reg(abi.CtxRAX)))); got != tt.want {
				t.Errorf("%v of %#x at %#x = %q, want %q", tt.kind, tt.bits, p, got, tt.want)
			}
		}
	}
}
