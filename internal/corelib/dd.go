package corelib

import "math"

// Double-double arithmetic for the fast paths: a value hi + lo with
// |lo| <= ulp(hi)/2 carries about 106 bits. twoSum and twoProd are
// exact (twoProd through a fused multiply-add, which math.FMA computes
// exactly on every machine).

// twoSum returns s = fl(a+b) and the exact error e: a + b = s + e.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// fastTwoSum is twoSum for |a| >= |b| (or a == 0).
func fastTwoSum(a, b float64) (s, e float64) {
	s = a + b
	e = b - (s - a)
	return s, e
}

// twoProd returns p = fl(a*b) and the exact error e: a * b = p + e
// (barring underflow).
func twoProd(a, b float64) (p, e float64) {
	p = a * b
	e = math.FMA(a, b, -p)
	return p, e
}

// ddDiv returns (ah + al) / (bh + bl) as a double-double, with a
// relative error below 2^-100.
func ddDiv(ah, al, bh, bl float64) (float64, float64) {
	q := ah / bh
	// remainder a - q b, computed exactly up to the low parts' products
	r := math.FMA(-q, bh, ah) + al - q*bl
	return fastTwoSum(q, r/bh)
}

// roundDD returns the float64 nearest to the exact value v, known to lie
// within err of hi + lo (hi = fl(hi + lo), hi a normal number), when
// every value of that interval rounds to the same float64; ok is false
// when the interval touches a rounding boundary. err should overstate
// the real bound a little: the comparisons below round.
func roundDD(hi, lo, err float64) (r float64, ok bool) {
	// the float64s next to hi, up and down (hi is normal)
	b := math.Float64bits(hi)
	up, down := math.Float64frombits(b+1), math.Float64frombits(b-1)
	if hi < 0 {
		up, down = down, up
	}
	return hi, lo+err < (up-hi)/2 && lo-err > (down-hi)/2
}

// scale returns r 2^q for -1022 <= q <= 1023, exactly when the result is
// normal.
func scale(r float64, q int) float64 {
	return r * math.Float64frombits(uint64(q+1023)<<52)
}
