//go:build linux

#include "go_asm.h"
#include "textflag.h"

// Linux amd64 system call numbers and flags used below.
#define SYS_nanosleep 35
#define SYS_rt_sigprocmask 14
#define SYS_clone 56
#define SYS_futex 202
#define SYS_sched_setattr 314
#define SIG_SETMASK 2
#define FUTEX_WAIT_PRIVATE 128
// CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM:
// a thread of this process, as the Go runtime creates its own.
#define CLONE_FLAGS 0x50f00

// func cloneWatchdog(data, stackTop uintptr) int64
//
// Starts the watchdog thread: a thread of this process that the Go runtime
// does not know about and that never runs Go code. It blocks every signal
// in the calling thread (so the new thread inherits a mask that keeps Go's
// signal handlers, which need a Go thread, off it), clones, and restores
// the caller's mask. The parent returns the new thread's id, or -errno.
// The child runs watchdogLoop on the stack ending at stackTop with R12 =
// data and never returns.
TEXT ·cloneWatchdog(SB), NOSPLIT, $16-24
	MOVQ	data+0(FP), R12
	MOVQ	stackTop+8(FP), R13
	// rt_sigprocmask(SIG_SETMASK, &all, &old, 8); all at 0(SP), old at 8(SP).
	MOVQ	$-1, 0(SP)
	MOVL	$SIG_SETMASK, DI
	LEAQ	0(SP), SI
	LEAQ	8(SP), DX
	MOVL	$8, R10
	MOVL	$SYS_rt_sigprocmask, AX
	SYSCALL
	// clone(flags, stackTop, NULL, NULL, 0). The child starts right after
	// SYSCALL with RSP = stackTop and every other register as the parent
	// had it (but RAX = 0, and RCX, R11 clobbered).
	MOVL	$CLONE_FLAGS, DI
	MOVQ	R13, SI
	XORL	DX, DX
	XORL	R10, R10
	XORL	R8, R8
	MOVL	$SYS_clone, AX
	SYSCALL
	CMPQ	AX, $0
	JEQ	child
	MOVQ	AX, BX
	// Parent: rt_sigprocmask(SIG_SETMASK, &old, NULL, 8).
	MOVL	$SIG_SETMASK, DI
	LEAQ	8(SP), SI
	XORL	DX, DX
	MOVL	$8, R10
	MOVL	$SYS_rt_sigprocmask, AX
	SYSCALL
	MOVQ	BX, ret+16(FP)
	RET
child:
	JMP	·watchdogLoop(SB)

// watchdogLoop is the watchdog thread's body (R12 = its data block). While
// no Machine is registered it sleeps on a futex on the registration count.
// Otherwise, every tick it looks at each registered Machine: when Go asks
// for the goroutine running it (g.stackguard0 == stackPreempt: a
// stop-the-world, a stack scan, the scheduler's time slice), and every
// const_wdEvery ticks regardless (for cancellation and time limits), it
// asks the Machine to poll: it sets CtxPollReq, raises CtxStackLimit above
// every stack address (so the next prolog's stack check exits) and zeroes
// CtxPoll (so the next loop back edge exits). The scan is bracketed by the
// scanning flag so that a Machine that unregisters can wait until the
// watchdog no longer reads its slot or touches its context.
TEXT ·watchdogLoop(SB), NOSPLIT|NOFRAME, $0-0
	// sched_setattr(0, &sched, 0): a short time slice; ignore failure
	// (older kernels).
	XORL	DI, DI
	LEAQ	const_wdSched(R12), SI
	XORL	DX, DX
	MOVL	$SYS_sched_setattr, AX
	SYSCALL
	XORL	R13, R13 // ticks until the next unconditional poll
loop:
	MOVL	const_wdActive(R12), AX
	TESTL	AX, AX
	JNZ	tick
	// futex(&active, FUTEX_WAIT_PRIVATE, 0, NULL): sleep until a Machine
	// registers (returns at once if active is no longer 0).
	LEAQ	const_wdActive(R12), DI
	MOVL	$FUTEX_WAIT_PRIVATE, SI
	XORL	DX, DX
	XORL	R10, R10
	XORL	R8, R8
	XORL	R9, R9
	MOVL	$SYS_futex, AX
	SYSCALL
	JMP	loop
tick:
	// nanosleep(&interval, NULL)
	LEAQ	const_wdInterval(R12), DI
	XORL	SI, SI
	MOVL	$SYS_nanosleep, AX
	SYSCALL
	MOVL	$1, AX
	XCHGL	AX, const_wdScanning(R12)
	DECL	R13
	JGE	scanning
	MOVL	$const_wdEvery-1, R13
scanning:
	MOVL	const_wdHigh(R12), CX
	LEAQ	const_wdSlots(R12), SI
	MOVQ	$const_stackPreempt, R8
scan:
	TESTL	CX, CX
	JZ	done
	MOVQ	(SI), DI // the context
	TESTQ	DI, DI
	JZ	next
	TESTL	R13, R13
	JZ	arm
	MOVQ	8(SI), DX // the goroutine
	CMPQ	const_gStackguard0(DX), R8
	JNE	next
arm:
	MOVQ	$1, const_asmCtxPollReq(DI)
	MOVQ	$-1, const_asmCtxStackLimit(DI)
	MOVQ	$0, const_asmCtxPoll(DI)
next:
	ADDQ	$16, SI
	DECL	CX
	JMP	scan
done:
	XORL	AX, AX
	XCHGL	AX, const_wdScanning(R12)
	LOCK
	INCQ	const_wdTicks(R12)
	JMP	loop

// func getg() uintptr
//
// getg returns the address of the calling goroutine's g.
TEXT ·getg(SB), NOSPLIT, $0-8
	MOVQ	(TLS), AX
	MOVQ	AX, ret+0(FP)
	RET
