//go:build linux && amd64

package jitrt

import (
	"encoding/binary"
	"strings"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// tasm builds hand-encoded test code: raw bytes plus short and near jumps
// to labels, resolved by code().
type tasm struct {
	asmbuf
	labels map[string]int
	fix    []tfix
}

type tfix struct {
	at    int // offset of the displacement
	size  int // 1 or 4
	label string
}

func newTasm() *tasm { return &tasm{labels: map[string]int{}} }

func (t *tasm) raw(bs ...byte) *tasm { t.byte(bs...); return t }

func (t *tasm) label(name string) *tasm { t.labels[name] = t.len(); return t }

// j8 emits a short conditional jump (opcode 0x70+cc) or, with op 0xEB,
// a short JMP.
func (t *tasm) j8(op byte, label string) *tasm {
	t.byte(op, 0)
	t.fix = append(t.fix, tfix{t.len() - 1, 1, label})
	return t
}

// call32 emits CALL rel32 to a label.
func (t *tasm) call32(label string) *tasm {
	t.byte(0xe8, 0, 0, 0, 0)
	t.fix = append(t.fix, tfix{t.len() - 4, 4, label})
	return t
}

func (t *tasm) code() []byte {
	for _, f := range t.fix {
		to, ok := t.labels[f.label]
		if !ok {
			panic("no label " + f.label)
		}
		d := to - (f.at + f.size)
		if f.size == 1 {
			if d < -128 || d > 127 {
				panic("short jump out of range")
			}
			t.b[f.at] = byte(int8(d))
		} else {
			binary.LittleEndian.PutUint32(t.b[f.at:], uint32(int32(d)))
		}
	}
	return t.b
}

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
