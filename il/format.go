package il

import (
	"math"
	"strconv"
	"strings"
)

// FormatR8 formats a float64 exactly like current CoreCLR's
// Double.ToString() with the invariant culture: the shortest digits that
// round-trip, in fixed notation unless the decimal point would sit more
// than max(17, number of digits) places right of the first digit
// (Number.Formatting.cs uses MaxRoundTripDigits, 17 for double) or the
// value is below 1E-04; then "1.2345E+17", "1E-05" (exponent sign always,
// at least two digits). Also "NaN", "∞", "-∞", and "-0" for negative zero.
// So 1E+17 but 10000000000000000 for 1e16, and 0.0001 but 1E-05.
func FormatR8(f float64) string {
	if s, ok := special(f); ok {
		return s
	}
	return formatShortest(strconv.FormatFloat(f, 'e', -1, 64), 17)
}

// FormatR4 formats a float32 exactly like CoreCLR's Single.ToString():
// as FormatR8, with float32 shortest digits and 9 in place of 17
// (100000000 for 1e8f, 1E+09 for 1e9f).
func FormatR4(f float32) string {
	if s, ok := special(float64(f)); ok {
		return s
	}
	return formatShortest(strconv.FormatFloat(float64(f), 'e', -1, 32), 9)
}

func special(f float64) (string, bool) {
	switch {
	case math.IsNaN(f):
		return "NaN", true
	case math.IsInf(f, 1):
		return "∞", true
	case math.IsInf(f, -1):
		return "-∞", true
	case f == 0:
		if math.Signbit(f) {
			return "-0", true
		}
		return "0", true
	}
	return "", false
}

// formatShortest turns Go's shortest 'e' form (-d.ddde+XX) into .NET's
// general format. precision is 17 for double and 9 for float: .NET's
// shortest round-trip "G" formatting uses max(precision, digit count) as
// the largest exponent shown in fixed notation (Number.Formatting.cs).
func formatShortest(e string, precision int) string {
	neg := false
	if e[0] == '-' {
		neg = true
		e = e[1:]
	}
	i := strings.IndexByte(e, 'e')
	mant, exps := e[:i], e[i+1:]
	exp, _ := strconv.Atoi(exps)
	digits := strings.Replace(mant, ".", "", 1)
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		digits = "0"
	}
	scale := exp + 1 // the decimal point follows the first scale digits
	maxScale := max(precision, len(digits))
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case scale > maxScale || scale < -3:
		b.WriteByte(digits[0])
		if len(digits) > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('E')
		if exp < 0 {
			b.WriteByte('-')
			exp = -exp
		} else {
			b.WriteByte('+')
		}
		if exp < 10 {
			b.WriteByte('0')
		}
		b.WriteString(strconv.Itoa(exp))
	case scale <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -scale))
		b.WriteString(digits)
	case scale >= len(digits):
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", scale-len(digits)))
	default:
		b.WriteString(digits[:scale])
		b.WriteByte('.')
		b.WriteString(digits[scale:])
	}
	return b.String()
}
