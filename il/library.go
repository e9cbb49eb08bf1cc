package il

import (
	"math"
	"slices"
)

// Semantics of the base library members that C# compilers emit for
// everyday code (String.Empty, !=, concatenations of objects, searches,
// Object.Equals), shared by both engines as strings.go's are. As there,
// strings are UTF-16 units and the functions take non-null strings: the
// engines deal with null first.

// MsgIndexMustBeLessOrEqual is current .NET's message for a start index
// outside 0 .. Length (String.IndexOf(char, int32), IndexOf(string,
// int32)); .NET Core 2.0 and Mono said "... less than the size of the
// collection.".
const MsgIndexMustBeLessOrEqual = "Index was out of range. Must be non-negative and less than or equal to the size of the collection."

// StartIndexMessage is the Message of the ArgumentOutOfRangeException
// that String.IndexOf(char, int32) and IndexOf(string, int32) throw for a
// start index outside 0 .. Length.
func StartIndexMessage() string { return ParamMessage(MsgIndexMustBeLessOrEqual, "startIndex") }

// validStart reports whether start is a valid start index of a search in
// a string of n units: 0 .. n, n included.
func validStart(n int, start int32) bool { return uint32(start) <= uint32(n) }

// IndexOfCharFrom is String.IndexOf(char, int32): the first index at or
// after start of c, or -1. ok is false for a start outside 0 .. len(s),
// for which .NET throws ArgumentOutOfRangeException with
// StartIndexMessage.
func IndexOfCharFrom(s []uint16, c uint16, start int32) (i int32, ok bool) {
	if !validStart(len(s), start) {
		return 0, false
	}
	if i = IndexOfChar(s[start:], c); i >= 0 {
		i += start
	}
	return i, true
}

// IndexOfStringFrom is String.IndexOf(string, int32) as CoreCLR runs it
// with InvariantGlobalization: an ordinal search of v at or after start,
// start itself for an empty v, or -1. ok is false for a start outside
// 0 .. len(s) (ArgumentOutOfRangeException with StartIndexMessage; .NET
// checks for a null v first).
func IndexOfStringFrom(s, v []uint16, start int32) (i int32, ok bool) {
	if !validStart(len(s), start) {
		return 0, false
	}
	if i = IndexOfString(s[start:], v); i >= 0 {
		i += start
	}
	return i, true
}

// LastIndexOfChar is String.LastIndexOf(char): the last index of c, or
// -1.
func LastIndexOfChar(s []uint16, c uint16) int32 {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == c {
			return int32(i)
		}
	}
	return -1
}

// StartsWith and EndsWith are String.StartsWith(string) and
// EndsWith(string) as CoreCLR runs them with InvariantGlobalization: an
// ordinal comparison (with ICU they are culture-sensitive and ignore,
// for one, NUL characters and soft hyphens). An empty v matches.
func StartsWith(s, v []uint16) bool {
	return len(v) <= len(s) && slices.Equal(s[:len(v)], v)
}

// EndsWith: see StartsWith.
func EndsWith(s, v []uint16) bool {
	return len(v) <= len(s) && slices.Equal(s[len(s)-len(v):], v)
}

// BoxEquals is Equals(object) of two boxed primitives of the same kind
// k, whose values a and b are in the boxes' form: the low bits of the
// kind's width (the rest is ignored), float32 as its 32 bits, float64
// as its 64. Integers, bool and char compare by value; floats as
// Double.Equals and Single.Equals do: by ==, except that NaN equals NaN
// (so 0 equals -0). Boxes of different kinds are never equal (.NET
// compares the types first).
func BoxEquals(k Kind, a, b uint64) bool {
	switch k {
	case KR4:
		x, y := math.Float32frombits(uint32(a)), math.Float32frombits(uint32(b))
		return x == y || x != x && y != y
	case KR8:
		x, y := math.Float64frombits(a), math.Float64frombits(b)
		return x == y || x != x && y != y
	case KBool, KI1, KU1:
		return uint8(a) == uint8(b)
	case KChar, KI2, KU2:
		return uint16(a) == uint16(b)
	case KI4, KU4:
		return uint32(a) == uint32(b)
	}
	return a == b
}

// ValueLeaf is a field of a value type's layout that holds one word: a
// primitive or a reference (Type), at word Word of the value.
type ValueLeaf struct {
	Word int
	Type *Type
}

// ValueLeaves returns the leaves of value type c in the order .NET's
// ValueType.Equals compares them: its instance fields in declaration
// order, a field of a value type replaced by that type's leaves (Equals
// of the boxed field compares them in the same order). Valid after
// resolution.
func ValueLeaves(c *Class) []ValueLeaf {
	var leaves []ValueLeaf
	var walk func(c *Class, base int)
	walk = func(c *Class, base int) {
		for _, f := range c.Fields {
			switch {
			case f.Static:
			case f.Type.Kind == KValue:
				walk(f.Type.Class, base+f.Slot)
			default:
				leaves = append(leaves, ValueLeaf{Word: base + f.Slot, Type: f.Type})
			}
		}
	}
	walk(c, 0)
	return leaves
}
