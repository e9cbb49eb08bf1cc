package miniil_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"miniil"
	"miniil/il"
)

// sbHeapProgram builds strings until the heap runs out.
const sbHeapProgram = `
.assembly sbheap {}
.method public static void main() cil managed { .entrypoint ret }
.class public auto ansi Cell extends [mscorlib]System.Object
{
  .field public object v
  .field public object next
  .method public specialname rtspecialname instance void .ctor(object v, object next) cil managed
  {
    .maxstack 2
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0 ldarg.1 stfld object Cell::v
    ldarg.0 ldarg.2 stfld object Cell::next
    ret
  }
}
.class public auto ansi Named extends [mscorlib]System.Object
{
  .method public specialname rtspecialname instance void .ctor() cil managed
  {
    .maxstack 1
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ret
  }
  .method public hidebysig virtual instance string ToString() cil managed
  {
    .maxstack 2
    ldstr "named"
    ldstr "!"
    call string [mscorlib]System.String::Concat(string, string)
    ret
  }
}

// Chars makes a builder of the given capacity and appends one character
// at a time until OutOfMemoryException; it returns how many fit.
.method public static int32 Chars(int32 capacity) cil managed
{
  .maxstack 2
  .locals init (class [mscorlib]System.Text.StringBuilder sb, int32 n)
  .try {
    ldarg.0
    newobj instance void [mscorlib]System.Text.StringBuilder::.ctor(int32)
    stloc sb
  L:
    ldloc sb
    ldc.i4.s 120
    callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(char)
    pop
    ldloc n
    ldc.i4.1
    add
    stloc n
    br.s L
  } catch [mscorlib]System.OutOfMemoryException {
    pop
    leave.s Done
  }
Done:
  ldloc n
  ret
}

// Pieces appends a string, an int32 of 1 to 11 units and a char per
// round to one builder, whose buffer grows now and then, until
// OutOfMemoryException; every 4th round keeps a ToString (a string the
// JIT allocates natively while it fits the nursery), and every 8th makes
// a new builder of capacity 1 to 40 (a buffer allocated natively) kept
// with it. It prints the length reached and returns the rounds done.
.method public static int32 Pieces() cil managed
{
  .maxstack 4
  .locals init (class [mscorlib]System.Text.StringBuilder sb, int32 n, object keep)
  .try {
    newobj instance void [mscorlib]System.Text.StringBuilder::.ctor()
    stloc sb
  L:
    ldloc sb
    ldstr "piece"
    callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(string)
    ldloc n
    ldc.i4 -7919
    mul
    ldloc n
    ldc.i4.s 31
    and
    shl
    callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(int32)
    ldc.i4.s 59
    callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(char)
    pop
    ldloc n
    ldc.i4.3
    and
    brtrue.s Next
    ldloc sb
    callvirt instance string [mscorlib]System.Object::ToString()
    ldloc keep
    newobj instance void Cell::.ctor(object, object)
    stloc keep
    ldloc n
    ldc.i4.7
    and
    brtrue.s Next
    ldloc n
    ldc.i4.s 40
    rem
    ldc.i4.1
    add
    newobj instance void [mscorlib]System.Text.StringBuilder::.ctor(int32)
    ldloc keep
    newobj instance void Cell::.ctor(object, object)
    stloc keep
  Next:
    ldloc n
    ldc.i4.1
    add
    stloc n
    br L
  } catch [mscorlib]System.OutOfMemoryException {
    pop
    ldloc sb
    callvirt instance int32 [mscorlib]System.Text.StringBuilder::get_Length()
    call void [mscorlib]System.Console::WriteLine(int32)
    leave.s Done
  }
Done:
  ldloc n
  ret
}

// Mixed runs every allocating StringBuilder operation in turn until
// OutOfMemoryException, printing each step's length; it returns the
// number of steps that completed. It keeps each step's ToString (in a
// chain of Cells): the rest is garbage once the step ends.
.method public static int32 Mixed() cil managed
{
  .maxstack 3
  .locals init (class [mscorlib]System.Text.StringBuilder sb, int32 n, object keep)
  .try {
    newobj instance void [mscorlib]System.Text.StringBuilder::.ctor()
    stloc sb
  L:
    ldloc sb
    ldstr "abc"
    callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(string)
    ldloc n
    callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(int32)
    ldloc n
    box [mscorlib]System.Int32
    callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(object)
    newobj instance void Named::.ctor()
    callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(object)
    ldc.r8 0.1
    callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(float64)
    callvirt instance string [mscorlib]System.Object::ToString()
    ldloc keep
    newobj instance void Cell::.ctor(object, object)
    stloc keep
    ldloc sb
    ldloc sb
    callvirt instance int32 [mscorlib]System.Text.StringBuilder::get_Length()
    ldc.i4.3
    mul
    callvirt instance void [mscorlib]System.Text.StringBuilder::set_Length(int32)
    ldloc sb
    ldc.i4.5
    callvirt instance void [mscorlib]System.Text.StringBuilder::set_Length(int32)
    ldloc sb
    call void [mscorlib]System.Console::WriteLine(object)
    .try {
      ldc.i4.s -1
      newobj instance void [mscorlib]System.Text.StringBuilder::.ctor(int32)
      pop
      leave.s Next
    } catch [mscorlib]System.ArgumentOutOfRangeException {
      callvirt instance string [mscorlib]System.Exception::get_Message()
      call void [mscorlib]System.Console::WriteLine(string)
      leave.s Next
    }
  Next:
    ldloc n
    ldc.i4.1
    add
    stloc n
    br L
  } catch [mscorlib]System.OutOfMemoryException {
    callvirt instance string [mscorlib]System.Exception::get_Message()
    call void [mscorlib]System.Console::WriteLine(string)
    leave.s Done
  }
Done:
  ldloc n
  ret
}
`

// sbCharsFit is how many Append(char) calls Chars(capacity) completes
// with a heap limit of heap bytes, computed from il's layout and growth
// policy: the builder (two fields) and its first buffer, then a larger
// buffer each time one is full, made while the full one is still live
// (it is copied); once made, the full one is garbage.
func sbCharsFit(heap int64, capacity int32) int32 {
	builder := il.ObjectSize(2)
	room, _ := il.StringBuilderCapacity(capacity)
	if builder+il.ArraySize(il.Char, room) > heap {
		return 0
	}
	n := int64(0)
	for {
		if n == room {
			next, _ := il.StringBuilderGrow(room, n+1)
			if builder+il.ArraySize(il.Char, room)+il.ArraySize(il.Char, next) > heap {
				return int32(n)
			}
			room = next
		}
		n++
	}
}

// TestStringBuilderHeap checks that both engines charge a builder's
// memory as il defines it: the same number of appends fit in a heap as
// the policy computes, and a program running every allocating operation
// runs out at the same step on both engines, for every heap limit from
// 256 bytes to 6 KiB.
func TestStringBuilderHeap(t *testing.T) {
	p, err := miniil.Load("sbheap.il", []byte(sbHeapProgram))
	if err != nil {
		t.Fatal(err)
	}
	for _, heap := range []int64{512, 4 << 10, 64<<10 + 24, 1 << 20} {
		for _, capacity := range []int32{0, 1, 100} {
			want := sbCharsFit(heap, capacity)
			got, _, err := runBoth(t, p, heap, "Chars", capacity)
			if err != nil || got != want {
				t.Errorf("Chars(%d) with a heap limit of %d = %v, %v; want %d", capacity, heap, got, err, want)
			}
		}
	}
	if got := sbCharsFit(64<<10+24, 0); got < 8<<10 { // doubling: at least an eighth of the heap
		t.Fatalf("the policy fits only %d characters in 64 KiB", got)
	}
	steps := map[any]bool{}
	for heap := int64(256); heap <= 6<<10; heap += 8 {
		res, out, err := runBoth(t, p, heap, "Mixed")
		if err != nil || !strings.HasSuffix(out, oomMessage+"\n") {
			t.Fatalf("Mixed with a heap limit of %d: %v, %v, output ending %q", heap, res, err, out[max(0, len(out)-80):])
		}
		steps[res] = true
	}
	if len(steps) < 10 {
		t.Errorf("Mixed ran out at only %d different steps", len(steps))
	}
}

// TestStringBuilderNativeHeap runs out of heap with the appends, the
// constructors and the ToStrings the JIT serves natively (growing the
// buffer through its exit): both engines must run out at the same round
// with the same length, for heap limits from 256 bytes to 12 KiB,
// and the JIT must again under GC stress in a 16 KiB nursery (every
// allocation then exits).
func TestStringBuilderNativeHeap(t *testing.T) {
	if !jitCollects {
		t.Skip("the JIT does not collect")
	}
	p, err := miniil.Load("sbheap.il", []byte(sbHeapProgram))
	if err != nil {
		t.Fatal(err)
	}
	rounds := map[any]bool{}
	for heap := int64(256); heap <= 12<<10; heap += 16 {
		res, out, err := runBoth(t, p, heap, "Pieces")
		if err != nil {
			t.Fatalf("Pieces with a heap limit of %d: %v, %v", heap, res, err)
		}
		rounds[res] = true
		if heap%(1<<10) != 0 {
			continue
		}
		var stressed bytes.Buffer
		got, err := p.Call(t.Context(), miniil.Config{Engine: miniil.JIT, Stdout: &stressed, MaxHeap: heap, GCStress: 1, NurseryBytes: 16 << 10}, "Pieces")
		if err != nil || got != res || stressed.String() != out {
			t.Errorf("Pieces with a heap limit of %d under GC stress = %v, %v, %q; want %v, %q", heap, got, err, stressed.String(), res, out)
		}
	}
	if len(rounds) < 15 {
		t.Errorf("Pieces ran out at only %d different rounds", len(rounds))
	}
}

// TestStringBuilderLinear builds a long string one character at a time
// on the JIT: appends must not copy the whole buffer each time (a
// quadratic builder takes minutes here).
func TestStringBuilderLinear(t *testing.T) {
	const n = 4_000_000
	src := fmt.Sprintf(`.assembly lin {}
.method public static void main() cil managed { .entrypoint ret }
.method public static int32 Build() cil managed
{
  .maxstack 2
  .locals init (class [mscorlib]System.Text.StringBuilder sb, int32 i)
  newobj instance void [mscorlib]System.Text.StringBuilder::.ctor()
  stloc sb
L:
  ldloc sb
  ldc.i4.s 97
  callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(char)
  pop
  ldloc i
  ldc.i4.1
  add
  dup
  stloc i
  ldc.i4 %d
  blt.s L
  ldloc sb
  callvirt instance string [mscorlib]System.Object::ToString()
  callvirt instance int32 [mscorlib]System.String::get_Length()
  ret
}`, n)
	p, err := miniil.Load("lin.il", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := p.Call(t.Context(), miniil.Config{}, "Build")
	if err != nil || res != int32(n) {
		t.Fatalf("Build() = %v, %v; want %d", res, err, n)
	}
	// Linear: about 0.3 s on this machine, several times that under load.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("%d appends took %v", n, d)
	}
}

// sbNestProgram nests Append(object) through ToString overrides: each
// Link's ToString appends the next link to a new builder (and returns
// "x", so that memory stays linear in the depth).
const sbNestProgram = `
.assembly sbnest {}
.method public static void main() cil managed { .entrypoint ret }
.class public auto ansi Link extends [mscorlib]System.Object
{
  .field public class Link next
  .method public specialname rtspecialname instance void .ctor(class Link next) cil managed
  {
    .maxstack 2
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0
    ldarg.1
    stfld class Link Link::next
    ret
  }
  .method public hidebysig virtual instance string ToString() cil managed
  {
    .maxstack 2
    newobj instance void [mscorlib]System.Text.StringBuilder::.ctor()
    ldstr "("
    callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(string)
    ldarg.0
    ldfld class Link Link::next
    callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(object)
    ldstr ")"
    callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(string)
    callvirt instance int32 [mscorlib]System.Text.StringBuilder::get_Length()
    pop
    ldstr "x"
    ret
  }
}
// Nest appends a chain of n links to a builder and returns the length.
.method public static int32 Nest(int32 n) cil managed
{
  .maxstack 2
  .locals init (class Link l)
L:
  ldarg.0
  brfalse.s Built
  ldloc l
  newobj instance void Link::.ctor(class Link)
  stloc l
  ldarg.0
  ldc.i4.1
  sub
  starg.s n
  br.s L
Built:
  newobj instance void [mscorlib]System.Text.StringBuilder::.ctor()
  ldloc l
  callvirt instance class [mscorlib]System.Text.StringBuilder [mscorlib]System.Text.StringBuilder::Append(object)
  callvirt instance int32 [mscorlib]System.Text.StringBuilder::get_Length()
  ret
}
`

// TestStringBuilderCallbacks checks that both engines count the managed
// ToString calls that Append(object) makes against il.MaxCallbackDepth
// alike: the same chain is a stack overflow on both, one link longer
// than the deepest that runs.
func TestStringBuilderCallbacks(t *testing.T) {
	p, err := miniil.Load("sbnest.il", []byte(sbNestProgram))
	if err != nil {
		t.Fatal(err)
	}
	max := il.MaxCallbackDepth
	var outcomes []string
	for _, n := range []int32{10, int32(max - 1), int32(max), int32(max + 1)} {
		res, _, err := runBoth(t, p, 0, "Nest", n)
		var so *miniil.StackOverflowError
		switch {
		case errors.As(err, &so):
			outcomes = append(outcomes, "stack overflow")
		case err != nil:
			t.Fatalf("Nest(%d): %v", n, err)
		case res != int32(1):
			t.Fatalf("Nest(%d) = %v, want 1", n, res)
		default:
			outcomes = append(outcomes, "ok")
		}
	}
	if want := []string{"ok", "ok", "ok", "stack overflow"}; !slices.Equal(outcomes, want) {
		t.Errorf("Nest(10, max-1, max, max+1): %v, want %v", outcomes, want)
	}
}
