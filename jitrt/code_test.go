//go:build linux && amd64

package jitrt

import (
	"bytes"

	"miniil/abi"
	. "miniil/amd64"
)

// Test functions, assembled with the code generator's assembler.
// TestDisasm checks each against x86asm.

// asm assembles the code emit produces.
func asm(emit func(a *Assembler)) []byte {
	a := NewAssembler()
	emit(a)
	b, err := a.Assemble()
	if err != nil {
		panic(err)
	}
	return b.Code
}

// ctxMem is the context slot off, [R15+off].
func ctxMem(off int32) Operand { return Mem(R15, off) }

// codeAdd returns arg0+arg1.
func codeAdd() []byte {
	return asm(func(a *Assembler) {
		a.I(MOVQ, R(RDI), R(RAX))
		a.I(ADDQ, R(RSI), R(RAX))
		a.I(RET)
	})
}

// codeHelperLoop exits RDI times with exit code ExitHelperBase and returns
// whatever RAX the handler left.
func codeHelperLoop() []byte {
	return asm(func(a *Assembler) {
		loop := a.NewLabel()
		a.I(XORL, R(RAX), R(RAX))
		a.Bind(loop)
		a.I(MOVQ, Imm(abi.ExitHelperBase), ctxMem(abi.CtxExitCode))
		a.I(CALL, ctxMem(abi.CtxExitStub))
		a.I(SUBQ, Imm(1), R(RDI))
		a.Jump(JNE, loop)
		a.I(RET)
	})
}

// codePollLoop runs RDI iterations, decrementing CtxPoll on the back edge
// and polling out of line when it runs out, and returns the iteration
// count.
func codePollLoop() []byte {
	return asm(func(a *Assembler) {
		loop, back, poll := a.NewLabel(), a.NewLabel(), a.NewLabel()
		a.I(XORL, R(RAX), R(RAX))
		a.Bind(loop)
		a.I(ADDQ, Imm(1), R(RAX))
		a.I(SUBQ, Imm(1), ctxMem(abi.CtxPoll))
		a.Jump(JLE, poll)
		a.Bind(back)
		a.I(SUBQ, Imm(1), R(RDI))
		a.Jump(JNE, loop)
		a.I(RET)
		a.Bind(poll)
		a.I(CALL, ctxMem(abi.CtxPollStub))
		a.Jump(JMP, back)
	})
}

// codeSpin loops forever, polling.
func codeSpin() []byte {
	return asm(func(a *Assembler) {
		loop := a.NewLabel()
		a.Bind(loop)
		a.I(SUBQ, Imm(1), ctxMem(abi.CtxPoll))
		a.Jump(JGT, loop)
		a.I(CALL, ctxMem(abi.CtxPollStub))
		a.Jump(JMP, loop)
	})
}

// codeRecurse recurses forever with a 64-byte frame and the prolog stack
// check in the form the code generator emits (the overflow call out of
// line, then back to the check).
func codeRecurse() []byte {
	return asm(func(a *Assembler) {
		f, check, cold := a.NewLabel(), a.NewLabel(), a.NewLabel()
		a.Bind(f)
		a.I(PUSHQ, R(RBP))
		a.I(MOVQ, R(RSP), R(RBP))
		a.I(SUBQ, Imm(0x40), R(RSP))
		a.Bind(check)
		a.I(CMPQ, R(RSP), ctxMem(abi.CtxStackLimit))
		a.Jump(JCS, cold)
		a.Jump(CALL, f)
		a.I(LEAVEQ)
		a.I(RET)
		a.Bind(cold)
		a.I(CALL, ctxMem(abi.CtxOverflowStub))
		a.Jump(JMP, check)
	})
}

// codeMulAdd returns arg0*arg1+arg2 (the "compiled" method of the prestub
// tests).
func codeMulAdd() []byte {
	return asm(func(a *Assembler) {
		a.I(MOVQ, R(RDI), R(RAX))
		a.I(IMULQ, R(RSI), R(RAX))
		a.I(ADDQ, R(RDX), R(RAX))
		a.I(RET)
	})
}

// codeCallCellRIP calls through a cell with CALL [RIP+disp32] and returns
// the result plus 1000. It returns the code with the displacement zero,
// and the offset of the displacement (the return address is 4 bytes
// later): the caller sets it once it knows where the code goes.
func codeCallCellRIP() ([]byte, int) {
	a := NewAssembler()
	a.I(PUSHQ, R(RBP))
	a.I(MOVQ, R(RSP), R(RBP))
	a.Bytes(0xff, 0x15, 0, 0, 0, 0) // call qword ptr [rip+disp32]
	ret := a.Mark()
	a.I(ADDQ, Imm(1000), R(RAX))
	a.I(POPQ, R(RBP))
	a.I(RET)
	b, err := a.Assemble()
	if err != nil {
		panic(err)
	}
	return b.Code, b.Marks[ret] - 4
}

// codeCallCellAbs calls through cell with MOV R11, imm64; CALL [R11] and
// returns the result plus 1000.
func codeCallCellAbs(cell uintptr) []byte {
	return asm(func(a *Assembler) {
		a.I(PUSHQ, R(RBP))
		a.I(MOVQ, R(RSP), R(RBP))
		a.I(MOVQ, Imm(int64(cell)), R(R11))
		a.I(CALL, Mem(R11, 0))
		a.I(ADDQ, Imm(1000), R(RAX))
		a.I(POPQ, R(RBP))
		a.I(RET)
	})
}

// regsGPRs are the registers codeRegs loads, in hardware order (RSP
// skipped): GPR number i gets 0x100+i.
var regsGPRs = []Reg{RAX, RCX, RDX, RBX, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14}

// codeRegs loads each register of regsGPRs with 0x100+its hardware number
// and XMMi (i < 8) with the GPR of hardware number i (R12 for 4, RSP),
// exits with code 17, then exits with code 18, restores RBP and returns
// RAX.
func codeRegs() []byte {
	return asm(func(a *Assembler) {
		a.I(PUSHQ, R(RBP))
		for _, r := range regsGPRs {
			a.I(MOVL, Imm(int64(0x100+r.Num())), R(r))
		}
		for x := range 8 {
			src := regsGPRs[0]
			for _, r := range regsGPRs {
				if r.Num() == x {
					src = r
				}
			}
			if x == 4 {
				src = R12 // keep RSP out of it
			}
			a.I(MOVQ, R(src), R(X0+Reg(x)))
		}
		a.I(MOVQ, Imm(17), ctxMem(abi.CtxExitCode))
		a.I(CALL, ctxMem(abi.CtxExitStub))
		a.I(MOVQ, Imm(18), ctxMem(abi.CtxExitCode))
		a.I(CALL, ctxMem(abi.CtxExitStub))
		a.I(POPQ, R(RBP))
		a.I(RET)
	})
}

// codeStackCheckAtEnd exits with ExitHelperBase (for the handler to
// raise the soft stack limit), then makes a soft stack check whose
// out-of-line call and jump back are the code's last bytes, and returns
// 7. Its length is a multiple of the code heap's alignment: nothing
// follows it in the heap.
func codeStackCheckAtEnd() []byte {
	code := asm(func(a *Assembler) {
		start, cold := a.NewLabel(), a.NewLabel()
		a.I(MOVQ, Imm(abi.ExitHelperBase), ctxMem(abi.CtxExitCode))
		a.I(CALL, ctxMem(abi.CtxExitStub))
		a.I(LEAQ, Mem(RSP, -16), R(RAX))
		a.Bind(start) // the jump back repeats the compare
		a.I(CMPQ, R(RAX), ctxMem(abi.CtxStackLimit))
		a.Jump(JCS, cold)
		a.I(MOVL, Imm(7), R(RAX))
		a.I(RET)
		a.Bind(cold)
		a.I(CALL, ctxMem(abi.CtxOverflowStub))
		a.Jump(JMP, start)
	})
	if n := len(code) % codeAlign; n != 0 { // NOPs before it
		code = append(bytes.Repeat([]byte{0x90}, codeAlign-n), code...)
	}
	return code
}
