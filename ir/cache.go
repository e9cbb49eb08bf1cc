package ir

import (
	"reflect"
	"unsafe"
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
// everything fresh.
type Cache struct {
	instrs pool[Instr]
	pools  []typedPool
	kept   []keptValue
}

// keptValue is the one T of Keep[T].
type keptValue struct {
	t reflect.Type
	v any
}

// typedPool is one element type's pool: a *pool[T].
type typedPool struct {
	t    reflect.Type
	pool resetter
	size uintptr // bytes per element
}

type resetter interface{ reset(size uintptr) }

// pool hands out slices of one chunk, a bump at a time.
type pool[T any] struct {
	buf  []T
	used int
}

// maxKept is the largest chunk, in bytes, a pool keeps from one compile
// to the next: a huge method's arrays are left to the collector rather
// than held for the rest of the run.
const maxKept = 4 << 20

func (p *pool[T]) take(n int) []T {
	if p.used+n > len(p.buf) {
		// A new chunk, at least twice the last: the old one stays with
		// the slices taken from it until Reset, and then is garbage.
		p.buf = make([]T, max(2*len(p.buf), n, 64))
		p.used = 0
	}
	s := p.buf[p.used : p.used+n : p.used+n]
	p.used += n
	clear(s)
	return s
}

func (p *pool[T]) reset(size uintptr) {
	p.used = 0
	if uintptr(len(p.buf))*size > maxKept {
		p.buf = nil
	}
}

// Make returns a zeroed slice of n Ts from c (len and cap n: appending
// to it copies it out of the cache), or a new one when c is nil.
func Make[T any](c *Cache, n int) []T {
	if c == nil {
		return make([]T, n)
	}
	t := reflect.TypeFor[T]()
	for i := range c.pools {
		if c.pools[i].t == t {
			return c.pools[i].pool.(*pool[T]).take(n)
		}
	}
	p := &pool[T]{}
	var zero T
	c.pools = append(c.pools, typedPool{t: t, pool: p, size: unsafe.Sizeof(zero)})
	return p.take(n)
}

// Keep returns c's one T, made zero the first time and the same one
// after: a pass keeps there the state it reuses from compile to compile
// (maps, growing stacks), which Reset does not touch, and leaves it ready
// for the next compile. With a nil c, it returns a new T.
func Keep[T any](c *Cache) *T {
	if c == nil {
		return new(T)
	}
	t := reflect.TypeFor[T]()
	for _, k := range c.kept {
		if k.t == t {
			return k.v.(*T)
		}
	}
	v := new(T)
	c.kept = append(c.kept, keptValue{t: t, v: v})
	return v
}

// NewInstr returns a zeroed instruction from c, or a new one when c is
// nil.
func (c *Cache) NewInstr() *Instr {
	if c == nil {
		return new(Instr)
	}
	return &c.instrs.take(1)[0]
}

// Reset makes everything c handed out reusable: the compile that took
// it must be over.
func (c *Cache) Reset() {
	if c == nil {
		return
	}
	c.instrs.reset(unsafe.Sizeof(Instr{}))
	for i := range c.pools {
		c.pools[i].pool.reset(c.pools[i].size)
	}
}
