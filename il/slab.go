package il

import (
	"unsafe"

	"miniil/internal/prefault"
)

// slab hands out values and small slices of T from chunks allocated many
// at a time: a module is thousands of small objects (instructions, branch
// targets, parameters, locals, attribute lists) that all live as long as
// the module, and allocating them one by one was a third of the time
// spent loading a program. A slice from take has cap == len, so appending
// to it copies instead of writing into its neighbour's elements.
//
// Chunks double in size, from the first (slabChunk elements at most)
// up to slabMaxBytes, so a small program holds little unused and a
// large one few chunks; a
// chunk of prefault.MinBytes or more is made resident in one call as it
// is allocated, instead of a page fault at a time as the parser fills it
// (faults were a third of the time spent loading a large program).
type slab[T any] struct {
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

// take returns a zeroed slice of n elements.
func (s *slab[T]) take(n int) []T {
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
func (s *slab[T]) grow(n int) {
	var t T
	elem := max(int(unsafe.Sizeof(t)), 1)
	size := s.next
	if size == 0 { // the first chunk: at most slabFirstBytes
		size = min(slabChunk, slabFirstBytes/elem)
	}
	size = max(size, n)
	s.free = make([]T, size)
	prefault.Slice(s.free)
	if 2*size*elem <= slabMaxBytes {
		size *= 2
	}
	s.next = size
}

// one returns a pointer to a zeroed element.
func (s *slab[T]) one() *T { return &s.take(1)[0] }

// clone returns a copy of v at its exact size.
func (s *slab[T]) clone(v []T) []T {
	c := s.take(len(v))
	copy(c, v)
	return c
}

// lists is a slab of T for lists of unknown length: a list grows (by
// append) in a buffer that start hands out, and keep copies it into the
// slab at its exact size and takes its array back for the next list.
type lists[T any] struct {
	slab[T]
	buf []T
}

// start returns the empty buffer to append a list to.
func (l *lists[T]) start() []T { return l.buf[:0] }

// keep returns list s, grown from start, at its exact size.
func (l *lists[T]) keep(s []T) []T {
	l.buf = s[:0]
	return l.clone(s)
}
