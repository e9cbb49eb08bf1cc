//go:build linux && amd64

package jitrt

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"miniil/abi"
)

// MachineConfig configures a Machine. Zero fields take defaults.
type MachineConfig struct {
	// Heap is the shared code heap whose stubs the Machine uses. Required.
	Heap *CodeHeap
	// StackBytes is the usable size of the native stack. Default 8 MiB.
	StackBytes int
	// GuardBytes is the size of the PROT_NONE guard below the stack.
	// Default 64 KiB.
	GuardBytes int
	// StackReserve is the distance between the lowest usable stack address
	// and CtxStackLimit: room for the overflow exit and for runtime calls
	// made after a frame got close to the limit. Default 64 KiB.
	StackReserve int
	// PollBudget is the value CtxPoll is reset to after every poll exit
	// (and at the start of a top-level Call). Default 1<<16.
	PollBudget uint64
}

// Machine is one native execution context: a context block and a native
// stack, both mmap'd outside the Go heap, plus the shared CodeHeap's stubs.
// A Machine runs on one goroutine at a time; use one Machine per
// concurrently running goroutine.
type Machine struct {
	heap    *CodeHeap
	mem     []byte         // guard + stack + context page
	memBase unsafe.Pointer // &mem[0]
	memAddr uintptr        // its address
	// stackWords is the number of 8-byte words of the stack (0 once
	// closed).
	stackWords uint64
	ctx        unsafe.Pointer // the context block
	ctxAddr    uintptr
	stackLo    uintptr // lowest usable stack address
	stackHi    uintptr // high end of the stack (exclusive), 16-byte aligned
	budget     uint64
	limit      uint64      // CtxStackLimit as the runtime set it (the watchdog raises the slot)
	hard       uint64      // CtxStackHard
	outer      []exitState // the exits nested Calls were made from, innermost last
	hook       ExitHandler // called at every exit before it is served (SetExitHook)
	wd         *watchdog   // arms polls while a top-level Call runs
	depth      int         // Calls in progress (nested Calls come from exit handlers)
	xmm0       uint64
	closed     bool
}

// ExitHandler services an exit that the Call loop does not handle itself:
// ExitCompile, the reserved runtime codes and every code at or above
// ExitHelperBase. It reads and writes the native state through the
// Machine's accessors (Reg, SetReg, ExitArg, SetPC, ...) and returns nil to
// resume native code, or an error, which Call returns as is.
type ExitHandler func(m *Machine, code uint64) error

// ErrStackOverflow is matched (errors.Is) by the *StackOverflowError that
// Call returns when a prolog's stack check failed.
var ErrStackOverflow = errors.New("jitrt: native stack overflow")

// ErrClosed is returned by Call on a closed Machine.
var ErrClosed = errors.New("jitrt: machine is closed")

// StackOverflowError reports a native stack overflow: PC is the return
// address of the CALL to the overflow stub, SP the stack pointer there. The
// frames on the native stack are abandoned; the Machine itself stays usable
// (the next top-level Call starts on a fresh stack).
type StackOverflowError struct {
	PC, SP uintptr
}

func (e *StackOverflowError) Error() string {
	return fmt.Sprintf("jitrt: native stack overflow (pc %#x, sp %#x)", e.PC, e.SP)
}

// Is makes errors.Is(err, ErrStackOverflow) true.
func (e *StackOverflowError) Is(target error) bool { return target == ErrStackOverflow }

// NewMachine maps a native stack with its guard and a context block, and
// fills the context's stub addresses and stack limit.
func NewMachine(cfg MachineConfig) (*Machine, error) {
	if cfg.Heap == nil {
		return nil, errors.New("jitrt: MachineConfig.Heap is nil")
	}
	wd, err := startWatchdog()
	if err != nil {
		return nil, err
	}
	if cfg.StackBytes == 0 {
		cfg.StackBytes = 8 << 20
	}
	if cfg.GuardBytes == 0 {
		cfg.GuardBytes = 64 << 10
	}
	if cfg.StackReserve == 0 {
		cfg.StackReserve = 64 << 10
	}
	if cfg.PollBudget == 0 {
		cfg.PollBudget = 1 << 16
	}
	if cfg.StackBytes < 0 || cfg.GuardBytes < 0 || cfg.StackReserve < 0 || cfg.PollBudget > 1<<62 {
		return nil, errors.New("jitrt: negative size in MachineConfig")
	}
	stack := roundUp(cfg.StackBytes, pageSize)
	guard := roundUp(cfg.GuardBytes, pageSize)
	if cfg.StackReserve+2*pageSize > stack {
		return nil, fmt.Errorf("jitrt: stack of %d bytes is too small for a reserve of %d", stack, cfg.StackReserve)
	}
	ctxBytes := roundUp(abi.CtxSize, pageSize)
	mem, err := unix.Mmap(-1, 0, guard+stack+ctxBytes, unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("jitrt: mapping %s for the native stack: %w", formatBytes(guard+stack+ctxBytes), err)
	}
	if guard > 0 {
		if err := unix.Mprotect(mem[:guard], unix.PROT_NONE); err != nil {
			unix.Munmap(mem)
			return nil, fmt.Errorf("jitrt: stack guard: %w", err)
		}
	}
	base := uintptr(unsafe.Pointer(&mem[0]))
	m := &Machine{
		heap:    cfg.Heap,
		mem:     mem,
		memBase: unsafe.Pointer(&mem[0]),
		memAddr: base,
		ctx:     unsafe.Pointer(&mem[guard+stack]),
		ctxAddr: base + uintptr(guard+stack),
		stackLo: base + uintptr(guard),
		stackHi: base + uintptr(guard+stack),
		budget:  cfg.PollBudget,
		wd:      wd,
	}
	m.stackWords = uint64(m.stackHi-m.stackLo) / 8
	m.SetReg(abi.CtxPoll, m.budget)
	m.hard = uint64(m.stackLo) + uint64(cfg.StackReserve)
	m.limit = m.hard
	m.SetReg(abi.CtxStackLimit, m.limit)
	m.SetReg(abi.CtxStackHard, m.hard)
	m.SetReg(abi.CtxExitStub, uint64(cfg.Heap.exitStub))
	m.SetReg(abi.CtxPollStub, uint64(cfg.Heap.pollStub))
	m.SetReg(abi.CtxOverflowStub, uint64(cfg.Heap.overflowStub))
	m.SetReg(abi.CtxReturnStub, uint64(cfg.Heap.returnStub))
	m.SetReg(abi.CtxStrEquals, uint64(cfg.Heap.strEquals))
	m.SetReg(abi.CtxStrConcat, uint64(cfg.Heap.strConcat))
	m.SetReg(abi.CtxStackHi, uint64(m.stackHi))
	m.SetReg(abi.CtxStackLo, uint64(m.stackLo))
	return m, nil
}

// Close unmaps the stack and the context block. It must not be called while
// a Call is running.
func (m *Machine) Close() error {
	if m.closed {
		return nil
	}
	if m.depth > 0 {
		return errors.New("jitrt: Close during Call")
	}
	m.closed = true
	m.ctx = nil
	m.stackWords = 0
	return unix.Munmap(m.mem)
}

// Heap returns the Machine's code heap.
func (m *Machine) Heap() *CodeHeap { return m.heap }

// Context returns the address of the context block (what R15 holds).
func (m *Machine) Context() uintptr { return m.ctxAddr }

// StackBounds returns the native stack's usable range [lo, hi).
func (m *Machine) StackBounds() (lo, hi uintptr) { return m.stackLo, m.stackHi }

// Reg reads the 8-byte context slot at byte offset off (one of the Ctx
// constants).
func (m *Machine) Reg(off int) uint64 {
	return *(*uint64)(m.slot(off))
}

// SetReg writes the 8-byte context slot at byte offset off. Writes to
// register slots take effect when native code is resumed.
func (m *Machine) SetReg(off int, v uint64) {
	*(*uint64)(m.slot(off)) = v
}

// slot returns the address of the context slot at byte offset off.
// Offsets are the abi constants: a bad one (out of the block) panics with
// an index out of range, a closed machine's nil block with a nil
// dereference. Cheap enough to inline: exit handlers read and write the
// context all the time.
func (m *Machine) slot(off int) unsafe.Pointer {
	return unsafe.Pointer(&(*[abi.CtxSize / 8]uint64)(m.ctx)[off/8])
}

// ExitArg returns CtxExitArg.
func (m *Machine) ExitArg() uint64 { return m.Reg(abi.CtxExitArg) }

// PC returns CtxPC: after an exit, the return address of the CALL that
// entered the exit stub.
func (m *Machine) PC() uintptr { return uintptr(m.Reg(abi.CtxPC)) }

// SetPC sets where native code resumes.
func (m *Machine) SetPC(pc uintptr) { m.SetReg(abi.CtxPC, uint64(pc)) }

// SP returns CtxRSP: after an exit, the exiting code's RSP before its CALL.
func (m *Machine) SP() uintptr { return uintptr(m.Reg(abi.CtxRSP)) }

// SetSP sets the RSP native code resumes with.
func (m *Machine) SetSP(sp uintptr) { m.SetReg(abi.CtxRSP, uint64(sp)) }

// ResultXMM0 returns the low 64 bits of XMM0 at the return of the last
// completed Call (the result of a float-returning method).
func (m *Machine) ResultXMM0() uint64 { return m.xmm0 }

// ReadStack reads the 8 bytes at native stack address addr.
func (m *Machine) ReadStack(addr uintptr) uint64 {
	return *(*uint64)(m.stackPtr(addr))
}

// WriteStack writes the 8 bytes at native stack address addr.
func (m *Machine) WriteStack(addr uintptr, v uint64) {
	*(*uint64)(m.stackPtr(addr)) = v
}

func (m *Machine) stackPtr(addr uintptr) unsafe.Pointer {
	// An aligned offset rotated right by 3 is its word index; a
	// misaligned one becomes huge.
	if bits.RotateLeft64(uint64(addr-m.stackLo), -3) >= m.stackWords {
		badStackAddr(addr)
	}
	// The stack lies inside mem (checked above), which mmap mapped
	// outside the Go heap: the exception dispatcher reads and writes it
	// per frame, so this stays small enough to inline.
	return unsafe.Add(m.memBase, addr-m.memAddr)
}

// stackWordsAt returns the n words of the native stack from address
// addr, for reading and writing several at a time.
func (m *Machine) stackWordsAt(addr uintptr, n int) []uint64 {
	if n <= 0 {
		return nil
	}
	if k := bits.RotateLeft64(uint64(addr-m.stackLo), -3); k >= m.stackWords || uint64(n) > m.stackWords-k {
		badStackAddr(addr)
	}
	return unsafe.Slice((*uint64)(unsafe.Add(m.memBase, addr-m.memAddr)), n)
}

// badStackAddr panics for an address outside the native stack.
//
//go:noinline
func badStackAddr(addr uintptr) {
	panic(fmt.Sprintf("jitrt: address %#x is not in the native stack", addr))
}

// argSlots are the integer argument registers of the managed convention.
var argSlots = [...]int{abi.CtxRDI, abi.CtxRSI, abi.CtxRDX, abi.CtxRCX, abi.CtxR8, abi.CtxR9}

// execStart and execEnd bound the slots a nested Call saves and restores:
// PC, RSP, RBP, the GPRs and the XMM registers.
const (
	execStart = abi.CtxPC
	execEnd   = abi.CtxXMM15 + 8
)

// Call runs native code at entry as a managed call with the integer
// arguments in RDI, RSI, RDX, RCX, R8, R9 (more than six is an error for
// now) and returns RAX when it returns. A top-level Call starts on a fresh
// native stack with a zeroed register state (RBP = 0) and a full poll
// budget. A Call made from inside an ExitHandler (nested) runs below the
// interrupted code's RSP, leaving its frames intact, and restores the
// interrupted register state, exit code and exit argument when it returns.
//
// The loop: resume; then by exit code: ExitReturn returns RAX; ExitPoll
// checks ctx (returns an error wrapping ctx.Err()), calls runtime.Gosched,
// resets CtxPoll and resumes; ExitStackOverflow returns a
// *StackOverflowError; every other nonzero code goes to h, and h's non-nil
// error is returned.
func (m *Machine) Call(ctx context.Context, entry uintptr, intArgs []uint64, h ExitHandler) (uint64, error) {
	return m.CallArgs(ctx, entry, intArgs, nil, h)
}

// CallArgs is Call with floating-point arguments too: floatArgs (float64
// bits, or float32 bits in the low half) go in XMM0..XMM7.
func (m *Machine) CallArgs(ctx context.Context, entry uintptr, intArgs, floatArgs []uint64, h ExitHandler) (uint64, error) {
	if m.closed {
		return 0, ErrClosed
	}
	if len(intArgs) > len(argSlots) {
		return 0, fmt.Errorf("jitrt: %d integer arguments, at most %d supported", len(intArgs), len(argSlots))
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("jitrt: native call not started: %w", err)
	}
	var sp uintptr
	if m.depth > 0 {
		// The interrupted state, restored from here when the call returns
		// (a stack walk may read and write its registers meanwhile).
		saved := new(execState)
		for i := range saved {
			saved[i] = m.Reg(execStart + 8*i)
		}
		code, arg := m.Reg(abi.CtxExitCode), m.Reg(abi.CtxExitArg)
		defer func() {
			for i := range saved {
				m.SetReg(execStart+8*i, saved[i])
			}
			m.SetReg(abi.CtxExitCode, code)
			m.SetReg(abi.CtxExitArg, arg)
		}()
		m.outer = append(m.outer, exitState{
			pc:   uintptr(saved[(abi.CtxPC-execStart)/8]),
			sp:   uintptr(saved[(abi.CtxRSP-execStart)/8]),
			bp:   uintptr(saved[(abi.CtxRBP-execStart)/8]),
			regs: saved,
		})
		defer func() { m.outer = m.outer[:len(m.outer)-1] }()
		sp = uintptr(saved[(abi.CtxRSP-execStart)/8]) &^ 15
		if sp > m.stackHi || sp < m.stackLo+pageSize {
			return 0, &StackOverflowError{PC: m.PC(), SP: sp}
		}
	} else {
		sp = m.stackHi
		m.SetReg(abi.CtxPoll, m.budget)
		stop, err := m.startPolls()
		if err != nil {
			return 0, err
		}
		defer stop()
	}
	for off := execStart; off < execEnd; off += 8 {
		m.SetReg(off, 0)
	}
	for i, v := range intArgs {
		m.SetReg(argSlots[i], v)
	}
	if len(floatArgs) > 8 {
		return 0, fmt.Errorf("jitrt: %d floating-point arguments, at most 8 supported", len(floatArgs))
	}
	for i, v := range floatArgs {
		m.SetReg(abi.CtxXMM0+8*i, v)
	}
	sp -= 8 // sp+8 is 16-byte aligned, as after a CALL
	m.WriteStack(sp, uint64(m.heap.returnStub))
	m.SetReg(abi.CtxRSP, uint64(sp))
	m.SetPC(entry)
	m.depth++
	defer func() { m.depth-- }()
	return m.run(ctx, h)
}

func (m *Machine) run(ctx context.Context, h ExitHandler) (uint64, error) {
	for {
		*(*uint64)(unsafe.Add(m.ctx, abi.CtxExitCode)) = abi.ExitNone
		resume(m.ctxAddr)
		code := *(*uint64)(unsafe.Add(m.ctx, abi.CtxExitCode))
		if m.hook != nil {
			if err := m.hook(m, code); err != nil {
				return 0, err
			}
		}
		switch code {
		case abi.ExitReturn:
			m.xmm0 = m.Reg(abi.CtxXMM0)
			return m.Reg(abi.CtxRAX), nil
		case abi.ExitPoll:
			if err := m.poll(ctx); err != nil {
				return 0, err
			}
		case abi.ExitStackOverflow:
			if atomic.SwapUint64(m.word(abi.CtxPollReq), 0) != 0 {
				// A poll request, not an overflow: the watchdog raised the
				// limit so that the next prolog's stack check exits. The
				// check runs again (against the restored limit, which the
				// frame may really have failed too) when the code resumes.
				atomic.StoreUint64(m.word(abi.CtxStackLimit), m.limit)
				if err := m.poll(ctx); err != nil {
					return 0, err
				}
				continue
			}
			if v, soft, ok := m.stackCheck(); ok && soft && uint64(v) >= m.hard && h != nil {
				if err := h(m, abi.ExitStackLimit); err != nil {
					return 0, err
				}
				continue
			}
			return 0, &StackOverflowError{PC: m.PC(), SP: m.SP()}
		case abi.ExitNone:
			return 0, fmt.Errorf("jitrt: native code exited without an exit code (pc %#x)", m.PC())
		default:
			if h == nil {
				return 0, fmt.Errorf("jitrt: exit code %d with no exit handler (pc %#x)", code, m.PC())
			}
			if err := h(m, code); err != nil {
				return 0, err
			}
		}
	}
}

// stackCheck decodes the stack check whose overflow call exited. The
// code generator places the call out of line, followed by a jump back to
// the check, which then runs again:
//
//	check: CMP RSP|RAX, [R15+CtxStackLimit|CtxStackHard]  ; 49 3B 67|47 disp8
//	       JB  cold
//	       ...
//	cold:  CALL [R15+CtxOverflowStub]                     ; 41 FF 57 30
//	       JMP check                                      ; EB rel8 or E9 rel32
//
// It returns the value compared (RSP, or RAX holding the RSP of a large
// frame checked before it is allocated), whether it was compared with the
// soft limit CtxStackLimit (a method prolog) or the hard one, and ok =
// false if the code is not of that form.
func (m *Machine) stackCheck() (v uintptr, soft, ok bool) {
	pc := m.PC()
	// The call and the jump back's opcode, then exactly the jump's
	// displacement: the jump may be the last instruction of the method.
	call, ok := m.heap.code(pc-4, 5)
	if !ok || call[0] != 0x41 || call[1] != 0xff || call[2] != 0x57 || call[3] != abi.CtxOverflowStub {
		return 0, false, false
	}
	var check uintptr
	switch call[4] {
	case 0xeb:
		d, ok := m.heap.code(pc+1, 1)
		if !ok {
			return 0, false, false
		}
		check = pc + 2 + uintptr(int8(d[0]))
	case 0xe9:
		d, ok := m.heap.code(pc+1, 4)
		if !ok {
			return 0, false, false
		}
		check = pc + 5 + uintptr(int32(binary.LittleEndian.Uint32(d)))
	default:
		return 0, false, false
	}
	b, ok := m.heap.code(check, 4)
	if !ok || b[0] != 0x49 || b[1] != 0x3b {
		return 0, false, false
	}
	switch b[2] {
	case 0x67:
		v = m.SP()
	case 0x47:
		v = uintptr(m.Reg(abi.CtxRAX))
	default:
		return 0, false, false
	}
	switch b[3] {
	case abi.CtxStackLimit:
		soft = true
	case abi.CtxStackHard:
	default:
		return 0, false, false
	}
	return v, soft, true
}

// StackCheckValue returns, at an ExitStackLimit, the stack address the
// failed check compared with the limit: where the new frame's RSP is (or
// would be, for a large frame checked before it is allocated).
func (m *Machine) StackCheckValue() uintptr {
	v, _, _ := m.stackCheck()
	return v
}

// StackLimit returns the soft stack limit, CtxStackLimit as last set.
func (m *Machine) StackLimit() uintptr { return uintptr(m.limit) }

// HardStackLimit returns CtxStackHard: no frame may go below it.
func (m *Machine) HardStackLimit() uintptr { return uintptr(m.hard) }

// SetStackLimit sets the soft limit that method prologs check (clamped to
// the hard limit): a prolog whose frame goes below it exits with
// ExitStackLimit. The runtime uses it to count call depth only when a
// run's frames could be that deep.
func (m *Machine) SetStackLimit(v uintptr) {
	m.limit = max(uint64(v), m.hard)
	atomic.StoreUint64(m.word(abi.CtxStackLimit), m.limit)
}

// startPolls registers the Machine with the watchdog thread, which then
// asks its native code to poll every PollInterval, until the returned
// function is called.
func (m *Machine) startPolls() (stop func(), err error) {
	slot, err := m.wd.register(m.ctxAddr)
	if err != nil {
		return nil, err
	}
	return func() {
		m.wd.unregister(slot)
		// The thread no longer touches the context: undo a request it may
		// have left.
		atomic.StoreUint64(m.word(abi.CtxPollReq), 0)
		atomic.StoreUint64(m.word(abi.CtxStackLimit), m.limit)
	}, nil
}

// poll services a poll request: it ends the Call if ctx is done or past
// its deadline (which a time limit's timer may not have reported yet if
// no goroutine could run it), passes a preemption point and rearms
// CtxPoll.
func (m *Machine) poll(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("jitrt: native call interrupted: %w", err)
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return fmt.Errorf("jitrt: native call interrupted: %w", context.DeadlineExceeded)
	}
	preemptPoint()
	atomic.StoreUint64(m.word(abi.CtxPoll), m.budget)
	return nil
}

// preemptPoint is where a goroutine that runs native code lets Go preempt
// it. Go preempts a goroutine synchronously at the stack check of a
// function's prolog once it has asked for it (a stop-the-world, or the
// scheduler after 10 ms of running): a function that makes a call always
// has that check (leaf functions may omit it), so calling this costs a few
// nanoseconds unless Go is waiting for the goroutine. runtime.Gosched
// would do as well, but it hands the goroutine to the run queue and wakes
// another thread to take it, which moved a spinning run between threads
// every poll and cost up to 16% on the benchmarks.
//
//go:noinline
func preemptPoint() { preemptLeaf() }

//go:noinline
func preemptLeaf() {}

// word returns a pointer to a context slot, for atomic access.
func (m *Machine) word(off int) *uint64 { return (*uint64)(m.slot(off)) }

// exitState is where native code stood when it exited to Go, and the
// registers it had (regs: nil for the top-level call's).
type exitState struct {
	pc, sp, bp uintptr
	regs       *execState
}

// execState holds the context slots from execStart to execEnd.
type execState [(execEnd - execStart) / 8]uint64

// savedReg returns where register slot off (abi.CtxRAX ...) of an exit
// state is kept.
func (s *execState) savedReg(off int) *uint64 { return &s[(off-execStart)/8] }

// SetExitHook installs h, which is called at every exit of native code
// (ExitReturn, polls and stack checks included) before the exit is
// served; an error from h ends the Call. Nil removes it.
func (m *Machine) SetExitHook(h ExitHandler) { m.hook = h }
