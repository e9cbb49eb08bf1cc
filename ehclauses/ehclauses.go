// Package ehclauses builds a compiled method's native exception clause
// table, the way the CLR expects it from its JIT: native offsets, one
// clause per IL clause plus duplicate clauses for handlers nested inside
// protected regions, sorted inner before outer and then by address; and
// it validates a table against those rules.
package ehclauses

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"miniil/amd64"
	"miniil/funclet"
	"miniil/il"
	"miniil/ir"
)

// Clause is one native EH clause. Ranges are half-open native offsets
// into the method's code.
type Clause struct {
	Kind                     il.EHKind
	TryStart, TryEnd         int
	HandlerStart, HandlerEnd int
	FilterStart              int      // Filter: start of the filter funclet
	CatchType                *il.Type // Catch
	Duplicate                bool     // a copy covering a nested handler funclet
	ILClause                 int      // index of the IL clause (Method.EH)
	// OrigTryStart is the start of the original clause's try range (for a
	// duplicate, not its own): the code whose frame a catch resumes in.
	OrigTryStart int
}

// Covers reports whether native offset pc is in the clause's try range.
func (c *Clause) Covers(pc int) bool { return c.TryStart <= pc && pc < c.TryEnd }

func (c *Clause) String() string {
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

// Build returns the sorted native clause table of a compiled method. f is
// the method's IR after layout (as Generate left it), code its machine
// code.
func Build(m *il.Method, f *ir.Func, code *amd64.Code) ([]Clause, error) {
	lay := code.Layout
	funcletOf := func(r *ir.Region) (amd64.FuncletCode, bool) {
		for k, fn := range lay.Funcs {
			if fn.Region == r {
				return code.Funclets[k], true
			}
		}
		return amd64.FuncletCode{}, false
	}
	// Native range of each try region: its blocks are contiguous.
	tryRange := map[*ir.Region][2]int{}
	for k, fn := range lay.Funcs {
		end := code.Funclets[k].End
		for i, b := range fn.Blocks {
			blockEnd := end
			if i+1 < len(fn.Blocks) {
				blockEnd = code.BlockOffsets[fn.Blocks[i+1].ID]
			}
			start := code.BlockOffsets[b.ID]
			for r := b.Region; r != nil && r != fn.Region; r = r.Parent {
				if r.Kind != ir.RegionTry {
					continue
				}
				rg, ok := tryRange[r]
				if !ok {
					rg = [2]int{start, blockEnd}
				}
				rg[0], rg[1] = min(rg[0], start), max(rg[1], blockEnd)
				tryRange[r] = rg
			}
		}
	}
	var out []Clause
	for ci, c := range m.EH {
		tryReg, handler, filter := regionsOf(f, ci)
		if tryReg == nil || handler == nil {
			return nil, fmt.Errorf("%s: clause %d has no regions", m.FullName(), ci)
		}
		rg, ok := tryRange[tryReg]
		if !ok || rg[0] == rg[1] {
			// The try body is unreachable or has no code (a leave that
			// falls through to its step): nothing in it can throw.
			continue
		}
		hc, ok := funcletOf(handler)
		if !ok {
			return nil, fmt.Errorf("%s: clause %d has no handler funclet", m.FullName(), ci)
		}
		cl := Clause{Kind: c.Kind, TryStart: rg[0], TryEnd: rg[1], HandlerStart: hc.Start, HandlerEnd: hc.End,
			CatchType: c.CatchType, ILClause: ci, OrigTryStart: rg[0]}
		if filter != nil {
			fc, _ := funcletOf(filter)
			cl.FilterStart = fc.Start
		}
		out = append(out, cl)
		// Duplicates for every handler funclet nested in the try region,
		// but not across a filter: exceptions never escape filters.
		for k, fn := range lay.Funcs {
			if k == 0 || !nestedNoFilter(tryReg, fn.Region) {
				continue
			}
			d := cl
			d.TryStart, d.TryEnd = code.Funclets[k].Start, code.Funclets[k].End
			d.Duplicate = true
			out = append(out, d)
		}
	}
	Sort(out)
	return out, nil
}

// nestedNoFilter reports whether region inner lies inside outer with no
// filter region in between (inner itself may be a filter only if it is
// not: a filter funclet gets no duplicates).
func nestedNoFilter(outer, inner *ir.Region) bool {
	if inner.Kind == ir.RegionFilter {
		return false
	}
	for r := inner.Parent; r != nil; r = r.Parent {
		if r == outer {
			return true
		}
		if r.Kind == ir.RegionFilter {
			return false
		}
	}
	return false
}

// regionsOf returns the try, handler and filter regions of IL clause ci.
// Clauses of one .try share its try region, which carries the index of
// the first of them.
func regionsOf(f *ir.Func, ci int) (try, handler, filter *ir.Region) {
	m := f.Method
	c := m.EH[ci]
	for _, r := range f.Regions {
		switch {
		case r.Kind == ir.RegionTry:
			if first := m.EH[r.Clause]; first.TryStart == c.TryStart && first.TryEnd == c.TryEnd {
				try = r
			}
		case r.Clause != ci:
		case r.Kind == ir.RegionFilter:
			filter = r
		default:
			handler = r
		}
	}
	return try, handler, filter
}

// Sort orders clauses as the CLR requires: a clause whose try range lies
// inside another's comes first, disjoint ranges by address, equal ranges
// in IL order (inner IL clauses first).
func Sort(cs []Clause) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.TryEnd != b.TryEnd {
			return a.TryEnd < b.TryEnd
		}
		if a.TryStart != b.TryStart {
			return a.TryStart > b.TryStart
		}
		return a.ILClause < b.ILClause
	})
}

// Validate checks a method's clause table against the CLR's rules: the
// main body first and contiguous; handlers (funclets) disjoint from each
// other and from the main body; a filter immediately before its handler;
// every try range inside one funclet; try ranges nested or disjoint;
// sorted inner before outer, then by address; and exactly the duplicate
// clauses that nested handlers need.
func Validate(m *il.Method, f *ir.Func, code *amd64.Code, cs []Clause) error {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	fns := code.Funclets
	if len(fns) == 0 || fns[0].Kind != funclet.Main || fns[0].Start != 0 {
		bad("the main body is not first at offset 0")
	}
	for k := 1; k < len(fns); k++ {
		if fns[k].Start != fns[k-1].End || fns[k].Start >= fns[k].End {
			bad("funclet %d [%04x, %04x) is not contiguous with the previous one or is empty", k, fns[k].Start, fns[k].End)
		}
	}
	funcletAt := func(start, end int) int {
		for k, fn := range fns {
			if fn.Start <= start && end <= fn.End {
				return k
			}
		}
		return -1
	}
	for i, c := range cs {
		if c.TryStart >= c.TryEnd {
			bad("clause %d has an empty try range", i)
		}
		tk := funcletAt(c.TryStart, c.TryEnd)
		if tk < 0 {
			bad("clause %d: try [%04x, %04x) spans more than one funclet", i, c.TryStart, c.TryEnd)
		}
		hk := -1
		for k, fn := range fns {
			if k > 0 && fn.Start == c.HandlerStart && fn.End == c.HandlerEnd {
				hk = k
			}
		}
		if hk < 0 {
			bad("clause %d: handler [%04x, %04x) is not exactly one funclet", i, c.HandlerStart, c.HandlerEnd)
		}
		if c.Kind == il.EHFilter && (hk < 1 || fns[hk-1].Kind != funclet.Filter || fns[hk-1].Start != c.FilterStart) {
			bad("clause %d: the filter funclet does not immediately precede its handler", i)
		}
		if tk >= 0 && tk == hk {
			bad("clause %d: the try range is inside its own handler", i)
		}
		for j := i + 1; j < len(cs); j++ {
			d := cs[j]
			nested := c.TryStart >= d.TryStart && c.TryEnd <= d.TryEnd || d.TryStart >= c.TryStart && d.TryEnd <= c.TryEnd
			disjoint := c.TryEnd <= d.TryStart || d.TryEnd <= c.TryStart
			switch {
			case !nested && !disjoint:
				bad("clauses %d and %d have overlapping try ranges that do not nest", i, j)
			case nested && d.TryStart >= c.TryStart && d.TryEnd <= c.TryEnd && (d.TryStart != c.TryStart || d.TryEnd != c.TryEnd):
				bad("clause %d comes before clause %d, which it contains (inner clauses must come first)", i, j)
			case disjoint && d.TryStart < c.TryStart:
				bad("clauses %d and %d are disjoint but not in address order", i, j)
			}
		}
	}
	// Exactly the duplicates nested handlers need.
	want := map[string]bool{}
	for ci := range m.EH {
		tryReg, _, _ := regionsOf(f, ci)
		if tryReg == nil {
			continue
		}
		for k, fn := range code.Layout.Funcs {
			if k > 0 && nestedNoFilter(tryReg, fn.Region) {
				want[fmt.Sprintf("%d@%04x", ci, fns[k].Start)] = true
			}
		}
	}
	have := map[string]bool{}
	hasOriginal := map[int]bool{}
	for _, c := range cs {
		if !c.Duplicate {
			hasOriginal[c.ILClause] = true
			continue
		}
		key := fmt.Sprintf("%d@%04x", c.ILClause, c.TryStart)
		if !want[key] {
			bad("unexpected duplicate clause for IL clause %d at %04x", c.ILClause, c.TryStart)
		}
		have[key] = true
	}
	for key := range want {
		var ci int
		fmt.Sscanf(key, "%d@", &ci)
		if hasOriginal[ci] && !have[key] {
			bad("missing duplicate clause %s (a handler nested in IL clause %d's try)", key, ci)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: invalid EH clause table:\n  %s", m.FullName(), strings.Join(errs, "\n  "))
	}
	return nil
}

// Fprint prints a clause table.
func Fprint(w io.Writer, m *il.Method, cs []Clause) {
	fmt.Fprintf(w, "EH clauses of %s (native offsets, in table order):\n", m.Signature())
	if len(cs) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for i, c := range cs {
		fmt.Fprintf(w, "  %2d: %s\n", i, c.String())
	}
}
