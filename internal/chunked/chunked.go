// Package chunked provides a list that grows a chunk at a time. It is
// internal to miniil: no compatibility promise.
//
// Appending to a Go slice past its capacity copies it into an array a
// quarter (large slices) or twice as big, so building a list of n
// elements allocates and writes several times n elements before it is
// done. For the lists a compiler builds and then copies out or walks
// once (a method's instructions, its liveness pairs), that is most of
// their memory traffic, and every byte of it fresh memory the first time:
// a page fault per page. A List appends into fixed-size chunks instead,
// never copies, and keeps its chunks across Reset for the next list.
package chunked

import "unsafe"

// chunkBytes is the size a chunk aims at: a few pages, so a small list
// costs one chunk and a large one touches only the pages it fills.
const chunkBytes = 16 << 10

// keepChunks is how many chunks Reset keeps for the next list; a larger
// list's extra chunks are left to the collector.
const keepChunks = 16

// List is a list of T in fixed-size chunks. The zero List is empty and
// ready to use.
type List[T any] struct {
	chunks [][]T // full chunks, then the one being filled
	n      int   // elements in all chunks
	used   int   // chunks in use (the rest are kept for reuse)
}

// chunkLen returns the number of elements of a chunk.
func chunkLen[T any]() int {
	var zero T
	return max(chunkBytes/max(int(unsafe.Sizeof(zero)), 1), 64)
}

// Append adds v at the end of the list.
func (l *List[T]) Append(v T) {
	if l.used > 0 {
		c := &l.chunks[l.used-1]
		if len(*c) < cap(*c) {
			*c = append(*c, v)
			l.n++
			return
		}
	}
	if l.used == len(l.chunks) {
		l.chunks = append(l.chunks, make([]T, 0, chunkLen[T]()))
	}
	l.used++
	c := &l.chunks[l.used-1]
	*c = append((*c)[:0], v)
	l.n++
}

// Len returns the number of elements.
func (l *List[T]) Len() int { return l.n }

// Last returns the last element; the list must not be empty.
func (l *List[T]) Last() T {
	c := l.chunks[l.used-1]
	return c[len(c)-1]
}

// CopyTo copies the list into dst, which must hold Len elements, and
// returns the number copied.
func (l *List[T]) CopyTo(dst []T) int {
	k := 0
	for _, c := range l.chunks[:l.used] {
		k += copy(dst[k:], c)
	}
	return k
}

// All yields the elements in order: for v := range l.All { ... }. The
// list must not change while it yields.
func (l *List[T]) All(yield func(T) bool) {
	for _, c := range l.chunks[:l.used] {
		for _, v := range c {
			if !yield(v) {
				return
			}
		}
	}
}

// Reset empties the list, keeping up to keepChunks chunks for the
// elements appended next. The kept chunks still hold their old elements
// (and whatever those point to) until they are overwritten.
func (l *List[T]) Reset() {
	if len(l.chunks) > keepChunks {
		clear(l.chunks[keepChunks:])
		l.chunks = l.chunks[:keepChunks]
	}
	l.n, l.used = 0, 0
}
