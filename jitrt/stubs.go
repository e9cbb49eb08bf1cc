//go:build linux && amd64

package jitrt

import (
	"fmt"

	"miniil/abi"
	"miniil/amd64"
)

// The runtime's stubs, assembled with the code generator's assembler
// (amd64.Assembler): the exit stub and the stubs that enter it, the
// prestubs of the call cells, and the small stubs the runtime installs for
// the exception dispatcher, call depth checkpoints and virtual base
// library methods.

// gprSlots lists the general purpose registers the exit stub saves and
// resume restores, with their context slots (RSP, RBP and R15 apart).
var gprSlots = [...]struct {
	reg  amd64.Reg
	slot int32
}{
	{amd64.RAX, abi.CtxRAX}, {amd64.RBX, abi.CtxRBX}, {amd64.RCX, abi.CtxRCX}, {amd64.RDX, abi.CtxRDX},
	{amd64.RSI, abi.CtxRSI}, {amd64.RDI, abi.CtxRDI}, {amd64.R8, abi.CtxR8}, {amd64.R9, abi.CtxR9},
	{amd64.R10, abi.CtxR10}, {amd64.R11, abi.CtxR11}, {amd64.R12, abi.CtxR12}, {amd64.R13, abi.CtxR13},
	{amd64.R14, abi.CtxR14},
}

// ctx is the operand [R15+off], a context slot.
func ctx(off int32) amd64.Operand { return amd64.Mem(amd64.R15, off) }

// sharedStubs are the offsets of the shared stubs in their blob.
type sharedStubs struct{ exit, poll, overflow, ret int }

// emitStringConcat emits the string concatenation routine
// (abi.CtxStrConcat). As the base library's Concat, an empty or null
// string is no part: with one part left the result is that string, with
// none String.Empty (which the routine leaves to the base library).
func emitStringConcat(a *amd64.Assembler) {
	aEmpty, retA, fail := a.NewLabel(), a.NewLabel(), a.NewLabel()
	a.I(amd64.TESTQ, amd64.R(amd64.RDI), amd64.R(amd64.RDI))
	a.Jump(amd64.JEQ, aEmpty)
	a.I(amd64.MOVQ, amd64.Mem(amd64.RDI, abi.StrLen), amd64.R(amd64.R8))
	a.I(amd64.TESTQ, amd64.R(amd64.R8), amd64.R(amd64.R8))
	a.Jump(amd64.JEQ, aEmpty)
	a.I(amd64.TESTQ, amd64.R(amd64.RSI), amd64.R(amd64.RSI))
	a.Jump(amd64.JEQ, retA)
	a.I(amd64.MOVQ, amd64.Mem(amd64.RSI, abi.StrLen), amd64.R(amd64.R9))
	a.I(amd64.TESTQ, amd64.R(amd64.R9), amd64.R(amd64.R9))
	a.Jump(amd64.JEQ, retA)
	// RCX = il.StringSize(R8+R9), small enough, at the heap top.
	a.I(amd64.LEAQ, amd64.MemIdx(amd64.R8, amd64.R9, 1, 0), amd64.R(amd64.RCX))
	a.I(amd64.LEAQ, amd64.MemIdx(amd64.RCX, amd64.RCX, 1, abi.StrData+7), amd64.R(amd64.RCX))
	a.I(amd64.ANDQ, amd64.Imm(-8), amd64.R(amd64.RCX))
	a.I(amd64.CMPQ, amd64.R(amd64.RCX), amd64.Imm(abi.StrConcatMaxBytes))
	a.Jump(amd64.JCC, fail)
	a.I(amd64.MOVQ, ctx(abi.CtxHeapTop), amd64.R(amd64.RAX))
	a.I(amd64.ADDQ, amd64.R(amd64.RAX), amd64.R(amd64.RCX))
	a.I(amd64.CMPQ, amd64.R(amd64.RCX), ctx(abi.CtxHeapLimit))
	a.Jump(amd64.JHI, fail)
	a.I(amd64.MOVQ, amd64.R(amd64.RCX), ctx(abi.CtxHeapTop))
	a.I(amd64.MOVQ, amd64.R(amd64.RDX), amd64.Mem(amd64.RAX, abi.ObjMT))
	a.I(amd64.LEAQ, amd64.MemIdx(amd64.R8, amd64.R9, 1, 0), amd64.R(amd64.RCX))
	a.I(amd64.MOVQ, amd64.R(amd64.RCX), amd64.Mem(amd64.RAX, abi.StrLen))
	// Copy the characters: REP MOVSB of 2*R8 bytes from a, then of 2*R9
	// from b (the direction flag is clear in managed code, as in SysV).
	a.I(amd64.MOVQ, amd64.R(amd64.RSI), amd64.R(amd64.RDX))
	a.I(amd64.LEAQ, amd64.Mem(amd64.RDI, abi.StrData), amd64.R(amd64.RSI))
	a.I(amd64.LEAQ, amd64.Mem(amd64.RAX, abi.StrData), amd64.R(amd64.RDI))
	a.I(amd64.LEAQ, amd64.MemIdx(amd64.R8, amd64.R8, 1, 0), amd64.R(amd64.RCX))
	a.Bytes(0xF3, 0xA4)
	a.I(amd64.LEAQ, amd64.Mem(amd64.RDX, abi.StrData), amd64.R(amd64.RSI))
	a.I(amd64.LEAQ, amd64.MemIdx(amd64.R9, amd64.R9, 1, 0), amd64.R(amd64.RCX))
	a.Bytes(0xF3, 0xA4)
	a.I(amd64.RET)
	a.Bind(retA)
	a.I(amd64.MOVQ, amd64.R(amd64.RDI), amd64.R(amd64.RAX))
	a.I(amd64.RET)
	a.Bind(aEmpty)
	// a is null or empty: b if it is not.
	a.I(amd64.TESTQ, amd64.R(amd64.RSI), amd64.R(amd64.RSI))
	a.Jump(amd64.JEQ, fail)
	a.I(amd64.CMPQ, amd64.Mem(amd64.RSI, abi.StrLen), amd64.Imm(0))
	a.Jump(amd64.JEQ, fail)
	a.I(amd64.MOVQ, amd64.R(amd64.RSI), amd64.R(amd64.RAX))
	a.I(amd64.RET)
	a.Bind(fail)
	a.I(amd64.XORL, amd64.R(amd64.RAX), amd64.R(amd64.RAX))
	a.I(amd64.RET)
}

// emitStringEquals emits the string equality routine (abi.CtxStrEquals):
// the same reference is equal, a null and a non-null are not, strings of
// different lengths are not; else it compares the UTF-16 data 8 bytes at
// a time, then the last 0-3 characters one at a time.
func emitStringEquals(a *amd64.Assembler) {
	yes, no, loop, tail, chars := a.NewLabel(), a.NewLabel(), a.NewLabel(), a.NewLabel(), a.NewLabel()
	a.I(amd64.CMPQ, amd64.R(amd64.RDI), amd64.R(amd64.RSI))
	a.Jump(amd64.JEQ, yes)
	a.I(amd64.TESTQ, amd64.R(amd64.RDI), amd64.R(amd64.RDI))
	a.Jump(amd64.JEQ, no)
	a.I(amd64.TESTQ, amd64.R(amd64.RSI), amd64.R(amd64.RSI))
	a.Jump(amd64.JEQ, no)
	a.I(amd64.MOVQ, amd64.Mem(amd64.RDI, abi.StrLen), amd64.R(amd64.RCX))
	a.I(amd64.CMPQ, amd64.R(amd64.RCX), amd64.Mem(amd64.RSI, abi.StrLen))
	a.Jump(amd64.JNE, no)
	// RCX = bytes left - 8, RAX = offset of the next bytes.
	a.I(amd64.ADDQ, amd64.R(amd64.RCX), amd64.R(amd64.RCX))
	a.I(amd64.XORL, amd64.R(amd64.RAX), amd64.R(amd64.RAX))
	a.I(amd64.SUBQ, amd64.Imm(8), amd64.R(amd64.RCX))
	a.Jump(amd64.JLT, tail)
	a.Bind(loop)
	a.I(amd64.MOVQ, amd64.MemIdx(amd64.RDI, amd64.RAX, 1, abi.StrData), amd64.R(amd64.RDX))
	a.I(amd64.CMPQ, amd64.R(amd64.RDX), amd64.MemIdx(amd64.RSI, amd64.RAX, 1, abi.StrData))
	a.Jump(amd64.JNE, no)
	a.I(amd64.ADDQ, amd64.Imm(8), amd64.R(amd64.RAX))
	a.I(amd64.SUBQ, amd64.Imm(8), amd64.R(amd64.RCX))
	a.Jump(amd64.JGE, loop)
	a.Bind(tail)
	a.I(amd64.ADDQ, amd64.Imm(8), amd64.R(amd64.RCX))
	a.Jump(amd64.JEQ, yes)
	a.Bind(chars)
	a.I(amd64.MOVWLZX, amd64.MemIdx(amd64.RDI, amd64.RAX, 1, abi.StrData), amd64.R(amd64.RDX))
	a.I(amd64.CMPW, amd64.R(amd64.RDX), amd64.MemIdx(amd64.RSI, amd64.RAX, 1, abi.StrData))
	a.Jump(amd64.JNE, no)
	a.I(amd64.ADDQ, amd64.Imm(2), amd64.R(amd64.RAX))
	a.I(amd64.SUBQ, amd64.Imm(2), amd64.R(amd64.RCX))
	a.Jump(amd64.JNE, chars)
	a.Bind(yes)
	a.I(amd64.MOVL, amd64.Imm(1), amd64.R(amd64.RAX))
	a.I(amd64.RET)
	a.Bind(no)
	a.I(amd64.XORL, amd64.R(amd64.RAX), amd64.R(amd64.RAX))
	a.I(amd64.RET)
}

// emitSharedStubs emits, in one blob:
//
//	exit:     the exit stub: entered by a CALL with R15 = context, it
//	          pops its return address into CtxPC, saves RSP (after the
//	          pop), RBP, the GPRs and the low halves of XMM0-15, switches
//	          back to Go's SP and BP and returns, which returns from resume
//	          to its Go caller
//	poll:     MOV QWORD PTR [R15+CtxExitCode], ExitPoll; JMP exit
//	overflow: MOV QWORD PTR [R15+CtxExitCode], ExitStackOverflow; JMP exit
//	return:   MOV QWORD PTR [R15+CtxExitCode], ExitReturn; CALL exit; JMP return
//	strEquals: the string equality routine (emitStringEquals)
//	strConcat: the string concatenation routine (emitStringConcat)
//
// The poll and overflow stubs are entered by CALL and jump, so the exit
// stub pops the caller's return address. The return stub is entered by the
// entry frame's RET and calls the exit stub itself.
func emitSharedStubs(a *amd64.Assembler) (marks [numSharedStubs]amd64.MarkID) {
	exit, ret := a.NewLabel(), a.NewLabel()
	marks[0] = a.Mark()
	a.Bind(exit)
	a.I(amd64.POPQ, ctx(abi.CtxPC))
	a.I(amd64.MOVQ, amd64.R(amd64.RSP), ctx(abi.CtxRSP))
	a.I(amd64.MOVQ, amd64.R(amd64.RBP), ctx(abi.CtxRBP))
	for _, r := range gprSlots {
		a.I(amd64.MOVQ, amd64.R(r.reg), ctx(r.slot))
	}
	for x := range 16 {
		a.I(amd64.MOVSD, amd64.R(amd64.X0+amd64.Reg(x)), ctx(abi.CtxXMM0+8*int32(x)))
	}
	a.I(amd64.MOVQ, ctx(abi.CtxGoSP), amd64.R(amd64.RSP))
	a.I(amd64.MOVQ, ctx(abi.CtxGoBP), amd64.R(amd64.RBP))
	a.I(amd64.RET)
	marks[1] = a.Mark()
	a.I(amd64.MOVQ, amd64.Imm(abi.ExitPoll), ctx(abi.CtxExitCode))
	a.Jump(amd64.JMP, exit)
	marks[2] = a.Mark()
	a.I(amd64.MOVQ, amd64.Imm(abi.ExitStackOverflow), ctx(abi.CtxExitCode))
	a.Jump(amd64.JMP, exit)
	marks[3] = a.Mark()
	a.Bind(ret)
	a.I(amd64.MOVQ, amd64.Imm(abi.ExitReturn), ctx(abi.CtxExitCode))
	a.Jump(amd64.CALL, exit)
	a.Jump(amd64.JMP, ret)
	marks[4] = a.Mark()
	emitStringEquals(a)
	marks[5] = a.Mark()
	emitStringConcat(a)
	marks[6] = a.Mark()
	return marks
}

// numSharedStubs is the number of marks emitSharedStubs returns: the
// start of each stub, and the end of the last.
const numSharedStubs = 7

// emitExitStub emits a stub that exits with code (and arg, when hasArg)
// through the context's exit stub, then runs tail: amd64.RET to return to
// the caller after the exit, amd64.UD2 when the runtime always resumes
// elsewhere.
func emitExitStub(a *amd64.Assembler, code int64, arg int64, hasArg bool, tail amd64.Op) {
	a.I(amd64.MOVQ, amd64.Imm(code), ctx(abi.CtxExitCode))
	if hasArg {
		a.I(amd64.MOVQ, amd64.Imm(arg), ctx(abi.CtxExitArg))
	}
	a.I(amd64.CALL, ctx(abi.CtxExitStub))
	a.I(tail)
}

// emitPrestub emits the prestub template (for method 0): CtxExitArg = the
// method index, exit with ExitCompile, then JMP [RIP+cell] through the
// method's cell. It returns the offsets of the index (imm32) and of the
// cell displacement (disp32), which prestubs patch per method.
func emitPrestub(a *amd64.Assembler) (index, cellDisp amd64.MarkID) {
	a.I(amd64.MOVQ, amd64.Imm(0x7fffffff), ctx(abi.CtxExitArg)) // imm32 set per method
	index = a.Mark()
	a.I(amd64.MOVQ, amd64.Imm(abi.ExitCompile), ctx(abi.CtxExitCode))
	a.I(amd64.CALL, ctx(abi.CtxExitStub))
	a.Bytes(0xFF, 0x25, 0, 0, 0, 0) // JMP [RIP+disp32]
	cellDisp = a.Mark()
	return index, cellDisp
}

// assemble runs emit on a fresh blob of a and assembles it.
func assemble(a *amd64.Assembler, emit func(a *amd64.Assembler)) (*amd64.Blob, error) {
	a.Reset()
	emit(a)
	b, err := a.Assemble()
	if err != nil {
		return nil, fmt.Errorf("jitrt: assembling a stub: %w", err)
	}
	return b, nil
}

// InstallStub assembles a stub with emit and installs it (it must not
// depend on its address).
func (h *CodeHeap) InstallStub(emit func(a *amd64.Assembler)) (uintptr, error) {
	h.asmMu.Lock()
	b, err := assemble(h.asm, emit)
	h.asmMu.Unlock()
	if err != nil {
		return 0, err
	}
	return h.Install(b.Code)
}
