package ir

import (
	"slices"
	"testing"
)

func members(s ValueSet) []Value {
	var vs []Value
	s.Each(func(v Value) { vs = append(vs, v) })
	return vs
}

func TestValueSet(t *testing.T) {
	s := NewValueSet(130)
	for _, v := range []Value{0, 63, 64, 129} {
		s.Add(v)
	}
	s.Remove(63)
	if got, want := members(s), []Value{0, 64, 129}; !slices.Equal(got, want) {
		t.Fatalf("members %v, want %v", got, want)
	}
	if !s.Has(64) || s.Has(63) || s.Has(1) {
		t.Errorf("Has is wrong: 64 %v, 63 %v, 1 %v", s.Has(64), s.Has(63), s.Has(1))
	}
	u := NewValueSet(130)
	u.Add(5)
	u.Or(s)
	if got, want := members(u), []Value{0, 5, 64, 129}; !slices.Equal(got, want) {
		t.Errorf("after Or: %v, want %v", got, want)
	}
	all := NewValueSet(130)
	all.Fill(130)
	if n := len(members(all)); n != 130 {
		t.Errorf("Fill(130) gives %d members", n)
	}
	if !all.And(u) {
		t.Error("And reported no change")
	}
	if all.And(u) {
		t.Error("a second And reported a change")
	}
	if got, want := members(all), members(u); !slices.Equal(got, want) {
		t.Errorf("after And: %v, want %v", got, want)
	}
}
