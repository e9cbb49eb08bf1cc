//go:build linux && amd64

package jitrt

import (
	"bytes"
	"errors"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"miniil/abi"

	"miniil/il"
)

const tinyProgram = `.assembly t {}
.method public static void main() cil managed { .entrypoint .maxstack 1 ret }`

func noCompile(*Runtime, *il.Method) (*abi.Method, error) {
	return nil, errors.New("not compiled in this test")
}

// TestReservationsFollowHeapLimit checks what a runtime maps: the
// nursery's two halves and twice the heap limit (plus slack) for the
// heap, the code heap and metadata estimated from the module, and that
// no object larger than the limit is ever allocated.
func TestReservationsFollowHeapLimit(t *testing.T) {
	mod, err := il.Load("t.il", []byte(tinyProgram))
	if err != nil {
		t.Fatal(err)
	}
	codeRes, metaRes := Reservations(mod)
	if codeRes != 1<<20 || metaRes > 1<<20 {
		t.Errorf("a tiny program reserves %d bytes of code heap and %d of metadata; want the 1 MiB floor and under 1 MiB", codeRes, metaRes)
	}
	for _, limit := range []int{1, 4096, 1 << 20, 64<<20 + 5, DefaultHeapBytes} {
		rt, err := NewRuntime(mod, Options{Compile: noCompile, HeapBytes: limit})
		if err != nil {
			t.Fatal(err)
		}
		nursery := roundUp(DefaultNurseryBytes, pageSize)
		if got, want := len(rt.gc.mem), 2*nursery+roundUp(2*limit+oldSlack+largeObjectBytes, pageSize); got != want {
			t.Errorf("heap limit %d: heap maps %d bytes, want %d", limit, got, want)
		}
		lo, hi := rt.code.Reservation()
		if int(hi-lo) != codeRes || len(rt.meta.mem) != roundUp(metaRes+8, pageSize) {
			t.Errorf("heap limit %d: code heap %d bytes, metadata %d; want %d and %d", limit, hi-lo, len(rt.meta.mem), codeRes, metaRes)
		}
		// The limit bounds what is live: an object of the limit's size
		// fits (objects take multiples of 8 bytes), a larger one never.
		if _, err := rt.gc.allocNoGC(uintptr(limit &^ 7)); err != nil {
			t.Errorf("heap limit %d: allocating all of it: %v", limit, err)
		}
		if _, err := rt.gc.allocNoGC(uintptr(limit&^7) + 8); err != ErrHeapExhausted {
			t.Errorf("heap limit %d: allocating past it gave %v", limit, err)
		}
		if err := rt.Close(); err != nil {
			t.Error(err)
		}
		if err := rt.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	}
	var nilRT *Runtime
	if err := nilRT.Close(); err != nil {
		t.Errorf("Close of a nil runtime: %v", err)
	}
	for _, bad := range []int{-1, MaxHeapBytes + 1} {
		if _, err := NewRuntime(mod, Options{Compile: noCompile, HeapBytes: bad}); err == nil {
			t.Errorf("heap limit %d accepted", bad)
		}
	}
}

// TestOutWriterFlushing checks when the output writer writes through:
// block buffering flushes only at the end, line flushing after every
// write that ends a line (WriteLine, a string or char holding '\n').
func TestOutWriterFlushing(t *testing.T) {
	for _, lines := range []bool{false, true} {
		var w countingWriter
		o := newOutWriter(&w, lines)
		o.ascii([]byte("12"))
		o.ascii(newline)
		o.units(utf16Of("a\nb"))
		o.char('c')
		o.char('\n')
		o.units(utf16Of("no newline"))
		writesBefore := w.writes
		if err := o.finish(); err != nil {
			t.Fatal(err)
		}
		if want := "12\na\nbc\nno newline"; w.buf.String() != want {
			t.Errorf("lines=%v: wrote %q, want %q", lines, w.buf.String(), want)
		}
		wantWrites := 0
		if lines {
			wantWrites = 3
		}
		if writesBefore != wantWrites || w.writes != wantWrites+1 {
			t.Errorf("lines=%v: %d writes before finish, %d after; want %d and %d", lines, writesBefore, w.writes, wantWrites, wantWrites+1)
		}
	}
}

type countingWriter struct {
	buf    bytes.Buffer
	writes int
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.writes++
	return w.buf.Write(b)
}

// TestNurseryPopulated checks that the nursery is made resident ahead of
// allocation, in stretches as large as what is already populated (from
// populateMin, at most populateMax), and that native code's allocation
// limit stops at the resident part (an allocation past it exits, and
// the runtime populates more). Where the kernel supports
// MADV_POPULATE_WRITE, the pages must be resident.
func TestNurseryPopulated(t *testing.T) {
	rt, _ := newTinyRuntime(t, Options{})
	h := rt.gc
	if h.populated != h.nurLo || uintptr(*h.lim) > h.nurLo+8 {
		t.Fatalf("before any allocation: %d bytes populated, limit at %d; want 0 and at most 8", h.populated-h.nurLo, uintptr(*h.lim)-h.nurLo)
	}
	supported := unix.Madvise(h.mem[h.nurBytes-pageSize:h.nurBytes], unix.MADV_POPULATE_WRITE) == nil
	want := uintptr(0)
	for want < h.nurBytes {
		// Each stretch is what is already populated, within the bounds.
		want = min(want+min(max(populateMin, want), populateMax), h.nurBytes)
		for uintptr(*h.top) < h.nurLo+want { // up to the end of the stretch, in small objects
			if _, err := h.allocNoGC(min(4096, h.nurLo+want-uintptr(*h.top))); err != nil {
				t.Fatal(err)
			}
		}
		if got := h.populated - h.nurLo; got != want {
			t.Fatalf("after allocating %d bytes: %d populated, want %d", uintptr(*h.top)-h.nurLo, got, want)
		}
		if lim := uintptr(*h.lim); lim > h.populated {
			t.Fatalf("native code may allocate up to %d, past the %d bytes populated", lim-h.nurLo, want)
		}
		if supported {
			vec := make([]byte, want/pageSize)
			if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&h.mem[0])), want, uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
				t.Fatal(e)
			}
			for i, v := range vec {
				if v&1 == 0 {
					t.Fatalf("page %d of the %d bytes populated is not resident", i, want)
				}
			}
		}
	}
	if want != h.nurBytes {
		t.Errorf("populated %d bytes of the %d-byte nursery", want, h.nurBytes)
	}
}
