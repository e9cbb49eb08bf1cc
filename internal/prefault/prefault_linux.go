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
func populate(p unsafe.Pointer, n uintptr) { advisePages(p, n, unix.MADV_POPULATE_WRITE) }

// populateRead is populate for reading (MADV_POPULATE_READ).
func populateRead(p unsafe.Pointer, n uintptr) { advisePages(p, n, unix.MADV_POPULATE_READ) }

// advisePages gives advice for the pages holding the n bytes at p.
func advisePages(p unsafe.Pointer, n uintptr, advice int) {
	head := uintptr(p) & (pageSize - 1)
	size := (head + n + pageSize - 1) &^ (pageSize - 1)
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, -int(head))), size), advice)
}

// adviseHuge advises huge pages for the n bytes at start (page-aligned).
// The range may cover addresses nothing maps (ENOMEM: the advice still
// applies to the mappings in it), so it is a raw call on addresses, not
// a slice.
func adviseHuge(start, n uintptr) {
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, start, n, unix.MADV_HUGEPAGE)
}
