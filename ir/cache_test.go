package ir

import "testing"

// cacheCases are the caches the tests run with: none (everything
// allocated fresh) and a new one.
func cacheCases() []struct {
	name  string
	cache *Cache
} {
	return []struct {
		name  string
		cache *Cache
	}{
		{"nil cache", nil},
		{"cache", new(Cache)},
	}
}

func TestCacheMake(t *testing.T) {
	for _, tc := range cacheCases() {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cache
			a := Make[int32](c, 10)
			b := Make[int32](c, 5)
			if len(a) != 10 || cap(a) != 10 || len(b) != 5 || cap(b) != 5 {
				t.Fatalf("len/cap: a %d/%d, b %d/%d", len(a), cap(a), len(b), cap(b))
			}
			for i := range a {
				a[i] = 7
			}
			for _, v := range b {
				if v != 0 {
					t.Fatalf("b not zeroed: %v", b)
				}
			}
			// Appending past the cap copies out: b's neighbours are untouched.
			a = append(a, 1)
			b[0] = 3
			if a[0] != 7 || a[10] != 1 {
				t.Fatalf("append: %v", a)
			}
			in := c.NewInstr()
			in.Op = OpAdd
			c.Reset()
			// After Reset the memory is handed out again, zeroed.
			d := Make[int32](c, 15)
			for _, v := range d {
				if v != 0 {
					t.Fatalf("reused memory not zeroed: %v", d)
				}
			}
			if in2 := c.NewInstr(); in2.Op != 0 {
				t.Fatalf("reused instruction not zeroed: %v", in2.Op)
			}
			// Different types come from different pools.
			f := Make[float64](c, 3)
			if len(f) != 3 {
				t.Fatalf("float64 slice of %d", len(f))
			}
		})
	}
}

func TestCacheReuses(t *testing.T) {
	c := new(Cache)
	a := Make[int](c, 100)
	c.Reset()
	b := Make[int](c, 100)
	if &a[0] != &b[0] {
		t.Error("after Reset, Make did not reuse the pool's memory")
	}
	// A request larger than the chunk gets a new one.
	big := Make[int](c, 1000)
	if len(big) != 1000 || &big[0] == &a[0] {
		t.Error("a large request shares the first chunk")
	}
	// A request past maxDirect bypasses the pool: it is not handed out
	// again after Reset.
	huge := Make[int](c, maxDirect/8+1)
	c.Reset()
	Make[int](c, 1)
	if x := Make[int](c, maxDirect/8); &x[0] == &huge[0] {
		t.Error("a request larger than maxDirect came from the pool")
	}
}

func TestCacheAppend(t *testing.T) {
	for _, tc := range cacheCases() {
		t.Run(tc.name, func(t *testing.T) {
			var s []int32
			for i := range int32(100) {
				s = Append(tc.cache, s, i)
			}
			for i, v := range s {
				if v != int32(i) {
					t.Fatalf("s[%d] = %d", i, v)
				}
			}
			// A neighbour taken after s is not overwritten by appends to s.
			n := Make[int32](tc.cache, 4)
			s = Append(tc.cache, s[:cap(s)], 7)
			for _, v := range n {
				if v != 0 {
					t.Fatalf("append wrote into a neighbour: %v", n)
				}
			}
		})
	}
}

// TestCacheKeepsChunks checks that a compile larger than one chunk
// allocates nothing the next time (every chunk it filled is handed out
// again after Reset), and that Reset keeps no more than keepBytes.
func TestCacheKeepsChunks(t *testing.T) {
	c := new(Cache)
	addrs := make([]*int64, 5000)
	fill := func(n int) []*int64 {
		for i := range n {
			addrs[i] = &Make[int64](c, 100)[0]
		}
		return addrs[:n]
	}
	// 100 requests of 800 bytes: about 80 KB, more than one chunk.
	first := append([]*int64(nil), fill(100)...)
	if allocs := testing.AllocsPerRun(5, func() { c.Reset(); fill(100) }); allocs != 0 {
		t.Errorf("a second compile of the same size allocated %v times, want 0", allocs)
	}
	c.Reset()
	again := fill(100)
	for i := range first {
		if first[i] != again[i] {
			t.Fatalf("request %d got other memory after Reset", i)
		}
	}
	// A compile of several MiB: Reset keeps at most keepBytes of it.
	c.Reset()
	fill(5000)
	c.Reset()
	p := c.pools[0].(*pool[int64])
	kept := 0
	for _, ch := range p.chunks {
		kept += len(ch) * 8
	}
	if kept > keepBytes || kept == 0 {
		t.Errorf("Reset kept %d bytes of chunks, want 0 < kept <= %d", kept, keepBytes)
	}
}

// TestEmptied checks that a kept map is emptied in place while small and
// made again once a large method has grown it (clearing costs capacity).
func TestEmptied(t *testing.T) {
	var m map[Value]bool
	small := Emptied(&m)
	if small == nil || len(small) != 0 {
		t.Fatal("Emptied of a nil map did not make one")
	}
	small[1] = true
	if again := Emptied(&m); len(again) != 0 || again == nil {
		t.Fatal("Emptied did not empty a small map")
	} else {
		again[2] = true
		if !m[2] {
			t.Fatal("Emptied made a new map for a small one instead of reusing it")
		}
	}
	for v := range Value(1000) {
		m[v] = true
	}
	if fresh := Emptied(&m); len(fresh) != 0 {
		t.Fatal("Emptied did not empty a large map")
	} else if fresh[500] = true; !m[500] {
		t.Fatal("Emptied's result is not the map it stored")
	}
}
