package corelib

import (
	"math"
	"strconv"
	"unicode"
)

// Int32.Parse, Int64.Parse and Double.Parse with the invariant culture,
// as current .NET (8 and later) parses: NumberStyles.Integer for the
// integers (white space, a sign, ASCII digits, white space) and
// NumberStyles.Float | NumberStyles.AllowThousands for Double (also a
// decimal point, ',' group separators before it, an exponent, and the
// symbols Infinity, -Infinity and NaN in any case). Strings are UTF-16,
// as the engines keep them.

// ParseStatus is the outcome of a parse.
type ParseStatus uint8

const (
	ParseOK       ParseStatus = iota
	ParseFormat               // FormatException (FormatMessage)
	ParseOverflow             // OverflowException (Int32Overflow, Int64Overflow)
)

// CoreCLR's messages for the exceptions of Parse and Math.Abs.
const (
	Int32OverflowMessage = "Value was either too large or too small for an Int32."
	Int64OverflowMessage = "Value was either too large or too small for an Int64."
	// NegateMinValueMessage is the OverflowException message of
	// Math.Abs(MinValue).
	NegateMinValueMessage = "Negating the minimum value of a twos complement number is invalid."
	// ParseNullMessage is the ArgumentNullException message of Parse(null).
	ParseNullMessage = "Value cannot be null. (Parameter 's')"
)

// FormatMessage returns the FormatException message for input s (current
// .NET quotes the whole input, white space included).
func FormatMessage(s []uint16) []uint16 {
	m := make([]uint16, 0, len(s)+44)
	m = append(m, utf16Of("The input string '")...)
	m = append(m, s...)
	return append(m, utf16Of("' was not in a correct format.")...)
}

func utf16Of(s string) []uint16 {
	u := make([]uint16, len(s))
	for i := range s {
		u[i] = uint16(s[i]) // ASCII only
	}
	return u
}

// isWhite reports whether c is white space to NumberStyles: U+0009 to
// U+000D and the space.
func isWhite(c uint16) bool { return c == ' ' || c >= '\t' && c <= '\r' }

func isDigit(c uint16) bool { return c >= '0' && c <= '9' }

// trailing reports whether s[i:] is white space followed by NUL
// characters only, as NumberStyles.AllowTrailingWhite and .NET's
// tolerance of trailing NULs accept.
func trailing(s []uint16, i int) bool {
	for i < len(s) && isWhite(s[i]) {
		i++
	}
	for i < len(s) && s[i] == 0 {
		i++
	}
	return i == len(s)
}

// leadingSign skips the leading white space of s and an optional sign,
// returning where the number starts and whether it is negative.
func leadingSign(s []uint16) (i int, neg bool) {
	for i < len(s) && isWhite(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	return i, neg
}

// parseInteger parses s as a signed integer of the given bits (32 or 64).
// A format error wins over an overflow, as in .NET.
func parseInteger(s []uint16, bits uint) (int64, ParseStatus) {
	i, neg := leadingSign(s)
	if i == len(s) || !isDigit(s[i]) {
		return 0, ParseFormat
	}
	limit := uint64(1)<<(bits-1) - 1 // the largest magnitude
	if neg {
		limit++
	}
	var v uint64
	overflow := false
	for ; i < len(s) && isDigit(s[i]); i++ {
		d := uint64(s[i] - '0')
		if v > (limit-d)/10 {
			overflow = true
		} else if !overflow {
			v = v*10 + d
		}
	}
	switch {
	case !trailing(s, i):
		return 0, ParseFormat
	case overflow:
		return 0, ParseOverflow
	case neg:
		return -int64(v), ParseOK // v = 2^63 wraps to MinInt64, as wanted
	}
	return int64(v), ParseOK
}

// ParseInt32 is Int32.Parse(string) for a non-null s.
func ParseInt32(s []uint16) (int32, ParseStatus) {
	v, st := parseInteger(s, 32)
	return int32(v), st
}

// ParseInt64 is Int64.Parse(string) for a non-null s.
func ParseInt64(s []uint16) (int64, ParseStatus) {
	return parseInteger(s, 64)
}

// nan is .NET's double.NaN (0/0 on x86: the sign bit set).
var nan = math.Float64frombits(0xFFF8000000000000)

// ParseDouble is Double.Parse(string) for a non-null s. The value is
// correctly rounded (.NET Core 3.0 and later), beyond the range it is
// infinite (3.0 and later; CoreCLR 2.0 threw OverflowException), and
// "-0" is negative zero. Its only failure is ParseFormat.
func ParseDouble(s []uint16) (float64, ParseStatus) {
	if f, ok := parseNumber(s); ok {
		return f, ParseOK
	}
	return parseSymbol(s)
}

// parseNumber parses the numeric forms: [ws][sign]digits[.digits][e[sign]digits][ws].
func parseNumber(s []uint16) (float64, bool) {
	i, neg := leadingSign(s)
	// The digits, without the separators: mantissa digits and the
	// position of the decimal point.
	digits := make([]byte, 0, len(s)+24)
	seenDigit, seenPoint := false, false
	pointAt := -1
loop:
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			seenDigit = true
			digits = append(digits, byte(c))
		case c == '.' && !seenPoint:
			seenPoint = true
			pointAt = len(digits)
		case c == ',' && seenDigit && !seenPoint:
			// a group separator: anywhere after the first digit
		default:
			break loop
		}
	}
	if !seenDigit {
		return 0, false
	}
	if pointAt < 0 {
		pointAt = len(digits)
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		negExp := false
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			negExp = s[j] == '-'
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for ; j < len(s) && isDigit(s[j]); j++ {
				if exp < 100_000_000 { // beyond: +-Infinity or 0 anyway
					exp = exp*10 + int(s[j]-'0')
				}
			}
			if negExp {
				exp = -exp
			}
			i = j
		} // else the 'e' is not part of the number (and fails below)
	}
	if !trailing(s, i) {
		return 0, false
	}
	// digits * 10^(exp - (len(digits) - pointAt)), correctly rounded
	text := make([]byte, 0, len(digits)+24)
	if neg {
		text = append(text, '-')
	}
	text = append(text, "0."...)
	text = append(text, digits...)
	text = append(text, 'e')
	text = strconv.AppendInt(text, int64(exp+pointAt), 10)
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil && !math.IsInf(f, 0) && f != 0 {
		return 0, false // not reached: the text is always well formed
	}
	return f, true
}

// parseSymbol accepts the invariant culture's symbols, ignoring case and
// surrounding white space (char.IsWhiteSpace): Infinity, -Infinity, NaN,
// +Infinity, +NaN and -NaN.
func parseSymbol(s []uint16) (float64, ParseStatus) {
	i, j := 0, len(s)
	for i < j && isWhiteSpace(s[i]) {
		i++
	}
	for j > i && isWhiteSpace(s[j-1]) {
		j--
	}
	t := s[i:j]
	switch {
	case equalFold(t, "Infinity"):
		return math.Inf(1), ParseOK
	case equalFold(t, "-Infinity"):
		return math.Inf(-1), ParseOK
	case equalFold(t, "NaN"):
		return nan, ParseOK
	case len(t) > 0 && t[0] == '+':
		switch {
		case equalFold(t[1:], "Infinity"):
			return math.Inf(1), ParseOK
		case equalFold(t[1:], "NaN"):
			return nan, ParseOK
		}
	case len(t) > 0 && t[0] == '-' && equalFold(t[1:], "NaN"):
		return nan, ParseOK
	}
	return 0, ParseFormat
}

// isWhiteSpace is char.IsWhiteSpace: Unicode's White_Space characters of
// the BMP.
func isWhiteSpace(c uint16) bool {
	return c < 0xD800 && unicode.IsSpace(rune(c))
}

// equalFold compares u with the ASCII string sym as .NET's
// OrdinalIgnoreCase does: each UTF-16 unit upper-cased by the simple
// invariant mapping ('ı' matches 'I').
func equalFold(u []uint16, sym string) bool {
	if len(u) != len(sym) {
		return false
	}
	for i, c := range u {
		r := rune(c)
		if c < 0xD800 || c >= 0xE000 {
			r = unicode.ToUpper(r)
		}
		if r != unicode.ToUpper(rune(sym[i])) {
			return false
		}
	}
	return true
}
