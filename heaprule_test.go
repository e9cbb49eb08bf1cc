package miniil_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"miniil"
	"miniil/il"
)

// The heap limit's rule: an allocation of n bytes throws
// OutOfMemoryException exactly when the bytes of the objects reachable
// at that moment plus n pass the limit. The tests run testdata/garbage.il
// on each engine, as a subtest; heapRow skips the JIT's until it
// collects (jitCollects).

// heapRow runs f as subtest name/eng.
func heapRow(t *testing.T, name string, eng miniil.Engine, f func(t *testing.T)) {
	t.Helper()
	t.Run(name+"/"+eng.String(), func(t *testing.T) {
		if eng == miniil.JIT && !jitCollects {
			t.Skip("needs the collector (branch gc)")
		}
		f(t)
	})
}

// garbageModule loads testdata/garbage.il, as a program and as a module
// (for the sizes of its classes).
func garbageModule(t *testing.T) (*miniil.Program, *il.Module) {
	t.Helper()
	src, err := os.ReadFile("testdata/garbage.il")
	if err != nil {
		t.Fatal(err)
	}
	p, err := miniil.Load("garbage.il", src)
	if err != nil {
		t.Fatal(err)
	}
	m, err := il.Load("garbage.il", src)
	if err != nil {
		t.Fatal(err)
	}
	return p, m
}

// objectSize is the heap size of an instance of class name.
func objectSize(m *il.Module, name string) int64 {
	return il.ObjectSize(m.Class(name).NumFields)
}

// TestGarbageIsFreed runs loops that allocate, with every kind of
// allocation, far more than a small heap limit, all of it garbage by the
// next step: they run to completion.
func TestGarbageIsFreed(t *testing.T) {
	p, m := garbageModule(t)
	const heap = 64 << 10
	node := objectSize(m, "Node")
	exc := objectSize(m, "System.InvalidOperationException")
	for _, tt := range []struct {
		method string
		steps  int32
		step   int64 // a lower bound of the bytes each step allocates
	}{
		{"Objects", 100_000, 2 * node},
		{"Arrays", 2_000, il.ArraySize(il.Int32, 1000) + il.ArraySize(il.Object, 50)},
		{"Strings", 150_000, il.StringSize(8)},
		// Each builder grows to 256 characters: buffers of 16, 32, 64,
		// 128 and 256.
		{"Builders", 5_000, objectSize(m, "System.Text.StringBuilder") + il.ArraySize(il.Char, 16+32+64+128+256)},
		{"Boxes", 100_000, il.BoxSize + il.BoxSizeOf(m.Class("Pair").Type())},
		// Two InvalidOperationExceptions, the first one's ToString, a
		// NullReferenceException, an InvalidCastException and its
		// message.
		{"Exceptions", 20_000, 2*exc + il.StringSize(len("System.InvalidOperationException: boom")) +
			objectSize(m, "System.NullReferenceException") + objectSize(m, "System.InvalidCastException") +
			il.StringSize(len("Unable to cast object of type 'System.Int32' to type 'System.String'."))},
		// Two exceptions, the inner one's ToString.
		{"Inner", 40_000, objectSize(m, "System.Exception") + exc + il.StringSize(len("System.InvalidOperationException: inner"))},
	} {
		if total := int64(tt.steps) * tt.step; total < 50*heap {
			t.Fatalf("%s allocates only %d bytes in all", tt.method, total)
		}
		for _, eng := range []miniil.Engine{miniil.JIT, miniil.Interp} {
			heapRow(t, tt.method, eng, func(t *testing.T) {
				res, err := p.Call(context.Background(), miniil.Config{Engine: eng, MaxHeap: heap}, tt.method, tt.steps)
				if err != nil || res != tt.steps {
					t.Errorf("%s(%d) with a heap limit of %d: %v, %v", tt.method, tt.steps, heap, res, err)
				}
			})
		}
	}
}

// TestLiveListRunsOut grows a list amid garbage until
// OutOfMemoryException: the step it stops at follows from the sizes of
// what it keeps and of the largest allocation of a step.
func TestLiveListRunsOut(t *testing.T) {
	p, m := garbageModule(t)
	keep := il.BoxSize + objectSize(m, "Node") // each step's box and Node
	exc := objectSize(m, "System.InvalidOperationException")
	for _, tt := range []struct {
		heap int64
		size int32 // of the int32[] of garbage
	}{{4 << 10, 10}, {64 << 10, 100}, {64<<10 + 8, 1000}, {256 << 10, 5000}} {
		// A step that starts with k steps kept completes when
		// k*keep + its largest allocation fits.
		most := max(il.ArraySize(il.Int32, int64(tt.size)), exc, keep)
		want := int32(0)
		if tt.heap >= most {
			want = int32((tt.heap-most)/keep + 1)
		}
		for _, eng := range []miniil.Engine{miniil.JIT, miniil.Interp} {
			heapRow(t, fmt.Sprintf("%d/%d", tt.heap, tt.size), eng, func(t *testing.T) {
				var out strings.Builder
				res, err := p.Call(context.Background(), miniil.Config{Engine: eng, Stdout: &out, MaxHeap: tt.heap}, "List", tt.size)
				if err != nil || res != want || out.String() != fmt.Sprintln(want) {
					t.Errorf("List(%d) with a heap limit of %d: %v, %v, output %q; want %d", tt.size, tt.heap, res, err, out.String(), want)
				}
			})
		}
	}
}

// TestPreallocatedOutOfMemory fills the heap until even an
// OutOfMemoryException does not fit: the preallocated one is thrown, and
// does not count when the heap is filled again.
func TestPreallocatedOutOfMemory(t *testing.T) {
	p, m := garbageModule(t)
	node, oom := objectSize(m, "Node"), objectSize(m, il.OutOfMemoryClass)
	for _, heap := range []int64{1 << 10, 4<<10 + 8, 64<<10 + 16} {
		n := heap / node
		prealloc := heap-n*node < oom
		if !prealloc {
			t.Fatalf("with a heap limit of %d a Node fails but an OutOfMemoryException fits", heap)
		}
		want := fmt.Sprintf("%d\nTrue\n%d\nTrue\nFalse\n", n, n)
		for _, eng := range []miniil.Engine{miniil.JIT, miniil.Interp} {
			heapRow(t, fmt.Sprint(heap), eng, func(t *testing.T) {
				var out strings.Builder
				_, err := p.Call(context.Background(), miniil.Config{Engine: eng, Stdout: &out, MaxHeap: heap}, "Prealloc")
				if err != nil || out.String() != want {
					t.Errorf("with a heap limit of %d: %v, output\n%s\nwant\n%s", heap, err, out.String(), want)
				}
			})
		}
	}
}

// TestOperandsAreLive runs allocations whose operands, and the objects
// the base library makes on the way, are reachable only from the stack,
// from the base library method running or from variables: each needs a
// heap of exactly what is live at its largest allocation, and fails with
// 8 bytes less (OutOfMemoryException, unless fail names the exception
// that then escapes). What is live follows the JIT's GC information: a
// variable or a stack entry that is not read again does not count.
func TestOperandsAreLive(t *testing.T) {
	p, m := garbageModule(t)
	ss := func(s string) int64 { return il.StringSize(len(s)) }
	growth, _ := il.StringBuilderGrow(il.StringBuilderDefaultCapacity, 20)
	exc := objectSize(m, "System.InvalidOperationException")
	inner := "System.InvalidOperationException: inner"
	outer := "System.Exception: outer\n" + il.InnerExceptionPrefix + inner + "\n   " + il.EndOfInnerExceptionStack
	arr := il.ArraySize(il.Int32, 100)
	for _, tt := range []struct {
		method string
		need   int64
		fail   string
	}{
		// The first string, the box, its ToString, the result.
		{"ConcatObjects", il.StringSize(1000) + il.BoxSize + ss("12345") + il.StringSize(1005), ""},
		{"ConcatStrings", il.StringSize(100) + il.StringSize(60) + il.StringSize(160), ""},
		// The builder and its full buffer, the box, its ToString, the
		// new buffer.
		{"AppendBox", objectSize(m, "System.Text.StringBuilder") + il.ArraySize(il.Char, il.StringBuilderDefaultCapacity) +
			il.BoxSize + ss("12345") + il.ArraySize(il.Char, growth), ""},
		// The exceptions, the inner one's ToString, the outer one's.
		{"InnerToString", objectSize(m, "System.Exception") + exc + ss(inner) + ss(outer), ""},
		// The exception and its message (the box is not read again).
		{"CastFails", objectSize(m, "System.InvalidCastException") +
			ss("Unable to cast object of type 'System.Int32' to type 'System.String'."), ""},
		// The array the constructor makes, and the object newobj makes
		// if the code after the newobj reads it.
		{"Constructing", il.ArraySize(il.Int32, 100), ""},
		{"ConstructingKept", objectSize(m, "Orphan") + il.ArraySize(il.Int32, 100), ""},
		// The arguments again, and the new string.
		{"CallbackArgs", objectSize(m, "Later") + il.ArraySize(il.Int32, 200) + ss("aSystem.Int32[]"), ""},
		// Variables and stack entries, live or not.
		{"DeadLocals", arr, ""},
		{"LiveLocal", 2 * arr, ""},
		{"DeadArgument", arr, ""},
		{"LiveArgument", 2 * arr, ""},
		{"PoppedEntry", arr, ""},
		{"UsedEntry", 2 * arr, ""},
		{"HandlerLocal", 2 * arr, ""},
		{"PassedFrame", exc + 2*arr, ""},
		{"ExposedLocal", 2 * arr, ""},
		{"StaleTemporary", 2 * arr, ""},
		// The string a local value holds; the value is not on the heap.
		{"StructLocal", il.StringSize(100) + il.ArraySize(il.Int32, 100), ""},
		// Nothing but the array: an integer does not keep what its
		// stack slot held before.
		{"StaleSlot", il.ArraySize(il.Int32, 100), ""},
		// The exception a catch, a filter, a finally runs for (a filter
		// that throws declines).
		{"InCatch", exc + il.ArraySize(il.Int32, 100), ""},
		{"InFilter", exc + il.ArraySize(il.Int32, 100), "System.InvalidOperationException"},
		{"InFinally", exc + il.ArraySize(il.Int32, 100), ""},
	} {
		for _, eng := range []miniil.Engine{miniil.JIT, miniil.Interp} {
			heapRow(t, tt.method, eng, func(t *testing.T) {
				var out strings.Builder
				_, err := p.Call(context.Background(), miniil.Config{Engine: eng, Stdout: &out, MaxHeap: tt.need}, tt.method)
				if err != nil || out.String() != "ok\n" {
					t.Errorf("%s with a heap limit of %d: %v, output %q", tt.method, tt.need, err, out.String())
				}
				out.Reset()
				_, err = p.Call(context.Background(), miniil.Config{Engine: eng, Stdout: &out, MaxHeap: tt.need - 8}, tt.method)
				fail := il.OutOfMemoryClass
				if tt.fail != "" {
					fail = tt.fail
				}
				var me *miniil.ManagedException
				if !errors.As(err, &me) || me.Type != fail || out.String() != "" {
					t.Errorf("%s with a heap limit of %d: %v, output %q; want an unhandled %s", tt.method, tt.need-8, err, out.String(), fail)
				}
			})
		}
	}
}
