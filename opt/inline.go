package opt

import (
	"slices"

	"miniil/il"
	"miniil/ir"
)

// Inlining. A call of a small method is replaced by a copy of the
// callee's IR: its arguments become the call's operands (or temporaries
// copied from them when the callee writes an argument), its locals and
// temporaries new temporaries of the caller, its frame blocks new blocks
// of the caller's frame, and each return a copy into the call's result
// and a jump to the code after the call. The copy runs in the call's EH
// region, so the caller's handlers see its exceptions as they saw the
// call's.
//
// What is inlined (legality): a method with IL (not the base library's,
// not abstract, not synthesized), without exception handlers, without
// loops, that can return, whose frame blocks hold no references, and
// that, once its own calls were inlined, calls no managed method and no
// base library method that may call managed code back (those taking an
// object: Console.WriteLine(object) calls ToString). So an inlined body
// is a leaf: no frame is ever made inside one, which keeps the call-depth
// rule simple (below), and nothing but the body itself runs at its depth.
// A call is a candidate when its callee is known: `call`, or `callvirt`
// of a method that cannot be overridden (final, or of a sealed class).
// The caller and the methods being inlined are never inlined into
// themselves.
//
// Profitability (after RyuJIT's defaults): a callee of at most
// AlwaysInlineIL bytes of IL is always inlined; one of at most MaxInlineIL
// bytes when the call is in a loop, or of at most SmallInlineIL bytes
// elsewhere. A callee's own calls are inlined first, up to MaxInlineDepth
// levels. Inlining stops when the caller has grown by its budget
// (InlineBudget: a few times its own size), and methods of more than
// MaxInlinerIL bytes get none, so compile time stays linear.
//
// What stays the same: the exceptions thrown and the stack traces
// reported. Every instruction copied carries its inlined call
// (ir.Instr.Inline, ir.Func.Inlines), so the code generator records, at
// every call and exit of the copy, the chain of inlined calls, and the
// runtime shows each inlined method as a frame of its own, at its IL
// offset, above the frame that holds it. The call depth limit counts an
// inlined call as a frame too: the copy starts with OpDepthCheck, a
// stack check that exits to the runtime when the stack is deep enough
// for the limit to matter, where the runtime counts the frames plus the
// inlined calls. The GC information sees the copy's references as the
// caller's values, live exactly where the callee's would be.

// Inlining limits.
const (
	AlwaysInlineIL = 16  // IL bytes: always inlined (RyuJIT's ALWAYS_INLINE_SIZE)
	SmallInlineIL  = 32  // IL bytes: inlined anywhere
	MaxInlineIL    = 100 // IL bytes: inlined in loops (RyuJIT's DEFAULT_MAX_INLINE_SIZE)
	MaxInlineDepth = 3   // levels of calls inlined into inlined code
	MaxInlinerIL   = 8000
)

// Importer returns the IR of a method, as the reader imports it, for the
// inliner to copy (each call returns a function of its own).
type Importer func(m *il.Method) (*ir.Func, error)

// Inline inlines the calls of f that the rules above allow, importing
// the callees with imp, and returns the number of calls inlined. f keeps
// its blocks numbered by position with their predecessor lists.
func Inline(f *ir.Func, imp Importer) int {
	if f.Method.CodeSize > MaxInlinerIL || !hasCandidate(f, f.Method) {
		return 0
	}
	in := ir.New[inliner](f.Cache)
	*in = inliner{imp: imp, active: append(ir.Make[*il.Method](f.Cache, 4)[:0], f.Method)}
	defer func() { *in = inliner{} }() // from the cache: keep nothing alive
	return in.run(f, 0)
}

// hasCandidate reports whether f calls a method other than self that
// inlineTarget allows: without one, Inline needs neither loops nor
// dominators (most methods, since most calls are of larger methods).
func hasCandidate(f *ir.Func, self *il.Method) bool {
	for _, b := range f.Blocks {
		for _, call := range b.Instrs {
			if (call.Op == ir.OpCall || call.Op == ir.OpCallVirt) && call.Aux.Method() != self {
				if inlineTarget(call) != nil {
					return true
				}
			}
		}
	}
	return false
}

// callsLoopSized reports whether f calls an inlinable method that is
// inlined only in loops from a block that may be in one (one within a
// back edge's span, ir.SpanDepths).
func callsLoopSized(f *ir.Func) bool {
	depth := ir.SpanDepths(f.Cache, f.Blocks)
	for i, b := range f.Blocks {
		if depth[i] == 0 {
			continue
		}
		for _, call := range b.Instrs {
			if m := inlineTarget(call); m != nil && m.CodeSize > SmallInlineIL {
				return true
			}
		}
	}
	return false
}

// inliner is the state of one Inline: the candidates met so far (the
// map made at the first) and the methods being inlined, outermost first
// (at most MaxInlineDepth+1; none is inlined into itself).
type inliner struct {
	imp    Importer
	cands  map[candKey]*candidate
	active []*il.Method
}

// candKey is a method at an inlining depth (deeper, fewer of its own
// calls may be inlined).
type candKey struct {
	m     *il.Method
	depth int
}

// candidate is a callee that may be inlined: its IR, with its own calls
// inlined, and facts the copies need.
type candidate struct {
	f *ir.Func
	// written reports the arguments the callee assigns (they get a
	// temporary of their own in each copy).
	written []bool
	// liveIn lists the values live into the callee's entry that are not
	// arguments: locals read before they are written, zeroed by each copy.
	liveIn []ir.Value
	size   int // instructions
}

// run inlines the calls of f at the given inlining depth.
func (in *inliner) run(f *ir.Func, depth int) int {
	if !hasCandidate(f, nil) {
		return 0
	}
	// Whether a call is in a loop matters only for callees too large to
	// be inlined anywhere (profitable): without a call of one from a
	// block that may be in a loop, no loops are computed.
	var inLoop map[*ir.Block]bool // made when a block is in a loop
	if callsLoopSized(f) {
		loops := FindLoops(f)
		for _, b := range f.Blocks {
			if loops.Depth(b) > 0 {
				if inLoop == nil {
					inLoop = map[*ir.Block]bool{}
				}
				inLoop[b] = true
			}
		}
	}
	size := countInstrs(f)
	budget := inlineBudget(size)
	var after map[*ir.Block][]*ir.Block // blocks placed right after a block (made at the first inlining)
	var cold []*ir.Block
	n := 0
	work := ir.Make[*ir.Block](f.Cache, len(f.Blocks))
	copy(work, f.Blocks)
	for len(work) > 0 {
		b := work[0]
		work = work[1:]
		for i, call := range b.Instrs {
			callee := inlineTarget(call)
			if callee == nil || slices.Contains(in.active, callee) {
				continue
			}
			if !profitable(callee, inLoop[b]) {
				continue
			}
			c := in.candidate(callee, depth+1)
			if c == nil || c.size > budget {
				continue
			}
			budget -= c.size
			entry, body, bodyCold, cont := splice(f, b, i, call, c)
			cont.Region = b.Region
			if inLoop[b] {
				inLoop[cont] = true
			}
			if after == nil {
				after = map[*ir.Block][]*ir.Block{}
			}
			after[b] = append(append([]*ir.Block{entry}, body...), cont)
			cold = append(cold, bodyCold...)
			work = append([]*ir.Block{cont}, work...)
			n++
			break
		}
	}
	if n == 0 {
		return 0
	}
	// Each block followed by what was placed after it (a continuation
	// may have been split again), the cold copies last.
	placeAfter(f, after, cold)
	return n
}

// inlineBudget is how many instructions a function of size instructions
// may grow by.
func inlineBudget(size int) int { return 3*size + 300 }

// profitable reports whether a call of callee should be inlined, by its
// IL size and whether the call is in a loop.
func profitable(callee *il.Method, inLoop bool) bool {
	switch n := callee.CodeSize; {
	case n <= AlwaysInlineIL:
		return true
	case n <= SmallInlineIL:
		return true
	case n <= MaxInlineIL:
		return inLoop
	}
	return false
}

// inlineTarget returns the method call certainly calls, if it may be
// inlined: a `call` of a method with IL, or a `callvirt` of one no class
// can override.
func inlineTarget(call *ir.Instr) *il.Method {
	m := call.Aux.Method()
	switch {
	case call.Op != ir.OpCall && call.Op != ir.OpCallVirt:
		return nil
	case m.Builtin || m.Abstract || m.Hidden || len(m.EH) > 0 || m.CodeSize > MaxInlineIL:
		return nil
	case m.Name == ".cctor":
		return nil // runs once: nothing to gain
	case call.Op == ir.OpCallVirt && !(slices.Contains(m.Attrs, "final") || slices.Contains(m.Owner.Attrs, "sealed")):
		return nil
	}
	return m
}

// candidate returns m as a candidate for inlining at depth, or nil when
// it may not be inlined.
func (in *inliner) candidate(m *il.Method, depth int) *candidate {
	if depth > MaxInlineDepth {
		return nil
	}
	key := candKey{m, depth}
	if c, ok := in.cands[key]; ok {
		return c
	}
	c := in.build(m, depth)
	if in.cands == nil {
		in.cands = map[candKey]*candidate{}
	}
	in.cands[key] = c
	return c
}

// build imports m, inlines its own calls and checks that the result may
// be inlined.
func (in *inliner) build(m *il.Method, depth int) *candidate {
	f, err := in.imp(m)
	if err != nil || len(f.Regions) > 0 {
		return nil // an import error is reported when m itself is compiled
	}
	in.active = append(in.active, m)
	in.run(f, depth)
	in.active = in.active[:len(in.active)-1]
	returns := false
	for _, b := range f.Blocks {
		for _, x := range b.Instrs {
			if (x.Op == ir.OpCall || x.Op == ir.OpCallVirt) && !leafBuiltin(x) {
				return nil
			}
		}
		returns = returns || b.Term.Op == ir.OpRet
	}
	if !returns || cyclic(f) {
		return nil
	}
	for i := range f.Slots {
		if len(f.SlotRefWords(i)) > 0 {
			return nil
		}
	}
	c := &candidate{f: f, written: make([]bool, f.NumArgs), size: countInstrs(f)}
	for _, b := range f.Blocks {
		for x := range b.Each {
			for _, d := range []ir.Value{x.Dst, x.Dst2} {
				if d != ir.NoValue && int(d) < f.NumArgs {
					c.written[d] = true
				}
			}
		}
	}
	for _, v := range liveIntoEntry(f) {
		if int(v) >= f.NumArgs {
			if f.Kinds[v] == ir.Ptr {
				return nil // a pointer local read before it is set: no constant makes its null
			}
			c.liveIn = append(c.liveIn, v)
		}
	}
	return c
}

// leafBuiltin reports whether call is a call of a base library method
// that calls no managed code back: one that takes no object (an object's
// ToString or Equals may be user code).
func leafBuiltin(call *ir.Instr) bool {
	m := call.Aux.Method()
	if call.Op != ir.OpCall || !m.Builtin {
		return false
	}
	if m.BuiltinKind == il.ObjectCtor {
		return true // it does nothing
	}
	for i := 0; i < m.NumArgs(); i++ {
		if !noCallback(m.ArgType(i)) {
			return false
		}
	}
	return true
}

// noCallback reports whether a base library method's parameter of type t
// never makes it call managed code: t holds no System.Object.
func noCallback(t *il.Type) bool {
	switch t.Kind {
	case il.KObject:
		return false
	case il.KArray, il.KByRef:
		return noCallback(t.Elem)
	case il.KClass:
		return t.Class != nil && t.Class.Name != il.ObjectClass
	}
	return true
}

// cyclic reports whether f's control flow has a cycle.
func cyclic(f *ir.Func) bool {
	const (
		unseen = iota
		open
		closed
	)
	state := make([]uint8, len(f.Blocks))
	type item struct {
		b    *ir.Block
		next int
	}
	stack := []item{{f.Blocks[0], 0}}
	state[0] = open
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next == len(top.b.Succs) {
			state[top.b.ID] = closed
			stack = stack[:len(stack)-1]
			continue
		}
		s := top.b.Succs[top.next]
		top.next++
		switch state[s.ID] {
		case open:
			return true
		case unseen:
			state[s.ID] = open
			stack = append(stack, item{s, 0})
		}
	}
	return false
}

// liveIntoEntry returns the values live into f's entry block (read on
// some path before any write), for a function without cycles: one
// backward pass in reverse topological order.
func liveIntoEntry(f *ir.Func) []ir.Value {
	n := len(f.Kinds)
	live := make([]ir.ValueSet, len(f.Blocks))
	for _, id := range postorder(f, []*ir.Block{f.Blocks[0]}) { // successors first
		b := f.Blocks[id]
		s := ir.NewValueSet(n)
		for _, x := range b.Succs {
			if live[x.ID] != nil {
				s.Or(live[x.ID])
			}
		}
		code := b.Code()
		for i := len(code) - 1; i >= 0; i-- {
			x := code[i]
			if x.Dst != ir.NoValue {
				s.Remove(x.Dst)
			}
			if x.Dst2 != ir.NoValue {
				s.Remove(x.Dst2)
			}
			for _, a := range x.Args {
				s.Add(a)
			}
		}
		live[id] = s
	}
	var out []ir.Value
	for v := range n {
		if live[0].Has(ir.Value(v)) {
			out = append(out, ir.Value(v))
		}
	}
	return out
}

// countInstrs returns the number of instructions of f, terminators
// included.
func countInstrs(f *ir.Func) int {
	n := 0
	for _, b := range f.Blocks {
		n += len(b.Instrs) + 1
	}
	return n
}

// splice replaces instruction i of block b, a call, with a copy of the
// candidate's code: b jumps to entry (which checks the call depth,
// copies written arguments, zeroes what the callee's frame starts
// zeroed), entry to the copy of the callee's blocks (body, then its cold
// blocks), whose returns jump to cont, which continues with the rest of
// b. The new blocks are not yet in f.Blocks.
func splice(f *ir.Func, b *ir.Block, i int, call *ir.Instr, c *candidate) (entry *ir.Block, body, cold []*ir.Block, cont *ir.Block) {
	cf := c.f
	// The inlined call, and the ones inlined into the callee, renumbered.
	f.Inlines = append(f.Inlines, ir.InlineSite{Method: cf.Method, Parent: call.Inline, ILOffset: int(call.ILOffset)})
	k := int32(len(f.Inlines))
	ctx := make([]int32, len(cf.Inlines)+1)
	ctx[0] = k
	for j, s := range cf.Inlines {
		f.Inlines = append(f.Inlines, ir.InlineSite{Method: s.Method, Parent: ctx[s.Parent], ILOffset: s.ILOffset})
		ctx[j+1] = int32(len(f.Inlines))
	}
	newBlock := func() *ir.Block { return &ir.Block{ILOffset: -1, Region: b.Region} }
	entry = newBlock()
	cont = newBlock()
	emit := func(x *ir.Instr) {
		x.Dst2, x.Inline = ir.NoValue, k
		entry.Instrs = append(entry.Instrs, x)
	}
	// At IL offset 0 of the callee, where its prolog's check would be.
	emit(&ir.Instr{Op: ir.OpDepthCheck, Dst: ir.NoValue, Aux: ir.Aux{Int: int64(f.InlineDepth(k))}})
	// Values: arguments the callee never writes are the call's operands.
	vals := make([]ir.Value, len(cf.Kinds))
	for v, kind := range cf.Kinds {
		switch {
		case v < cf.NumArgs && !c.written[v]:
			vals[v] = call.Args[v]
		default:
			vals[v] = f.NewValue(kind)
		}
		if v < cf.NumArgs && c.written[v] {
			emit(&ir.Instr{Op: ir.OpCopy, Kind: kind, Dst: vals[v], Args: []ir.Value{call.Args[v]}})
		}
	}
	for _, v := range c.liveIn {
		kind := cf.Kinds[v]
		emit(&ir.Instr{Op: ir.OpConst, Kind: kind, Dst: vals[v]})
	}
	slotBase := int64(len(f.Slots))
	f.Slots = append(f.Slots, cf.Slots...)
	for _, s := range cf.ZeroSlots {
		a := f.NewValue(ir.Ptr)
		emit(&ir.Instr{Op: ir.OpSlotAddr, Kind: ir.Ptr, Dst: a, Aux: ir.Aux{Int: slotBase + int64(s)}})
		emit(&ir.Instr{Op: ir.OpZeroBlk, Dst: ir.NoValue, Args: []ir.Value{a}, Aux: ir.Aux{Int: int64(cf.Slots[s].Words())}})
	}
	// The blocks.
	copies := make([]*ir.Block, len(cf.Blocks))
	for j, cb := range cf.Blocks {
		nb := newBlock()
		nb.Cold = cb.Cold
		copies[j] = nb
		if cb.Cold {
			cold = append(cold, nb)
		} else {
			body = append(body, nb)
		}
	}
	mapInstr := func(x *ir.Instr) *ir.Instr {
		y := *x
		y.Args = make([]ir.Value, len(x.Args))
		for a, v := range x.Args {
			y.Args[a] = vals[v]
		}
		if x.Dst != ir.NoValue {
			y.Dst = vals[x.Dst]
		}
		if x.Dst2 != ir.NoValue {
			y.Dst2 = vals[x.Dst2]
		}
		if x.Op == ir.OpSlotAddr {
			y.Aux.Int += slotBase
		}
		y.Inline = ctx[x.Inline]
		if x.Op == ir.OpDepthCheck {
			y.Aux.Int = int64(f.InlineDepth(y.Inline))
		}
		return &y
	}
	for j, cb := range cf.Blocks {
		nb := copies[j]
		for _, x := range cb.Instrs {
			nb.Instrs = append(nb.Instrs, mapInstr(x))
		}
		if t := cb.Term; t.Op == ir.OpRet {
			if call.Dst != ir.NoValue {
				nb.Instrs = append(nb.Instrs, &ir.Instr{Op: ir.OpCopy, Kind: f.Kinds[call.Dst], Dst: call.Dst, Dst2: ir.NoValue,
					Args: []ir.Value{vals[t.Args[0]]}, ILOffset: t.ILOffset, Inline: ctx[t.Inline]})
			}
			nb.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: t.ILOffset, Inline: ctx[t.Inline]}
			nb.Succs = []*ir.Block{cont}
		} else {
			nb.Term = mapInstr(t)
			for _, s := range cb.Succs {
				nb.Succs = append(nb.Succs, copies[s.ID])
			}
		}
	}
	entry.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, Inline: k}
	entry.Succs = []*ir.Block{copies[0]}
	// The rest of b.
	cont.Instrs = slices.Clone(b.Instrs[i+1:])
	cont.Term, cont.Succs = b.Term, b.Succs
	b.Instrs = b.Instrs[:i:i]
	b.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: call.ILOffset, Inline: call.Inline}
	b.Succs = []*ir.Block{entry}
	return entry, body, cold, cont
}

// Renumber numbers f's blocks by position and recomputes their
// predecessor lists from the edges.
func Renumber(f *ir.Func) {
	for i, b := range f.Blocks {
		b.ID = i
		b.Preds = b.Preds[:0]
	}
	for _, b := range f.Blocks {
		for _, s := range b.Succs {
			s.Preds = append(s.Preds, b)
		}
	}
}
