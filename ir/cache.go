package ir

import (
	"unsafe"

	"miniil/internal/prefault"
)

// Cache is memory that one compile after another reuses: the IR's
// instructions and the scratch arrays of the passes over it (value
// numbers, definition sites, dominator arrays, liveness sets). A
// compile takes what it needs with Make and NewInstr; Reset, at the
// start of the next compile, hands the same memory out again. Compiling
// many small methods then allocates almost nothing, so the Go collector
// has little to do and the memory touched stays in the processor's
// caches (the Go compiler's ssa.Cache does the same for its passes).
//
// What a Cache hands out is valid only until its next Reset: nothing
// that outlives the compile (the machine code, GC information, clause
// tables) may be made from it. A nil *Cache is valid and allocates
// everything fresh. The chunks keep what the last compile stored in them
// (pointers into its module, say) reachable until a later compile
// overwrites it: at most keepBytes, 1 MiB, per element type.
type Cache struct {
	instrs pool[Instr]
	// pools holds one *pool[T] per element type, for Reset.
	pools []resetter
	// index finds the *pool[T] of Make and the *T of Keep by the type's
	// descriptor: a compile makes about 150 requests of some 90 types,
	// and a scan of the pools took 14 compares a request.
	index typeIndex
}

// typeIndex maps type descriptors to the values kept for them: open
// addressing, a power-of-two table at most half full.
type typeIndex struct {
	slots []typeSlot
	n     int
}

type typeSlot struct {
	key uintptr        // the type descriptor's address; 0: empty
	val unsafe.Pointer // the *pool[T] or *T kept for it
}

// poolKey[T] names the pool of T in the index (Keep's values are
// indexed by their own type, which is never this one: it is
// unexported).
type poolKey[T any] struct{}

// typeKey returns the address of the type descriptor of *T, unique per
// type in a program: the first word of an interface holding a *T (the
// layout of Go's interfaces; no reflection, which would cost more than
// the scan it replaces).
func typeKey[T any]() uintptr {
	var x any = (*T)(nil)
	return (*[2]uintptr)(unsafe.Pointer(&x))[0]
}

// slot returns the position of key in the table, or of the empty slot
// where it goes.
func (t *typeIndex) slot(key uintptr) int {
	mask := uintptr(len(t.slots) - 1)
	for h := (key * 0x9E3779B97F4A7C15 >> 32) & mask; ; h = (h + 1) & mask {
		if k := t.slots[h].key; k == key || k == 0 {
			return int(h)
		}
	}
}

// get returns the value kept for key, or nil.
func (t *typeIndex) get(key uintptr) unsafe.Pointer {
	if len(t.slots) == 0 {
		return nil
	}
	return t.slots[t.slot(key)].val
}

// put keeps val for key (not in the table yet).
func (t *typeIndex) put(key uintptr, val unsafe.Pointer) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		t.slots = make([]typeSlot, max(2*len(old), 128))
		for _, s := range old {
			if s.key != 0 {
				t.slots[t.slot(s.key)] = s
			}
		}
	}
	t.slots[t.slot(key)] = typeSlot{key, val}
	t.n++
}

type resetter interface{ reset() }

// pool hands out slices of its chunks, a bump at a time.
type pool[T any] struct {
	chunks [][]T // chunks[:cur+1] are this compile's; the rest are kept for later
	cur    int
	used   int // elements of chunks[cur] handed out
}

// A pool's chunks are at most maxChunk bytes (a large method's compile
// touches only the pages it fills, and the collector scans little that
// was never written), a request of more than maxDirect bytes bypasses
// the pools (a large method's big arrays are allocated as they were
// without a cache, and left to the collector), and Reset keeps a pool's
// first chunks up to keepBytes for the next compile.
const (
	maxChunk  = 64 << 10
	maxDirect = 32 << 10
	keepBytes = 1 << 20
)

func (p *pool[T]) take(n int, size uintptr) []T {
	if uintptr(n)*size > maxDirect {
		return make([]T, n)
	}
	if len(p.chunks) == 0 || p.used+n > len(p.chunks[p.cur]) {
		p.next(n, size)
	}
	s := p.chunks[p.cur][p.used : p.used+n : p.used+n]
	p.used += n
	clear(s)
	return s
}

// next moves on to a chunk with room for n elements: the next one kept
// from an earlier compile, or a new one twice the size of the last, up
// to maxChunk.
func (p *pool[T]) next(n int, size uintptr) {
	if len(p.chunks) > 0 {
		p.cur++
	}
	p.used = 0
	if p.cur < len(p.chunks) && len(p.chunks[p.cur]) >= n {
		return
	}
	last := 0
	if len(p.chunks) > 0 {
		last = len(p.chunks[len(p.chunks)-1])
	}
	c := make([]T, max(min(2*last, int(maxChunk/size)), n, 64))
	// A large method's chunks are large: their heap blocks get huge pages
	// (only the advice: a chunk is filled as the compile goes).
	prefault.HugeSlice(c)
	if p.cur < len(p.chunks) {
		p.chunks[p.cur] = c // a kept chunk too small for n
	} else {
		p.chunks = append(p.chunks, c)
	}
}

// reset hands the chunks out again from the first, keeping those up to
// keepBytes: a compile larger than that leaves the rest to the collector.
func (p *pool[T]) reset() {
	var zero T
	size := max(unsafe.Sizeof(zero), 1)
	total := uintptr(0)
	for k, c := range p.chunks {
		if total += uintptr(len(c)) * size; total > keepBytes {
			clear(p.chunks[k:])
			p.chunks = p.chunks[:k]
			break
		}
	}
	p.cur, p.used = 0, 0
}

// Make returns a zeroed slice of n Ts from c (len and cap n: appending
// to it copies it out of the cache), or a new one when c is nil.
func Make[T any](c *Cache, n int) []T {
	if c == nil {
		return make([]T, n)
	}
	var zero T
	size := max(unsafe.Sizeof(zero), 1)
	key := typeKey[poolKey[T]]()
	if p := c.index.get(key); p != nil {
		return (*pool[T])(p).take(n, size)
	}
	p := &pool[T]{}
	c.pools = append(c.pools, p)
	c.index.put(key, unsafe.Pointer(p))
	return p.take(n, size)
}

// New returns a zeroed T from c (one element of Make: valid until c's
// next Reset), or a new one when c is nil.
func New[T any](c *Cache) *T { return &Make[T](c, 1)[0] }

// Append appends v to s as append does, but a slice that must grow
// grows into c's memory (twice its capacity, as append).
func Append[T any](c *Cache, s []T, v T) []T {
	if len(s) < cap(s) || c == nil {
		return append(s, v)
	}
	n := Make[T](c, max(2*cap(s), 4))[:len(s)+1]
	copy(n, s)
	n[len(s)] = v
	return n
}

// Keep returns c's one T, made zero the first time and the same one
// after: a pass keeps there the state it reuses from compile to compile
// (maps, growing stacks), which Reset does not touch, and leaves it ready
// for the next compile. With a nil c, it returns a new T.
func Keep[T any](c *Cache) *T {
	if c == nil {
		return new(T)
	}
	key := typeKey[T]()
	if v := c.index.get(key); v != nil {
		return (*T)(v)
	}
	v := new(T)
	c.index.put(key, unsafe.Pointer(v))
	return v
}

// Emptied empties the map *m that a pass keeps from compile to compile
// (in a Keep'd struct) and returns it, making it when it is nil or grew
// large for an earlier method: clearing a map costs its capacity, so a
// large method's map would make every later small compile pay.
func Emptied[K comparable, V any](m *map[K]V) map[K]V {
	if *m == nil || len(*m) > 256 {
		*m = make(map[K]V)
	} else {
		clear(*m)
	}
	return *m
}

// NewInstr returns a zeroed instruction from c, or a new one when c is
// nil.
func (c *Cache) NewInstr() *Instr {
	if c == nil {
		return new(Instr)
	}
	return &c.instrs.take(1, unsafe.Sizeof(Instr{}))[0]
}

// Reset makes everything c handed out reusable: the compile that took
// it must be over.
func (c *Cache) Reset() {
	if c == nil {
		return
	}
	c.instrs.reset()
	for _, p := range c.pools {
		p.reset()
	}
}
