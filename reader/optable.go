package reader

import "miniil/il"

// opTable is a lookup table keyed by opcode, held in an array: the
// reader consults its tables for most instructions it imports, and a map
// would hash the opcode every time.
type opTable[V any] struct {
	v  [len(il.Ops)]V
	ok [len(il.Ops)]bool
}

// makeOpTable returns the table holding m's entries.
func makeOpTable[V any](m map[il.Op]V) *opTable[V] {
	t := new(opTable[V])
	for op, v := range m {
		t.v[op], t.ok[op] = v, true
	}
	return t
}

// get returns op's entry and whether it has one.
func (t *opTable[V]) get(op il.Op) (V, bool) { return t.v[op], t.ok[op] }

// at returns op's entry (the zero V when it has none).
func (t *opTable[V]) at(op il.Op) V { return t.v[op] }
