package prefault

import (
	"errors"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resident counts the resident pages of b (b is page-aligned).
func resident(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (len(b)+int(pageSize)-1)/int(pageSize))
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

func TestPages(t *testing.T) {
	probe, err := unix.Mmap(-1, 0, int(pageSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(probe)
	if err := unix.Madvise(probe, unix.MADV_POPULATE_WRITE); errors.Is(err, unix.EINVAL) {
		t.Skip("this kernel has no MADV_POPULATE_WRITE (Linux 5.14): Pages does nothing here")
	}
	for _, tc := range []struct {
		name       string
		off, n     int // the block within a fresh mapping of 64 pages
		lo, hi     int // the pages expected resident: [lo, hi)
		wantNoCall bool
	}{
		{name: "aligned", off: 0, n: MinBytes, lo: 0, hi: MinBytes / int(pageSize)},
		{name: "rounded out to whole pages", off: 100, n: MinBytes + 10, lo: 0, hi: MinBytes/int(pageSize) + 1},
		{name: "below MinBytes: left to faults", off: 0, n: MinBytes - 1, wantNoCall: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := unix.Mmap(-1, 0, 64*int(pageSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Munmap(m)
			Pages(unsafe.Pointer(&m[tc.off]), uintptr(tc.n))
			if tc.wantNoCall {
				if n := resident(t, m); n != 0 {
					t.Errorf("%d pages resident, want none", n)
				}
				return
			}
			for i := 0; i < 64; i++ {
				page := m[i*int(pageSize) : (i+1)*int(pageSize)]
				want := 0
				if i >= tc.lo && i < tc.hi {
					want = 1
				}
				if got := resident(t, page); got != want {
					t.Errorf("page %d: resident %d, want %d", i, got, want)
				}
			}
		})
	}
}

// TestSliceKeepsContents: populating memory in use changes nothing in it.
func TestSliceKeepsContents(t *testing.T) {
	s := make([]int64, 2*MinBytes/8)
	for i := range s {
		s[i] = int64(i) * 7
	}
	Slice(s)
	Slice(s[:0])        // a zero-length slice with capacity: still its array
	Slice([]int64(nil)) // nothing
	for i, v := range s {
		if v != int64(i)*7 {
			t.Fatalf("s[%d] = %d after Slice, want %d", i, v, i*7)
		}
	}
}

// TestBytes: Bytes populates a block of any size, even one page.
func TestBytes(t *testing.T) {
	m, err := unix.Mmap(-1, 0, 8*int(pageSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	if err := unix.Madvise(m[:pageSize], unix.MADV_POPULATE_WRITE); errors.Is(err, unix.EINVAL) {
		t.Skip("this kernel has no MADV_POPULATE_WRITE (Linux 5.14): Bytes does nothing here")
	}
	Bytes(m[2*pageSize : 3*pageSize])
	Bytes(nil) // nothing
	for i := 1; i < 8; i++ {
		want := 0
		if i == 2 {
			want = 1
		}
		if got := resident(t, m[i*int(pageSize):(i+1)*int(pageSize)]); got != want {
			t.Errorf("page %d: resident %d, want %d", i, got, want)
		}
	}
}
