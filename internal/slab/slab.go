// Package slab hands out values and small slices of a type from chunks
// allocated many at a time, for objects that live as long as what holds
// the slab (a module's instructions, the runtime's installed methods).
// It is internal to miniil: no compatibility promise.
package slab

import (
	"unsafe"

	"miniil/internal/prefault"
)

// Slab hands out values and small slices of T from chunks allocated many
// at a time: a module is thousands of small objects (instructions, branch
// targets, parameters, locals, attribute lists) that all live as long as
// the module, and allocating them one by one was a third of the time
// spent loading a program. The zero Slab is ready to use. A slice from take has cap == len, so appending
// to it copies instead of writing into its neighbour's elements.
//
// Chunks double in size, from the first (slabChunk elements at most)
// up to slabMaxBytes, so a small program holds little unused and a
// large one few chunks; a
// chunk of prefault.MinBytes or more is made resident in one call as it
// is allocated, instead of a page fault at a time as the parser fills it
// (faults were a third of the time spent loading a large program), and
// the heap blocks around it are advised huge pages (prefault.HugePages):
// the rest of a large program's objects, carved from those blocks
// later, then come 2 MiB at a fault.
type Slab[T any] struct {
	free []T
	next int // elements in the next chunk; 0: the first
}

// slabChunk is how many elements the first chunk holds, at most (and
// at most slabFirstBytes: a program that declares a few methods gets no
// chunk of 256); a request for more than a quarter of it gets its own
// allocation.
const (
	slabChunk      = 256
	slabFirstBytes = 16 << 10
)

// slabMaxBytes bounds a chunk's size in bytes.
const slabMaxBytes = 1 << 20

// Take returns a zeroed slice of n elements.
func (s *Slab[T]) Take(n int) []T {
	if n == 0 {
		return nil
	}
	if n > slabChunk/4 {
		return make([]T, n)
	}
	if len(s.free) < n {
		s.grow(n)
	}
	v := s.free[:n:n]
	s.free = s.free[n:]
	return v
}

// grow starts a new chunk, of at least n elements.
func (s *Slab[T]) grow(n int) {
	var t T
	elem := max(int(unsafe.Sizeof(t)), 1)
	size := s.next
	if size == 0 { // the first chunk: at most slabFirstBytes
		size = min(slabChunk, slabFirstBytes/elem)
	}
	size = max(size, n)
	s.free = make([]T, size)
	prefault.HugeSlice(s.free)
	prefault.Slice(s.free)
	if 2*size*elem <= slabMaxBytes {
		size *= 2
	}
	s.next = size
}

// One returns a pointer to a zeroed element.
func (s *Slab[T]) One() *T { return &s.Take(1)[0] }

// Clone returns a copy of v at its exact size.
func (s *Slab[T]) Clone(v []T) []T {
	c := s.Take(len(v))
	copy(c, v)
	return c
}

// Lists is a Slab of T for lists of unknown length: a list grows (by
// append) in a buffer that Start hands out, and Keep copies it into the
// slab at its exact size and takes its array back for the next list.
type Lists[T any] struct {
	Slab[T]
	buf []T
}

// Start returns the empty buffer to append a list to.
func (l *Lists[T]) Start() []T { return l.buf[:0] }

// Keep returns list s, grown from Start, at its exact size.
func (l *Lists[T]) Keep(s []T) []T {
	l.buf = s[:0]
	return l.Clone(s)
}
