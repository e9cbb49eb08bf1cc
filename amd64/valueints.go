package amd64

import "miniil/ir"

// valueInts maps some of a function's values to an int64 each, densely:
// a bit and a slot per value, so large methods pay no hashing. The zero
// valueInts is empty and read-only.
type valueInts struct {
	has ir.ValueSet
	val []int64
}

// newValueInts returns an empty map for values 0..n-1, from c (valid
// until its next Reset).
func newValueInts(c *ir.Cache, n int) valueInts {
	return valueInts{has: ir.MakeValueSet(c, n), val: ir.Make[int64](c, n)}
}

// get returns v's integer and whether v has one.
func (m valueInts) get(v ir.Value) (int64, bool) {
	if m.val == nil || !m.has.Has(v) {
		return 0, false
	}
	return m.val[v], true
}

// set gives v the integer c.
func (m valueInts) set(v ir.Value, c int64) {
	m.has.Add(v)
	m.val[v] = c
}

// remove leaves v without an integer.
func (m valueInts) remove(v ir.Value) {
	if m.val != nil {
		m.has.Remove(v)
	}
}

// each calls fn for every value with an integer, in increasing order.
func (m valueInts) each(fn func(v ir.Value, c int64)) {
	m.has.Each(func(v ir.Value) { fn(v, m.val[v]) })
}
