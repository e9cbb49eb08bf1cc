package il

import (
	"math"
	"testing"
)

func TestFormatR8(t *testing.T) {
	a, b := 0.1, 0.2 // variables: constant arithmetic would be exact
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "-0"},
		{1, "1"},
		{-1, "-1"},
		{a + b, "0.30000000000000004"},
		{0.1, "0.1"},
		{123.456, "123.456"},
		{-123.456, "-123.456"},
		{1e14, "100000000000000"},
		{1e15, "1E+15"},
		{123456789012345, "123456789012345"},
		{1234567890123456, "1.234567890123456E+15"},
		{1.5e300, "1.5E+300"},
		{math.MaxFloat64, "1.7976931348623157E+308"},
		{5e-324, "5E-324"},
		{0.0001, "0.0001"},
		{0.00012345, "0.00012345"},
		{1e-5, "1E-05"},
		{1.25e-5, "1.25E-05"},
		{-1e-7, "-1E-07"},
		{1.0 / 3, "0.3333333333333333"},
		{2.0 / 3, "0.6666666666666666"},
		{100, "100"},
		{1e10, "10000000000"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "∞"},
		{math.Inf(-1), "-∞"},
		{3.14159, "3.14159"},
		{2147483648, "2147483648"},
		{9007199254740992, "9.007199254740992E+15"},
	}
	for _, tc := range tests {
		if got := FormatR8(tc.in); got != tc.want {
			t.Errorf("FormatR8(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFormatR4(t *testing.T) {
	tests := []struct {
		in   float32
		want string
	}{
		{0, "0"},
		{float32(math.Copysign(0, -1)), "-0"},
		{0.1, "0.1"},
		{1.5, "1.5"},
		{3.75, "3.75"},
		{1.0 / 3, "0.33333334"},
		{16777216, "1.6777216E+07"},
		{1234567, "1234567"},
		{12345678, "1.2345678E+07"},
		{math.MaxFloat32, "3.4028235E+38"},
		{1e-45, "1E-45"},
		{0.0001, "0.0001"},
		{0.00001, "1E-05"},
		{float32(math.NaN()), "NaN"},
		{float32(math.Inf(1)), "∞"},
		{float32(math.Inf(-1)), "-∞"},
		{1000000, "1000000"},
		{10000000, "1E+07"},
	}
	for _, tc := range tests {
		if got := FormatR4(tc.in); got != tc.want {
			t.Errorf("FormatR4(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
