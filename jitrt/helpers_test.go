//go:build linux && amd64

package jitrt

import (
	"strings"
	"testing"

	"golang.org/x/arch/x86/x86asm"

	"miniil/il"
)

// disasm decodes code placed at pc into Intel syntax, one string per
// instruction, failing on anything undecodable.
func disasm(t testing.TB, code []byte, pc uint64) []string {
	t.Helper()
	var out []string
	for len(code) > 0 {
		inst, err := x86asm.Decode(code, 64)
		if err != nil {
			t.Fatalf("decode at %#x (% x): %v", pc, code[:min(len(code), 8)], err)
		}
		out = append(out, x86asm.IntelSyntax(inst, pc, nil))
		code = code[inst.Len:]
		pc += uint64(inst.Len)
	}
	return out
}

// checkDisasm decodes code and compares it with want (Intel syntax, one
// instruction per element).
func checkDisasm(t testing.TB, name string, code []byte, pc uint64, want ...string) {
	t.Helper()
	got := disasm(t, code, pc)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s disassembles to\n\t%s\nwant\n\t%s", name, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func newHeap(t testing.TB) *CodeHeap {
	t.Helper()
	h, err := NewCodeHeap(CodeHeapConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func newMachine(t testing.TB, h *CodeHeap, cfg MachineConfig) *Machine {
	t.Helper()
	cfg.Heap = h
	m, err := NewMachine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func install(t testing.TB, h *CodeHeap, code []byte) uintptr {
	t.Helper()
	addr, err := h.Install(code)
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// newTinyRuntime returns a runtime for tinyProgram (no method compiled),
// with opts.Compile set, closed when the test ends. It returns the module
// too.
func newTinyRuntime(t testing.TB, opts Options) (*Runtime, *il.Module) {
	t.Helper()
	mod, err := il.Load("t.il", []byte(tinyProgram))
	if err != nil {
		t.Fatal(err)
	}
	opts.Compile = noCompile
	rt, err := NewRuntime(mod, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt, mod
}
