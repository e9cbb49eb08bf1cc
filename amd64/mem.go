package amd64

import (
	"miniil/abi"
	"miniil/il"
	"miniil/ir"
)

// Objects, statics and arrays: fields are 8-byte slots after the method
// table (abi.ObjFields), arrays keep their length at abi.ArrLen and their
// elements, of their own size, from abi.ArrData. Allocation is inline;
// type tests, boxing, array creation and covariance checks are helper
// exits.

// field emits ldfield and stfield.
func (g *gen) field(in *ir.Instr) {
	base := g.reg(in.Args[0], RCX)
	m := Mem(base, int32(abi.ObjFields+8*in.Aux.Field.Slot))
	switch {
	case in.Op == ir.OpLdField:
		g.loadMem(m, in.Dst)
	case g.f.Kinds[in.Args[1]] == ir.Ref:
		g.storeRef(m, in.Args[0], in.Args[1])
	default:
		g.storeMem(in.Args[1], m)
	}
}

// static emits ldstatic and ststatic.
func (g *gen) static(in *ir.Instr) {
	g.a.I(MOVQ, Imm(int64(g.env.StaticAddr(in.Aux.Field))), R(RCX))
	if in.Op == ir.OpLdStatic {
		g.loadMem(Mem(RCX, 0), in.Dst)
	} else {
		g.storeMem(in.Args[0], Mem(RCX, 0))
	}
}

// alloc emits OpAlloc: bump allocation inline; the heap is fresh zeroed
// memory. Only a full heap exits (HelperAlloc then reports it).
func (g *gen) alloc(in *ir.Instr) {
	a := g.a
	mt := int64(g.env.ClassMT(in.Aux.Class))
	size := int32(8 + 8*in.Aux.Class.NumFields)
	slow, done := a.NewLabel(), a.NewLabel()
	a.I(MOVQ, Mem(R15, abi.CtxHeapTop), R(RAX))
	a.I(LEAQ, Mem(RAX, size), R(RCX))
	a.I(CMPQ, R(RCX), Mem(R15, abi.CtxHeapLimit))
	a.Jump(JHI, slow)
	a.I(MOVQ, R(RCX), Mem(R15, abi.CtxHeapTop))
	a.I(MOVQ, Imm(mt), R(RCX))
	a.I(MOVQ, R(RCX), Mem(RAX, abi.ObjMT))
	a.Jump(JMP, done)
	a.Bind(slow)
	a.I(MOVQ, Imm(mt), R(RDI))
	g.exit(abi.HelperAlloc, 0, false, in.ILOffset)
	a.Bind(done)
	g.store(RAX, in.Dst)
}

// typeTest emits isinst and typeis: helper exits with the object and the
// type's method table.
func (g *gen) typeTest(in *ir.Instr) {
	helper := abi.HelperIsInst
	if in.Op == ir.OpTypeIs {
		helper = abi.HelperTypeIs
	}
	g.load(in.Args[0], RDI)
	g.a.I(MOVQ, Imm(int64(g.env.TypeMT(in.Aux.Type))), R(RSI))
	g.exit(helper, 0, false, in.ILOffset)
	g.store(RAX, in.Dst)
}

// box emits OpBox: a helper exit with the method table and the value's
// bits.
func (g *gen) box(in *ir.Instr) {
	g.a.I(MOVQ, Imm(int64(g.env.TypeMT(in.Aux.Type))), R(RDI))
	g.argBits(in, in.Args[0], RSI)
	g.exit(abi.HelperBox, 0, false, in.ILOffset)
	g.store(RAX, in.Dst)
}

// unbox emits OpUnbox (the reader has checked the box's type).
func (g *gen) unbox(in *ir.Instr) {
	g.load(in.Args[0], RCX)
	g.loadMem(Mem(RCX, abi.BoxValue), in.Dst)
}

// newArr emits OpNewArr: a helper exit with the array type's method table
// and the length.
func (g *gen) newArr(in *ir.Instr) {
	g.a.I(MOVQ, Imm(int64(g.env.TypeMT(il.ArrayOf(in.Aux.Type)))), R(RDI))
	g.load(in.Args[0], RSI)
	g.exit(abi.HelperNewArr, 0, false, in.ILOffset)
	g.store(RAX, in.Dst)
}

// arrLen emits OpArrLen.
func (g *gen) arrLen(in *ir.Instr) {
	base := g.reg(in.Args[0], RCX)
	g.loadMem(Mem(base, abi.ArrLen), in.Dst)
}

// elem emits ldelem and stelem (the reader has checked the index).
func (g *gen) elem(in *ir.Instr) {
	base := g.reg(in.Args[0], RCX)
	idx := g.reg(in.Args[1], RDX)
	m := MemIdx(base, idx, uint8(il.ElemSize(in.Aux.Type)), abi.ArrData)
	switch {
	case in.Op == ir.OpLdElem:
		g.loadElem(in.Aux.Type, m, in.Dst)
	case g.f.Kinds[in.Args[2]] == ir.Ref:
		g.storeRef(m, in.Args[0], in.Args[2])
	default:
		g.storeElem(in.Aux.Type, m, in.Args[2])
	}
}

// canStore emits OpCanStore: the array covariance check, a helper exit.
func (g *gen) canStore(in *ir.Instr) {
	g.load(in.Args[0], RDI)
	g.load(in.Args[1], RSI)
	g.exit(abi.HelperCanStore, 0, false, in.ILOffset)
	g.store(RAX, in.Dst)
}

// loadMem loads a value of v's kind from memory into v's home.
func (g *gen) loadMem(m Operand, v ir.Value) {
	if g.inHome(v) {
		g.a.I(movFor(g.f.Kinds[v]), m, R(g.homes[v]))
		return
	}
	switch g.f.Kinds[v] {
	case ir.F32:
		g.a.I(MOVSS, m, R(X0))
		g.store(X0, v)
	case ir.F64:
		g.a.I(MOVSD, m, R(X0))
		g.store(X0, v)
	case ir.I32:
		g.a.I(MOVL, m, R(RAX))
		g.store(RAX, v)
	default:
		g.a.I(MOVQ, m, R(RAX))
		g.store(RAX, v)
	}
}

// storeMem stores v to memory with v's kind's width.
func (g *gen) storeMem(v ir.Value, m Operand) {
	k := g.f.Kinds[v]
	if g.inHome(v) {
		g.a.I(movFor(k), R(g.homes[v]), m)
		return
	}
	if c, ok := g.plan.consts[v]; ok && v != g.avail {
		if k == ir.I32 {
			g.a.I(MOVL, Imm(int64(int32(c))), m)
		} else {
			g.a.I(MOVQ, Imm(c), m)
		}
		return
	}
	switch k {
	case ir.F32:
		g.load(v, X0)
		g.a.I(MOVSS, R(X0), m)
	case ir.F64:
		g.load(v, X0)
		g.a.I(MOVSD, R(X0), m)
	case ir.I32:
		g.load(v, RAX)
		g.a.I(MOVL, R(RAX), m)
	default:
		g.load(v, RAX)
		g.a.I(MOVQ, R(RAX), m)
	}
}

// loadElem loads array element m of type t into v.
func (g *gen) loadElem(t *il.Type, m Operand, v ir.Value) {
	var op Op
	switch t.Kind {
	case il.KI1:
		op = MOVBLSX
	case il.KBool, il.KU1:
		op = MOVBLZX
	case il.KI2:
		op = MOVWLSX
	case il.KChar, il.KU2:
		op = MOVWLZX
	default:
		g.loadMem(m, v)
		return
	}
	if g.inHome(v) {
		g.a.I(op, m, R(g.homes[v]))
		return
	}
	g.a.I(op, m, R(RAX))
	g.store(RAX, v)
}

// storeElem stores v into array element m of type t.
func (g *gen) storeElem(t *il.Type, m Operand, v ir.Value) {
	switch il.ElemSize(t) {
	case 1:
		g.a.I(MOVB, R(g.reg(v, RAX)), m)
	case 2:
		g.a.I(MOVW, R(g.reg(v, RAX)), m)
	default:
		g.storeMem(v, m)
	}
}
