package amd64

import (
	"fmt"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// Syntax selects the notation of Disassemble's text.
type Syntax uint8

const (
	// Intel is Intel syntax, as in the processor manuals: "mov rax, qword ptr [rbp-0x8]".
	Intel Syntax = iota
	// GoSyntax is the Go assembler's (Plan 9) syntax: "MOVQ -0x8(BP), AX".
	GoSyntax
	// GNU is AT&T syntax, as printed by objdump: "mov -0x8(%rbp),%rax".
	GNU
)

// Line is one disassembled instruction.
type Line struct {
	Offset int    // offset of the instruction in the code
	Bytes  []byte // its encoding (a subslice of the code)
	Text   string // its text; "(bad)" for bytes that do not decode
}

// String formats the line as "offset: hex bytes  text".
func (l Line) String() string {
	return fmt.Sprintf("%6x: %-24x %s", l.Offset, l.Bytes, l.Text)
}

// Disassemble decodes code in Intel syntax. base is the address of
// code[0] for printing branch and RIP-relative targets (use 0 for
// offsets). Bytes that do not decode (data emitted with Bytes, or
// garbage) become one "(bad)" Line per byte; the first such error is
// returned along with all lines.
func Disassemble(code []byte, base uint64) ([]Line, error) {
	return DisassembleSyntax(code, base, Intel)
}

// DisassembleSyntax is Disassemble with a choice of notation.
func DisassembleSyntax(code []byte, base uint64, syntax Syntax) ([]Line, error) {
	var lines []Line
	var first error
	for off := 0; off < len(code); {
		inst, err := x86asm.Decode(code[off:], 64)
		if err != nil || inst.Len == 0 || inst.Op == 0 {
			if first == nil {
				if err == nil {
					err = x86asm.ErrUnrecognized // x86asm returns a lone prefix
				}
				first = fmt.Errorf("amd64 disasm: offset %#x: %v", off, err)
			}
			lines = append(lines, Line{Offset: off, Bytes: code[off : off+1], Text: "(bad)"})
			off++
			continue
		}
		signExtendDisp(&inst)
		pc := base + uint64(off)
		var text string
		switch syntax {
		case GoSyntax:
			text = x86asm.GoSyntax(inst, pc, nil)
		case GNU:
			text = x86asm.GNUSyntax(inst, pc, nil)
		default:
			text = x86asm.IntelSyntax(inst, pc, nil)
		}
		lines = append(lines, Line{Offset: off, Bytes: code[off : off+inst.Len], Text: text})
		off += inst.Len
	}
	return lines, first
}

// Dump returns a printable listing of code (Intel syntax, offsets from
// 0), one instruction per line.
func Dump(code []byte) string {
	lines, _ := Disassemble(code, 0)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// signExtendDisp makes 32-bit displacements negative where the CPU reads
// them so: x86asm leaves them zero-extended ([rax+0xfffff000] for
// [rax-0x1000]), which also breaks its RIP-relative target computation.
func signExtendDisp(inst *x86asm.Inst) {
	for i, arg := range inst.Args {
		if m, ok := arg.(x86asm.Mem); ok {
			m.Disp = int64(int32(m.Disp))
			inst.Args[i] = m
		}
	}
}
