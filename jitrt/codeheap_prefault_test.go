package jitrt

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestCodeHeapPopulatesLaterChunks: the first chunk of code space is
// faulted in as code is installed (a small program uses a few pages of
// it); from the second on, a chunk's pages are resident as soon as the
// heap grows into it, in both views.
func TestCodeHeapPopulatesLaterChunks(t *testing.T) {
	h, err := NewCodeHeap(CodeHeapConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if !h.DualMapped() {
		t.Skip("no memfd here: the code heap has a single mapping")
	}
	residentPage := func(view []byte, off int) bool {
		vec := make([]byte, 1)
		if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&view[off])), pageSize, uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
			t.Fatal(e)
		}
		return vec[0]&1 != 0
	}
	first := h.chunkEnd
	if residentPage(h.mem, first-pageSize) {
		t.Fatalf("the first chunk's last page is resident before any code reached it")
	}
	// Install code until the heap grows into its second chunk.
	for h.chunkEnd == first {
		if _, err := h.InstallFunc(4096, func(_ uintptr, buf []byte) error {
			buf[0] = 0xC3
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, view := range []struct {
		name string
		mem  []byte
	}{{"execution view", h.mem}, {"write view", h.wmem}} {
		if !residentPage(view.mem, h.chunkEnd-pageSize) {
			t.Errorf("%s: the second chunk's last page is not resident", view.name)
		}
	}
}
