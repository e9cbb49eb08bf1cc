package corelib

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// errOf returns |hi + lo - want|.
func errOf(hi, lo float64, want *big.Float) float64 {
	d := newF(400).Add(bigF(hi, 400), bigF(lo, 400))
	f, _ := d.Sub(d, want).Float64()
	return math.Abs(f)
}

// TestErrorBounds measures the fast paths' real errors against the slow
// path's evaluation and checks that every bound they claim is at least 8
// times the largest error seen (the rounding test relies on the bounds).
func TestErrorBounds(t *testing.T) {
	const prec = 300
	n := *randomN
	rng := rand.New(rand.NewPCG(7, 7))
	worst := map[string]float64{}
	where := map[string]float64{}
	var arg float64
	check := func(name string, err, bound float64) {
		if r := err / bound; r > worst[name] {
			worst[name] = r
			where[name] = arg
		}
	}
	for i := range n {
		// exp on a double-double argument, as pow calls it
		xh := (rng.Float64()*2 - 1) * 709
		if i%3 == 0 {
			xh = math.Ldexp(rng.Float64()*2-1, -rng.IntN(60))
		}
		xl := (rng.Float64()*2 - 1) * math.Abs(xh) * 0x1p-53
		arg = xh
		hi, lo, q, rel := expCore(xh, xl)
		want := expBig(newF(prec).Add(bigF(xh, prec), bigF(xl, prec)), prec)
		want.SetMantExp(want, -q)
		check("expCore", errOf(hi, lo, want), rel*hi)

		// log over the whole range, near 1 too
		x, _ := randomArgs(rng, "Log", i)
		arg = x
		hi, lo, err := logCore(x)
		check("logCore", errOf(hi, lo, logBig(bigF(x, prec), prec)), err)

		// sin and cos after the reduction
		x, _ = randomArgs(rng, "Sin", i)
		arg = x
		if math.Abs(x) >= 0x1p-27 {
			rh, rl, errR, k := reduce(x, math.Abs(x))
			r, kBig := reduceBig(x, prec)
			name := "trigReduce"
			if math.Abs(x) > 0x1p20 {
				name = "reduceLarge"
			}
			if k != kBig {
				t.Errorf("%s(%v): k = %d, want %d", name, x, k, kBig)
			}
			check(name, errOf(rh, rl, r), errR)
			sh, sl, serr, ch, cl, cerr := sinCos(rh, rl)
			rr := newF(prec).Add(bigF(rh, prec), bigF(rl, prec))
			check("sinCos/sin", errOf(sh, sl, sinCosBig(rr, prec, false)), serr)
			check("sinCos/cos", errOf(ch, cl, sinCosBig(rr, prec, true)), cerr)
		}

		// atan on [0, 1], with a low part as atan2 and 1/x give it
		th := rng.Float64()
		if i%3 == 0 {
			th = math.Ldexp(rng.Float64(), -rng.IntN(40))
		}
		tl := (rng.Float64()*2 - 1) * th * 0x1p-53
		arg = th
		hi, lo = atanCore(th, tl)
		check("atanCore", errOf(hi, lo, atanBig(newF(prec).Add(bigF(th, prec), bigF(tl, prec)), prec)), 0x1p-71*hi)
	}
	for name, w := range worst {
		t.Logf("%-12s worst error / bound = 2^%.1f (at %v)", name, math.Log2(w), where[name])
		if w > 1.0/8 {
			t.Errorf("%s: an error of 2^%.1f times its bound (want at most 1/8)", name, math.Log2(w))
		}
	}
}
