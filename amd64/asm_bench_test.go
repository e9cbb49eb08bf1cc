package amd64

import "testing"

// small emits a typical 10-instruction method: prolog, a compare and
// branch, a call, epilog.
func small(a *Assembler) {
	l := a.NewLabel()
	a.I(PUSHQ, R(RBP))
	a.I(MOVQ, R(RSP), R(RBP))
	a.I(SUBQ, Imm(32), R(RSP))
	a.I(CMPQ, R(RDI), Imm(0))
	a.Jump(JEQ, l)
	a.I(CALL, Mem(R14, 16))
	a.Mark()
	a.Bind(l)
	a.I(MOVQ, R(RBP), R(RSP))
	a.I(POPQ, R(RBP))
	a.I(XORL, R(RAX), R(RAX))
	a.I(RET)
}

// large emits about n instructions of mixed code with short and long
// branches, calls and label addresses.
func large(a *Assembler, n int) {
	labels := make([]Label, n/20)
	for i := range labels {
		labels[i] = a.NewLabel()
	}
	for i := 0; i < n; i += 10 {
		if i%20 == 0 {
			a.Bind(labels[i/20])
		}
		a.I(MOVQ, Mem(RBP, int32(-8*(i%32))), R(RAX))
		a.I(ADDQ, Imm(int64(i)), R(RAX))
		a.I(IMULQ, R(RCX), R(RAX))
		a.I(MOVQ, R(RAX), MemIdx(RBX, RCX, 8, 16))
		a.I(CMPQ, R(RAX), Imm(100))
		a.Jump(JLT, labels[(i/20+1)%len(labels)]) // forward, mostly short
		a.I(MOVSD, Mem(RBP, -16), R(X0))
		a.I(ADDSD, R(X1), R(X0))
		a.I(LEAQ, LabelAddr(labels[i/20]), R(RDX))
		a.Jump(JNE, labels[(i/20)/2]) // backward, often long
	}
}

func BenchmarkAssemble10(b *testing.B) {
	a := NewAssembler()
	b.ReportAllocs()
	for b.Loop() {
		a.Reset()
		small(a)
		if _, err := a.Assemble(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAssemble10000(b *testing.B) {
	a := NewAssembler()
	b.ReportAllocs()
	for b.Loop() {
		a.Reset()
		large(a, 10000)
		if _, err := a.Assemble(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*10000/b.Elapsed().Seconds(), "insns/s")
}

// BenchmarkEmit10000 measures the emitting methods alone (no Assemble).
func BenchmarkEmit10000(b *testing.B) {
	a := NewAssembler()
	b.ReportAllocs()
	for b.Loop() {
		a.Reset()
		large(a, 10000)
	}
}

func TestBenchProgramsAssemble(t *testing.T) {
	a := NewAssembler()
	b := assemble(t, a, small)
	if n := len(decodeAll(t, b.Code)); n != 10 {
		t.Errorf("small: %d instructions", n)
	}
	b = assemble(t, a, func(a *Assembler) { large(a, 10000) })
	if n := len(decodeAll(t, b.Code)); n != 10000 {
		t.Errorf("large: %d instructions", n)
	}
}
