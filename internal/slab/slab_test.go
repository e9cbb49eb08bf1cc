package slab

import (
	"slices"
	"testing"
)

func TestSlab(t *testing.T) {
	var s Slab[int]
	for _, tc := range []struct {
		name string
		n    int
	}{{"none", 0}, {"one", 1}, {"some", 7}, {"a quarter chunk", slabChunk / 4}, {"more than a quarter", slabChunk/4 + 1}} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := s.Take(tc.n), s.Take(tc.n)
			if len(a) != tc.n || cap(a) != tc.n {
				t.Fatalf("take(%d): len %d cap %d, want both %d", tc.n, len(a), cap(a), tc.n)
			}
			for i := range a {
				if a[i] != 0 {
					t.Fatalf("take(%d)[%d] = %d, want zero", tc.n, i, a[i])
				}
				a[i] = 1
			}
			if tc.n > 0 {
				a = append(a, 2) // must copy, not write into b
			}
			for i, v := range b {
				if v != 0 {
					t.Fatalf("appending to one slice wrote %d into its neighbour at %d", v, i)
				}
			}
		})
	}
	c := s.Clone([]int{4, 5, 6})
	if len(c) != 3 || cap(c) != 3 || c[0] != 4 || c[2] != 6 {
		t.Errorf("clone = %v (cap %d), want [4 5 6] (cap 3)", c, cap(c))
	}
	if s.Take(0) != nil || s.Clone(nil) != nil {
		t.Error("an empty take or clone is not nil")
	}
}

func TestLists(t *testing.T) {
	var l Lists[int]
	a := append(l.Start(), 1, 2, 3)
	kept := l.Keep(a)
	if len(kept) != 3 || cap(kept) != 3 {
		t.Fatalf("keep: len %d cap %d, want 3 and 3", len(kept), cap(kept))
	}
	b := append(l.Start(), 7, 8, 9) // fits: reuses the first list's array
	if &b[0] != &a[0] {
		t.Error("start does not hand out the buffer again")
	}
	if kept[0] != 1 || kept[1] != 2 || kept[2] != 3 {
		t.Errorf("a kept list changed when the buffer was reused: %v", kept)
	}
}

// TestSlabGrowth: chunks double from slabChunk elements up to
// slabMaxBytes, so a large module takes few (populated) chunks and a
// small one holds little unused.
func TestSlabGrowth(t *testing.T) {
	var s Slab[[64]byte]
	var sizes []int
	prev := 0
	for len(sizes) < 9 {
		s.One()
		if len(s.free) >= prev { // a new chunk, one element taken
			sizes = append(sizes, len(s.free)+1)
		}
		prev = len(s.free)
	}
	want := []int{256, 512, 1024, 2048, 4096, 8192, 16384, 16384, 16384} // 16384 x 64 bytes = slabMaxBytes
	if !slices.Equal(sizes, want) {
		t.Errorf("chunk sizes %v, want %v", sizes, want)
	}
}

// TestSlabLargeElements: the first chunk of a slab of large elements
// holds slabFirstBytes, and a request larger than that chunk (up to a
// quarter of slabChunk, which a slab serves) still gets a chunk of its
// own size.
func TestSlabLargeElements(t *testing.T) {
	var s Slab[[1024]byte]
	s.One()
	if got, want := len(s.free)+1, slabFirstBytes/1024; got != want {
		t.Errorf("first chunk of %d elements, want %d", got, want)
	}
	v := s.Take(slabChunk / 4)
	if len(v) != slabChunk/4 || cap(v) != slabChunk/4 {
		t.Fatalf("take(%d): len %d cap %d", slabChunk/4, len(v), cap(v))
	}
	for i := range v {
		if v[i] != ([1024]byte{}) {
			t.Fatalf("take(%d)[%d] is not zeroed", slabChunk/4, i)
		}
	}
}
