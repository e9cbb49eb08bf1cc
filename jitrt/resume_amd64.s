//go:build linux

#include "go_asm.h"
#include "textflag.h"

// func resume(ctx uintptr)
//
// Saves Go's SP (pointing at resume's return address) and BP in the
// context, loads the native register state and jumps to CtxPC with R15 =
// ctx. The exit stub (machine code installed by NewCodeHeap) undoes this:
// it saves the native state, reloads CtxGoSP/CtxGoBP and executes RET,
// which returns from resume to its Go caller. All registers but SP and BP
// are clobbered, as ABI0 allows; the ABI wrapper restores R14 and X15.
TEXT ·resume(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ	ctx+0(FP), R15
	MOVQ	SP, const_CtxGoSP(R15)
	MOVQ	BP, const_CtxGoBP(R15)
	MOVQ	const_CtxXMM0(R15), X0
	MOVQ	const_CtxXMM1(R15), X1
	MOVQ	const_CtxXMM2(R15), X2
	MOVQ	const_CtxXMM3(R15), X3
	MOVQ	const_CtxXMM4(R15), X4
	MOVQ	const_CtxXMM5(R15), X5
	MOVQ	const_CtxXMM6(R15), X6
	MOVQ	const_CtxXMM7(R15), X7
	MOVQ	const_CtxXMM8(R15), X8
	MOVQ	const_CtxXMM9(R15), X9
	MOVQ	const_CtxXMM10(R15), X10
	MOVQ	const_CtxXMM11(R15), X11
	MOVQ	const_CtxXMM12(R15), X12
	MOVQ	const_CtxXMM13(R15), X13
	MOVQ	const_CtxXMM14(R15), X14
	MOVQ	const_CtxXMM15(R15), X15
	MOVQ	const_CtxRAX(R15), AX
	MOVQ	const_CtxRBX(R15), BX
	MOVQ	const_CtxRCX(R15), CX
	MOVQ	const_CtxRDX(R15), DX
	MOVQ	const_CtxRSI(R15), SI
	MOVQ	const_CtxRDI(R15), DI
	MOVQ	const_CtxR8(R15), R8
	MOVQ	const_CtxR9(R15), R9
	MOVQ	const_CtxR10(R15), R10
	MOVQ	const_CtxR11(R15), R11
	MOVQ	const_CtxR12(R15), R12
	MOVQ	const_CtxR13(R15), R13
	MOVQ	const_CtxR14(R15), R14
	MOVQ	const_CtxRBP(R15), BP
	MOVQ	const_CtxRSP(R15), SP
	JMP	const_CtxPC(R15)
