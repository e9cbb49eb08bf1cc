package amd64

import (
	"math/bits"

	"miniil/ir"
)

// Division by a constant.
//
// An integer division or remainder whose divisor is a constant (a
// temporary defined once, which the plan knows) needs no IDIV or DIV: a
// power of two is a shift (with a bias for a negative signed dividend,
// which rounds toward zero), 1 and -1 are a move or a negation, and any
// other divisor d is a multiplication by a magic number m close to
// 2^(64+s)/d whose high word, shifted right by s, is the quotient
// (Granlund and Montgomery; Hacker's Delight, chapter 10). A remainder
// is the dividend less the quotient times d. The reader leaves out the
// checks such a divisor cannot fail: the DivideByZeroException check
// stays for 0 only, and the OverflowException check of MinValue for a
// signed -1 only, so the division runs only where it cannot throw.
//
// Every product is formed in 64-bit registers, an int32 dividend
// extended to 64 bits first: then a 64-bit IMUL by a multiplier below
// 2^32 and a shift right by 32+s give its quotient (lowMagic), or, for
// the unsigned divisors that need a 33-bit multiplier, the high word of
// one MUL by ceil(2^64/d) is already the quotient. An int64 dividend
// needs the high word of a 128-bit product, a shift and sometimes a
// correction (udivMagic, sdivMagic).

// magic is how to divide an n-bit dividend x by a constant d that is no
// power of two: multiply x >> pre by m, take the high 64 bits of the
// product, and shift them right by post. With add (int64 only) the
// multiplier really is m + 2^64 (unsigned) or m with the high word then
// increased by x (signed, m read as negative), and post is applied as
// the unsigned one notes (udivMagic).
type magic struct {
	m         uint64
	pre, post uint
	add       bool
}

// udivMagic returns the magic of unsigned division of an n-bit x (32 or
// 64) by d, 2 < d < 2^n, not a power of two.
//
// With m = ceil(2^(64+s)/d) = (2^(64+s) + e)/d, 0 < e < d, x*m/2^(64+s) =
// x/d + x*e/(d*2^(64+s)): the floor is x/d's while the error term stays
// below 1/d, which x*e < 2^(64+s) ensures, so e <= 2^(64+s-n) suffices
// for every x < 2^n. The smallest such s below bits.Len(d) keeps m under
// 2^64. An even d may instead divide x >> z by d >> z (z its trailing
// zeros), an x of n-z bits. Failing both, s = bits.Len(d) always works
// but m needs 65 bits: then with h the high word of x*(m-2^64), the
// quotient is (h+x) >> s, computed as ((x-h)>>1 + h) >> (s-1) since h+x
// may not fit 64 bits.
func udivMagic(d uint64, n uint) magic {
	if m, s, ok := ufit(d, n); ok {
		return magic{m: m, post: s}
	}
	if z := uint(bits.TrailingZeros64(d)); z > 0 {
		if m, s, ok := ufit(d>>z, n-z); ok {
			return magic{m: m, pre: z, post: s}
		}
	}
	l := uint(bits.Len64(d))
	// 2^(64+l)/d - 2^64 = (2^l - d)*2^64/d, with 2^l - d < d.
	q, _ := bits.Div64((uint64(1)<<l)-d, 0, d)
	return magic{m: q + 1, post: l, add: true}
}

// ufit returns the smallest s < bits.Len(d) with a 64-bit m that
// divides every n-bit x by d (see udivMagic).
func ufit(d uint64, n uint) (m uint64, s uint, ok bool) {
	for s := range uint(bits.Len64(d)) {
		q, r := bits.Div64(uint64(1)<<s, 0, d) // 2^s < d
		e := d - r                             // r > 0: d is no power of two
		if 64+s-n >= 64 || e <= uint64(1)<<(64+s-n) {
			return q + 1, s, true
		}
	}
	return 0, 0, false
}

// lowMagic returns, for an int32 dividend x and a divisor d (3 <= d <
// 2^32, or < 2^31 if signed, not a power of two), m < 2^32 and s such
// that x*m >> (32+s) is floor(x/d) (and, signed, x/d rounded toward zero
// less one for x < 0, as with sdivMagic): x*m fits 64 bits. The bounds
// of udivMagic and sdivMagic with 32+s for 64+s: e <= 2^s for x < 2^32,
// e < 2^(s+1) for |x| <= 2^31. A signed divisor always has one; an
// unsigned one may need 33 bits (ok false).
func lowMagic(d uint64, signed bool) (m uint64, s uint, ok bool) {
	for s := range uint(bits.Len64(d)) {
		p := uint64(1) << (32 + s)
		m := p/d + 1 // d divides no power of two
		e := m*d - p
		if e <= 1<<s || signed && e < 1<<(s+1) {
			return m, s, true
		}
	}
	return 0, 0, false
}

// sdivMagic returns the magic of signed division of an n-bit x (32 or
// 64) by d or -d, 2 < d < 2^(n-1), not a power of two, for a quotient
// rounded toward zero of x/d; the caller negates it for -d.
//
// With m and e as in udivMagic, floor(x*m/2^(64+s)) is floor(x/d) for x
// >= 0 and one less than x/d's rounding toward zero for x < 0 (the error
// term is negative there), as long as |x|*e < 2^(64+s): e < 2^(65+s-n)
// for every |x| <= 2^(n-1). It holds at s = bits.Len(d) - 1 at the
// latest, where m < 2^64; an m of 2^63 or more is used as m - 2^64 (a
// negative int64), and the high word of x*(m-2^64) plus x is the high
// word of x*m. The quotient is negative exactly when x is, so adding
// the quotient's sign bit rounds it toward zero.
func sdivMagic(d uint64, n uint) magic {
	for s := range uint(bits.Len64(d)) {
		q, r := bits.Div64(uint64(1)<<s, 0, d)
		e := d - r
		if 65+s-n >= 64 || e < uint64(1)<<(65+s-n) {
			m := q + 1
			return magic{m: m, post: s, add: m >= 1<<63}
		}
	}
	panic("sdivMagic: no multiplier") // unreachable: s = bits.Len(d)-1 fits
}

// divConst emits in, an int32 or int64 division or remainder, by the
// constant c (see the comment at the top of this file): the quotient
// ends in RAX, as the plan expects of OpDiv and OpDivUn, the remainder in
// RCX.
func (g *gen) divConst(in *ir.Instr, c int64) {
	a := g.a
	q := in.Kind == ir.I64
	n := uint(32)
	if q {
		n = 64
	}
	x := in.Args[0]
	signed := in.Op == ir.OpDiv || in.Op == ir.OpRem
	rem := in.Op == ir.OpRem || in.Op == ir.OpRemUn
	d := uint64(c) // the divisor's magnitude
	if !q {
		d = uint64(uint32(c))
	}
	neg := signed && c < 0
	if neg {
		d = -d
		if !q {
			d = uint64(uint32(d))
		}
	}
	switch {
	case d == 1:
		if rem {
			a.I(XORL, R(RAX), R(RAX))
			g.store(RAX, in.Dst)
			return
		}
		g.load(x, RAX)
		if neg {
			a.I(pick([2]Op{NEGL, NEGQ}, in.Kind), R(RAX)) // x is no MinValue: the reader checked
		}
		g.store(RAX, in.Dst)
	case d&(d-1) == 0 && !signed:
		g.load(x, RAX)
		k := bits.TrailingZeros64(d)
		if rem {
			g.andImm(uint64(d-1), q, RAX, RCX)
		} else {
			a.I(pick([2]Op{SHRL, SHRQ}, in.Kind), Imm(int64(k)), R(RAX))
		}
		g.store(RAX, in.Dst)
	case d&(d-1) == 0:
		g.signedPow2(in, d, neg, rem)
	case !q:
		m, s, ok := lowMagic(d, signed)
		if !ok {
			g.udiv32High(in, d, rem)
			return
		}
		g.loadExtended(x, RCX, false, signed)
		if int64(m) == int64(int32(m)) {
			a.I(IMUL3Q, Imm(int64(m)), R(RCX), R(RAX))
		} else {
			a.I(MOVL, Imm(int64(m)), R(RAX))
			a.I(IMULQ, R(RCX), R(RAX))
		}
		if signed {
			a.I(SARQ, Imm(int64(32+s)), R(RAX))
			a.I(MOVL, R(RCX), R(RDX))
			a.I(SHRL, Imm(31), R(RDX))
			a.I(ADDL, R(RDX), R(RAX)) // rounded toward zero
		} else {
			a.I(SHRQ, Imm(int64(32+s)), R(RAX))
		}
		if rem {
			g.remainder(in, d)
			return
		}
		if neg {
			a.I(NEGL, R(RAX))
		}
		g.store(RAX, in.Dst)
	case signed:
		g.loadExtended(x, RCX, q, true)
		mg := sdivMagic(d, n)
		a.I(MOVQ, Imm(int64(mg.m)), R(RAX))
		a.I(IMULQ, R(RCX)) // RDX = the high word of x*m (m < 0 with add)
		if mg.add {
			a.I(ADDQ, R(RCX), R(RDX))
		}
		if mg.post > 0 {
			a.I(SARQ, Imm(int64(mg.post)), R(RDX))
		}
		a.I(MOVQ, R(RDX), R(RAX))
		a.I(SHRQ, Imm(63), R(RAX))
		a.I(ADDQ, R(RDX), R(RAX)) // rounded toward zero
		if rem {
			g.remainder(in, d)
			return
		}
		if neg {
			a.I(NEGQ, R(RAX))
		}
		g.store(RAX, in.Dst)
	default:
		g.loadExtended(x, RCX, q, false)
		mg := udivMagic(d, n)
		g.udivHigh(in, mg, d, rem)
	}
}

// udiv32High emits an int32 unsigned division or remainder by d, whose
// multiplier below 2^32 lowMagic did not find: the high word of x times
// ceil(2^64/d) is the quotient.
func (g *gen) udiv32High(in *ir.Instr, d uint64, rem bool) {
	g.loadExtended(in.Args[0], RCX, false, false)
	g.udivHigh(in, udivMagic(d, 32), d, rem)
}

// udivHigh emits an unsigned division or remainder by d with magic mg,
// the dividend zero-extended in RCX.
func (g *gen) udivHigh(in *ir.Instr, mg magic, d uint64, rem bool) {
	a := g.a
	a.I(MOVQ, R(RCX), R(RAX))
	if mg.pre > 0 {
		a.I(SHRQ, Imm(int64(mg.pre)), R(RAX))
	}
	a.I(MOVQ, Imm(int64(mg.m)), R(RDX))
	a.I(MULQ, R(RDX)) // RDX = the high word of x*m
	if mg.add {
		a.I(MOVQ, R(RCX), R(RAX))
		a.I(SUBQ, R(RDX), R(RAX))
		a.I(SHRQ, Imm(1), R(RAX))
		a.I(ADDQ, R(RDX), R(RAX))
		if mg.post > 1 {
			a.I(SHRQ, Imm(int64(mg.post-1)), R(RAX))
		}
	} else {
		if mg.post > 0 {
			a.I(SHRQ, Imm(int64(mg.post)), R(RDX))
		}
		a.I(MOVQ, R(RDX), R(RAX))
	}
	if rem {
		g.remainder(in, d)
		return
	}
	g.store(RAX, in.Dst)
}

// remainder finishes in, a remainder by the constant magnitude d: RAX
// holds the quotient x/d (rounded toward zero), RCX the dividend x; the
// result is x - (x/d)*d, computed in RCX.
func (g *gen) remainder(in *ir.Instr, d uint64) {
	a := g.a
	switch {
	case in.Kind != ir.I64:
		a.I(IMUL3L, Imm(int64(uint32(d))), R(RAX), R(RAX))
	case int64(d) == int64(int32(d)):
		a.I(IMUL3Q, Imm(int64(d)), R(RAX), R(RAX))
	default:
		a.I(MOVQ, Imm(int64(d)), R(RDX))
		a.I(IMULQ, R(RDX), R(RAX))
	}
	a.I(pick([2]Op{SUBL, SUBQ}, in.Kind), R(RAX), R(RCX))
	g.store(RCX, in.Dst)
}

// signedPow2 emits a signed division or remainder by d or -d (neg), d =
// 2^k, k >= 1. An arithmetic shift rounds toward minus infinity, so a
// negative x is first biased by d-1: (x + ((x >> (n-1)) >>> (n-k))) >> k
// rounds toward zero; the remainder is x less that biased x with its low
// k bits cleared (the same for d and -d).
func (g *gen) signedPow2(in *ir.Instr, d uint64, neg, rem bool) {
	a, k := g.a, in.Kind
	n := 32
	if k == ir.I64 {
		n = 64
	}
	sh := bits.TrailingZeros64(d)
	g.load(in.Args[0], RCX)
	a.I(pick([2]Op{MOVL, MOVQ}, k), R(RCX), R(RDX))
	if sh > 1 {
		a.I(pick([2]Op{SARL, SARQ}, k), Imm(int64(n-1)), R(RDX))
	}
	a.I(pick([2]Op{SHRL, SHRQ}, k), Imm(int64(n-sh)), R(RDX)) // the bias: d-1 or 0
	a.I(pick([2]Op{LEAL, LEAQ}, k), MemIdx(RCX, RDX, 1, 0), R(RAX))
	if rem {
		g.andImm(-d, k == ir.I64, RAX, RDX)
		a.I(pick([2]Op{SUBL, SUBQ}, k), R(RAX), R(RCX))
		g.store(RCX, in.Dst)
		return
	}
	a.I(pick([2]Op{SARL, SARQ}, k), Imm(int64(sh)), R(RAX))
	if neg {
		a.I(pick([2]Op{NEGL, NEGQ}, k), R(RAX))
	}
	g.store(RAX, in.Dst)
}

// andImm ands register r with mask (its low 32 bits for a 32-bit
// operation, q false), through scratch when the mask fits no immediate.
func (g *gen) andImm(mask uint64, q bool, r, scratch Reg) {
	switch {
	case !q:
		g.a.I(ANDL, Imm(int64(uint32(mask))), R(r))
	case int64(mask) == int64(int32(mask)):
		g.a.I(ANDQ, Imm(int64(mask)), R(r))
	default:
		g.a.I(MOVQ, Imm(int64(mask)), R(scratch))
		g.a.I(ANDQ, R(scratch), R(r))
	}
}

// loadExtended loads integer v into reg (not RAX) as a 64-bit value: an
// int32 one sign-extended (signed) or zero-extended. An int32 read from
// its home or slot is extended as it is read; one RAX or an argument
// register holds may carry anything in its upper half.
func (g *gen) loadExtended(v ir.Value, reg Reg, q, signed bool) {
	_, inArgReg := g.argRegs[v]
	c, isConst := g.plan.consts.get(v)
	switch {
	case q:
		g.load(v, reg)
	case isConst && signed:
		g.a.I(MOVQ, Imm(c), R(reg))
	case isConst:
		g.a.I(MOVL, Imm(int64(uint32(c))), R(reg))
	case g.avail == v || inArgReg:
		g.load(v, reg)
		if signed {
			g.a.I(MOVLQSX, R(reg), R(reg))
		} else {
			g.a.I(MOVL, R(reg), R(reg))
		}
	case signed:
		g.a.I(MOVLQSX, g.slot(v), R(reg))
	default:
		g.a.I(MOVL, g.slot(v), R(reg))
	}
}
