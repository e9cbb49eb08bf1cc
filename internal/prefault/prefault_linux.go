package prefault

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

var pageSize = uintptr(os.Getpagesize())

// populate asks the kernel to prepare the pages holding the n bytes at
// p for writing (MADV_POPULATE_WRITE), rounded out to whole pages. An
// error (an older kernel, or memory that is not a private writable
// mapping) leaves the pages to be faulted in as they are touched.
func populate(p unsafe.Pointer, n uintptr) {
	head := uintptr(p) & (pageSize - 1)
	size := (head + n + pageSize - 1) &^ (pageSize - 1)
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, -int(head))), size), unix.MADV_POPULATE_WRITE)
}
