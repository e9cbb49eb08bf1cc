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
//
// Making a page resident is half of a fresh page's cost on those
// machines: the first touch of each page from user space still costs
// about 5 µs (the hypervisor maps it on its side then). A transparent
// huge page costs one such fault for 2 MiB (measured: 0.28 µs per
// 4 KiB against 5.9 populated and 10.9 faulted one by one), so HugePages
// asks for them where a large program's memory is about to be filled.
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

// HugeBlock is the unit HugePages advises: the Go runtime maps its heap
// in blocks of 4 MiB, aligned (its page allocator's chunks), and a
// block's small-object spans, maps and buffers are carved from it later,
// as the heap grows.
const HugeBlock = 4 << 20

// HugePages advises the kernel to back the HugeBlock-aligned blocks
// holding the n bytes at p with transparent huge pages (MADV_HUGEPAGE),
// if n is at least MinBytes: a 2 MiB stretch of them that nothing has
// touched yet becomes one huge page at its next fault, instead of 512
// pages faulted one at a time. p must point into the Go heap (a large
// allocation the caller is about to fill) or a private mapping of the
// caller's; the advice covers the whole block, the runtime's memory
// around the allocation included, which only changes the size of the
// pages that memory will get (as on a system whose huge pages are
// "always" on). Parts of a block the runtime has not mapped yet are left
// out: it maps them later without the advice. The cost is memory: a
// huge page is resident whole, so this is for blocks a large program
// is about to fill. It does nothing where the system has no huge pages
// (other operating systems, or transparent huge pages set to "never").
func HugePages(p unsafe.Pointer, n uintptr) {
	if n < MinBytes {
		return
	}
	start := uintptr(p) &^ (HugeBlock - 1)
	end := (uintptr(p) + n + HugeBlock - 1) &^ (HugeBlock - 1)
	adviseHuge(start, end-start)
}

// HugePageSize is the size of a transparent huge page on amd64: a
// 2 MiB stretch starting on a multiple of it.
const HugePageSize = 2 << 20

// MinHugeBytes is the smallest buffer HugeBytes aligns: below it the
// huge page's 2 MiB would be mostly unused.
const MinHugeBytes = 256 << 10

// HugeBytes returns a zeroed byte slice of length 0 and capacity n to be
// filled at once (a source file read into it), resident ahead of use.
// From MinHugeBytes on, its array starts on a HugePageSize boundary, in
// a stretch of the heap nothing has touched, advised huge: a buffer
// allocated where the runtime's small objects already split the 2 MiB
// around it into 4 KiB pages would take a fault per 4 KiB (on a
// virtual machine about 10 µs each, a 1 MB source 2 ms), while an
// aligned one takes one per 2 MiB. The allocation is HugePageSize
// larger than n; the bytes before and after the buffer are never
// touched, so they cost address space and heap accounting, not memory.
func HugeBytes(n int) []byte {
	if n < MinHugeBytes {
		b := make([]byte, 0, n)
		Slice(b)
		return b
	}
	raw := make([]byte, n+HugePageSize)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	off := int((HugePageSize - p%HugePageSize) % HugePageSize)
	b := raw[off : off : off+n]
	HugeSlice(b)
	Slice(b)
	return b
}

// HugeSlice is HugePages for the backing array of s (its full capacity).
func HugeSlice[T any](s []T) {
	if cap(s) == 0 {
		return
	}
	var t T
	HugePages(unsafe.Pointer(unsafe.SliceData(s)), uintptr(cap(s))*unsafe.Sizeof(t))
}

// ReadOnly makes resident for reading the pages holding b, whatever its
// size: for a view that is not writable (the JIT's execution view of
// code written through another mapping of the same memory), whose first
// access would otherwise fault each page in again.
func ReadOnly(b []byte) {
	if len(b) > 0 {
		populateRead(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)))
	}
}
