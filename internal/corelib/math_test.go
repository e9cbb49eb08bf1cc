package corelib

import (
	"flag"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

var randomN = flag.Int("corelib.n", 3000, "random arguments per function in TestFastAgainstSlow")

// slow evaluates the named function with the slow path only.
var slow = map[string]func(x, y float64) float64{
	"Exp": func(x, _ float64) float64 { return ziv(func(p uint) *big.Float { return expBig(bigF(x, p), p) }) },
	"Log": func(x, _ float64) float64 { return ziv(func(p uint) *big.Float { return logBig(bigF(x, p), p) }) },
	"Pow": func(x, y float64) float64 {
		r := powBig(math.Abs(x), y)
		if x < 0 && isOddInt(y) {
			r = -r
		}
		return r
	},
	"Sin":   func(x, _ float64) float64 { return ziv(func(p uint) *big.Float { return sinBig(x, p) }) },
	"Cos":   func(x, _ float64) float64 { return ziv(func(p uint) *big.Float { return cosBig(x, p) }) },
	"Tan":   func(x, _ float64) float64 { return ziv(func(p uint) *big.Float { return tanBig(x, p) }) },
	"Atan":  func(x, _ float64) float64 { return ziv(func(p uint) *big.Float { return atanBig(bigF(x, p), p) }) },
	"Atan2": func(y, x float64) float64 { return ziv(func(p uint) *big.Float { return atan2Big(y, x, p) }) },
}

var fast = map[string]func(x, y float64) float64{
	"Exp":   func(x, _ float64) float64 { return Exp(x) },
	"Log":   func(x, _ float64) float64 { return Log(x) },
	"Pow":   Pow,
	"Sin":   func(x, _ float64) float64 { return Sin(x) },
	"Cos":   func(x, _ float64) float64 { return Cos(x) },
	"Tan":   func(x, _ float64) float64 { return Tan(x) },
	"Atan":  func(x, _ float64) float64 { return Atan(x) },
	"Atan2": Atan2,
}

// randomArgs returns argument i of n for function name: a mix of ranges
// (uniform in the common ones, random exponents over the whole range).
func randomArgs(rng *rand.Rand, name string, i int) (x, y float64) {
	uni := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	expo := func(emin, emax int, signed bool) float64 {
		f := math.Ldexp(1+rng.Float64(), emin+rng.IntN(emax-emin+1))
		if signed && rng.IntN(2) == 0 {
			f = -f
		}
		return f
	}
	mode := i % 4
	switch name {
	case "Exp":
		return [4]float64{uni(-745, 709.8), uni(-1, 1), expo(-60, 3, true), uni(-20, 20)}[mode], 0
	case "Log":
		return [4]float64{expo(-1074, 1023, false), uni(0.5, 2), uni(0, 1000), 1 + uni(-1e-6, 1e-6)}[mode], 0
	case "Pow":
		switch mode {
		case 0:
			return uni(0, 10), uni(-10, 10)
		case 1:
			return expo(-3, 3, false), uni(-300, 300)
		case 2:
			x := expo(-1022, 1023, false)
			return x, uni(-1, 1) * 1000 / (math.Abs(math.Log2(x)) + 1e-300)
		}
		return uni(-20, 20), math.Trunc(uni(-40, 40))
	case "Sin", "Cos", "Tan":
		return [4]float64{uni(-3.2, 3.2), uni(-100, 100), expo(-30, 1023, true), uni(-1e8, 1e8)}[mode], 0
	case "Atan":
		return [4]float64{uni(-2, 2), expo(-30, 60, true), uni(-100, 100), expo(-1022, 1023, true)}[mode], 0
	}
	switch mode { // Atan2
	case 0:
		return uni(-10, 10), uni(-10, 10)
	case 1:
		return expo(-30, 30, true), expo(-30, 30, true)
	case 2:
		return uni(-1, 1), uni(-1, 1)
	}
	return expo(-1022, 1023, true), expo(-1022, 1023, true)
}

func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// TestFastAgainstSlow checks each function, fast paths included, against
// the slow path alone on random arguments (-corelib.n per function).
func TestFastAgainstSlow(t *testing.T) {
	for _, name := range []string{"Exp", "Log", "Pow", "Sin", "Cos", "Tan", "Atan", "Atan2"} {
		rng := rand.New(rand.NewPCG(1, uint64(len(name))))
		bad, fallbacks := 0, int64(0)
		for i := range *randomN {
			x, y := randomArgs(rng, name, i)
			n := slowCalls.Load()
			got := fast[name](x, y)
			fallbacks += slowCalls.Load() - n
			want := slow[name](x, y)
			if !sameFloat(got, want) {
				if bad++; bad <= 10 {
					t.Errorf("%s(%v, %v) = %v (%#x), want %v (%#x)", name, x, y, got, math.Float64bits(got), want, math.Float64bits(want))
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d differ", name, bad, *randomN)
		}
		t.Logf("%s: %d of %d arguments took the slow path", name, fallbacks, *randomN)
	}
}
