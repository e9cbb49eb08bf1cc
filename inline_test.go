package miniil_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"miniil"
)

// inlineTraceProgram throws, in several ways, from methods small enough
// for the JIT to inline, one, two and three calls deep; run(k) picks the
// way.
const inlineTraceProgram = `.assembly inl {}
.class public Cell extends [mscorlib]System.Object {
  .field public int32 v
  .method public specialname rtspecialname instance void .ctor() cil managed {
    .maxstack 1
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ret
  }
  .method public instance int32 Get() cil managed {
    .maxstack 1
    ldarg.0
    ldfld int32 Cell::v
    ret
  }
}
.method public static int32 Div(int32 a, int32 b) cil managed {
  .maxstack 2
  ldarg.0
  ldarg.1
  div
  ret
}
.method public static int32 DivTwice(int32 a, int32 b) cil managed {
  .maxstack 2
  ldarg.0
  ldarg.1
  call int32 Div(int32, int32)
  ldarg.1
  call int32 Div(int32, int32)
  ret
}
.method public static int32 Deeper(int32 a, int32 b) cil managed {
  .maxstack 2
  nop
  ldarg.0
  ldarg.1
  call int32 DivTwice(int32, int32)
  ret
}
.method public static void Fail(string m) cil managed {
  .maxstack 1
  ldarg.0
  newobj instance void [mscorlib]System.InvalidOperationException::.ctor(string)
  throw
}
.method public static int32 Parse(string s) cil managed {
  .maxstack 1
  ldarg.0
  call int32 [mscorlib]System.Int32::Parse(string)
  ret
}
.method public static int32 Elem(int32[] a, int32 i) cil managed {
  .maxstack 2
  ldarg.0
  ldarg.1
  ldelem.i4
  ret
}
.method public static int32 run(int32 k) cil managed {
  .maxstack 3
  .locals init (int32 i, int32 s)
  ldarg.0
  switch (NULL, DIV, DIV2, DEEP, FAIL, PARSE, ELEM, VNULL)
  ldc.i4.0
  ret
NULL:
  // call, not callvirt: Get itself finds this null.
  ldnull
  call instance int32 Cell::Get()
  ret
VNULL:
  // callvirt checks this before the call: run throws.
  ldnull
  callvirt instance int32 Cell::Get()
  ret
DIV:
  ldc.i4.7
  ldc.i4.0
  call int32 Div(int32, int32)
  ret
DIV2:
  ldc.i4.7
  ldc.i4.0
  call int32 DivTwice(int32, int32)
  ret
DEEP:
  ldc.i4.7
  ldc.i4.0
  call int32 Deeper(int32, int32)
  ret
FAIL:
  ldstr "inlined"
  call void Fail(string)
  ldc.i4.0
  ret
PARSE:
  ldstr "x"
  call int32 Parse(string)
  ret
ELEM:
  // A loop: the call is inlined whatever its size.
  ldloc s
  ldc.i4.3
  newarr [mscorlib]System.Int32
  ldloc i
  call int32 Elem(int32[], int32)
  add
  stloc s
  ldloc i
  ldc.i4.1
  add
  dup
  stloc i
  ldc.i4.5
  blt.s ELEM
  ldloc s
  ret
}
.method public static int32 main() cil managed {
  .entrypoint
  .maxstack 1
  ldc.i4.0
  ret
}
`

// TestInlinedTraces checks that an exception thrown in inlined code
// reports the same stack trace (methods and IL offsets) as when the
// calls are made, on the JIT with and without the inliner and on the
// interpreter, whether it is thrown by the code (throw, an implicit
// exception) or by a base library method the inlined code called.
func TestInlinedTraces(t *testing.T) {
	p, err := miniil.Load("inl.il", []byte(inlineTraceProgram))
	if err != nil {
		t.Fatal(err)
	}
	frames := []int{2, 2, 3, 4, 2, 2, 2, 1} // by k
	for k, want := range frames {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			var got [3]*miniil.ManagedException
			for i, cfg := range []miniil.Config{{Engine: miniil.JIT}, {Engine: miniil.JIT, NoInline: true}, {Engine: miniil.Interp}} {
				_, err := p.Call(context.Background(), cfg, "run", int32(k))
				if !errors.As(err, &got[i]) {
					t.Fatalf("run(%d) on %+v: %v, want a managed exception", k, cfg, err)
				}
			}
			in, out, interp := got[0], got[1], got[2]
			if in.Type != out.Type || !slices.Equal(in.StackTrace, out.StackTrace) || !slices.Equal(in.ILOffsets, out.ILOffsets) {
				t.Errorf("inlined: %s at %q %v; called: %s at %q %v", in.Type, in.StackTrace, in.ILOffsets, out.Type, out.StackTrace, out.ILOffsets)
			}
			if in.Type != interp.Type || !slices.Equal(in.StackTrace, interp.StackTrace) {
				t.Errorf("JIT: %s at %q; interpreter: %s at %q", in.Type, in.StackTrace, interp.Type, interp.StackTrace)
			}
			if len(in.StackTrace) != want {
				t.Errorf("trace %q, want %d frames", in.StackTrace, want)
			}
		})
	}
}

// TestInlinerInlines checks that the calls TestInlinedTraces relies on
// are inlined: the IR of run has no call left but to the base library.
func TestInlinerInlines(t *testing.T) {
	p, err := miniil.Load("inl.il", []byte(inlineTraceProgram))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.DumpAfter(&b, "inline", "run"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"Cell::Get", "Div,", "DivTwice", "Deeper", "Fail", "Parse", "Elem"} {
		if !bytes.Contains(b.Bytes(), []byte("inline")) || !bytes.Contains(b.Bytes(), []byte(m)) {
			t.Errorf("%s is not inlined into run:\n%s", m, b.String())
		}
	}
	if bytes.Contains(b.Bytes(), []byte("  call int32 ")) || bytes.Contains(b.Bytes(), []byte("callvirt")) {
		t.Errorf("run still calls managed methods:\n%s", b.String())
	}
}
