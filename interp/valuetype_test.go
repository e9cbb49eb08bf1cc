package interp

import (
	"context"
	"testing"

	"miniil/il"
)

// heapProgram allocates, in a loop, the thing kind selects until the heap
// runs out, and returns how many it made: 0 an array of 10 Triples, 1 a
// boxed Triple, 2 a Holder (an object with a Triple field and a string
// field), each kept in a new Cell of a list, 3 a Triple through newobj (a
// value: it never runs out; the loop stops after 10000).
const heapProgram = prologue + `
.class public sequential ansi sealed Triple extends [mscorlib]System.ValueType
{
  .field public int64 A
  .field public int64 B
  .field public int64 C
  .method public hidebysig specialname rtspecialname instance void .ctor(int64 a) cil managed
  {
    .maxstack 2
    ldarg.0
    ldarg.1
    stfld int64 Triple::A
    ret
  }
}
.class public auto ansi Holder extends [mscorlib]System.Object
{
  .field public valuetype Triple T
  .field public string S
  .method public hidebysig specialname rtspecialname instance void .ctor() cil managed
  {
    .maxstack 1
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ret
  }
}
.class public auto ansi Cell extends [mscorlib]System.Object
{
  .field public object V
  .field public class Cell Next
  .method public hidebysig specialname rtspecialname instance void .ctor(object v, class Cell next) cil managed
  {
    .maxstack 2
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0
    ldarg.1
    stfld object Cell::V
    ldarg.0
    ldarg.2
    stfld class Cell Cell::Next
    ret
  }
}
.method public static int32 Count(int32 kind) cil managed
{
  .maxstack 3
  .locals init (int32 n, object keep, valuetype Triple t, class Cell list)
  .try
  {
LOOP:
    ldarg.0
    switch (ARR, BOX, OBJ, VAL)
ARR:
    ldc.i4.s 10
    newarr Triple
    stloc.1
    br.s KEEP
BOX:
    ldloc.2
    box Triple
    stloc.1
    br.s KEEP
OBJ:
    newobj instance void Holder::.ctor()
    stloc.1
    br.s KEEP
VAL:
    ldloc.0
    conv.i8
    newobj instance void Triple::.ctor(int64)
    stloc.2
    ldloc.0
    ldc.i4 9999
    beq.s DONE
    br.s NEXT
KEEP:
    ldloc.1
    ldloc.3
    newobj instance void Cell::.ctor(object, class Cell)
    stloc.3
NEXT:
    ldloc.0
    ldc.i4.1
    add
    stloc.0
    br.s LOOP
DONE:
    ldloc.0
    ldc.i4.1
    add
    stloc.0
    leave.s END
  }
  catch [mscorlib]System.OutOfMemoryException
  {
    pop
    leave.s END
  }
END:
  ldloc.0
  ret
}
.method public static void main() cil managed
{
  .entrypoint
  ret
}
`

// TestValueTypeHeapCharges checks that allocations of and with value
// types are charged with the JIT's sizes (il.ArraySize, il.BoxSizeOf,
// il.ObjectSize counting a struct field's words), and a value made by
// newobj nothing: the count of allocations that fit a heap limit, each
// kept with a Cell, follows from those sizes alone.
func TestValueTypeHeapCharges(t *testing.T) {
	m, err := il.Load("heap.il", []byte(heapProgram))
	if err != nil {
		t.Fatal(err)
	}
	var count *il.Method
	for _, md := range m.Methods {
		if md.Name == "Count" {
			count = md
		}
	}
	triple := m.Class("Triple").Type()
	tests := []struct {
		name string
		kind int64
		size int64 // bytes per allocation; 0: none
	}{
		{"array of structs", 0, il.ArraySize(triple, 10)},
		{"box of a struct", 1, il.BoxSizeOf(triple)},
		{"object with a struct field", 2, il.ObjectSize(m.Class("Holder").NumFields)},
		{"newobj of a struct", 3, 0},
	}
	for _, tt := range tests {
		for _, heap := range []int64{1024, 4096 + 8, 65536 + 16} {
			res, err := Call(context.Background(), m, count, []any{tt.kind}, Options{HeapBytes: heap})
			if err != nil {
				t.Fatalf("%s, heap %d: %v", tt.name, heap, err)
			}
			want := int64(10000)
			if tt.size > 0 {
				want = heap / (tt.size + il.ObjectSize(m.Class("Cell").NumFields))
			}
			if res != want {
				t.Errorf("%s, heap %d: %v allocations fit, want %d (of %d bytes)", tt.name, heap, res, want, tt.size)
			}
		}
	}
}
