package il

import (
	"math"
	"strconv"
	"unicode/utf16"
)

// System.Text.StringBuilder, shared by both engines so that they agree
// on its contents and charge the heap limit with the same sizes at the
// same moments. A builder is an object of two hidden fields (so
// ObjectSize(2) bytes, charged by newobj): its buffer, a char[] whose
// length is the builder's capacity, and the number of units in use. The
// constructor allocates the buffer (ArraySize(Char, capacity) bytes);
// an Append that does not fit allocates a larger one
// (StringBuilderGrow) and copies the units in use, so a builder of n
// units has been copied O(n) units in all; ToString allocates the
// string (StringSize(length); an empty builder returns String.Empty,
// which is not allocated). Nothing else allocates: Append of a number
// formats it straight into the buffer, as .NET does.
//
// .NET links chunks of at most 8000 units instead of copying; the
// difference shows only in how much memory a builder takes, which
// .NET's collector makes unobservable anyway.

const (
	// StringBuilderClass is the full name of the builder class (in
	// .NET's System.Runtime assembly, [mscorlib] in .NET Framework).
	StringBuilderClass = "System.Text.StringBuilder"
	// StringBuilderCharsField is the hidden field (slot 0) that holds
	// the buffer, a char[].
	StringBuilderCharsField = "_chars"
	// StringBuilderLengthField is the hidden field (slot 1) that holds
	// the number of units in use.
	StringBuilderLengthField = "_length"

	// StringBuilderDefaultCapacity is the capacity of .ctor() and of
	// .ctor(0), .NET's StringBuilder.DefaultCapacity.
	StringBuilderDefaultCapacity = 16
	// StringBuilderMaxLength is the most units a builder holds: its
	// buffer is one array (.NET chains arrays, up to Int32.MaxValue
	// units). Growing past it throws OutOfMemoryException.
	StringBuilderMaxLength = MaxArrayLength
)

// IsStringBuilder reports whether k is a method of
// System.Text.StringBuilder (a contiguous run of kinds).
func (k BuiltinKind) IsStringBuilder() bool {
	return k >= StringBuilderCtor && k <= StringBuilderSetLength
}

// StringBuilderCapacity returns the capacity of the buffer that
// .ctor(int32 capacity) allocates: the default for 0, capacity itself
// otherwise; ok is false for a negative capacity, for which .NET throws
// ArgumentOutOfRangeException with NonNegativeMessage("capacity",
// capacity).
func StringBuilderCapacity(capacity int32) (n int64, ok bool) {
	switch {
	case capacity < 0:
		return 0, false
	case capacity == 0:
		return StringBuilderDefaultCapacity, true
	}
	return int64(capacity), true
}

// StringBuilderGrow returns the capacity of the new buffer of a builder
// whose buffer of capacity capacity must grow to hold need units (need >
// capacity): twice the old capacity, at least need, at most
// StringBuilderMaxLength; ok is false when need exceeds that (then the
// append throws OutOfMemoryException, charging nothing).
func StringBuilderGrow(capacity, need int64) (n int64, ok bool) {
	if need > StringBuilderMaxLength {
		return 0, false
	}
	return min(max(need, 2*capacity), StringBuilderMaxLength), true
}

// NonNegativeMessage is the Message of the ArgumentOutOfRangeException
// that current .NET's ArgumentOutOfRangeException.ThrowIfNegative throws
// for parameter param with value v: "param ('v') must be a non-negative
// value. (Parameter 'param')", a line break, and "Actual value was v.".
// (.NET Core 2.0 to 7 said "'capacity' must be greater than zero." for
// StringBuilder's capacity, without the actual value.)
func NonNegativeMessage(param string, v int32) string {
	n := strconv.Itoa(int(v))
	return ParamMessage(param+" ('"+n+"') must be a non-negative value.", param) + "\nActual value was " + n + "."
}

// AppendPrimitive appends to dst the UTF-16 text of a primitive value of
// kind k as Console.Write and StringBuilder.Append print it (FormatR8,
// FormatR4, "True"/"False", decimal integers). v holds the value: signed
// integers sign-extended to 64 bits, unsigned ones zero-extended, bool 0
// or 1, a char its unit, float64 its bits and float32 its 32 bits.
func AppendPrimitive(dst []uint16, k Kind, v uint64) []uint16 {
	var buf [24]byte
	var b []byte
	switch k {
	case KBool:
		if v != 0 {
			return appendASCII(dst, "True")
		}
		return appendASCII(dst, "False")
	case KChar:
		return append(dst, uint16(v))
	case KU1, KU2, KU4, KU8, KU:
		b = strconv.AppendUint(buf[:0], v, 10)
	case KR4:
		return AppendUTF16(dst, FormatR4(math.Float32frombits(uint32(v))))
	case KR8:
		return AppendUTF16(dst, FormatR8(math.Float64frombits(v)))
	default:
		b = strconv.AppendInt(buf[:0], int64(v), 10)
	}
	for _, c := range b {
		dst = append(dst, uint16(c))
	}
	return dst
}

func appendASCII(dst []uint16, s string) []uint16 {
	for i := 0; i < len(s); i++ {
		dst = append(dst, uint16(s[i]))
	}
	return dst
}

// AppendUTF16 appends the UTF-16 units of s to dst.
func AppendUTF16(dst []uint16, s string) []uint16 {
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			dst = append(dst, uint16(hi), uint16(lo))
			continue
		}
		dst = append(dst, uint16(r))
	}
	return dst
}
