package corelib

import (
	"math"
	"math/big"
	"sync"
	"sync/atomic"
)

// The slow path: elementary functions evaluated with math/big at growing
// precision until the result's rounding to float64 is certain (Ziv's
// strategy). It is exact in the sense that matters: it returns the
// float64 nearest to the mathematical value (ties to even). The fast
// paths (fast.go) fall back to it when their own error bound leaves the
// rounding in doubt, and use it for the arguments they do not cover.

// bigConsts holds pi, ln 2 and ln 10 to prec bits.
type bigConsts struct {
	prec          uint
	pi, ln2, ln10 *big.Float
}

var (
	constMu sync.Mutex
	consts  bigConsts
)

// constants returns pi, ln 2 and ln 10 to at least prec bits.
func constants(prec uint) bigConsts {
	constMu.Lock()
	defer constMu.Unlock()
	if consts.prec >= prec {
		return consts
	}
	p := max(prec, 2*consts.prec, 512)
	wp := p + 64
	// Machin: pi = 16 atan(1/5) - 4 atan(1/239).
	a := atanInv(5, wp)
	b := atanInv(239, wp)
	a.Mul(a, bigInt(16, wp))
	b.Mul(b, bigInt(4, wp))
	pi := newF(p).Sub(a, b)
	// ln 2 = 2 atanh(1/3); ln 10 = 3 ln 2 + 2 atanh(1/9).
	l := atanhInv(3, wp)
	l.Mul(l, bigInt(2, wp))
	l10 := atanhInv(9, wp)
	l10.Mul(l10, bigInt(2, wp))
	l10.Add(l10, newF(wp).Mul(l, bigInt(3, wp)))
	consts = bigConsts{prec: p, pi: pi, ln2: newF(p).Set(l), ln10: newF(p).Set(l10)}
	return consts
}

func newF(prec uint) *big.Float { return new(big.Float).SetPrec(prec) }

func bigInt(n int64, prec uint) *big.Float { return newF(prec).SetInt64(n) }

func bigF(x float64, prec uint) *big.Float { return newF(prec).SetFloat64(x) }

// negligible reports whether term no longer matters to sum at prec bits.
func negligible(term, sum *big.Float, prec uint) bool {
	return term.Sign() == 0 || sum.Sign() != 0 && term.MantExp(nil)-sum.MantExp(nil) < -int(prec)
}

// atanInv returns atan(1/n) for an integer n > 1.
func atanInv(n int64, prec uint) *big.Float {
	return invSeries(n, prec, true)
}

// atanhInv returns atanh(1/n) for an integer n > 1.
func atanhInv(n int64, prec uint) *big.Float {
	return invSeries(n, prec, false)
}

// invSeries sums (±1)^k / ((2k+1) n^(2k+1)): atan(1/n), or atanh(1/n)
// when alternate is false.
func invSeries(n int64, prec uint, alternate bool) *big.Float {
	sum := newF(prec)
	nn := bigInt(n*n, prec)
	pw := newF(prec).Quo(bigInt(1, prec), bigInt(n, prec))
	t := newF(prec)
	for k := int64(0); ; k++ {
		t.Quo(pw, bigInt(2*k+1, prec))
		if alternate && k%2 == 1 {
			sum.Sub(sum, t)
		} else {
			sum.Add(sum, t)
		}
		if negligible(t, sum, prec+8) {
			return sum
		}
		pw.Quo(pw, nn)
	}
}

// expBig returns e^x to about prec bits (|x| below 2^11).
func expBig(x *big.Float, prec uint) *big.Float {
	if x.Sign() == 0 {
		return bigInt(1, prec)
	}
	const halvings = 12
	wp := prec + 32 + halvings
	c := constants(wp + 32)
	// n = round(x / ln 2); r = x - n ln 2, |r| <= ln2/2.
	q, _ := newF(64).Quo(x, c.ln2).Float64()
	n := math.Round(q)
	r := newF(wp+32).Mul(bigF(n, 64), c.ln2)
	r.Sub(newF(wp+32).Set(x), r)
	r.SetPrec(wp)
	r.SetMantExp(r, -halvings)
	sum, term := bigInt(1, wp), bigInt(1, wp)
	for k := int64(1); ; k++ {
		term.Mul(term, r)
		term.Quo(term, bigInt(k, wp))
		sum.Add(sum, term)
		if negligible(term, sum, wp) {
			break
		}
	}
	for range halvings {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(n))
}

// logBig returns log x for x > 0 to about prec bits.
func logBig(x *big.Float, prec uint) *big.Float {
	wp := prec + 32
	c := constants(wp + 16)
	m := newF(wp)
	e := x.MantExp(m) // x = m 2^e, m in [1/2, 1)
	if m.Cmp(big.NewFloat(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	// log m = 2 atanh z, z = (m-1)/(m+1), |z| < 0.18.
	one := big.NewFloat(1)
	z := newF(wp).Quo(newF(wp).Sub(m, one), newF(wp).Add(m, one))
	z2 := newF(wp).Mul(z, z)
	sum, pw, t := newF(wp), newF(wp).Set(z), newF(wp)
	for k := int64(0); ; k++ {
		t.Quo(pw, bigInt(2*k+1, wp))
		sum.Add(sum, t)
		if negligible(t, sum, wp) {
			break
		}
		pw.Mul(pw, z2)
	}
	sum.SetMantExp(sum, 1)
	if e != 0 {
		sum.Add(sum, newF(wp).Mul(bigInt(int64(e), wp), c.ln2))
	}
	return sum
}

// reduceBig returns r = x - k pi/2 with |r| <= pi/4, and k mod 4, with
// about prec bits of r (Payne and Hanek's reduction, done with enough
// bits of pi for any float64).
func reduceBig(x float64, prec uint) (*big.Float, int) {
	_, ex := math.Frexp(x)
	// The closest a float64 comes to a multiple of pi/2 is about 2^-61
	// of its magnitude... relative to r; 96 guard bits cover it.
	wp := uint(max(ex, 0)) + prec + 160
	c := constants(wp + 16)
	halfPi := newF(wp).SetMantExp(c.pi, -1)
	bx := bigF(x, wp)
	q := newF(wp).Quo(bx, halfPi)
	half := big.NewFloat(0.5)
	if q.Sign() < 0 {
		q.Sub(q, half)
	} else {
		q.Add(q, half)
	}
	k, _ := q.Int(nil) // round(x / (pi/2)), truncating q +- 1/2
	r := newF(wp).Mul(newF(wp).SetInt(k), halfPi)
	r.Sub(bx, r)
	return r, int(new(big.Int).And(k, big.NewInt(3)).Int64())
}

// sinCosBig returns sin r (cos r if cos) for |r| <= pi/4.
func sinCosBig(r *big.Float, prec uint, cos bool) *big.Float {
	wp := prec + 32
	r2 := newF(wp).Mul(r, r)
	term, k := newF(wp).Set(r), int64(1)
	if cos {
		term, k = bigInt(1, wp), 0
	}
	sum := newF(wp).Set(term)
	for {
		term.Mul(term, r2)
		term.Quo(term, bigInt((k+1)*(k+2), wp))
		term.Neg(term)
		k += 2
		sum.Add(sum, term)
		if negligible(term, sum, wp) {
			return sum
		}
	}
}

func sinBig(x float64, prec uint) *big.Float {
	r, k := reduceBig(x, prec)
	v := sinCosBig(r, prec, k&1 == 1)
	if k >= 2 {
		v.Neg(v)
	}
	return v
}

func cosBig(x float64, prec uint) *big.Float {
	r, k := reduceBig(x, prec)
	v := sinCosBig(r, prec, k&1 == 0)
	if k == 1 || k == 2 {
		v.Neg(v)
	}
	return v
}

func tanBig(x float64, prec uint) *big.Float {
	r, k := reduceBig(x, prec)
	s := sinCosBig(r, prec, false)
	c := sinCosBig(r, prec, true)
	if k&1 == 0 {
		return newF(prec+32).Quo(s, c)
	}
	t := newF(prec+32).Quo(c, s)
	return t.Neg(t)
}

// atanBig returns atan x.
func atanBig(x *big.Float, prec uint) *big.Float {
	const halvings = 5
	wp := prec + 32 + halvings
	c := constants(wp + 16)
	one := big.NewFloat(1)
	a := newF(wp).Abs(x)
	inv := a.Cmp(one) > 0
	if inv {
		a.Quo(one, a)
	}
	// atan a = 2 atan(a / (1 + sqrt(1 + a^2))), until a < tan(pi/64).
	for range halvings {
		t := newF(wp).Mul(a, a)
		t.Add(t, one)
		t.Sqrt(t)
		t.Add(t, one)
		a.Quo(a, t)
	}
	a2 := newF(wp).Mul(a, a)
	sum, pw, t := newF(wp), newF(wp).Set(a), newF(wp)
	for k := int64(0); ; k++ {
		t.Quo(pw, bigInt(2*k+1, wp))
		if k%2 == 1 {
			sum.Sub(sum, t)
		} else {
			sum.Add(sum, t)
		}
		if negligible(t, sum, wp) {
			break
		}
		pw.Mul(pw, a2)
	}
	sum.SetMantExp(sum, halvings)
	if inv {
		sum.Sub(newF(wp).SetMantExp(c.pi, -1), sum)
	}
	if x.Sign() < 0 {
		sum.Neg(sum)
	}
	return sum
}

// atan2Big returns atan2(y, x) for finite non-zero x and y.
func atan2Big(y, x float64, prec uint) *big.Float {
	wp := prec + 32
	c := constants(wp + 16)
	by, bx := bigF(y, wp), bigF(x, wp)
	if math.Abs(y) <= math.Abs(x) {
		a := atanBig(newF(wp).Quo(by, bx), prec)
		if x < 0 {
			if y < 0 {
				a.Sub(a, c.pi)
			} else {
				a.Add(a, c.pi)
			}
		}
		return a
	}
	a := atanBig(newF(wp).Quo(bx, by), prec)
	hp := newF(wp).SetMantExp(c.pi, -1)
	if y < 0 {
		hp.Neg(hp)
	}
	return a.Sub(hp, a)
}

// roundBig rounds v to float64 allowing for a relative error of
// 2^-(prec-16): lo and hi are the roundings of the interval's ends, equal
// when the rounding is certain.
func roundBig(v *big.Float, prec uint) (lo, hi float64) {
	if v.Sign() == 0 {
		return 0, 0
	}
	e := newF(prec+8).SetMantExp(v, -int(prec-16))
	lo, _ = newF(prec+8).Sub(v, e).Float64()
	hi, _ = newF(prec+8).Add(v, e).Float64()
	return lo, hi
}

// maxZivPrec bounds the slow path's precision. The hardest float64
// arguments of these functions need about 120 bits beyond the 53 of the
// result, so a value still in doubt at this precision is an exact
// midpoint between two float64s (Pow(262143^2, 1.5) is 262143^3, which
// has 54 significant bits), rounded to even.
const maxZivPrec = 2048

// slowCalls counts the slow path's evaluations, for the tests.
var slowCalls atomic.Int64

// ziv evaluates f at growing precision until its rounding is certain.
func ziv(f func(prec uint) *big.Float) float64 {
	slowCalls.Add(1)
	for prec := uint(128); ; prec *= 2 {
		lo, hi := roundBig(f(prec), prec)
		if lo == hi {
			return lo
		}
		if prec >= maxZivPrec {
			if math.Float64bits(lo)&1 == 0 {
				return lo
			}
			return hi
		}
	}
}
