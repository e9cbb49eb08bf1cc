package chunked

import (
	"slices"
	"testing"
)

func TestList(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 2047, 2048, 2049, 5000, 40000} {
		var l List[int64]
		for round := range 3 { // Reset reuses the chunks
			want := make([]int64, n)
			for i := range n {
				want[i] = int64(i*7 + round)
				l.Append(want[i])
			}
			if l.Len() != n {
				t.Fatalf("n=%d round %d: Len %d", n, round, l.Len())
			}
			if n > 0 && l.Last() != want[n-1] {
				t.Fatalf("n=%d round %d: Last %d, want %d", n, round, l.Last(), want[n-1])
			}
			got := make([]int64, n)
			if k := l.CopyTo(got); k != n || !slices.Equal(got, want) {
				t.Fatalf("n=%d round %d: CopyTo copied %d, mismatch %v", n, round, k, !slices.Equal(got, want))
			}
			var walked []int64
			for v := range l.All {
				walked = append(walked, v)
			}
			if !slices.Equal(walked, want) && n > 0 {
				t.Fatalf("n=%d round %d: All yields a different list", n, round)
			}
			l.Reset()
			if l.Len() != 0 || len(l.chunks) > keepChunks {
				t.Fatalf("n=%d: after Reset Len %d, %d chunks kept", n, l.Len(), len(l.chunks))
			}
		}
	}
}

// TestListNeverCopies checks the point of the type: an element, once
// appended, stays where it was written (no chunk is ever reallocated).
func TestListNeverCopies(t *testing.T) {
	var l List[int32]
	l.Append(1)
	first := &l.chunks[0][0]
	for i := range 100000 {
		l.Append(int32(i))
	}
	if &l.chunks[0][0] != first {
		t.Fatal("the first chunk moved while the list grew")
	}
	for _, c := range l.chunks[:l.used-1] {
		if len(c) != cap(c) || cap(c) != chunkLen[int32]() {
			t.Fatalf("a full chunk has len %d cap %d, want %d", len(c), cap(c), chunkLen[int32]())
		}
	}
}
