package opt

import (
	"slices"

	"miniil/ir"
)

// HoistLoops moves loop-invariant work of innermost loops into their
// preheaders (phase loophoist) and returns the number of instructions
// and checks moved. It never changes which exception is thrown, or when:
//
//   - A null check of a value the loop does not write moves to the
//     preheader when the loop is sure to run it before anything with an
//     effect: the chain of blocks from the header, each the only
//     predecessor of the next, holds only instructions without effects
//     up to it. In a try, a write to a variable is an effect: the
//     handlers, and the code after a catch, see the variables. A chain may pass the loop's exit test (while (c) body):
//     the preheader then repeats the test first, on copies of the
//     temporaries it computes (loop inversion: if (c) do body while (c)),
//     so the checks after it run only when the body would have.
//   - The call-depth check of an inlined call (OpDepthCheck) moves the
//     same way, under the same conditions: its verdict depends only on
//     the frame's depth, which the loop does not change, so checking
//     once before the loop decides exactly what checking on every
//     iteration would.
//   - Arithmetic, compares and conversions of values the loop does not
//     write (none of which can fault), and the lengths of arrays known
//     non-null in the preheader, compute their temporaries there.
//
// Only innermost loops whose blocks all lie in the header's region are
// considered (an exception leaves the loop for the handler it would
// have reached), and values written by another funclet (a filter, a
// finally) are not invariant.
func HoistLoops(f *ir.Func) int {
	loops := FindLoops(f)
	var headers []*ir.Block
	var made []*ir.Block // the preheaders made
	for _, lp := range loops.All {
		if !lp.Innermost() || !oneRegion(lp) {
			continue
		}
		n := len(f.Blocks)
		if ph := loops.Preheader(f, lp); ph != nil {
			headers = append(headers, lp.Header)
			if len(f.Blocks) > n {
				made = append(made, ph)
			}
		}
	}
	if len(headers) == 0 {
		return 0
	}
	defer dropEmpty(f, made)
	if len(made) > 0 {
		loops = FindLoops(f) // with the preheaders
	}
	h := ir.New[hoister](f.Cache) // released as it returns, as its defInfo
	*h = hoister{f: f, loops: loops, d: definitions(f), defs: newLoopDefs(f)}
	defer func() {
		h.d.release()
		h.defs.release()
		*h = hoister{}
	}()
	n := 0
	for _, lp := range loops.All {
		if lp.Innermost() && slices.Contains(headers, lp.Header) {
			n += h.loop(lp)
		}
	}
	if n > 0 {
		deadCode(f, nil) // constants the moved code read, left unread
	}
	return n
}

// hoistSets are the sets a loop's hoisting keeps (loopHoist.checked and
// reads), reused from loop to loop and compile to compile.
type hoistSets struct{ checked, reads map[ir.Value]bool }

// hoister holds what HoistLoops knows of the function.
type hoister struct {
	f     *ir.Func
	loops *Loops
	d     *defInfo
	defs  *loopDefs // the loop being hoisted out of, counted
	// Computed when first needed (before anything moves): the null-check
	// analysis, and the blocks reading each value (nil past a few).
	nn     *nonNullSets
	nnDone bool
	uses   [][]*ir.Block
}

// nonNullSets returns the null-check analysis of f as HoistLoops found
// it: the first call must come before anything moves.
func (h *hoister) nonNullSets() *nonNullSets {
	if !h.nnDone {
		h.nn, h.nnDone = nonNull(h.f), true
	}
	return h.nn
}

// useBlocks returns the blocks reading each value, as they were when
// first asked.
func (h *hoister) useBlocks() [][]*ir.Block {
	if h.uses == nil {
		h.uses = useBlocks(h.f)
	}
	return h.uses
}

// maxUseBlocks is how many blocks useBlocks lists per value.
const maxUseBlocks = 4

// useBlocks returns, for each value, the distinct blocks that read it,
// or nil when more than maxUseBlocks do.
func useBlocks(f *ir.Func) [][]*ir.Block {
	uses := make([][]*ir.Block, len(f.Kinds))
	many := make([]bool, len(f.Kinds))
	for _, b := range f.Blocks {
		for _, in := range b.Code() {
			for _, a := range in.Args {
				switch {
				case many[a] || slices.Contains(uses[a], b):
				case len(uses[a]) == maxUseBlocks:
					many[a], uses[a] = true, nil
				default:
					uses[a] = append(uses[a], b)
				}
			}
		}
	}
	for v := range uses {
		if many[v] {
			uses[v] = nil
		} else if uses[v] == nil {
			uses[v] = []*ir.Block{}
		}
	}
	return uses
}

// loopHoist is the state of hoisting out of one loop.
type loopHoist struct {
	*hoister
	lp      *Loop
	fl      *ir.Region // the loop's funclet
	defs    *loopDefs
	pre     *ir.Block // the preheader
	tail    *ir.Block // the last block before the header, where code goes
	checked map[ir.Value]bool
	reads   map[ir.Value]bool // stillRead's answers
	// preNonNull tells the values known non-null at the end of the
	// preheader, as it was.
	preNonNull func(ir.Value) bool
	// caught tells whether the loop lies in a try: an exception it
	// throws may be caught in this frame, which sees its variables.
	caught bool
	moved  int
}

// loop hoists what it can out of lp.
func (h *hoister) loop(lp *Loop) int {
	pre := h.loops.Preheader(h.f, lp)
	if pre == nil || len(pre.Succs) != 1 {
		return 0
	}
	defer h.defs.reset()
	sc := ir.Keep[hoistSets](h.f.Cache)
	x := &loopHoist{hoister: h, lp: lp, fl: lp.Header.Region.Funclet(), defs: h.defs.count(lp.Body()),
		pre: pre, tail: pre, checked: ir.Emptied(&sc.checked), reads: ir.Emptied(&sc.reads), caught: inTry(lp.Header.Region)}
	x.preNonNull = func(ir.Value) bool { return false }
	if readsObjects(lp) {
		// Before anything moves to the preheader.
		x.preNonNull = h.nonNullSets().atEnd(pre)
	}
	chain, test := x.chain(lp.Header, true, false)
	if test != nil {
		// The test is copied only if a check after it can move.
		if found, _ := x.chain(x.inLoop(test), false, true); len(found) > 0 && x.guard(chain, test) {
			x.chain(x.inLoop(test), false, false)
		}
	}
	x.arithmetic()
	return x.moved
}

// readsObjects reports whether lp reads an array's length or a field,
// which the preheader may read if the object is known non-null there.
func readsObjects(lp *Loop) bool {
	for _, b := range lp.Body() {
		for _, in := range b.Instrs {
			if in.Op == ir.OpArrLen || in.Op == ir.OpLdField {
				return true
			}
		}
	}
	return false
}

// invariant reports whether the loop never writes v.
func (x *loopHoist) invariant(v ir.Value) bool {
	return x.defs.of(v) == 0 && x.d.undisturbed(v, x.fl)
}

// nonNull reports whether v is known non-null where the tail ends.
func (x *loopHoist) nonNull(v ir.Value) bool {
	if x.checked[v] {
		return true
	}
	return x.invariant(v) && x.preNonNull(v)
}

// inLoop returns the successor of test inside the loop.
func (x *loopHoist) inLoop(test *ir.Block) *ir.Block {
	if x.lp.Contains(x.loops, test.Succs[0]) {
		return test.Succs[0]
	}
	return test.Succs[1]
}

// chain walks the blocks the loop surely runs, in order, from b: each
// the continuation of a null check or of a jump and the only
// predecessor of the next. The null checks of invariant values and the
// depth checks it meets before anything with an effect move to the tail. Before the loop's
// exit test (beforeTest), only instructions the preheader can repeat
// are passed; the walk returns the blocks passed and the block of the
// exit test, if it got there. A dry walk moves nothing and returns the
// blocks whose checks it would move.
func (x *loopHoist) chain(b *ir.Block, beforeTest, dry bool) (passed []*ir.Block, test *ir.Block) {
	for range 64 {
		for i := 0; i < len(b.Instrs); i++ {
			in := b.Instrs[i]
			switch {
			case in.Op == ir.OpDepthCheck && dry:
				if len(passed) == 0 || passed[len(passed)-1] != b {
					passed = ir.Append(x.f.Cache, passed, b)
				}
			case in.Op == ir.OpDepthCheck:
				x.hoistDepthCheck(b, i)
				i--
			case beforeTest && !x.repeatable(in) || !beforeTest && (!effectless(in) || x.observable(in)):
				return passed, nil
			}
		}
		if !dry {
			passed = ir.Append(x.f.Cache, passed, b)
		}
		var next *ir.Block
		switch v, isCheck := nullCheck(b); {
		case isCheck && x.invariant(v) && !x.stillRead(v):
		case isCheck && x.invariant(v) && dry:
			next = b.Succs[0]
			passed = ir.Append(x.f.Cache, passed, b)
		case isCheck && x.invariant(v):
			next = b.Succs[0]
			x.hoistCheck(b, v)
		case b.Term.Op == ir.OpJump:
			next = b.Succs[0]
		case beforeTest && !isCheck && b.Term.Op == ir.OpIf && len(b.Succs) == 2 &&
			x.lp.Contains(x.loops, b.Succs[0]) != x.lp.Contains(x.loops, b.Succs[1]):
			return passed, b
		}
		if next == nil || next == x.lp.Header || len(next.Preds) != 1 || !x.lp.Contains(x.loops, next) {
			return passed, nil
		}
		b = next
	}
	return passed, nil
}

// repeatable reports whether the preheader may compute a copy of in
// before the loop: no effect, no fault.
func (x *loopHoist) repeatable(in *ir.Instr) bool {
	switch {
	case in.Dst == ir.NoValue || in.Dst2 != ir.NoValue || !isTemp(x.f, in.Dst) || x.d.count[in.Dst] != 1:
		return false
	case pureOp(in.Op):
		return true
	case in.Op == ir.OpArrLen || in.Op == ir.OpLdField:
		return x.checked[in.Args[0]] || x.nonNull(in.Args[0])
	}
	return false
}

// observable reports whether a handler of this method could see what in
// defines, had an exception been thrown after it: it writes a variable
// (an argument or a local; temporaries never live across an exception's
// edge) and the loop lies in a try, whose handlers, or the code after
// them, may read the variable. A check moved above it would throw with
// the variable's value of before.
func (x *loopHoist) observable(in *ir.Instr) bool {
	if !x.caught {
		return false
	}
	for _, d := range [2]ir.Value{in.Dst, in.Dst2} {
		if d != ir.NoValue && !isTemp(x.f, d) {
			return true
		}
	}
	return false
}

// inTry reports whether r is a try region or lies in one.
func inTry(r *ir.Region) bool {
	for ; r != nil; r = r.Parent {
		if r.Kind == ir.RegionTry {
			return true
		}
	}
	return false
}

// effectless reports whether in has no effect a later exception could
// make observable, and cannot throw (it is past its own checks).
func effectless(in *ir.Instr) bool {
	switch in.Op {
	case ir.OpStField, ir.OpStStatic, ir.OpStElem, ir.OpStore, ir.OpCopyBlk, ir.OpZeroBlk,
		ir.OpCall, ir.OpCallVirt, ir.OpAlloc, ir.OpNewArr, ir.OpBox, ir.OpStr,
		ir.OpDepthCheck, ir.OpCatchArg:
		return false
	}
	return true
}

// hoistCheck moves the null check ending block b (of v) to the tail.
func (x *loopHoist) hoistCheck(b *ir.Block, v ir.Value) {
	throw := b.Succs[1]
	t := b.Term
	removeCheck(b, 0)
	next := x.newTail()
	x.tail.Term = &ir.Instr{Op: ir.OpIf, Dst: ir.NoValue, Dst2: ir.NoValue, Args: []ir.Value{v}, ILOffset: t.ILOffset, Inline: t.Inline}
	x.tail.Succs = []*ir.Block{next, throw}
	throw.Preds = append(throw.Preds, x.tail)
	x.tail = next
	x.checked[v] = true
	x.moved++
}

// hoistDepthCheck moves the depth check b.Instrs[i] to the end of the
// tail, unless the tail already ends with one at least as deep, which
// passes only if this one would.
func (x *loopHoist) hoistDepthCheck(b *ir.Block, i int) {
	in, t := b.Instrs[i], x.tail.Instrs
	if n := len(t); n == 0 || t[n-1].Op != ir.OpDepthCheck || t[n-1].Aux.Int < in.Aux.Int {
		x.tail.Instrs = append(t, in)
	}
	b.Instrs = slices.Delete(b.Instrs, i, i+1)
	x.moved++
}

// newTail makes a new block between the tail and the header, which the
// tail's terminator must then reach; the new block jumps to the header.
func (x *loopHoist) newTail() *ir.Block {
	h := x.lp.Header
	nb := x.f.NewBlock(-1)
	nb.Region = h.Region
	nb.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: x.tail.Term.ILOffset, Inline: x.tail.Term.Inline}
	nb.Succs = []*ir.Block{h}
	nb.Preds = []*ir.Block{x.tail}
	for i, p := range h.Preds {
		if p == x.tail {
			h.Preds[i] = nb
		}
	}
	return nb
}

// guard ends the tail with a copy of the loop's exit test (and of the
// instructions of the chain before it, on new temporaries), so that
// what follows runs only when the loop's body would. It reports whether
// it could: the chain's instructions must define temporaries that only
// the chain reads.
func (x *loopHoist) guard(chain []*ir.Block, test *ir.Block) bool {
	for _, b := range chain {
		for _, in := range b.Instrs {
			us := x.useBlocks()[in.Dst]
			if us == nil {
				return false
			}
			for _, u := range us {
				if !slices.Contains(chain, u) {
					return false
				}
			}
		}
	}
	rename := map[ir.Value]ir.Value{}
	arg := func(v ir.Value) ir.Value {
		if r, ok := rename[v]; ok {
			return r
		}
		return v
	}
	g := x.tail
	for _, b := range chain {
		for _, in := range b.Instrs {
			c := *in
			c.Args = make([]ir.Value, len(in.Args))
			for i, a := range in.Args {
				c.Args[i] = arg(a)
			}
			c.Dst = x.f.NewValue(x.f.Kinds[in.Dst])
			rename[in.Dst] = c.Dst
			g.Instrs = append(g.Instrs, &c)
		}
	}
	next := x.newTail()
	t := test.Term
	g.Term = &ir.Instr{Op: ir.OpIf, Dst: ir.NoValue, Dst2: ir.NoValue, Args: []ir.Value{arg(t.Args[0])}, ILOffset: t.ILOffset, Inline: t.Inline}
	g.Succs = slices.Clone(test.Succs)
	for i, s := range g.Succs {
		if s == x.inLoop(test) {
			g.Succs[i] = next
		} else {
			s.Preds = append(s.Preds, g)
		}
	}
	x.tail = next
	return true
}

// arithmetic moves the loop's invariant computations to the tail, until
// none is left.
func (x *loopHoist) arithmetic() {
	for changed := true; changed; {
		changed = false
		for _, b := range x.lp.Body() {
			kept := b.Instrs[:0]
			for _, in := range b.Instrs {
				if x.hoistable(in) {
					x.moveToTail(in)
					changed = true
					continue
				}
				kept = append(kept, in)
			}
			clear(b.Instrs[len(kept):])
			b.Instrs = kept
		}
	}
}

// hoistable reports whether in may compute its result in the preheader:
// a temporary of a number kind defined only there, computed without
// effect or fault from values the loop does not write (or constants).
func (x *loopHoist) hoistable(in *ir.Instr) bool {
	if in.Dst == ir.NoValue || in.Dst2 != ir.NoValue || !isTemp(x.f, in.Dst) || x.d.count[in.Dst] != 1 ||
		in.Op == ir.OpConst || in.Op == ir.OpCopy {
		return false
	}
	switch x.f.Kinds[in.Dst] {
	case ir.I32, ir.I64, ir.F32, ir.F64:
	default:
		return false
	}
	switch {
	case pureOp(in.Op), in.Op == ir.OpDiv && in.Kind.IsFloat():
	case in.Op == ir.OpArrLen:
		if !x.nonNull(in.Args[0]) {
			return false
		}
	default:
		return false
	}
	for _, a := range in.Args {
		if !x.invariant(a) && x.constant(a) == nil {
			return false
		}
		if x.f.Kinds[a].IsGC() && !x.stillRead(a) {
			return false
		}
	}
	return true
}

// stillRead reports whether the loop reads reference v otherwise than
// by a null check or a length, which may move: so that v stays live
// through the loop, as the GC information (and the interpreter's heap
// accounting, which follows the method's IL) has it.
func (x *loopHoist) stillRead(v ir.Value) bool {
	if r, ok := x.reads[v]; ok {
		return r
	}
	r := false
	for _, b := range x.lp.Body() {
		for _, in := range b.Code() {
			if in.Op == ir.OpArrLen || in == b.Term && in.Op == ir.OpIf {
				continue
			}
			if slices.Contains(in.Args, v) {
				r = true
			}
		}
	}
	x.reads[v] = r
	return r
}

// constant returns the instruction setting v to a constant when it is
// v's one definition: v must be a temporary (an argument or a local has
// a value before any definition, which a read may see) defined in the
// loop's own funclet (a filter's definition of a value the main body
// reads happens, if ever, in the middle of it).
func (x *loopHoist) constant(v ir.Value) *ir.Instr {
	if !isTemp(x.f, v) || !x.d.undisturbed(v, x.fl) {
		return nil
	}
	if def, _ := x.d.single(v); def != nil && def.Op == ir.OpConst {
		return def
	}
	return nil
}

// moveToTail appends in to the tail, with the constants it reads
// computed there again on new temporaries.
func (x *loopHoist) moveToTail(in *ir.Instr) {
	for i, a := range in.Args {
		if x.invariant(a) {
			continue
		}
		c := *x.constant(a)
		c.Dst = x.f.NewValue(x.f.Kinds[a])
		x.tail.Instrs = append(x.tail.Instrs, &c)
		in.Args = slices.Clone(in.Args)
		in.Args[i] = c.Dst
	}
	x.tail.Instrs = append(x.tail.Instrs, in)
	x.defs.drop(in.Dst)
	x.moved++
}

// dropEmpty removes the blocks of made that are still empty jumps, the
// preheaders nothing was moved to: their predecessors go to the header
// again, and the blocks are renumbered.
func dropEmpty(f *ir.Func, made []*ir.Block) {
	drop := map[*ir.Block]bool{}
	for _, ph := range made {
		if len(ph.Instrs) > 0 || ph.Term.Op != ir.OpJump {
			continue
		}
		h := ph.Succs[0]
		h.Preds = without(h.Preds, ph)
		for _, p := range ph.Preds {
			for i, s := range p.Succs {
				if s == ph {
					p.Succs[i] = h
					h.Preds = append(h.Preds, p)
				}
			}
		}
		drop[ph] = true
	}
	if len(drop) == 0 {
		return
	}
	f.Blocks = slices.DeleteFunc(f.Blocks, func(b *ir.Block) bool { return drop[b] })
	for i, b := range f.Blocks {
		b.ID = i
	}
}
