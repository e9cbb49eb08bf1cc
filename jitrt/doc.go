// Package jitrt is miniil's runtime. It is internal to miniil: no
// compatibility promise; what follows is the contract between the runtime
// and the code generator, not an API for embedders (they use package
// miniil). This documentation covers its native execution core: how
// JIT-compiled amd64 code runs from Go without cgo, and the exact
// contracts the code generator must follow. Everything here is
// linux/amd64 only.
//
// # Pieces
//
//   - CodeHeap: executable memory shared by all Machines. One address
//     reservation (default 1 GiB, PROT_NONE until used) holds the runtime's
//     stubs, installed code (growing up) and call cells (growing down), so
//     any code can reach any stub or cell with a rel32 or RIP-relative
//     operand. The reservation is a memfd mapped twice (as CoreCLR maps
//     its code heaps under W^X): code runs from the execution view
//     (read-execute; cells read-write, never executable) and is written
//     through a write view (read-write, never executable) at an address
//     nothing else knows. Install / InstallFunc write a method after
//     every byte installed before (64-byte aligned) and return its
//     address; installed bytes are never written again, and an install
//     makes no system call (each new 64 KiB of code space costs two
//     mprotects, one per view). Without memfd_create the heap falls back
//     to one view: each install is staged in read-write pages of its own
//     and mprotected read-execute. Whoever reads installed code (the
//     runtime decoding a stack check) reads nothing past a method's last
//     byte: the next method, or inaccessible space, follows it.
//   - Cells: one 8-byte code address per method in read-write, never
//     executable memory, each initially pointing at the method's prestub.
//   - Machine: one per run (per goroutine): a context block and a native
//     stack, mmap'd outside the Go heap. Call runs native code on it.
//   - resume (resume_amd64.s): the only Go-assembly trampoline. Entering
//     for the first time is a resume with a prepared stack.
//
// # Registers
//
// R15 holds the address of the Machine's context block in all native code,
// always; native code never writes R15. The managed calling convention:
// integer arguments in RDI, RSI, RDX, RCX, R8, R9 (more are not supported
// by Call yet), floating point arguments in XMM0-7, result in RAX or XMM0.
// RBX and R12-R14 are callee-saved (a method that uses them saves them in
// its frame and restores them before returning; one with exception
// handlers saves all four, because resuming after a catch restores only
// RSP and RBP); every other register is caller-saved, except RSP, RBP
// (and R15). At function entry RSP+8 is 16-byte aligned (as after a
// CALL). Native code must not use the red zone below RSP, must leave the
// direction flag clear, and must not change MXCSR or the x87 control
// word, FS or GS.
//
// # Context block
//
// The Ctx constants of package abi are byte offsets into the block; every
// slot is 8 bytes. Offsets below 0x80 take an 8-bit displacement.
//
//	0x00 CtxPoll          0x08 CtxStackLimit    0x10 CtxExitCode
//	0x18 CtxExitArg       0x20 CtxExitStub      0x28 CtxPollStub
//	0x30 CtxOverflowStub  0x38 CtxReturnStub    0x40 CtxHeapTop
//	0x48 CtxHeapLimit     0x50 CtxPollReq       0x58 CtxStackHard
//	0x60 CtxYoungLo  0x68 CtxYoungSpan  0x70 CtxHeapLo  0x78 CtxHeapSpan
//	0x80 CtxPC            0x88 CtxRSP           0x90 CtxRBP
//	0x98 CtxRAX  0xa0 CtxRBX  0xa8 CtxRCX  0xb0 CtxRDX  0xb8 CtxRSI
//	0xc0 CtxRDI  0xc8 CtxR8   0xd0 CtxR9   0xd8 CtxR10  0xe0 CtxR11
//	0xe8 CtxR12  0xf0 CtxR13  0xf8 CtxR14
//	0x100-0x178 CtxXMM0-15 (low 64 bits)
//	0x180 CtxGoSP  0x188 CtxGoBP  0x190 CtxStackHi  0x198 CtxStackLo
//	0x1a0 CtxCards  0x1a8 CtxPlansDone  0x1b0 CtxIntToString
//	0x1b8-0x1c0 CtxSpare11-12  0x1c8 CtxSbCtor
//	0x1d0 CtxStrConcat  0x1d8 CtxStrEquals  0x1e0 CtxSbAppendString
//	0x1e8 CtxSbAppendChar  0x1f0 CtxSbAppendInt  0x1f8 CtxSbToString
//	CtxSize = 0x200
//
// The runtime never touches the spare slots (a nested Call does not save or
// restore them); they are for the code generator's hot data. The routine
// slots (CtxStrConcat, CtxStrEquals, CtxSb*, CtxIntToString) hold
// addresses in the code heap: NewMachine sets the string routines', the
// Runtime the StringBuilder routines' and CtxIntToString's (sbnative.go)
// right after it.
//
// # Exits
//
// Native code reaches Go only by exiting. To exit with code c (and an
// optional argument a):
//
//	MOVQ $a, CtxExitArg(R15)       ; mov qword ptr [r15+0x18], a  (optional)
//	MOVQ $c, CtxExitCode(R15)      ; mov qword ptr [r15+0x10], c  (49 C7 47 10 imm32)
//	CALL [R15+CtxExitStub]         ; call qword ptr [r15+0x20]    (41 FF 57 20)
//	                               ; (or CALL rel32 to CodeHeap.ExitStub())
//
// The exit stub pops the CALL's return address into CtxPC, saves RSP (so
// CtxRSP is the RSP the code had before the CALL), RBP, RAX, RBX, RCX, RDX,
// RSI, RDI, R8-R14 and the low 64 bits of XMM0-15 into the context, loads
// Go's SP and BP and returns from resume to the Go loop. The loop services
// the exit and resumes: execution continues right after the CALL with all
// those registers restored from the context, so an exit behaves like a
// call that preserves every general purpose register (except as the Go
// side changed them, typically RAX for a helper result) and XMM0-15's low
// halves (the code generator keeps float values in XMM2-15 across exits).
// An exit clobbers the flags and the high halves of the XMM registers. The
// Go side may change CtxPC and CtxRSP before resuming (the prestub handler
// and exception dispatch do).
//
// Exit codes: ExitReturn (1), ExitPoll (2), ExitStackOverflow (3) are
// handled by Call's loop; ExitCompile (4, CtxExitArg = method index), the
// reserved runtime codes 5-15 and helper codes >= ExitHelperBase (16) go to
// the ExitHandler. Code 0 (ExitNone, stored by the loop before every
// resume) means the exit stub was entered without a code, and Call fails.
//
// # Polls
//
// A goroutine running native code cannot be preempted by Go, so a loop
// that never exits would block every stop-the-world in the process (and
// the scheduler, and cancellation). Native code therefore polls, and the
// polls are armed by the watchdog (watchdog.go): a thread of the process
// that the Go runtime does not manage, cloned once with every signal
// blocked, running a small loop of machine code. While a top-level Call
// runs, its context block and its goroutine's g are registered with the
// watchdog. Every PollInterval (500 microseconds) the watchdog reads the
// goroutine's g.stackguard0: when Go wants the goroutine (it stores
// stackPreempt there for a stop-the-world, a stack scan or the scheduler's
// time slice), and every 20 intervals regardless (for cancellation and
// time limits), it sets CtxPollReq = 1, CtxStackLimit = all ones and
// CtxPoll = 0. No goroutine has to run for that to happen, whatever the
// Go scheduler is doing (every P busy in native code, GOMAXPROCS=1, the
// world stopping).
//
// Loop back edges test CtxPoll, with the call out of line (in the cold
// section after the method's funclets, so that it never shares a cache
// line with hot code):
//
//	CMPQ CtxPoll(R15), $0          ; cmp qword ptr [r15], 0       (49 83 3F 00)
//	JLE  cold
//	back: ...
//	cold: CALL [R15+CtxPollStub]   ; call qword ptr [r15+0x28]    (41 FF 57 28)
//	      JMP back
//
// Prologs poll through their stack check, which fails into the overflow
// stub once the limit is raised; the Call loop sees CtxPollReq set,
// restores the limit, and treats the exit as a poll (the check then runs
// again). Code may also decrement CtxPoll, `SUBQ $1, CtxPoll(R15); JLE
// poll`: then it exits at least every MachineConfig.PollBudget decrements
// as well.
//
// The poll stub exits with ExitPoll. The loop returns an error wrapping
// ctx.Err() if the Call's context is done or past its deadline, then
// calls a Go function with a stack check: that is the preemption point,
// where Go stops the goroutine if it asked to; then it resets CtxPoll to
// the budget and resumes. So native code reaches a preemption point
// within PollInterval (plus one loop iteration or call) of Go asking for
// it, and sees a cancelled context within 20 intervals.
//
// # Stack
//
// Each Machine has its own native stack (MachineConfig.StackBytes, default
// 8 MiB; the Runtime sizes it from its call depth limit) with PROT_NONE
// guard pages below it (default 64 KiB), and the context block in a page
// just above it. CtxStackHard = lowest usable address +
// MachineConfig.StackReserve (default 64 KiB); CtxStackLimit, the soft
// limit, is at or above it (Machine.SetStackLimit). Method prologs check
// the soft limit, funclet prologs the hard one, with the overflow call out
// of line:
//
//	PUSHQ BP; MOVQ SP, BP; SUBQ $N, SP
//	check: CMPQ SP, CtxStackLimit(R15)   ; 49 3B 67 08 (hard: 49 3B 67 58)
//	JB   cold
//	...
//	cold: CALL [R15+CtxOverflowStub]     ; 41 FF 57 30
//	      JMP check                      ; EB rel8 or E9 rel32
//
// The Machine decodes the call and the jump after it to find the check, so
// the out-of-line code must have exactly this form. Checking after the SUB
// is safe for frames up to StackReserve-4 KiB (about 60 KiB): nothing
// below the limit has been touched yet and the reserve holds the overflow
// CALL. Larger frames compare first, through RAX: LEAQ -N(SP), RAX;
// check: CMPQ RAX, CtxStackLimit(R15) (49 3B 47 08); JB cold; SUBQ $N,
// SP. The overflow stub exits with ExitStackOverflow. If the watchdog
// raised the limit (CtxPollReq), the exit is a poll. If a method prolog
// failed the soft limit only, the ExitHandler gets ExitStackLimit and
// decides (the Runtime counts call depth there, see depth.go). Otherwise
// Call returns a *StackOverflowError (errors.Is(err, ErrStackOverflow))
// with the PC and SP of the failing check. After a poll or an allowed
// soft limit the check runs again when the code resumes. The frames on
// the native stack are abandoned on an overflow; the Machine stays usable
// (the next top-level Call starts afresh) and the process is unaffected.
//
// # Calls between methods: cells and prestubs
//
// Every call to a managed method goes through its cell (Cells.CellAddr(i)):
//
//	CALL [RIP+disp32]              ; FF 15 disp32, to CellAddr(i): always in
//	                               ; reach, code and cells share a reservation
//	or  MOVQ $CellAddr(i), R11; CALL (R11)   ; 49 BB imm64; 41 FF 13
//
// The code generator needs the install address to encode the RIP-relative
// form: use CodeHeap.InstallFunc, which passes the final address to the
// fill function. A cell first holds the method's prestub:
//
//	mov qword ptr [r15+0x18], i    ; CtxExitArg = method index
//	mov qword ptr [r15+0x10], 4    ; CtxExitCode = ExitCompile
//	call exit_stub                 ; rel32
//	jmp qword ptr [rip+cell_i]     ; after the exit: through the cell again
//
// At the ExitCompile exit CtxRSP points at the caller's return address
// (the prestub was entered by the caller's CALL, and the exit stub popped
// only the prestub's own return address) and the argument registers hold
// the call's arguments. The handler compiles method ExitArg(), installs the
// code, stores its address in the cell (Cells.Set, or CompareAndSwap
// against Prestub(i) when several Machines may race) and sets CtxPC to it
// (Machine.SetPC) leaving CtxRSP unchanged: resuming enters the method
// exactly as if the caller had called it directly. If the handler leaves
// CtxPC alone, the prestub's trailing JMP through the cell does the same.
// Later calls go straight to the compiled code.
//
// # Running: Machine.Call
//
// Call(ctx, entry, intArgs, h) zeroes the saved registers, loads the
// arguments, points RSP at a return address slot holding the return stub
// (top of stack, RSP+8 16-byte aligned, RBP = 0) and resumes at entry. When
// the entry frame returns, the return stub exits with ExitReturn and Call
// returns RAX (XMM0's low half is available from ResultXMM0). An
// ExitHandler reads and writes the native state with Reg/SetReg(offset),
// ExitArg, PC/SetPC, SP/SetSP and ReadStack/WriteStack, and returns nil to
// resume or an error, which Call returns unchanged. A handler may call
// Call again on the same Machine (a nested Call, for funclets, filters or
// class constructors): it runs on the native stack below the interrupted
// code's RSP and restores the interrupted context when it returns.
//
// # How resume and the exit stub work
//
// resume(ctx) is an ABI0 NOSPLIT|NOFRAME assembly function: it stores Go's
// SP (pointing at its own return address) and BP into CtxGoSP/CtxGoBP,
// loads XMM0-15, RAX-R14, RBP and RSP from the context, sets R15 = ctx and
// jumps to CtxPC. The exit stub reverses that and executes RET on Go's
// stack, returning from resume. Go's SP is saved afresh on every resume, so
// goroutine stack growth or shrinking between exits is harmless; the stack
// cannot move while native code runs, because the goroutine is never at a
// safe point there (signals arrive on the signal stack and see a non-Go PC,
// so asynchronous preemption and profiling leave it alone). The Go
// compiler restores R14 (g) and X15 after the ABI0 call, so native code may
// use them. Measured on the development machine: about 21 ns for an exit
// to Go and the resume back (BenchmarkExitRoundTrip), about 90 ns for a
// whole Call of a trivial function.
package jitrt
