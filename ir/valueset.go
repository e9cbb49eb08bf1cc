package ir

import "math/bits"

// ValueSet is a set of a function's values (virtual registers), one bit
// each, for dataflow passes.
type ValueSet []uint64

// NewValueSet returns an empty set for values 0..n-1.
func NewValueSet(n int) ValueSet { return make(ValueSet, (n+63)/64) }

// MakeValueSet returns an empty set for values 0..n-1 from c (see Make:
// valid until c's next Reset; a nil c allocates).
func MakeValueSet(c *Cache, n int) ValueSet { return Make[uint64](c, (n+63)/64) }

// Add adds v.
func (s ValueSet) Add(v Value) { s[v/64] |= 1 << (v % 64) }

// Remove removes v.
func (s ValueSet) Remove(v Value) { s[v/64] &^= 1 << (v % 64) }

// Has reports whether v is in s.
func (s ValueSet) Has(v Value) bool { return s[v/64]&(1<<(v%64)) != 0 }

// Fill adds values 0..n-1.
func (s ValueSet) Fill(n int) {
	for v := range n {
		s.Add(Value(v))
	}
}

// Or adds every member of t to s.
func (s ValueSet) Or(t ValueSet) {
	for w := range s {
		s[w] |= t[w]
	}
}

// And keeps only the members of s also in t and reports whether s changed.
func (s ValueSet) And(t ValueSet) bool {
	changed := false
	for w := range s {
		if n := s[w] & t[w]; n != s[w] {
			s[w], changed = n, true
		}
	}
	return changed
}

// AndNot removes t's members from s.
func (s ValueSet) AndNot(t ValueSet) {
	for i := range t {
		s[i] &^= t[i]
	}
}

// Each calls fn for every member of s in increasing order.
func (s ValueSet) Each(fn func(v Value)) {
	for w, word := range s {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			fn(Value(64*w + b))
			word &^= 1 << b
		}
	}
}
