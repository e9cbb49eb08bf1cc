package corelib

import (
	"math"
	"math/big"
)

// System.Math. CoreCLR computes Sqrt, Abs, Floor, Ceiling, Round and
// Truncate exactly (machine instructions) and hands Pow, Exp, Log, Log10,
// Sin, Cos, Tan, Atan and Atan2 to the C library, on Linux glibc's libm,
// whose results are not always correctly rounded. miniil returns the
// correctly rounded result (the float64 nearest to the mathematical value)
// for all of them but Log10, which follows glibc's own formula on top of
// the correctly rounded Log (see Log10). glibc 2.36 (x86-64, FMA) agrees
// with that in all but about 0.03% to 0.25% of arguments, depending on
// the function; docs/LANGUAGE.md gives the measurements. Special
// arguments (zeros, infinities, NaN, Pow's sign and parity rules) follow
// C99 Annex F as glibc does.
//
// Each function first tries a fast path in double-double arithmetic
// (about 100 bits) with an error bound; when the bound leaves the
// rounding in doubt, or for arguments the fast path does not cover, it
// falls back to a math/big evaluation at growing precision (slow.go).

// Sqrt is Math.Sqrt.
func Sqrt(x float64) float64 { return math.Sqrt(x) }

// Abs is Math.Abs(float64): the sign bit cleared.
func Abs(x float64) float64 { return math.Abs(x) }

// Floor is Math.Floor.
func Floor(x float64) float64 { return math.Floor(x) }

// Ceiling is Math.Ceiling.
func Ceiling(x float64) float64 { return math.Ceil(x) }

// Truncate is Math.Truncate.
func Truncate(x float64) float64 { return math.Trunc(x) }

// Round is Math.Round(float64): to the nearest integer, halves to even,
// the sign kept (Round(-0.4) is -0).
func Round(x float64) float64 { return math.RoundToEven(x) }

// Max is Math.Max(float64, float64) as .NET Core 3.0 and later define it
// (IEEE 754-2019 maximum): NaN if either argument is NaN (the first NaN),
// and +0 is greater than -0.
func Max(a, b float64) float64 {
	if a != b {
		if math.IsNaN(a) || b < a {
			return a
		}
		return b
	}
	if math.Signbit(b) {
		return a
	}
	return b
}

// Min is Math.Min(float64, float64) as .NET Core 3.0 and later define it
// (IEEE 754-2019 minimum): NaN if either argument is NaN (the first NaN),
// and -0 is less than +0.
func Min(a, b float64) float64 {
	if a != b {
		if math.IsNaN(a) || a < b {
			return a
		}
		return b
	}
	if math.Signbit(a) {
		return a
	}
	return b
}

// Exp is Math.Exp.
func Exp(x float64) float64 {
	a := math.Abs(x)
	switch {
	case a < 0x1p-54:
		return 1 // e^x lies within half an ulp of 1
	case a < 708:
		hi, lo, q, rel := expCore(x, 0)
		if r, ok := roundDD(hi, lo, rel*hi); ok {
			return scale(r, q)
		}
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case math.IsInf(x, -1):
		return 0
	case x > 710:
		return math.Inf(1)
	case x < -746:
		return 0
	}
	return ziv(func(p uint) *big.Float { return expBig(bigF(x, p), p) })
}

// Log is Math.Log.
func Log(x float64) float64 {
	switch {
	case x > 0 && x < math.Inf(1):
		if x == 1 {
			return 0
		}
		hi, lo, err := logCore(x)
		if r, ok := roundDD(hi, lo, err); ok {
			return r
		}
		return ziv(func(p uint) *big.Float { return logBig(bigF(x, p), p) })
	case x == 0:
		return math.Inf(-1)
	case x < 0:
		return math.NaN()
	}
	return x // NaN, +Inf
}

// Log10 is Math.Log10. glibc computes it with fdlibm's formula: for
// x = 2^n m (m in [1, 2) when n >= 0, in [1/2, 1) when n < 0),
// log10 x = n log10(2)hi + (n log10(2)lo + log(m)/ln 10), in float64
// arithmetic; a correctly rounded log10 would differ from it in about 15%
// of arguments, so miniil evaluates the same formula, operation for
// operation, on its correctly rounded Log. It then differs from glibc
// only where the two Logs of m do.
func Log10(x float64) float64 {
	switch {
	case x > 0 && x < math.Inf(1):
	case x == 0:
		return math.Inf(-1)
	case x < 0:
		return math.NaN()
	default:
		return x // NaN, +Inf
	}
	bits := math.Float64bits(x)
	n := int(bits>>52) - 1023
	if n == -1023 { // subnormal
		bits = math.Float64bits(x * 0x1p54)
		n = int(bits>>52) - 1023 - 54
	}
	exp := uint64(1023)
	if n < 0 {
		exp, n = 1022, n+1
	}
	m := math.Float64frombits(bits&(1<<52-1) | exp<<52)
	y := float64(n)
	// The explicit conversions round each product, as glibc's code
	// (compiled without FMA contraction) does.
	z := float64(y*log10of2Lo) + float64(invLn10*Log(m))
	return z + float64(y*log10of2Hi)
}

// Pow is Math.Pow.
func Pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	case x == 0:
		odd := isOddInt(y)
		switch {
		case y < 0 && odd:
			return math.Copysign(math.Inf(1), x)
		case y < 0:
			return math.Inf(1)
		case odd:
			return x
		}
		return 0
	case math.IsInf(y, 0):
		switch {
		case x == -1:
			return 1
		case (math.Abs(x) < 1) == (y > 0):
			return 0
		}
		return math.Inf(1)
	case math.IsInf(x, 0):
		neg := x < 0 && isOddInt(y)
		r := math.Inf(1)
		if y < 0 {
			r = 0
		}
		if neg {
			r = -r
		}
		return r
	case x < 0 && y != math.Trunc(y):
		return math.NaN()
	}
	r := powPos(math.Abs(x), y)
	if x < 0 && isOddInt(y) {
		r = -r
	}
	return r
}

// isOddInt reports whether y is an odd integer.
func isOddInt(y float64) bool {
	return math.Abs(y) < 1<<53 && y == math.Trunc(y) && int64(y)&1 != 0
}

// powPos returns x^y for finite x > 0, x != 1, and finite y != 0.
func powPos(x, y float64) float64 {
	lh, ll, lerr := logCore(x)
	zh, zl := twoProd(y, lh)
	zl += y * ll
	if zh > -708 && zh < 709.7 {
		hi, lo, q, rel := expCore(zh, zl)
		rel += math.Abs(y)*lerr + 0x1p-100*math.Abs(zh)
		if r, ok := roundDD(hi, lo, rel*hi); ok {
			return scale(r, q)
		}
	}
	return powBig(x, y)
}

// powBig is the slow path of powPos.
func powBig(x, y float64) float64 {
	if y == math.Trunc(y) && math.Abs(y) <= 64 {
		// The result may be exact, even a midpoint between two float64s
		// (3^34 has 54 significant bits), where no approximation
		// settles: compute x^|y| exactly.
		n := int(math.Abs(y))
		p := uint(53*n + 64)
		r := bigInt(1, p)
		b := bigF(x, p)
		for range n {
			r.Mul(r, b)
		}
		if y > 0 {
			f, _ := r.Float64()
			return f
		}
		return ziv(func(pr uint) *big.Float { return newF(pr+32).Quo(bigInt(1, pr), r) })
	}
	l2 := math.Log2(x) * y
	switch {
	case l2 > 1100:
		return math.Inf(1)
	case l2 < -1200:
		return 0
	}
	return ziv(func(p uint) *big.Float {
		wp := p + 32
		l := logBig(bigF(x, wp), wp)
		l.Mul(l, bigF(y, wp))
		return expBig(l, p)
	})
}

// reduce returns r = x - k pi/2 (|r| <= pi/4 and a little) as rh + rl
// with an absolute error below err, and k mod 4, for finite x with a =
// |x|.
func reduce(x, a float64) (rh, rl, err float64, k int) {
	if a <= 0x1p20 {
		return trigReduce(x)
	}
	return reduceLarge(x)
}

// sinQuadrant returns sin(k*pi/2 + r), r = rh + rl reduced, as a
// double-double with its error bound: +-sin r or +-cos r by quadrant
// (k modulo 4).
func sinQuadrant(k int, rh, rl float64) (hi, lo, err float64) {
	sh, sl, serr, ch, cl, cerr := sinCos(rh, rl)
	switch k & 3 {
	case 0:
		return sh, sl, serr
	case 1:
		return ch, cl, cerr
	case 2:
		return -sh, -sl, serr
	}
	return -ch, -cl, cerr
}

// Sin is Math.Sin.
func Sin(x float64) float64 {
	a := math.Abs(x)
	switch {
	case a < 0x1p-27:
		return x // sin x = x - x^3/6 rounds to x
	case a < math.Inf(1):
		rh, rl, errR, k := reduce(x, a)
		hi, lo, err := sinQuadrant(k, rh, rl)
		if r, ok := roundDD(hi, lo, err+errR); ok {
			return r
		}
	case math.IsNaN(x) || math.IsInf(x, 0):
		return math.NaN()
	}
	return ziv(func(p uint) *big.Float { return sinBig(x, p) })
}

// Cos is Math.Cos.
func Cos(x float64) float64 {
	a := math.Abs(x)
	switch {
	case a < 0x1p-27:
		return 1 // cos x = 1 - x^2/2 rounds to 1
	case a < math.Inf(1):
		rh, rl, errR, k := reduce(x, a)
		hi, lo, err := sinQuadrant(k+1, rh, rl) // cos x = sin(x + pi/2)
		if r, ok := roundDD(hi, lo, err+errR); ok {
			return r
		}
	case math.IsNaN(x) || math.IsInf(x, 0):
		return math.NaN()
	}
	return ziv(func(p uint) *big.Float { return cosBig(x, p) })
}

// Tan is Math.Tan.
func Tan(x float64) float64 {
	a := math.Abs(x)
	switch {
	case a < 0x1p-27:
		return x // tan x = x + x^3/3 rounds to x
	case a < math.Inf(1):
		rh, rl, errR, k := reduce(x, a)
		sh, sl, serr, ch, cl, cerr := sinCos(rh, rl)
		var hi, lo float64
		if k&1 == 0 {
			hi, lo = ddDiv(sh, sl, ch, cl)
		} else {
			hi, lo = ddDiv(-ch, -cl, sh, sl)
		}
		rel := (serr+errR)/math.Abs(sh) + (cerr+errR)/math.Abs(ch) + 0x1p-98
		if r, ok := roundDD(hi, lo, rel*math.Abs(hi)); ok {
			return r
		}
	case math.IsNaN(x) || math.IsInf(x, 0):
		return math.NaN()
	}
	return ziv(func(p uint) *big.Float { return tanBig(x, p) })
}

// Atan is Math.Atan.
func Atan(x float64) float64 {
	a := math.Abs(x)
	switch {
	case a < 0x1p-27:
		return x // atan x = x - x^3/3 rounds to x
	case a > 0x1p60:
		// pi/2 - 1/x: pi/2 lies 0.27 ulp above pio2a, 1/x is below
		// 2^-8 ulp
		return math.Copysign(pio2a, x)
	case a <= 0x1p60:
		var hi, lo float64
		if a > 1 {
			th := 1 / a
			tl := math.FMA(-th, a, 1) / a
			hi, lo = atanCore(th, tl)
			hi, lo = subFromHalfPi(hi, lo)
		} else {
			hi, lo = atanCore(a, 0)
		}
		if r, ok := roundDD(hi, lo, 0x1p-71*hi); ok {
			return math.Copysign(r, x)
		}
	default:
		return x // NaN
	}
	return ziv(func(p uint) *big.Float { return atanBig(bigF(x, p), p) })
}

// Atan2 is Math.Atan2(y, x), the angle of the point (x, y).
func Atan2(y, x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	case y == 0:
		if math.Signbit(x) {
			return math.Copysign(piHi, y)
		}
		return y
	case x == 0:
		return math.Copysign(pio2a, y)
	case math.IsInf(x, 0):
		switch {
		case math.IsInf(x, 1) && math.IsInf(y, 0):
			return math.Copysign(pio4Hi, y)
		case math.IsInf(x, 1):
			return math.Copysign(0, y)
		case math.IsInf(y, 0):
			return math.Copysign(threePio4, y)
		}
		return math.Copysign(piHi, y)
	case math.IsInf(y, 0):
		return math.Copysign(pio2a, y)
	}
	ax, ay := math.Abs(x), math.Abs(y)
	num, den := ay, ax
	if ay > ax {
		num, den = ax, ay
	}
	if t := num / den; t < 0x1p-60 {
		// The angle is t, pi - t, pi/2 - t or pi/2 + t: pi and pi/2
		// lie 0.27 ulp above piHi and pio2a, t is below 2^-9 of their
		// ulp; atan t = t - t^3/3 rounds as t does (the ratio of two
		// float64s is never that close to a midpoint), unless t is
		// subnormal.
		switch {
		case ay > ax:
			return math.Copysign(pio2a, y)
		case x < 0:
			return math.Copysign(piHi, y)
		case t >= 0x1p-1022:
			return math.Copysign(t, y)
		}
		return ziv(func(p uint) *big.Float { return atan2Big(y, x, p) })
	}
	// Scale den into [1, 2), exactly (t >= 2^-60 keeps num and the
	// division's remainder normal), then divide as a double-double.
	_, e := math.Frexp(den)
	num, den = math.Ldexp(num, 1-e), math.Ldexp(den, 1-e)
	th := num / den
	tl := math.FMA(-th, den, num) / den
	hi, lo := atanCore(th, tl)
	switch {
	case ay <= ax && x < 0:
		h, l := twoSum(piHi, -hi)
		hi, lo = twoSum(h, l+piLo-lo)
	case ay > ax && x > 0:
		hi, lo = subFromHalfPi(hi, lo)
	case ay > ax:
		h, l := twoSum(pio2a, hi)
		hi, lo = twoSum(h, l+pio2b+lo)
	}
	if r, ok := roundDD(hi, lo, 0x1p-71*math.Abs(hi)); ok {
		return math.Copysign(r, y)
	}
	return ziv(func(p uint) *big.Float { return atan2Big(y, x, p) })
}
