package amd64

import (
	"math"

	"miniil/abi"
	"miniil/ir"
)

// Integer and float operation encodings per kind, indexed by IR
// operation (arrays, not maps: the code generator looks them up for
// nearly every instruction).
var (
	intOps = [ir.NumOps][2]Op{ // [32-bit, 64-bit]
		ir.OpAdd: {ADDL, ADDQ}, ir.OpSub: {SUBL, SUBQ}, ir.OpMul: {IMULL, IMULQ},
		ir.OpAnd: {ANDL, ANDQ}, ir.OpOr: {ORL, ORQ}, ir.OpXor: {XORL, XORQ},
	}
	floatOps = [ir.NumOps][2]Op{ // [float32, float64]
		ir.OpAdd: {ADDSS, ADDSD}, ir.OpSub: {SUBSS, SUBSD}, ir.OpMul: {MULSS, MULSD}, ir.OpDiv: {DIVSS, DIVSD},
	}
	shiftOps = [ir.NumOps][2]Op{ir.OpShl: {SHLL, SHLQ}, ir.OpShr: {SARL, SARQ}, ir.OpShrUn: {SHRL, SHRQ}}
)

// wide reports whether an operation of kind k works on 64 bits.
func wide(k ir.Kind) bool { return k == ir.I64 || k == ir.Ref || k == ir.Ptr }

// pick returns the form of ops for an operation of kind k: the second
// for 64-bit integers, references and float64, else the first.
func pick(ops [2]Op, k ir.Kind) Op {
	if wide(k) || k == ir.F64 {
		return ops[1]
	}
	return ops[0]
}

// binary emits add, sub, mul, and, or, xor and div (float division; the
// integer one goes to divide).
func (g *gen) binary(in *ir.Instr) {
	a, k := g.a, in.Kind
	x, y := in.Args[0], in.Args[1]
	if k.IsFloat() {
		if h, hx, hy, ok := g.twoAddress(in.Op, in.Dst, x, y); ok {
			g.loadTo(hx, h)
			a.I(pick(floatOps[in.Op], k), g.argSlot(in, hy), R(h))
			return
		}
		g.load(x, X0)
		a.I(pick(floatOps[in.Op], k), g.argSlot(in, y), R(X0))
		g.store(X0, in.Dst)
		return
	}
	if in.Op == ir.OpDiv {
		g.divide(in)
		return
	}
	if t, ok := g.cur.into[in.Dst]; ok && t != RAX && g.binaryInto(in, t) {
		return
	}
	if h, x, y, ok := g.nextHome(in); ok {
		g.loadTo(x, h)
		a.I(pick(intOps[in.Op], k), g.src(y), R(h))
		g.fwd.v, g.fwd.r = in.Dst, h
		return
	}
	if commutative[in.Op] && (y == g.avail || y == g.fwd.v) && x != y {
		x, y = y, x
	}
	if h, hx, hy, ok := g.twoAddress(in.Op, in.Dst, x, y); ok {
		g.loadTo(hx, h)
		a.I(pick(intOps[in.Op], k), g.src(hy), R(h))
		return
	}
	g.load(x, RAX)
	a.I(pick(intOps[in.Op], k), g.src(y), R(RAX))
	g.store(RAX, in.Dst)
}

// nextHome decides whether in, an integer operation whose result d is
// elided into RAX for the next instruction, can compute d in h instead:
// the register home of the next instruction's result, when that
// instruction is a two-address integer operation reading d first (it
// then computes `op h, y` on d where d already is). h is free for it:
// no value live across in and the next instruction may have it, so only
// in's and the next's own operands could be there, which it checks. It
// returns the operands to use (commutative ones swapped if needed).
func (g *gen) nextHome(in *ir.Instr) (h Reg, x, y ir.Value, ok bool) {
	x, y = in.Args[0], in.Args[1]
	h, ok = g.nextHomeOf(in, x, y)
	if !ok {
		return NoReg, x, y, false
	}
	if (g.homes[y] == h || y == g.avail) && commutative[in.Op] && x != y {
		x, y = y, x
	}
	if g.homes[y] == h && x != y || y == g.avail || g.cur.elide.has(y) {
		return NoReg, x, y, false
	}
	return h, x, y, true
}

// nextHomeOf returns the home of the next instruction's result when in,
// whose result is elided into RAX for it, may compute there instead (see
// nextHome; in's operands are x and y, y NoValue for none).
func (g *gen) nextHomeOf(in *ir.Instr, x, y ir.Value) (Reg, bool) {
	d := in.Dst
	b := g.curBlock
	if b == nil || !g.cur.elide.has(d) || g.curIndex+1 >= len(b.Instrs) {
		return NoReg, false
	}
	next := b.Instrs[g.curIndex+1]
	if next == g.cur.fused || intOps[next.Op][0] == 0 || next.Kind.IsFloat() || !g.inHome(next.Dst) {
		return NoReg, false
	}
	other := next.Args[1] // the next instruction's other operand (binary swaps a commutative one)
	switch {
	case next.Args[0] == d && other != d:
	case next.Args[1] == d && next.Args[0] != d && commutative[next.Op]:
		other = next.Args[0]
	default:
		return NoReg, false
	}
	h := g.homes[next.Dst]
	if !h.IsGPR() || g.homes[other] == h || other == g.avail {
		return NoReg, false
	}
	return h, true
}

// binaryInto computes in straight into t, the argument register of the
// next call (planned in blockPlan.into), if an operand order allows: the
// second operand must be neither in RAX (forwarded, slot unwritten) nor
// in t (which the first operand's load overwrites). Otherwise it emits
// nothing and the call takes the result from RAX.
func (g *gen) binaryInto(in *ir.Instr, t Reg) bool {
	x, y := in.Args[0], in.Args[1]
	fits := func(y ir.Value) bool {
		r, held := g.argRegs[y]
		return y != g.avail && !(held && r == t)
	}
	cx, cy, use := x, y, fits(y)
	if !use && commutative[in.Op] && fits(x) {
		cx, cy, use = y, x, true
	}
	if !use {
		return false
	}
	if r, held := g.argRegs[cx]; !held || r != t {
		g.load(cx, t)
	}
	g.a.I(pick(intOps[in.Op], in.Kind), g.src(cy), R(t))
	for v, r := range g.argRegs {
		if r == t {
			delete(g.argRegs, v)
		}
	}
	g.computed = in.Dst
	return true
}

// shiftCount returns the immediate for a shift of a 32-bit (q false) or
// 64-bit operand by the constant count c: c masked to the operand width,
// as CoreCLR does (ECMA-335 leaves counts of the width or more
// unspecified) and as the hardware masks a count in CL.
func shiftCount(c int64, q bool) int64 {
	if q {
		return c & 63
	}
	return c & 31
}

// shift emits shl, shr and shr.un.
func (g *gen) shift(in *ir.Instr) {
	a, k := g.a, in.Kind
	op := pick(shiftOps[in.Op], k)
	// A constant count is an immediate, masked to the operand width; a
	// variable one goes in CL, which the 32-bit and 64-bit forms mask
	// the same way (see shiftCount).
	count := R(RCX)
	if c, ok := g.plan.consts.get(in.Args[1]); ok {
		count = Imm(shiftCount(c, wide(k)))
	} else {
		g.load(in.Args[1], RCX)
	}
	if g.inHome(in.Dst) {
		h := g.homes[in.Dst]
		g.loadTo(in.Args[0], h)
		a.I(op, count, R(h))
		return
	}
	if h, ok := g.nextHomeOf(in, in.Args[0], ir.NoValue); ok {
		g.loadTo(in.Args[0], h)
		a.I(op, count, R(h))
		g.fwd.v, g.fwd.r = in.Dst, h
		return
	}
	g.load(in.Args[0], RAX)
	a.I(op, count, R(RAX))
	g.store(RAX, in.Dst)
}

// unary emits neg and not.
func (g *gen) unary(in *ir.Instr) {
	a, k := g.a, in.Kind
	switch {
	case in.Op == ir.OpNeg && k == ir.F32:
		g.argBits(in, in.Args[0], RAX)
		a.I(XORL, Imm(-0x80000000), R(RAX))
		g.storeBits(RAX, in.Dst)
	case in.Op == ir.OpNeg && k == ir.F64:
		g.argBits(in, in.Args[0], RAX)
		a.I(MOVQ, Imm(math.MinInt64), R(RCX))
		a.I(XORQ, R(RCX), R(RAX))
		g.storeBits(RAX, in.Dst)
	default:
		g.load(in.Args[0], RAX)
		if in.Op == ir.OpNeg {
			a.I(pick([2]Op{NEGL, NEGQ}, k), R(RAX))
		} else {
			a.I(pick([2]Op{NOTL, NOTQ}, k), R(RAX))
		}
		g.store(RAX, in.Dst)
	}
}

// divide emits integer division and remainder (the reader has already
// checked the divisor): by a constant without IDIV or DIV (divConst),
// else by the divisor read from its home.
func (g *gen) divide(in *ir.Instr) {
	a := g.a
	q := in.Kind == ir.I64
	c, isConst := g.divisor(in)
	if isConst && c != 0 {
		g.divConst(in, c)
		return
	}
	var y Operand
	if isConst {
		// Never reached (the reader's check throws first), but the plan
		// keeps no slot for a constant divisor.
		g.load(in.Args[1], RCX)
		y = R(RCX)
	}
	g.load(in.Args[0], RAX)
	if !isConst {
		y = g.argSlot(in, in.Args[1])
	}
	signed := in.Op == ir.OpDiv || in.Op == ir.OpRem
	switch {
	case signed && q:
		a.I(CQO)
		a.I(IDIVQ, y)
	case signed:
		a.I(CDQ)
		a.I(IDIVL, y)
	case q:
		a.I(XORL, R(RDX), R(RDX))
		a.I(DIVQ, y)
	default:
		a.I(XORL, R(RDX), R(RDX))
		a.I(DIVL, y)
	}
	if in.Op == ir.OpRem || in.Op == ir.OpRemUn {
		g.store(RDX, in.Dst)
	} else {
		g.store(RAX, in.Dst)
	}
}

// divisor returns the divisor of integer division in if it is a
// constant (sign-extended for an int32 one); the plan then keeps no slot
// for it (analyze).
func (g *gen) divisor(in *ir.Instr) (int64, bool) {
	if in.Kind != ir.I32 && in.Kind != ir.I64 {
		return 0, false
	}
	y := in.Args[1]
	if c, ok := g.plan.consts.get(y); ok {
		return c, true
	}
	c, ok := g.plan.wide.get(y)
	return c, ok
}

// floatRem computes the C# floating-point remainder in Go (a helper exit).
func (g *gen) floatRem(in *ir.Instr) {
	a := g.a
	if in.Kind == ir.F32 {
		a.I(CVTSS2SD, g.argSlot(in, in.Args[0]), R(X0))
		a.I(CVTSS2SD, g.argSlot(in, in.Args[1]), R(X1))
	} else {
		g.load(in.Args[0], X0)
		g.load(in.Args[1], X1)
	}
	g.exit(abi.HelperFRem, 0, false, in.ILOffset)
	if in.Kind == ir.F32 {
		a.I(CVTSD2SS, R(X0), R(X0))
	}
	g.store(X0, in.Dst)
}

// checked emits add.ovf, sub.ovf and mul.ovf: the result and a 0/1
// overflow flag.
func (g *gen) checked(in *ir.Instr) {
	a := g.a
	q := in.Kind == ir.I64
	un := in.Aux.Unsigned
	g.load(in.Args[0], RAX)
	b := g.argSlot(in, in.Args[1])
	flag := SETOS
	switch in.Op {
	case ir.OpAddOvf:
		a.I(map[bool]Op{false: ADDL, true: ADDQ}[q], b, R(RAX))
		if un {
			flag = SETCS
		}
	case ir.OpSubOvf:
		a.I(map[bool]Op{false: SUBL, true: SUBQ}[q], b, R(RAX))
		if un {
			flag = SETCS
		}
	case ir.OpMulOvf:
		switch {
		case un && q:
			a.I(MULQ, b)
		case un:
			a.I(MULL, b)
		case q:
			a.I(IMULQ, b, R(RAX))
		default:
			a.I(IMULL, b, R(RAX))
		}
	}
	a.I(flag, R(RCX))
	a.I(MOVBLZX, R(RCX), R(RCX))
	g.store(RAX, in.Dst)
	g.store(RCX, in.Dst2)
}

// Condition codes of integer comparisons: the jump to take and the
// setcc to materialize each condition.
var (
	intJumps = [...]Op{
		ir.Eq: JEQ, ir.Ne: JNE, ir.Lt: JLT, ir.Le: JLE, ir.Gt: JGT, ir.Ge: JGE,
		ir.LtUn: JCS, ir.LeUn: JLS, ir.GtUn: JHI, ir.GeUn: JCC,
	}
	intSets = [...]Op{
		ir.Eq: SETEQ, ir.Ne: SETNE, ir.Lt: SETLT, ir.Le: SETLE, ir.Gt: SETGT, ir.Ge: SETGE,
		ir.LtUn: SETCS, ir.LeUn: SETLS, ir.GtUn: SETHI, ir.GeUn: SETCC,
	}
)

// compare emits OpCmp: a 0/1 result of comparing Args[0] with Args[1].
func (g *gen) compare(in *ir.Instr) {
	a := g.a
	x, y := in.Args[0], in.Args[1]
	k := g.f.Kinds[x]
	if !k.IsFloat() {
		g.load(x, RAX)
		if k == ir.I32 {
			a.I(CMPL, R(RAX), g.src(y))
		} else {
			a.I(CMPQ, R(RAX), g.src(y))
		}
		a.I(intSets[in.Aux.Cond], R(RAX))
		a.I(MOVBLZX, R(RAX), R(RAX))
		g.store(RAX, in.Dst)
		return
	}
	// UCOMISx m, X0 compares X0 with m: CF on X0 < m or unordered, ZF on
	// equal or unordered, PF on unordered.
	ucom := UCOMISD
	if k == ir.F32 {
		ucom = UCOMISS
	}
	cmp := func(p, q ir.Value) {
		g.load(p, X0)
		a.I(ucom, g.argSlot(in, q), R(X0))
	}
	switch in.Aux.Cond {
	case ir.Eq, ir.Ne:
		cmp(x, y)
		if in.Aux.Cond == ir.Eq {
			a.I(SETEQ, R(RAX))
			a.I(SETPC, R(RCX))
			a.I(ANDL, R(RCX), R(RAX))
		} else {
			a.I(SETNE, R(RAX))
			a.I(SETPS, R(RCX))
			a.I(ORL, R(RCX), R(RAX))
		}
	case ir.Gt: // x > y, false when unordered
		cmp(x, y)
		a.I(SETHI, R(RAX))
	case ir.Ge:
		cmp(x, y)
		a.I(SETCC, R(RAX))
	case ir.Lt: // y > x
		cmp(y, x)
		a.I(SETHI, R(RAX))
	case ir.Le:
		cmp(y, x)
		a.I(SETCC, R(RAX))
	case ir.LtUn: // x < y or unordered
		cmp(x, y)
		a.I(SETCS, R(RAX))
	case ir.LeUn:
		cmp(x, y)
		a.I(SETLS, R(RAX))
	case ir.GtUn: // y < x or unordered
		cmp(y, x)
		a.I(SETCS, R(RAX))
	case ir.GeUn:
		cmp(y, x)
		a.I(SETLS, R(RAX))
	}
	a.I(MOVBLZX, R(RAX), R(RAX))
	g.store(RAX, in.Dst)
}
