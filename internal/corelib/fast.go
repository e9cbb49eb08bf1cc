package corelib

import (
	"math"
	"math/bits"
)

// The fast paths: double-double evaluations (about 100 bits) that return
// a value hi + lo and a bound on its error, for roundDD to decide the
// rounding. The bounds overstate the analysis below by a factor of 8 or
// more; TestFastAgainstSlow checks millions of arguments against the slow
// path.

// expCore returns e^(xh+xl) = 2^q (hi + lo), hi in [1, 2], with a relative
// error below rel, for |xh| < 710 and |xl| <= ulp(xh).
//
// x = k ln2/expN + r with |r| <= ln2/(2 expN) (2^-8.5); e^x =
// 2^(k/expN) e^r, 2^(j/expN) from the table (k = q expN + j), e^r - 1 by
// its Taylor series: r + r^2/2 exactly as a double-double, the rest in
// float64 (below 2^-27.8, so its rounding errors stay below 2^-79).
func expCore(xh, xl float64) (hi, lo float64, q int, rel float64) {
	kf := math.Round(xh * invLn2N)
	k := int(kf)
	p1, e1 := twoProd(kf, ln2N1)
	t := xh - p1 // exact: p1 is within a factor 2 of xh (Sterbenz), or 0
	p2, e2 := twoProd(kf, ln2N2)
	rh, rl := twoSum(t, -p2)
	rl += xl - e1 - e2 - kf*ln2N3
	rh, rl = twoSum(rh, rl)
	j := k & (expN - 1)
	q = k >> 7 // k = q expN + j
	s, se := twoProd(rh, rh)
	se += 2 * rh * rl
	tail := rh * s * (1.0/6 + rh*(1.0/24+rh*(1.0/120+rh*(1.0/720+rh*(1.0/5040+rh*(1.0/40320+rh*(1.0/362880)))))))
	a, b := fastTwoSum(rh, s/2)
	b += rl + se/2 + tail + rl*s/2 // rl r^2/2: the tail's change with rl
	th, tl := expTable[2*j], expTable[2*j+1]
	ph, pl := twoProd(th, a)
	hi, lo = fastTwoSum(th, ph)
	lo += pl + th*b + tl + tl*a
	hi, lo = fastTwoSum(hi, lo)
	return hi, lo, q, 0x1p-74
}

// logCore returns log x as hi + lo with an absolute error below err, for
// finite x > 0.
//
// x = 2^e m, m in [sqrt(1/2), sqrt 2]; c = 1/(i/logN), i = round(m logN),
// from the table with -log c; r = m c - 1 exactly (|r| <= 2^-8.5); log x
// = e ln 2 - log c + log1p(r), log1p(r) by its series: r - r^2/2 + r^3/3
// as double-doubles, the rest in float64 (below 2^-36 |r|, so its
// rounding errors stay below 2^-78 |r|).
func logCore(x float64) (hi, lo, err float64) {
	bits := math.Float64bits(x)
	e := int(bits>>52) - 1023
	if e == -1023 { // subnormal
		bits = math.Float64bits(x * 0x1p54)
		e = int(bits>>52) - 1023 - 54
	}
	m := math.Float64frombits(bits&(1<<52-1) | 1023<<52)
	if m > math.Sqrt2 {
		m /= 2
		e++
	}
	i := int(m*logN + 0.5)
	c, ch, cl := logTable[3*(i-logMin)], logTable[3*(i-logMin)+1], logTable[3*(i-logMin)+2]
	ph, pl := twoProd(m, c)
	rh, rl := twoSum(ph-1, pl) // ph - 1 is exact: ph is within 2^-8 of 1
	s, se := twoProd(rh, rh)
	se += 2 * rh * rl
	u, ue := twoProd(s, rh)
	ue += se*rh + s*rl
	u3h := u / 3
	u3l := (math.FMA(-u3h, 3, u) + ue) / 3
	tail := s * s * (-1.0/4 + rh*(1.0/5+rh*(-1.0/6+rh*(1.0/7+rh*(-1.0/8+rh*(1.0/9+rh*(-1.0/10+rh*(1.0/11+rh*(-1.0/12+rh*(1.0/13))))))))))
	a, b := fastTwoSum(rh, -s/2)
	a, t := fastTwoSum(a, u3h)
	b += t + rl - se/2 + u3l + tail - rl*u // rl r^3: the tail's change with rl
	ef := float64(e)
	el1, el2 := twoProd(ef, ln2b)
	hi, lo = twoSum(ef*ln2a, ch) // ef ln2a is exact: ln2a has 42 bits
	hi, t = twoSum(hi, el1)
	hi, t2 := twoSum(hi, a)
	lo += t + t2 + el2 + ef*ln2c + cl + b
	hi, lo = twoSum(hi, lo)
	return hi, lo, 0x1p-74*math.Abs(rh) + 0x1p-98*math.Abs(hi)
}

// trigReduce returns r = x - k pi/2 (|r| <= pi/4 and a little) as
// rh + rl with an absolute error below err, and k mod 4, for
// |x| <= 2^20 (Cody and Waite's reduction with pi/2 in three float64s,
// the products exact by FMA).
func trigReduce(x float64) (rh, rl, err float64, k int) {
	kf := math.Round(x * invPio2)
	p1, e1 := twoProd(kf, pio2a)
	t := x - p1 // exact: p1 is within a factor 2 of x (Sterbenz), or 0
	p2, e2 := twoProd(kf, pio2b)
	rh, rl = twoSum(t, -p2)
	rl += -e1 - e2 - kf*pio2c
	rh, rl = twoSum(rh, rl)
	return rh, rl, 0x1p-100*math.Abs(x) + 0x1p-140, int(int64(kf) & 3)
}

// sinCos returns sin r and cos r for |r| <= pi/4 (and a little) as
// double-doubles with absolute error bounds.
//
// r = j/trigN + b, |b| <= 1/(2 trigN) (2^-7); sin and cos of j/trigN from
// the table; sin b and cos b - 1 by their series: b, b^3/6 and b^2/2 as
// double-doubles, the rest in float64 (below 2^-41.9 and 2^-32.5, so
// their rounding errors stay below 2^-84).
func sinCos(rh, rl float64) (sh, sl, serr, ch, cl, cerr float64) {
	jf := math.Round(rh * trigN)
	bh, bl := twoSum(rh-jf/trigN, rl) // rh - jf/trigN is exact (Sterbenz), or jf == 0
	s, se := twoProd(bh, bh)
	se += 2 * bh * bl
	u, ue := twoProd(s, bh)
	ue += se*bh + s*bl
	u6h := u / 6
	u6l := (math.FMA(-u6h, 6, u) + ue) / 6
	b2 := s
	sTail := u * b2 * (1.0/120 + b2*(-1.0/5040+b2*(1.0/362880+b2*(-1.0/39916800))))
	sbh, sbl := fastTwoSum(bh, -u6h)
	sbl += bl - u6l + sTail // sin b
	cTail := b2 * b2 * (1.0/24 + b2*(-1.0/720+b2*(1.0/40320+b2*(-1.0/3628800))))
	cmh, cml := -s/2, -se/2+cTail // cos b - 1
	j := int(math.Abs(jf))
	Sh, Sl := sinCosTable[4*j], sinCosTable[4*j+1]
	Ch, Cl := sinCosTable[4*j+2], sinCosTable[4*j+3]
	if jf < 0 {
		Sh, Sl = -Sh, -Sl
	}
	// sin r = S + S (cos b - 1) + C sin b
	p1, q1 := twoProd(Ch, sbh)
	p2, q2 := twoProd(Sh, cmh)
	sh, sl = twoSum(Sh, p1)
	sh, t := twoSum(sh, p2)
	sl += t + q1 + q2 + Sl + Sl*cmh + Ch*sbl + Cl*sbh + Sh*cml
	sh, sl = twoSum(sh, sl)
	// cos r = C + C (cos b - 1) - S sin b
	p1, q1 = twoProd(-Sh, sbh)
	p2, q2 = twoProd(Ch, cmh)
	ch, cl = twoSum(Ch, p1)
	ch, t = twoSum(ch, p2)
	cl += t + q1 + q2 + Cl + Cl*cmh - Sh*sbl - Sl*sbh + Ch*cml
	ch, cl = twoSum(ch, cl)
	serr = 0x1p-75 * math.Abs(sh)
	if jf != 0 {
		serr += 0x1p-78
	}
	return sh, sl, serr, ch, cl, 0x1p-78
}

// atanCore returns atan t for t = th + tl in [0, 1] as a double-double
// with a relative error below 2^-71.
//
// c = j/atanN nearest to t; atan t = atan c + atan u with u = (t - c) /
// (1 + t c), |u| <= 1/(2 atanN) (2^-7); atan u by its series.
func atanCore(th, tl float64) (hi, lo float64) {
	jf := math.Round(th * atanN)
	uh, ul := th, tl
	if jf != 0 {
		c := jf / atanN
		nh := th - c // exact (Sterbenz)
		p, pe := twoProd(th, c)
		dh, dl := fastTwoSum(1, p)
		dl += pe + tl*c
		uh, ul = ddDiv(nh, tl, dh, dl)
	}
	// atan u = u - u^3/3 + u^5/5 - ...: u and u^3/3 as double-doubles,
	// the rest in float64 (below 2^-37 |u|)
	s, se := twoProd(uh, uh)
	se += 2 * uh * ul
	v, ve := twoProd(s, uh)
	ve += se*uh + s*ul
	v3h := v / 3
	v3l := (math.FMA(-v3h, 3, v) + ve) / 3
	tail := v * s * (1.0/5 + s*(-1.0/7+s*(1.0/9+s*(-1.0/11+s*(1.0/13)))))
	j := int(jf)
	hi, lo = twoSum(atanTable[2*j], uh)
	hi, t := twoSum(hi, -v3h)
	lo += t + atanTable[2*j+1] + ul - v3l + tail
	return twoSum(hi, lo)
}

// subFromHalfPi returns pi/2 - (hi + lo), for 0 <= hi + lo <= pi/4.
func subFromHalfPi(hi, lo float64) (float64, float64) {
	h, l := twoSum(pio2a, -hi)
	return twoSum(h, l+pio2b-lo)
}

// reduceLarge is trigReduce for finite |x| > 2^20 (Payne and Hanek's
// reduction). |x| = m 2^e with m a 53-bit integer; the bits of 2/pi
// weighing 2^(1-e) and more contribute multiples of 4 to |x| 2/pi and
// are skipped: m times the next 256 bits, computed exactly in 64-bit
// words, gives |x| 2/pi modulo 4 with an error below 2^-200. Its
// integer part is k, its fraction f (taken in [-1/2, 1/2)) gives r =
// f pi/2 as a double-double.
func reduceLarge(x float64) (rh, rl, err float64, k int) {
	b := math.Float64bits(x)
	m := b&(1<<52-1) | 1<<52
	e := int(b>>52&0x7ff) - 1075 // |x| = m 2^e, e >= -32
	// 2/pi's bit i weighs 2^-i; the window starts at i = e-1, which is
	// bit e+62 of twoOverPiBits (counting from the first word's top bit,
	// after its word of zeros).
	j := uint(e + 62)
	w, sh := j/64, j%64
	var z [4]uint64
	for i := range z {
		z[i] = twoOverPiBits[w+uint(i)] << sh
		if sh != 0 {
			z[i] |= twoOverPiBits[w+uint(i)+1] >> (64 - sh)
		}
	}
	// P = m Z in words p0 (above) p1 p2 p3 p4; |x| 2/pi = P 2^-254
	// modulo 4, and p0 holds multiples of 4.
	h3, p4 := bits.Mul64(m, z[3])
	h2, l2 := bits.Mul64(m, z[2])
	h1, l1 := bits.Mul64(m, z[1])
	_, l0 := bits.Mul64(m, z[0])
	p3, c := bits.Add64(l2, h3, 0)
	p2, c := bits.Add64(l1, h2, c)
	p1, _ := bits.Add64(l0, h1, c)
	k = int(p1 >> 62)
	// the fraction, 192 bits: f0 f1 f2
	f0 := p1<<2 | p2>>62
	f1 := p2<<2 | p3>>62
	f2 := p3<<2 | p4>>62
	neg := f0>>63 != 0
	if neg { // f >= 1/2: take f - 1, by its magnitude 1 - f
		k++
		var br uint64
		f2, br = bits.Sub64(0, f2, 0)
		f1, br = bits.Sub64(0, f1, br)
		f0, _ = bits.Sub64(0, f0, br)
	}
	// normalize and take 106 bits
	lz := 0
	for f0 == 0 && lz < 128 {
		f0, f1, f2 = f1, f2, 0
		lz += 64
	}
	if f0 == 0 {
		return 0, 0, math.Inf(1), 0 // not reached: r is never that small
	}
	s := uint(bits.LeadingZeros64(f0))
	if s != 0 {
		f0 = f0<<s | f1>>(64-s)
		f1 = f1<<s | f2>>(64-s)
	}
	lz += int(s)
	hi := math.Ldexp(float64(f0>>11), -53-lz)
	lo := math.Ldexp(float64((f0&(1<<11-1))<<42|f1>>22), -106-lz)
	fh, fl := fastTwoSum(hi, lo)
	// r = f pi/2
	p, pe := twoProd(fh, pio2a)
	pe += fh*pio2b + fl*pio2a
	rh, rl = fastTwoSum(p, pe)
	if neg != (x < 0) {
		rh, rl = -rh, -rl
	}
	if x < 0 {
		k = -k
	}
	return rh, rl, 0x1p-98*math.Abs(rh) + 0x1p-185, k & 3
}
