package amd64

import (
	"fmt"
	"strconv"
)

// Reg is an amd64 register: a general-purpose register (RAX..R15, numbered
// in hardware encoding order) or an SSE register (X0..X15).
//
// General-purpose registers are always named by their 64-bit name; the
// instruction's mnemonic selects the width, as in the Go assembler: MOVL
// R(RAX) writes EAX, SETEQ R(RSI) writes SIL, MOVB R(RDI), Mem(...) stores
// DIL.
type Reg int16

// General-purpose registers, in hardware encoding order.
const (
	RAX Reg = iota
	RCX
	RDX
	RBX
	RSP
	RBP
	RSI
	RDI
	R8
	R9
	R10
	R11
	R12
	R13
	R14
	R15
)

// SSE registers.
const (
	X0 Reg = iota + 16
	X1
	X2
	X3
	X4
	X5
	X6
	X7
	X8
	X9
	X10
	X11
	X12
	X13
	X14
	X15
)

// NoReg is the absence of a register (for example the index of a memory
// operand without one). It is not a valid operand by itself.
const NoReg Reg = -1

var gprNames = [16]string{"RAX", "RCX", "RDX", "RBX", "RSP", "RBP", "RSI", "RDI",
	"R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15"}

// String returns the register's Intel name (RAX, R8, X0).
func (r Reg) String() string {
	switch {
	case r.IsGPR():
		return gprNames[r]
	case r.IsXMM():
		return "X" + strconv.Itoa(int(r-X0))
	case r == NoReg:
		return "NoReg"
	}
	return "Reg(" + strconv.Itoa(int(r)) + ")"
}

// IsGPR reports whether r is one of RAX..R15.
func (r Reg) IsGPR() bool { return r >= RAX && r <= R15 }

// IsXMM reports whether r is one of X0..X15.
func (r Reg) IsXMM() bool { return r >= X0 && r <= X15 }

// Num returns the register's 4-bit hardware number (RAX=0, R15=15, X3=3).
func (r Reg) Num() int { return int(r) & 15 }

type operandKind uint8

const (
	kindNone operandKind = iota
	kindReg
	kindImm
	kindMem
	kindLabel
)

// Operand is an instruction operand: a register, an immediate, a memory
// reference or the RIP-relative address of a label. Build it with R, Imm,
// Mem, MemIdx or LabelAddr; the zero Operand is invalid.
type Operand struct {
	kind  operandKind
	scale uint8
	reg   Reg   // register, or memory base
	index Reg   // memory index or NoReg
	label Label // for kindLabel
	val   int64 // immediate or displacement
}

// R returns a register operand.
func R(r Reg) Operand { return Operand{kind: kindReg, reg: r, index: NoReg} }

// Imm returns an immediate operand. The encoder picks the shortest
// encoding; a value that does not fit the instruction's immediate field
// (for example more than 32 bits signed for anything but MOVQ to a
// register) is an error reported by Assemble.
func Imm(v int64) Operand { return Operand{kind: kindImm, val: v, reg: NoReg, index: NoReg} }

// Mem returns the memory operand [base+disp]. The access width comes from
// the instruction (MOVQ accesses 8 bytes, MOVL 4, MOVW 2, MOVB 1, MOVSD 8,
// MOVSS 4). base must be a general-purpose register.
func Mem(base Reg, disp int32) Operand {
	return Operand{kind: kindMem, reg: base, index: NoReg, val: int64(disp)}
}

// MemIdx returns the memory operand [base+index*scale+disp]. scale must be
// 1, 2, 4 or 8 and index must not be RSP.
func MemIdx(base, index Reg, scale uint8, disp int32) Operand {
	return Operand{kind: kindMem, reg: base, index: index, scale: scale, val: int64(disp)}
}

// LabelAddr returns the RIP-relative memory operand [rip+label]: with LEAQ
// it loads the label's absolute address (resume addresses, funclet entry
// points); with any other instruction it accesses the memory at the label
// (for example a constant emitted with Assembler.Bytes after a bound
// label). At most one LabelAddr operand per instruction.
//
// The encoder records the 4-byte displacement as a fixup; once the jumps
// are sized, Assemble writes label offset - end of instruction there.
func LabelAddr(l Label) Operand {
	return Operand{kind: kindLabel, label: l, reg: NoReg, index: NoReg}
}

// String formats the operand in Go assembler syntax-like form, for error
// messages and debugging.
func (o Operand) String() string {
	switch o.kind {
	case kindReg:
		return o.reg.String()
	case kindImm:
		return "$" + strconv.FormatInt(o.val, 10)
	case kindMem:
		if o.index == NoReg {
			return fmt.Sprintf("%d(%v)", o.val, o.reg)
		}
		return fmt.Sprintf("%d(%v)(%v*%d)", o.val, o.reg, o.index, o.scale)
	case kindLabel:
		return fmt.Sprintf("L%d(RIP)", o.label)
	}
	return "<invalid operand>"
}

// IsReg reports whether o is a register operand, and which.
func (o Operand) IsReg() (Reg, bool) { return o.reg, o.kind == kindReg }

// IsImm reports whether o is an immediate operand, and its value.
func (o Operand) IsImm() (int64, bool) { return o.val, o.kind == kindImm }

// IsMem reports whether o is a memory operand (including LabelAddr).
func (o Operand) IsMem() bool { return o.kind == kindMem || o.kind == kindLabel }
