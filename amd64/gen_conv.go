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
	switch t.Kind {
	case il.KI1, il.KU1, il.KI2, il.KU2, il.KBool, il.KChar, il.KI4, il.KU4:
		switch sk {
		case ir.I32, ir.I64:
			a.I(MOVL, g.slot(src), R(RAX))
		case ir.F32:
			if t.Kind == il.KU4 {
				a.I(CVTTSS2SQ, g.slot(src), R(RAX))
			} else {
				a.I(CVTTSS2SL, g.slot(src), R(RAX))
			}
		case ir.F64:
			if t.Kind == il.KU4 {
				a.I(CVTTSD2SQ, g.slot(src), R(RAX))
			} else {
				a.I(CVTTSD2SL, g.slot(src), R(RAX))
			}
		}
		switch t.Kind {
		case il.KI1:
			a.I(MOVBLSX, R(RAX), R(RAX))
		case il.KU1, il.KBool:
			a.I(MOVBLZX, R(RAX), R(RAX))
		case il.KI2:
			a.I(MOVWLSX, R(RAX), R(RAX))
		case il.KU2, il.KChar:
			a.I(MOVWLZX, R(RAX), R(RAX))
		}
		a.I(MOVL, R(RAX), g.slot(in.Dst))
	case il.KI8, il.KI, il.KU8, il.KU:
		unsignedTarget := t.Kind == il.KU8 || t.Kind == il.KU
		switch sk {
		case ir.I32:
			if un || unsignedTarget {
				a.I(MOVL, g.slot(src), R(RAX)) // zero-extends
			} else {
				a.I(MOVLQSX, g.slot(src), R(RAX))
			}
		case ir.I64:
			a.I(MOVQ, g.slot(src), R(RAX))
		case ir.F32, ir.F64:
			if sk == ir.F32 {
				a.I(CVTSS2SD, g.slot(src), R(X0))
			} else {
				a.I(MOVSD, g.slot(src), R(X0))
			}
			if unsignedTarget {
				g.exit(abi.HelperF2U8, 0, false, in.ILOffset)
			} else {
				a.I(CVTTSD2SQ, R(X0), R(RAX))
			}
		}
		a.I(MOVQ, R(RAX), g.slot(in.Dst))
	case il.KR4:
		switch sk {
		case ir.I32:
			a.I(CVTSL2SS, g.slot(src), R(X0))
		case ir.I64:
			a.I(CVTSQ2SS, g.slot(src), R(X0))
		case ir.F32:
			a.I(MOVSS, g.slot(src), R(X0))
		case ir.F64:
			a.I(CVTSD2SS, g.slot(src), R(X0))
		}
		g.store(X0, in.Dst)
	case il.KR8:
		switch sk {
		case ir.I32:
			if un {
				a.I(MOVL, g.slot(src), R(RAX))
				a.I(CVTSQ2SD, R(RAX), R(X0))
			} else {
				a.I(CVTSL2SD, g.slot(src), R(X0))
			}
		case ir.I64:
			if un {
				g.uint64ToF64(src)
			} else {
				a.I(CVTSQ2SD, g.slot(src), R(X0))
			}
		case ir.F32:
			a.I(CVTSS2SD, g.slot(src), R(X0))
		case ir.F64:
			a.I(MOVSD, g.slot(src), R(X0))
		}
		g.store(X0, in.Dst)
	default:
		panic(fmt.Sprintf("conversion to %s", t))
	}
}

// uint64ToF64 converts the unsigned 64-bit value in src's slot to float64
// in X0, rounding correctly: values with the top bit set are halved
// (keeping the low bit sticky), converted and doubled.
func (g *gen) uint64ToF64(src ir.Value) {
	a := g.a
	big, done := a.NewLabel(), a.NewLabel()
	a.I(MOVQ, g.slot(src), R(RAX))
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

// inlineExcCtor reports whether a method of kind k is a base library
// exception constructor whose work (storing the message) the generated
// code does itself.
func inlineExcCtor(k il.BuiltinKind) bool {
	switch k {
	case il.ArgumentNullExceptionCtorString, il.ArgumentOutOfRangeExceptionCtorString:
		return false // the argument is a parameter name
	}
	return k.IsExceptionCtor()
}

// call emits OpCall and OpCallVirt.
func (g *gen) call(in *ir.Instr) {
	a := g.a
	callee := in.Aux.Method
	if callee.BuiltinKind == il.ObjectCtor {
		return // Object's constructor does nothing
	}
	if inlineExcCtor(callee.BuiltinKind) {
		// Store the message (the class's interned default, or the
		// argument) into the exception's _message slot; a null this takes
		// the helper, which raises NullReferenceException.
		slow, done := a.NewLabel(), a.NewLabel()
		g.load(in.Args[0], RCX)
		a.I(TESTQ, R(RCX), R(RCX))
		a.Jump(JEQ, slow)
		if len(callee.Params) == 1 {
			g.load(in.Args[1], RAX)
		} else if msg, ok := il.DefaultMessage(callee.Owner.Name); ok {
			a.I(MOVQ, Imm(int64(g.env.StringAddr(msg))), R(RAX))
		} else {
			a.I(XORL, R(RAX), R(RAX))
		}
		a.I(MOVQ, R(RAX), Mem(RCX, abi.ObjFields))
		a.Jump(JMP, done)
		a.Bind(slow)
		g.callGeneric(in)
		a.Bind(done)
		return
	}
	g.callGeneric(in)
}

// callGeneric emits a call: arguments in registers (and the stack), then
// the vtable, the helper exit of a base library method, or the cell.
func (g *gen) callGeneric(in *ir.Instr) {
	a := g.a
	callee := in.Aux.Method
	locs, _ := classify(g.kinds(in.Args))
	for i, l := range locs {
		if l.stack >= 0 {
			g.load(in.Args[i], RAX)
			a.I(MOVQ, R(RAX), Mem(RSP, int32(8*l.stack)))
		}
	}
	for i, l := range locs {
		if l.stack < 0 && !(in.Args[i] == g.computed && g.into[in.Args[i]] == l.reg) {
			g.load(in.Args[i], l.reg)
		}
	}
	switch {
	case in.Op == ir.OpCallVirt:
		a.I(MOVQ, Mem(RDI, abi.ObjMT), R(RAX))
		a.I(CALL, Mem(RAX, int32(abi.MTVTable+abi.MTSlotSize*callee.Slot)))
		g.site(in.ILOffset)
		g.note("callvirt " + callee.FullName())
	case callee.Builtin:
		g.exit(abi.HelperBuiltin, uint64(callee.BuiltinKind), true, in.ILOffset)
		g.note("call " + callee.BuiltinKind.String() + " (base library)")
	default:
		// CALL [RIP+disp32] to the callee's cell; the displacement is set
		// at install time (Code.CellRefs).
		a.Bytes(0xFF, 0x15, 0, 0, 0, 0)
		g.cellMarks = append(g.cellMarks, a.Mark())
		g.cells = append(g.cells, g.env.CellAddr(callee))
		g.site(in.ILOffset)
		g.note("call " + callee.FullName())
	}
	if in.Dst != ir.NoValue {
		if g.f.Kinds[in.Dst].IsFloat() {
			g.store(X0, in.Dst)
		} else {
			g.store(RAX, in.Dst)
		}
	}
}
