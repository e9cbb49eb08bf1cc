package il

import (
	"cmp"
	"fmt"
	"slices"
)

// Verify checks every method body of a resolved module against ECMA-335:
// the exception-region rules (nesting, entry and exit, where leave,
// endfinally, endfilter, rethrow and ret may appear) and the evaluation
// stack (depth against .maxstack, consistent depth and types at merge
// points, operand types). It returns an ErrorList sorted by position.
func Verify(m *Module) error { return verify(m, nil) }

// StackDepths verifies m as Verify does, except that it holds no method
// to its .maxstack, and returns the deepest each method's evaluation
// stack gets: what its .maxstack must at least be. It is for programs
// that generate IL, which know a method's code but not its depth.
func StackDepths(m *Module) (map[*Method]int, error) {
	depths := map[*Method]int{}
	return depths, verify(m, depths)
}

// verify verifies every method of m; with depths, it records each one's
// deepest stack there instead of checking it against .maxstack.
func verify(m *Module, depths map[*Method]int) error {
	var errs errorSink
	v := &verifier{m: m, errs: &errs, depths: depths} // one verifier, its buffers reused by every method
	for _, md := range m.CodeMethods() {
		v.reset(md)
		if depths != nil {
			depths[md] = 0
		}
		v.run()
	}
	return errs.err()
}

// vkind is an evaluation stack type (ECMA-335 III.1.1).
type vkind uint8

const (
	vI4    vkind = iota + 1 // int32
	vI8                     // int64
	vI                      // native int
	vF                      // F (float)
	vRef                    // object reference of type t
	vNull                   // the null reference
	vValue                  // a value of value type t
	vByRef                  // a managed pointer to a location of type t
)

type vtype struct {
	k vkind
	t *Type // vRef
}

func (v vtype) String() string {
	switch v.k {
	case vI4:
		return "int32"
	case vI8:
		return "int64"
	case vI:
		return "native int"
	case vF:
		return "float (F)"
	case vNull:
		return "null"
	case vRef, vValue:
		return v.t.String()
	case vByRef:
		return v.t.String() + "&"
	}
	return "?"
}

// stackType returns the evaluation stack type of a value of type t.
func stackType(t *Type) vtype {
	switch t.Kind {
	case KBool, KChar, KI1, KU1, KI2, KU2, KI4, KU4:
		return vtype{k: vI4}
	case KI8, KU8:
		return vtype{k: vI8}
	case KI, KU:
		return vtype{k: vI}
	case KR4, KR8:
		return vtype{k: vF}
	case KValue:
		return vtype{k: vValue, t: t}
	case KByRef:
		return vtype{k: vByRef, t: t.Elem}
	}
	return vtype{k: vRef, t: t}
}

// region is a try body, handler body or filter body. Regions form a
// forest by containment; a region with the same range as an earlier one
// (in verifier.regions order) is its child.
type region struct {
	kind       regionKind
	start, end int
	clause     *EHClause
	index      int     // position in verifier.regions
	parent     *region // innermost region containing this one
	depth      int     // number of regions containing this one
	handler    *region // innermost non-try region containing or equal to this one
	// A try's clauses: how many, and the first finally or fault one.
	handlers int
	finally  *EHClause
	// lo and hi are the first and last table indices of the clauses the
	// region belongs to (a try block belongs to every clause of its group).
	lo, hi int
}

type regionKind uint8

const (
	rTry regionKind = iota
	rCatch
	rFilter        // the filter block (ends with endfilter)
	rFilterHandler // the handler block of a filter clause
	rFinally
	rFault
)

func (k regionKind) String() string {
	return [...]string{"try block", "catch handler", "filter block", "filter handler", "finally handler", "fault handler"}[k]
}

type verifier struct {
	m       *Module
	md      *Method
	errs    *errorSink
	regions []*region
	// at[i] is the innermost region containing instruction i (nil when the
	// method has no regions); the regions containing i are at[i] and its
	// parents.
	at []*region
	// tryAt maps an instruction to the outermost try block starting there.
	tryAt   map[int]*region
	left    []*region // scratch for crossed
	entered []*region // scratch for crossed
	// join numbers the instructions entered otherwise than by falling
	// through from the one before (branch targets, the method's and its
	// handlers' entries, try starts) from 1 (0: not a join point). Only
	// their entry stacks are kept and merged, in states and reached at
	// join[i]-1; any other instruction is checked with the stack the one
	// before leaves, right after it. (Per-instruction states would be
	// 24 bytes an instruction, mostly never used.)
	join    []int32
	states  [][]vtype // entry stack per join point; nil: not reached
	reached []bool
	failed  bool
	// depths, for StackDepths, records each method's deepest stack
	// instead of checking it against .maxstack.
	depths map[*Method]int

	// Buffers kept from method to method.
	buf1    [1]vtype // one's
	atBuf   []*region
	arena   []vtype // where states live
	scratch []vtype // the stack an instruction is applied to
	work    []int
}

// reset prepares the verifier for method md, keeping its buffers.
func (v *verifier) reset(md *Method) {
	v.md = md
	v.regions = v.regions[:0]
	v.at, v.tryAt = nil, nil
	v.failed = false
	v.arena = v.arena[:0]
}

// keep returns a copy of stack st that lives as long as the method's
// verification (in the arena: one allocation for many states).
func (v *verifier) keep(st []vtype) []vtype {
	if len(st) == 0 {
		return nil
	}
	if cap(v.arena)-len(v.arena) < len(st) {
		// A new block; states already handed out keep the old one.
		v.arena = make([]vtype, 0, max(1024, 2*cap(v.arena), len(st)))
	}
	n := len(v.arena)
	v.arena = append(v.arena, st...)
	return v.arena[n:len(v.arena):len(v.arena)]
}

// one returns x as a one-element slice of the verifier's own: a value
// passed to out, a function value, would otherwise be put in a slice
// allocated for the call.
func (v *verifier) one(x vtype) []vtype {
	v.buf1[0] = x
	return v.buf1[:]
}

// pos returns the source position of an instruction.
func (v *verifier) pos(in *Instr) Pos { return in.Pos(v.m.File) }

func (v *verifier) errorf(p Pos, format string, args ...any) {
	v.errs.add(p, fmt.Sprintf(format, args...))
	v.failed = true
}

func (v *verifier) run() {
	md := v.md
	if md.Builtin || md.Abstract {
		return
	}
	if len(md.Code) == 0 {
		v.errorf(md.EndPos, "method %s has no instructions (it needs at least ret)", md.FullName())
		return
	}
	v.buildRegions()
	if v.failed {
		return
	}
	v.checkFlow()
	if v.failed {
		return
	}
	v.checkStack()
}

// buildRegions collects the regions of the method's clauses, checks that
// they nest, links each to its parent and records the innermost region
// of each instruction. It takes O(R log R + n) time for R regions and n
// instructions: one sort, then a sweep with a stack of open regions.
func (v *verifier) buildRegions() {
	md := v.md
	if len(md.EH) == 0 {
		return
	}
	tries := make(map[[2]int]*region, len(md.EH))
	ci := 0 // the index of the clause being added
	add := func(kind regionKind, start, end int, c *EHClause) *region {
		r := &region{kind: kind, start: start, end: end, clause: c, index: len(v.regions), lo: ci, hi: ci}
		v.regions = append(v.regions, r)
		return r
	}
	for i, c := range md.EH {
		ci = i
		k := [2]int{c.TryStart, c.TryEnd}
		t := tries[k]
		if t == nil {
			t = add(rTry, c.TryStart, c.TryEnd, c)
			tries[k] = t
		}
		t.hi = i
		t.handlers++
		if t.finally == nil && (c.Kind == EHFinally || c.Kind == EHFault) {
			t.finally = c
		}
		switch c.Kind {
		case EHCatch:
			add(rCatch, c.HandlerStart, c.HandlerEnd, c)
		case EHFilter:
			add(rFilter, c.FilterStart, c.HandlerStart, c)
			add(rFilterHandler, c.HandlerStart, c.HandlerEnd, c)
		case EHFinally:
			add(rFinally, c.HandlerStart, c.HandlerEnd, c)
		case EHFault:
			add(rFault, c.HandlerStart, c.HandlerEnd, c)
		}
	}
	for _, r := range v.regions {
		if r.start >= r.end {
			p := r.clause.Pos
			if r.kind == rTry {
				v.errorf(p, "the try block of this %s clause is empty", r.clause.Kind)
			} else {
				v.errorf(p, "the %s is empty", r.kind)
			}
		}
	}
	for _, t := range v.regions { // in region order: errors beyond the cap are dropped deterministically
		if c := t.finally; t.handlers > 1 && c != nil {
			v.errorf(c.Pos, "a .try with a %s handler cannot have other handlers; nest it in another .try", c.Kind)
		}
	}
	// Outer before inner: by start, then longest first; of a try and a
	// handler with one range, the handler is outer (the try is nested in
	// it); otherwise in region order.
	sorted := slices.Clone(v.regions)
	slices.SortFunc(sorted, func(a, b *region) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		if a.end != b.end {
			return cmp.Compare(b.end, a.end)
		}
		if (a.kind == rTry) != (b.kind == rTry) {
			if a.kind == rTry {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.index, b.index)
	})
	// Sweep: open holds the regions containing the current start, outer
	// first. A region that starts inside the innermost open one must end
	// inside it too.
	var open []*region
	for _, r := range sorted {
		for len(open) > 0 && open[len(open)-1].end <= r.start {
			open = open[:len(open)-1]
		}
		if len(open) > 0 {
			if p := open[len(open)-1]; r.end > p.end {
				a, b := p, r // report the later region, as the clauses are written
				if a.index > b.index {
					a, b = b, a
				}
				v.errorf(b.clause.Pos, "the %s overlaps the %s without nesting in it", b.kind, a.kind)
				continue
			}
			r.parent = open[len(open)-1]
			r.depth = r.parent.depth + 1
			if p := r.parent; r.kind != rTry && p.kind != rTry && r.start == p.start {
				v.errorf(r.clause.Pos, "the %s starts at the first instruction of the %s that contains it: two handlers cannot begin at the same instruction", r.kind, p.kind)
				continue
			}
		}
		r.handler = r
		if r.kind == rTry {
			r.handler = nil
			if r.parent != nil {
				r.handler = r.parent.handler
			}
		}
		open = append(open, r)
	}
	if v.failed {
		return
	}
	v.checkClauseNesting()
	if v.failed {
		return
	}
	v.at = grow(v.atBuf, len(md.Code))
	v.atBuf = v.at
	v.tryAt = map[int]*region{}
	open = open[:0]
	next := 0
	for i := range md.Code {
		for len(open) > 0 && open[len(open)-1].end <= i {
			open = open[:len(open)-1]
		}
		for ; next < len(sorted) && sorted[next].start == i; next++ {
			r := sorted[next]
			open = append(open, r)
			if t := v.tryAt[i]; r.kind == rTry && (t == nil || r.depth < t.depth) {
				v.tryAt[i] = r
			}
		}
		if len(open) > 0 {
			v.at[i] = open[len(open)-1]
		}
	}
}

// checkClauseNesting checks how whole clauses nest, once their regions do:
// the try, filter and handler of a clause are siblings (they have one
// parent), and a clause comes before every clause with a region that
// contains one of its regions. Inner-first is what the engines and the
// native clause table rely on. As CoreCLR does, a table that lists a
// clause after one whose handler contains it is put in order (ilasm keeps
// label-form clauses in the order they are written), while a clause listed
// after one whose try block contains it is an error.
func (v *verifier) checkClauseNesting() {
	md := v.md
	// The regions of each clause, by clause index.
	try, filter, handler := make([]*region, len(md.EH)), make([]*region, len(md.EH)), make([]*region, len(md.EH))
	tries := make(map[[2]int]*region, len(md.EH))
	for _, r := range v.regions {
		switch r.kind {
		case rTry:
			tries[[2]int{r.start, r.end}] = r
		case rFilter:
			filter[r.lo] = r
		default:
			handler[r.lo] = r
		}
	}
	for i, c := range md.EH {
		try[i] = tries[[2]int{c.TryStart, c.TryEnd}]
	}
	for i, c := range md.EH {
		t, h := try[i], handler[i]
		if h.parent == t {
			v.errorf(c.Pos, "the %s is inside its own try block", h.kind)
			continue
		}
		if h.parent != t.parent {
			v.errorf(c.Pos, "the %s and its try block are not in the same enclosing region: a clause nests as a whole", h.kind)
			continue
		}
		if f := filter[i]; f != nil && f.parent != t.parent {
			v.errorf(c.Pos, "the filter block and its try block are not in the same enclosing region: a clause nests as a whole")
		}
	}
	if v.failed {
		return
	}
	misordered := false
	for _, r := range v.regions {
		p := r.parent
		if p == nil || r.hi < p.lo {
			continue
		}
		if p.kind == rTry {
			v.errorf(md.EH[r.hi].Pos, "this clause is nested in the try block of an earlier clause (line %d): inner clauses must come first", md.EH[p.lo].Pos.Line)
			return
		}
		misordered = true
	}
	if misordered {
		v.sortClauses(try, handler, filter)
	}
}

// sortClauses puts the clause table in inner-first order: by the extent of
// each clause's try group (its try block, filters and handlers), smallest
// first. A clause nested in a region of another lies inside that region,
// so its group's extent is smaller; clauses of one group keep their order.
func (v *verifier) sortClauses(try, handler, filter []*region) {
	md := v.md
	type group struct{ start, end int }
	ext := map[*region]*group{}
	for i, t := range try {
		g := ext[t]
		if g == nil {
			g = &group{t.start, t.end}
			ext[t] = g
		}
		for _, r := range []*region{handler[i], filter[i]} {
			if r != nil {
				g.start, g.end = min(g.start, r.start), max(g.end, r.end)
			}
		}
	}
	idx := make([]int, len(md.EH))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ga, gb := ext[try[a]], ext[try[b]]
		return cmp.Compare(ga.end-ga.start, gb.end-gb.start)
	})
	sorted := make([]*EHClause, len(md.EH))
	for i, j := range idx {
		sorted[i] = md.EH[j]
	}
	copy(md.EH, sorted)
	// The regions' clause indices are stale now; the rest of the checks
	// use only their shape and clauses.
}

// innermost returns the innermost region containing instruction i.
func (v *verifier) innermost(i int) *region {
	if v.at == nil {
		return nil
	}
	return v.at[i]
}

// innermostHandler returns the innermost region containing i that is not a
// try block.
func (v *verifier) innermostHandler(i int) *region {
	if r := v.innermost(i); r != nil {
		return r.handler
	}
	return nil
}

// crossed returns the regions containing instruction i but not t (left)
// and those containing t but not i (entered), each innermost first. The
// walk is as long as the two lists: both climb to the innermost region
// containing both instructions.
func (v *verifier) crossed(i, t int) (left, entered []*region) {
	a, b := v.innermost(i), v.innermost(t)
	left, entered = v.left[:0], v.entered[:0]
	depth := func(r *region) int {
		if r == nil {
			return -1
		}
		return r.depth
	}
	for a != b {
		if depth(a) >= depth(b) {
			left = append(left, a)
			a = a.parent
		} else {
			entered = append(entered, b)
			b = b.parent
		}
	}
	v.left, v.entered = left, entered
	return left, entered
}

// endsFlow reports whether control never falls through past op.
func endsFlow(op Op) bool {
	switch op.Canon() {
	case Br, BrS, Leave, LeaveS, Ret, Throw, Rethrow, Endfinally, Endfilter:
		return true
	}
	return false
}

func isLeave(op Op) bool { c := op.Canon(); return c == Leave || c == LeaveS }

// checkFlow enforces the region entry and exit rules for branches,
// leave, fall-through and the EH instructions.
func (v *verifier) checkFlow() {
	md := v.md
	n := len(md.Code)
	if h := v.innermostHandler(0); h != nil {
		v.errorf(v.pos(md.Code[0]), "the method's first instruction is inside a %s; handlers are entered only by exceptions (branch over it)", h.kind)
	}
	for i, in := range md.Code {
		c := in.Op.Canon()
		for _, t := range in.Targets() {
			if isLeave(in.Op) {
				v.checkTransfer(in, i, t, "leave")
			} else {
				v.checkTransfer(in, i, t, "branch")
			}
		}
		switch c {
		case Ret:
			if r := v.innermost(i); r != nil {
				v.errorf(v.pos(in), "ret cannot appear inside a %s; leave it first, then return", r.kind)
			}
		case Endfinally:
			r := v.innermost(i)
			if r == nil || r.kind != rFinally && r.kind != rFault {
				v.errorf(v.pos(in), "%s is only allowed directly inside a finally or fault handler", in.Op)
			}
		case Endfilter:
			r := v.innermost(i)
			if r == nil || r.kind != rFilter {
				v.errorf(v.pos(in), "endfilter is only allowed as the last instruction of a filter block")
			} else if i != r.end-1 {
				v.errorf(v.pos(in), "endfilter must be the last instruction of its filter block")
			}
		case Rethrow:
			if v.rethrowCatch(i) == nil {
				if r := v.innermostHandler(i); r != nil && v.inFilter(r) {
					v.errorf(v.pos(in), "rethrow cannot appear in a filter block, even one nested in a catch handler")
				} else {
					v.errorf(v.pos(in), "rethrow is only allowed inside a catch or filter handler")
				}
			}
		}
		if !endsFlow(in.Op) {
			if i+1 >= n {
				v.errorf(v.pos(in), "control falls off the end of method %s after %s (add ret)", md.FullName(), in.Op)
			} else {
				v.checkTransfer(in, i, i+1, "fall-through")
			}
		}
	}
	for _, r := range v.regions {
		if r.kind != rFilter || r.end <= r.start {
			continue
		}
		if last := md.Code[r.end-1]; last.Op.Canon() != Endfilter && endsFlow(last.Op) {
			v.errorf(v.pos(last), "a filter block must end with endfilter, not %s", last.Op)
		}
	}
}

// checkTransfer checks control moving from instruction i to t.
func (v *verifier) checkTransfer(in *Instr, i, t int, how string) {
	from, to := v.crossed(i, t)
	for k := len(from) - 1; k >= 0; k-- { // outermost first
		r := from[k]
		switch how {
		case "leave":
			if r.kind == rFinally || r.kind == rFault || r.kind == rFilter {
				v.errorf(v.pos(in), "leave cannot exit a %s", r.kind)
				return
			}
		case "fall-through":
			switch r.kind {
			case rFilter:
				v.errorf(v.pos(in), "a filter block must end with endfilter (control falls through after %s)", in.Op)
			case rFinally, rFault:
				v.errorf(v.pos(in), "control falls through the end of a %s after %s; end it with %s", r.kind, in.Op, map[regionKind]string{rFinally: "endfinally", rFault: "endfault"}[r.kind])
			case rTry:
				v.errorf(v.pos(in), "control falls through the end of a try block after %s; end it with leave or throw", in.Op)
			default:
				v.errorf(v.pos(in), "control falls through the end of a %s after %s; end it with leave, throw or rethrow", r.kind, in.Op)
			}
			return
		default:
			v.errorf(v.pos(in), "%s cannot branch out of a %s; use leave", in.Op, r.kind)
			return
		}
	}
	for k := len(to) - 1; k >= 0; k-- {
		r := to[k]
		if r.kind == rTry && r.start == t {
			continue // entering a try at its first instruction
		}
		if r.kind == rTry && k == len(to)-1 && how == "leave" && resumesOwnTry(from, r) {
			continue // a catch resuming inside the try it protects
		}
		what := "branch"
		if how == "leave" {
			what = "leave"
		}
		if how == "fall-through" {
			v.errorf(v.pos(in), "control falls through into a %s; handlers are entered only by exceptions", r.kind)
		} else if r.kind == rTry && how == "leave" {
			v.errorf(v.pos(in), "leave into the middle of a try block: only the try's own catch or filter handlers may resume inside it; others enter at its first instruction")
		} else if r.kind == rTry {
			v.errorf(v.pos(in), "%s into the middle of a try block: a try is entered only at its first instruction", what)
		} else {
			v.errorf(v.pos(in), "%s into a %s: handlers are entered only by exceptions", what, r.kind)
		}
		return
	}
}

// resumesOwnTry reports whether one of the regions a leave exits (left) is
// the catch or filter handler of a clause whose try block is t: ECMA-335
// lets such a leave land on any instruction of t, which protects the
// resumed code again.
func resumesOwnTry(left []*region, t *region) bool {
	for _, r := range left {
		c := r.clause
		if (r.kind == rCatch || r.kind == rFilterHandler) && c.TryStart == t.start && c.TryEnd == t.end {
			return true
		}
	}
	return false
}

// rethrowCatch returns the catch or filter handler whose exception a
// rethrow at instruction i rethrows: the innermost one that lexically
// contains it, through any finally, fault, try or catch nested in it, but
// not through a filter block (nil: rethrow is not allowed there).
func (v *verifier) rethrowCatch(i int) *region {
	for r := v.innermost(i); r != nil; r = r.parent {
		switch r.kind {
		case rCatch, rFilterHandler:
			return r
		case rFilter:
			return nil
		}
	}
	return nil
}

// inFilter reports whether region r is a filter block or inside one.
func (v *verifier) inFilter(r *region) bool {
	for ; r != nil; r = r.parent {
		if r.kind == rFilter {
			return true
		}
	}
	return false
}

// checkStack runs the stack-type analysis over all reachable code.
func (v *verifier) checkStack() {
	md := v.md
	n := len(md.Code)
	v.join = grow(v.join, n)
	v.join[0] = 1
	for _, in := range md.Code {
		for _, t := range in.Targets() {
			v.join[t] = 1
		}
	}
	for _, c := range md.EH {
		v.join[c.HandlerStart] = 1
		if c.Kind == EHFilter {
			v.join[c.FilterStart] = 1
		}
	}
	for t := range v.tryAt {
		v.join[t] = 1
	}
	joins := int32(0)
	for i, j := range v.join {
		if j != 0 {
			joins++
			v.join[i] = joins
		}
	}
	v.states = grow(v.states, int(joins))
	v.reached = grow(v.reached, int(joins))
	work := v.work[:0]
	defer func() { v.work = work[:0] }()
	push := func(t int, st []vtype, from *Instr) {
		if v.failed {
			return
		}
		if v.merge(t, st, from) {
			work = append(work, t)
		}
	}
	push(0, nil, nil)
	for _, c := range md.EH {
		exc := vtype{k: vRef, t: Object}
		if c.Kind == EHCatch {
			exc = vtype{k: vRef, t: c.CatchType}
		}
		switch c.Kind {
		case EHCatch:
			push(c.HandlerStart, []vtype{exc}, nil)
		case EHFilter:
			push(c.FilterStart, []vtype{exc}, nil)
			push(c.HandlerStart, []vtype{exc}, nil)
		default:
			push(c.HandlerStart, nil, nil)
		}
	}
	for len(work) > 0 && !v.failed {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		st := append(v.scratch[:0], v.states[v.join[i]-1]...)
		// Check from join point i on, through the instructions that only
		// fall through into each other, up to the next join point.
		for !v.failed {
			in := md.Code[i]
			out, ok := v.step(in, st)
			v.scratch = out[:0] // keep what step may have grown; merges copy out
			if !ok {
				return
			}
			if isLeave(in.Op) {
				push(in.Target(), nil, in)
				break
			}
			for _, t := range in.Targets() {
				push(t, out, in)
			}
			if endsFlow(in.Op) || i+1 >= n {
				break
			}
			if v.join[i+1] != 0 {
				push(i+1, out, in)
				break
			}
			i, st = i+1, out
		}
	}
}

// merge records stack st flowing into instruction t; it reports whether
// t's state changed (and so needs another visit).
func (v *verifier) merge(t int, st []vtype, from *Instr) bool {
	in := v.md.Code[t]
	where := func() string {
		if from == nil {
			return ""
		}
		return fmt.Sprintf(" (from %s at line %d)", from.Op, from.Line)
	}
	if r := v.tryAt[t]; r != nil && len(st) > 0 {
		v.errorf(r.clause.TryPos, "the evaluation stack must be empty on entry to a try block, but it holds %d value(s)%s", len(st), where())
		return false
	}
	j := v.join[t] - 1 // t is a join point: only those are pushed
	if !v.reached[j] {
		v.reached[j] = true
		v.states[j] = v.keep(st)
		return true
	}
	old := v.states[j]
	if len(old) != len(st) {
		v.errorf(v.pos(in), "inconsistent stack depth at this merge point: %d value(s) on one path, %d on another%s", len(old), len(st), where())
		return false
	}
	changed := false
	for k := range old {
		m, ok := v.mergeType(old[k], st[k])
		if !ok {
			v.errorf(v.pos(in), "inconsistent stack types at this merge point: %s on one path, %s on another%s", old[k], st[k], where())
			return false
		}
		if m.k != old[k].k || m.t != old[k].t && !m.t.Equal(old[k].t) {
			old[k] = m
			changed = true
		}
	}
	return changed
}

func (v *verifier) mergeType(a, b vtype) (vtype, bool) {
	switch {
	case a.k == vValue || a.k == vByRef || b.k == vValue || b.k == vByRef:
		return a, a.k == b.k && a.t.Equal(b.t)
	case a.k == b.k && a.k != vRef:
		return a, true
	case a.k == vNull && b.k == vRef:
		return b, true
	case a.k == vRef && b.k == vNull:
		return a, true
	case a.k == vRef && b.k == vRef:
		return vtype{k: vRef, t: v.lub(a.t, b.t)}, true
	}
	return vtype{}, false
}

// classOf returns the class of a reference type (nil for arrays).
func (v *verifier) classOf(t *Type) *Class {
	switch t.Kind {
	case KObject:
		return v.m.classes[ObjectClass]
	case KString:
		return v.m.classes[StringClass]
	case KClass:
		return t.Class
	}
	return nil
}

// lub is the closest common supertype of two reference types.
func (v *verifier) lub(a, b *Type) *Type {
	// Keep a when it already admits b, so that merging never flip-flops
	// between mutually assignable types (int32[] and uint32[]).
	if v.refAssignable(b, a) {
		return a
	}
	if v.refAssignable(a, b) {
		return b
	}
	// Arrays of references merge element-wise, as CoreCLR merges array
	// types: string[][] and int32[][] meet at object[] (their rows,
	// string[] and int32[], meet at object), Dog[][] and Cat[][] at
	// Animal[][]. The element types are walked in a loop, so deep
	// nesting costs no Go stack.
	depth := 0
	for a.Kind == KArray && b.Kind == KArray && a.Elem.IsRef() && b.Elem.IsRef() {
		a, b, depth = a.Elem, b.Elem, depth+1
		if v.refAssignable(b, a) || v.refAssignable(a, b) {
			break
		}
	}
	if depth > 0 {
		elem := v.lub(a, b) // a and b are no longer both arrays of references
		for range depth {
			elem = ArrayOf(elem)
		}
		return elem
	}
	ca, cb := v.classOf(a), v.classOf(b)
	if ca != nil && cb != nil {
		for k := ca; k != nil; k = k.Base {
			if k.Base == nil {
				break // System.Object: try the interfaces first
			}
			if cb.IsSubclassOf(k) {
				return k.Type()
			}
		}
		// Two classes whose only common class is System.Object meet at
		// an interface both implement, if any: the first of a's (its own
		// interface first if a is one). C# compilers rely on it (mcs
		// emits `cond ? (IShape)new Square() : new Circle()` without a
		// cast); the result is a supertype of both, so it stays sound.
		cands := ca.Interfaces
		if ca.Interface {
			cands = append([]*Class{ca}, cands...)
		}
		for _, i := range cands {
			if cb.ImplementsIface(i) {
				return i.Type()
			}
		}
	}
	return Object
}

// refAssignable reports whether a reference of type from may be used where
// to is expected.
func (v *verifier) refAssignable(from, to *Type) bool {
	for { // arrays of references: compare the elements, in a loop
		if to.Kind == KObject {
			return true
		}
		if from.Kind != KArray && to.Kind != KArray {
			break
		}
		if from.Kind != KArray || to.Kind != KArray {
			return false
		}
		if !from.Elem.IsRef() || !to.Elem.IsRef() {
			return sameStorage(from.Elem, to.Elem)
		}
		from, to = from.Elem, to.Elem
	}
	cf, ct := v.classOf(from), v.classOf(to)
	if cf != nil && ct != nil && ct.Interface {
		return cf.ImplementsIface(ct)
	}
	return cf != nil && ct != nil && cf.IsSubclassOf(ct)
}

// sameStorage reports whether arrays of the two element types are
// interchangeable (int32[] and uint32[] are, as in the CLR).
func sameStorage(a, b *Type) bool {
	if a.Equal(b) {
		return true
	}
	size := func(t *Type) int {
		switch t.Kind {
		case KBool, KI1, KU1:
			return 1
		case KChar, KI2, KU2:
			return 2
		case KI4, KU4:
			return 4
		case KI8, KU8, KI, KU:
			return 8
		}
		return -int(t.Kind)
	}
	return size(a) > 0 && size(a) == size(b) && a.Kind != KR4 && a.Kind != KR8
}

// assignable reports whether a stack value may be stored into a location
// of type to.
func (v *verifier) assignable(s vtype, to *Type) bool {
	switch to.Kind {
	case KValue:
		return s.k == vValue && s.t.Equal(to)
	case KByRef:
		return s.k == vByRef && s.t.Equal(to.Elem)
	case KBool, KChar, KI1, KU1, KI2, KU2, KI4, KU4:
		return s.k == vI4 || s.k == vI
	case KI8, KU8:
		return s.k == vI8
	case KI, KU:
		return s.k == vI || s.k == vI4
	case KR4, KR8:
		return s.k == vF
	}
	if s.k == vNull {
		return true
	}
	return s.k == vRef && v.refAssignable(s.t, to)
}

// step applies instruction in to stack st; it returns the new stack, or
// false after reporting an error.
func (v *verifier) step(in *Instr, st []vtype) ([]vtype, bool) {
	md := v.md
	fail := func(format string, args ...any) ([]vtype, bool) {
		v.errorf(v.pos(in), "%s: %s", in.Op, fmt.Sprintf(format, args...))
		return nil, false
	}
	need := func(k int) bool {
		if len(st) < k {
			v.errorf(v.pos(in), "stack underflow: %s needs %d value(s) but the stack holds %d", in.Op, k, len(st))
			return false
		}
		return true
	}
	pop := func() vtype {
		x := st[len(st)-1]
		st = st[:len(st)-1]
		return x
	}
	out := func(xs ...vtype) ([]vtype, bool) {
		for _, x := range xs { // not append(st, xs...): a typed copy costs more than a store
			st = append(st, x)
		}
		if v.depths != nil { // StackDepths: record, do not check
			v.depths[md] = max(v.depths[md], len(st))
		} else if len(st) > md.MaxStack {
			v.errorf(v.pos(in), "stack overflow: after %s the stack holds %d values but .maxstack is %d", in.Op, len(st), md.MaxStack)
			return nil, false
		}
		return st, true
	}
	i4, i8, ni, f := vtype{k: vI4}, vtype{k: vI8}, vtype{k: vI}, vtype{k: vF}
	isInt := func(x vtype) bool { return x.k == vI4 || x.k == vI8 || x.k == vI }
	isNum := func(x vtype) bool { return isInt(x) || x.k == vF }
	isRef := func(x vtype) bool { return x.k == vRef || x.k == vNull }

	// binary numeric operation (III.1.5 table 2); intOnly excludes F.
	binop := func(intOnly bool) ([]vtype, bool) {
		if !need(2) {
			return nil, false
		}
		b, a := pop(), pop()
		var r vtype
		switch {
		case a.k == vI4 && b.k == vI4:
			r = i4
		case (a.k == vI4 || a.k == vI) && (b.k == vI4 || b.k == vI):
			r = ni
		case a.k == vI8 && b.k == vI8:
			r = i8
		case a.k == vF && b.k == vF && !intOnly:
			r = f
		default:
			if intOnly && (a.k == vF || b.k == vF) {
				return fail("operands must be integers, found %s and %s", a, b)
			}
			return fail("operand types %s and %s cannot be combined", a, b)
		}
		return out(r)
	}
	// comparable checks the operands of a comparison or compare-branch.
	comparable := func(allowRefs bool) bool {
		if !need(2) {
			return false
		}
		b, a := pop(), pop()
		switch {
		case (a.k == vI4 || a.k == vI) && (b.k == vI4 || b.k == vI),
			a.k == vI8 && b.k == vI8, a.k == vF && b.k == vF:
			return true
		case allowRefs && isRef(a) && isRef(b):
			return true
		}
		fail("cannot compare %s with %s", a, b)
		return false
	}
	checkArray := func(elemOK func(*Type) bool, what string) (vtype, bool) {
		idx := pop()
		arr := pop()
		if idx.k != vI4 && idx.k != vI {
			_, ok := fail("array index must be int32 or native int, found %s", idx)
			return vtype{}, ok
		}
		if arr.k == vNull {
			return arr, true
		}
		if arr.k != vRef || arr.t.Kind != KArray {
			_, ok := fail("expected an array, found %s", arr)
			return vtype{}, ok
		}
		if elemOK != nil && !elemOK(arr.t.Elem) {
			_, ok := fail("cannot access an element of %s as %s", arr.t, what)
			return vtype{}, ok
		}
		return arr, true
	}

	c := in.Op.Canon()
	switch c {
	case Nop:
		return st, true
	case Ldarg0, Ldarg1, Ldarg2, Ldarg3, LdargS, Ldarg:
		return out(stackType(md.ArgType(int(in.Int))))
	case StargS, Starg:
		if !need(1) {
			return nil, false
		}
		x := pop()
		if t := md.ArgType(int(in.Int)); !v.assignable(x, t) {
			return fail("cannot store %s into argument %d of type %s", x, in.Int, t)
		}
		return st, true
	case Ldloc0, Ldloc1, Ldloc2, Ldloc3, LdlocS, Ldloc:
		return out(stackType(md.Locals[in.Int].Type))
	case Stloc0, Stloc1, Stloc2, Stloc3, StlocS, Stloc:
		if !need(1) {
			return nil, false
		}
		x := pop()
		if l := md.Locals[in.Int]; !v.assignable(x, l.Type) {
			if l.Name != "" {
				return fail("cannot store %s into local %d (%s) of type %s", x, in.Int, l.Name, l.Type)
			}
			return fail("cannot store %s into local %d of type %s", x, in.Int, l.Type)
		}
		return st, true
	case Ldnull:
		return out(vtype{k: vNull})
	case LdcI4M1, LdcI40, LdcI41, LdcI42, LdcI43, LdcI44, LdcI45, LdcI46, LdcI47, LdcI48, LdcI4S, LdcI4:
		return out(i4)
	case LdcI8:
		return out(i8)
	case LdcR4, LdcR8:
		return out(f)
	case Ldstr:
		return out(vtype{k: vRef, t: String})
	case Dup:
		if !need(1) {
			return nil, false
		}
		return out(st[len(st)-1])
	case Pop:
		if !need(1) {
			return nil, false
		}
		pop()
		return st, true
	case Call, Callvirt, Newobj:
		return v.call(in, st, need, pop, out, fail)
	case Ret:
		if md.Ret.Kind == KVoid {
			if len(st) != 0 {
				return fail("the stack must be empty at ret from a void method, but it holds %d value(s)", len(st))
			}
			return st, true
		}
		if len(st) != 1 {
			return fail("the stack must hold exactly the return value at ret, but it holds %d value(s)", len(st))
		}
		if x := pop(); !v.assignable(x, md.Ret) {
			return fail("cannot return %s from a method returning %s", x, md.Ret)
		}
		return st, true
	case Br, BrS, Leave, LeaveS:
		return st, true
	case Brfalse, BrfalseS, Brtrue, BrtrueS:
		if !need(1) {
			return nil, false
		}
		if x := pop(); x.k == vF || x.k == vValue || x.k == vByRef {
			return fail("the condition must be an integer or an object reference, found %s", x)
		}
		return st, true
	case Beq, BeqS, BneUn, BneUnS, BgeUn, BgeUnS, BgtUn, BgtUnS, BleUn, BleUnS, BltUn, BltUnS:
		if !comparable(c == Beq || c == BeqS || c == BneUn || c == BneUnS) {
			return nil, false
		}
		return st, true
	case Bge, BgeS, Bgt, BgtS, Ble, BleS, Blt, BltS:
		if !comparable(false) {
			return nil, false
		}
		return st, true
	case Switch:
		if !need(1) {
			return nil, false
		}
		if x := pop(); x.k != vI4 && x.k != vI {
			return fail("the switch value must be int32, found %s", x)
		}
		return st, true
	case Add, Sub, Mul, Div, Rem:
		return binop(false)
	case And, Or, Xor, DivUn, RemUn, AddOvf, AddOvfUn, SubOvf, SubOvfUn, MulOvf, MulOvfUn:
		return binop(true)
	case Shl, Shr, ShrUn:
		if !need(2) {
			return nil, false
		}
		amt, val := pop(), pop()
		if !isInt(val) || amt.k != vI4 && amt.k != vI {
			return fail("cannot shift %s by %s", val, amt)
		}
		return out(val)
	case Neg:
		if !need(1) {
			return nil, false
		}
		x := pop()
		if !isNum(x) {
			return fail("operand must be a number, found %s", x)
		}
		return out(x)
	case Not:
		if !need(1) {
			return nil, false
		}
		x := pop()
		if !isInt(x) {
			return fail("operand must be an integer, found %s", x)
		}
		return out(x)
	case ConvI1, ConvI2, ConvI4, ConvU1, ConvU2, ConvU4, ConvOvfI1, ConvOvfU1, ConvOvfI2, ConvOvfU2,
		ConvOvfI4, ConvOvfU4, ConvOvfI1Un, ConvOvfI2Un, ConvOvfI4Un, ConvOvfU1Un, ConvOvfU2Un, ConvOvfU4Un,
		ConvI8, ConvU8, ConvOvfI8, ConvOvfU8, ConvOvfI8Un, ConvOvfU8Un,
		ConvI, ConvU, ConvOvfI, ConvOvfU, ConvOvfIUn, ConvOvfUUn,
		ConvR4, ConvR8, ConvRUn:
		if !need(1) {
			return nil, false
		}
		if x := pop(); !isNum(x) {
			return fail("cannot convert %s", x)
		}
		switch c {
		case ConvI8, ConvU8, ConvOvfI8, ConvOvfU8, ConvOvfI8Un, ConvOvfU8Un:
			return out(i8)
		case ConvI, ConvU, ConvOvfI, ConvOvfU, ConvOvfIUn, ConvOvfUUn:
			return out(ni)
		case ConvR4, ConvR8, ConvRUn:
			return out(f)
		}
		return out(i4)
	case Ckfinite:
		if !need(1) {
			return nil, false
		}
		if x := pop(); x.k != vF {
			return fail("operand must be a float, found %s", x)
		}
		return out(f)
	case Ceq, CgtUn:
		if !comparable(true) {
			return nil, false
		}
		return out(i4)
	case Cgt, Clt, CltUn:
		if !comparable(false) {
			return nil, false
		}
		return out(i4)
	case Ldfld, Stfld, Ldsfld, Stsfld, Ldflda, Ldsflda:
		fld := in.Field().Field
		static := c == Ldsfld || c == Stsfld || c == Ldsflda
		if fld.Static != static {
			other := map[Op]string{Ldfld: "ldsfld", Stfld: "stsfld", Ldsfld: "ldfld", Stsfld: "stfld", Ldflda: "ldsflda", Ldsflda: "ldflda"}[c]
			if static {
				return fail("field %s is an instance field; use %s", fld.FullName(), other)
			}
			return fail("field %s is static; use %s", fld.FullName(), other)
		}
		if (c == Stsfld || c == Ldsflda) && fld.Builtin {
			return fail("field %s of the base library is read-only (initonly)", fld.FullName())
		}
		var val vtype
		if c == Stfld || c == Stsfld {
			if !need(1) {
				return nil, false
			}
			val = pop()
			if !v.assignable(val, fld.Type) {
				return fail("cannot store %s into field %s of type %s", val, fld.FullName(), fld.Type)
			}
		}
		if !static {
			if !need(1) {
				return nil, false
			}
			obj := pop()
			if owner := fld.Owner; owner.ValueType {
				switch {
				case obj.k == vByRef && obj.t.Equal(owner.Type()):
				case obj.k == vValue && obj.t.Equal(owner.Type()) && c == Ldfld:
				case c == Ldfld:
					return fail("expected a value of value type %s or a managed pointer to one, found %s", owner.Name, obj)
				default:
					return fail("expected a managed pointer to value type %s, found %s", owner.Name, obj)
				}
			} else if !isRef(obj) || obj.k == vRef && !v.refAssignable(obj.t, owner.Type()) {
				return fail("expected an object of class %s, found %s", owner.Name, obj)
			}
		}
		switch c {
		case Ldfld, Ldsfld:
			return out(stackType(fld.Type))
		case Ldflda, Ldsflda:
			return out(vtype{k: vByRef, t: fld.Type})
		}
		return st, true
	case LdargaS, Ldarga, LdlocaS, Ldloca:
		var t *Type
		if c == LdargaS || c == Ldarga {
			t = md.ArgType(int(in.Int))
		} else {
			t = md.Locals[in.Int].Type
		}
		if t.Kind == KByRef {
			return fail("cannot take the address of a managed pointer (%s)", t)
		}
		return out(vtype{k: vByRef, t: t})
	case LdindI1, LdindU1, LdindI2, LdindU2, LdindI4, LdindU4, LdindI8, LdindI, LdindR4, LdindR8, LdindRef:
		if !need(1) {
			return nil, false
		}
		p := pop()
		if p.k != vByRef || !indCompatible(c, p.t) {
			return fail("expected a managed pointer to %s, found %s", indName(c), p)
		}
		if c == LdindRef {
			return out(stackType(p.t))
		}
		return out(stackType(indType(c)))
	case StindI1, StindI2, StindI4, StindI8, StindI, StindR4, StindR8, StindRef:
		if !need(2) {
			return nil, false
		}
		val, p := pop(), pop()
		if p.k != vByRef || !indCompatible(c, p.t) {
			return fail("expected a managed pointer to %s, found %s", indName(c), p)
		}
		if !v.assignable(val, p.t) {
			return fail("cannot store %s through %s&", val, p.t)
		}
		return st, true
	case Ldobj, Stobj, Initobj, Cpobj:
		tok := in.Type()
		var val vtype
		n := map[Op]int{Ldobj: 1, Stobj: 2, Initobj: 1, Cpobj: 2}[c]
		if !need(n) {
			return nil, false
		}
		if c == Stobj {
			val = pop()
		}
		if c == Cpobj {
			if src := pop(); src.k != vByRef || !v.objCompatible(src.t, tok) {
				return fail("the source must be a managed pointer to %s, found %s", tok, src)
			}
		}
		p := pop()
		if p.k != vByRef || !v.objCompatible(p.t, tok) {
			return fail("expected a managed pointer to %s, found %s", tok, p)
		}
		switch c {
		case Ldobj:
			return out(stackType(tok))
		case Stobj:
			if !v.assignable(val, tok) || !v.assignable(val, p.t) {
				return fail("cannot store %s as %s", val, tok)
			}
		}
		return st, true
	case Sizeof:
		return out(i4)
	case Unbox:
		if !need(1) {
			return nil, false
		}
		if x := pop(); !isRef(x) {
			return fail("operand must be an object reference, found %s", x)
		}
		if in.Type().IsRef() {
			return fail("cannot unbox to %s, which is not a value type", in.Type())
		}
		return out(vtype{k: vByRef, t: in.Type()})
	case Ldelema:
		if !need(2) {
			return nil, false
		}
		et := in.Type()
		if _, ok := checkArray(func(e *Type) bool {
			return sameStorage(e, et) || e.IsRef() && et.IsRef() && v.refAssignable(e, et)
		}, et.String()); !ok {
			return nil, false
		}
		return out(vtype{k: vByRef, t: et})
	case Isinst, Castclass:
		if !need(1) {
			return nil, false
		}
		if x := pop(); !isRef(x) {
			return fail("operand must be an object reference, found %s", x)
		}
		if in.Type().IsRef() {
			return out(vtype{k: vRef, t: in.Type()})
		}
		return out(vtype{k: vRef, t: Object})
	case Box:
		if !need(1) {
			return nil, false
		}
		x := pop()
		if !v.assignable(x, in.Type()) {
			return fail("cannot box %s as %s", x, in.Type())
		}
		if in.Type().IsRef() {
			return out(x)
		}
		return out(vtype{k: vRef, t: Object})
	case UnboxAny:
		if !need(1) {
			return nil, false
		}
		if x := pop(); !isRef(x) {
			return fail("operand must be an object reference, found %s", x)
		}
		return out(stackType(in.Type()))
	case Newarr:
		if !need(1) {
			return nil, false
		}
		if x := pop(); x.k != vI4 && x.k != vI {
			return fail("array size must be int32 or native int, found %s", x)
		}
		return out(vtype{k: vRef, t: ArrayOf(in.Type())})
	case Ldlen:
		if !need(1) {
			return nil, false
		}
		if x := pop(); x.k != vNull && (x.k != vRef || x.t.Kind != KArray) {
			return fail("expected an array, found %s", x)
		}
		return out(ni)
	case LdelemI1, LdelemU1, LdelemI2, LdelemU2, LdelemI4, LdelemU4, LdelemI8, LdelemI, LdelemR4, LdelemR8, LdelemRef, Ldelem:
		if !need(2) {
			return nil, false
		}
		et := elemType(c, in.Type())
		arr, ok := checkArray(func(e *Type) bool {
			if et == nil {
				return e.IsRef()
			}
			return sameStorage(e, et) || e.IsRef() && et.IsRef() && v.refAssignable(e, et)
		}, elemName(c, in.Type()))
		if !ok {
			return nil, false
		}
		if et == nil {
			if arr.k == vRef {
				return out(stackType(arr.t.Elem))
			}
			return out(vtype{k: vRef, t: Object})
		}
		return out(stackType(et))
	case StelemI, StelemI1, StelemI2, StelemI4, StelemI8, StelemR4, StelemR8, StelemRef, Stelem:
		if !need(3) {
			return nil, false
		}
		val := pop()
		et := elemType(c, in.Type())
		if et == nil {
			if !isRef(val) {
				return fail("the value must be an object reference, found %s", val)
			}
		} else if !v.assignable(val, et) && !(et.IsRef() && isRef(val)) {
			return fail("cannot store %s as %s", val, et)
		}
		if _, ok := checkArray(func(e *Type) bool {
			if et == nil || et.IsRef() {
				return e.IsRef()
			}
			return sameStorage(e, et)
		}, elemName(c, in.Type())); !ok {
			return nil, false
		}
		return st, true
	case Throw:
		if !need(1) {
			return nil, false
		}
		if x := pop(); !isRef(x) {
			return fail("can only throw an object reference, found %s", x)
		}
		return st, true
	case Rethrow:
		return st, true
	case Endfinally:
		return st[:0], true
	case Endfilter:
		if !need(1) {
			return nil, false
		}
		if x := pop(); x.k != vI4 {
			return fail("the filter result must be int32, found %s", x)
		}
		if len(st) != 0 {
			return fail("the stack must hold only the filter result at endfilter, but it holds %d more value(s)", len(st))
		}
		return st, true
	}
	return fail("instruction is not supported by the verifier")
}

// indType returns the type an ldind or stind form accesses (nil for the
// .ref forms).
func indType(c Op) *Type {
	switch c {
	case LdindI1, StindI1:
		return Int8
	case LdindU1:
		return UInt8
	case LdindI2, StindI2:
		return Int16
	case LdindU2:
		return UInt16
	case LdindI4, StindI4:
		return Int32
	case LdindU4:
		return UInt32
	case LdindI8, StindI8:
		return Int64
	case LdindI, StindI:
		return NatInt
	case LdindR4, StindR4:
		return Float32
	case LdindR8, StindR8:
		return Float64
	}
	return nil
}

func indName(c Op) string {
	if t := indType(c); t != nil {
		return t.String()
	}
	return "an object reference"
}

// indCompatible reports whether ldind or stind form c may access a
// location of type t: one of the same storage (int32 and uint32, int8,
// uint8 and bool, int16, uint16 and char), or any reference for .ref.
func indCompatible(c Op, t *Type) bool {
	it := indType(c)
	if it == nil {
		return t.IsRef()
	}
	if t.Kind == KBool {
		t = UInt8
	} else if t.Kind == KChar {
		t = UInt16
	}
	return sameStorage(t, it) || t.Kind == it.Kind
}

// objCompatible reports whether a managed pointer to a location of type t
// may be used by ldobj, stobj, cpobj or initobj with type token tok.
func (v *verifier) objCompatible(t, tok *Type) bool {
	if t.IsRef() || tok.IsRef() {
		return t.IsRef() && tok.IsRef() && v.refAssignable(t, tok)
	}
	return sameStorage(t, tok)
}

// elemType returns the element type an ldelem/stelem form accesses (nil
// for the .ref forms: any reference).
func elemType(c Op, tok *Type) *Type {
	switch c {
	case LdelemI1, StelemI1:
		return Int8
	case LdelemU1:
		return UInt8
	case LdelemI2, StelemI2:
		return Int16
	case LdelemU2:
		return UInt16
	case LdelemI4, StelemI4:
		return Int32
	case LdelemU4:
		return UInt32
	case LdelemI8, StelemI8:
		return Int64
	case LdelemI, StelemI:
		return NatInt
	case LdelemR4, StelemR4:
		return Float32
	case LdelemR8, StelemR8:
		return Float64
	case Ldelem, Stelem:
		return tok
	}
	return nil
}

func elemName(c Op, tok *Type) string {
	if t := elemType(c, tok); t != nil {
		return t.String()
	}
	return "an object reference"
}

// call verifies call, callvirt and newobj.
func (v *verifier) call(in *Instr, st []vtype, need func(int) bool, pop func() vtype,
	out func(...vtype) ([]vtype, bool), fail func(string, ...any) ([]vtype, bool)) ([]vtype, bool) {
	callee := in.Method().Method
	c := in.Op.Canon()
	if k := in.Constrained(); k != nil {
		return v.constrainedCall(in, k, need, pop, out, fail)
	}
	switch {
	case c == Newobj && (callee.Name != ".ctor" || callee.Static):
		return fail("%s is not a constructor", callee.FullName())
	case c != Newobj && callee.NewobjCall != nil:
		return fail("%s can only be called with newobj", callee.FullName())
	case c == Callvirt && callee.Static:
		return fail("%s is static; use call", callee.FullName())
	case c == Newobj && callee.Owner.IsAbstract():
		return fail("cannot create an instance of abstract class %s", callee.Owner.Name)
	case c == Call && callee.Abstract:
		return fail("%s is abstract: call it with callvirt", callee.FullName())
	case callee.Name == cctorName && !v.md.Hidden:
		return fail("%s is a static constructor: the runtime runs it, a program cannot call it", callee.FullName())
	case c == Callvirt && callee.HasThis() && callee.ThisType().Kind == KByRef:
		return fail("%s is a method of value type %s: call it with call on a managed pointer", callee.FullName(), callee.Owner.Type())
	case c != Newobj && callee.Name == ".ctor" && v.md.Name != ".ctor" && !callee.Owner.ValueType:
		return fail("a constructor can only be called with newobj, or with call from another constructor")
	}
	n := len(callee.Params)
	if callee.HasThis() && c != Newobj {
		n++
	}
	if !need(n) {
		return nil, false
	}
	for k := len(callee.Params) - 1; k >= 0; k-- {
		x := pop()
		if t := callee.Params[k].Type; !v.assignable(x, t) {
			return fail("argument %d of %s must be %s, found %s", k+1, callee.FullName(), t, x)
		}
	}
	if callee.HasThis() && c != Newobj {
		x := pop()
		owner := callee.Owner.Type()
		if tt := callee.ThisType(); tt.Kind == KByRef {
			if x.k != vByRef || !x.t.Equal(tt.Elem) {
				return fail("%s needs a managed pointer to %s as this, found %s", callee.FullName(), tt.Elem, x)
			}
		} else if x.k != vNull && (x.k != vRef || !v.refAssignable(x.t, owner)) {
			if callee.Owner.Interface {
				return fail("%s needs an object implementing interface %s as this, found %s", callee.FullName(), callee.Owner.Name, x)
			}
			return fail("%s needs an object of class %s as this, found %s", callee.FullName(), callee.Owner.Name, x)
		}
	}
	if c == Newobj {
		return out(v.one(stackType(callee.Owner.Type()))...)
	}
	if callee.Ret.Kind != KVoid {
		return out(v.one(stackType(callee.Ret))...)
	}
	return out()
}

// constrainedCall verifies `constrained. T callvirt M`: this is a
// managed pointer to a T; M is a method of a reference type T, one a
// value type T implements (Direct), or one of System.Object or
// System.ValueType, called on a box of the value.
func (v *verifier) constrainedCall(in *Instr, k *Constrained, need func(int) bool, pop func() vtype,
	out func(...vtype) ([]vtype, bool), fail func(string, ...any) ([]vtype, bool)) ([]vtype, bool) {
	callee := in.Method().Method
	if in.Op.Canon() != Callvirt {
		return fail("constrained. must prefix callvirt")
	}
	if callee.Static || callee.Name == ".ctor" {
		return fail("constrained. %s: the method must be an instance method other than a constructor", callee.FullName())
	}
	if !need(len(callee.Params) + 1) {
		return nil, false
	}
	for i := len(callee.Params) - 1; i >= 0; i-- {
		x := pop()
		if t := callee.Params[i].Type; !v.assignable(x, t) {
			return fail("argument %d of %s must be %s, found %s", i+1, callee.FullName(), t, x)
		}
	}
	if x := pop(); x.k != vByRef || !x.t.Equal(k.Type) {
		return fail("constrained. %s needs a managed pointer to %s as this, found %s", k.Type, k.Type, x)
	}
	owner := callee.Owner
	switch {
	case k.Type.IsRef():
		if !v.refAssignable(k.Type, owner.Type()) {
			return fail("constrained. %s: %s is not a method of %s", k.Type, callee.FullName(), k.Type)
		}
	case k.Direct != nil:
	case owner.Name != ObjectClass && owner.Name != ValueTypeClass:
		return fail("constrained. %s: %s is not a method of %s", k.Type, callee.FullName(), k.Type)
	}
	if callee.Ret.Kind != KVoid {
		return out(v.one(stackType(callee.Ret))...)
	}
	return out()
}

// grow returns buf resized to n zero elements, reusing its array when
// it is large enough.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}
