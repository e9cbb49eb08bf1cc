//go:build linux && amd64

package jitrt

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"miniil/abi"
	"miniil/amd64"
)

var bg = context.Background()

func TestAdd(t *testing.T) {
	h := newHeap(t)
	m := newMachine(t, h, MachineConfig{})
	add := install(t, h, codeAdd())
	for _, c := range [][3]uint64{{40, 2, 42}, {1 << 63, 1 << 63, 0}, {^uint64(0), 5, 4}} {
		r, err := m.Call(bg, add, []uint64{c[0], c[1]}, nil)
		if err != nil || r != c[2] {
			t.Errorf("add(%#x, %#x) = %#x, %v; want %#x", c[0], c[1], r, err, c[2])
		}
	}
	if _, err := m.Call(bg, add, make([]uint64, 7), nil); err == nil {
		t.Error("seven integer arguments accepted")
	}
}

func TestHelperExitLoop(t *testing.T) {
	h := newHeap(t)
	m := newMachine(t, h, MachineConfig{})
	loop := install(t, h, codeHelperLoop())
	const n = 1_000_000
	count := 0
	handler := func(m *Machine, code uint64) error {
		if code != abi.ExitHelperBase {
			return fmt.Errorf("exit code %d", code)
		}
		count++
		m.SetReg(abi.CtxRAX, m.Reg(abi.CtxRAX)+3)
		return nil
	}
	start := time.Now()
	r, err := m.Call(bg, loop, []uint64{n}, handler)
	el := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if count != n || r != 3*n {
		t.Fatalf("count %d, rax %d; want %d, %d", count, r, n, 3*n)
	}
	t.Logf("%d exits in %v: %.1f ns per exit and re-entry", n, el, float64(el.Nanoseconds())/n)
}

// TestRegisters checks that the exit stub saves every register it promises
// and that resume restores values the handler wrote.
func TestRegisters(t *testing.T) {
	h := newHeap(t)
	m := newMachine(t, h, MachineConfig{})
	code := install(t, h, codeRegs())
	gprs := []int{abi.CtxRAX, abi.CtxRCX, abi.CtxRDX, abi.CtxRBX, -1, abi.CtxRBP, abi.CtxRSI, abi.CtxRDI,
		abi.CtxR8, abi.CtxR9, abi.CtxR10, abi.CtxR11, abi.CtxR12, abi.CtxR13, abi.CtxR14}
	var sp1 uintptr
	handler := func(m *Machine, code uint64) error {
		switch code {
		case 17:
			for r, slot := range gprs {
				if slot < 0 {
					continue
				}
				if got := m.Reg(slot); got != uint64(0x100+r) {
					t.Errorf("at exit, slot %#x = %#x, want %#x", slot, got, 0x100+r)
				}
			}
			for x := 0; x < 8; x++ {
				src := x
				if src == 4 { // RSP
					src = 12 // R12
				}
				if got := m.Reg(abi.CtxXMM0 + 8*x); got != uint64(0x100+src) {
					t.Errorf("at exit, XMM%d = %#x, want %#x", x, got, 0x100+src)
				}
			}
			sp1 = m.SP()
			for r, slot := range gprs {
				if slot >= 0 {
					m.SetReg(slot, uint64(0xabc000+r))
				}
			}
			for x := 0; x < 8; x++ {
				m.SetReg(abi.CtxXMM0+8*x, uint64(0xdef000+x))
			}
		case 18:
			for r, slot := range gprs {
				if slot >= 0 && m.Reg(slot) != uint64(0xabc000+r) {
					t.Errorf("after resume, slot %#x = %#x, want %#x", slot, m.Reg(slot), 0xabc000+r)
				}
			}
			for x := 0; x < 8; x++ {
				if got := m.Reg(abi.CtxXMM0 + 8*x); got != uint64(0xdef000+x) {
					t.Errorf("after resume, XMM%d = %#x, want %#x", x, got, 0xdef000+x)
				}
			}
			if m.SP() != sp1 {
				t.Errorf("RSP %#x at the second exit, %#x at the first", m.SP(), sp1)
			}
			m.SetReg(abi.CtxRAX, 77)
		default:
			return fmt.Errorf("exit code %d", code)
		}
		return nil
	}
	r, err := m.Call(bg, code, nil, handler)
	if err != nil || r != 77 {
		t.Fatalf("got %d, %v; want 77", r, err)
	}
	if m.ResultXMM0() != 0xdef000 {
		t.Errorf("ResultXMM0 = %#x", m.ResultXMM0())
	}
}

// TestGCWhileNative runs native code with polls while another goroutine
// forces collections and allocates. The native code spins until the other
// goroutine has completed its collections, so they provably ran while
// native code was running; then a finite loop checks its count with the
// collector still busy.
func TestGCWhileNative(t *testing.T) {
	h := newHeap(t)
	m := newMachine(t, h, MachineConfig{PollBudget: 1 << 12})
	spin := install(t, h, codeSpin())
	loop := install(t, h, codePollLoop())

	gcDone := errors.New("collections done")
	ctx, cancel := context.WithCancelCause(bg)
	ctx, cancelTimeout := context.WithTimeout(ctx, 20*time.Second)
	defer cancelTimeout()
	stop := make(chan struct{})
	var gcs atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var keep [][]byte
		for {
			select {
			case <-stop:
				return
			default:
			}
			runtime.GC()
			keep = append(keep, make([]byte, 1<<16))
			if len(keep) > 64 {
				keep = keep[:0]
			}
			if gcs.Add(1) == 20 {
				cancel(gcDone)
			}
		}
	}()
	_, err := m.Call(ctx, spin, nil, nil)
	if !errors.Is(err, context.Canceled) || context.Cause(ctx) != gcDone {
		close(stop)
		wg.Wait()
		t.Fatalf("spin ended with %v (cause %v) after %d collections", err, context.Cause(ctx), gcs.Load())
	}
	const n = 100_000_000
	before := gcs.Load()
	r, err := m.Call(bg, loop, []uint64{n}, nil)
	close(stop)
	wg.Wait()
	if err != nil || r != n {
		t.Fatalf("got %d, %v; want %d", r, err, n)
	}
	t.Logf("20 collections during the spin, %d during the loop", gcs.Load()-before)
}

//go:noinline
func deep(n int) int {
	var pad [256]byte
	pad[n%256] = byte(n)
	if n == 0 {
		return int(pad[0])
	}
	return deep(n-1) + int(pad[n%256]&1)
}

// TestStackGrowthInHandler grows (and lets the GC shrink) the goroutine
// stack between exits.
func TestStackGrowthInHandler(t *testing.T) {
	h := newHeap(t)
	m := newMachine(t, h, MachineConfig{})
	loop := install(t, h, codeHelperLoop())
	const n = 2000
	done := make(chan error, 1)
	go func() { // a fresh goroutine starts with a small stack
		calls := 0
		r, err := m.Call(bg, loop, []uint64{n}, func(m *Machine, code uint64) error {
			calls++
			depth := 100
			if calls%2 == 0 {
				depth = 5000 // about 1.5 MB of stack
			}
			want := 0
			for i := 1; i <= depth; i++ {
				want += i & 1
			}
			if got := deep(depth); got != want {
				return fmt.Errorf("deep(%d) = %d", depth, got)
			}
			if calls%100 == 0 {
				runtime.GC() // shrinks the stack again
			}
			m.SetReg(abi.CtxRAX, m.Reg(abi.CtxRAX)+1)
			return nil
		})
		if err == nil && r != n {
			err = fmt.Errorf("rax %d, want %d", r, n)
		}
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestCancellation(t *testing.T) {
	h := newHeap(t)
	m := newMachine(t, h, MachineConfig{})
	spin := install(t, h, codeSpin())
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var other atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				other.Add(1)
			}
		}
	}()
	start := time.Now() // before the deadline is set: Call may return right at it
	ctx, cancel := context.WithTimeout(bg, 200*time.Millisecond)
	defer cancel()
	_, err := m.Call(ctx, spin, nil, nil)
	el := time.Since(start)
	close(stop)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call returned %v, want an error wrapping context.DeadlineExceeded", err)
	}
	if el < 200*time.Millisecond || el > time.Second {
		t.Errorf("Call returned after %v", el)
	}
	if other.Load() == 0 {
		t.Error("the other goroutine made no progress with GOMAXPROCS=1")
	}
	t.Logf("returned after %v; other goroutine ran %d iterations", el, other.Load())
	// The machine is still usable.
	add := install(t, h, codeAdd())
	if r, err := m.Call(bg, add, []uint64{1, 2}, nil); r != 3 || err != nil {
		t.Errorf("after cancellation: %d, %v", r, err)
	}
}

// mapping is one line of /proc/self/maps.
type mapping struct {
	lo, hi uintptr
	perms  string
	line   string
}

func readMaps(t testing.TB) []mapping {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ms []mapping
	s := bufio.NewScanner(f)
	for s.Scan() {
		var mp mapping
		mp.line = s.Text()
		if _, err := fmt.Sscanf(mp.line, "%x-%x %s", &mp.lo, &mp.hi, &mp.perms); err != nil {
			t.Fatalf("parsing %q: %v", mp.line, err)
		}
		ms = append(ms, mp)
	}
	return ms
}

func permsAt(ms []mapping, addr uintptr) string {
	for _, mp := range ms {
		if mp.lo <= addr && addr < mp.hi {
			return mp.perms
		}
	}
	return "unmapped"
}

func TestWXorX(t *testing.T) {
	h := newHeap(t)
	m := newMachine(t, h, MachineConfig{})
	cells, err := h.NewCells(4)
	if err != nil {
		t.Fatal(err)
	}
	loop := install(t, h, codeHelperLoop())
	checked := 0
	_, err = m.Call(bg, loop, []uint64{3}, func(m *Machine, code uint64) error {
		// Install more code during the run, then look at every mapping.
		if _, err := h.Install(codeMulAdd()); err != nil {
			return err
		}
		ms := readMaps(t)
		views := 0 // mappings of the code heap's memfd with code in them
		for _, mp := range ms {
			if strings.Contains(mp.perms, "w") && strings.Contains(mp.perms, "x") {
				t.Errorf("writable and executable mapping: %s", mp.line)
			}
			if strings.Contains(mp.line, "miniil-code") && strings.ContainsAny(mp.perms, "wx") {
				views++
			}
		}
		if h.DualMapped() && views < 2 {
			t.Errorf("dual-mapped heap, but %d views of its memfd in use", views)
		}
		for name, addr := range map[string]uintptr{"exit stub": h.ExitStub(), "code": loop, "prestub": cells.Prestub(3)} {
			if p := permsAt(ms, addr); p[:3] != "r-x" {
				t.Errorf("%s at %#x is %s", name, addr, p)
			}
		}
		if p := permsAt(ms, cells.CellAddr(0)); p[:3] != "rw-" {
			t.Errorf("cells are %s", p)
		}
		lo, _ := m.StackBounds()
		if p := permsAt(ms, m.SP()); p[:3] != "rw-" {
			t.Errorf("native stack is %s", p)
		}
		if p := permsAt(ms, lo-1); p[:3] != "---" {
			t.Errorf("stack guard is %s", p)
		}
		checked++
		return nil
	})
	if err != nil || checked != 3 {
		t.Fatalf("err %v, %d checks", err, checked)
	}
}

func TestStackOverflow(t *testing.T) {
	h := newHeap(t)
	m := newMachine(t, h, MachineConfig{StackBytes: 1 << 20})
	rec := install(t, h, codeRecurse())
	_, err := m.Call(bg, rec, nil, nil)
	if !errors.Is(err, ErrStackOverflow) {
		t.Fatalf("got %v, want ErrStackOverflow", err)
	}
	var so *StackOverflowError
	if !errors.As(err, &so) {
		t.Fatalf("%T is not a *StackOverflowError", err)
	}
	lo, _ := m.StackBounds()
	limit := uintptr(m.Reg(abi.CtxStackLimit))
	if so.SP >= limit || so.SP < lo || so.PC < rec || so.PC >= rec+32 {
		t.Errorf("overflow at pc %#x sp %#x; code at %#x, stack limit %#x, low end %#x", so.PC, so.SP, rec, limit, lo)
	}
	t.Log(err)
	add := install(t, h, codeAdd())
	// The same Machine starts over on a fresh stack.
	if r, err := m.Call(bg, add, []uint64{2, 3}, nil); r != 5 || err != nil {
		t.Errorf("same machine after overflow: %d, %v", r, err)
	}
	// So does a new one, and it overflows cleanly too.
	m2 := newMachine(t, h, MachineConfig{})
	if r, err := m2.Call(bg, add, []uint64{4, 5}, nil); r != 9 || err != nil {
		t.Errorf("second machine: %d, %v", r, err)
	}
	if _, err := m2.Call(bg, rec, nil, nil); !errors.Is(err, ErrStackOverflow) {
		t.Errorf("second machine: %v", err)
	}
}

// compileHandler services ExitCompile by installing codeMulAdd for the
// requested method and patching its cell; with setPC it also redirects
// CtxPC to the new code, without it the prestub's JMP [cell] does that.
type compileHandler struct {
	t        testing.TB
	cells    *Cells
	setPC    bool
	compiles atomic.Int64
	exits    atomic.Int64
	retAddr  uintptr // if nonzero, the expected caller return address
}

func (c *compileHandler) handle(m *Machine, code uint64) error {
	c.exits.Add(1)
	if code != abi.ExitCompile {
		return fmt.Errorf("exit code %d", code)
	}
	i := int(m.ExitArg())
	if c.retAddr != 0 {
		if got := uintptr(m.ReadStack(m.SP())); got != c.retAddr {
			return fmt.Errorf("at abi.ExitCompile [RSP] = %#x, want the caller's return address %#x", got, c.retAddr)
		}
	}
	old := c.cells.Prestub(i)
	if cur := c.cells.Get(i); cur != old {
		return fmt.Errorf("method %d compiled twice", i)
	}
	addr, err := m.Heap().Install(codeMulAdd())
	if err != nil {
		return err
	}
	if !c.cells.CompareAndSwap(i, old, addr) {
		addr = c.cells.Get(i) // another Machine won
	}
	c.compiles.Add(1)
	if c.setPC {
		m.SetPC(addr)
	}
	return nil
}

func TestPrestub(t *testing.T) {
	h := newHeap(t)
	m := newMachine(t, h, MachineConfig{})
	cells, err := h.NewCells(2)
	if err != nil {
		t.Fatal(err)
	}
	var retOff int
	code, disp := codeCallCellRIP()
	caller, err := h.InstallFunc(len(code), func(addr uintptr, buf []byte) error {
		copy(buf, code)
		retOff = disp + 4
		binary.LittleEndian.PutUint32(buf[disp:], uint32(int32(int64(cells.CellAddr(0))-int64(addr+uintptr(retOff)))))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ch := &compileHandler{t: t, cells: cells, setPC: true, retAddr: caller + uintptr(retOff)}
	for round := 1; round <= 2; round++ {
		r, err := m.Call(bg, caller, []uint64{6, 7, 8}, ch.handle)
		if err != nil || r != 6*7+8+1000 {
			t.Fatalf("call %d: %d, %v; want %d", round, r, err, 6*7+8+1000)
		}
		if ch.exits.Load() != 1 || ch.compiles.Load() != 1 {
			t.Fatalf("after call %d: %d exits, %d compiles; want 1, 1", round, ch.exits.Load(), ch.compiles.Load())
		}
	}
	// Method 1 through an absolute cell address, with a handler that only
	// patches the cell (the prestub jumps through it after the exit).
	caller2 := install(t, h, codeCallCellAbs(cells.CellAddr(1)))
	ch2 := &compileHandler{t: t, cells: cells}
	for round := 1; round <= 2; round++ {
		r, err := m.Call(bg, caller2, []uint64{3, 4, 5}, ch2.handle)
		if err != nil || r != 3*4+5+1000 {
			t.Fatalf("abs call %d: %d, %v", round, r, err)
		}
		if ch2.exits.Load() != 1 {
			t.Fatalf("abs call %d: %d exits", round, ch2.exits.Load())
		}
	}
}

// TestNestedCall calls native code from inside an exit handler and checks
// the interrupted code resumes intact.
func TestNestedCall(t *testing.T) {
	h := newHeap(t)
	m := newMachine(t, h, MachineConfig{})
	loop := install(t, h, codeHelperLoop())
	add := install(t, h, codeAdd())
	r, err := m.Call(bg, loop, []uint64{10}, func(m *Machine, code uint64) error {
		sp, pc, rdi := m.SP(), m.PC(), m.Reg(abi.CtxRDI)
		v, err := m.Call(bg, add, []uint64{m.Reg(abi.CtxRAX), 5}, nil)
		if err != nil {
			return err
		}
		if m.SP() != sp || m.PC() != pc || m.Reg(abi.CtxRDI) != rdi || m.Reg(abi.CtxExitCode) != code {
			return errors.New("nested Call did not restore the interrupted state")
		}
		m.SetReg(abi.CtxRAX, v)
		return nil
	})
	if err != nil || r != 50 {
		t.Fatalf("got %d, %v; want 50", r, err)
	}
}

func TestConcurrentMachines(t *testing.T) {
	h := newHeap(t)
	cells, err := h.NewCells(4)
	if err != nil {
		t.Fatal(err)
	}
	loop := install(t, h, codeHelperLoop())
	poll := install(t, h, codePollLoop())
	callers := make([]uintptr, 4)
	for i := range callers {
		callers[i] = install(t, h, codeCallCellAbs(cells.CellAddr(i)))
	}
	ch := &compileHandler{t: t, cells: cells, setPC: true}
	const G = 8
	var wg sync.WaitGroup
	errs := make(chan error, G)
	for g := 0; g < G; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := NewMachine(MachineConfig{Heap: h, PollBudget: 1000})
			if err != nil {
				errs <- err
				return
			}
			defer m.Close()
			for iter := 0; iter < 20; iter++ {
				r, err := m.Call(bg, loop, []uint64{10_000}, func(m *Machine, code uint64) error {
					m.SetReg(abi.CtxRAX, m.Reg(abi.CtxRAX)+uint64(g))
					return nil
				})
				if err != nil || r != uint64(10_000*g) {
					errs <- fmt.Errorf("goroutine %d: helper loop %d, %v", g, r, err)
					return
				}
				if r, err := m.Call(bg, poll, []uint64{100_000}, nil); err != nil || r != 100_000 {
					errs <- fmt.Errorf("goroutine %d: poll loop %d, %v", g, r, err)
					return
				}
				k := (g + iter) % 4
				a, b, c := uint64(g), uint64(iter), uint64(k)
				if r, err := m.Call(bg, callers[k], []uint64{a, b, c}, ch.handle); err != nil || r != a*b+c+1000 {
					errs <- fmt.Errorf("goroutine %d: cell call %d, %v", g, r, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := ch.compiles.Load(); n < 4 {
		t.Errorf("%d compiles for 4 methods", n)
	}
}

func TestErrors(t *testing.T) {
	h := newHeap(t)
	m := newMachine(t, h, MachineConfig{})
	loop := install(t, h, codeHelperLoop())
	if _, err := m.Call(bg, loop, []uint64{1}, nil); err == nil {
		t.Error("helper exit without a handler succeeded")
	}
	stop := errors.New("stop")
	if _, err := m.Call(bg, loop, []uint64{5}, func(*Machine, uint64) error { return stop }); err != stop {
		t.Errorf("handler error: got %v", err)
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := m.Call(ctx, loop, []uint64{1}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: got %v", err)
	}
	// An exit without an exit code.
	bad := install(t, h, asm(func(a *amd64.Assembler) {
		a.I(amd64.CALL, amd64.Mem(amd64.R15, abi.CtxExitStub))
		a.I(amd64.RET)
	}))
	if _, err := m.Call(bg, bad, nil, nil); err == nil {
		t.Error("exit without a code succeeded")
	}
	m.Close()
	if _, err := m.Call(bg, loop, nil, nil); err != ErrClosed {
		t.Errorf("closed machine: %v", err)
	}
}

func TestHeapStats(t *testing.T) {
	for _, tc := range []struct {
		name   string
		single bool
		dual   bool // the heap should have a write view
		step   int  // code space one 20-byte install takes
	}{
		{"dual", false, true, codeAlign},
		{"single", true, false, pageSize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := NewCodeHeap(CodeHeapConfig{SingleMapping: tc.single})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			if h.DualMapped() != tc.dual {
				t.Fatalf("DualMapped() = %v, want %v", h.DualMapped(), tc.dual)
			}
			m := newMachine(t, h, MachineConfig{})
			code := codeAdd()
			code = append(code, make([]byte, 20-len(code))...) // padding after RET
			before := h.Stats()
			a1 := install(t, h, code)
			a2 := install(t, h, code)
			if a1%16 != 0 || a2 != a1+uintptr(roundUp(20, tc.step)) {
				t.Errorf("addresses %#x %#x, want %d apart", a1, a2, roundUp(20, tc.step))
			}
			s := h.Stats()
			if s.Installs != before.Installs+2 || s.SealedBytes != before.SealedBytes+2*roundUp(20, tc.step) {
				t.Errorf("stats %+v after %+v", s, before)
			}
			for _, a := range []uintptr{a1, a2} {
				if r, err := m.Call(bg, a, []uint64{2, 3}, nil); r != 5 || err != nil {
					t.Errorf("code at %#x: %d, %v", a, r, err)
				}
			}
			// The padding after each install traps.
			if b, ok := h.code(a1+20, int(a2-a1)-20); !ok || (len(b) > 0 && b[0] != 0xCC) {
				t.Errorf("padding after the first install: %x, %v", b, ok)
			}
		})
	}
}

// TestStackCheckAtCodeEnd fails a soft stack check whose out-of-line call
// and jump back end the installed code, with no padding after them: the
// Machine must still recognize the check (reading no byte past the code)
// and hand it to the handler as ExitStackLimit, which lets it through.
func TestStackCheckAtCodeEnd(t *testing.T) {
	h := newHeap(t)
	m := newMachine(t, h, MachineConfig{})
	addr := install(t, h, codeStackCheckAtEnd())
	lo, _ := m.StackBounds()
	var exits []uint64
	r, err := m.Call(bg, addr, nil, func(m *Machine, code uint64) error {
		exits = append(exits, code)
		switch code {
		case abi.ExitHelperBase:
			m.SetStackLimit(m.SP())
		case abi.ExitStackLimit:
			m.SetStackLimit(lo)
		}
		return nil
	})
	if r != 7 || err != nil || !slices.Equal(exits, []uint64{abi.ExitHelperBase, abi.ExitStackLimit}) {
		t.Errorf("got %d, %v after exits %v; want 7 after a helper exit and a stack limit exit", r, err, exits)
	}
}
