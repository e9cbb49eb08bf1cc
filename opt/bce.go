package opt

import (
	"slices"

	"miniil/il"
	"miniil/ir"
)

// BoundsChecks removes the array bounds checks of a[i] in loops of the
// shape for (i = start; i < a.Length; i++) (phase bce), and returns the
// number removed. The loop's test compares i with a.Length read in the
// test itself, or with a variable n set once to a.Length before the
// loop; i starts at a constant >= 0 on every entry and its one
// definition in the loop is i = i + 1; neither a nor n is written in the
// loop. Then, at the header, 0 <= i <= a.Length (the increment follows a
// passed test, so it cannot overflow), and wherever the test's in-loop
// successor dominates and no path from the increment reaches without
// passing the header again, 0 <= i < a.Length: a check there of a[i]
// (conv.i of i against arrlen a) cannot fail.
//
// Loops whose blocks do not all lie in their header's region are left
// alone, and so are variables written by another funclet (a filter or
// finally could run while the loop does).
func BoundsChecks(f *ir.Func) int {
	if !slices.ContainsFunc(f.Blocks, isBoundsCheck) {
		return 0 // nothing to remove: skip finding loops
	}
	loops := FindLoops(f)
	if len(loops.All) == 0 {
		return 0
	}
	d := definitions(f)
	defer d.release()
	defs := newLoopDefs(f)
	defer defs.release()
	removed := 0
	allow := map[*ir.Instr]bool{}
	for _, lp := range loops.All {
		if iv := findCountingLoop(f, loops, d, defs, lp); iv != nil {
			removed += iv.removeChecks(loops, allow)
		}
	}
	if removed > 0 {
		deadCode(f, allow)
		Unreachable(f)
	}
	return removed
}

func isBoundsCheck(b *ir.Block) bool {
	_, _, ok := boundsCheck(b)
	return ok
}

// countingLoop is a loop i = start; i < len(arr); i++ as BoundsChecks
// finds it.
type countingLoop struct {
	lp       *Loop
	i, arr   ir.Value
	entry    *ir.Block // the test's successor in the loop
	inc      *ir.Block // the block holding i = i + 1
	incAt    int       // its position
	incReach map[*ir.Block]bool
}

// findCountingLoop returns lp as a counting loop, or nil.
func findCountingLoop(f *ir.Func, loops *Loops, d *defInfo, defs *loopDefs, lp *Loop) *countingLoop {
	if !oneRegion(lp) {
		return nil
	}
	fl := lp.Header.Region.Funclet()
	test := testBlock(loops, lp)
	if test == nil {
		return nil
	}
	i, n, entry, at := loopBound(test, loops, lp)
	if i == ir.NoValue || !d.undisturbed(i, fl) || !d.undisturbed(n, fl) {
		return nil
	}
	defs.count(lp.Body())
	defer defs.reset()
	arr := lengthOf(test, at, n, d, loops.Dom(), lp, defs)
	if arr == ir.NoValue || defs.of(arr) > 0 || !d.undisturbed(arr, fl) || defs.of(i) != 1 {
		return nil
	}
	c := &countingLoop{lp: lp, i: i, arr: arr, entry: entry}
	if !c.findIncrement(f, loops, d) || !c.startsNonNegative(f, loops) {
		return nil
	}
	return c
}

// testBlock returns the block of lp that holds its exit test: the header,
// or the end of a chain of null checks and jumps from it, each block the
// only predecessor of the next.
func testBlock(loops *Loops, lp *Loop) *ir.Block {
	b := lp.Header
	for range 8 {
		var next *ir.Block
		if _, ok := nullCheck(b); ok {
			next = b.Succs[0]
		} else if b.Term.Op == ir.OpJump {
			next = b.Succs[0]
		} else if b.Term.Op == ir.OpIf && len(b.Succs) == 2 && lp.Contains(loops, b.Succs[0]) != lp.Contains(loops, b.Succs[1]) {
			return b
		}
		if next == nil || len(next.Preds) != 1 || next == lp.Header || !lp.Contains(loops, next) {
			return nil
		}
		b = next
	}
	return nil
}

// loopBound reads the exit test at the end of block test: i < n (signed,
// int32) on the edge into the loop. It returns i, n and the in-loop
// successor, which must have test as its only predecessor, and the
// position of the compare.
func loopBound(test *ir.Block, loops *Loops, lp *Loop) (i, n ir.Value, entry *ir.Block, at int) {
	none := ir.NoValue
	at = lastDef(test, len(test.Instrs), test.Term.Args[0])
	if at < 0 {
		return none, none, nil, 0
	}
	c := test.Instrs[at]
	if c.Op != ir.OpCmp || c.Kind != ir.I32 {
		return none, none, nil, 0
	}
	inTrue := lp.Contains(loops, test.Succs[0])
	entry = test.Succs[1]
	if inTrue {
		entry = test.Succs[0]
	}
	if len(entry.Preds) != 1 {
		return none, none, nil, 0
	}
	x, y := c.Args[0], c.Args[1]
	switch {
	case c.Aux.Cond == ir.Lt && inTrue, c.Aux.Cond == ir.Ge && !inTrue:
		return x, y, entry, at
	case c.Aux.Cond == ir.Gt && inTrue, c.Aux.Cond == ir.Le && !inTrue:
		return y, x, entry, at
	}
	return none, none, nil, 0
}

// lengthOf returns the array whose length n is at the test: n =
// conv.i4(arrlen a) computed in the test block before the compare (at
// cmpAt), or set once in the method, before the loop, by a block that
// dominates it and after every definition of a. It returns NoValue when
// neither holds.
func lengthOf(test *ir.Block, cmpAt int, n ir.Value, d *defInfo, dom *Dominators, lp *Loop, defs *loopDefs) ir.Value {
	if at := lastDef(test, cmpAt, n); at >= 0 {
		return arrayLength(test, at)
	}
	if defs.of(n) > 0 {
		return ir.NoValue
	}
	def, nb := d.single(n)
	if def == nil || !dom.Dominates(nb, lp.Header) || nb == lp.Header {
		return ir.NoValue
	}
	at := indexOf(nb, def)
	a := arrayLength(nb, at)
	if a == ir.NoValue {
		return ir.NoValue
	}
	// Every definition of a precedes n's: in a block that strictly
	// dominates nb, or earlier in nb.
	for _, b := range d.f.Blocks {
		for k, in := range b.Instrs {
			if in.Dst != a && in.Dst2 != a {
				continue
			}
			if b == nb && k < at || b != nb && dom.Dominates(b, nb) {
				continue
			}
			return ir.NoValue
		}
	}
	return a
}

// arrayLength returns a when instruction at of b is conv.i4 of an
// arrlen a computed earlier in b (NoValue otherwise).
func arrayLength(b *ir.Block, at int) ir.Value {
	cv := b.Instrs[at]
	if cv.Op != ir.OpConv || cv.Kind != ir.I32 || cv.Aux.Type.Kind != il.KI4 || cv.Aux.Unsigned {
		return ir.NoValue
	}
	l := lastDef(b, at, cv.Args[0])
	if l < 0 || b.Instrs[l].Op != ir.OpArrLen {
		return ir.NoValue
	}
	return b.Instrs[l].Args[0]
}

// indexOf returns the position of in in b.Instrs (-1: none).
func indexOf(b *ir.Block, in *ir.Instr) int {
	for k, x := range b.Instrs {
		if x == in {
			return k
		}
	}
	return -1
}

// findIncrement finds the loop's one definition of i, which must be i =
// i + 1 in one of the loop's own blocks (not a nested loop's), from which
// no path returns to it without passing the header.
func (c *countingLoop) findIncrement(f *ir.Func, loops *Loops, d *defInfo) bool {
	for _, b := range c.lp.Body() {
		for k, in := range b.Instrs {
			if in.Dst == c.i {
				c.inc, c.incAt = b, k
			}
		}
	}
	if c.inc == nil || loops.Of(c.inc) != c.lp || !loops.Dom().Dominates(c.entry, c.inc) {
		return false
	}
	in := c.inc.Instrs[c.incAt]
	if in.Op != ir.OpAdd || in.Kind != ir.I32 {
		return false
	}
	var one ir.Value
	switch c.i {
	case in.Args[0]:
		one = in.Args[1]
	case in.Args[1]:
		one = in.Args[0]
	default:
		return false
	}
	if k, _ := d.single(one); k == nil || k.Op != ir.OpConst || k.Aux.Int != 1 {
		return false
	}
	c.incReach = reachAvoiding(loops, c.lp, c.inc)
	return !c.incReach[c.inc]
}

// reachAvoiding returns the blocks of lp reached from from's successors
// without passing lp's header.
func reachAvoiding(loops *Loops, lp *Loop, from *ir.Block) map[*ir.Block]bool {
	seen := map[*ir.Block]bool{}
	work := []*ir.Block{from}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, s := range b.Succs {
			if s != lp.Header && !seen[s] && lp.Contains(loops, s) {
				seen[s] = true
				work = append(work, s)
			}
		}
	}
	return seen
}

// startsNonNegative reports whether i holds a constant >= 0 on every
// edge into the loop: the last definition before each entry, found
// going back through blocks with one predecessor, is such a constant,
// or there is none and i is a local at the method's entry (zeroed).
func (c *countingLoop) startsNonNegative(f *ir.Func, loops *Loops) bool {
	h := c.lp.Header
	if h == f.Blocks[0] && !isLocal(f, c.i) {
		return false // entered with the local's initial zero
	}
	for _, p := range h.Preds {
		if c.lp.Contains(loops, p) {
			continue
		}
		if !constBefore(f, p, c.i) {
			return false
		}
	}
	return true
}

// isLocal reports whether v is one of the method's locals.
func isLocal(f *ir.Func, v ir.Value) bool {
	return int(v) >= f.NumArgs && int(v) < f.NumArgs+f.NumLocals
}

// constBefore reports whether v holds a constant >= 0 at the end of b.
func constBefore(f *ir.Func, b *ir.Block, v ir.Value) bool {
	for range 16 {
		if at := lastDef(b, len(b.Instrs), v); at >= 0 {
			in := b.Instrs[at]
			return in.Op == ir.OpConst && in.Kind == ir.I32 && in.Aux.Int >= 0 && in.Dst == v
		}
		if b == f.Blocks[0] && len(b.Preds) == 0 {
			return isLocal(f, v) // zeroed on entry
		}
		if len(b.Preds) != 1 {
			return false
		}
		b = b.Preds[0]
	}
	return false
}

// removeChecks removes the checks of arr[i] where 0 <= i < len(arr).
// The length a check read may go too (allow) when the access after it
// reads the array before any safepoint, so its liveness stays.
func (c *countingLoop) removeChecks(loops *Loops, allow map[*ir.Instr]bool) int {
	removed := 0
	dom := loops.Dom()
	for _, b := range c.lp.Body() {
		arr, idx, ok := boundsCheck(b)
		if !ok || arr != c.arr || !dom.Dominates(c.entry, b) || c.incReach[b] {
			continue
		}
		at := lastDef(b, len(b.Instrs), idx)
		if at < 0 {
			continue
		}
		cv := b.Instrs[at]
		if cv.Op != ir.OpConv || cv.Args[0] != c.i || cv.Aux.Unsigned || cv.Kind != ir.I64 || cv.Aux.Type.Kind != il.KI {
			continue
		}
		if b == c.inc && at > c.incAt {
			continue // i was incremented already
		}
		next := b.Succs[1]
		removeCheck(b, 1)
		removed++
		if readsSoon(next, arr) {
			for _, in := range b.Instrs {
				if in.Op == ir.OpArrLen && in.Args[0] == arr {
					allow[in] = true
				}
			}
		}
	}
	return removed
}

// readsSoon reports whether block b reads v before any instruction with
// an effect (a safepoint among them).
func readsSoon(b *ir.Block, v ir.Value) bool {
	for _, in := range b.Instrs {
		if slices.Contains(in.Args, v) {
			return true
		}
		if !effectless(in) {
			return false
		}
	}
	return false
}
