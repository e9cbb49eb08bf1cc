//go:build linux && amd64

package jitrt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"miniil/amd64"
	"miniil/internal/prefault"
)

const pageSize = 4096

func roundUp(n, m int) int { return (n + m - 1) / m * m }

// CodeHeapConfig configures a CodeHeap. Zero fields take defaults.
type CodeHeapConfig struct {
	// ReserveBytes is the size of the address range reserved (PROT_NONE,
	// no memory committed) for code and call cells. Everything in one heap
	// is within ±2 GiB of everything else, so code may reach cells and
	// stubs with rel32 / RIP-relative operands. Default 1 GiB, at most
	// 2 GiB.
	ReserveBytes int
	// ChunkBytes is how much address space is made usable at a time for
	// new code. Default 64 KiB.
	ChunkBytes int
	// SingleMapping turns the two views of the code off: every install
	// then takes whole pages of its own and an mprotect, staged read-write
	// and sealed read-execute. It is what the heap falls back to where
	// memfd_create is not available; tests use it to cover that path.
	SingleMapping bool
}

// CodeHeap is executable memory shared by any number of Machines. It is
// safe for concurrent use.
//
// W^X: no mapping is ever writable and executable at once. The heap's
// memory is a memfd mapped twice, as CoreCLR maps its code heaps under
// W^X: the execution view (the reservation code runs from and every
// address the heap hands out) is read-execute for code and read-write,
// never executable, for cells; the write view, at an address nothing
// else knows, is read-write over the code range only. Install writes new
// code through the write view, past every byte installed before, and
// publishes its address only after the bytes are in place; installed
// bytes are never written again. So methods pack densely (16-byte
// aligned) and an install makes no system call; making a new chunk of
// code space usable takes two mprotects (one per view). Where a memfd
// cannot be had (or with CodeHeapConfig.SingleMapping) the heap has only
// the execution view: Install stages code in read-write pages and
// mprotects exactly those pages read-execute, so every install occupies
// whole pages and a page made executable is never written again. Cells
// live in the same reservation and are never executable.
type CodeHeap struct {
	mu        sync.Mutex
	mem       []byte  // the whole reservation (the execution view)
	wmem      []byte  // the write view of mem; nil with a single mapping
	base      uintptr // &mem[0]
	chunk     int
	codeNext  int // offset of the first byte of code space not yet used
	chunkEnd  int // offset of the end of the code space made usable
	cellsLow  int // cells are carved downward from the end; lowest cell page
	closed    bool
	installs  int
	codeBytes int

	exitStub, pollStub, overflowStub, returnStub uintptr
	strEquals, strConcat, strConcatEnd           uintptr
	stubMarks                                    [numSharedStubs]amd64.MarkID
	sb                                           sbRoutines // sbnative.go

	// asm assembles stubs (the code generator's assembler); asmMu guards
	// it.
	asmMu sync.Mutex
	asm   *amd64.Assembler
	// prestub is the prestub template and where its method index and
	// cell displacement go.
	prestub                   []byte
	prestubIndex, prestubCell int
}

// HeapStats describes a CodeHeap's use of memory.
type HeapStats struct {
	Installs    int // successful Install/InstallFunc calls (stubs included)
	CodeBytes   int // bytes of code requested
	SealedBytes int // bytes of code space used (whole pages with a single mapping)
	CellBytes   int // bytes of pages used by call cells
}

// NewCodeHeap reserves the heap's address range and installs the runtime's
// stubs (exit, poll, stack overflow, return-to-Go).
func NewCodeHeap(cfg CodeHeapConfig) (*CodeHeap, error) {
	if cfg.ReserveBytes == 0 {
		cfg.ReserveBytes = 1 << 30
	}
	if cfg.ChunkBytes == 0 {
		cfg.ChunkBytes = 64 << 10
	}
	if cfg.ReserveBytes < 0 || cfg.ReserveBytes > 1<<31 || cfg.ChunkBytes < 0 {
		return nil, fmt.Errorf("jitrt: bad code heap size (reserve %d, chunk %d)", cfg.ReserveBytes, cfg.ChunkBytes)
	}
	reserve := roundUp(cfg.ReserveBytes, pageSize)
	var mem, wmem []byte
	if !cfg.SingleMapping {
		mem, wmem = mapTwice(reserve)
	}
	if mem == nil {
		var err error
		mem, err = unix.Mmap(-1, 0, reserve, unix.PROT_NONE,
			unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
		if err != nil {
			return nil, fmt.Errorf("jitrt: reserving %s for the code heap: %w", formatBytes(reserve), err)
		}
	}
	h := &CodeHeap{
		mem:      mem,
		wmem:     wmem,
		base:     uintptr(unsafe.Pointer(&mem[0])),
		chunk:    roundUp(cfg.ChunkBytes, pageSize),
		cellsLow: reserve,
		asm:      amd64.NewAssembler(),
	}
	if err := h.installStubs(); err != nil {
		h.unmap()
		return nil, err
	}
	return h, nil
}

// mapTwice maps a memfd of size bytes twice, both views inaccessible
// until used (the execution view and the write view), or returns nils if
// the system cannot (no memfd_create, or no address space).
func mapTwice(size int) (mem, wmem []byte) {
	fd, err := unix.MemfdCreate("miniil-code", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, nil
	}
	defer unix.Close(fd) // the mappings keep the memory
	if unix.Ftruncate(fd, int64(size)) != nil {
		return nil, nil
	}
	mem, err = unix.Mmap(fd, 0, size, unix.PROT_NONE, unix.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	wmem, err = unix.Mmap(fd, 0, size, unix.PROT_NONE, unix.MAP_SHARED)
	if err != nil {
		unix.Munmap(mem)
		return nil, nil
	}
	return mem, wmem
}

// unmap unmaps both views.
func (h *CodeHeap) unmap() error {
	err := unix.Munmap(h.mem)
	if h.wmem != nil {
		err = errors.Join(err, unix.Munmap(h.wmem))
	}
	return err
}

// DualMapped reports whether the heap has a separate write view (and so
// packs methods densely without a system call per install).
func (h *CodeHeap) DualMapped() bool { return h.wmem != nil }

// installStubs installs the shared stubs (emitSharedStubs) in one sealed
// range.
func (h *CodeHeap) installStubs() error {
	b, err := assemble(h.asm, func(a *amd64.Assembler) { h.stubMarks = emitSharedStubs(a) })
	if err != nil {
		return err
	}
	var index, cell amd64.MarkID
	p, err := assemble(h.asm, func(a *amd64.Assembler) { index, cell = emitPrestub(a) })
	if err != nil {
		return err
	}
	if len(p.Code) > prestubSize {
		return fmt.Errorf("jitrt: the prestub takes %d bytes, more than %d", len(p.Code), prestubSize)
	}
	h.prestub = append([]byte(nil), p.Code...)
	h.prestubIndex, h.prestubCell = p.Marks[index]-4, p.Marks[cell]-4
	base, err := h.Install(b.Code)
	if err != nil {
		return err
	}
	h.exitStub = base + uintptr(b.Marks[h.stubMarks[0]])
	h.pollStub = base + uintptr(b.Marks[h.stubMarks[1]])
	h.overflowStub = base + uintptr(b.Marks[h.stubMarks[2]])
	h.returnStub = base + uintptr(b.Marks[h.stubMarks[3]])
	h.strEquals = base + uintptr(b.Marks[h.stubMarks[4]])
	h.strConcat = base + uintptr(b.Marks[h.stubMarks[5]])
	h.strConcatEnd = base + uintptr(b.Marks[h.stubMarks[6]])
	return h.installSBRoutines()
}

// ExitStub returns the address of the exit stub (also in CtxExitStub).
func (h *CodeHeap) ExitStub() uintptr { return h.exitStub }

// PollStub returns the address of the poll stub (also in CtxPollStub).
func (h *CodeHeap) PollStub() uintptr { return h.pollStub }

// OverflowStub returns the address of the stack overflow stub (also in
// CtxOverflowStub).
func (h *CodeHeap) OverflowStub() uintptr { return h.overflowStub }

// ReturnStub returns the address of the return-to-Go stub (also in
// CtxReturnStub).
func (h *CodeHeap) ReturnStub() uintptr { return h.returnStub }

// Reservation returns the heap's address range [lo, hi): all code, stubs
// and cells of the heap lie inside it, so any two of them are within rel32
// reach of each other.
func (h *CodeHeap) Reservation() (lo, hi uintptr) {
	return h.base, h.base + uintptr(len(h.mem))
}

// code returns the n bytes of installed (sealed, readable) code at addr,
// or false if they are not all installed code.
func (h *CodeHeap) code(addr uintptr, n int) ([]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if addr < h.base || addr+uintptr(n) > h.base+uintptr(h.codeNext) {
		return nil, false
	}
	off := int(addr - h.base)
	return h.mem[off : off+n : off+n], true
}

// Install copies code into the heap, makes it executable and returns its
// address (codeAlign-aligned; page aligned with a single mapping).
func (h *CodeHeap) Install(code []byte) (uintptr, error) {
	return h.InstallFunc(len(code), func(_ uintptr, buf []byte) error {
		copy(buf, code)
		return nil
	})
}

// codeAlign is the alignment of installed code with two views: a cache
// line, so that where a method's loops fall against cache lines and
// fetch blocks does not depend on what was installed before it. At 16
// bytes, lengthening the routines installed at start-up by 160 bytes
// (the integer ToString routine) moved every method, and tests/bench
// fields and interface ran 12% slower with the same machine code.
const codeAlign = 64

// InstallFunc reserves size bytes of code space and calls fill with the
// final address and a writable view of exactly size bytes, so position
// dependent code (RIP-relative references to cells, rel32 calls to stubs)
// can be encoded in place. After fill returns nil the code is executable
// at the address returned; if fill fails nothing is installed. fill runs
// with the heap locked: it must not call the heap. The writable view must
// not be kept after fill returns.
func (h *CodeHeap) InstallFunc(size int, fill func(addr uintptr, buf []byte) error) (uintptr, error) {
	if size <= 0 {
		return 0, errors.New("jitrt: empty code")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0, errClosedHeap
	}
	// n is the code space the install takes; off where it starts.
	off, n := h.codeNext, roundUp(size, pageSize)
	if h.wmem != nil {
		off = roundUp(h.codeNext, codeAlign)
		n = roundUp(size, codeAlign)
	}
	if off+n > h.chunkEnd {
		if err := h.grow(off + n); err != nil {
			return 0, err
		}
	}
	w := h.mem // where the code is written
	if h.wmem != nil {
		w = h.wmem
	}
	buf := w[off : off+size : off+size]
	if err := fill(h.base+uintptr(off), buf); err != nil {
		clear(buf)
		return 0, err
	}
	fillINT3(w[h.codeNext:off]) // the alignment gap before
	fillINT3(w[off+size : off+n])
	if h.wmem == nil {
		if err := unix.Mprotect(h.mem[off:off+n], unix.PROT_READ|unix.PROT_EXEC); err != nil {
			clear(h.mem[off : off+n])
			return 0, fmt.Errorf("jitrt: mprotect RX: %w", err)
		}
	}
	h.codeNext = off + n
	h.installs++
	h.codeBytes += size
	return h.base + uintptr(off), nil
}

// grow makes the code space up to at least offset need usable: with two
// views, read-execute in the execution view and read-write in the write
// view; with one, read-write for staging.
func (h *CodeHeap) grow(need int) error {
	end := min(roundUp(max(need, h.chunkEnd+h.chunk), pageSize), h.cellsLow)
	if need > end {
		return errors.New("jitrt: code heap reservation exhausted")
	}
	if h.wmem == nil {
		if err := unix.Mprotect(h.mem[h.chunkEnd:end], unix.PROT_READ|unix.PROT_WRITE); err != nil {
			return fmt.Errorf("jitrt: mprotect RW: %w", err)
		}
		h.chunkEnd = end
		return nil
	}
	if err := unix.Mprotect(h.wmem[h.chunkEnd:end], unix.PROT_READ|unix.PROT_WRITE); err != nil {
		return fmt.Errorf("jitrt: mprotect RW: %w", err)
	}
	if err := unix.Mprotect(h.mem[h.chunkEnd:end], unix.PROT_READ|unix.PROT_EXEC); err != nil {
		return fmt.Errorf("jitrt: mprotect RX: %w", err)
	}
	// Each view faults a page in on its own at its first access (a write
	// to install, then a fetch to run). A program that fills the first
	// chunk is a large one: from the second on, both views are made
	// resident at once, two system calls instead of two faults per page
	// (the first is left to fault in as used: a small program's code is
	// a few pages of it).
	if h.chunkEnd > 0 {
		prefault.Bytes(h.wmem[h.chunkEnd:end])
		prefault.ReadOnly(h.mem[h.chunkEnd:end])
	}
	h.chunkEnd = end
	return nil
}

// fillINT3 fills b with INT3, so a stray jump into padding traps.
func fillINT3(b []byte) {
	for i := range b {
		b[i] = 0xCC
	}
}

// Stats reports the heap's memory use.
func (h *CodeHeap) Stats() HeapStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return HeapStats{
		Installs:    h.installs,
		CodeBytes:   h.codeBytes,
		SealedBytes: h.codeNext,
		CellBytes:   len(h.mem) - h.cellsLow,
	}
}

// Close unmaps the heap. No Machine may run code from it afterwards.
func (h *CodeHeap) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	return h.unmap()
}

var errClosedHeap = errors.New("jitrt: code heap is closed")

// prestubSize is the room for one prestub (emitPrestub, 26 bytes):
//
//	MOV QWORD PTR [R15+CtxExitArg], i        8 bytes
//	MOV QWORD PTR [R15+CtxExitCode], 4       8 bytes
//	CALL [R15+CtxExitStub]                   4 bytes
//	JMP QWORD PTR [RIP+cell_i]               6 bytes
const prestubSize = 32

// Cells is a table of call cells: one 8-byte code address per method, in
// read-write (never executable) memory inside the CodeHeap's reservation.
// Managed code calls method i with `CALL QWORD PTR [RIP+disp32]` to
// CellAddr(i) (always in reach from the same heap's code), or with
// `MOV R11, imm64 CellAddr(i); CALL QWORD PTR [R11]`.
//
// Every cell starts out pointing to method i's prestub, which exits with
// ExitCompile and CtxExitArg = i. The handler installs code, stores it with
// Set and (optionally) sets CtxPC to it; resuming then enters the new code
// with the caller's return address on top of the stack and the argument
// registers intact. If the handler leaves CtxPC alone, the prestub
// continues with `JMP [cell]` after the exit, which has the same effect
// (one jump more), so a handler only has to update the cell.
type Cells struct {
	mem      []byte
	base     uintptr
	n        int
	prestubs uintptr
}

// NewCells allocates n call cells and their prestubs.
func (h *CodeHeap) NewCells(n int) (*Cells, error) {
	if n <= 0 || n > 1<<24 {
		return nil, fmt.Errorf("jitrt: bad cell count %d", n)
	}
	size := roundUp(8*n, pageSize)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, errClosedHeap
	}
	low := h.cellsLow - size
	if low < h.chunkEnd {
		h.mu.Unlock()
		return nil, errors.New("jitrt: code heap reservation exhausted")
	}
	if err := unix.Mprotect(h.mem[low:h.cellsLow], unix.PROT_READ|unix.PROT_WRITE); err != nil {
		h.mu.Unlock()
		return nil, fmt.Errorf("jitrt: mprotect cells: %w", err)
	}
	h.cellsLow = low
	h.mu.Unlock()

	c := &Cells{mem: h.mem[low : low+8*n], base: h.base + uintptr(low), n: n}
	addr, err := h.InstallFunc(n*prestubSize, func(base uintptr, buf []byte) error {
		for i := range n {
			p := buf[i*prestubSize : (i+1)*prestubSize]
			copy(p, h.prestub)
			for k := len(h.prestub); k < prestubSize; k++ {
				p[k] = 0xCC // INT3
			}
			binary.LittleEndian.PutUint32(p[h.prestubIndex:], uint32(i))
			next := base + uintptr(i*prestubSize+h.prestubCell+4)
			binary.LittleEndian.PutUint32(p[h.prestubCell:], uint32(int32(int64(c.CellAddr(i))-int64(next))))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.prestubs = addr
	for i := 0; i < n; i++ {
		c.Set(i, c.Prestub(i))
	}
	return c, nil
}

// Len returns the number of cells.
func (c *Cells) Len() int { return c.n }

// CellAddr returns the address of cell i.
func (c *Cells) CellAddr(i int) uintptr {
	if uint(i) >= uint(c.n) {
		panic("jitrt: cell index out of range")
	}
	return c.base + uintptr(8*i)
}

// Prestub returns the address of method i's prestub.
func (c *Cells) Prestub(i int) uintptr {
	if uint(i) >= uint(c.n) {
		panic("jitrt: cell index out of range")
	}
	return c.prestubs + uintptr(prestubSize*i)
}

func (c *Cells) ptr(i int) *uint64 {
	if uint(i) >= uint(c.n) {
		panic("jitrt: cell index out of range")
	}
	return (*uint64)(unsafe.Pointer(&c.mem[8*i]))
}

// Get returns the code address in cell i (atomically).
func (c *Cells) Get(i int) uintptr { return uintptr(atomic.LoadUint64(c.ptr(i))) }

// Set stores a code address into cell i (atomically; other Machines see it
// on their next call through the cell).
func (c *Cells) Set(i int, addr uintptr) { atomic.StoreUint64(c.ptr(i), uint64(addr)) }

// CompareAndSwap replaces cell i's address old with new if it still holds
// old, so two Machines compiling the same method agree on one winner.
func (c *Cells) CompareAndSwap(i int, old, new uintptr) bool {
	return atomic.CompareAndSwapUint64(c.ptr(i), uint64(old), uint64(new))
}
