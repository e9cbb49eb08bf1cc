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
		"movsd qword ptr [r15+0x100], xmm0",
		"movsd qword ptr [r15+0x108], xmm1",
		"movsd qword ptr [r15+0x110], xmm2",
		"movsd qword ptr [r15+0x118], xmm3",
		"movsd qword ptr [r15+0x120], xmm4",
		"movsd qword ptr [r15+0x128], xmm5",
		"movsd qword ptr [r15+0x130], xmm6",
		"movsd qword ptr [r15+0x138], xmm7",
		"movsd qword ptr [r15+0x140], xmm8",
		"movsd qword ptr [r15+0x148], xmm9",
		"movsd qword ptr [r15+0x150], xmm10",
		"movsd qword ptr [r15+0x158], xmm11",
		"movsd qword ptr [r15+0x160], xmm12",
		"movsd qword ptr [r15+0x168], xmm13",
		"movsd qword ptr [r15+0x170], xmm14",
		"movsd qword ptr [r15+0x178], xmm15",
		"mov rsp, qword ptr [r15+0x180]",
		"mov rbp, qword ptr [r15+0x188]",
		"ret",
	}
	checkDisasm(t, "exit stub", heapBytes(h.exitStub, int(h.pollStub-h.exitStub)), uint64(h.exitStub), exit...)

	e := fmt.Sprintf("%#x", h.exitStub)
	checkDisasm(t, "poll stub", heapBytes(h.pollStub, int(h.overflowStub-h.pollStub)), uint64(h.pollStub),
		"mov qword ptr [r15+0x10], 0x2", "jmp "+e)
	checkDisasm(t, "overflow stub", heapBytes(h.overflowStub, int(h.returnStub-h.overflowStub)), uint64(h.overflowStub),
		"mov qword ptr [r15+0x10], 0x3", "jmp "+e)
	// mov (8 bytes), call rel32 (5), jmp back rel8 (2).
	checkDisasm(t, "return stub", heapBytes(h.returnStub, 15), uint64(h.returnStub),
		"mov qword ptr [r15+0x10], 0x1", "call "+e, fmt.Sprintf("jmp %#x", h.returnStub))

	c, err := h.NewCells(3)
	if err != nil {
		t.Fatal(err)
	}
	n := len(h.prestub)
	for i := 0; i < 3; i++ {
		p := c.Prestub(i)
		code := heapBytes(p, n)
		disp := int32(binary.LittleEndian.Uint32(code[n-4:]))
		if target := p + uintptr(n) + uintptr(disp); target != c.CellAddr(i) {
			t.Errorf("prestub %d jumps through %#x, want cell %#x", i, target, c.CellAddr(i))
		}
		checkDisasm(t, "prestub", code, uint64(p),
			fmt.Sprintf("mov qword ptr [r15+0x18], 0x%x", i),
			"mov qword ptr [r15+0x10], 0x4",
			"call qword ptr [r15+0x20]",
			fmt.Sprintf("jmp qword ptr [rip+%#x]", disp))
	}
}
