package prefault

import (
	"errors"
	"os"
	"strconv"
	"strings"
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

// hugeResident returns the kilobytes of huge pages /proc/self/smaps
// reports in the mappings that overlap b.
func hugeResident(t *testing.T, b []byte) int {
	t.Helper()
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	lo := uintptr(unsafe.Pointer(&b[0]))
	hi := lo + uintptr(len(b))
	kb, in := 0, false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if start, end, ok := strings.Cut(f[0], "-"); ok && len(f) >= 5 {
			s, err1 := strconv.ParseUint(start, 16, 64)
			e, err2 := strconv.ParseUint(end, 16, 64)
			in = err1 == nil && err2 == nil && uintptr(s) < hi && uintptr(e) > lo
			continue
		}
		if in && f[0] == "AnonHugePages:" {
			n, _ := strconv.Atoi(f[1])
			kb += n
		}
	}
	return kb
}

// TestHugePages: a block advised, then filled, is backed by huge pages
// (in a system whose transparent huge pages are "madvise", where only
// advised memory gets them); below MinBytes nothing is advised.
func TestHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(mode), "[madvise]") {
		t.Skipf("transparent huge pages are not \"madvise\" here (%q): advised and unadvised memory look alike", strings.TrimSpace(string(mode)))
	}
	for _, tc := range []struct {
		name   string
		n      uintptr
		wantKB bool
	}{
		{name: "large block", n: 2 * HugeBlock, wantKB: true},
		{name: "below MinBytes", n: MinBytes - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := unix.Mmap(-1, 0, 3*HugeBlock, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Munmap(m)
			// The mapping's first whole block.
			off := int((HugeBlock - uintptr(unsafe.Pointer(&m[0]))%HugeBlock) % HugeBlock)
			block := m[off : off+2*HugeBlock]
			HugePages(unsafe.Pointer(&block[0]), tc.n)
			for i := 0; i < len(block); i += int(pageSize) {
				block[i] = 1
			}
			kb := hugeResident(t, block)
			if tc.wantKB && kb < 2<<10 {
				t.Errorf("%d KiB of huge pages after advising and filling %d MiB, want at least 2048", kb, len(block)>>20)
			}
			if !tc.wantKB && kb != 0 {
				t.Errorf("%d KiB of huge pages for a block below MinBytes, want none", kb)
			}
		})
	}
}

// TestReadOnly: the pages of a read-only view of shared memory are made
// resident (a memfd's, as the JIT's execution view of its code).
func TestReadOnly(t *testing.T) {
	fd, err := unix.MemfdCreate("prefault-test", unix.MFD_CLOEXEC)
	if err != nil {
		t.Skipf("no memfd: %v", err)
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, 16*int64(pageSize)); err != nil {
		t.Fatal(err)
	}
	view, err := unix.Mmap(fd, 0, 16*int(pageSize), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(view)
	if err := unix.Madvise(view[:pageSize], unix.MADV_POPULATE_READ); errors.Is(err, unix.EINVAL) {
		t.Skip("this kernel has no MADV_POPULATE_READ (Linux 5.14): ReadOnly does nothing here")
	}
	ReadOnly(view[4*pageSize : 8*pageSize])
	ReadOnly(nil) // nothing
	for i := 1; i < 16; i++ {
		want := 0
		if i >= 4 && i < 8 {
			want = 1
		}
		if got := resident(t, view[i*int(pageSize):(i+1)*int(pageSize)]); got != want {
			t.Errorf("page %d: resident %d, want %d", i, got, want)
		}
	}
}

// TestHugeBytes: a buffer from MinHugeBytes on starts on a huge page
// boundary and is resident; a smaller one is an ordinary slice. Both
// are empty, zeroed and of the capacity asked for.
func TestHugeBytes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		aligned bool
	}{
		{name: "small", n: 1000},
		{name: "just below MinHugeBytes", n: MinHugeBytes - 1},
		{name: "MinHugeBytes", n: MinHugeBytes, aligned: true},
		{name: "1 MB source", n: 1 << 20, aligned: true},
		{name: "over a huge page", n: HugePageSize + 12345, aligned: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := HugeBytes(tc.n)
			if len(b) != 0 || cap(b) != tc.n {
				t.Fatalf("len %d cap %d, want 0 and %d", len(b), cap(b), tc.n)
			}
			full := b[:tc.n]
			p := uintptr(unsafe.Pointer(&full[0]))
			if tc.aligned && p%HugePageSize != 0 {
				t.Errorf("buffer at %#x, not on a %d-byte boundary", p, HugePageSize)
			}
			if tc.aligned {
				if got, want := resident(t, full[:len(full)&^int(pageSize-1)]), tc.n/int(pageSize); got != want {
					t.Errorf("%d of %d pages resident", got, want)
				}
			}
			for i, c := range full {
				if c != 0 {
					t.Fatalf("byte %d is %d, want 0", i, c)
				}
			}
		})
	}
}
