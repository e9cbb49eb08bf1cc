package il

import (
	"slices"
	"unicode"
	"unicode/utf16"
)

// The semantics of the base library's System.String methods, shared by
// both engines so that they agree unit for unit: each engine keeps only
// the allocation (and so the heap accounting) to itself. Strings are
// UTF-16 units; the functions take non-null strings (the engines deal
// with null first, as each method's documentation in docs/LANGUAGE.md
// says).

// Messages of the exceptions String methods throw, CoreCLR's (current
// .NET; .NET Core 2.0 said "'count' must be non-negative." for a negative
// count).
const (
	MsgStartIndexNegative   = "StartIndex cannot be less than zero."
	MsgStartIndexTooLarge   = "startIndex cannot be larger than length of string."
	MsgLengthNegative       = "Length cannot be less than zero."
	MsgIndexAndLength       = "Index and length must refer to a location within the string."
	MsgCountNegative        = "Count cannot be less than zero."
	ArgumentOutOfRangeClass = "System.ArgumentOutOfRangeException"
	ArgumentNullClass       = "System.ArgumentNullException"
)

// ParamMessage returns the Message of an ArgumentException (or subclass)
// with message msg and parameter name param, as .NET Core 3.0 and later
// print it: "MSG (Parameter 'NAME')", or msg alone for an empty name.
func ParamMessage(msg, param string) string {
	if param == "" {
		return msg
	}
	return msg + " (Parameter '" + param + "')"
}

// ArgumentNullMessage is the Message of the ArgumentNullException a base
// library method throws for its parameter param.
func ArgumentNullMessage(param string) string {
	msg, _ := DefaultMessage(ArgumentNullClass)
	return ParamMessage(msg, param)
}

// SubstringOutcome says what String.Substring returns.
type SubstringOutcome uint8

const (
	SubstringNew   SubstringOutcome = iota // a new string of the range
	SubstringSame                          // the string itself
	SubstringEmpty                         // String.Empty
	SubstringThrow                         // ArgumentOutOfRangeException with the message given
)

// Substring decides String.Substring(start, length) on a string of n
// units as current .NET does (Substring(start) is Substring(start,
// n-start) with its own shortcuts: pass oneArg). For SubstringNew the
// range is [start, start+length); for SubstringThrow msg is the
// exception's Message.
func Substring(n, start, length int32, oneArg bool) (out SubstringOutcome, msg string) {
	if oneArg {
		if start == 0 {
			return SubstringSame, ""
		}
		length = n - start // wraps as C#'s unchecked int arithmetic
		if length == 0 {
			return SubstringEmpty, ""
		}
		if uint32(start) > uint32(n) {
			return SubstringThrow, substringError(n, start, length)
		}
		return SubstringNew, ""
	}
	if uint64(uint32(start))+uint64(uint32(length)) > uint64(uint32(n)) {
		return SubstringThrow, substringError(n, start, length)
	}
	switch length {
	case 0:
		return SubstringEmpty, ""
	case n:
		return SubstringSame, ""
	}
	return SubstringNew, ""
}

// substringError is the message of String's
// ThrowSubstringArgumentOutOfRange.
func substringError(n, start, length int32) string {
	switch {
	case start < 0:
		return ParamMessage(MsgStartIndexNegative, "startIndex")
	case start > n:
		return ParamMessage(MsgStartIndexTooLarge, "startIndex")
	case length < 0:
		return ParamMessage(MsgLengthNegative, "length")
	}
	return ParamMessage(MsgIndexAndLength, "length")
}

// CompareOrdinal is String.CompareOrdinal of two distinct non-null
// strings, returning exactly what CoreCLR (2.0 to current, 64-bit)
// returns, not only its sign: the difference of the first differing
// units, where CoreCLR compares the first two units and then two or four
// at a time, reading the terminating NUL of the shorter string (and, for
// an empty string, the zero padding after it); when no compared unit
// differs, the difference of the lengths. So CompareOrdinal("a", "ab") is
// -98 ('\0' - 'b') but CompareOrdinal("ab", "abc") is -1.
func CompareOrdinal(a, b []uint16) int32 {
	at := func(s []uint16, i int) int32 {
		if i < len(s) {
			return int32(s[i])
		}
		return 0
	}
	end := max(2, (min(len(a), len(b))+1)&^1)
	for i := range end {
		if x, y := at(a, i), at(b, i); x != y {
			return x - y
		}
	}
	return int32(len(a) - len(b))
}

// IndexOfChar is String.IndexOf(char): the first index of c, or -1.
func IndexOfChar(s []uint16, c uint16) int32 {
	for i, u := range s {
		if u == c {
			return int32(i)
		}
	}
	return -1
}

// IndexOfString is String.IndexOf(string) as CoreCLR runs it with
// InvariantGlobalization (the mode miniil follows): an ordinal search,
// 0 for an empty value. With ICU the search is culture-sensitive (it
// ignores a soft hyphen, for one).
func IndexOfString(s, v []uint16) int32 {
	if len(v) == 0 {
		return 0
	}
	for i := 0; i+len(v) <= len(s); i++ {
		if s[i] == v[0] && slices.Equal(s[i:i+len(v)], v) {
			return int32(i)
		}
	}
	return -1
}

// ToUpperInvariant and ToLowerInvariant map s as CoreCLR's invariant
// casing does with InvariantGlobalization (.NET 8 and later): each code
// point (a well-formed surrogate pair is one) to its simple Unicode case
// mapping, except U+0130, U+0131 and U+017F, which .NET leaves alone for
// compatibility; lone surrogates stay. changed is false when no unit
// changes (then .NET returns the string itself, and out is nil). The
// Unicode tables are Go's (unicode.Version).
func ToUpperInvariant(s []uint16) (out []uint16, changed bool) {
	return mapCase(s, unicode.ToUpper)
}

// ToLowerInvariant: see ToUpperInvariant.
func ToLowerInvariant(s []uint16) (out []uint16, changed bool) {
	return mapCase(s, unicode.ToLower)
}

func mapCase(s []uint16, f func(rune) rune) ([]uint16, bool) {
	// caseOf returns the mapping of r, or r where .NET has none.
	caseOf := func(r rune) rune {
		if r == 0x130 || r == 0x131 || r == 0x17F {
			return r
		}
		m := f(r)
		if (r < 0x10000) != (m < 0x10000) {
			return r // a mapping that would change the length: none exist
		}
		return m
	}
	var out []uint16
	for i := 0; i < len(s); i++ {
		c := s[i]
		if utf16.IsSurrogate(rune(c)) {
			if c < 0xDC00 && i+1 < len(s) && s[i+1] >= 0xDC00 && s[i+1] < 0xE000 {
				r := utf16.DecodeRune(rune(c), rune(s[i+1]))
				if m := caseOf(r); m != r {
					if out == nil {
						out = append(make([]uint16, 0, len(s)), s[:i]...)
					}
					hi, lo := utf16.EncodeRune(m)
					out = append(out, uint16(hi), uint16(lo))
				} else if out != nil {
					out = append(out, c, s[i+1])
				}
				i++
				continue
			}
			if out != nil {
				out = append(out, c)
			}
			continue
		}
		if m := caseOf(rune(c)); m != rune(c) {
			if out == nil {
				out = append(make([]uint16, 0, len(s)), s[:i]...)
			}
			out = append(out, uint16(m))
		} else if out != nil {
			out = append(out, c)
		}
	}
	return out, out != nil
}
