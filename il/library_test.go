package il_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"miniil/il"
)

// TestSearchFrom checks IndexOf(char, int32) and IndexOf(string, int32):
// the start index may be Length (nothing is searched), not beyond or
// below 0; an empty string is found at the start index.
func TestSearchFrom(t *testing.T) {
	tests := []struct {
		s     string
		c     uint16 // searched for when v is ""
		v     string
		start int32
		want  int32
		ok    bool
	}{
		{"hello", 'l', "", 0, 2, true},
		{"hello", 'l', "", 3, 3, true},
		{"hello", 'l', "", 4, -1, true},
		{"hello", 'l', "", 5, -1, true},
		{"hello", 'l', "", 6, 0, false},
		{"hello", 'l', "", -1, 0, false},
		{"hello", 'l', "", math.MinInt32, 0, false},
		{"", 'l', "", 0, -1, true},
		{"", 'l', "", 1, 0, false},
		{"hello", 0, "l", 3, 3, true},
		{"hello", 0, "lo", 3, 3, true},
		{"hello", 0, "ll", 3, -1, true},
		{"hello", 0, "he", 1, -1, true},
		{"abcabc", 0, "bc", 2, 4, true},
		{"hello", 0, "\x00", 0, -1, true},
		{"hello", 0, "l", 6, 0, false},
		{"hello", 0, "l", -1, 0, false},
	}
	for _, tt := range tests {
		var got int32
		var ok bool
		if tt.v == "" {
			got, ok = il.IndexOfCharFrom(u16(tt.s), tt.c, tt.start)
		} else {
			got, ok = il.IndexOfStringFrom(u16(tt.s), u16(tt.v), tt.start)
		}
		if got != tt.want || ok != tt.ok {
			t.Errorf("IndexOf(%q, %q/%q, %d) = %d, %v; want %d, %v", tt.s, rune(tt.c), tt.v, tt.start, got, ok, tt.want, tt.ok)
		}
	}
	// An empty value is found at the start index, Length included.
	for start := int32(0); start <= 5; start++ {
		if got, ok := il.IndexOfStringFrom(u16("hello"), nil, start); got != start || !ok {
			t.Errorf(`IndexOf("hello", "", %d) = %d, %v; want %d, true`, start, got, ok, start)
		}
	}
	if got, want := il.StartIndexMessage(), "Index was out of range. Must be non-negative and less than or equal to the size of the collection. (Parameter 'startIndex')"; got != want {
		t.Errorf("StartIndexMessage() = %q, want %q", got, want)
	}
}

func TestLastIndexOfChar(t *testing.T) {
	tests := []struct {
		s    string
		c    uint16
		want int32
	}{
		{"hello", 'l', 3},
		{"hello", 'h', 0},
		{"hello", 'o', 4},
		{"hello", 'z', -1},
		{"", 'z', -1},
		{"a\x00b", 0, 1},
	}
	for _, tt := range tests {
		if got := il.LastIndexOfChar(u16(tt.s), tt.c); got != tt.want {
			t.Errorf("LastIndexOf(%q, %q) = %d, want %d", tt.s, rune(tt.c), got, tt.want)
		}
	}
}

// TestStartsEndsWith: ordinal, as CoreCLR with InvariantGlobalization
// (checked with .NET Core 2.0: "abc\0".EndsWith("c") is false there,
// true with ICU or on Mono, which ignore the NUL).
func TestStartsEndsWith(t *testing.T) {
	tests := []struct {
		s, v         string
		starts, ends bool
	}{
		{"abc", "ab", true, false},
		{"abc", "bc", false, true},
		{"abc", "abc", true, true},
		{"abc", "", true, true},
		{"", "", true, true},
		{"", "a", false, false},
		{"ab", "abc", false, false},
		{"abc\x00", "c", false, false},
		{"a\u00adbc", "ab", false, false},
		{"ABC", "ab", false, false},
	}
	for _, tt := range tests {
		if got := il.StartsWith(u16(tt.s), u16(tt.v)); got != tt.starts {
			t.Errorf("%q.StartsWith(%q) = %v, want %v", tt.s, tt.v, got, tt.starts)
		}
		if got := il.EndsWith(u16(tt.s), u16(tt.v)); got != tt.ends {
			t.Errorf("%q.EndsWith(%q) = %v, want %v", tt.s, tt.v, got, tt.ends)
		}
	}
}

func TestBoxEquals(t *testing.T) {
	f8 := math.Float64bits
	f4 := func(f float32) uint64 { return uint64(math.Float32bits(f)) }
	nan8 := math.NaN()
	tests := []struct {
		k    il.Kind
		a, b uint64
		want bool
	}{
		{il.KI4, 3, 3, true},
		{il.KI4, 3, 4, false},
		{il.KI4, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF, true}, // -1 sign-extended or not
		{il.KU2, 0x1FFFF, 0xFFFF, true},                // the high bits are not the value's
		{il.KBool, 1, 0x101, true},
		{il.KChar, 'a', 'b', false},
		{il.KI8, 1 << 40, 1<<40 | 1, false},
		{il.KR8, f8(1.5), f8(1.5), true},
		{il.KR8, f8(0), f8(math.Copysign(0, -1)), true}, // 0 == -0
		{il.KR8, f8(nan8), f8(nan8), true},              // NaN equals NaN
		{il.KR8, f8(nan8), math.Float64bits(nan8) | 1, true},
		{il.KR8, f8(nan8), f8(1), false},
		{il.KR4, f4(2.5), f4(2.5), true},
		{il.KR4, f4(0), f4(float32(math.Copysign(0, -1))), true},
		{il.KR4, f4(float32(nan8)), f4(float32(nan8)), true},
		{il.KR4, f4(1), f4(2), false},
	}
	for _, tt := range tests {
		if got := il.BoxEquals(tt.k, tt.a, tt.b); got != tt.want {
			t.Errorf("BoxEquals(%v, %#x, %#x) = %v, want %v", tt.k, tt.a, tt.b, got, tt.want)
		}
	}
}

// TestValueLeaves checks the order ValueType.Equals compares fields in
// (declaration order, nested value types flattened in place) and the
// words the leaves sit at.
func TestValueLeaves(t *testing.T) {
	const src = `
.class public sequential sealed In extends [mscorlib]System.ValueType {
  .field public int8 a
  .field public string s
}
.class public sequential sealed Out extends [mscorlib]System.ValueType {
  .field public float64 d
  .field public static int32 ignored
  .field public valuetype In inner
  .field public char c
}
.method static void main() cil managed { .entrypoint ret }
`
	mod, err := il.Load("leaves.il", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range il.ValueLeaves(mod.Class("Out")) {
		got = append(got, fmt.Sprintf("%d:%v", l.Word, l.Type))
	}
	want := []string{"0:float64", "1:int8", "2:string", "3:char"}
	if !slices.Equal(got, want) {
		t.Errorf("ValueLeaves(Out) = %v, want %v", got, want)
	}
}
