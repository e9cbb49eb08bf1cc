package amd64

import (
	"fmt"
	"math"

	"miniil/ir"
)

// Where values are, and moving them: a value lives in its register home
// (Alloc.Homes) or its frame slot; it may also be in RAX (the previous
// instruction's elided result), in its argument register (in the entry
// block), or be a constant the plan reads as an immediate. The lowerings
// read operands through load, src and reg, which know all of that, or
// straight from the home or slot through argSlot and argBits, which only
// the operands slotReads declares may use.

// constant emits OpConst: nothing for a constant the plan reads as an
// immediate everywhere, else a store to its home.
func (g *gen) constant(in *ir.Instr) {
	a := g.a
	if g.plan.slotless.Has(in.Dst) {
		return
	}
	switch in.Kind {
	case ir.I32:
		a.I(MOVL, Imm(int64(int32(in.Aux.Int))), g.slot(in.Dst))
	case ir.F32:
		a.I(MOVL, Imm(int64(math.Float32bits(float32(in.Aux.Float())))), R(RAX))
		g.storeBits(RAX, in.Dst)
	case ir.F64:
		a.I(MOVQ, Imm(int64(math.Float64bits(in.Aux.Float()))), R(RAX))
		g.storeBits(RAX, in.Dst)
	case ir.Ref:
		a.I(MOVQ, Imm(0), g.slot(in.Dst))
	default:
		a.I(MOVQ, Imm(in.Aux.Int), R(RAX))
		a.I(MOVQ, R(RAX), g.slot(in.Dst))
	}
}

// str emits OpStr: the interned string's address.
func (g *gen) str(in *ir.Instr) {
	addr := Imm(int64(g.env.StringAddr(*in.Aux.Str())))
	if g.inHome(in.Dst) {
		g.a.I(MOVQ, addr, R(g.homes[in.Dst]))
		return
	}
	g.a.I(MOVQ, addr, R(RAX))
	g.store(RAX, in.Dst)
}

// copyValue emits OpCopy.
func (g *gen) copyValue(in *ir.Instr) {
	if g.inHome(in.Dst) {
		g.loadTo(in.Args[0], g.homes[in.Dst])
		return
	}
	if g.homes[in.Dst] == NoReg && !g.cur.elide.has(in.Dst) && g.frame.slots[in.Dst] == 0 {
		return // a dead copy (WriteThru loads every copy where a catch resumes)
	}
	if src := in.Args[0]; g.inHome(src) && !g.cur.elide.has(in.Dst) {
		// From the source's register straight to the slot (a variable's
		// copy written through to the slot its handlers read).
		g.store(g.homes[src], in.Dst)
		return
	}
	if g.f.Kinds[in.Dst].IsFloat() {
		g.load(in.Args[0], X0)
		g.store(X0, in.Dst)
	} else {
		g.load(in.Args[0], RAX)
		g.store(RAX, in.Dst)
	}
}

// src returns an operand for reading v: its constant as an immediate, or
// its slot.
func (g *gen) src(v ir.Value) Operand {
	if c, ok := g.plan.consts.get(v); ok {
		return Imm(c)
	}
	if r, ok := g.argRegs[v]; ok {
		return R(r) // the argument's slot may not be stored yet
	}
	return g.slot(v)
}

// slot returns v's home: its register, or its frame slot.
func (g *gen) slot(v ir.Value) Operand {
	if r := g.homes[v]; r != NoReg {
		return R(r)
	}
	if g.frame.slots[v] == 0 {
		panic(fmt.Sprintf("%s has no frame slot", v))
	}
	return Mem(RBP, int32(g.frame.slots[v]))
}

// argSlot returns the home of operand v of in, for an instruction that
// reads it straight from there; the read must be one slotReads declares,
// since the plan keeps the slots of constants only for those.
func (g *gen) argSlot(in *ir.Instr, v ir.Value) Operand {
	for k, a := range in.Args {
		if a == v && readsSlot(in, k) {
			return g.slot(v)
		}
	}
	panic(fmt.Sprintf("%s reads %s from its slot, which slotReads does not declare", in.Op, v))
}

// argBits is loadBits for operand v of in, read from its home (see
// argSlot).
func (g *gen) argBits(in *ir.Instr, v ir.Value, reg Reg) {
	m := g.argSlot(in, v)
	if h := g.homes[v]; h.IsXMM() {
		g.a.I(MOVQ, R(h), R(reg))
		return
	}
	g.loadBits(v, m, reg)
}

// loadBits moves the raw bits of v (of v's width) into general purpose
// register reg from m, v's slot or general purpose home.
func (g *gen) loadBits(v ir.Value, m Operand, reg Reg) {
	if k := g.f.Kinds[v]; k == ir.I32 || k == ir.F32 {
		g.a.I(MOVL, m, R(reg))
	} else {
		g.a.I(MOVQ, m, R(reg))
	}
}

// inHome reports whether v's value lives in its register home here (it
// has one, is not a result elided into RAX, and is no argument whose
// store to its home the prolog deferred: that one is still in the
// register it arrived in, argRegs).
func (g *gen) inHome(v ir.Value) bool {
	return g.homes[v] != NoReg && !g.cur.elide.has(v) && !(g.argsUnstored && int(v) < g.f.NumArgs)
}

// twoAddress decides whether dst = x op y can be computed in dst's home h
// as "h = x; h op= y": dst must be in its home, and the second operand
// neither only in RAX (elided) nor in h itself (the first move would
// overwrite it); a commutative op may swap its operands to get there.
func (g *gen) twoAddress(op ir.Op, dst, x, y ir.Value) (h Reg, hx, hy ir.Value, ok bool) {
	if !g.inHome(dst) {
		return NoReg, x, y, false
	}
	h = g.homes[dst]
	if g.homes[y] == h && x != y && commutative[op] {
		x, y = y, x
	}
	return h, x, y, (g.homes[y] != h || x == y) && !g.cur.elide.has(y)
}

// loadTo puts v in register r unless it is already there (r is v's home
// and v was written to it).
func (g *gen) loadTo(v ir.Value, r Reg) {
	if g.inHome(v) && g.homes[v] == r {
		return
	}
	g.load(v, r)
}

// reg returns a general purpose register holding integer or reference v:
// its home, or scratch after loading v there.
func (g *gen) reg(v ir.Value, scratch Reg) Reg {
	if g.inHome(v) && g.homes[v].IsGPR() {
		return g.homes[v]
	}
	g.load(v, scratch)
	return scratch
}

// movFor returns the move instruction for a value of kind k.
func movFor(k ir.Kind) Op {
	switch k {
	case ir.I32:
		return MOVL
	case ir.F32:
		return MOVSS
	case ir.F64:
		return MOVSD
	}
	return MOVQ
}

// storeBits moves raw bits from general purpose register reg into v's
// home (the reverse of loadBits).
func (g *gen) storeBits(reg Reg, v ir.Value) {
	h, k := g.homes[v], g.f.Kinds[v]
	switch {
	case h.IsXMM():
		g.a.I(MOVQ, R(reg), R(h))
	case k == ir.I32 || k == ir.F32:
		g.a.I(MOVL, R(reg), g.slot(v))
	default:
		g.a.I(MOVQ, R(reg), g.slot(v))
	}
}

// load moves v into reg (XMM for floats): from RAX if the previous
// instruction left it there, from its argument register, as an
// immediate, or from its home.
func (g *gen) load(v ir.Value, reg Reg) {
	if v == g.fwd.v && v != ir.NoValue && reg.IsGPR() {
		// Computed in g.fwd.r by the previous instruction (nextHome).
		if reg != g.fwd.r {
			g.a.I(MOVQ, R(g.fwd.r), R(reg))
		}
		return
	}
	if reg.IsGPR() && g.f.Kinds[v].IsFloat() {
		// The raw bits, e.g. a float argument passed on the stack (floats
		// are never constants the plan reads as immediates).
		if h := g.homes[v]; h.IsXMM() {
			g.a.I(MOVQ, R(h), R(reg))
		} else {
			g.loadBits(v, g.slot(v), reg)
		}
		return
	}
	if g.avail == v && v != ir.NoValue {
		if reg == RAX {
			g.avail = ir.NoValue
			return // the previous instruction left v in RAX
		}
		if reg.IsGPR() {
			g.a.I(MOVQ, R(RAX), R(reg))
			return
		}
	}
	if reg == RAX {
		g.avail = ir.NoValue
	}
	if r, ok := g.argRegs[v]; ok && reg.IsGPR() {
		if r == reg {
			return
		}
		if g.f.Kinds[v] == ir.I32 {
			g.a.I(MOVL, R(r), R(reg))
		} else {
			g.a.I(MOVQ, R(r), R(reg))
		}
		return
	}
	if c, ok := g.plan.consts.get(v); ok && !g.f.Kinds[v].IsFloat() {
		if g.f.Kinds[v] == ir.I32 {
			g.a.I(MOVL, Imm(int64(int32(c))), R(reg))
		} else {
			g.a.I(MOVQ, Imm(c), R(reg))
		}
		return
	}
	if h := g.homes[v]; h.IsXMM() {
		g.a.I(MOVAPS, R(h), R(reg)) // a whole-register copy: no false dependency
		return
	}
	switch g.f.Kinds[v] {
	case ir.I32:
		g.a.I(MOVL, g.slot(v), R(reg))
	case ir.F32:
		g.a.I(MOVSS, g.slot(v), R(reg))
	case ir.F64:
		g.a.I(MOVSD, g.slot(v), R(reg))
	default:
		g.a.I(MOVQ, g.slot(v), R(reg))
	}
}

// store moves reg into v's home. A result stored from RAX is what RAX
// holds for the next instruction (hold); an elided one is not stored.
func (g *gen) store(reg Reg, v ir.Value) {
	if reg == RAX && !g.f.Kinds[v].IsFloat() {
		g.hold = v
		if g.cur.elide.has(v) {
			return
		}
	}
	if h := g.homes[v]; h.IsXMM() {
		g.a.I(MOVAPS, R(reg), R(h))
		return
	}
	switch g.f.Kinds[v] {
	case ir.I32:
		g.a.I(MOVL, R(reg), g.slot(v))
	case ir.F32:
		g.a.I(MOVSS, R(reg), g.slot(v))
	case ir.F64:
		g.a.I(MOVSD, R(reg), g.slot(v))
	default:
		g.a.I(MOVQ, R(reg), g.slot(v))
	}
}
