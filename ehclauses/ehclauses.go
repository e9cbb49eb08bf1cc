// Package ehclauses builds a compiled method's native exception clause
// table and validates it against the CLR's rules. It is internal to
// miniil: no compatibility promise.
//
// The CLR expects from its JIT one clause per IL clause, with native
// offsets, sorted inner before outer and then by address, plus a
// duplicate clause for every pair of a handler funclet and a protected
// region enclosing that handler: a funclet is a frame of its own, and the
// duplicates are how an exception escaping it finds the handlers that
// enclose it. For a handler nested d regions deep that is d duplicates,
// O(d²) clauses for a deep nest. This package reports the same
// information in linear space: the table holds the IL clauses only, each
// clause links to the next one an exception it does not handle is offered
// to (Next), and each funclet to the first clause enclosing it
// (abi.Funclet.Enclosing), which is where the CLR's duplicates for that funclet
// begin. Walking those links from the innermost clause covering a native
// offset visits exactly the clauses, in the same order, that the CLR scan
// of the table with duplicates would (Table.Expand builds that table, and
// the tests hold the two against each other).
package ehclauses

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"miniil/abi"
	"miniil/amd64"
	"miniil/il"
	"miniil/ir"
)

// String describes a clause for dumps.
func String(c *abi.EHClause) string {
	kind := strings.ToUpper(c.Kind.String())
	if c.Kind == il.EHCatch {
		kind += " " + c.CatchType.CLRName()
	}
	s := fmt.Sprintf("%-40s try [%04x, %04x) handler [%04x, %04x)", kind, c.TryStart, c.TryEnd, c.HandlerStart, c.HandlerEnd)
	if c.Kind == il.EHFilter {
		s += fmt.Sprintf(" filter %04x", c.FilterStart)
	}
	if c.Duplicate {
		s += " DUPLICATE"
	}
	return s + fmt.Sprintf(" (IL clause %d)", c.ILClause)
}

// Table is a method's native clause table: the clauses and the funclets
// (with their Enclosing links) of a compiled method.
type Table struct {
	Clauses  []abi.EHClause
	Funclets []abi.Funclet
}

// Of returns the table of a compiled method.
func Of(m *abi.Method) *Table { return &Table{Clauses: m.Clauses, Funclets: m.Funclets} }

// Chain calls yield with the table index of each clause that an exception
// raised at native offset off is offered to, in order, until yield
// returns false: the clauses whose try covers off, inner first, then the
// chain of the funclet that holds off.
func (t *Table) Chain(off int, yield func(int) bool) {
	first := -1
	for i := range t.Clauses {
		if t.Clauses[i].Covers(off) {
			first = i
			break
		}
	}
	if first < 0 {
		if k := abi.FuncletAt(t.Funclets, off); k >= 0 {
			first = t.Funclets[k].Enclosing
		}
	}
	for i := first; i >= 0; i = t.Clauses[i].Next {
		if !yield(i) {
			return
		}
	}
}

// Build builds the native clause table of a compiled method into code:
// code.Clauses, and each funclet's Enclosing. f is the method's IR after
// layout (as Generate left it). It takes time linear in the method's
// blocks, regions and clauses (plus sorting the clauses).
func Build(m *il.Method, f *ir.Func, code *amd64.Code) error {
	lay := code.Layout
	if len(m.EH) == 0 && len(lay.Funcs) == 1 {
		// No clauses, no handler: the main body encloses nothing (most
		// methods; the maps below cost more than the rest of the phase).
		code.Funclets[0].Enclosing = -1
		code.Clauses = nil
		return nil
	}
	// Native range of each try region: the blocks whose innermost region
	// it is, then the ranges of the trys nested in it, folded in from the
	// innermost regions outward (f.Regions lists outer regions first). A
	// try's blocks are contiguous and lie in one funclet; handlers nested
	// in it are funclets of their own and do not count.
	type span struct{ start, end int }
	rng := make(map[*ir.Region]span, len(f.Regions))
	widen := func(r *ir.Region, s span) {
		if old, ok := rng[r]; ok {
			s = span{min(old.start, s.start), max(old.end, s.end)}
		}
		rng[r] = s
	}
	for k, fn := range lay.Funcs {
		end := code.Funclets[k].End
		for i, b := range fn.Blocks {
			blockEnd := end
			if i+1 < len(fn.Blocks) {
				blockEnd = code.BlockOffsets[fn.Blocks[i+1].ID]
			}
			if r := b.Region; r != nil && r.Kind == ir.RegionTry {
				widen(r, span{code.BlockOffsets[b.ID], blockEnd})
			}
		}
	}
	for i := len(f.Regions) - 1; i >= 0; i-- {
		r := f.Regions[i]
		if s, ok := rng[r]; ok && r.Kind == ir.RegionTry && r.Parent != nil && r.Parent.Kind == ir.RegionTry {
			widen(r.Parent, s)
		}
	}

	// The regions of each IL clause: clauses of one .try share its try
	// region, which carries the index of the first of them.
	tryOf := make([]*ir.Region, len(m.EH))
	handlerOf := make([]*ir.Region, len(m.EH))
	filterOf := make([]*ir.Region, len(m.EH))
	type ilRange struct{ start, end int }
	tryByRange := map[ilRange]*ir.Region{}
	for _, r := range f.Regions {
		switch {
		case r.Kind == ir.RegionTry:
			c := m.EH[r.Clause]
			tryByRange[ilRange{c.TryStart, c.TryEnd}] = r
		case r.Kind == ir.RegionFilter:
			filterOf[r.Clause] = r
		default:
			handlerOf[r.Clause] = r
		}
	}
	funcletOf := make(map[*ir.Region]int, len(lay.Funcs))
	for k, fn := range lay.Funcs {
		if k > 0 {
			funcletOf[fn.Region] = k
		}
	}
	t := &Table{Funclets: code.Funclets}
	for ci, c := range m.EH {
		tryOf[ci] = tryByRange[ilRange{c.TryStart, c.TryEnd}]
		if tryOf[ci] == nil || handlerOf[ci] == nil {
			return fmt.Errorf("%s: clause %d has no regions", m.FullName(), ci)
		}
		s, ok := rng[tryOf[ci]]
		if !ok || s.start == s.end {
			// The try body is unreachable or has no code (a leave that
			// falls through to its step): nothing in it can throw.
			continue
		}
		hk, ok := funcletOf[handlerOf[ci]]
		if !ok {
			return fmt.Errorf("%s: clause %d has no handler funclet", m.FullName(), ci)
		}
		hc := code.Funclets[hk]
		cl := abi.EHClause{Kind: c.Kind, TryStart: s.start, TryEnd: s.end, HandlerStart: hc.Start, HandlerEnd: hc.End,
			CatchType: c.CatchType, ILClause: ci, Next: -1}
		if filterOf[ci] != nil {
			cl.FilterStart = code.Funclets[funcletOf[filterOf[ci]]].Start
		}
		t.Clauses = append(t.Clauses, cl)
	}
	Sort(t.Clauses)
	index := make([]int, len(m.EH)) // IL clause -> table index, -1: not emitted
	for i := range index {
		index[i] = -1
	}
	for i := range t.Clauses {
		index[t.Clauses[i].ILClause] = i
		t.Clauses[i].TryFunclet = abi.FuncletAt(t.Funclets, t.Clauses[i].TryStart)
	}

	// The chains. first(T) is the first emitted clause of try T, or of the
	// trys enclosing it; up(R) the innermost try enclosing region R,
	// through handlers but not through a filter.
	clausesOf := map[*ir.Region][]int{} // a try's emitted clauses, IL order
	for ci := range m.EH {
		if index[ci] >= 0 {
			clausesOf[tryOf[ci]] = append(clausesOf[tryOf[ci]], index[ci])
		}
	}
	up := map[*ir.Region]*ir.Region{}
	first := map[*ir.Region]int{}
	for _, r := range f.Regions { // parents before children
		var u *ir.Region
		if p := r.Parent; p != nil && p.Kind != ir.RegionFilter {
			if p.Kind == ir.RegionTry {
				u = p
			} else {
				u = up[p]
			}
		}
		up[r] = u
		if r.Kind == ir.RegionTry {
			if cs := clausesOf[r]; len(cs) > 0 {
				first[r] = cs[0]
			} else {
				first[r] = firstOf(first, u)
			}
		}
	}
	for r, cs := range clausesOf {
		for j, i := range cs {
			if j+1 < len(cs) {
				t.Clauses[i].Next = cs[j+1]
			} else {
				t.Clauses[i].Next = firstOf(first, up[r])
			}
		}
	}
	for k, fn := range lay.Funcs {
		t.Funclets[k].Enclosing = -1
		if k > 0 && fn.Region.Kind != ir.RegionFilter {
			t.Funclets[k].Enclosing = firstOf(first, up[fn.Region])
		}
	}
	code.Clauses = t.Clauses
	return nil
}

// firstOf returns first[r], or -1 for no region.
func firstOf(first map[*ir.Region]int, r *ir.Region) int {
	if r == nil {
		return -1
	}
	return first[r]
}

// less is the table order: a clause whose try range lies inside
// another's comes first, disjoint ranges by address, equal ranges in IL
// order (inner IL clauses first).
func less(a, b *abi.EHClause) int {
	return cmp.Or(cmp.Compare(a.TryEnd, b.TryEnd), cmp.Compare(b.TryStart, a.TryStart), cmp.Compare(a.ILClause, b.ILClause))
}

// Sort orders clauses as the CLR requires: a clause whose try range lies
// inside another's comes first, disjoint ranges by address, equal ranges
// in IL order (inner IL clauses first).
func Sort(cs []abi.EHClause) {
	slices.SortStableFunc(cs, func(a, b abi.EHClause) int { return less(&a, &b) })
}

// Expand returns the table in the form the CLR expects from its JIT:
// every clause, plus for each funclet nested in protected regions a
// duplicate of each clause of its chain with the funclet's range as try
// range, sorted. It has O(depth²) clauses for handlers nested depth
// regions deep; the runtime uses the compact form.
func (t *Table) Expand() []abi.EHClause {
	out := append([]abi.EHClause(nil), t.Clauses...)
	for k, fn := range t.Funclets {
		for i := fn.Enclosing; i >= 0; i = t.Clauses[i].Next {
			d := t.Clauses[i]
			d.TryStart, d.TryEnd = t.Funclets[k].Start, t.Funclets[k].End
			d.Duplicate, d.Next = true, -1
			out = append(out, d)
		}
	}
	Sort(out)
	return out
}

// Validate checks a method's clause table against the CLR's rules: the
// main body first and contiguous; handlers (funclets) disjoint from each
// other and from the main body; a filter immediately before its handler;
// every try range inside one funclet; try ranges nested or disjoint;
// sorted inner before outer, then by address; and chains that offer an
// exception to exactly the clauses the IL's nesting puts around it (what
// the CLR's duplicate clauses would say), computed from the IL clauses'
// ranges, independently of the IR regions Build used. It takes
// O(n log n) time in the clauses and funclets.
func Validate(m *il.Method, f *ir.Func, code *amd64.Code, t *Table) error {
	if t == nil {
		t = Of(&code.Method)
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	fns := code.Funclets
	if len(fns) == 0 || fns[0].Kind != abi.Main || fns[0].Start != 0 {
		bad("the main body is not first at offset 0")
	}
	handlerAt := map[int]int{}
	for k := 1; k < len(fns); k++ {
		if fns[k].Start != fns[k-1].End || fns[k].Start >= fns[k].End {
			bad("funclet %d [%04x, %04x) is not contiguous with the previous one or is empty", k, fns[k].Start, fns[k].End)
		}
		handlerAt[fns[k].Start] = k
	}
	if len(t.Funclets) != len(fns) {
		bad("%d funclets in the table, %d in the code", len(t.Funclets), len(fns))
	}
	cs := t.Clauses
	inRange := func(i int) bool { return i >= -1 && i < len(cs) }
	for i := range cs {
		c := &cs[i]
		if c.Duplicate {
			bad("clause %d is a duplicate: the compact table has none", i)
		}
		if c.TryStart >= c.TryEnd {
			bad("clause %d has an empty try range", i)
		}
		tk := abi.FuncletAt(t.Funclets, c.TryStart)
		if tk < 0 || abi.FuncletAt(t.Funclets, c.TryEnd-1) != tk {
			bad("clause %d: try [%04x, %04x) spans more than one funclet", i, c.TryStart, c.TryEnd)
		} else if c.TryFunclet != tk {
			bad("clause %d: its try lies in funclet %d, not %d", i, tk, c.TryFunclet)
		}
		hk, ok := handlerAt[c.HandlerStart]
		if !ok || fns[hk].End != c.HandlerEnd {
			bad("clause %d: handler [%04x, %04x) is not exactly one funclet", i, c.HandlerStart, c.HandlerEnd)
			hk = -1
		}
		if c.Kind == il.EHFilter && (hk < 1 || fns[hk-1].Kind != abi.FilterFunclet || fns[hk-1].Start != c.FilterStart) {
			bad("clause %d: the filter funclet does not immediately precede its handler", i)
		}
		if tk >= 0 && tk == hk {
			bad("clause %d: the try range is inside its own handler", i)
		}
		if i > 0 && less(&cs[i-1], c) >= 0 {
			bad("clauses %d and %d are out of order (inner before outer, then by address)", i-1, i)
		}
		if !inRange(c.Next) {
			bad("clause %d: next clause %d does not exist", i, c.Next)
		}
	}
	// Try ranges nested or disjoint: sweep them by start, outer first.
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(cs[a].TryStart, cs[b].TryStart), cmp.Compare(cs[b].TryEnd, cs[a].TryEnd))
	})
	var open []int
	for _, i := range order {
		for len(open) > 0 && cs[open[len(open)-1]].TryEnd <= cs[i].TryStart {
			open = open[:len(open)-1]
		}
		if n := len(open); n > 0 && cs[open[n-1]].TryEnd < cs[i].TryEnd {
			bad("clauses %d and %d have overlapping try ranges that do not nest", open[n-1], i)
		}
		open = append(open, i)
	}
	for k, fn := range t.Funclets {
		if !inRange(fn.Enclosing) {
			bad("funclet %d: enclosing clause %d does not exist", k, fn.Enclosing)
		}
	}
	if len(errs) == 0 {
		checkChains(m, fns, t, bad)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: invalid EH clause table:\n  %s", m.FullName(), strings.Join(errs, "\n  "))
	}
	return nil
}

// ilNode is a try, handler or filter block of the IL, as a range of
// instruction indexes.
type ilNode struct {
	start, end int
	kind       ir.RegionKind // RegionTry, RegionFilter, or a handler kind
	clauses    []int         // IL clauses (several for a shared try)
	parent     *ilNode
	up         *ilNode // innermost try enclosing it, not through a filter
	upDone     bool
}

// checkChains checks every Next and Enclosing link against the nesting of
// the IL clauses' ranges: an exception in a try's range, or in a handler
// nested in it, is offered to the try's clauses after those of the trys
// nested inside it; a filter block stops the chain.
func checkChains(m *il.Method, fns []abi.Funclet, t *Table, bad func(string, ...any)) {
	index := make([]int, len(m.EH))
	for i := range index {
		index[i] = -1
	}
	for i, c := range t.Clauses {
		if c.ILClause < 0 || c.ILClause >= len(m.EH) || index[c.ILClause] >= 0 {
			bad("clause %d has a bad or repeated IL clause index %d", i, c.ILClause)
			return
		}
		index[c.ILClause] = i
	}
	// The IL blocks, one node per distinct try range.
	tries := map[[2]int]*ilNode{}
	handler := make([]*ilNode, len(m.EH))
	var nodes []*ilNode
	for ci, c := range m.EH {
		key := [2]int{c.TryStart, c.TryEnd}
		n := tries[key]
		if n == nil {
			n = &ilNode{start: c.TryStart, end: c.TryEnd, kind: ir.RegionTry}
			tries[key] = n
			nodes = append(nodes, n)
		}
		n.clauses = append(n.clauses, ci)
		handler[ci] = &ilNode{start: c.HandlerStart, end: c.HandlerEnd, kind: ir.RegionCatch, clauses: []int{ci}}
		nodes = append(nodes, handler[ci])
		if c.Kind == il.EHFilter {
			nodes = append(nodes, &ilNode{start: c.FilterStart, end: c.HandlerStart, kind: ir.RegionFilter, clauses: []int{ci}})
		}
	}
	// Parents: sweep by start, outer (longer) first; a handler or filter
	// block before a try of the same range, which it then contains.
	slices.SortStableFunc(nodes, func(a, b *ilNode) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end), cmp.Compare(b2i(a.kind == ir.RegionTry), b2i(b.kind == ir.RegionTry)))
	})
	var open []*ilNode
	for _, n := range nodes {
		for len(open) > 0 && open[len(open)-1].end <= n.start {
			open = open[:len(open)-1]
		}
		if len(open) > 0 {
			n.parent = open[len(open)-1]
		}
		open = append(open, n)
	}
	var up func(n *ilNode) *ilNode
	up = func(n *ilNode) *ilNode {
		if !n.upDone {
			n.upDone = true
			switch p := n.parent; {
			case p == nil || p.kind == ir.RegionFilter:
			case p.kind == ir.RegionTry:
				n.up = p
			default:
				n.up = up(p)
			}
		}
		return n.up
	}
	// first emitted clause of a try node or the trys around it
	firstOf := func(n *ilNode) int {
		for ; n != nil; n = up(n) {
			for _, ci := range n.clauses {
				if index[ci] >= 0 {
					return index[ci]
				}
			}
		}
		return -1
	}
	for _, n := range tries {
		var emitted []int
		for _, ci := range n.clauses {
			if index[ci] >= 0 {
				emitted = append(emitted, index[ci])
			}
		}
		for j, i := range emitted {
			want := -1
			if j+1 < len(emitted) {
				want = emitted[j+1]
			} else {
				want = firstOf(up(n))
			}
			if got := t.Clauses[i].Next; got != want {
				bad("clause %d (IL clause %d): next clause is %s, the IL's nesting says %s", i, t.Clauses[i].ILClause, clauseName(t, got), clauseName(t, want))
			}
		}
	}
	for k, fn := range fns {
		want := -1
		if k > 0 && fn.Kind != abi.FilterFunclet {
			want = firstOf(up(handler[fn.Clause]))
		}
		if got := t.Funclets[k].Enclosing; got != want {
			bad("funclet %d (%s of IL clause %d): enclosing clause is %s, the IL's nesting says %s", k, fn.Kind, fn.Clause, clauseName(t, got), clauseName(t, want))
		}
	}
}

func clauseName(t *Table, i int) string {
	if i < 0 {
		return "none"
	}
	return fmt.Sprintf("%d (IL clause %d)", i, t.Clauses[i].ILClause)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// maxListedDuplicates bounds the duplicates Fprint lists per funclet.
const maxListedDuplicates = 16

// Fprint prints a clause table: each clause with the one an exception it
// does not handle goes to next, then, per nested funclet, the clauses
// enclosing it (the CLR's duplicate clauses for it).
func Fprint(w io.Writer, m *il.Method, t *Table) {
	fmt.Fprintf(w, "EH clauses of %s (native offsets, in table order):\n", m.Signature())
	if len(t.Clauses) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for i, c := range t.Clauses {
		next := "-"
		if c.Next >= 0 {
			next = fmt.Sprint(c.Next)
		}
		fmt.Fprintf(w, "  %2d: %s next %s\n", i, String(&c), next)
	}
	for k, fc := range t.Funclets {
		e := fc.Enclosing
		if e < 0 {
			continue
		}
		fmt.Fprintf(w, "  funclet #%d [%04x, %04x) (%s of IL clause %d) is covered by clauses", k, fc.Start, fc.End, fc.Kind, fc.Clause)
		n := 0
		for i := e; i >= 0; i = t.Clauses[i].Next {
			if n == maxListedDuplicates {
				fmt.Fprint(w, " ...")
				break
			}
			fmt.Fprintf(w, " %d", i)
			n++
		}
		fmt.Fprintln(w, " (the CLR's DUPLICATE clauses)")
	}
}
