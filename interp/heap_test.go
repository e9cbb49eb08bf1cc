package interp

import (
	"context"
	"strings"
	"testing"

	"miniil/il"
)

// liveProgram leaves, in statics, objects of every kind: a list sharing a
// string, a string in a static struct, a box of that struct, a
// StringBuilder, an exception with a message made at run time, an array
// holding some of them again; and garbage of each kind.
const liveProgram = prologue + `
.class public auto ansi Node extends [mscorlib]System.Object
{
  .field public object next
  .field public object data
  .method public specialname rtspecialname instance void .ctor(object next, object data) cil managed
  {
    .maxstack 2
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0
    ldarg.1
    stfld object Node::next
    ldarg.0
    ldarg.2
    stfld object Node::data
    ret
  }
}
.class public sequential ansi sealed Pair extends [mscorlib]System.ValueType
{
  .field public int64 a
  .field public string s
}
.field public static object list
.field public static object shared
.field public static valuetype Pair pair
.field public static object boxed
.field public static object sb
.field public static object exc
.field public static object arr
.method public static void main() cil managed
{
  .entrypoint
  .maxstack 4
  .locals init (string s)
  ldstr "ab"
  ldstr "cd"
  call string [mscorlib]System.String::Concat(string, string)
  stloc s
  ldnull
  ldloc s
  newobj instance void Node::.ctor(object, object)
  dup
  stsfld object shared
  ldloc s
  newobj instance void Node::.ctor(object, object)
  ldstr "literal"
  newobj instance void Node::.ctor(object, object)
  stsfld object list
  ldsflda valuetype Pair pair
  ldstr "x"
  ldstr "y"
  call string [mscorlib]System.String::Concat(string, string)
  stfld string Pair::s
  ldsfld valuetype Pair pair
  box Pair
  stsfld object boxed
  newobj instance void [mscorlib]System.Text.StringBuilder::.ctor()
  ldstr "hello"
  callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(string)
  stsfld object sb
  ldstr "m"
  ldstr "sg"
  call string [mscorlib]System.String::Concat(string, string)
  newobj instance void [mscorlib]System.InvalidOperationException::.ctor(string)
  stsfld object exc
  ldc.i4.3
  newarr [mscorlib]System.Object
  dup
  ldc.i4.0
  ldloc s
  stelem.ref
  dup
  ldc.i4.1
  ldstr "lit"
  stelem.ref
  dup
  ldc.i4.2
  ldsfld object boxed
  stelem.ref
  stsfld object arr
  ldc.i4 100
  newarr [mscorlib]System.Int32
  pop
  ldnull
  ldnull
  newobj instance void Node::.ctor(object, object)
  pop
  ldc.i4.5
  box [mscorlib]System.Int32
  pop
  ldloc s
  ldloc s
  call string [mscorlib]System.String::Concat(string, string)
  pop
  .try {
    ldnull
    callvirt instance string [mscorlib]System.Object::ToString()
    pop
    leave.s Done
  } catch [mscorlib]System.NullReferenceException {
    pop
    leave.s Done
  }
Done:
  ret
}
`

// TestLiveBytes runs liveProgram and checks that the mark counts what the
// statics reach, each object once, with the sizes charges use: no
// literal, no garbage, no value of a value type but its box.
func TestLiveBytes(t *testing.T) {
	m := mustLoad(t, liveProgram)
	s := newState(context.Background(), m, Options{})
	if err := s.setup(); err != nil {
		t.Fatal(err)
	}
	if err := s.callFromGo(s.method(m.Entry)); err != nil {
		t.Fatal(err)
	}
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	fields := func(name string) int { return m.Class(name).NumFields }
	want := il.StringSize(4) + // s, in the list twice and in arr
		3*il.ObjectSize(fields("Node")) +
		il.StringSize(2) + // pair.s, in the box too
		il.BoxSizeOf(m.Class("Pair").Type()) +
		il.ObjectSize(fields("System.Text.StringBuilder")) + il.ArraySize(il.Char, il.StringBuilderDefaultCapacity) +
		il.ObjectSize(fields("System.InvalidOperationException")) + il.StringSize(3) +
		il.ArraySize(il.Object, 3)
	if got := s.liveBytes(); got != want {
		t.Errorf("live bytes %d, want %d", got, want)
	}
	if s.heapUsed < want {
		t.Errorf("heapUsed %d is below the live bytes %d", s.heapUsed, want)
	}
}

// TestCallArgumentsLive checks that Call's string arguments are live
// while the next ones are charged: two that fit the limit together are
// accepted, and the second of two that do not is refused.
func TestCallArgumentsLive(t *testing.T) {
	m := mustLoad(t, prologue+`
.method public static int32 Len(string a, string b) cil managed
{
  .maxstack 2
  ldarg.0
  callvirt instance int32 [mscorlib]System.String::get_Length()
  ldarg.1
  callvirt instance int32 [mscorlib]System.String::get_Length()
  add
  ret
}
.method public static void main() cil managed { .entrypoint ret }
`)
	var meth *il.Method
	for _, md := range m.Methods {
		if md.Name == "Len" {
			meth = md
		}
	}
	a, b := strings.Repeat("a", 100), strings.Repeat("b", 60)
	both := il.StringSize(len(a)) + il.StringSize(len(b))
	for _, tt := range []struct {
		heap int64
		ok   bool
	}{{both, true}, {both - 8, false}} {
		res, err := Call(context.Background(), m, meth, []any{a, b}, Options{HeapBytes: tt.heap})
		if ok := err == nil && res == int64(160); ok != tt.ok {
			t.Errorf("heap %d: %v, %v; want success %v", tt.heap, res, err, tt.ok)
		}
	}
}
