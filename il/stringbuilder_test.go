package il_test

import (
	"math"
	"testing"

	"miniil/il"
)

func TestStringBuilderCapacity(t *testing.T) {
	tests := []struct {
		capacity int32
		want     int64
		ok       bool
	}{
		{0, il.StringBuilderDefaultCapacity, true}, // .NET: DefaultCapacity for 0
		{1, 1, true},
		{100, 100, true},
		{math.MaxInt32, math.MaxInt32, true}, // too long for an array: the engines throw
		{-1, 0, false},
		{math.MinInt32, 0, false},
	}
	for _, tt := range tests {
		if got, ok := il.StringBuilderCapacity(tt.capacity); got != tt.want || ok != tt.ok {
			t.Errorf("StringBuilderCapacity(%d) = %d, %v; want %d, %v", tt.capacity, got, ok, tt.want, tt.ok)
		}
	}
}

func TestStringBuilderGrow(t *testing.T) {
	tests := []struct {
		capacity, need, want int64
		ok                   bool
	}{
		{16, 17, 32, true},   // doubles
		{16, 100, 100, true}, // or takes what is needed
		{1, 2, 2, true},
		{0, 1, 1, true}, // a builder without a buffer
		{0, 5, 5, true},
		{il.StringBuilderMaxLength - 10, il.StringBuilderMaxLength - 9, il.StringBuilderMaxLength, true}, // capped
		{il.StringBuilderMaxLength, il.StringBuilderMaxLength + 1, 0, false},
		{1 << 30, 1<<31 + 5, 0, false},
	}
	for _, tt := range tests {
		got, ok := il.StringBuilderGrow(tt.capacity, tt.need)
		if got != tt.want || ok != tt.ok {
			t.Errorf("StringBuilderGrow(%d, %d) = %d, %v; want %d, %v", tt.capacity, tt.need, got, ok, tt.want, tt.ok)
		}
		if ok && (got < tt.need || got > il.StringBuilderMaxLength) {
			t.Errorf("StringBuilderGrow(%d, %d) = %d: does not hold %d units", tt.capacity, tt.need, got, tt.need)
		}
	}
	// Appending one unit at a time copies fewer than 2n units in all.
	capacity, copied := int64(il.StringBuilderDefaultCapacity), int64(0)
	const n = 1_000_000
	for length := int64(0); length < n; length++ {
		if length == capacity {
			copied += length
			capacity, _ = il.StringBuilderGrow(capacity, length+1)
		}
	}
	if copied >= 2*n {
		t.Errorf("%d one-unit appends copied %d units", n, copied)
	}
}

func TestNonNegativeMessage(t *testing.T) {
	tests := []struct {
		param string
		v     int32
		want  string
	}{
		{"capacity", -1, "capacity ('-1') must be a non-negative value. (Parameter 'capacity')\nActual value was -1."},
		{"value", math.MinInt32, "value ('-2147483648') must be a non-negative value. (Parameter 'value')\nActual value was -2147483648."},
	}
	for _, tt := range tests {
		if got := il.NonNegativeMessage(tt.param, tt.v); got != tt.want {
			t.Errorf("NonNegativeMessage(%q, %d) = %q, want %q", tt.param, tt.v, got, tt.want)
		}
	}
}

func TestAppendPrimitive(t *testing.T) {
	tests := []struct {
		k    il.Kind
		v    uint64
		want string
	}{
		{il.KBool, 1, "True"},
		{il.KBool, 0, "False"},
		{il.KChar, 0xD83D, ""}, // want: the unit itself (a lone surrogate stays)
		{il.KI4, uint64(math.MaxUint64), "-1"},
		{il.KI8, 1 << 63, "-9223372036854775808"},
		{il.KU4, math.MaxUint32, "4294967295"},
		{il.KU8, math.MaxUint64, "18446744073709551615"},
		{il.KR8, math.Float64bits(0.1 + 0.2), il.FormatR8(0.1 + 0.2)},
		{il.KR8, math.Float64bits(math.Inf(-1)), "-∞"},
		{il.KR4, uint64(math.Float32bits(1e9)), il.FormatR4(1e9)},
		{il.KR4, uint64(math.Float32bits(float32(math.Copysign(0, -1)))), "-0"},
	}
	for _, tt := range tests {
		got := il.AppendPrimitive([]uint16{'>'}, tt.k, tt.v)
		want := []uint16{'>'}
		if tt.k == il.KChar {
			want = append(want, uint16(tt.v))
		} else {
			want = append(want, u16(tt.want)...)
		}
		if string(utf16Runes(got)) != string(utf16Runes(want)) {
			t.Errorf("AppendPrimitive(%v, %#x) = %q, want %q", tt.k, tt.v, utf16Runes(got), utf16Runes(want))
		}
	}
}

// utf16Runes widens units one to one, so that lone surrogates compare.
func utf16Runes(u []uint16) []rune {
	r := make([]rune, len(u))
	for i, c := range u {
		r[i] = rune(c)
	}
	return r
}

// TestStringBuilderClass checks the declaration the engines rely on: a
// sealed class whose hidden fields are slots 0 and 1 (the JIT's layout),
// whose ToString overrides Object's slot, and whose Append and Clear
// return the module's own class.
func TestStringBuilderClass(t *testing.T) {
	mod, err := il.Load("sb.il", []byte(".method static void main() { .entrypoint ret }"))
	if err != nil {
		t.Fatal(err)
	}
	c := mod.Class(il.StringBuilderClass)
	if c == nil || !c.Builtin || c.Base != mod.Class(il.ObjectClass) || c.NumFields != 2 {
		t.Fatalf("class %s: %+v", il.StringBuilderClass, c)
	}
	sealed := false
	for _, a := range c.Attrs {
		sealed = sealed || a == "sealed"
	}
	if !sealed {
		t.Errorf("%s is not sealed", c.Name)
	}
	for slot, name := range []string{il.StringBuilderCharsField, il.StringBuilderLengthField} {
		if f := c.Fields[slot]; f.Name != name || f.Slot != slot || f.Static {
			t.Errorf("field %d is %s (slot %d), want %s", slot, f.Name, f.Slot, name)
		}
	}
	obj := mod.Class(il.ObjectClass)
	ts := mod.BuiltinMethod(il.StringBuilderToString)
	if ts.Slot < 0 || obj.VTable[ts.Slot].Name != "ToString" || c.VTable[ts.Slot] != ts {
		t.Errorf("StringBuilder.ToString has slot %d, not Object.ToString's", ts.Slot)
	}
	for _, k := range il.BuiltinKinds() {
		m := mod.BuiltinMethod(k)
		if k.IsStringBuilder() != (m.Owner == c) {
			t.Errorf("%v.IsStringBuilder() = %v for a method of %s", k, k.IsStringBuilder(), m.Owner.Name)
		}
		if m.Owner == c && m.Ret.Kind == il.KClass && m.Ret.Class != c {
			t.Errorf("%s returns %v, not the module's class", m.Signature(), m.Ret)
		}
	}
}
