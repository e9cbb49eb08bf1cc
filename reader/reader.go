// Package reader imports verified IL methods into the JIT's IR. It is
// internal to miniil: no compatibility promise.
//
// The evaluation stack becomes virtual registers: loads of arguments and
// locals push the variable's own register (copied only if the variable is
// stored to while still on the stack), and values live across a block
// boundary are copied into spill temporaries that the successor block
// starts with. Every implicit exception becomes an explicit test and branch
// to a cold throw block.
package reader

import (
	"fmt"
	"slices"

	"miniil/il"
	"miniil/ir"
)

// Import translates a verified method into IR, with every type
// initializer check its sites need (Options{}).
func Import(mod *il.Module, m *il.Method) (f *ir.Func, err error) {
	return ImportWith(mod, m, Options{})
}

// ImportWith translates a verified method into IR.
func ImportWith(mod *il.Module, m *il.Method, opts Options) (f *ir.Func, err error) {
	if m.Builtin {
		return nil, fmt.Errorf("%s is a base library method; it has no IL", m.FullName())
	}
	if m.Abstract {
		return nil, fmt.Errorf("%s is abstract; it has no IL", m.FullName())
	}
	// A float64 reaching a block whose entry stack was first seen holding
	// a float32 at the same depth forces that entry to float64; the method
	// is then imported again. Each round forces at least one more entry,
	// so this ends.
	var force map[[2]int]bool // made by the first forcing (rare)
	for {
		// The reader's state is kept in the cache from import to import
		// (imports never nest: the inliner imports a callee after the
		// caller's import is over).
		r := ir.Keep[reader](opts.Cache)
		r.clear()
		f := ir.New[ir.Func](opts.Cache) // lives as long as the compile
		f.Method, f.Cache = m, opts.Cache
		r.mod, r.m, r.f, r.forceF64, r.opts = mod, m, f, force, opts
		for i := 0; i < m.NumArgs(); i++ {
			f.Kinds = ir.Append(f.Cache, f.Kinds, ir.KindOf(m.ArgType(i)))
		}
		f.NumArgs = m.NumArgs()
		if m.Ret.Kind == il.KValue {
			f.Kinds = ir.Append(f.Cache, f.Kinds, ir.Ptr)
			f.NumArgs++
		}
		for _, l := range m.Locals {
			f.Kinds = ir.Append(f.Cache, f.Kinds, ir.KindOf(l.Type))
		}
		r.f.NumLocals = len(m.Locals)
		if err := r.run(); err != nil {
			return nil, err
		}
		if !r.restart {
			f := r.f
			r.clear() // the module and IR are not the cache's to keep
			return f, nil
		}
		force = r.forceF64
	}
}

// clear empties the reader for the next import, keeping the arrays of
// its lists (values, block indices, flags).
func (r *reader) clear() {
	*r = reader{stack: r.stack[:0], work: r.work[:0], done: r.done[:0], isConst: r.isConst[:0]}
}

type reader struct {
	mod  *il.Module
	m    *il.Method
	f    *ir.Func
	opts Options
	maps *maps // where the maps below come from

	blockAt  []*ir.Block     // IL instruction index of a leader -> block (others: nil); leaderOf is the inverse
	forceF64 map[[2]int]bool // (leader index, depth) whose entry is float64
	restart  bool            // an entry had to be forced: import again

	region      *ir.Region   // region of the instruction being imported
	instrRegion []*ir.Region // innermost region of each IL instruction
	regionRange map[*ir.Region][2]int
	handlerOf   map[int]*ir.Region       // clause index -> its handler region
	filterOf    map[int]*ir.Region       // clause index -> its filter region
	finallyOf   map[*ir.Region]int       // try region -> its (first) finally clause
	handlerRoot map[*ir.Region]*ir.Block // entry block of each handler and filter region
	spills      map[[2]int]ir.Value      // (depth, kind) -> spill temporary
	work        []int
	done        []bool // by block ID: imported (or made by the reader)
	cur         *ir.Block
	pend        *ir.Block // the block of the instructions in maps.pending
	stack       []ir.Value
	ilOff       int32
	idx         int                    // index of the IL instruction being imported
	throwBlk    map[throwKey]*ir.Block // shared throw blocks
	// consts holds the integer constants constI32 and constI64 made:
	// each is a temporary of its own, defined once and never again.
	// By value (isConst marks them), so large methods pay no hashing.
	consts  []int64
	isConst ir.ValueSet

	// Value types and managed pointers (see value.go).
	varSlot      map[ir.Value]int            // frame block of a variable kept in memory
	exposed      map[ir.Value]bool           // variables whose address the method takes
	structOf     map[ir.Value]*il.Type       // stack values that are values of a value type (their address)
	view         map[ir.Value]ir.Value       // struct stack values that read a variable's own block
	nonNull      map[ir.Value]bool           // addresses known to be non-null
	structSpills map[structSpillKey]ir.Value // spill temporaries of value-type stack values

	// slab hands out the instructions emit and terminate make, a chunk
	// at a time (one allocation per chunk instead of one per
	// instruction).
	slab []ir.Instr
}

// newInstr returns a zeroed instruction from the slab.
func (r *reader) newInstr() *ir.Instr {
	if r.opts.Cache != nil {
		return r.opts.Cache.NewInstr()
	}
	if len(r.slab) == cap(r.slab) {
		n := min(2*cap(r.slab), 1024)
		if n == 0 {
			n = min(max(16, r.m.CodeSize/2), 1024)
		}
		r.slab = make([]ir.Instr, 0, n)
	}
	r.slab = r.slab[:len(r.slab)+1]
	return &r.slab[len(r.slab)-1]
}

// maps holds the reader's maps from one import to the next (in the
// cache, ir.Keep): an import empties them, which keeps their memory,
// instead of making them. Imports never nest (the inliner imports a
// callee after its caller's import is over).
type maps struct {
	spills       map[[2]int]ir.Value
	throwBlk     map[throwKey]*ir.Block
	regionRange  map[*ir.Region][2]int
	handlerOf    map[int]*ir.Region
	filterOf     map[int]*ir.Region
	finallyOf    map[*ir.Region]int
	tries        map[[2]int]*ir.Region
	handlerRoot  map[*ir.Region]*ir.Block
	varSlot      map[ir.Value]int
	exposed      map[ir.Value]bool
	structOf     map[ir.Value]*il.Type
	view         map[ir.Value]ir.Value
	nonNull      map[ir.Value]bool
	structSpills map[structSpillKey]ir.Value
	// pending is where emit collects the instructions of the block it
	// appends to; flush moves them into the block at their exact size
	// (appending to the block's own list would copy it at every doubling).
	pending []*ir.Instr
	// leaders[k] is the IL instruction of block k when it was made for a
	// leader (the inverse of blockAt; 0 for other blocks).
	leaders []int32
	// entries[k] is the entry stack of block k, once set (setEntry).
	entries []entryStack
	// Scratch lists of spillTo.
	spillVals, assigned []ir.Value
}

// entryStack is the entry stack of a block (the temporaries holding the
// values on it) and whether it is known yet.
type entryStack struct {
	temps []ir.Value
	set   bool
}

// entryOf returns block b's entry stack and whether it is known.
func (r *reader) entryOf(b *ir.Block) ([]ir.Value, bool) {
	if b.ID < len(r.maps.entries) {
		e := r.maps.entries[b.ID]
		return e.temps, e.set
	}
	return nil, false
}

// setEntry records block b's entry stack.
func (r *reader) setEntry(b *ir.Block, temps []ir.Value) {
	r.maps.entries = extend(r.maps.entries, b.ID)
	r.maps.entries[b.ID] = entryStack{temps, true}
}

// extend returns s extended with zero elements to hold index i, its
// array at least doubled when it must grow (append grows a large slice
// by a quarter, copying it again and again as a large method's blocks
// are made one by one).
func extend[T any](s []T, i int) []T {
	if i < len(s) {
		return s
	}
	n := len(s)
	if i >= cap(s) {
		s = slices.Grow(s, max(i+1, 2*cap(s), 64)-n)
	}
	s = s[:i+1]
	clear(s[n:]) // the array may hold a former compile's elements
	return s
}

// leaderOf returns the IL instruction a block made for a leader starts
// at (0 for a block the reader made).
func (r *reader) leaderOf(b *ir.Block) int {
	if b.ID < len(r.maps.leaders) {
		return int(r.maps.leaders[b.ID])
	}
	return 0
}

func (r *reader) run() error {
	m := r.m
	r.blockAt = ir.Make[*ir.Block](r.opts.Cache, len(m.Code)+1)
	r.maps = ir.Keep[maps](r.opts.Cache)
	r.maps.pending = r.maps.pending[:0] // an import that failed may have left some
	r.maps.entries = r.maps.entries[:0]
	r.spills = ir.Emptied(&r.maps.spills)
	r.throwBlk = ir.Emptied(&r.maps.throwBlk)
	pre := r.prepareVars()
	if err := r.buildRegions(); err != nil {
		return err
	}
	entryInit := r.entryInit() // the first block, when the entry triggers a type initializer
	leader := ir.Make[bool](r.opts.Cache, len(m.Code)+1)
	leader[0] = true
	for _, c := range m.EH {
		for _, i := range []int{c.TryStart, c.TryEnd, c.HandlerStart, c.HandlerEnd} {
			leader[i] = true
		}
		if c.Kind == il.EHFilter {
			leader[c.FilterStart] = true
		}
	}
	for i, in := range m.Code {
		for _, t := range in.Targets() {
			leader[t] = true
		}
		if in.Op.IsBranch() || endsBlock(in.Op) {
			leader[i+1] = true
		}
	}
	r.maps.leaders = r.maps.leaders[:0]
	for i := range m.Code {
		if leader[i] {
			b := r.f.NewBlock(int(m.Code[i].Offset))
			b.Region = r.regionAt(i)
			r.blockAt[i] = b
			r.maps.leaders = extend(r.maps.leaders, b.ID)
			r.maps.leaders[b.ID] = int32(i)
		}
	}
	r.setEntry(r.blockAt[0], nil)
	first := r.blockAt[0]
	if entryInit != nil {
		r.fillEntryInit(entryInit, first)
		first = entryInit
	}
	if pre != nil {
		r.cur, r.region = pre, nil
		r.copyExposedArgs()
		r.terminate(ir.OpJump, nil, ir.Aux{}, first)
	}
	r.work = append(r.work[:0], 0)
	r.handlerEntries()
	for len(r.work) > 0 {
		i := r.work[len(r.work)-1]
		r.work = r.work[:len(r.work)-1]
		b := r.blockAt[i]
		if r.isDone(b) {
			continue
		}
		r.markDone(b)
		r.importBlock(i, b)
	}
	r.flush()
	r.finish()
	return nil
}

// markDone records that block b is imported (or made by the reader, with
// nothing to import).
func (r *reader) markDone(b *ir.Block) {
	r.done = extend(r.done, b.ID)
	r.done[b.ID] = true
}

// isDone reports whether block b is imported.
func (r *reader) isDone(b *ir.Block) bool { return b.ID < len(r.done) && r.done[b.ID] }

func endsBlock(op il.Op) bool {
	switch op.Canon() {
	case il.Ret, il.Throw, il.Rethrow, il.Endfinally, il.Endfilter:
		return true
	}
	return false
}

// emit appends an instruction to the current block.
func (r *reader) emit(op ir.Op, kind ir.Kind, dst ir.Value, args []ir.Value, aux ir.Aux) *ir.Instr {
	in := r.newInstr()
	*in = ir.Instr{Op: op, Kind: kind, Dst: dst, Dst2: ir.NoValue, Args: r.args(args), Aux: aux, ILOffset: r.ilOff}
	if r.pend != r.cur {
		r.flush()
		r.pend = r.cur
	}
	r.maps.pending = append(r.maps.pending, in)
	return in
}

// flush appends the instructions emit collected to their block (pend).
// It runs whenever emit turns to another block, at every terminator, and
// at the end of the import: nothing reads a block's list before.
func (r *reader) flush() {
	b, pending := r.pend, r.maps.pending
	r.pend = nil
	if len(pending) == 0 {
		return
	}
	all := ir.Make[*ir.Instr](r.opts.Cache, len(b.Instrs)+len(pending))
	copy(all[copy(all, b.Instrs):], pending)
	b.Instrs = all
	r.maps.pending = pending[:0]
}

// args returns a copy of an instruction's operands, made in the cache:
// the callers' slices (literals, mostly) then stay on their stacks.
func (r *reader) args(a []ir.Value) []ir.Value {
	if len(a) == 0 {
		return nil
	}
	s := ir.Make[ir.Value](r.opts.Cache, len(a))
	copy(s, a)
	return s
}

// value emits an instruction producing a new temporary of kind k.
func (r *reader) value(op ir.Op, k ir.Kind, aux ir.Aux, args ...ir.Value) ir.Value {
	d := r.f.NewValue(k)
	r.emit(op, k, d, args, aux)
	return d
}

// terminate ends the current block.
func (r *reader) terminate(op ir.Op, args []ir.Value, aux ir.Aux, succs ...*ir.Block) {
	r.flush()
	t := r.newInstr()
	*t = ir.Instr{Op: op, Dst: ir.NoValue, Dst2: ir.NoValue, Args: r.args(args), Aux: aux, ILOffset: r.ilOff}
	r.cur.Term = t
	r.cur.Succs = ir.Make[*ir.Block](r.opts.Cache, len(succs)) // succs stays on the caller's stack
	copy(r.cur.Succs, succs)
}

func (r *reader) kind(v ir.Value) ir.Kind { return r.f.Kinds[v] }

func (r *reader) push(vs ...ir.Value) { r.stack = append(r.stack, vs...) }

func (r *reader) pop() ir.Value {
	v := r.stack[len(r.stack)-1]
	r.stack = r.stack[:len(r.stack)-1]
	return v
}

func (r *reader) popN(n int) []ir.Value {
	args := ir.Make[ir.Value](r.opts.Cache, n)
	copy(args, r.stack[len(r.stack)-n:])
	r.stack = r.stack[:len(r.stack)-n]
	return args
}

func (r *reader) constI32(v int64) ir.Value { return r.constInt(ir.I32, int64(int32(v))) }

func (r *reader) constI64(v int64) ir.Value { return r.constInt(ir.I64, v) }

// constInt returns a new temporary of integer kind k holding v.
func (r *reader) constInt(k ir.Kind, v int64) ir.Value {
	d := r.value(ir.OpConst, k, ir.Aux{Int: v})
	if int(d) >= len(r.consts) {
		n := max(2*len(r.consts), int(d)+1, 64)
		consts := ir.Make[int64](r.opts.Cache, n)
		copy(consts, r.consts)
		r.consts = consts
		r.isConst = append(r.isConst, make(ir.ValueSet, (n+63)/64-len(r.isConst))...)
	}
	r.consts[d] = v
	r.isConst.Add(d)
	return d
}

// constant reports whether v is an integer constant the reader made, and
// its value (an int32 one sign-extended).
func (r *reader) constant(v ir.Value) (int64, bool) {
	if int(v) >= len(r.consts) || !r.isConst.Has(v) {
		return 0, false
	}
	return r.consts[v], true
}

func (r *reader) constF64(v float64) ir.Value {
	return r.value(ir.OpConst, ir.F64, ir.FloatAux(v))
}

func (r *reader) constF32(v float64) ir.Value {
	return r.value(ir.OpConst, ir.F32, ir.FloatAux(float64(float32(v))))
}

// protect copies stack entries that are variable v before v is stored to,
// so the stack keeps the old value.
func (r *reader) protect(v ir.Value) {
	var fresh ir.Value = ir.NoValue
	for i, s := range r.stack {
		if s == v {
			if fresh == ir.NoValue {
				fresh = r.value(ir.OpCopy, r.kind(v), ir.Aux{}, v)
			}
			r.stack[i] = fresh
		}
	}
}

// needsConv reports whether storing a value of kind k into a location of
// type t needs a conversion: truncation and extension for small integers,
// rounding float64 to float32, widening, or narrowing native int.
func needsConv(k ir.Kind, t *il.Type) bool {
	switch t.Kind {
	case il.KBool, il.KChar, il.KI1, il.KU1, il.KI2, il.KU2:
		return true
	}
	return k != ir.KindOf(t)
}

// coerce converts v for storage in a location of type t, returning v
// itself when nothing is needed.
func (r *reader) coerce(v ir.Value, t *il.Type) ir.Value {
	if needsConv(r.kind(v), t) {
		return r.value(ir.OpConv, ir.KindOf(t), ir.Aux{Type: t}, v)
	}
	return v
}

// store assigns v to variable dst with the conversion its type needs.
func (r *reader) store(dst ir.Value, v ir.Value, t *il.Type) {
	r.protect(dst)
	k := ir.KindOf(t)
	if needsConv(r.kind(v), t) {
		r.emit(ir.OpConv, k, dst, []ir.Value{v}, ir.Aux{Type: t})
		return
	}
	r.emit(ir.OpCopy, k, dst, []ir.Value{v}, ir.Aux{})
}

// widen brings two operands to a common kind: int32 with native int
// becomes native int, float32 with float64 becomes float64.
func (r *reader) widen(a, b ir.Value) (ir.Value, ir.Value, ir.Kind) {
	ka, kb := r.kind(a), r.kind(b)
	if ka == kb {
		return a, b, ka
	}
	to, t := ir.I64, il.NatInt
	if ka.IsFloat() {
		to, t = ir.F64, il.Float64
	}
	if ka != to {
		a = r.widenTo(a, to, t)
	}
	if kb != to {
		b = r.widenTo(b, to, t)
	}
	return a, b, to
}

// widenTo converts v to kind to (of type t) for widen: an int32
// constant becomes a native int constant, which later code can still see
// is one (a constant divisor needs no check); anything else an OpConv.
func (r *reader) widenTo(v ir.Value, to ir.Kind, t *il.Type) ir.Value {
	if c, ok := r.constant(v); ok && to == ir.I64 {
		return r.constI64(c) // conv.i sign-extends
	}
	return r.value(ir.OpConv, to, ir.Aux{Type: t}, v)
}

// toF64 widens a float32 to float64.
func (r *reader) toF64(v ir.Value) ir.Value {
	if r.kind(v) == ir.F32 {
		return r.value(ir.OpConv, ir.F64, ir.Aux{Type: il.Float64}, v)
	}
	return v
}

// toI64 sign-extends an int32 to native int.
func (r *reader) toI64(v ir.Value) ir.Value {
	if r.kind(v) == ir.I32 {
		return r.value(ir.OpConv, ir.I64, ir.Aux{Type: il.NatInt}, v)
	}
	return v
}

// throwKey identifies a shared throw block: one per exception class and
// region, so the throw stays inside the protected regions of its site.
type throwKey struct {
	class  string
	region *ir.Region
}

// throwBlock returns the shared cold block of the current region that
// throws a new instance of the named base library exception.
func (r *reader) throwBlock(class string) *ir.Block {
	k := throwKey{class, r.region}
	if b := r.throwBlk[k]; b != nil {
		return b
	}
	b := r.newBlock()
	b.Cold = true
	b.Term = &ir.Instr{Op: ir.OpThrowHelper, Dst: ir.NoValue, Dst2: ir.NoValue, Aux: ir.Aux{Ref: r.mod.Class(class)}, ILOffset: -1}
	r.throwBlk[k] = b
	return b
}

// newBlock makes a reader block in the current region.
func (r *reader) newBlock() *ir.Block {
	b := r.f.NewBlock(-1)
	b.Region = r.region
	r.markDone(b)
	return b
}

// check ends the current block with "if cond goto throw(class)" and
// continues in a fresh block.
func (r *reader) check(cond ir.Value, class string) {
	r.branchOut(cond, r.throwBlock(class))
}

// branchOut ends the current block with "if cond goto target" and
// continues in a fresh block (which only this block reaches).
func (r *reader) branchOut(cond ir.Value, target *ir.Block) {
	next := r.newBlock()
	r.terminate(ir.OpIf, []ir.Value{cond}, ir.Aux{}, target, next)
	r.cur = next
}

// nullCheck throws NullReferenceException when ref is null.
func (r *reader) nullCheck(ref ir.Value) {
	next := r.newBlock()
	r.terminate(ir.OpIf, []ir.Value{ref}, ir.Aux{}, next, r.throwBlock("System.NullReferenceException"))
	r.cur = next
}

func (r *reader) cmp(c ir.Cond, a, b ir.Value) ir.Value {
	a, b, k := r.widenAny(a, b)
	d := r.f.NewValue(ir.I32)
	r.emit(ir.OpCmp, k, d, []ir.Value{a, b}, ir.Aux{Cond: c})
	return d
}

// widenAny is widen for comparisons, which also see references.
func (r *reader) widenAny(a, b ir.Value) (ir.Value, ir.Value, ir.Kind) {
	if r.kind(a) == ir.Ref {
		return a, b, ir.Ref
	}
	return r.widen(a, b)
}
