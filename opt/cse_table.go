package opt

import "unsafe"

// availTable is CSE's set of available computations: open addressing
// with linear probing, keyed by cseKey.
//
// The walk of the dominator tree removes entries in the reverse of the
// order it added them (a subtree's facts are undone when it is left),
// and that lets a removal simply empty its slot: every entry still
// present was added before the removed one, when that slot was empty,
// so no entry's probe sequence passes through it. A Go map paid for
// the general case (hashing the 56-byte key with its padding, and
// tombstones on delete) on every instruction of every compile.
type availTable struct {
	slots []availSlot // a power of two long; empty slots have e.vn == 0
	n     int         // entries present
}

// availSlot is one slot of an availTable. Value numbers start at 1, so
// an entry's vn is never 0.
type availSlot struct {
	key cseKey
	e   cseEntry
}

// minAvailSlots is the size of a new table: a small method's available
// computations fit without growing.
const minAvailSlots = 64

// maxKeptAvailSlots bounds the table kept from one compile to the next:
// a very large method's table is not held for the small ones after it.
const maxKeptAvailSlots = 1 << 14

// hash mixes all of the key's fields. The type and field are hashed by
// address (Go does not move heap objects): loads of an object's fields,
// or of statics, in one memory epoch differ by the field alone.
func (k *cseKey) hash() uint64 {
	h := uint64(k.op) | uint64(k.kind)<<8 | uint64(k.cond)<<16 | uint64(uint32(k.epoch))<<32
	if k.unsigned {
		h |= 1 << 24
	}
	h ^= uint64(k.aux) * 0x9e3779b97f4a7c15
	h ^= (uint64(uint32(k.a)) | uint64(uint32(k.b))<<32) * 0xc2b2ae3d27d4eb4f
	h ^= uint64(uintptr(unsafe.Pointer(k.typ))) * 0x165667b19e3779f9
	h ^= uint64(uintptr(unsafe.Pointer(k.field))) * 0x27d4eb2f165667c5
	h ^= h >> 31
	h *= 0x94d049bb133111eb
	return h ^ h>>29
}

// slot returns the index of k's slot: the entry's, or the empty slot
// where it would go. The table always has an empty slot.
func (t *availTable) slot(k *cseKey) int {
	mask := len(t.slots) - 1
	i := int(k.hash()) & mask
	for {
		s := &t.slots[i]
		if s.e.vn == 0 || s.key == *k {
			return i
		}
		i = (i + 1) & mask
	}
}

// lookup returns the slot of k (see slot) and k's entry, if the table
// has it.
func (t *availTable) lookup(k *cseKey) (int, cseEntry, bool) {
	i := t.slot(k)
	e := t.slots[i].e
	return i, e, e.vn != 0
}

// full reports whether one more entry would fill the table past half.
func (t *availTable) full() bool { return 2*(t.n+1) > len(t.slots) }

// addAt puts k, which the table does not have, in slot i, the slot
// lookup returned for it with nothing added or grown since; the caller
// grows the table before that lookup when it is full.
func (t *availTable) addAt(i int, k *cseKey, e cseEntry) {
	t.slots[i] = availSlot{key: *k, e: e}
	t.n++
}

// remove takes k, the entry added last of those present, out of the
// table.
func (t *availTable) remove(k *cseKey) {
	t.slots[t.slot(k)] = availSlot{}
	t.n--
}

// reset readies the table for a compile: emptied if a failed compile
// left entries, made or shrunk to its first size if need be.
func (t *availTable) reset() {
	switch {
	case len(t.slots) == 0 || len(t.slots) > maxKeptAvailSlots:
		*t = availTable{slots: make([]availSlot, minAvailSlots)}
	case t.n > 0:
		clear(t.slots)
		t.n = 0
	}
}

// grow doubles the table, adding again the entries present in the order
// they were first added (order lists their keys, oldest first), which
// keeps remove's invariant.
func (t *availTable) grow(order func(yield func(*cseKey) bool)) {
	old := *t
	*t = availTable{slots: make([]availSlot, 2*len(old.slots))}
	for k := range order {
		_, e, ok := old.lookup(k)
		if !ok {
			panic("opt: CSE's undo log names a computation its table does not have")
		}
		t.addAt(t.slot(k), k, e)
	}
	if t.n != old.n {
		panic("opt: CSE's undo log and its table disagree")
	}
}
