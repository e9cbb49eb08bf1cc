//go:build linux && amd64

package jitrt

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// TestDisasm checks every hand-encoded sequence, the runtime's stubs as
// installed and the test functions, against x86asm.
func TestDisasm(t *testing.T) {
	h := newHeap(t)
	heapBytes := func(addr uintptr, n int) []byte { return h.mem[addr-h.base : addr-h.base+uintptr(n)] }

	exit := []string{
		"pop qword ptr [r15+0x80]",
		"mov qword ptr [r15+0x88], rsp",
		"mov qword ptr [r15+0x90], rbp",
		"mov qword ptr [r15+0x98], rax",
		"mov qword ptr [r15+0xa0], rbx",
		"mov qword ptr [r15+0xa8], rcx",
		"mov qword ptr [r15+0xb0], rdx",
		"mov qword ptr [r15+0xb8], rsi",
		"mov qword ptr [r15+0xc0], rdi",
		"mov qword ptr [r15+0xc8], r8",
		"mov qword ptr [r15+0xd0], r9",
		"mov qword ptr [r15+0xd8], r10",
		"mov qword ptr [r15+0xe0], r11",
		"mov qword ptr [r15+0xe8], r12",
		"mov qword ptr [r15+0xf0], r13",
		"mov qword ptr [r15+0xf8], r14",
		"movq qword ptr [r15+0x100], xmm0",
		"movq qword ptr [r15+0x108], xmm1",
		"movq qword ptr [r15+0x110], xmm2",
		"movq qword ptr [r15+0x118], xmm3",
		"movq qword ptr [r15+0x120], xmm4",
		"movq qword ptr [r15+0x128], xmm5",
		"movq qword ptr [r15+0x130], xmm6",
		"movq qword ptr [r15+0x138], xmm7",
		"movq qword ptr [r15+0x140], xmm8",
		"movq qword ptr [r15+0x148], xmm9",
		"movq qword ptr [r15+0x150], xmm10",
		"movq qword ptr [r15+0x158], xmm11",
		"movq qword ptr [r15+0x160], xmm12",
		"movq qword ptr [r15+0x168], xmm13",
		"movq qword ptr [r15+0x170], xmm14",
		"movq qword ptr [r15+0x178], xmm15",
		"mov rsp, qword ptr [r15+0x180]",
		"mov rbp, qword ptr [r15+0x188]",
		"ret",
	}
	var a asmbuf
	a.emitExitStub()
	checkDisasm(t, "exit stub", heapBytes(h.exitStub, a.len()), uint64(h.exitStub), exit...)

	e := fmt.Sprintf("%#x", h.exitStub)
	checkDisasm(t, "poll stub", heapBytes(h.pollStub, 13), uint64(h.pollStub),
		"mov qword ptr [r15+0x10], 0x2", "jmp "+e)
	checkDisasm(t, "overflow stub", heapBytes(h.overflowStub, 13), uint64(h.overflowStub),
		"mov qword ptr [r15+0x10], 0x3", "jmp "+e)
	checkDisasm(t, "return stub", heapBytes(h.returnStub, 18), uint64(h.returnStub),
		"mov qword ptr [r15+0x10], 0x1", "call "+e, fmt.Sprintf("jmp %#x", h.returnStub))

	c, err := h.NewCells(3)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		p := c.Prestub(i)
		code := heapBytes(p, 27)
		disp := int32(binary.LittleEndian.Uint32(code[23:]))
		if target := p + 27 + uintptr(disp); target != c.CellAddr(i) {
			t.Errorf("prestub %d jumps through %#x, want cell %#x", i, target, c.CellAddr(i))
		}
		checkDisasm(t, "prestub", code, uint64(p),
			fmt.Sprintf("mov qword ptr [r15+0x18], 0x%x", i),
			"mov qword ptr [r15+0x10], 0x4",
			"call "+e,
			fmt.Sprintf("jmp qword ptr [rip+%#x]", disp))
	}

	checkDisasm(t, "add", codeAdd(), 0, "mov rax, rdi", "add rax, rsi", "ret")
	checkDisasm(t, "helper loop", codeHelperLoop(), 0,
		"xor eax, eax",
		"mov qword ptr [r15+0x10], 0x10",
		"call qword ptr [r15+0x20]",
		"sub rdi, 0x1",
		"jnz 0x2",
		"ret")
	checkDisasm(t, "poll loop", codePollLoop(), 0,
		"xor eax, eax",
		"add rax, 0x1",
		"sub qword ptr [r15], 0x1",
		"jnle 0x10",
		"call qword ptr [r15+0x28]",
		"sub rdi, 0x1",
		"jnz 0x2",
		"ret")
	checkDisasm(t, "spin", codeSpin(), 0,
		"sub qword ptr [r15], 0x1",
		"jnle 0x0",
		"call qword ptr [r15+0x28]",
		"jmp 0x0")
	checkDisasm(t, "recurse", codeRecurse(), 0,
		"push rbp",
		"mov rbp, rsp",
		"sub rsp, 0x40",
		"cmp rsp, qword ptr [r15+0x8]",
		"jnb 0x12",
		"call qword ptr [r15+0x30]",
		"call 0x0",
		"leave",
		"ret")
	checkDisasm(t, "muladd", codeMulAdd(), 0, "mov rax, rdi", "imul rax, rsi", "add rax, rdx", "ret")
	b, _ := codeCallCellRIP(0x1000, 0x2000)
	checkDisasm(t, "call cell rip", b, 0x1000,
		"push rbp",
		"mov rbp, rsp",
		"call qword ptr [rip+0xff6]", // 0x1000+10+0xff6 = 0x2000
		"add rax, 0x3e8",
		"pop rbp",
		"ret")
	checkDisasm(t, "call cell abs", codeCallCellAbs(0x123456789a), 0,
		"push rbp",
		"mov rbp, rsp",
		"mov r11, 0x123456789a",
		"call qword ptr [r11]",
		"add rax, 0x3e8",
		"pop rbp",
		"ret")
	checkDisasm(t, "regs", codeRegs(), 0,
		"push rbp",
		"mov eax, 0x100",
		"mov ecx, 0x101",
		"mov edx, 0x102",
		"mov ebx, 0x103",
		"mov ebp, 0x105",
		"mov esi, 0x106",
		"mov edi, 0x107",
		"mov r8d, 0x108",
		"mov r9d, 0x109",
		"mov r10d, 0x10a",
		"mov r11d, 0x10b",
		"mov r12d, 0x10c",
		"mov r13d, 0x10d",
		"mov r14d, 0x10e",
		"movq xmm0, rax",
		"movq xmm1, rcx",
		"movq xmm2, rdx",
		"movq xmm3, rbx",
		"movq xmm4, r12",
		"movq xmm5, rbp",
		"movq xmm6, rsi",
		"movq xmm7, rdi",
		"mov qword ptr [r15+0x10], 0x11",
		"call qword ptr [r15+0x20]",
		"mov qword ptr [r15+0x10], 0x12",
		"call qword ptr [r15+0x20]",
		"pop rbp",
		"ret")
}

// TestEncoderForms checks the encoder's displacement forms (zero, 8-bit,
// 32-bit, negative) and the extended registers.
func TestEncoderForms(t *testing.T) {
	var a asmbuf
	a.store(0, regRAX)
	a.store(8, regR14)
	a.store(-8, regRSP)
	a.store(0x200, regRBP)
	a.load(regR9, 0x7f)
	a.load(regRDI, 0x80)
	a.storeX(0, 7)
	a.loadX(3, 0x100)
	a.popMem(8)
	a.storeImm(0x18, -1)
	a.callMem(0x20)
	a.jmpMem(0x80)
	checkDisasm(t, "forms", a.b, 0,
		"mov qword ptr [r15], rax",
		"mov qword ptr [r15+0x8], r14",
		"mov qword ptr [r15-0x8], rsp",
		"mov qword ptr [r15+0x200], rbp",
		"mov r9, qword ptr [r15+0x7f]",
		"mov rdi, qword ptr [r15+0x80]",
		"movq qword ptr [r15], xmm7",
		"movq xmm3, qword ptr [r15+0x100]",
		"pop qword ptr [r15+0x8]",
		"mov qword ptr [r15+0x18], -0x1",
		"call qword ptr [r15+0x20]",
		"jmp qword ptr [r15+0x80]")
}
