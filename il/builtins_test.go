package il_test

import (
	"strings"
	"testing"

	"miniil/il"
)

const userOverrides = `
.assembly extern mscorlib {}
.assembly a {}
.class public MyExc extends [mscorlib]System.Exception
{
  .method public specialname rtspecialname instance void .ctor() cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Exception::.ctor()
    ret
  }
  .method public virtual instance string ToString() cil managed
  {
    ldstr "mine"
    ret
  }
  .method public virtual instance string get_Message() cil managed
  {
    ldstr "mine"
    ret
  }
}
.method static void main() cil managed
{
  .entrypoint
  ret
}
`

// kindText is how BuiltinKind.String spells method m.
func kindText(m *il.Method) string {
	var ps []string
	for _, p := range m.Params {
		ps = append(ps, p.Type.String())
	}
	return strings.TrimPrefix(m.Owner.Name, "System.") + "." + m.Name + "(" + strings.Join(ps, ",") + ")"
}

// TestBuiltinKinds checks that resolution gives every base library method
// of a module its own kind, that every kind belongs to exactly one method,
// and that methods with a body have none.
func TestBuiltinKinds(t *testing.T) {
	mod, err := il.Load("user.il", []byte(userOverrides))
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[il.BuiltinKind]*il.Method{}
	bySig := map[string]il.BuiltinKind{}
	for _, name := range il.BaseLibraryClasses() {
		c := mod.Class(name)
		if c == nil {
			t.Fatalf("no base library class %s", name)
		}
		for _, m := range c.Methods {
			k := m.BuiltinKind
			if !m.Builtin || k == il.BuiltinNone {
				t.Errorf("%s: Builtin %v, kind %v", m.Signature(), m.Builtin, k)
				continue
			}
			if other, ok := byKind[k]; ok {
				t.Errorf("%s and %s share kind %v", m.Signature(), other.Signature(), k)
			}
			byKind[k] = m
			if other, ok := bySig[m.Signature()]; ok {
				t.Errorf("%s is declared twice (kinds %d and %d)", m.Signature(), other, k)
			}
			bySig[m.Signature()] = k
			if got, want := k.String(), kindText(m); got != want {
				t.Errorf("kind of %s prints as %q, want %q", m.Signature(), got, want)
			}
			isCtor := m.Name == ".ctor" && c.IsSubclassOf(mod.Class(il.ExceptionClass))
			if k.IsExceptionCtor() != isCtor {
				t.Errorf("%v.IsExceptionCtor() = %v, want %v", k, k.IsExceptionCtor(), isCtor)
			}
		}
	}
	kinds := il.BuiltinKinds()
	if len(kinds) != len(byKind) {
		t.Errorf("%d kinds, %d base library methods", len(kinds), len(byKind))
	}
	for _, k := range kinds {
		m := byKind[k]
		if m == nil {
			t.Errorf("kind %d (%v) has no method", k, k)
			continue
		}
		if got := mod.BuiltinMethod(k); got != m {
			t.Errorf("BuiltinMethod(%v) = %v, want %s", k, got, m.Signature())
		}
	}
	all := mod.BuiltinMethods()
	if len(all) != len(kinds)+1 {
		t.Errorf("BuiltinMethods: %d entries, want %d", len(all), len(kinds)+1)
	} else if all[il.BuiltinNone] != nil {
		t.Errorf("BuiltinMethods()[BuiltinNone] = %s, want nil", all[il.BuiltinNone].Signature())
	}
	for k, m := range all {
		if k > 0 && m != byKind[il.BuiltinKind(k)] {
			t.Errorf("BuiltinMethods()[%d] = %v, want %s", k, m, byKind[il.BuiltinKind(k)].Signature())
		}
	}
	for _, m := range mod.Class("MyExc").Methods {
		if m.Builtin || m.BuiltinKind != il.BuiltinNone {
			t.Errorf("user method %s: Builtin %v, kind %v", m.Signature(), m.Builtin, m.BuiltinKind)
		}
	}
	for _, m := range mod.AllMethods() {
		if m.Abstract {
			continue // no body
		}
		if m.BuiltinKind != il.BuiltinNone {
			t.Errorf("method with a body %s has kind %v", m.Signature(), m.BuiltinKind)
		}
	}
	for _, k := range []il.BuiltinKind{il.BuiltinNone, il.BuiltinKind(len(kinds) + 1), 0xFFFF} {
		if m := mod.BuiltinMethod(k); m != nil {
			t.Errorf("BuiltinMethod(%d) = %s, want nil", k, m.Signature())
		}
	}
}

func TestBuiltinKindString(t *testing.T) {
	tests := []struct {
		k    il.BuiltinKind
		want string
	}{
		{il.BuiltinNone, "none"},
		{il.ObjectCtor, "Object..ctor()"},
		{il.ObjectToString, "Object.ToString()"},
		{il.StringConcatStringString, "String.Concat(string,string)"},
		{il.StringConcatObjectObject, "String.Concat(object,object)"},
		{il.StringGetLength, "String.get_Length()"},
		{il.ConsoleWriteLine, "Console.WriteLine()"},
		{il.ConsoleWriteLineDouble, "Console.WriteLine(float64)"},
		{il.ConsoleWriteUInt64, "Console.Write(uint64)"},
		{il.ExceptionGetMessage, "Exception.get_Message()"},
		{il.ArgumentNullExceptionCtorString, "ArgumentNullException..ctor(string)"},
		{il.OutOfMemoryExceptionCtor, "OutOfMemoryException..ctor()"},
		{0xFFFF, "BuiltinKind(65535)"},
	}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("BuiltinKind(%d).String() = %q, want %q", uint16(tt.k), got, tt.want)
		}
	}
}

// TestBuiltinKindsPerModule checks that two modules get their own copies
// of the base library methods with the same kinds.
func TestBuiltinKindsPerModule(t *testing.T) {
	a, err := il.Load("a.il", []byte(userOverrides))
	if err != nil {
		t.Fatal(err)
	}
	b, err := il.Load("b.il", []byte(userOverrides))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range il.BuiltinKinds() {
		ma, mb := a.BuiltinMethod(k), b.BuiltinMethod(k)
		if ma == nil || mb == nil || ma == mb || ma.Signature() != mb.Signature() {
			t.Errorf("kind %v: methods %p and %p", k, ma, mb)
		}
	}
}

// TestInCorelib checks that the kinds both engines hand to corelib are
// exactly the methods of System.Math, the Parse methods and the clocks.
func TestInCorelib(t *testing.T) {
	n := 0
	for _, k := range il.BuiltinKinds() {
		name := k.String()
		want := false
		for _, p := range []string{"Math.", "Int32.Parse", "Int64.Parse", "Double.Parse", "Environment.", "Diagnostics.Stopwatch."} {
			want = want || strings.HasPrefix(name, p)
		}
		if k.InCorelib() != want {
			t.Errorf("%s: InCorelib() = %v, want %v", name, k.InCorelib(), want)
		}
		if want {
			n++
		}
	}
	if n != 28 {
		t.Errorf("%d corelib kinds, want 28 (23 of System.Math, 3 Parse, 2 clocks)", n)
	}
}
