// Package prefault makes fresh memory resident ahead of its first use.
// It is internal to miniil: no compatibility promise.
//
// A page of anonymous memory is given to a process by a page fault at
// its first write. On a virtual machine a fault can cost ten
// microseconds (measured on the machines miniil is developed on: 10.6 µs
// a page touched one by one, against 1.0 µs a page made resident by one
// madvise call); loading a large program writes thousands of fresh
// pages of module objects, and those faults were a third of its time.
// Where a caller is about to fill a large block it has just allocated,
// Pages makes all of the block's pages resident in one system call.
//
// It never changes what memory holds: a page already resident is left
// as it is, and one that is not becomes the zero page it would have
// been at its first touch. On systems without the call (kernels before
// Linux 5.14, other operating systems) it does nothing.
package prefault

import "unsafe"

// MinBytes is the smallest block Pages populates: below it the system
// call costs more than the few faults it saves.
const MinBytes = 64 << 10

// Pages makes resident the pages holding the n bytes at p, if n is at
// least MinBytes. p must point into memory the caller owns (a Go
// allocation of at least n bytes, or its own mapping); the pages it
// shares with neighbouring objects are made resident too, which they
// would have been at their own first write.
func Pages(p unsafe.Pointer, n uintptr) {
	if n < MinBytes {
		return
	}
	populate(p, n)
}

// Bytes makes resident the pages holding b, whatever its size: for
// memory the caller maps itself and knows it is about to fill (the JIT's
// nursery, a stretch at a time).
func Bytes(b []byte) {
	if len(b) > 0 {
		populate(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)))
	}
}

// Slice makes resident the pages holding s's backing array (its full
// capacity), if it is at least MinBytes.
func Slice[T any](s []T) {
	if cap(s) == 0 {
		return
	}
	var t T
	Pages(unsafe.Pointer(unsafe.SliceData(s)), uintptr(cap(s))*unsafe.Sizeof(t))
}
