//go:build linux && amd64

package jitrt

import "miniil/abi"

import "encoding/binary"

// Hand-encoded test functions. TestDisasm checks each against x86asm.

// codeAdd returns arg0+arg1.
func codeAdd() []byte {
	return []byte{
		0x48, 0x89, 0xf8, // mov rax, rdi
		0x48, 0x01, 0xf0, // add rax, rsi
		0xc3, // ret
	}
}

// codeHelperLoop exits RDI times with exit code ExitHelperBase and returns
// whatever RAX the handler left.
func codeHelperLoop() []byte {
	t := newTasm()
	t.raw(0x31, 0xc0) // xor eax, eax
	t.label("loop")
	t.storeImm(abi.CtxExitCode, abi.ExitHelperBase) // mov qword ptr [r15+0x10], 0x10
	t.callMem(abi.CtxExitStub)                  // call qword ptr [r15+0x20]
	t.raw(0x48, 0x83, 0xef, 0x01)           // sub rdi, 1
	t.j8(0x75, "loop")                      // jnz loop
	t.raw(0xc3)                             // ret
	return t.code()
}

// codePollLoop runs RDI iterations with a poll on the back edge and returns
// the iteration count.
func codePollLoop() []byte {
	t := newTasm()
	t.raw(0x31, 0xc0) // xor eax, eax
	t.label("loop")
	t.raw(0x48, 0x83, 0xc0, 0x01) // add rax, 1
	t.raw(0x49, 0x83, 0x2f, 0x01) // sub qword ptr [r15], 1
	t.j8(0x7f, "skip")            // jg skip
	t.callMem(abi.CtxPollStub)        // call qword ptr [r15+0x28]
	t.label("skip")
	t.raw(0x48, 0x83, 0xef, 0x01) // sub rdi, 1
	t.j8(0x75, "loop")            // jnz loop
	t.raw(0xc3)                   // ret
	return t.code()
}

// codeSpin loops forever, polling.
func codeSpin() []byte {
	t := newTasm()
	t.label("loop")
	t.raw(0x49, 0x83, 0x2f, 0x01) // sub qword ptr [r15], 1
	t.j8(0x7f, "loop")            // jg loop
	t.callMem(abi.CtxPollStub)        // call qword ptr [r15+0x28]
	t.j8(0xeb, "loop")            // jmp loop
	return t.code()
}

// codeRecurse recurses forever with a 64-byte frame and the prolog stack
// check.
func codeRecurse() []byte {
	t := newTasm()
	t.label("f")
	t.raw(0x55)                   // push rbp
	t.raw(0x48, 0x89, 0xe5)       // mov rbp, rsp
	t.raw(0x48, 0x83, 0xec, 0x40) // sub rsp, 0x40
	t.raw(0x49, 0x3b, 0x67, 0x08) // cmp rsp, qword ptr [r15+0x8]
	t.j8(0x73, "ok")              // jae ok
	t.callMem(abi.CtxOverflowStub)    // call qword ptr [r15+0x30]
	t.label("ok")
	t.call32("f") // call f
	t.raw(0xc9)   // leave
	t.raw(0xc3)   // ret
	return t.code()
}

// codeMulAdd returns arg0*arg1+arg2 (the "compiled" method of the prestub
// tests).
func codeMulAdd() []byte {
	return []byte{
		0x48, 0x89, 0xf8, // mov rax, rdi
		0x48, 0x0f, 0xaf, 0xc6, // imul rax, rsi
		0x48, 0x01, 0xd0, // add rax, rdx
		0xc3, // ret
	}
}

// codeCallCellRIP, placed at base, calls through cell with
// CALL [RIP+disp32] and returns the result plus 1000. It also returns the
// offset of the instruction after the call (the return address).
func codeCallCellRIP(base, cell uintptr) ([]byte, int) {
	var a asmbuf
	a.byte(0x55)             // push rbp
	a.byte(0x48, 0x89, 0xe5) // mov rbp, rsp
	a.byte(0xff, 0x15)       // call qword ptr [rip+disp32]
	a.rel32(base, cell)
	ret := a.len()
	a.byte(0x48, 0x05, 0xe8, 0x03, 0x00, 0x00) // add rax, 1000
	a.byte(0x5d)                               // pop rbp
	a.byte(0xc3)                               // ret
	return a.b, ret
}

// codeCallCellAbs calls through cell with MOV R11, imm64; CALL [R11] and
// returns the result plus 1000.
func codeCallCellAbs(cell uintptr) []byte {
	var a asmbuf
	a.byte(0x55)             // push rbp
	a.byte(0x48, 0x89, 0xe5) // mov rbp, rsp
	a.byte(0x49, 0xbb)       // mov r11, imm64
	a.b = binary.LittleEndian.AppendUint64(a.b, uint64(cell))
	a.byte(0x41, 0xff, 0x13)                   // call qword ptr [r11]
	a.byte(0x48, 0x05, 0xe8, 0x03, 0x00, 0x00) // add rax, 1000
	a.byte(0x5d)                               // pop rbp
	a.byte(0xc3)                               // ret
	return a.b
}

// codeRegs loads GPR i (RAX, RBX, RCX, RDX, RSI, RDI, RBP, R8-R14 in
// hardware order, RSP skipped) with 0x100+i and XMMi with the value of the
// GPR with hardware number i, exits with code 17, then exits with code 18,
// restores RBP and returns RAX.
func codeRegs() []byte {
	t := newTasm()
	t.raw(0x55) // push rbp
	for r := 0; r < 15; r++ {
		if r == regRSP {
			continue
		}
		if r >= 8 {
			t.raw(0x41)
		}
		t.raw(0xb8 + byte(r&7)) // mov r32, imm32
		t.u32(uint32(0x100 + r))
	}
	for x := 0; x < 8; x++ {
		src := x
		if src == regRSP {
			src = regR12 // keep RSP out of it: XMM4 = R12
		}
		rex := byte(0x48)
		if src >= 8 {
			rex |= 0x01
		}
		t.raw(0x66, rex, 0x0f, 0x6e, 0xc0|byte(x)<<3|byte(src&7)) // movq xmmX, r64
	}
	t.storeImm(abi.CtxExitCode, 17)
	t.callMem(abi.CtxExitStub)
	t.storeImm(abi.CtxExitCode, 18)
	t.callMem(abi.CtxExitStub)
	t.raw(0x5d) // pop rbp
	t.raw(0xc3) // ret
	return t.code()
}
