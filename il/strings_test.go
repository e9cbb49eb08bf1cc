package il_test

import (
	"testing"
	"unicode/utf16"

	"miniil/il"
)

func u16(s string) []uint16 { return utf16.Encode([]rune(s)) }

// TestCompareOrdinal checks exact results against what CoreCLR returns
// (values checked with .NET Core 2.0 and Mono 6.8, which share the
// algorithm; current .NET's is the same).
func TestCompareOrdinal(t *testing.T) {
	tests := []struct {
		a, b string
		want int32
	}{
		{"abc", "abd", -1},
		{"abd", "abc", 1},
		{"same", "same", 0},
		{"a", "ab", -98},  // the terminating NUL of "a" against 'b'
		{"ab", "a", 98},   // and the other way round
		{"ab", "abc", -1}, // the third unit is not compared: lengths
		{"abc", "abcd", -100},
		{"", "abc", -97},
		{"abc", "", 97},
		{"", "", 0},
		{"", "\x00", -1}, // the padding after "" equals the NUL: lengths
		{"Zebra", "apple", 'Z' - 'a'},
		{"abcdefghijklmnopq", "abcdefghijklmnop", 1},
		{"abcdefghijklmno", "abcdefghijklmnopq", -'p'},
		{"abcdefghijklmnopqrstuvwxyz0", "abcdefghijklmnopqrstuvwxyz1", -1},
		{"é", "e", 'é' - 'e'},
		{"\uffff", "a", 0xffff - 'a'},
		{"a\uffff", "a", 0xffff},
	}
	for _, tt := range tests {
		if got := il.CompareOrdinal(u16(tt.a), u16(tt.b)); got != tt.want {
			t.Errorf("CompareOrdinal(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSubstring(t *testing.T) {
	const (
		neg      = "StartIndex cannot be less than zero. (Parameter 'startIndex')"
		large    = "startIndex cannot be larger than length of string. (Parameter 'startIndex')"
		negLen   = "Length cannot be less than zero. (Parameter 'length')"
		outRange = "Index and length must refer to a location within the string. (Parameter 'length')"
	)
	tests := []struct {
		n, start, length int32
		one              bool
		want             il.SubstringOutcome
		msg              string
	}{
		{5, 0, 0, true, il.SubstringSame, ""},
		{0, 0, 0, true, il.SubstringSame, ""},
		{5, 5, 0, true, il.SubstringEmpty, ""},
		{5, 2, 0, true, il.SubstringNew, ""},
		{5, -1, 0, true, il.SubstringThrow, neg},
		{5, 6, 0, true, il.SubstringThrow, large},
		{5, -2147483648, 0, true, il.SubstringThrow, neg},
		{5, 0, 5, false, il.SubstringSame, ""},
		{5, 1, 0, false, il.SubstringEmpty, ""},
		{5, 5, 0, false, il.SubstringEmpty, ""},
		{5, 1, 3, false, il.SubstringNew, ""},
		{5, -1, 1, false, il.SubstringThrow, neg},
		{5, 6, 0, false, il.SubstringThrow, large},
		{5, 0, -1, false, il.SubstringThrow, negLen},
		{5, 2, 4, false, il.SubstringThrow, outRange},
		{5, 1, 2147483647, false, il.SubstringThrow, outRange},
		{5, -1, -1, false, il.SubstringThrow, neg},
	}
	for _, tt := range tests {
		got, msg := il.Substring(tt.n, tt.start, tt.length, tt.one)
		if got != tt.want || msg != tt.msg {
			t.Errorf("Substring(n=%d, %d, %d, one=%v) = %d %q, want %d %q", tt.n, tt.start, tt.length, tt.one, got, msg, tt.want, tt.msg)
		}
	}
}

func TestIndexOf(t *testing.T) {
	tests := []struct {
		s, v string
		want int32
	}{
		{"abcabc", "ca", 2},
		{"abcabc", "", 0},
		{"", "", 0},
		{"", "a", -1},
		{"ab", "abc", -1},
		{"aab", "ab", 1},
		{"abc\u00addef", "cd", -1}, // ordinal: the soft hyphen counts
		{"x😀y", "😀", 1},
	}
	for _, tt := range tests {
		if got := il.IndexOfString(u16(tt.s), u16(tt.v)); got != tt.want {
			t.Errorf("IndexOf(%q, %q) = %d, want %d", tt.s, tt.v, got, tt.want)
		}
	}
	if got := il.IndexOfChar(u16("hello"), 'l'); got != 2 {
		t.Errorf("IndexOf('l') = %d, want 2", got)
	}
	if got := il.IndexOfChar(u16("hello"), 'z'); got != -1 {
		t.Errorf("IndexOf('z') = %d, want -1", got)
	}
}

// TestInvariantCasing checks the mappings against CoreCLR's (checked with
// .NET Core 2.0 on ICU 72, except U+017F, which .NET 8+ in invariant mode
// leaves alone where ICU maps it to S).
func TestInvariantCasing(t *testing.T) {
	tests := []struct {
		in, upper, lower string
	}{
		{"Hello, World! 123", "HELLO, WORLD! 123", "hello, world! 123"},
		{"grüße ÿ Ÿ", "GRÜßE Ÿ Ÿ", "grüße ÿ ÿ"},
		{"ǅ ǆ Ǆ ǈ", "Ǆ Ǆ Ǆ Ǉ", "ǆ ǆ ǆ ǉ"},
		{"ς σ Σ µ ͅ ᾳ ᾼ", "Σ Σ Σ Μ Ι ᾼ ᾼ", "ς σ σ µ ͅ ᾳ ᾳ"},
		{"ꭰ Ꭰ 𐐨 𐐀", "Ꭰ Ꭰ 𐐀 𐐀", "ꭰ ꭰ 𐐨 𐐨"},
		{"ı İ ſ i I", "ı İ ſ I I", "ı İ ſ i i"},
		{"ẞ K Å Ω ǰ", "ẞ K Å Ω ǰ", "ß k å ω ǰ"},
	}
	for _, tt := range tests {
		up, changed := il.ToUpperInvariant(u16(tt.in))
		if !changed {
			up = u16(tt.in)
		}
		if got := string(utf16.Decode(up)); got != tt.upper {
			t.Errorf("ToUpperInvariant(%q) = %q, want %q", tt.in, got, tt.upper)
		}
		low, changed := il.ToLowerInvariant(u16(tt.in))
		if !changed {
			low = u16(tt.in)
		}
		if got := string(utf16.Decode(low)); got != tt.lower {
			t.Errorf("ToLowerInvariant(%q) = %q, want %q", tt.in, got, tt.lower)
		}
	}
	// Unchanged strings report no change; lone surrogates stay.
	for _, s := range [][]uint16{u16("ABC 123"), {0xD801}, {'A', 0xDC28, 'B'}, {0xD801, 'A'}, {'X', 0xD801}} {
		if out, changed := il.ToUpperInvariant(s); changed {
			t.Errorf("ToUpperInvariant(%x) changed it to %x", s, out)
		}
	}
	if out, _ := il.ToUpperInvariant([]uint16{0xD801, 'a', 0xDC28, 'b'}); string(utf16.Decode(out)) != "\ufffdA\ufffdB" || out[0] != 0xD801 || out[2] != 0xDC28 {
		t.Errorf("lone surrogates: %x", out)
	}
}
