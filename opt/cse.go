package opt

import (
	"miniil/il"
	"miniil/ir"
)

// CSE is a local value numbering over extended basic blocks (phase
// cse): trees of blocks in which every block but the root has its
// parent as its only predecessor, in the same region (the continuations
// of checks chain blocks so). Along each path of such a tree, a second
// computation of a number that is already in a value (arithmetic,
// compares, conversions of the same operands, an array's length, a
// load of the same location with no store, call or allocation in
// between) becomes a copy of that value; and a bounds check whose
// compare is one a check on the path already passed is removed (a[i] =
// a[i] + 1 checks once). It returns the number of instructions and
// checks replaced.
//
// Values are numbered as they are defined, since variables are defined
// more than once: a definition gives its value a new number, a copy its
// source's. Values written by another funclet (a filter or finally can
// run in between) are not numbered, and neither are references and
// addresses, whose longer life the GC information would have to know.
func CSE(f *ir.Func) int {
	// The table, the maps and the undo stack are reused from compile to
	// compile: every tree's facts are undone when it is left, so they
	// are empty here and at the end (rename is emptied below; a compile
	// that failed half-way leaves them to be emptied or made again).
	s := ir.Keep[cseScratch](f.Cache)
	if s.falseVN == nil || len(s.falseVN) > 0 || len(s.rename) > 1024 {
		*s = cseScratch{avail: s.avail, falseVN: map[int32]bool{}, rename: map[ir.Value]ir.Value{}}
	}
	s.avail.reset()
	clear(s.rename)
	c := &cse{f: f, d: definitions(f), vn: ir.Make[int32](f.Cache, len(f.Kinds)), avail: &s.avail,
		falseVN: s.falseVN, rename: s.rename, undo: s.undo[:0], stack: s.stack[:0]}
	defer func() { s.undo, s.stack = c.undo[:0], c.stack[:0]; c.d.release() }()
	for v := range c.vn {
		c.vn[v] = c.fresh()
	}
	for _, b := range f.Blocks {
		if !c.isChild(b) {
			c.tree(b)
		}
	}
	if c.replaced > 0 {
		c.propagate()
		deadCode(f, nil)
		Unreachable(f)
	}
	return c.replaced
}

// cseKey identifies a computation: its operation, its non-register
// operands and the numbers of its operands (and, for loads, the memory
// epoch).
type cseKey struct {
	op       ir.Op
	kind     ir.Kind
	cond     ir.Cond
	unsigned bool
	aux      int64 // Aux.Int: a float constant's bits too
	typ      *il.Type
	field    *il.Field
	a, b     int32
	epoch    int32
}

// cseUndo is one change to undo when leaving a subtree: a value's
// number (v >= 0), the memory epoch (undoEpoch), an available
// computation (undoAvail) or a compare known false (undoFalse).
type cseUndo struct {
	v   ir.Value
	old int32
	key cseKey
}

const (
	undoEpoch ir.Value = -2
	undoAvail ir.Value = -3
	undoFalse ir.Value = -4
)

// cseEntry is a value holding a computation and the number it had.
type cseEntry struct {
	holder ir.Value
	vn     int32
}

// cseScratch is what CSE keeps from one compile to the next.
type cseScratch struct {
	avail   availTable
	falseVN map[int32]bool
	rename  map[ir.Value]ir.Value
	undo    []cseUndo
	stack   []cseFrame
}

// cseFrame is a block of the dominator tree being walked (tree): its
// next child to visit and the undo mark to roll back to on leaving it.
type cseFrame struct {
	b    *ir.Block
	next int
	mark int
}

type cse struct {
	f        *ir.Func
	d        *defInfo
	vn       []int32 // each value's current number
	next     int32
	epoch    int32 // memory's number: stores, calls and allocations change it
	avail    *availTable
	falseVN  map[int32]bool // numbers of compares known false on the path
	undo     []cseUndo
	replaced int
	// rename maps temporaries defined once to the temporaries, defined
	// once too, whose value they repeat: their readers read those.
	rename map[ir.Value]ir.Value
	stack  []cseFrame // tree's walk
}

func (c *cse) fresh() int32 { c.next++; return c.next }

// isChild reports whether b continues the tree of its only predecessor.
func (c *cse) isChild(b *ir.Block) bool {
	if len(b.Preds) != 1 {
		return false
	}
	p := b.Preds[0]
	return p != b && p.Region == b.Region && p.Term.Op != ir.OpCallFinally && p.Term.Op != ir.OpCatchRet
}

// tree numbers the tree rooted at root, depth first, undoing each
// subtree's facts when leaving it.
func (c *cse) tree(root *ir.Block) {
	stack := append(c.stack[:0], cseFrame{b: root, mark: len(c.undo)})
	defer func() { c.stack = stack[:0] }()
	c.block(root)
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next == len(top.b.Succs) {
			c.rollback(top.mark)
			stack = stack[:len(stack)-1]
			continue
		}
		k := top.next
		top.next++
		s := top.b.Succs[k]
		if !c.isChild(s) || s.Preds[0] != top.b || k > 0 && top.b.Succs[0] == s {
			continue
		}
		mark := len(c.undo)
		if cond, ok := c.checkPassed(top.b, k); ok && !c.falseVN[cond] {
			c.falseVN[cond] = true
			c.undo = append(c.undo, cseUndo{v: undoFalse, old: cond})
		}
		stack = append(stack, cseFrame{b: s, mark: mark})
		c.block(s)
	}
}

// checkPassed reports whether the edge to b's successor k is the
// continuation of a check (a branch whose other side throws), and
// returns the number of the condition known false there.
func (c *cse) checkPassed(b *ir.Block, k int) (int32, bool) {
	if b.Term.Op != ir.OpIf || len(b.Succs) != 2 || k != 1 || !b.Succs[0].Cold || b.Succs[0].Term.Op != ir.OpThrowHelper {
		return 0, false
	}
	return c.vn[b.Term.Args[0]], true
}

// rollback undoes the facts recorded since mark.
func (c *cse) rollback(mark int) {
	for i := len(c.undo) - 1; i >= mark; i-- {
		switch u := &c.undo[i]; u.v {
		case undoEpoch:
			c.epoch = u.old
		case undoAvail:
			c.avail.remove(&u.key)
		case undoFalse:
			delete(c.falseVN, u.old)
		default:
			c.vn[u.v] = u.old
		}
	}
	c.undo = c.undo[:mark]
}

// setVN gives v number n, to be undone.
func (c *cse) setVN(v ir.Value, n int32) {
	c.undo = append(c.undo, cseUndo{v: v, old: c.vn[v]})
	c.vn[v] = n
}

// block numbers b's instructions, replacing repeated computations, and
// removes its check if the path passed the same one.
func (c *cse) block(b *ir.Block) {
	fl := b.Region.Funclet()
	_, _, isCheck := boundsCheck(b)
	for i, in := range b.Instrs {
		if !effectless(in) {
			c.undo = append(c.undo, cseUndo{v: undoEpoch, old: c.epoch})
			c.epoch = c.fresh()
		}
		if in.Dst == ir.NoValue {
			continue
		}
		if in.Dst2 != ir.NoValue {
			c.setVN(in.Dst2, c.fresh())
		}
		key, ok := c.key(in, fl)
		if !ok {
			if in.Op == ir.OpCopy && c.d.undisturbed(in.Dst, fl) && c.d.undisturbed(in.Args[0], fl) {
				c.setVN(in.Dst, c.vn[in.Args[0]])
			} else {
				c.setVN(in.Dst, c.fresh())
			}
			continue
		}
		if c.avail.full() {
			c.avail.grow(c.availOrder)
		}
		slot, e, hit := c.avail.lookup(&key)
		if hit {
			if c.vn[e.holder] == e.vn && e.holder != in.Dst {
				b.Instrs[i] = &ir.Instr{Op: ir.OpCopy, Kind: c.f.Kinds[in.Dst], Dst: in.Dst, Dst2: ir.NoValue,
					Args: []ir.Value{e.holder}, ILOffset: in.ILOffset, Inline: in.Inline}
				c.replaced++
				if c.once(in.Dst) && c.once(e.holder) {
					c.rename[in.Dst] = e.holder
				}
			}
			c.setVN(in.Dst, e.vn)
			continue
		}
		n := c.fresh()
		c.setVN(in.Dst, n)
		c.undo = append(c.undo, cseUndo{v: undoAvail, key: key})
		c.avail.addAt(slot, &key, cseEntry{holder: in.Dst, vn: n})
	}
	if isCheck && c.falseVN[c.vn[b.Term.Args[0]]] {
		removeCheck(b, 1)
		c.replaced++
	}
}

// availOrder yields the keys of the available computations, in the
// order they became available: the undo log holds each, and only those
// still available.
func (c *cse) availOrder(yield func(*cseKey) bool) {
	for i := range c.undo {
		if u := &c.undo[i]; u.v == undoAvail && !yield(&u.key) {
			return
		}
	}
}

// key returns the key of in's computation, if it is one CSE numbers.
func (c *cse) key(in *ir.Instr, fl *ir.Region) (cseKey, bool) {
	switch c.f.Kinds[in.Dst] {
	case ir.I32, ir.I64, ir.F32, ir.F64:
	default:
		return cseKey{}, false
	}
	if in.Dst2 != ir.NoValue || len(in.Args) > 2 || !c.d.undisturbed(in.Dst, fl) {
		return cseKey{}, false
	}
	k := cseKey{op: in.Op, kind: in.Kind, cond: in.Aux.Cond, unsigned: in.Aux.Unsigned, aux: in.Aux.Int,
		typ: in.Aux.Type, field: in.Aux.Field()}
	switch in.Op {
	case ir.OpConst, ir.OpCopy:
		return cseKey{}, false
	case ir.OpLdField, ir.OpLdElem, ir.OpLoad, ir.OpLdStatic, ir.OpArrLen:
		k.epoch = c.epoch
	default:
		if !pureOp(in.Op) && !(in.Op == ir.OpDiv && in.Kind.IsFloat()) {
			return cseKey{}, false
		}
	}
	for i, a := range in.Args {
		if !c.d.undisturbed(a, fl) {
			return cseKey{}, false
		}
		if c.f.Kinds[a].IsGC() {
			// No safepoint between the two reads (every call and
			// allocation changes the epoch): the value's liveness at
			// safepoints, which the GC information reports, stays.
			k.epoch = c.epoch
		}
		if i == 0 {
			k.a = c.vn[a]
		} else {
			k.b = c.vn[a]
		}
	}
	if commutative(in.Op) && !in.Kind.IsFloat() && k.a > k.b {
		k.a, k.b = k.b, k.a
	}
	return k, true
}

// commutative reports whether op's operands may be swapped (of
// integers: a float NaN's payload depends on the order).
func commutative(op ir.Op) bool {
	switch op {
	case ir.OpAdd, ir.OpMul, ir.OpAnd, ir.OpOr, ir.OpXor:
		return true
	}
	return false
}

// once reports whether v is a temporary with one definition.
func (c *cse) once(v ir.Value) bool { return isTemp(c.f, v) && c.d.count[v] == 1 }

// propagate makes the readers of renamed temporaries read the
// temporaries they repeat (whose copies are then dead).
func (c *cse) propagate() {
	if len(c.rename) == 0 {
		return
	}
	for _, b := range c.f.Blocks {
		for _, in := range b.Code() {
			for i, a := range in.Args {
				if r, ok := c.rename[a]; ok {
					in.Args = append([]ir.Value(nil), in.Args...)
					in.Args[i] = r
				}
			}
		}
	}
}
