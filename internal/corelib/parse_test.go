package corelib

import (
	"math"
	"testing"
	"unicode/utf16"
)

func u16(s string) []uint16 { return utf16.Encode([]rune(s)) }

// The cases CoreCLR 2.0 and Mono 6.8 were run on agree with them; the
// ones marked "current" follow .NET Core 3.0 and later, where they differ.
func TestParseInteger(t *testing.T) {
	tests := []struct {
		in   string
		i32  int32
		st32 ParseStatus
		i64  int64
		st64 ParseStatus
	}{
		{"0", 0, ParseOK, 0, ParseOK},
		{"-42", -42, ParseOK, -42, ParseOK},
		{"+42", 42, ParseOK, 42, ParseOK},
		{" \t42\n\r\v\f", 42, ParseOK, 42, ParseOK},
		{"-0", 0, ParseOK, 0, ParseOK},
		{"00000000000000000000000012", 12, ParseOK, 12, ParseOK},
		{"2147483647", math.MaxInt32, ParseOK, math.MaxInt32, ParseOK},
		{"2147483648", 0, ParseOverflow, 2147483648, ParseOK},
		{"-2147483648", math.MinInt32, ParseOK, math.MinInt32, ParseOK},
		{"-2147483649", 0, ParseOverflow, -2147483649, ParseOK},
		{"9223372036854775807", 0, ParseOverflow, math.MaxInt64, ParseOK},
		{"9223372036854775808", 0, ParseOverflow, 0, ParseOverflow},
		{"-9223372036854775808", 0, ParseOverflow, math.MinInt64, ParseOK},
		{"-9223372036854775809", 0, ParseOverflow, 0, ParseOverflow},
		{"99999999999999999999999 ", 0, ParseOverflow, 0, ParseOverflow},
		{"99999999999999999999999x", 0, ParseFormat, 0, ParseFormat}, // a format error wins
		{"42\x00", 42, ParseOK, 42, ParseOK},
		{"42 \x00\x00", 42, ParseOK, 42, ParseOK},
		{"42\x00 ", 0, ParseFormat, 0, ParseFormat},
		{"", 0, ParseFormat, 0, ParseFormat},
		{" ", 0, ParseFormat, 0, ParseFormat},
		{"-", 0, ParseFormat, 0, ParseFormat},
		{"- 42", 0, ParseFormat, 0, ParseFormat},
		{"+-1", 0, ParseFormat, 0, ParseFormat},
		{"4 2", 0, ParseFormat, 0, ParseFormat},
		{"1,000", 0, ParseFormat, 0, ParseFormat},
		{"12.0", 0, ParseFormat, 0, ParseFormat},
		{"1e3", 0, ParseFormat, 0, ParseFormat},
		{"0x10", 0, ParseFormat, 0, ParseFormat},
		{"\u00a042", 0, ParseFormat, 0, ParseFormat},
		{"\u0661\u0662", 0, ParseFormat, 0, ParseFormat},
	}
	for _, tt := range tests {
		v32, st32 := ParseInt32(u16(tt.in))
		if v32 != tt.i32 || st32 != tt.st32 {
			t.Errorf("ParseInt32(%q) = %d, %d; want %d, %d", tt.in, v32, st32, tt.i32, tt.st32)
		}
		v64, st64 := ParseInt64(u16(tt.in))
		if v64 != tt.i64 || st64 != tt.st64 {
			t.Errorf("ParseInt64(%q) = %d, %d; want %d, %d", tt.in, v64, st64, tt.i64, tt.st64)
		}
	}
}

func TestParseDouble(t *testing.T) {
	inf, ninf := math.Inf(1), math.Inf(-1)
	fail := math.Float64frombits(0x7FF0DEADBEEF0000) // marks ParseFormat
	tests := []struct {
		in   string
		want float64
	}{
		{"0", 0},
		{"1.5", 1.5},
		{"-1.5", -1.5},
		{"+.5", 0.5},
		{".5", 0.5},
		{"5.", 5},
		{"1e5", 1e5},
		{"1E+05", 1e5},
		{"1e-5", 1e-5},
		{"1,000.5", 1000.5},
		{"1,,2", 12},
		{"1,2,3.5e1", 1235},
		{"  3.25  ", 3.25},
		{"1.5\x00", 1.5},
		{"0.1", 0.1},
		{"123456789012345678901234567890", 1.2345678901234568e29},
		{"4.9406564584124654E-324", 5e-324},
		{"2.4703282292062328E-324", 5e-324},
		{"2.4703282292062327E-324", 0}, // current: correctly rounded (2.0: 5e-324)
		{"1.7976931348623158e308", math.MaxFloat64},
		{"1.7976931348623159e308", inf}, // current: infinite (2.0: OverflowException)
		{"1e400", inf},
		{"-1e400", ninf},
		{"1e99999999999", inf},
		{"1e-99999999999", 0},
		{"1e-400", 0},
		{"-0", math.Copysign(0, -1)}, // current: -0 (2.0: +0)
		{"-0.0e5", math.Copysign(0, -1)},
		{"0e99999", 0},
		{"Infinity", inf},
		{"-Infinity", ninf},
		{"NaN", nan},
		{" Infinity ", inf},
		{"\u00a0Infinity\u2003", inf},
		{"infinity", inf}, // current: any case (2.0: exact case only)
		{"-INFINITY", ninf},
		{"nan", nan},
		{"+Infinity", inf}, // current (2.0: FormatException)
		{"+NaN", nan},
		{"-NaN", nan},
		{"\u0131nfin\u0131ty", inf}, // dotless i upper-cases to I
		{".", fail},
		{"-.", fail},
		{"1e", fail},
		{"1e+", fail},
		{",5", fail},
		{"1.000,5", fail},
		{"- Infinity", fail},
		{"+-Infinity", fail},
		{"0x1p3", fail},
		{"1_0", fail},
		{"\u221e", fail},
		{"1.5f", fail},
		{"1d", fail},
		{"", fail},
		{" ", fail},
		{"- 1", fail},
		{"1.5 x", fail},
	}
	for _, tt := range tests {
		got, st := ParseDouble(u16(tt.in))
		if math.Float64bits(tt.want) == math.Float64bits(fail) {
			if st != ParseFormat {
				t.Errorf("ParseDouble(%q) = %v, %d; want a format error", tt.in, got, st)
			}
			continue
		}
		if st != ParseOK || math.Float64bits(got) != math.Float64bits(tt.want) {
			t.Errorf("ParseDouble(%q) = %v (%#x), %d; want %v (%#x)", tt.in, got, math.Float64bits(got), st, tt.want, math.Float64bits(tt.want))
		}
	}
}

func TestFormatMessage(t *testing.T) {
	if got, want := string(utf16.Decode(FormatMessage(u16(" 1x ")))), "The input string ' 1x ' was not in a correct format."; got != want {
		t.Errorf("FormatMessage = %q, want %q", got, want)
	}
}
