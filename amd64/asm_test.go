package amd64

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// The oracle for every encoding test is x86asm's decoding of the bytes,
// never bytes taken from golang-asm.

type emitter func(a *Assembler)

func ins(op Op, ops ...Operand) emitter { return func(a *Assembler) { a.I(op, ops...) } }

func seq(es ...emitter) emitter {
	return func(a *Assembler) {
		for _, e := range es {
			e(a)
		}
	}
}

// decodeAll decodes code completely; it fails the test on a decoding
// error.
func decodeAll(t *testing.T, code []byte) []x86asm.Inst {
	t.Helper()
	var out []x86asm.Inst
	for off := 0; off < len(code); {
		inst, err := x86asm.Decode(code[off:], 64)
		if err == nil && inst.Op == 0 {
			err = x86asm.ErrUnrecognized // a lone prefix
		}
		if err != nil {
			t.Fatalf("decode at %#x of % x: %v", off, code, err)
		}
		signExtendDisp(&inst)
		out = append(out, inst)
		off += inst.Len
	}
	return out
}

func assemble(t *testing.T, a *Assembler, e emitter) *Blob {
	t.Helper()
	a.Reset()
	e(a)
	b, err := a.Assemble()
	if err != nil {
		t.Fatalf("Assemble: %v", err)
	}
	return b
}

func intelText(t *testing.T, code []byte) string {
	t.Helper()
	var s []string
	for _, inst := range decodeAll(t, code) {
		s = append(s, x86asm.IntelSyntax(inst, 0, nil))
	}
	return strings.Join(s, "; ")
}

var encodingTests = []struct {
	e    emitter
	want string // Intel syntax as printed by x86asm; "; " between instructions
}{
	// Integer moves.
	{ins(MOVQ, R(RBX), R(RAX)), "mov rax, rbx"},
	{ins(MOVQ, R(R15), R(R8)), "mov r8, r15"},
	{ins(MOVQ, Mem(RBX, 8), R(RAX)), "mov rax, qword ptr [rbx+0x8]"},
	{ins(MOVQ, R(RAX), Mem(RBP, -8)), "mov qword ptr [rbp-0x8], rax"},
	{ins(MOVQ, Mem(RBP, 0), R(RCX)), "mov rcx, qword ptr [rbp]"},
	{ins(MOVQ, Mem(R13, 0), R(RCX)), "mov rcx, qword ptr [r13]"},
	{ins(MOVQ, Mem(RSP, 0), R(RCX)), "mov rcx, qword ptr [rsp]"},
	{ins(MOVQ, Mem(R12, 24), R(RCX)), "mov rcx, qword ptr [r12+0x18]"},
	{ins(MOVQ, Mem(RAX, 0x12345678), R(RDX)), "mov rdx, qword ptr [rax+0x12345678]"},
	{ins(MOVQ, Mem(RAX, -0x1000), R(RDX)), "mov rdx, qword ptr [rax-0x1000]"},
	{ins(MOVQ, MemIdx(RAX, RCX, 8, 16), R(RDX)), "mov rdx, qword ptr [rax+8*rcx+0x10]"},
	{ins(MOVQ, MemIdx(RBP, R13, 2, 0), R(RDX)), "mov rdx, qword ptr [rbp+2*r13]"},
	{ins(MOVQ, MemIdx(R12, R9, 1, -4), R(R11)), "mov r11, qword ptr [r12+r9-0x4]"},
	{ins(MOVQ, R(R9), MemIdx(RSP, RAX, 4, 8)), "mov qword ptr [rsp+4*rax+0x8], r9"},
	{ins(MOVQ, Imm(7), R(RAX)), "mov rax, 0x7"},
	{ins(MOVQ, Imm(-1), R(RAX)), "mov rax, -0x1"},
	{ins(MOVQ, Imm(1<<40), R(R10)), "mov r10, 0x10000000000"},
	{ins(MOVQ, Imm(-1<<63), R(RBX)), "mov rbx, 0x8000000000000000"},
	{ins(MOVQ, Imm(0x80000000), R(RBX)), "mov ebx, -0x80000000"}, // zero-extends: RBX = 0x80000000
	{ins(MOVQ, Imm(-0x80000000), Mem(RAX, 0)), "mov qword ptr [rax], -0x80000000"},
	{ins(MOVQ, Imm(7), Mem(RSP, 16)), "mov qword ptr [rsp+0x10], 0x7"},
	{ins(MOVQ, R(X1), R(RAX)), "movq rax, xmm1"},
	{ins(MOVQ, R(RAX), R(X1)), "movq xmm1, rax"},
	{ins(MOVQ, R(X15), R(R15)), "movq r15, xmm15"},
	{ins(MOVL, R(RBX), R(RAX)), "mov eax, ebx"},
	{ins(MOVL, Mem(RBX, 4), R(R8)), "mov r8d, dword ptr [rbx+0x4]"},
	{ins(MOVL, R(R9), Mem(RDI, 12)), "mov dword ptr [rdi+0xc], r9d"},
	{ins(MOVL, Imm(-1), R(RAX)), "mov eax, -0x1"},
	{ins(MOVL, Imm(5), Mem(RAX, 0)), "mov dword ptr [rax], 0x5"},
	{ins(MOVL, Imm(0xffffffff), Mem(RAX, 0)), "mov dword ptr [rax], -0x1"},
	{ins(MOVL, R(X2), R(RCX)), "movd ecx, xmm2"},
	{ins(MOVL, R(RCX), R(X2)), "movd xmm2, ecx"},
	{ins(MOVW, R(RAX), Mem(RBX, 2)), "mov word ptr [rbx+0x2], ax"},
	{ins(MOVW, Imm(0x1234), Mem(RBX, 2)), "mov word ptr [rbx+0x2], 0x1234"},
	{ins(MOVW, Imm(0xffff), Mem(RBX, 2)), "mov word ptr [rbx+0x2], -0x1"},
	{ins(MOVB, R(RSI), Mem(RDI, 0)), "mov byte ptr [rdi], sil"},
	{ins(MOVB, R(RDI), Mem(R12, 0)), "mov byte ptr [r12], dil"},
	{ins(MOVB, R(RAX), Mem(RCX, 3)), "mov byte ptr [rcx+0x3], al"},
	{ins(MOVB, R(R10), Mem(RCX, 3)), "mov byte ptr [rcx+0x3], r10b"},
	{ins(MOVB, Imm(5), Mem(RDI, 1)), "mov byte ptr [rdi+0x1], 0x5"},
	{ins(MOVB, Imm(255), Mem(RDI, 1)), "mov byte ptr [rdi+0x1], 0xff"},
	{ins(MOVB, Imm(-128), R(RCX)), "mov cl, 0x80"},
	{ins(MOVBLSX, Mem(RAX, 0), R(RCX)), "movsx ecx, byte ptr [rax]"},
	{ins(MOVBLZX, R(RSI), R(RAX)), "movzx eax, sil"},
	{ins(MOVBLZX, Mem(RAX, 1), R(R9)), "movzx r9d, byte ptr [rax+0x1]"},
	{ins(MOVBQSX, R(RCX), R(RAX)), "movsx rax, cl"},
	{ins(MOVBQZX, Mem(RAX, 0), R(RAX)), "movzx rax, byte ptr [rax]"},
	{ins(MOVWLSX, Mem(RAX, 2), R(RCX)), "movsx ecx, word ptr [rax+0x2]"},
	{ins(MOVWLZX, R(RDX), R(RAX)), "movzx eax, dx"},
	{ins(MOVWQSX, R(RDX), R(RAX)), "movsx rax, dx"},
	{ins(MOVWQZX, Mem(R8, 0), R(RAX)), "movzx rax, word ptr [r8]"},
	{ins(MOVLQSX, R(RAX), R(RCX)), "movsxd rcx, eax"},
	{ins(MOVLQSX, Mem(RBP, -4), R(RCX)), "movsxd rcx, dword ptr [rbp-0x4]"},
	{ins(MOVLQZX, Mem(RBP, -4), R(RCX)), "mov ecx, dword ptr [rbp-0x4]"},
	{ins(LEAQ, Mem(RBP, -32), R(RDI)), "lea rdi, ptr [rbp-0x20]"},
	{ins(LEAQ, MemIdx(RAX, RBX, 4, 1), R(RCX)), "lea rcx, ptr [rax+4*rbx+0x1]"},
	{ins(LEAL, MemIdx(RAX, RAX, 2, 0), R(RCX)), "lea ecx, ptr [rax+2*rax]"},
	{ins(XCHGQ, R(RCX), R(RBX)), "xchg rbx, rcx"},
	{ins(XCHGL, R(RCX), Mem(RDI, 0)), "xchg dword ptr [rdi], ecx"},
	{ins(PUSHQ, R(RBP)), "push rbp"},
	{ins(PUSHQ, R(R12)), "push r12"},
	{ins(PUSHQ, Imm(1)), "push 0x1"},
	{ins(PUSHQ, Mem(RAX, 8)), "push qword ptr [rax+0x8]"},
	{ins(POPQ, R(RBP)), "pop rbp"},
	{ins(LEAVEQ), "leave"},
	{ins(POPQ, R(R15)), "pop r15"},

	// Integer arithmetic.
	{ins(ADDQ, R(RBX), R(RAX)), "add rax, rbx"},
	{ins(ADDQ, Imm(1), R(RAX)), "add rax, 0x1"},
	{ins(ADDQ, Imm(0x7fffffff), R(RAX)), "add rax, 0x7fffffff"},
	{ins(ADDQ, Imm(-0x80000000), R(RAX)), "add rax, -0x80000000"},
	{ins(IMULQ, Imm(12), R(RAX)), "imul rax, rax, 0xc"},
	{ins(ADDQ, Imm(1000), R(R11)), "add r11, 0x3e8"},
	{ins(ADDQ, Imm(-128), R(RSP)), "add rsp, -0x80"},
	{ins(ADDQ, Mem(RBP, -8), R(RAX)), "add rax, qword ptr [rbp-0x8]"},
	{ins(ADDQ, R(RAX), Mem(RBP, -8)), "add qword ptr [rbp-0x8], rax"},
	{ins(ADDQ, Imm(3), Mem(RBP, -8)), "add qword ptr [rbp-0x8], 0x3"},
	{ins(ADDL, R(RBX), R(RAX)), "add eax, ebx"},
	{ins(ADDL, Imm(100000), R(R8)), "add r8d, 0x186a0"},
	{ins(ADDL, Imm(0xffffffff), R(R8)), "add r8d, -0x1"},
	{ins(ADCQ, R(RBX), R(RAX)), "adc rax, rbx"},
	{ins(ADCL, Imm(0), R(RDX)), "adc edx, 0x0"},
	{ins(SUBQ, Imm(32), R(RSP)), "sub rsp, 0x20"},
	{ins(SUBQ, R(RCX), R(RAX)), "sub rax, rcx"},
	{ins(SUBL, Mem(RSI, 4), R(RAX)), "sub eax, dword ptr [rsi+0x4]"},
	{ins(SBBQ, R(RBX), R(RAX)), "sbb rax, rbx"},
	{ins(SBBL, R(RBX), R(RAX)), "sbb eax, ebx"},
	{ins(IMULQ, R(RBX), R(RAX)), "imul rax, rbx"},
	{ins(IMULQ, Mem(RBP, -16), R(RCX)), "imul rcx, qword ptr [rbp-0x10]"},
	{ins(IMULQ, R(RCX)), "imul rcx"},
	{ins(IMULL, R(R9), R(RAX)), "imul eax, r9d"},
	{ins(IMUL3Q, Imm(10), R(RBX), R(RAX)), "imul rax, rbx, 0xa"},
	{ins(IMUL3Q, Imm(1000), Mem(RSI, 0), R(RDX)), "imul rdx, qword ptr [rsi], 0x3e8"},
	{ins(IMUL3L, Imm(3), R(RCX), R(RCX)), "imul ecx, ecx, 0x3"},
	{ins(MULQ, R(RCX)), "mul rcx"},
	{ins(MULL, Mem(RAX, 0)), "mul dword ptr [rax]"},
	{ins(IDIVQ, R(RCX)), "idiv rcx"},
	{ins(IDIVQ, Mem(RBP, -8)), "idiv qword ptr [rbp-0x8]"},
	{ins(IDIVL, R(R9)), "idiv r9d"},
	{ins(DIVQ, R(RBX)), "div rbx"},
	{ins(DIVL, R(RBX)), "div ebx"},
	{ins(CQO), "cqo"},
	{ins(CDQ), "cdq"},
	{ins(NEGQ, R(RAX)), "neg rax"},
	{ins(NEGL, R(R10)), "neg r10d"},
	{ins(NOTQ, Mem(RAX, 8)), "not qword ptr [rax+0x8]"},
	{ins(NOTL, R(RCX)), "not ecx"},
	{ins(INCQ, Mem(R14, 8)), "inc qword ptr [r14+0x8]"},
	{ins(INCL, R(RAX)), "inc eax"},
	{ins(DECQ, Mem(R14, 8)), "dec qword ptr [r14+0x8]"},
	{ins(DECL, Mem(R14, 8)), "dec dword ptr [r14+0x8]"},

	// Logic, shifts, comparisons.
	{ins(ANDQ, Imm(0xff), R(RAX)), "and rax, 0xff"},
	{ins(ANDQ, R(RCX), Mem(RDX, 0)), "and qword ptr [rdx], rcx"},
	{ins(ANDL, Imm(-16), R(RSP)), "and esp, -0x10"},
	{ins(ORQ, R(RBX), R(RAX)), "or rax, rbx"},
	{ins(ORL, Imm(1), R(RAX)), "or eax, 0x1"},
	{ins(XORQ, R(R8), R(R9)), "xor r9, r8"},
	{ins(XORL, R(RAX), R(RAX)), "xor eax, eax"},
	{ins(SHLQ, Imm(3), R(RAX)), "shl rax, 0x3"},
	{ins(SHLQ, R(RCX), R(RDX)), "shl rdx, cl"},
	{ins(SHLL, R(RCX), R(R8)), "shl r8d, cl"},
	{ins(SARQ, Imm(63), R(RAX)), "sar rax, 0x3f"},
	{ins(SHRL, Imm(31), R(RAX)), "shr eax, 0x1f"},
	{ins(SHLQ, Imm(1), R(RAX)), "shl rax, 0x1"},
	{ins(SARQ, R(RCX), Mem(RBP, -8)), "sar qword ptr [rbp-0x8], cl"},
	{ins(SARL, Imm(1), R(RAX)), "sar eax, 0x1"},
	{ins(SHRQ, Imm(2), R(RBX)), "shr rbx, 0x2"},
	{ins(SHRL, R(RCX), R(RBX)), "shr ebx, cl"},
	{ins(CMPQ, R(RAX), R(RBX)), "cmp rax, rbx"},
	{ins(CMPQ, R(RAX), Imm(5)), "cmp rax, 0x5"},
	{ins(CMPQ, R(R12), Imm(100000)), "cmp r12, 0x186a0"},
	{ins(CMPQ, Mem(RDI, 8), Imm(0)), "cmp qword ptr [rdi+0x8], 0x0"},
	{ins(CMPQ, R(RAX), Mem(RDI, 8)), "cmp rax, qword ptr [rdi+0x8]"},
	{ins(CMPL, R(RAX), R(RBX)), "cmp eax, ebx"},
	{ins(CMPL, Mem(RDI, 8), Imm(-1)), "cmp dword ptr [rdi+0x8], -0x1"},
	{ins(CMPW, Mem(RDI, 0), Imm(7)), "cmp word ptr [rdi], 0x7"},
	{ins(CMPB, Mem(RDI, 0), Imm(7)), "cmp byte ptr [rdi], 0x7"},
	{ins(CMPB, R(RSI), R(RDI)), "cmp sil, dil"},
	{ins(TESTQ, R(RAX), R(RAX)), "test rax, rax"},
	{ins(TESTQ, Imm(8), R(RCX)), "test rcx, 0x8"},
	{ins(TESTL, R(RDX), R(RDX)), "test edx, edx"},
	{ins(TESTB, Imm(1), R(RAX)), "test al, 0x1"},
	{ins(TESTB, Imm(1), Mem(RAX, 2)), "test byte ptr [rax+0x2], 0x1"},
	{ins(SETEQ, Mem(RBP, -1)), "setz byte ptr [rbp-0x1]"},
	{ins(SETLT, R(RDI)), "setl dil"},
	{ins(SETHI, R(R11)), "setnbe r11b"},
	{ins(CMOVQLT, Mem(RBP, -16), R(R9)), "cmovl r9, qword ptr [rbp-0x10]"},
	{ins(CMOVLEQ, R(RCX), R(RAX)), "cmovz eax, ecx"},

	// Control transfer through registers and memory.
	{ins(JMP, R(RAX)), "jmp rax"},
	{ins(JMP, Mem(RAX, 8)), "jmp qword ptr [rax+0x8]"},
	{ins(JMP, MemIdx(RAX, RCX, 8, 0)), "jmp qword ptr [rax+8*rcx]"},
	{ins(CALL, R(R11)), "call r11"},
	{ins(CALL, Mem(RDI, 16)), "call qword ptr [rdi+0x10]"},
	{ins(RET), "ret"},

	// SSE.
	{ins(MOVSD, Mem(RBP, -8), R(X0)), "movsd xmm0, qword ptr [rbp-0x8]"},
	{ins(MOVSD, R(X1), Mem(RSP, 0)), "movsd qword ptr [rsp], xmm1"},
	{ins(MOVSD, R(X1), R(X2)), "movsd xmm2, xmm1"},
	{ins(MOVSD, R(X9), R(X15)), "movsd xmm15, xmm9"},
	{ins(MOVSS, Mem(RAX, 4), R(X3)), "movss xmm3, dword ptr [rax+0x4]"},
	{ins(MOVSS, R(X8), Mem(R8, 0)), "movss dword ptr [r8], xmm8"},
	{ins(MOVAPS, R(X1), R(X9)), "movaps xmm9, xmm1"},
	{ins(MOVAPS, R(X12), R(X0)), "movaps xmm0, xmm12"},
	{ins(MOVQ, R(RAX), R(X8)), "movq xmm8, rax"},
	{ins(MOVQ, R(X13), R(RSI)), "movq rsi, xmm13"},
	{ins(XORPS, R(X10), R(X10)), "xorps xmm10, xmm10"},
	{ins(CVTSL2SD, R(R12), R(X0)), "cvtsi2sd xmm0, r12d"},
	{ins(CVTTSD2SQ, R(X11), R(RAX)), "cvttsd2si rax, xmm11"},
	{ins(UCOMISD, R(X14), R(X0)), "ucomisd xmm0, xmm14"},
	{ins(MOVLQSX, R(R13), R(RAX)), "movsxd rax, r13d"},
	{ins(IDIVL, R(R14)), "idiv r14d"},
	{ins(IMULQ, R(R10), R(RAX)), "imul rax, r10"},
	{ins(MOVUPS, Mem(RSI, 0), R(X0)), "movups xmm0, xmmword ptr [rsi]"},
	{ins(ADDSD, R(X1), R(X0)), "addsd xmm0, xmm1"},
	{ins(ADDSD, Mem(RAX, 0), R(X0)), "addsd xmm0, qword ptr [rax]"},
	{ins(SUBSD, R(X1), R(X0)), "subsd xmm0, xmm1"},
	{ins(MULSD, R(X10), R(X0)), "mulsd xmm0, xmm10"},
	{ins(DIVSD, R(X1), R(X11)), "divsd xmm11, xmm1"},
	{ins(ADDSS, R(X1), R(X0)), "addss xmm0, xmm1"},
	{ins(SUBSS, Mem(RBP, -4), R(X0)), "subss xmm0, dword ptr [rbp-0x4]"},
	{ins(MULSS, R(X1), R(X0)), "mulss xmm0, xmm1"},
	{ins(DIVSS, R(X1), R(X0)), "divss xmm0, xmm1"},
	{ins(SQRTSD, R(X1), R(X0)), "sqrtsd xmm0, xmm1"},
	{ins(SQRTSS, R(X1), R(X0)), "sqrtss xmm0, xmm1"},
	{ins(MINSD, R(X1), R(X0)), "minsd xmm0, xmm1"},
	{ins(MAXSD, R(X1), R(X0)), "maxsd xmm0, xmm1"},
	{ins(MINSS, R(X1), R(X0)), "minss xmm0, xmm1"},
	{ins(MAXSS, R(X1), R(X0)), "maxss xmm0, xmm1"},
	{ins(UCOMISD, R(X1), R(X0)), "ucomisd xmm0, xmm1"},
	{ins(UCOMISD, Mem(RBP, -8), R(X0)), "ucomisd xmm0, qword ptr [rbp-0x8]"},
	{ins(UCOMISS, R(X1), R(X0)), "ucomiss xmm0, xmm1"},
	{ins(COMISD, R(X1), R(X0)), "comisd xmm0, xmm1"},
	{ins(COMISS, R(X1), R(X0)), "comiss xmm0, xmm1"},
	{ins(CVTSQ2SD, R(RAX), R(X0)), "cvtsi2sd xmm0, rax"},
	{ins(CVTSQ2SD, Mem(RBP, -8), R(X1)), "cvtsi2sd xmm1, qword ptr [rbp-0x8]"},
	{ins(CVTSL2SD, R(RAX), R(X0)), "cvtsi2sd xmm0, eax"},
	{ins(CVTSQ2SS, R(R9), R(X2)), "cvtsi2ss xmm2, r9"},
	{ins(CVTSL2SS, R(RAX), R(X12)), "cvtsi2ss xmm12, eax"},
	{ins(CVTTSD2SQ, R(X0), R(RAX)), "cvttsd2si rax, xmm0"},
	{ins(CVTTSD2SL, R(X0), R(RAX)), "cvttsd2si eax, xmm0"},
	{ins(CVTTSS2SQ, R(X3), R(R10)), "cvttss2si r10, xmm3"},
	{ins(CVTTSS2SL, R(X3), R(RCX)), "cvttss2si ecx, xmm3"},
	{ins(CVTSD2SS, R(X0), R(X1)), "cvtsd2ss xmm1, xmm0"},
	{ins(CVTSS2SD, R(X0), R(X1)), "cvtss2sd xmm1, xmm0"},
	{ins(XORPS, R(X0), R(X0)), "xorps xmm0, xmm0"},
	{ins(XORPD, R(X1), R(X0)), "xorpd xmm0, xmm1"},
	{ins(ANDPS, R(X1), R(X0)), "andps xmm0, xmm1"},
	{ins(ANDPD, Mem(RAX, 0), R(X0)), "andpd xmm0, xmmword ptr [rax]"},
	{ins(ANDNPS, R(X1), R(X0)), "andnps xmm0, xmm1"},
	{ins(ANDNPD, R(X1), R(X0)), "andnpd xmm0, xmm1"},
	{ins(ORPS, R(X1), R(X0)), "orps xmm0, xmm1"},
	{ins(ORPD, R(X1), R(X0)), "orpd xmm0, xmm1"},
	{ins(ROUNDSD, Imm(3), R(X1), R(X2)), "roundsd xmm2, xmm1, 0x3"},
	{ins(ROUNDSS, Imm(1), R(X1), R(X2)), "roundss xmm2, xmm1, 0x1"},

	// Miscellaneous.
	{ins(INT3), "int3"},
	{ins(UD2), "ud2"},
	{ins(PAUSE), "pause"},
	{ins(MFENCE), "mfence"},
	{seq(ins(REP), ins(STOSQ)), "rep stosq qword ptr [rdi]"},
	{seq(ins(REP), ins(MOVSQ)), "rep movsq qword ptr [rdi], qword ptr [rsi]"},
	{seq(ins(LOCK), ins(XADDQ, R(RAX), Mem(RDI, 0))), "lock xadd qword ptr [rdi], rax"},
	{ins(XADDL, R(RCX), Mem(RDI, 4)), "xadd dword ptr [rdi+0x4], ecx"},
	{seq(ins(LOCK), ins(CMPXCHGQ, R(RCX), Mem(RDI, 0))), "lock cmpxchg qword ptr [rdi], rcx"},
	{ins(CMPXCHGL, R(RCX), Mem(RDI, 0)), "cmpxchg dword ptr [rdi], ecx"},
	{func(a *Assembler) { a.Bytes(0x0f, 0x0b) }, "ud2"},
	{func(a *Assembler) { a.I(NOP); a.I(RET) }, "ret"},
}

func TestEncodings(t *testing.T) {
	a := NewAssembler()
	for i, tc := range encodingTests {
		a.Reset()
		tc.e(a)
		b, err := a.Assemble()
		if err != nil {
			t.Errorf("#%d (%s): %v", i, tc.want, err)
			continue
		}
		if got := intelText(t, b.Code); got != tc.want {
			t.Errorf("#%d: got %q, want %q (% x)", i, got, tc.want, b.Code)
		}
	}
}

// Every condition of SETcc, CMOVQcc, CMOVLcc and Jcc, against x86asm's
// opcodes (an independent naming of the conditions).
func TestConditions(t *testing.T) {
	type want struct{ set, cmov, j x86asm.Op }
	wants := map[Cond]want{
		CondEQ: {x86asm.SETE, x86asm.CMOVE, x86asm.JE},
		CondNE: {x86asm.SETNE, x86asm.CMOVNE, x86asm.JNE},
		CondLT: {x86asm.SETL, x86asm.CMOVL, x86asm.JL},
		CondGE: {x86asm.SETGE, x86asm.CMOVGE, x86asm.JGE},
		CondLE: {x86asm.SETLE, x86asm.CMOVLE, x86asm.JLE},
		CondGT: {x86asm.SETG, x86asm.CMOVG, x86asm.JG},
		CondB:  {x86asm.SETB, x86asm.CMOVB, x86asm.JB},
		CondAE: {x86asm.SETAE, x86asm.CMOVAE, x86asm.JAE},
		CondBE: {x86asm.SETBE, x86asm.CMOVBE, x86asm.JBE},
		CondA:  {x86asm.SETA, x86asm.CMOVA, x86asm.JA},
		CondMI: {x86asm.SETS, x86asm.CMOVS, x86asm.JS},
		CondPL: {x86asm.SETNS, x86asm.CMOVNS, x86asm.JNS},
		CondOS: {x86asm.SETO, x86asm.CMOVO, x86asm.JO},
		CondOC: {x86asm.SETNO, x86asm.CMOVNO, x86asm.JNO},
		CondPS: {x86asm.SETP, x86asm.CMOVP, x86asm.JP},
		CondPC: {x86asm.SETNP, x86asm.CMOVNP, x86asm.JNP},
	}
	if len(wants) != 16 {
		t.Fatal("want 16 conditions")
	}
	a := NewAssembler()
	one := func(e emitter) x86asm.Inst {
		t.Helper()
		b := assemble(t, a, e)
		insts := decodeAll(t, b.Code)
		return insts[0]
	}
	for c, w := range wants {
		if c.Not().Not() != c || c.Not() == c {
			t.Errorf("%v.Not() = %v", c, c.Not())
		}
		if inst := one(ins(c.SETcc(), R(RBX))); inst.Op != w.set || inst.Args[0] != x86asm.BL {
			t.Errorf("%v: %v, want %v bl", c.SETcc(), inst, w.set)
		}
		if inst := one(ins(c.CMOVQ(), R(RBX), R(RAX))); inst.Op != w.cmov || inst.Args[0] != x86asm.RAX || inst.Args[1] != x86asm.RBX {
			t.Errorf("%v: %v, want %v rax, rbx", c.CMOVQ(), inst, w.cmov)
		}
		if inst := one(ins(c.CMOVL(), Mem(RSI, 0), R(RDX))); inst.Op != w.cmov || inst.Args[0] != x86asm.EDX || inst.MemBytes != 4 {
			t.Errorf("%v: %v, want %v edx, dword", c.CMOVL(), inst, w.cmov)
		}
		inst := one(func(a *Assembler) {
			l := a.NewLabel()
			a.Bind(l)
			a.Jump(c.Jcc(), l)
		})
		if inst.Op != w.j || inst.Args[0] != x86asm.Rel(-2) {
			t.Errorf("%v: %v, want %v .-2", c.Jcc(), inst, w.j)
		}
		// The negated condition's jump must be the x86 negation.
		if neg := wants[c.Not()].j; neg == w.j {
			t.Errorf("%v.Not() jumps like %v", c, c)
		}
	}
	// Swap: a < b iff b > a.
	for _, p := range [][2]Cond{{CondLT, CondGT}, {CondLE, CondGE}, {CondB, CondA}, {CondBE, CondAE}, {CondEQ, CondEQ}, {CondNE, CondNE}} {
		if p[0].Swap() != p[1] || p[1].Swap() != p[0] {
			t.Errorf("Swap %v <-> %v", p[0], p[1])
		}
	}
}

// target returns the branch target of a relative jump/call at off, or of a
// RIP-relative memory operand.
func target(t *testing.T, code []byte, off int) (x86asm.Inst, int) {
	t.Helper()
	inst, err := x86asm.Decode(code[off:], 64)
	if err != nil {
		t.Fatalf("decode at %#x: %v", off, err)
	}
	for _, arg := range inst.Args {
		switch x := arg.(type) {
		case x86asm.Rel:
			return inst, off + inst.Len + int(x)
		case x86asm.Mem:
			if x.Base == x86asm.RIP {
				return inst, off + inst.Len + int(int32(x.Disp))
			}
		}
	}
	t.Fatalf("no target in %v at %#x", inst, off)
	return inst, 0
}

func filler(a *Assembler, n int) {
	for i := 0; i < n; i++ {
		a.I(INT3)
	}
}

func TestBranches(t *testing.T) {
	a := NewAssembler()
	for _, tc := range []struct {
		name     string
		op       Op
		forward  bool
		gap      int
		wantOp   x86asm.Op
		wantSize int
	}{
		{"jmp forward short", JMP, true, 10, x86asm.JMP, 2},
		{"jmp forward short max", JMP, true, 127, x86asm.JMP, 2},
		{"jmp forward near", JMP, true, 128, x86asm.JMP, 5},
		{"jmp forward far", JMP, true, 100000, x86asm.JMP, 5},
		{"jmp back short", JMP, false, 10, x86asm.JMP, 2},
		{"jmp back short max", JMP, false, 126, x86asm.JMP, 2},
		{"jmp back near", JMP, false, 127, x86asm.JMP, 5},
		{"jmp back far", JMP, false, 100000, x86asm.JMP, 5},
		{"jlt forward short", JLT, true, 10, x86asm.JL, 2},
		{"jlt forward near", JLT, true, 300, x86asm.JL, 6},
		{"jhi back short", JHI, false, 10, x86asm.JA, 2},
		{"jhi back near", JHI, false, 300, x86asm.JA, 6},
		{"jps forward near", JPS, true, 1000, x86asm.JP, 6},
		{"jpc back short", JPC, false, 0, x86asm.JNP, 2},
		{"call forward", CALL, true, 10, x86asm.CALL, 5},
		{"call back", CALL, false, 10, x86asm.CALL, 5},
		{"call forward far", CALL, true, 1000, x86asm.CALL, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := assemble(t, a, func(a *Assembler) {
				l := a.NewLabel()
				a.I(NOP)
				if tc.forward {
					a.Jump(tc.op, l)
					filler(a, tc.gap)
					a.Bind(l)
					a.I(RET)
				} else {
					a.Bind(l)
					filler(a, tc.gap)
					a.Jump(tc.op, l)
					a.I(RET)
				}
			})
			jumpOff := 0
			if !tc.forward {
				jumpOff = tc.gap
			}
			inst, tgt := target(t, b.Code, jumpOff)
			if inst.Op != tc.wantOp || inst.Len != tc.wantSize {
				t.Errorf("got %v (%d bytes), want %v (%d bytes)", inst, inst.Len, tc.wantOp, tc.wantSize)
			}
			if tgt != b.Labels[0] {
				t.Errorf("target %#x, label at %#x", tgt, b.Labels[0])
			}
			want := 0
			if tc.forward {
				want = tc.wantSize + tc.gap
			}
			if b.Labels[0] != want {
				t.Errorf("label at %#x, want %#x", b.Labels[0], want)
			}
		})
	}
}

// Random programs mixing short and long jumps, calls, LabelAddr and marks:
// every reference must decode to its label's final offset, and every mark
// must be an instruction boundary of the instruction that followed it.
func TestRandomBranches(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	a := NewAssembler()
	conds := []Op{JMP, JEQ, JNE, JLT, JGE, JLE, JGT, JCS, JCC, JLS, JHI, JMI, JPL, JOS, JOC, JPS, JPC}
	for iter := 0; iter < 300; iter++ {
		a.Reset()
		nl := 1 + rng.Intn(20)
		labels := make([]Label, nl)
		for i := range labels {
			labels[i] = a.NewLabel()
		}
		bound := make([]bool, nl)
		type ref struct {
			insn int
			l    Label
		}
		var refs []ref
		var marks []int // instruction index following each mark
		nins := 0
		n := 20 + rng.Intn(300)
		for i := 0; i < n; i++ {
			switch r := rng.Intn(10); {
			case r == 0:
				if j := rng.Intn(nl); !bound[j] {
					a.Bind(labels[j])
					bound[j] = true
				}
			case r == 1:
				a.Mark()
				marks = append(marks, nins)
			case r <= 4:
				l := labels[rng.Intn(nl)]
				refs = append(refs, ref{nins, l})
				nins++
				switch rng.Intn(4) {
				case 0:
					a.I(LEAQ, LabelAddr(l), R(Reg(rng.Intn(16))))
				case 1:
					a.Jump(CALL, l)
				default:
					a.Jump(conds[rng.Intn(len(conds))], l)
				}
			default:
				// Filler of various sizes.
				nins++
				switch rng.Intn(4) {
				case 0:
					a.I(MOVQ, Imm(rng.Int63()), R(Reg(rng.Intn(16))))
				case 1:
					a.I(ADDQ, Imm(int64(rng.Intn(100000))), Mem(Reg(rng.Intn(16)), int32(rng.Intn(1000))))
				case 2:
					a.I(CMPQ, R(RAX), Imm(int64(rng.Intn(200))))
				default:
					a.I(MOVSD, Mem(RSP, 8), R(X5))
				}
			}
		}
		for j := range bound {
			if !bound[j] {
				a.Bind(labels[j])
			}
		}
		b, err := a.Assemble()
		if err != nil {
			t.Fatal(err)
		}
		var starts []int
		for off := 0; off < len(b.Code); {
			inst, err := x86asm.Decode(b.Code[off:], 64)
			if err != nil {
				t.Fatalf("iter %d: decode at %#x: %v", iter, off, err)
			}
			if inst.Op == x86asm.NOP {
				t.Fatalf("iter %d: NOP at %#x", iter, off)
			}
			starts = append(starts, off)
			off += inst.Len
		}
		if len(starts) != nins {
			t.Fatalf("iter %d: %d instructions decoded, %d emitted", iter, len(starts), nins)
		}
		starts = append(starts, len(b.Code))
		for _, r := range refs {
			_, tgt := target(t, b.Code, starts[r.insn])
			if tgt != b.Labels[r.l] {
				t.Fatalf("iter %d: instruction %d targets %#x, label L%d at %#x", iter, r.insn, tgt, r.l, b.Labels[r.l])
			}
		}
		for m, ni := range marks {
			if b.Marks[m] != starts[ni] {
				t.Fatalf("iter %d: mark %d at %#x, want %#x", iter, m, b.Marks[m], starts[ni])
			}
		}
	}
}

func TestLabelAddr(t *testing.T) {
	a := NewAssembler()
	var l, k Label
	b := assemble(t, a, func(a *Assembler) {
		l = a.NewLabel()
		k = a.NewLabel()
		a.Bind(k)
		a.I(LEAQ, LabelAddr(l), R(RAX))          // forward
		a.I(LEAQ, LabelAddr(l), R(R9))           // REX.R
		a.I(MOVSD, LabelAddr(l), R(X8))          // load the constant below
		a.I(CMPQ, LabelAddr(l), Imm(1000))       // imm32 after the displacement
		a.I(CMPB, LabelAddr(l), Imm(1))          // imm8 after the displacement
		a.I(MOVL, Imm(0x12345678), LabelAddr(k)) // imm32 store
		a.I(LEAQ, LabelAddr(k), R(RCX))          // backward
		a.I(JMP, LabelAddr(l))                   // indirect through memory
		filler(a, 200)
		a.Bind(l)
		a.Bytes(0, 0, 0, 0, 0, 0, 0xf0, 0x3f) // 1.0
	})
	lines, _ := Disassemble(b.Code, 0)
	wantTargets := []Label{l, l, l, l, l, k, k, l}
	wantText := []string{"lea rax", "lea r9", "movsd xmm8, qword ptr", "cmp qword ptr", "cmp byte ptr", "mov dword ptr", "lea rcx", "jmp qword ptr"}
	for i, want := range wantTargets {
		inst, tgt := target(t, b.Code, lines[i].Offset)
		if tgt != b.Labels[want] {
			t.Errorf("%v: target %#x, want %#x", inst, tgt, b.Labels[want])
		}
		if !strings.HasPrefix(lines[i].Text, wantText[i]) {
			t.Errorf("line %d: %q, want %q...", i, lines[i].Text, wantText[i])
		}
	}
	// The immediates that follow a patched displacement are intact.
	if !strings.HasSuffix(lines[3].Text, ", 0x3e8") || !strings.HasSuffix(lines[4].Text, ", 0x1") || !strings.HasSuffix(lines[5].Text, ", 0x12345678") {
		t.Errorf("immediates: %q %q %q", lines[3].Text, lines[4].Text, lines[5].Text)
	}
	if !bytes.Equal(b.Code[b.Labels[l]:], []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}) || b.Labels[l]+8 != len(b.Code) {
		t.Errorf("constant not at label: % x", b.Code[b.Labels[l]:])
	}
}

func TestMarksAndLabelsAtEdges(t *testing.T) {
	a := NewAssembler()
	var m0, m1, m2, m3 MarkID
	var l0, l1, l2, unused Label
	b := assemble(t, a, func(a *Assembler) {
		l0, l1, l2, unused = a.NewLabel(), a.NewLabel(), a.NewLabel(), a.NewLabel()
		m0 = a.Mark()
		a.Bind(l0)
		a.I(PUSHQ, R(RBP))
		m1 = a.Mark()
		a.Jump(CALL, l2)
		m2 = a.Mark()
		a.Bind(l1)
		a.Jump(JMP, l2)
		a.Bind(l2)
		m3 = a.Mark()
	})
	// push rbp (1) call (5) jmp (2)
	if len(b.Code) != 8 {
		t.Fatalf("code % x", b.Code)
	}
	for _, c := range []struct{ got, want int }{
		{b.Marks[m0], 0}, {b.Marks[m1], 1}, {b.Marks[m2], 6}, {b.Marks[m3], 8},
		{b.Labels[l0], 0}, {b.Labels[l1], 6}, {b.Labels[l2], 8}, {b.Labels[unused], -1},
	} {
		if c.got != c.want {
			t.Errorf("got %d, want %d", c.got, c.want)
		}
	}
	if _, tgt := target(t, b.Code, 1); tgt != 8 {
		t.Errorf("call to %d", tgt)
	}
	if _, tgt := target(t, b.Code, 6); tgt != 8 {
		t.Errorf("jmp to %d", tgt)
	}

	// Empty blob.
	b = assemble(t, a, func(a *Assembler) { a.Bind(a.NewLabel()); a.Mark() })
	if len(b.Code) != 0 || b.Labels[0] != 0 || b.Marks[0] != 0 {
		t.Errorf("empty blob: %+v", b)
	}
}

func TestErrors(t *testing.T) {
	a := NewAssembler()
	for _, tc := range []struct {
		e     emitter
		index int
		op    Op
		msg   string
	}{
		{func(a *Assembler) { a.I(RET); a.Jump(JEQ, a.NewLabel()) }, 1, JEQ, "never bound"},
		{func(a *Assembler) { a.I(LEAQ, LabelAddr(a.NewLabel()), R(RAX)) }, 0, LEAQ, "never bound"},
		{func(a *Assembler) { a.Jump(CALL, a.NewLabel()) }, 0, CALL, "never bound"},
		{func(a *Assembler) { l := a.NewLabel(); a.Bind(l); a.I(RET); a.Bind(l) }, -1, badOp, "bound twice"},
		{func(a *Assembler) { a.Bind(Label(3)) }, -1, badOp, "unknown label"},
		{func(a *Assembler) { a.Jump(JMP, Label(3)) }, 0, JMP, "unknown label"},
		{func(a *Assembler) { a.I(RET); a.I(MOVQ, Imm(1), Imm(2)) }, 1, MOVQ, "invalid instruction"},
		{ins(MOVQ, Mem(RAX, 0), Mem(RBX, 0)), 0, MOVQ, "invalid instruction"},
		{ins(ADDQ, Imm(1<<40), R(RAX)), 0, ADDQ, "out of range"},
		{ins(MOVQ, Imm(1<<40), Mem(RAX, 0)), 0, MOVQ, "out of range"},
		{ins(MOVL, Imm(1<<40), R(RAX)), 0, MOVL, "out of range"},
		// golang-asm would sign-extend or truncate these silently.
		{ins(MOVQ, Imm(0x80000000), Mem(RAX, 0)), 0, MOVQ, "out of range"},
		{ins(ADDQ, Imm(0xffffffff), R(RAX)), 0, ADDQ, "out of range"},
		{ins(CMPQ, R(RAX), Imm(0x80000000)), 0, CMPQ, "out of range"},
		{ins(PUSHQ, Imm(1<<31)), 0, PUSHQ, "out of range"},
		{ins(IMUL3Q, Imm(1<<31), R(RAX), R(RAX)), 0, IMUL3Q, "out of range"},
		{ins(MOVB, Imm(300), R(RAX)), 0, MOVB, "out of range"},
		{ins(CMPW, R(RAX), Imm(70000)), 0, CMPW, "out of range"},
		{ins(SHLQ, Imm(64), R(RAX)), 0, SHLQ, "out of range"},
		{ins(SARL, Imm(32), R(RAX)), 0, SARL, "out of range"},
		{ins(SHRL, Imm(-1), R(RAX)), 0, SHRL, "out of range"},
		{ins(ROUNDSD, Imm(256), R(X0), R(X0)), 0, ROUNDSD, "out of range"},
		{ins(MOVSD, Imm(1), R(X0)), 0, MOVSD, "no immediate"},
		{ins(LEAQ, R(RAX), R(RBX)), 0, LEAQ, "invalid instruction"},
		{ins(SHLQ, R(RDX), R(RAX)), 0, SHLQ, "invalid instruction"},
		{ins(MOVSD, R(RAX), R(RBX)), 0, MOVSD, "invalid instruction"},
		{ins(ADDSD, R(X0), R(RAX)), 0, ADDSD, "invalid instruction"},
		{ins(PUSHQ, R(X0)), 0, PUSHQ, "invalid instruction"},
		{ins(IDIVQ, Imm(3)), 0, IDIVQ, "no immediate"},
		{ins(CMPQ, Imm(3), Imm(3)), 0, CMPQ, "invalid instruction"},
		{ins(SETEQ, Imm(3)), 0, SETEQ, "no immediate"},
		{ins(TESTQ, R(RAX), Imm(1)), 0, TESTQ, "invalid instruction"},
		{ins(IMUL3Q, R(RAX), R(RBX), R(RCX)), 0, IMUL3Q, "invalid instruction"},
		{ins(MOVQ, R(RAX), Operand{}), 0, MOVQ, "invalid (zero) operand"},
		{ins(MOVQ, R(RAX), R(Reg(40))), 0, MOVQ, "invalid register"},
		{ins(MOVQ, R(RAX), R(NoReg)), 0, MOVQ, "invalid register"},
		{ins(MOVQ, Mem(X0, 0), R(RAX)), 0, MOVQ, "memory base"},
		{ins(MOVQ, MemIdx(RAX, RSP, 1, 0), R(RAX)), 0, MOVQ, "index"},
		{ins(MOVQ, MemIdx(RAX, RBX, 3, 0), R(RAX)), 0, MOVQ, "scale"},
		{ins(MOVQ, R(RAX)), 0, MOVQ, "number of operands"},
		{ins(RET, R(RAX)), 0, RET, "number of operands"},
		{ins(JEQ, R(RAX)), 0, JEQ, "use Jump"},
		{ins(JMP, Imm(5)), 0, JMP, "use Jump"},
		{ins(Op(0)), 0, Op(0), "invalid op"},
		{ins(Op(9999)), 0, Op(9999), "invalid op"},
		{func(a *Assembler) { a.Jump(ADDQ, a.NewLabel()) }, 0, ADDQ, "Jump needs"},
		{func(a *Assembler) { l := a.NewLabel(); a.Bind(l); a.I(CMPQ, LabelAddr(l), LabelAddr(l)) }, 0, CMPQ, "more than one label"},
	} {
		a.Reset()
		tc.e(a)
		b, err := a.Assemble()
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("want error containing %q, got %v, %v", tc.msg, b, err)
			continue
		}
		if e.Index != tc.index || e.Op != tc.op || !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("got %v (index %d, op %v), want index %d op %v %q", e, e.Index, e.Op, tc.index, tc.op, tc.msg)
		}
		// The assembler is still usable.
		if got := intelText(t, assemble(t, a, ins(RET)).Code); got != "ret" {
			t.Errorf("after error: %q", got)
		}
	}
	// Assemble twice without Reset.
	a.Reset()
	a.I(RET)
	if _, err := a.Assemble(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Assemble(); err == nil {
		t.Error("second Assemble without Reset succeeded")
	}
}

// branchy emits a function with many short and long conditional branches.
func branchy(a asmAPI, n int) {
	top := a.NewLabel()
	out := a.NewLabel()
	a.Bind(top)
	for i := 0; i < n; i++ {
		skip := a.NewLabel()
		a.I(ADDQ, Imm(int64(i)), R(RAX))
		a.I(CMPQ, R(RAX), Imm(int64(i*7)))
		a.Jump(JLT, skip)
		a.I(MOVQ, Mem(RBP, int32(-8*(i%16))), R(RCX))
		a.I(TESTQ, R(RCX), R(RCX))
		a.Jump(JEQ, out)
		a.Bind(skip)
		if i%8 == 7 {
			a.Jump(JNE, top)
		}
	}
	a.Bind(out)
	a.I(RET)
}

func TestNoNopPadding(t *testing.T) {
	a := NewAssembler()
	b := assemble(t, a, func(a *Assembler) { branchy(a, 100) })
	for _, inst := range decodeAll(t, b.Code) {
		if inst.Op == x86asm.NOP {
			t.Fatalf("NOP in code:\n%s", Dump(b.Code))
		}
	}
	// Control: golang-asm (the oracle) with IsAsm off pads jumps with NOPs.
	pad := newGoAssembler()
	pad.ctxt.IsAsm = false
	pad.Reset()
	branchy(pad, 100)
	bp, err := pad.Assemble()
	if err != nil {
		t.Fatal(err)
	}
	nops := 0
	for _, inst := range decodeAll(t, bp.Code) {
		if inst.Op == x86asm.NOP {
			nops++
		}
	}
	t.Logf("branchy(100): %d bytes without padding, %d bytes with golang-asm's default padding (%d NOPs)", len(b.Code), len(bp.Code), nops)
	if nops == 0 || len(bp.Code) <= len(b.Code) {
		t.Errorf("control assembler did not pad: %d vs %d bytes", len(bp.Code), len(b.Code))
	}
}

func TestReuse(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	shared := NewAssembler()
	gen := func(seed int64) emitter {
		return func(a *Assembler) {
			r := rand.New(rand.NewSource(seed))
			branchy(a, 1+r.Intn(50))
			l := a.NewLabel()
			a.I(LEAQ, LabelAddr(l), R(RDX))
			a.Jump(CALL, l)
			a.Mark()
			a.Bind(l)
			a.I(MOVSD, Mem(RSP, 8), R(X1))
		}
	}
	for i := 0; i < 500; i++ {
		seed := rng.Int63()
		b1 := assemble(t, shared, gen(seed))
		b2 := assemble(t, NewAssembler(), gen(seed))
		if !bytes.Equal(b1.Code, b2.Code) || fmt.Sprint(b1.Labels, b1.Marks) != fmt.Sprint(b2.Labels, b2.Marks) {
			t.Fatalf("blob %d differs between a reused and a fresh Assembler", i)
		}
		// Blobs own their memory: a later blob must not overwrite this one.
		if i == 0 {
			defer func(code, saved []byte) {
				if !bytes.Equal(code, saved) {
					t.Error("blob 0 was overwritten by later blobs")
				}
			}(b1.Code, append([]byte(nil), b1.Code...))
		}
	}
}

func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	results := make([][]byte, 8)
	for g := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := NewAssembler()
			for i := 0; i < 50; i++ {
				a.Reset()
				branchy(a, 40)
				b, err := a.Assemble()
				if err != nil {
					t.Error(err)
					return
				}
				results[g] = b.Code
			}
		}()
	}
	wg.Wait()
	for g := range results {
		if !bytes.Equal(results[g], results[0]) {
			t.Errorf("goroutine %d produced different code", g)
		}
	}
}

func TestDisassemble(t *testing.T) {
	a := NewAssembler()
	b := assemble(t, a, seq(ins(PUSHQ, R(RBP)), ins(MOVQ, R(RSP), R(RBP)), ins(MOVQ, Mem(RBP, -8), R(RAX)), ins(RET)))
	lines, err := Disassemble(b.Code, 0x1000)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"push rbp", "mov rbp, rsp", "mov rax, qword ptr [rbp-0x8]", "ret"}
	off := 0
	for i, l := range lines {
		if l.Text != want[i] || l.Offset != off || !bytes.Equal(l.Bytes, b.Code[off:off+len(l.Bytes)]) {
			t.Errorf("line %d: %+v", i, l)
		}
		off += len(l.Bytes)
	}
	goLines, _ := DisassembleSyntax(b.Code, 0, GoSyntax)
	if goLines[2].Text != "MOVQ -0x8(BP), AX" {
		t.Errorf("Go syntax: %q", goLines[2].Text)
	}
	gnu, _ := DisassembleSyntax(b.Code, 0, GNU)
	if gnu[2].Text != "mov -0x8(%rbp),%rax" {
		t.Errorf("GNU syntax: %q", gnu[2].Text)
	}
	// Undecodable bytes: a truncated instruction.
	lines, err = Disassemble([]byte{0xc3, 0x48, 0x8b}, 0)
	if err == nil || len(lines) != 3 || lines[1].Text != "(bad)" || lines[0].Text != "ret" {
		t.Errorf("truncated: %v %+v", err, lines)
	}
	if d := Dump(b.Code); !strings.Contains(d, "mov rbp, rsp") || strings.Count(d, "\n") != 4 {
		t.Errorf("Dump:\n%s", d)
	}
}

func TestStrings(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{MOVQ.String(), "MOVQ"}, {CVTTSD2SQ.String(), "CVTTSD2SQ"}, {JPC.String(), "JPC"}, {INT3.String(), "INT3"},
		{CondHI.Jcc().String(), "JHI"}, {CondPS.SETcc().String(), "SETPS"}, {CondGE.CMOVQ().String(), "CMOVQGE"}, {CondOS.CMOVL().String(), "CMOVLOS"},
		{RAX.String(), "RAX"}, {R15.String(), "R15"}, {X7.String(), "X7"},
		{MemIdx(RAX, RBX, 8, -8).String(), "-8(RAX)(RBX*8)"}, {Imm(-3).String(), "$-3"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for op := Op(1); op < numOps; op++ {
		if opTable[op].name == "" || opTable[op].enc == encNone {
			t.Errorf("op %d has no table entry", op)
		}
	}
}

// Every op with every combination of operand kinds either assembles to
// bytes that decode completely or returns an error: no crash, no
// log.Fatalf (which would kill the test binary), no undecodable output.
func TestAllOperandCombinations(t *testing.T) {
	a := NewAssembler()
	kinds := []func(l Label) Operand{
		func(Label) Operand { return R(RAX) },
		func(Label) Operand { return R(RCX) },
		func(Label) Operand { return R(R9) },
		func(Label) Operand { return R(RSP) },
		func(Label) Operand { return R(X1) },
		func(Label) Operand { return R(X9) },
		func(Label) Operand { return Imm(1) },
		func(Label) Operand { return Imm(-200) },
		func(Label) Operand { return Imm(1 << 20) },
		func(Label) Operand { return Imm(1 << 40) },
		func(Label) Operand { return Mem(RBX, 8) },
		func(Label) Operand { return Mem(RBP, 0) },
		func(Label) Operand { return MemIdx(R12, R13, 4, -8) },
		func(l Label) Operand { return LabelAddr(l) },
	}
	ok, failed := 0, 0
	try := func(op Op, ks ...int) {
		a.Reset()
		l := a.NewLabel()
		ops := make([]Operand, len(ks))
		for i, k := range ks {
			ops[i] = kinds[k](l)
		}
		a.I(op, ops...)
		a.Bind(l)
		a.I(RET)
		b, err := a.Assemble()
		if err != nil {
			failed++
			return
		}
		ok++
		inst := decodeAll(t, b.Code)[0]
		if inst.Op == x86asm.NOP && (op == XCHGQ || op == XCHGL) {
			return // xchg of RAX with itself is 0x90 (see XCHGL)
		}
		// Every register and memory operand must be encoded as given (a
		// register of the wrong class would silently become another one).
		for _, o := range ops {
			if r, isReg := o.IsReg(); isReg && !hasReg(inst, r) {
				t.Errorf("%v %v: decoded %v", op, ops, x86asm.IntelSyntax(inst, 0, nil))
			}
			if o.kind == kindMem && !hasMem(inst, o) {
				t.Errorf("%v %v: decoded %v", op, ops, x86asm.IntelSyntax(inst, 0, nil))
			}
		}
	}
	for op := Op(1); op < numOps; op++ {
		try(op)
		for i := range kinds {
			try(op, i)
			for j := range kinds {
				try(op, i, j)
				if opTable[op].arity == ar3 {
					for k := range kinds {
						try(op, i, j, k)
					}
				}
			}
		}
	}
	t.Logf("%d combinations assembled, %d rejected", ok, failed)
}

// regID returns the class (xmm or not) and number of a decoded register.
func regID(r x86asm.Reg) (xmm bool, num int) {
	switch {
	case r >= x86asm.AL && r <= x86asm.R15B:
		i := int(r - x86asm.AL)
		switch {
		case i < 4:
			return false, i
		case i < 8:
			return false, -1 // AH..BH: never wanted
		case i < 12:
			return false, i - 4
		}
		return false, i - 4
	case r >= x86asm.AX && r <= x86asm.R15W:
		return false, int(r - x86asm.AX)
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return false, int(r - x86asm.EAX)
	case r >= x86asm.RAX && r <= x86asm.R15:
		return false, int(r - x86asm.RAX)
	case r >= x86asm.X0 && r <= x86asm.X15:
		return true, int(r - x86asm.X0)
	}
	return false, -2
}

func hasReg(inst x86asm.Inst, want Reg) bool {
	for _, arg := range inst.Args {
		if r, ok := arg.(x86asm.Reg); ok {
			if xmm, n := regID(r); xmm == want.IsXMM() && n == want.Num() {
				return true
			}
		}
	}
	return false
}

func hasMem(inst x86asm.Inst, o Operand) bool {
	for _, arg := range inst.Args {
		if m, ok := arg.(x86asm.Mem); ok {
			if m.Base != x86asm.RAX+x86asm.Reg(o.reg) || int32(m.Disp) != int32(o.val) {
				continue
			}
			if o.index == NoReg && m.Index == 0 {
				return true
			}
			if o.index != NoReg && m.Index == x86asm.RAX+x86asm.Reg(o.index) && m.Scale == o.scale {
				return true
			}
		}
	}
	return false
}
