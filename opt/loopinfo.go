package opt

import "miniil/ir"

// defInfo is what the loop passes know of a function's definitions.
type defInfo struct {
	f *ir.Func
	// count is the number of instructions defining each value in f.
	count []int32
	// defs holds, for each value, the instruction defining it when it
	// has one definition, and its block; the funclet of its definitions
	// (nil: the main body) when they all lie in one, and whether they do
	// not. One array, so that the scan allocates twice.
	defs []defSite
}

// defSite is what definitions records of one value.
type defSite struct {
	site    *ir.Instr
	block   *ir.Block
	funclet *ir.Region
	mixed   bool
}

// definitions scans f's definitions.
func definitions(f *ir.Func) *defInfo {
	n := len(f.Kinds)
	// From the cache, as the caller's pass is the only reader; the pass
	// releases it as it returns, so it keeps no large arrays alive.
	d := ir.New[defInfo](f.Cache)
	*d = defInfo{f: f, count: ir.Make[int32](f.Cache, n), defs: ir.Make[defSite](f.Cache, n)}
	for _, b := range f.Blocks {
		fl := b.Region.Funclet()
		for _, in := range b.Instrs {
			for _, v := range [2]ir.Value{in.Dst, in.Dst2} {
				if v == ir.NoValue {
					continue
				}
				e := &d.defs[v]
				if d.count[v] > 0 && e.funclet != fl {
					e.mixed = true
				}
				d.count[v]++
				e.site, e.block, e.funclet = in, b, fl
			}
		}
	}
	return d
}

// single returns the one instruction defining v and its block (nil when
// v has none or several).
func (d *defInfo) single(v ir.Value) (*ir.Instr, *ir.Block) {
	if v == ir.NoValue || d.count[v] != 1 {
		return nil, nil
	}
	return d.defs[v].site, d.defs[v].block
}

// undisturbed reports whether code of funclet fl (nil: the main body)
// sees every definition of v: none lies in another funclet, which could
// run in the middle of fl's code (a filter, a finally).
func (d *defInfo) undisturbed(v ir.Value, fl *ir.Region) bool {
	return d.count[v] == 0 || !d.defs[v].mixed && d.defs[v].funclet == fl
}

// isTemp reports whether v is a temporary (neither argument nor local).
func isTemp(f *ir.Func, v ir.Value) bool { return int(v) >= f.NumArgs+f.NumLocals }

// loopDefs counts the definitions of each value in a loop's blocks. A
// pass makes one and reuses it for loop after loop: reset empties it in
// time linear in what it counted.
type loopDefs struct {
	n       []int32 // by value
	touched []ir.Value
}

func newLoopDefs(f *ir.Func) *loopDefs {
	n := len(f.Kinds)
	c := ir.New[loopDefs](f.Cache) // released as defInfo is
	*c = loopDefs{n: ir.Make[int32](f.Cache, n), touched: ir.Make[ir.Value](f.Cache, min(n, 256))[:0]}
	return c
}

// release forgets d's arrays (d comes from the compile's cache, which
// would otherwise keep them alive until a later compile overwrites it).
func (d *defInfo) release() { *d = defInfo{} }

// release forgets c's arrays, as defInfo.release.
func (c *loopDefs) release() { *c = loopDefs{} }

// count adds the definitions in blocks.
func (c *loopDefs) count(blocks []*ir.Block) *loopDefs {
	for _, b := range blocks {
		for _, in := range b.Instrs {
			for _, v := range [2]ir.Value{in.Dst, in.Dst2} {
				if v == ir.NoValue {
					continue
				}
				if int(v) >= len(c.n) { // made by the pass
					c.n = append(c.n, make([]int32, int(v)+1-len(c.n))...)
				}
				if c.n[v] == 0 {
					c.touched = append(c.touched, v)
				}
				c.n[v]++
			}
		}
	}
	return c
}

// of returns the number of definitions of v counted.
func (c *loopDefs) of(v ir.Value) int32 {
	if int(v) < len(c.n) {
		return c.n[v]
	}
	return 0
}

// drop forgets one definition of v (moved out of the loop).
func (c *loopDefs) drop(v ir.Value) {
	if int(v) < len(c.n) && c.n[v] > 0 {
		c.n[v]--
	}
}

// reset forgets every definition counted.
func (c *loopDefs) reset() {
	for _, v := range c.touched {
		c.n[v] = 0
	}
	c.touched = c.touched[:0]
}

// oneRegion reports whether every block of the loop lies in its
// header's region: no try, handler or call of a finally inside.
func oneRegion(lp *Loop) bool {
	for _, b := range lp.Body() {
		if b.Region != lp.Header.Region || b.Term.Op == ir.OpCallFinally {
			return false
		}
	}
	return true
}

// throwsClass reports whether block b is a cold block that only throws
// the implicit exception named cls.
func throwsClass(b *ir.Block, cls string) bool {
	return b.Cold && len(b.Instrs) == 0 && b.Term.Op == ir.OpThrowHelper &&
		b.Term.Aux.Class() != nil && b.Term.Aux.Class().Name == cls
}

// boundsCheck reports whether block b ends in an array bounds check
// (cmp.ge.un idx, len computed in b; if it -> IndexOutOfRangeException,
// continuation) and returns the array and the index.
func boundsCheck(b *ir.Block) (arr, idx ir.Value, ok bool) {
	t := b.Term
	if t.Op != ir.OpIf || len(b.Succs) != 2 || !throwsClass(b.Succs[0], "System.IndexOutOfRangeException") {
		return ir.NoValue, ir.NoValue, false
	}
	cmp := lastDef(b, len(b.Instrs), t.Args[0])
	if cmp < 0 {
		return ir.NoValue, ir.NoValue, false
	}
	c := b.Instrs[cmp]
	if c.Op != ir.OpCmp || c.Aux.Cond != ir.GeUn || c.Kind != ir.I64 {
		return ir.NoValue, ir.NoValue, false
	}
	l := lastDef(b, cmp, c.Args[1])
	if l < 0 || b.Instrs[l].Op != ir.OpArrLen {
		return ir.NoValue, ir.NoValue, false
	}
	return b.Instrs[l].Args[0], c.Args[0], true
}

// lastDef returns the position of the last instruction of b before
// position end that defines v, or -1.
func lastDef(b *ir.Block, end int, v ir.Value) int {
	for i := end - 1; i >= 0; i-- {
		if b.Instrs[i].Dst == v || b.Instrs[i].Dst2 == v {
			return i
		}
	}
	return -1
}

// removeCheck turns block b's check into a jump to its continuation
// (Succs[1] for a bounds check, whose first successor throws; Succs[0]
// for a null check).
func removeCheck(b *ir.Block, cont int) {
	throw := b.Succs[1-cont]
	next := b.Succs[cont]
	throw.Preds = without(throw.Preds, b)
	b.Term = &ir.Instr{Op: ir.OpJump, Dst: ir.NoValue, Dst2: ir.NoValue, ILOffset: b.Term.ILOffset, Inline: b.Term.Inline}
	b.Succs = []*ir.Block{next}
}
