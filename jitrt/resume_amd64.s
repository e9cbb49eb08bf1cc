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
	MOVQ	SP, const_asmCtxGoSP(R15)
	MOVQ	BP, const_asmCtxGoBP(R15)
	MOVQ	const_asmCtxXMM0(R15), X0
	MOVQ	const_asmCtxXMM1(R15), X1
	MOVQ	const_asmCtxXMM2(R15), X2
	MOVQ	const_asmCtxXMM3(R15), X3
	MOVQ	const_asmCtxXMM4(R15), X4
	MOVQ	const_asmCtxXMM5(R15), X5
	MOVQ	const_asmCtxXMM6(R15), X6
	MOVQ	const_asmCtxXMM7(R15), X7
	MOVQ	const_asmCtxXMM8(R15), X8
	MOVQ	const_asmCtxXMM9(R15), X9
	MOVQ	const_asmCtxXMM10(R15), X10
	MOVQ	const_asmCtxXMM11(R15), X11
	MOVQ	const_asmCtxXMM12(R15), X12
	MOVQ	const_asmCtxXMM13(R15), X13
	MOVQ	const_asmCtxXMM14(R15), X14
	MOVQ	const_asmCtxXMM15(R15), X15
	MOVQ	const_asmCtxRAX(R15), AX
	MOVQ	const_asmCtxRBX(R15), BX
	MOVQ	const_asmCtxRCX(R15), CX
	MOVQ	const_asmCtxRDX(R15), DX
	MOVQ	const_asmCtxRSI(R15), SI
	MOVQ	const_asmCtxRDI(R15), DI
	MOVQ	const_asmCtxR8(R15), R8
	MOVQ	const_asmCtxR9(R15), R9
	MOVQ	const_asmCtxR10(R15), R10
	MOVQ	const_asmCtxR11(R15), R11
	MOVQ	const_asmCtxR12(R15), R12
	MOVQ	const_asmCtxR13(R15), R13
	MOVQ	const_asmCtxR14(R15), R14
	MOVQ	const_asmCtxRBP(R15), BP
	MOVQ	const_asmCtxRSP(R15), SP
	JMP	const_asmCtxPC(R15)
