package ir

import (
	"fmt"

	"miniil/il"
)

// Check validates f and returns the first violation it finds, naming the
// method, the block and the instruction. It runs after every phase when
// validation is on; it takes time linear in f's code, blocks and regions.
//
// Inlined calls: each names a method with a body and a parent listed
// before it; every instruction's Inline names one of them (or none).
//
// Structure: the blocks are numbered by position; every block ends in
// its only terminator, with as many successors as the operation takes,
// all of them blocks of f; each block's predecessor list holds the
// blocks that have it as a successor, as often as they do.
//
// Frame blocks: each holds a resolved value type, a primitive or a
// reference (the garbage collector reads their layout), and the blocks
// to zero on entry exist.
//
// Instructions: each has the shape its operation's opTable entry gives
// (number and kinds of operands, result and overflow flag, the Kind
// field, the Aux fields set) and passes the operation's own rule (a call
// matches its callee's signature, a return the method's).
//
// Regions: f.Regions lists each region after its parent, numbered by
// position, with its tree index (IndexRegions) in step with the Parent
// links; every block's region is one of them. Each handler and filter
// has an entry block of its own region that no edge reaches, starting
// with OpCatchArg for catch, filter and filter-handler regions (and
// OpCatchArg appears nowhere else). The regions agree with the method's
// IL clauses: one try per try range, carrying its first clause, one
// handler per clause (and a filter for filter clauses), a handler beside
// its try (same parent). IR built without a clause table (tests) is held
// to the regions' Clause numbers alone: each try carries its one clause.
//
// EH edges: a normal edge stays within one funclet (the main body or a
// handler), so nothing enters a handler but the runtime, at its entry; a
// throw block is reached from its own region only (the region decides
// who catches). OpCatchRet leaves the catch (or filter handler) it ends
// for a block of the region around it; OpCallFinally, which calls the
// finally of clause Aux.Int, lies outside that clause's try, in the
// region around it, and continues outside the try; OpEndFinally ends a
// finally or fault region, OpEndFilter a filter, OpRethrow lies inside a
// catch or filter handler, and OpRet outside every region.
func Check(f *Func) (err error) {
	if f.Method == nil {
		return fmt.Errorf("ir: function without a method")
	}
	// The checks below guard what they read, in the order they check it;
	// should broken IR still make one fail, that is a finding too.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: malformed IR: %v", f.Method.FullName(), r)
		}
	}()
	if err := checkSignature(f.Method); err != nil {
		return fmt.Errorf("%s: %v", f.Method.FullName(), err)
	}
	c := &checker{f: f}
	if err := c.blocks(); err != nil {
		return err
	}
	if err := c.regions(); err != nil {
		return err
	}
	return c.edges()
}

// checker holds what the checks of one function share.
type checker struct {
	f *Func
	// Regions by clause (filled by regions): the try region carrying each
	// clause number, and each clause's handler and filter.
	tries, handlers, filters map[int]*Region
	// first maps each IL clause to the first clause of its try range.
	first []int
}

func (c *checker) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", c.f.Method.FullName(), fmt.Sprintf(format, args...))
}

func (c *checker) blockErr(b *Block, format string, args ...any) error {
	return fmt.Errorf("%s: b%d: %s", c.f.Method.FullName(), b.ID, fmt.Sprintf(format, args...))
}

func (c *checker) instrErr(b *Block, in *Instr, format string, args ...any) error {
	return fmt.Errorf("%s: b%d: %s: %s", c.f.Method.FullName(), b.ID, c.describe(b, in), fmt.Sprintf(format, args...))
}

// describe returns in as text, or only its operation when Format would
// fail on it (an operand that is not a value of f, a callee without a
// signature).
func (c *checker) describe(b *Block, in *Instr) string {
	if !c.valuesOK(in) || in.Aux.Method() != nil && checkSignature(in.Aux.Method()) != nil {
		return in.Op.String()
	}
	if in == b.Term {
		for _, s := range b.Succs {
			if s == nil {
				return in.Op.String()
			}
		}
	}
	return c.f.Format(in, b)
}

// valuesOK reports whether every operand and result of in is a value of
// f (or NoValue where a value may be absent).
func (c *checker) valuesOK(in *Instr) bool {
	ok := func(v Value) bool { return v == NoValue || v >= 0 && int(v) < len(c.f.Kinds) }
	for _, a := range in.Args {
		if !ok(a) {
			return false
		}
	}
	return ok(in.Dst) && ok(in.Dst2)
}

// has reports whether b is one of f's blocks.
func (c *checker) has(b *Block) bool {
	return b != nil && b.ID >= 0 && b.ID < len(c.f.Blocks) && c.f.Blocks[b.ID] == b
}

// hasRegion reports whether r is one of f's regions.
func (c *checker) hasRegion(r *Region) bool {
	return r != nil && r.ID >= 0 && r.ID < len(c.f.Regions) && c.f.Regions[r.ID] == r
}

// blocks checks the values, the blocks, their instructions and the
// successor and predecessor lists.
func (c *checker) blocks() error {
	f := c.f
	m := f.Method
	if len(f.Blocks) == 0 {
		return c.errorf("no blocks")
	}
	nargs := m.NumArgs()
	if m.Ret.Kind == il.KValue {
		nargs++ // the return buffer, f.RetBuf()
	}
	if f.NumArgs != nargs || f.NumLocals != len(m.Locals) || len(f.Kinds) < f.NumArgs+f.NumLocals {
		return c.errorf("%d arguments and %d locals among %d values, the method has %d and %d",
			f.NumArgs, f.NumLocals, len(f.Kinds), nargs, len(m.Locals))
	}
	for v, k := range f.Kinds {
		var want Kind
		switch {
		case v == nargs-1 && m.Ret.Kind == il.KValue:
			want = Ptr
		case v < f.NumArgs:
			want = KindOf(m.ArgType(v))
		case v < f.NumArgs+f.NumLocals:
			want = KindOf(m.Locals[v-f.NumArgs].Type)
		default:
			want = k
		}
		if k < I32 || k > Ptr || k != want {
			return c.errorf("%s has kind %s, want %s", Value(v), kindName(k), kindName(want))
		}
	}
	for i, t := range f.Slots {
		if t == nil || t.Kind == il.KVoid || t.Kind == il.KByRef || t.Kind == il.KValue && t.Class == nil {
			return c.errorf("frame block %d holds no value type, primitive or reference (%v)", i, t)
		}
	}
	for i, v := range f.Untracked {
		if v < 0 || int(v) >= len(f.Kinds) || !f.Kinds[v].IsGC() || i > 0 && f.Untracked[i-1] >= v {
			return c.errorf("untracked value %s: not a GC value, or out of order", v)
		}
	}
	for _, s := range f.ZeroSlots {
		if s < 0 || s >= len(f.Slots) {
			return c.errorf("zeroed frame block %d of %d", s, len(f.Slots))
		}
	}
	for i, s := range f.Inlines {
		switch {
		case s.Method == nil || s.Method.Builtin || s.Method.Abstract:
			return c.errorf("inlined call %d has no method with a body", i+1)
		case s.Parent < 0 || int(s.Parent) > i:
			return c.errorf("inlined call %d in inlined code %d, not an earlier one", i+1, s.Parent)
		}
	}
	for i, b := range f.Blocks {
		if b == nil {
			return c.errorf("block %d is nil", i)
		}
		if b.ID != i {
			return c.blockErr(b, "block ID %d at index %d", b.ID, i)
		}
	}
	for _, b := range f.Blocks {
		if b.Term == nil {
			return c.blockErr(b, "block does not end with a terminator")
		}
		for i, in := range b.Instrs {
			if in == nil {
				return c.blockErr(b, "instruction %d is nil", i)
			}
			if in.Op >= numOps || opTable[in.Op].term {
				return c.instrErr(b, in, "%s in the middle of the block", in.Op)
			}
			if err := c.instr(b, in); err != nil {
				return err
			}
		}
		if in := b.Term; in.Op >= numOps || !opTable[in.Op].term {
			return c.instrErr(b, in, "block ends with %s, not a terminator", in.Op)
		}
		if err := c.instr(b, b.Term); err != nil {
			return err
		}
		for k, s := range b.Succs {
			if !c.has(s) {
				return c.instrErr(b, b.Term, "successor %d is not a block of the function", k)
			}
		}
		want := opTable[b.Term.Op].succs
		if want == manySuccs && len(b.Succs) < 1 || want != manySuccs && len(b.Succs) != want {
			if want == manySuccs {
				return c.instrErr(b, b.Term, "%s without a default successor", b.Term.Op)
			}
			return c.instrErr(b, b.Term, "%s has %d successors, want %d", b.Term.Op, len(b.Succs), want)
		}
	}
	// Predecessor lists against the edges, with multiplicity (both
	// successors of an if may be one block).
	type edge struct{ from, to *Block }
	edges := map[edge]int{}
	for _, b := range f.Blocks {
		for _, s := range b.Succs {
			edges[edge{b, s}]++
		}
	}
	for _, b := range f.Blocks {
		for _, p := range b.Preds {
			if !c.has(p) {
				return c.blockErr(b, "a predecessor is not a block of the function")
			}
			e := edge{p, b}
			if edges[e] == 0 {
				return c.blockErr(b, "lists b%d as a predecessor once more than b%d has it as a successor", p.ID, p.ID)
			}
			edges[e]--
		}
	}
	for _, b := range f.Blocks {
		for _, s := range b.Succs {
			if edges[edge{b, s}] > 0 {
				return c.blockErr(s, "does not list b%d as a predecessor as often as b%d has it as a successor", b.ID, b.ID)
			}
		}
	}
	return nil
}

// instr checks that in's operands and results are values of f and that
// it has its operation's shape.
func (c *checker) instr(b *Block, in *Instr) error {
	if !c.valuesOK(in) {
		return c.instrErr(b, in, "uses a register that is not a value of the function")
	}
	if in.Inline < 0 || int(in.Inline) > len(c.f.Inlines) {
		return c.instrErr(b, in, "inlined code %d of %d", in.Inline, len(c.f.Inlines))
	}
	if err := checkShape(c.f, in); err != nil {
		return c.instrErr(b, in, "%v", err)
	}
	return nil
}

// handlerKind is the region kind of the handler of each IL clause kind.
var handlerKind = map[il.EHKind]RegionKind{
	il.EHCatch: RegionCatch, il.EHFilter: RegionFilterHandler, il.EHFinally: RegionFinally, il.EHFault: RegionFault,
}

// regions checks the region tree, its index, the regions' entry blocks,
// and the regions against the method's clauses.
func (c *checker) regions() error {
	f := c.f
	for i, r := range f.Regions {
		switch {
		case r == nil:
			return c.errorf("region %d is nil", i)
		case r.ID != i:
			return c.errorf("region ID %d at index %d", r.ID, i)
		case r.Kind > RegionFault:
			return c.errorf("region %d has kind %d", i, r.Kind)
		case r.Parent != nil && !c.hasRegion(r.Parent):
			return c.errorf("the parent of region %d is not a region of the function", i)
		case r.Parent != nil && r.Parent.ID >= i:
			// Parents first: this also makes the parent links acyclic.
			return c.errorf("region %d is listed before its parent %d", i, r.Parent.ID)
		case r.IsHandler() && r.Entry == nil:
			return c.errorf("%s region %d has no entry block", r.Kind, i)
		case r.IsHandler() && !c.has(r.Entry):
			return c.errorf("the entry of %s region %d is not a block of the function", r.Kind, i)
		case r.IsHandler() && r.Entry.Region != r:
			return c.errorf("the entry b%d of %s region %d lies in another region", r.Entry.ID, r.Kind, i)
		case !r.IsHandler() && r.Entry != nil:
			return c.errorf("try region %d has an entry block", i)
		}
	}
	if err := c.index(); err != nil {
		return err
	}
	if err := c.clauses(); err != nil {
		return err
	}
	for _, b := range f.Blocks {
		if b.Region != nil && !c.hasRegion(b.Region) {
			return c.blockErr(b, "its region is not a region of the function")
		}
	}
	return nil
}

// index checks that the regions' tree index (Depth, Contains, Funclet)
// is the one IndexRegions makes from the Parent links.
func (c *checker) index() error {
	rs := c.f.Regions
	size := make([]int, len(rs))
	for i := len(rs) - 1; i >= 0; i-- {
		size[i]++
		if p := rs[i].Parent; p != nil {
			size[p.ID] += size[i]
		}
	}
	pre := make([]int, len(rs))
	used := make([]int, len(rs)) // positions taken below each region
	roots := 0
	for i, r := range rs {
		var depth int
		var funclet *Region
		if p := r.Parent; p == nil {
			pre[i] = roots
			roots += size[i]
		} else {
			pre[i] = pre[p.ID] + 1 + used[p.ID]
			used[p.ID] += size[i]
			depth, funclet = p.Depth+1, p.funclet
		}
		if r.IsHandler() {
			funclet = r
		}
		if !r.indexed || r.pre != pre[i] || r.size != size[i] || r.Depth != depth || r.funclet != funclet {
			return c.errorf("region %d is not indexed as its parent links say (IndexRegions after changing them)", i)
		}
	}
	return nil
}

// clauses checks the regions against the IL clauses. IR built without a
// clause table (in tests) names its clauses by the regions' Clause
// numbers alone.
func (c *checker) clauses() error {
	f := c.f
	eh := f.Method.EH
	c.tries, c.handlers, c.filters = map[int]*Region{}, map[int]*Region{}, map[int]*Region{}
	c.first = make([]int, len(eh))
	firstOf := map[[2]int]int{}
	for i, cl := range eh {
		key := [2]int{cl.TryStart, cl.TryEnd}
		if _, ok := firstOf[key]; !ok {
			firstOf[key] = i
		}
		c.first[i] = firstOf[key]
	}
	for _, r := range f.Regions {
		by := c.handlers
		switch r.Kind {
		case RegionTry:
			by = c.tries
		case RegionFilter:
			by = c.filters
		}
		if o := by[r.Clause]; o != nil {
			return c.errorf("regions %d and %d are both the %s of clause %d", o.ID, r.ID, r.Kind, r.Clause)
		}
		by[r.Clause] = r
		if len(eh) == 0 {
			continue
		}
		if r.Clause < 0 || r.Clause >= len(eh) {
			return c.errorf("%s region %d belongs to clause %d of %d", r.Kind, r.ID, r.Clause, len(eh))
		}
		k := eh[r.Clause].Kind
		switch {
		case r.Kind == RegionTry && c.first[r.Clause] != r.Clause:
			return c.errorf("try region %d carries clause %d, not the first clause of its try, %d", r.ID, r.Clause, c.first[r.Clause])
		case r.Kind == RegionFilter && k != il.EHFilter, r.IsHandler() && r.Kind != RegionFilter && handlerKind[k] != r.Kind:
			return c.errorf("%s region %d belongs to clause %d, a %s clause", r.Kind, r.ID, r.Clause, k)
		}
	}
	for cl := range eh {
		switch {
		case c.tryOf(cl) == nil:
			return c.errorf("clause %d has no try region", cl)
		case c.handlers[cl] == nil:
			return c.errorf("clause %d has no handler region", cl)
		case eh[cl].Kind == il.EHFilter && c.filters[cl] == nil:
			return c.errorf("filter clause %d has no filter region", cl)
		}
	}
	for _, r := range f.Regions {
		if !r.IsHandler() {
			continue
		}
		switch {
		case r.Kind == RegionFilter && (c.handlers[r.Clause] == nil || c.handlers[r.Clause].Kind != RegionFilterHandler):
			return c.errorf("filter region %d has no handler", r.ID)
		case r.Kind == RegionFilterHandler && c.filters[r.Clause] == nil:
			return c.errorf("filter-handler region %d has no filter", r.ID)
		}
		try := c.tryOf(r.Clause)
		switch {
		case try == nil:
			return c.errorf("%s region %d has no try region", r.Kind, r.ID)
		case try.Parent != r.Parent:
			return c.errorf("%s region %d and its try region %d have different parents", r.Kind, r.ID, try.ID)
		}
	}
	return nil
}

// tryOf returns the try region of clause cl: the one carrying the first
// clause of cl's try range.
func (c *checker) tryOf(cl int) *Region {
	if cl >= 0 && cl < len(c.first) {
		cl = c.first[cl]
	}
	return c.tries[cl]
}

// isCatch reports whether r is a catch or a filter handler: code that
// receives an exception and resumes with catchret.
func isCatch(r *Region) bool {
	return r != nil && (r.Kind == RegionCatch || r.Kind == RegionFilterHandler)
}

// edges checks the handler entries and the control transfers of the EH
// rules.
func (c *checker) edges() error {
	f := c.f
	for _, r := range f.Regions {
		if !r.IsHandler() {
			continue
		}
		e := r.Entry
		if len(e.Preds) > 0 {
			return c.blockErr(e, "the entry of %s region %d is the successor of b%d", r.Kind, r.ID, e.Preds[0].ID)
		}
		if r.Kind != RegionFinally && r.Kind != RegionFault && (len(e.Instrs) == 0 || e.Instrs[0].Op != OpCatchArg) {
			return c.blockErr(e, "the entry of %s region %d does not start with catcharg", r.Kind, r.ID)
		}
	}
	for _, b := range f.Blocks {
		for i, in := range b.Instrs {
			if in.Op == OpCatchArg && (i > 0 || b.Region == nil || b.Region.Entry != b || b.Region.Kind == RegionFinally || b.Region.Kind == RegionFault) {
				return c.instrErr(b, in, "catcharg is not the first instruction of a catch or filter")
			}
		}
		fl := b.Region.Funclet()
		t := b.Term
		for _, s := range b.Succs {
			if s.Cold && s.Region != b.Region {
				return c.instrErr(b, t, "branches to throw block b%d of another region", s.ID)
			}
			if t.Op != OpCatchRet && s.Region.Funclet() != fl {
				return c.instrErr(b, t, "b%d is in another funclet: only the runtime enters handlers and only catchret leaves them", s.ID)
			}
		}
		switch t.Op {
		case OpRet:
			if b.Region != nil {
				return c.instrErr(b, t, "ret inside %s region %d", b.Region.Kind, b.Region.ID)
			}
		case OpEndFinally:
			if r := b.Region; r == nil || r.Kind != RegionFinally && r.Kind != RegionFault {
				return c.instrErr(b, t, "endfinally outside a finally or fault region")
			}
		case OpEndFilter:
			if r := b.Region; r == nil || r.Kind != RegionFilter {
				return c.instrErr(b, t, "endfilter outside a filter region")
			}
		case OpRethrow:
			g := b.Region
			for g != nil && !isCatch(g) && g.Kind != RegionFilter {
				g = g.Parent
			}
			if !isCatch(g) || g.Clause != int(t.Aux.Int) {
				return c.instrErr(b, t, "rethrow is not inside the catch or filter handler of clause %d", t.Aux.Int)
			}
		case OpCatchRet:
			s := b.Succs[0]
			switch {
			case !isCatch(fl):
				return c.instrErr(b, t, "catchret outside a catch or filter handler")
			case fl.Contains(s.Region):
				return c.instrErr(b, t, "catchret resumes inside the %s region %d it leaves", fl.Kind, fl.ID)
			case fl.Parent != nil && !fl.Parent.Contains(s.Region), s.Region.Funclet() != fl.Parent.Funclet():
				return c.instrErr(b, t, "catchret resumes at b%d, outside the region around %s region %d", s.ID, fl.Kind, fl.ID)
			}
		case OpCallFinally:
			if err := c.callFinally(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// callFinally checks that a callfinally calls a finally and lies, with
// its continuation, outside that finally's try and inside the region
// around it (where the leave that exits the try goes on).
func (c *checker) callFinally(b *Block) error {
	t := b.Term
	cl := int(t.Aux.Int)
	if h := c.handlers[cl]; h == nil || h.Kind != RegionFinally || int64(cl) != t.Aux.Int {
		return c.instrErr(b, t, "clause %d has no finally region", t.Aux.Int)
	}
	try := c.tryOf(cl)
	s := b.Succs[0]
	switch {
	case try.Contains(b.Region):
		return c.instrErr(b, t, "inside the try region %d of the finally it calls", try.ID)
	case try.Parent != nil && !try.Parent.Contains(b.Region), b.Region.Funclet() != try.Parent.Funclet():
		return c.instrErr(b, t, "outside the region around try region %d", try.ID)
	case try.Contains(s.Region):
		return c.instrErr(b, t, "continues at b%d, inside the try region %d it left", s.ID, try.ID)
	}
	return nil
}
