package opt

import "miniil/ir"

// defInfo is what the loop passes know of a function's definitions.
type defInfo struct {
	f *ir.Func
	// count is the number of instructions defining each value in f.
	count []int32
	// site is the instruction defining each value that has one
	// definition, and its block.
	site  []*ir.Instr
	block []*ir.Block
	// funclets records, for each value, the funclet of its definitions
	// (nil: the main body) when they all lie in one, and whether they
	// do not.
	funclet []*ir.Region
	mixed   []bool
}

// definitions scans f's definitions.
func definitions(f *ir.Func) *defInfo {
	n := len(f.Kinds)
	d := &defInfo{f: f, count: make([]int32, n), site: make([]*ir.Instr, n), block: make([]*ir.Block, n),
		funclet: make([]*ir.Region, n), mixed: make([]bool, n)}
	for _, b := range f.Blocks {
		fl := b.Region.Funclet()
		for _, in := range b.Instrs {
			for _, v := range [2]ir.Value{in.Dst, in.Dst2} {
				if v == ir.NoValue {
					continue
				}
				if d.count[v] > 0 && d.funclet[v] != fl {
					d.mixed[v] = true
				}
				d.count[v]++
				d.site[v], d.block[v], d.funclet[v] = in, b, fl
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
	return d.site[v], d.block[v]
}

// undisturbed reports whether code of funclet fl (nil: the main body)
// sees every definition of v: none lies in another funclet, which could
// run in the middle of fl's code (a filter, a finally).
func (d *defInfo) undisturbed(v ir.Value, fl *ir.Region) bool {
	return d.count[v] == 0 || !d.mixed[v] && d.funclet[v] == fl
}

// isTemp reports whether v is a temporary (neither argument nor local).
func isTemp(f *ir.Func, v ir.Value) bool { return int(v) >= f.NumArgs+f.NumLocals }

// loopDefs counts the definitions of each value in the blocks of a loop.
func loopDefs(f *ir.Func, blocks []*ir.Block) map[ir.Value]int {
	defs := map[ir.Value]int{}
	for _, b := range blocks {
		for _, in := range b.Instrs {
			if in.Dst != ir.NoValue {
				defs[in.Dst]++
			}
			if in.Dst2 != ir.NoValue {
				defs[in.Dst2]++
			}
		}
	}
	return defs
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
		b.Term.Aux.Class != nil && b.Term.Aux.Class.Name == cls
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
