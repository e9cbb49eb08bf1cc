package corelib

import (
	"math"
	"testing"
)

var sink float64

func BenchmarkMath(b *testing.B) {
	for _, bm := range []struct {
		name string
		f    func(float64) float64
		x    float64
	}{
		{"Exp", Exp, 1.2345},
		{"Log", Log, 12.345},
		{"Log10", Log10, 12.345},
		{"Pow", func(x float64) float64 { return Pow(x, 1.75) }, 12.345},
		{"Sin", Sin, 1.2345},
		{"Cos", Cos, 1.2345},
		{"Tan", Tan, 1.2345},
		{"Atan", Atan, 1.2345},
		{"Atan2", func(x float64) float64 { return Atan2(x, 0.75) }, 1.2345},
		{"SinHuge", Sin, 1e22},
		{"ExpSubnormal", Exp, -740.5},
		{"PowExact", func(x float64) float64 { return Pow(x, 34) }, 3},
		{"GoSin", math.Sin, 1.2345},
		{"GoExp", math.Exp, 1.2345},
		{"GoPow", func(x float64) float64 { return math.Pow(x, 1.75) }, 12.345},
	} {
		b.Run(bm.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink = bm.f(bm.x)
			}
		})
	}
}
