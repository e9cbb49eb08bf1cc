//go:build linux && amd64

package jitrt

import (
	"testing"

	"miniil/abi"
)

// BenchmarkExitRoundTrip measures one exit to Go and re-entry: native code
// stores an exit code and calls the exit stub, the loop calls a trivial
// handler, resume continues after the CALL.
func BenchmarkExitRoundTrip(b *testing.B) {
	h := newHeap(b)
	m := newMachine(b, h, MachineConfig{})
	loop := install(b, h, codeHelperLoop())
	handler := func(m *Machine, code uint64) error {
		m.SetReg(abi.CtxRAX, m.Reg(abi.CtxRAX)+1)
		return nil
	}
	b.ResetTimer()
	r, err := m.Call(bg, loop, []uint64{uint64(b.N)}, handler)
	if err != nil || r != uint64(b.N) {
		b.Fatal(r, err)
	}
}

// BenchmarkCall measures a whole Call of a trivial function (stack setup,
// one entry, one ExitReturn).
func BenchmarkCall(b *testing.B) {
	h := newHeap(b)
	m := newMachine(b, h, MachineConfig{})
	add := install(b, h, codeAdd())
	args := []uint64{1, 2}
	for b.Loop() {
		if _, err := m.Call(bg, add, args, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPollExit measures a poll exit (budget 1: every back edge exits).
func BenchmarkPollExit(b *testing.B) {
	h := newHeap(b)
	m := newMachine(b, h, MachineConfig{PollBudget: 1})
	loop := install(b, h, codePollLoop())
	b.ResetTimer()
	if _, err := m.Call(bg, loop, []uint64{uint64(b.N)}, nil); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkInstall measures installing a small method (one page sealed
// per install).
func BenchmarkInstall(b *testing.B) {
	h, err := NewCodeHeap(CodeHeapConfig{ReserveBytes: 1 << 31})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	code := codeMulAdd()
	for b.Loop() {
		if _, err := h.Install(code); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewMachine measures creating and closing a Machine (8 MiB
// stack mapping).
func BenchmarkNewMachine(b *testing.B) {
	h := newHeap(b)
	for b.Loop() {
		m, err := NewMachine(MachineConfig{Heap: h})
		if err != nil {
			b.Fatal(err)
		}
		m.Close()
	}
}
