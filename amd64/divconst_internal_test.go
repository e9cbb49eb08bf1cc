package amd64

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// udivBy computes x / d as divConst's code does with magic mg: x is an
// n-bit value zero-extended to 64 bits.
func udivBy(mg magic, x uint64) uint64 {
	if mg.add {
		h, _ := bits.Mul64(x, mg.m)
		return ((x-h)>>1 + h) >> (mg.post - 1)
	}
	h, _ := bits.Mul64(x>>mg.pre, mg.m)
	return h >> mg.post
}

// sdivBy computes x / d, rounded toward zero, as divConst's code does
// with magic mg: x is an n-bit value sign-extended to 64 bits.
func sdivBy(mg magic, x int64) int64 {
	h := mulhs(x, int64(mg.m))
	if mg.add {
		h += x
	}
	h >>= mg.post
	return h + int64(uint64(h)>>63)
}

// mulhs returns the high 64 bits of the signed 128-bit product x*y.
func mulhs(x, y int64) int64 {
	h, _ := bits.Mul64(uint64(x), uint64(y))
	// Correct the unsigned product for negative factors.
	if x < 0 {
		h -= uint64(y)
	}
	if y < 0 {
		h -= uint64(x)
	}
	return int64(h)
}

// magicDivisors returns the divisors the magic tests try for n-bit
// operands (max the largest): every small one, the neighbors of every
// power of two and of its multiples by 3 and 5, and random ones of every
// length.
func magicDivisors(max uint64, r *rand.Rand) []uint64 {
	var ds []uint64
	for d := uint64(3); d < 3000; d++ {
		ds = append(ds, d)
	}
	for k := 2; k < 64; k++ {
		for _, b := range []uint64{1 << k, 3 << (k - 1), 5 << (k - 2)} {
			for _, d := range []uint64{b - 2, b - 1, b + 1, b + 2} {
				if d <= max {
					ds = append(ds, d)
				}
			}
		}
	}
	for range 2000 {
		ds = append(ds, (r.Uint64()&max)>>r.IntN(64))
	}
	out := ds[:0]
	for _, d := range ds {
		if d > 2 && d&(d-1) != 0 {
			out = append(out, d)
		}
	}
	return out
}

// dividends returns the dividends tried with d: the extremes, the
// multiples of d nearest to them and to 0 and their neighbors, and
// random ones, each reduced to n bits (signed).
func dividends(d uint64, n uint, r *rand.Rand) []uint64 {
	xs := []uint64{0, 1, 2, math.MaxUint64, math.MaxUint64 - 1, 1 << 63, 1<<63 - 1, 1<<63 + 1, 1 << 31, 1<<31 - 1, 1<<32 - 1}
	for _, m := range []uint64{d, 2 * d, math.MaxUint64 / d * d, (1 << 63) / d * d, (1 << 32) / d * d, (1 << 31) / d * d} {
		xs = append(xs, m-1, m, m+1, -m, -m-1, -m+1)
	}
	for range 24 {
		xs = append(xs, r.Uint64()>>r.IntN(64))
	}
	if n == 32 {
		for i, x := range xs {
			xs[i] = uint64(uint32(x))
		}
	}
	return xs
}

// TestUdivMagic checks udivMagic's multipliers against Go's division for
// many divisors of 32 and 64 bits and the dividends most likely to
// break a multiplier that is slightly off.
func TestUdivMagic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []uint{32, 64} {
		max := uint64(math.MaxUint64) >> (64 - n)
		shapes := map[string]int{}
		for _, d := range magicDivisors(max, r) {
			mg := udivMagic(d, n)
			switch {
			case mg.add:
				shapes["add"]++
			case mg.pre > 0:
				shapes["pre"]++
			default:
				shapes["plain"]++
			}
			if n == 32 && (mg.add || mg.pre != 0 || mg.post != 0) {
				t.Errorf("udivMagic(%d, 32) = %+v: want one multiplication", d, mg)
			}
			for _, x := range dividends(d, n, r) {
				if got := udivBy(mg, x); got != x/d {
					t.Fatalf("%d-bit %d / %d with %+v: got %d, want %d", n, x, d, mg, got, x/d)
				}
			}
		}
		if n == 64 && (shapes["add"] == 0 || shapes["pre"] == 0 || shapes["plain"] == 0) {
			t.Errorf("64-bit divisors tried no magic of some shape: %v", shapes)
		}
	}
}

// TestSdivMagic is TestUdivMagic for signed division, by d and -d.
func TestSdivMagic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []uint{32, 64} {
		max := uint64(1)<<(n-1) - 1
		adds := 0
		for _, d := range magicDivisors(max, r) {
			mg := sdivMagic(d, n)
			if mg.add {
				adds++
			}
			if n == 32 && (mg.add || mg.post != 0) {
				t.Errorf("sdivMagic(%d, 32) = %+v: want one multiplication", d, mg)
			}
			for _, u := range dividends(d, n, r) {
				x := int64(u)
				if n == 32 {
					x = int64(int32(u))
				}
				if got, want := sdivBy(mg, x), x/int64(d); got != want {
					t.Fatalf("%d-bit %d / %d with %+v: got %d, want %d", n, x, d, mg, got, want)
				}
			}
		}
		if n == 64 && adds == 0 {
			t.Errorf("64-bit divisors tried no multiplier of 2^63 or more")
		}
	}
}

// TestLowMagic checks lowMagic's multipliers for int32 dividends, as
// divConst's code uses them, against Go's division: every signed
// divisor has one, and the unsigned ones without one are those whose
// udivMagic multiplier (TestUdivMagic) does the division.
func TestLowMagic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	found := 0
	for _, signed := range []bool{false, true} {
		max := uint64(math.MaxUint32)
		if signed {
			max = math.MaxInt32
		}
		for _, d := range magicDivisors(max, r) {
			m, s, ok := lowMagic(d, signed)
			if !ok {
				if signed {
					t.Fatalf("lowMagic(%d, signed): none", d)
				}
				continue
			}
			found++
			if m >= 1<<32 {
				t.Fatalf("lowMagic(%d, %v) = %d: 33 bits", d, signed, m)
			}
			for _, u := range dividends(d, 32, r) {
				if signed {
					x := int64(int32(u))
					q := x * int64(m) >> (32 + s)
					q -= x >> 63 // + 1 for x < 0
					if want := x / int64(d); q != want {
						t.Fatalf("%d / %d with m %d, s %d: got %d, want %d", x, d, m, s, q, want)
					}
					continue
				}
				x := uint64(uint32(u))
				if q, want := x*m>>(32+s), x/d; q != want {
					t.Fatalf("%d / %d with m %d, s %d: got %d, want %d (unsigned)", x, d, m, s, q, want)
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no multipliers")
	}
}
