package amd64

import (
	"fmt"

	"miniil/abi"
	"miniil/il"
	"miniil/ir"
)

// convert emits OpConv with the CLR's x64 semantics (and the reference
// interpreter's): float to int32 and smaller through cvttsd2si (NaN and
// out-of-range give 0x80000000), float to uint32 through int64, float to
// uint64 through CoreCLR's helper rules, int32 to uint64 and native
// unsigned int zero-extended, Aux.Unsigned reading an integer source as
// unsigned.
func (g *gen) convert(in *ir.Instr) {
	a := g.a
	src, t := in.Args[0], in.Aux.Type
	sk := g.f.Kinds[src]
	un := in.Aux.Unsigned
	// Integer results are computed in the result's register when it has
	// one, else in RAX and stored to the slot.
	r := RAX
	if h := g.homes[in.Dst]; g.inHome(in.Dst) && h.IsGPR() {
		r = h
	}
	switch t.Kind {
	case il.KI1, il.KU1, il.KI2, il.KU2, il.KBool, il.KChar, il.KI4, il.KU4:
		switch sk {
		case ir.I32, ir.I64:
			a.I(MOVL, g.argSlot(in, src), R(r))
		case ir.F32:
			if t.Kind == il.KU4 {
				a.I(CVTTSS2SQ, g.argSlot(in, src), R(r))
			} else {
				a.I(CVTTSS2SL, g.argSlot(in, src), R(r))
			}
		case ir.F64:
			if t.Kind == il.KU4 {
				a.I(CVTTSD2SQ, g.argSlot(in, src), R(r))
			} else {
				a.I(CVTTSD2SL, g.argSlot(in, src), R(r))
			}
		}
		switch t.Kind {
		case il.KI1:
			a.I(MOVBLSX, R(r), R(r))
		case il.KU1, il.KBool:
			a.I(MOVBLZX, R(r), R(r))
		case il.KI2:
			a.I(MOVWLSX, R(r), R(r))
		case il.KU2, il.KChar:
			a.I(MOVWLZX, R(r), R(r))
		}
		if r == RAX {
			a.I(MOVL, R(RAX), g.slot(in.Dst))
		}
	case il.KI8, il.KI, il.KU8, il.KU:
		unsignedTarget := t.Kind == il.KU8 || t.Kind == il.KU
		switch sk {
		case ir.I32:
			if un || unsignedTarget {
				a.I(MOVL, g.argSlot(in, src), R(r)) // zero-extends
			} else {
				a.I(MOVLQSX, g.argSlot(in, src), R(r))
			}
		case ir.I64:
			a.I(MOVQ, g.argSlot(in, src), R(r))
		case ir.F32, ir.F64:
			if sk == ir.F32 {
				a.I(CVTSS2SD, g.argSlot(in, src), R(X0))
			} else {
				a.I(MOVSD, g.argSlot(in, src), R(X0))
			}
			if unsignedTarget {
				g.exit(abi.HelperF2U8, 0, false, in.ILOffset)
				if r != RAX {
					a.I(MOVQ, R(RAX), R(r))
				}
			} else {
				a.I(CVTTSD2SQ, R(X0), R(r))
			}
		}
		if r == RAX {
			a.I(MOVQ, R(RAX), g.slot(in.Dst))
		}
	case il.KR4:
		switch sk {
		case ir.I32:
			a.I(CVTSL2SS, g.argSlot(in, src), R(X0))
		case ir.I64:
			a.I(CVTSQ2SS, g.argSlot(in, src), R(X0))
		case ir.F32:
			a.I(MOVSS, g.argSlot(in, src), R(X0))
		case ir.F64:
			a.I(CVTSD2SS, g.argSlot(in, src), R(X0))
		}
		g.store(X0, in.Dst)
	case il.KR8:
		switch sk {
		case ir.I32:
			if un {
				a.I(MOVL, g.argSlot(in, src), R(RAX))
				a.I(CVTSQ2SD, R(RAX), R(X0))
			} else {
				a.I(CVTSL2SD, g.argSlot(in, src), R(X0))
			}
		case ir.I64:
			if un {
				g.uint64ToF64(in)
			} else {
				a.I(CVTSQ2SD, g.argSlot(in, src), R(X0))
			}
		case ir.F32:
			a.I(CVTSS2SD, g.argSlot(in, src), R(X0))
		case ir.F64:
			a.I(MOVSD, g.argSlot(in, src), R(X0))
		}
		g.store(X0, in.Dst)
	default:
		panic(fmt.Sprintf("conversion to %s", t))
	}
}

// uint64ToF64 converts the unsigned 64-bit operand of in to float64 in
// X0, rounding correctly: values with the top bit set are halved (keeping
// the low bit sticky), converted and doubled.
func (g *gen) uint64ToF64(in *ir.Instr) {
	a, src := g.a, in.Args[0]
	big, done := a.NewLabel(), a.NewLabel()
	a.I(MOVQ, g.argSlot(in, src), R(RAX))
	a.I(TESTQ, R(RAX), R(RAX))
	a.Jump(JLT, big)
	a.I(CVTSQ2SD, R(RAX), R(X0))
	a.Jump(JMP, done)
	a.Bind(big)
	a.I(MOVQ, R(RAX), R(RCX))
	a.I(SHRQ, Imm(1), R(RCX))
	a.I(ANDL, Imm(1), R(RAX))
	a.I(ORQ, R(RAX), R(RCX))
	a.I(CVTSQ2SD, R(RCX), R(X0))
	a.I(ADDSD, R(X0), R(X0))
	a.Bind(done)
}
