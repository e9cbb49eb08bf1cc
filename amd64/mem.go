package amd64

import (
	"miniil/abi"
	"miniil/il"
	"miniil/ir"
)

// Objects, statics and arrays: fields are 8-byte slots after the method
// table (abi.ObjFields), arrays keep their length at abi.ArrLen and their
// elements, of their own size, from abi.ArrData. Allocation is inline,
// and so are type tests but those of array types that covariance may
// pass; boxing, array creation and covariance checks are helper exits.

// field emits ldfield and stfield.
func (g *gen) field(in *ir.Instr) {
	base := g.reg(in.Args[0], RCX)
	m := Mem(base, int32(abi.ObjFields+8*in.Aux.Field().Slot))
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
	g.a.I(MOVQ, Imm(int64(g.env.StaticAddr(in.Aux.Field()))), R(RCX))
	if in.Op == ir.OpLdStatic {
		g.loadMem(Mem(RCX, 0), in.Dst)
	} else {
		g.storeMem(in.Args[0], Mem(RCX, 0))
	}
}

// alloc emits OpAlloc: bump allocation inline; the heap is fresh zeroed
// memory. Only a full heap exits (HelperAlloc then reports it).
func (g *gen) alloc(in *ir.Instr) {
	mt := int64(g.env.ClassMT(in.Aux.Class()))
	slow, done := g.a.NewLabel(), g.a.NewLabel()
	g.bump(int32(8+8*in.Aux.Class().NumFields), mt, slow)
	g.a.Jump(JMP, done)
	g.a.Bind(slow)
	g.a.I(MOVQ, Imm(mt), R(RDI))
	g.exit(abi.HelperAlloc, 0, false, in.ILOffset)
	g.a.Bind(done)
	g.store(RAX, in.Dst)
}

// bump allocates size bytes in the nursery inline, with method table mt,
// into RAX (RCX is clobbered), or jumps to slow when they do not fit.
func (g *gen) bump(size int32, mt int64, slow Label) {
	a := g.a
	a.I(MOVQ, Mem(R15, abi.CtxHeapTop), R(RAX))
	a.I(LEAQ, Mem(RAX, size), R(RCX))
	a.I(CMPQ, R(RCX), Mem(R15, abi.CtxHeapLimit))
	a.Jump(JHI, slow)
	a.I(MOVQ, R(RCX), Mem(R15, abi.CtxHeapTop))
	a.I(MOVQ, Imm(mt), R(RCX))
	a.I(MOVQ, R(RCX), Mem(RAX, abi.ObjMT))
}

// typeTest emits isinst and typeis inline where the method tables
// decide (see castKind): the result (the object or null, for typeis 1 or
// 0) is left in RAX. Only array types whose method table differs from
// the object's go to the helper, for covariance.
func (g *gen) typeTest(in *ir.Instr) {
	a := g.a
	kind := castKind(in)
	g.load(in.Args[0], RAX)
	done, fail := a.NewLabel(), a.NewLabel()
	typeIs := in.Op == ir.OpTypeIs
	if !typeIs {
		// isinst: null stays null, and an object is always one.
		a.I(TESTQ, R(RAX), R(RAX))
		a.Jump(JEQ, done)
		if kind == castAny {
			a.Bind(fail)
			a.Bind(done)
			g.store(RAX, in.Dst)
			return
		}
	}
	mt := int64(g.env.TypeMT(in.Aux.Type))
	switch kind {
	case castExact, castExactOrHelper:
		a.I(MOVQ, Imm(mt), R(RDX))
		a.I(CMPQ, R(RDX), Mem(RAX, abi.ObjMT))
		if typeIs {
			ok := a.NewLabel()
			a.Jump(JEQ, ok)
			if kind == castExactOrHelper {
				g.typeTestHelper(in, mt)
				a.Jump(JMP, done)
			} else {
				a.Jump(JMP, fail)
			}
			a.Bind(ok)
			a.I(MOVL, Imm(1), R(RAX))
			a.Jump(JMP, done)
			break
		}
		a.Jump(JEQ, done)
		if kind == castExactOrHelper {
			g.typeTestHelper(in, mt)
			a.Jump(JMP, done)
		}
	case castChain:
		// The class or one of its bases: walk the base method tables.
		loop := a.NewLabel()
		a.I(MOVQ, Imm(mt), R(RDX))
		a.I(MOVQ, Mem(RAX, abi.ObjMT), R(RCX))
		a.Bind(loop)
		a.I(CMPQ, R(RCX), R(RDX))
		a.Jump(JEQ, done)
		a.I(MOVQ, Mem(RCX, abi.MTBase), R(RCX))
		a.I(TESTQ, R(RCX), R(RCX))
		a.Jump(JNE, loop)
	case castIface:
		// Implemented interfaces have a block in the interface table.
		idx := int32(abi.MTSlotSize * in.Aux.Type.Class.IfaceIndex)
		a.I(MOVQ, Mem(RAX, abi.ObjMT), R(RCX))
		a.I(MOVQ, Mem(RCX, abi.MTITab), R(RCX))
		a.I(TESTQ, R(RCX), R(RCX))
		a.Jump(JEQ, fail)
		a.I(CMPQ, Mem(RCX, idx), Imm(0))
		a.Jump(JNE, done)
	default:
		g.typeTestHelper(in, mt)
		a.Jump(JMP, done)
	}
	a.Bind(fail)
	a.I(XORL, R(RAX), R(RAX))
	a.Bind(done)
	g.store(RAX, in.Dst)
}

// typeTestHelper emits the helper exit of a type test of the object in
// RAX against the type whose method table is mt; the result is in RAX.
func (g *gen) typeTestHelper(in *ir.Instr, mt int64) {
	helper := abi.HelperIsInst
	if in.Op == ir.OpTypeIs {
		helper = abi.HelperTypeIs
	}
	g.a.I(MOVQ, R(RAX), R(RDI))
	g.a.I(MOVQ, Imm(mt), R(RSI))
	g.exit(helper, 0, false, in.ILOffset)
}

// How a type test is compiled (castKind).
const (
	castHelper        = iota // a helper exit decides
	castAny                  // isinst object: every object is one
	castExact                // the object's method table is the type's, or it is not one
	castExactOrHelper        // the same method table decides yes, the helper no
	castChain                // the class or a subclass: the base method tables
	castIface                // an interface: the object's interface table
)

// castKind returns how in, an isinst or typeis, is compiled, as the
// runtime's tests decide (jitrt's isInstance and sameType): a string, a
// value type, a boxed primitive is an instance only of its own method
// table (value types and boxes are sealed; every boxed primitive kind has
// one method table); an array of another method table may still be one
// (covariance), which the helper decides; System.ValueType takes boxed
// primitives too, whose method tables do not derive from it.
func castKind(in *ir.Instr) int {
	t := in.Aux.Type
	if in.Op == ir.OpTypeIs {
		if t.Kind == il.KArray {
			return castExactOrHelper
		}
		return castExact
	}
	switch t.Kind {
	case il.KObject:
		return castAny
	case il.KString, il.KValue:
		return castExact
	case il.KArray:
		return castExactOrHelper
	case il.KClass:
		switch {
		case t.Class.Interface:
			return castIface
		case t.Class.Name == il.ObjectClass:
			return castAny
		case t.Class.Name == il.ValueTypeClass:
			return castHelper
		}
		return castChain
	}
	return castExact // a boxed primitive
}

// typeTestExits reports whether the code of type test in may exit.
func typeTestExits(in *ir.Instr) bool {
	k := castKind(in)
	return k == castHelper || k == castExactOrHelper
}

// box emits OpBox of a primitive: the value's bits, normalized as the
// runtime's boxes hold them (extended to 64 bits by the type's
// signedness), stored into a box allocated inline; a full nursery exits
// (HelperBox).
func (g *gen) box(in *ir.Instr) {
	a := g.a
	mt := int64(g.env.TypeMT(in.Aux.Type))
	g.argBits(in, in.Args[0], RSI)
	switch in.Aux.Type.Kind {
	case il.KBool, il.KU1:
		a.I(MOVBQZX, R(RSI), R(RSI))
	case il.KI1:
		a.I(MOVBQSX, R(RSI), R(RSI))
	case il.KI2:
		a.I(MOVWQSX, R(RSI), R(RSI))
	case il.KU2, il.KChar:
		a.I(MOVWQZX, R(RSI), R(RSI))
	case il.KI4:
		a.I(MOVLQSX, R(RSI), R(RSI))
	case il.KU4, il.KR4:
		a.I(MOVLQZX, R(RSI), R(RSI))
	}
	slow, done := a.NewLabel(), a.NewLabel()
	g.bump(il.BoxSize, mt, slow)
	a.I(MOVQ, R(RSI), Mem(RAX, abi.BoxValue))
	a.Jump(JMP, done)
	a.Bind(slow)
	a.I(MOVQ, Imm(mt), R(RDI))
	g.exit(abi.HelperBox, 0, false, in.ILOffset)
	a.Bind(done)
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
	if in.Dst == g.cur.lenOf.length {
		return // the bounds check's compare reads it (blockPlan.lenOf)
	}
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

// canStore emits OpCanStore, the array covariance check of a non-null
// reference: an object of the array's element type or of a subclass of
// it, or any object into an object[], passes inline (abi.MTElem); the
// helper decides the rest (interfaces, boxes into System.ValueType[],
// arrays into arrays, and every store that fails).
func (g *gen) canStore(in *ir.Instr) {
	a := g.a
	ok, done := a.NewLabel(), a.NewLabel()
	g.load(in.Args[0], RDI)
	g.load(in.Args[1], RSI)
	a.I(MOVQ, Mem(RDI, abi.ObjMT), R(RCX))
	a.I(MOVQ, Mem(RCX, abi.MTElem), R(RCX))
	a.I(CMPQ, R(RCX), Mem(RSI, abi.ObjMT))
	a.Jump(JEQ, ok)
	a.I(MOVQ, Imm(int64(g.env.TypeMT(il.Object))), R(RDX))
	a.I(CMPQ, R(RCX), R(RDX))
	a.Jump(JEQ, ok)
	// A subclass of the element type: its base method tables.
	loop, helper := a.NewLabel(), a.NewLabel()
	a.I(MOVQ, Mem(RSI, abi.ObjMT), R(RDX))
	a.Bind(loop)
	a.I(MOVQ, Mem(RDX, abi.MTBase), R(RDX))
	a.I(TESTQ, R(RDX), R(RDX))
	a.Jump(JEQ, helper)
	a.I(CMPQ, R(RDX), R(RCX))
	a.Jump(JEQ, ok)
	a.Jump(JMP, loop)
	a.Bind(helper)
	g.exit(abi.HelperCanStore, 0, false, in.ILOffset)
	a.Jump(JMP, done)
	a.Bind(ok)
	a.I(MOVL, Imm(1), R(RAX))
	a.Bind(done)
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
	if c, ok := g.plan.consts.get(v); ok && v != g.avail {
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
