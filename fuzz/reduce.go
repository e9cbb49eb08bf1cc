package fuzz

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// ErrNoMismatch is returned by Reduce for a program whose engines agree.
var ErrNoMismatch = errors.New("the program shows no mismatch")

// signature describes a mismatch: for every pair of engines, which of
// stdout, exit code, unhandled exception and run failure differ, and
// each engine's failure. Reduction keeps it, so that a program does not
// drift from one engine bug to another.
func signature(outs []Outcome) string {
	var b strings.Builder
	for i := range outs {
		fmt.Fprintf(&b, "%s:%s ", outs[i].Engine, errSig(outs[i].Err))
		for j := i + 1; j < len(outs); j++ {
			x, y := &outs[i], &outs[j]
			fmt.Fprintf(&b, "%s/%s=%v%v%v%v ", x.Engine, y.Engine, x.Stdout != y.Stdout, x.Exit != y.Exit,
				x.Unhandled != y.Unhandled, errSig(x.Err) != errSig(y.Err))
		}
	}
	return b.String()
}

// errSig is the part of a run failure that must persist while reducing:
// the message of an error, only the kind of a crash or timeout.
func errSig(err string) string {
	switch k := errKind(err); k {
	case "crash", "timeout":
		return k
	}
	return err
}

// Reducer shrinks a mismatching program.
type Reducer struct {
	Runner *Runner
	Log    io.Writer // progress (nil: none)
	tests  int
	want   string
}

func (r *Reducer) logf(format string, args ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, format, args...)
	}
}

// interesting reports whether src loads and shows the same mismatch.
func (r *Reducer) interesting(src string) bool {
	r.tests++
	outs, err := r.Runner.Run(src)
	if err != nil {
		return false
	}
	if bad, _ := Mismatch(outs); !bad {
		return false
	}
	return signature(outs) == r.want
}

// Reduce shrinks src while its mismatch persists and it still loads. A
// program that carries the generator's header (and still matches it) is
// first reduced on its AST (removing statements, regions, handlers and
// calls, flattening regions and simplifying expressions and constants,
// then re-lowering); then lines are deleted (delta debugging).
func (r *Reducer) Reduce(src string) (string, error) {
	outs, err := r.Runner.Run(src)
	if err != nil {
		return "", err
	}
	if bad, _ := Mismatch(outs); !bad {
		return "", ErrNoMismatch
	}
	r.want = signature(outs)
	// A program that does not hang needs no long time limit while reducing.
	saved := r.Runner.Timeout
	if !strings.Contains(r.want, "/timeout") {
		short := 3 * time.Second
		if r.Runner.timeout() > short {
			r.Runner.Timeout = short
		}
	}
	defer func() { r.Runner.Timeout = saved }()
	if seed, o, ok := ParseHeader(src); ok {
		if p := Generate(seed, o); p.IL() == src {
			p = r.ReduceAST(p)
			src = p.IL()
			r.logf("AST reduction: %d lines after %d tests\n", countLines(src), r.tests)
		}
	}
	src = r.ReduceLines(src)
	r.logf("line reduction: %d lines after %d tests\n", countLines(src), r.tests)
	return src, nil
}

func countLines(s string) int { return strings.Count(strings.TrimRight(s, "\n"), "\n") + 1 }

// ReduceAST applies AST edits greedily until none keeps the mismatch.
func (r *Reducer) ReduceAST(p *Program) *Program {
	cur := p.IL()
	for changed := true; changed; {
		changed = false
		n := countEdits(p)
		for k := 0; k < n; {
			c := p.Clone()
			applyEdit(c, k)
			text := c.IL()
			if text != cur && r.interesting(text) {
				p, cur = c, text
				n = countEdits(p)
				changed = true
				continue
			}
			k++
		}
	}
	return p
}

// ReduceLines deletes runs of lines while the mismatch persists.
func (r *Reducer) ReduceLines(src string) string {
	lines := strings.Split(strings.TrimRight(src, "\n"), "\n")
	join := func(ls []string) string { return strings.Join(ls, "\n") + "\n" }
	try := func(i, n int) bool {
		if i+n > len(lines) {
			return false
		}
		depth := 0
		for _, l := range lines[i : i+n] {
			if strings.HasPrefix(l, ".assembly") {
				return false // keep the program assemblable by ilasm
			}
			// only whole brace-delimited units: no merging of methods
			depth += strings.Count(l, "{") - strings.Count(l, "}")
			if depth < 0 {
				return false
			}
		}
		if depth != 0 {
			return false
		}
		cand := append(append([]string(nil), lines[:i]...), lines[i+n:]...)
		if i > 0 && i < len(cand) && strings.HasPrefix(strings.TrimSpace(cand[i-1]), "ldstr") &&
			strings.TrimSpace(cand[i]) == "throw" {
			return false // would throw a string instead of an exception
		}
		if r.interesting(join(cand)) {
			lines = cand
			return true
		}
		return false
	}
	for changed := true; changed; {
		changed = false
		// aligned chunks, halving
		for chunk := len(lines) / 2; chunk >= 1; chunk /= 2 {
			for i := 0; i < len(lines); {
				if try(i, chunk) {
					changed = true
				} else {
					i += chunk
				}
			}
		}
		// whole brace-delimited units (methods, classes, regions)
		for i := 0; i < len(lines); i++ {
			if !strings.HasSuffix(strings.TrimSpace(lines[i]), "{") {
				continue
			}
			start := i
			if strings.TrimSpace(lines[i]) == "{" && i > 0 {
				start = i - 1 // the .method or .class line
			}
			depth := 0
			for j := i; j < len(lines); j++ {
				depth += strings.Count(lines[j], "{") - strings.Count(lines[j], "}")
				if depth == 0 {
					if try(start, j+1-start) {
						changed = true
						i = start - 1
					}
					break
				}
			}
		}
		// small unaligned windows (instruction sequences that must go together)
		for n := 2; n <= 4; n++ {
			for i := 0; i+n <= len(lines); {
				if try(i, n) {
					changed = true
				} else {
					i++
				}
			}
		}
	}
	return join(lines)
}

// AST edits. An editor walks the program counting edit opportunities
// in a fixed order and applies the one numbered target. Every edit makes
// the program strictly smaller (fewer nodes, a smaller loop count or
// constant, fewer exception sources), so greedy reduction terminates.

type editor struct {
	target, k int
	done      bool
	p         *Program
	m         *Method // the method being edited
}

func (e *editor) hit() bool {
	if e.done {
		return false
	}
	h := e.k == e.target
	e.k++
	if h {
		e.done = true
	}
	return h
}

func countEdits(p *Program) int {
	e := &editor{target: -1}
	e.program(p)
	return e.k
}

func applyEdit(p *Program, k int) {
	e := &editor{target: k}
	e.program(p)
}

func (e *editor) program(p *Program) {
	e.p = p
	for _, f := range []*bool{&p.NoCatchAll, &p.NoEnd, &p.NoMix, &p.NoEnter, &p.InlineEnter, &p.InlineRoot, &p.NoValueHash, &p.NoRefHash} {
		if !*f && e.hit() {
			*f = true
		}
	}
	for j, m := range p.Methods {
		if m.Ret && e.hit() {
			m.Ret, m.RetExpr = false, nil
		}
		for k := range m.Params {
			if e.hit() {
				removeParam(p, j, k)
				return
			}
		}
		for k := range m.SParams {
			if e.hit() {
				removeSParam(p, j, k)
				return
			}
		}
		for k := range m.RParams {
			if e.hit() {
				removeRParam(p, j, k)
				return
			}
		}
		for k := range m.OParams {
			if e.hit() {
				removeOParam(p, j, k)
				return
			}
		}
	}
	if e.structs(p) {
		return
	}
	for _, m := range p.Methods {
		e.m = m
		e.blk(&m.Body)
		if m.Ret {
			if m.RetExpr == nil {
				m.RetExpr = &Const{T: I4}
			}
			e.expr(&m.RetExpr)
		}
		if m.RetSExpr != nil {
			e.sexpr(&m.RetSExpr)
		}
	}
}

// removeParam deletes parameter k of method j: its uses read 0 (its
// address is a local's), stores to it are dropped, and the callers pass
// one argument less.
func removeParam(p *Program, j, k int) {
	m := p.Methods[j]
	m.Params = append(m.Params[:k:k], m.Params[k+1:]...)
	fixVar := func(v *Var) bool { // false: the variable is gone
		if v.Kind != Arg {
			return true
		}
		if v.Index == k {
			return false
		}
		if v.Index > k {
			v.Index--
		}
		return true
	}
	(&walker{
		stmt: func(ss *[]Stmt, i int) {
			if a, ok := (*ss)[i].(*Assign); ok && !fixVar(&a.Dst) {
				(*ss)[i] = &Mix{E: a.E}
			}
		},
		expr: func(x *Expr) {
			if l, ok := (*x).(*Load); ok && !fixVar(&l.V) {
				*x = &Const{T: l.V.T}
			}
		},
		loc: func(L *Loc) {
			if L.Root == RVar && !fixVar(&L.Var) {
				L.Var = Var{Kind: Local, T: L.Var.T}
			}
		},
	}).method(m)
	dropArg(p, j, k, 0)
}

// forEachStmt calls f for every statement, nested ones included.
func forEachStmt(ss *[]Stmt, f func(ss *[]Stmt, i int)) {
	for i := range *ss {
		f(ss, i)
		switch s := (*ss)[i].(type) {
		case *If:
			forEachStmt(&s.Then, f)
			forEachStmt(&s.Else, f)
		case *Loop:
			forEachStmt(&s.Body, f)
		case *Switch:
			for c := range s.Cases {
				forEachStmt(&s.Cases[c], f)
			}
			forEachStmt(&s.Default, f)
		case *Try:
			forEachStmt(&s.Body, f)
			for _, h := range s.Handlers {
				forEachStmt(&h.FilterBody, f)
				forEachStmt(&h.Body, f)
			}
		default:
			for _, b := range shapeBlocks(s) {
				forEachStmt(b, f)
			}
		}
	}
}

// stmtExprs returns pointers to the statement's own int expressions,
// those of its value-type expressions and locations included.
func stmtExprs(s Stmt) []*Expr { return stmtParts(s).flat() }

// children returns the statement's nested blocks (flattening candidates).
func children(s Stmt) [][]Stmt {
	switch s := s.(type) {
	case *If:
		return [][]Stmt{s.Then, s.Else}
	case *Loop:
		return [][]Stmt{s.Body}
	case *Switch:
		return append(append([][]Stmt(nil), s.Cases...), s.Default)
	case *Try:
		cs := [][]Stmt{s.Body}
		for _, h := range s.Handlers {
			cs = append(cs, h.FilterBody, h.Body)
		}
		return cs
	}
	cs, _ := shapeChildren(s)
	return cs
}

func (e *editor) blk(ss *[]Stmt) { e.block(ss, e.p) }

func noParams(m *Method) bool { return len(m.Params)+len(m.SParams)+len(m.RParams)+m.OParams == 0 }

func (e *editor) block(ss *[]Stmt, p *Program) {
	for i := 0; i < len(*ss); i++ {
		if e.done {
			return
		}
		s := (*ss)[i]
		if e.hit() {
			*ss = append((*ss)[:i:i], (*ss)[i+1:]...)
			return
		}
		// inline a call of a method without parameters (its int locals
		// become the caller's, its value-type and pointer locals new ones,
		// a return leaves the caller)
		if c, ok := s.(*CallStmt); ok && noParams(p.Methods[c.Callee]) && e.hit() {
			body := cloneStmts(p.Methods[c.Callee].Body)
			inlineLocals(e.m, p.Methods[c.Callee], body)
			out := append([]Stmt(nil), (*ss)[:i]...)
			out = append(out, body...)
			*ss = append(out, (*ss)[i+1:]...)
			return
		}
		for _, c := range children(s) {
			if len(c) == 0 {
				continue
			}
			if e.hit() {
				out := append([]Stmt(nil), (*ss)[:i]...)
				out = append(out, c...)
				*ss = append(out, (*ss)[i+1:]...)
				return
			}
		}
		e.stmt(s)
	}
}

func (e *editor) stmt(s Stmt) {
	switch s := s.(type) {
	case *Assign:
		e.expr(&s.E)
	case *Mix:
		if s.Print && e.hit() {
			s.Print = false
		}
		e.expr(&s.E)
	case *If:
		if len(s.Else) > 0 && e.hit() {
			s.Else = nil
		}
		if s.C.Op != "" && e.hit() {
			// A != B style conditions become brtrue A
			s.C = Cond{A: &Const{T: I4, V: 1}}
		}
		e.expr(&s.C.A)
		if s.C.B != nil {
			e.expr(&s.C.B)
		}
		e.blk(&s.Then)
		e.blk(&s.Else)
	case *Loop:
		if s.N > 1 && e.hit() {
			s.N = 1
		}
		e.blk(&s.Body)
	case *Switch:
		if len(s.Cases) > 1 {
			for i := range s.Cases {
				if e.hit() {
					s.Cases = append(s.Cases[:i:i], s.Cases[i+1:]...)
					return
				}
			}
		}
		e.expr(&s.E)
		for i := range s.Cases {
			e.blk(&s.Cases[i])
		}
		e.blk(&s.Default)
	case *CallStmt:
		e.call(s.Args, s.SArgs, s.RArgs, s.OArgs)
	case *Throw:
		if isUser(s.Class) && e.hit() {
			s.Class, s.Code = "System.InvalidOperationException", nil
			return
		}
		if s.Code != nil {
			e.expr(&s.Code)
		}
	case *SetBox:
		if s.E != nil {
			e.expr(&s.E)
		}
	case *SetObj:
		if s.E != nil {
			e.expr(&s.E)
		}
	case *StoreElem:
		if !s.Safe && e.hit() {
			s.Safe = true
		}
		e.expr(&s.Idx)
		e.expr(&s.E)
	case *StoreField:
		e.expr(&s.E)
	case *JagStore:
		if s.Token && e.hit() {
			s.Token = false
		}
		e.expr(&s.Row)
		e.expr(&s.Col)
		e.expr(&s.E)
	case *SetRow:
		if s.Val != RowNull && e.hit() {
			s.Val = RowNull
		}
		e.expr(&s.Row)
	case *SetOp:
		if s.Kind != OpNull && e.hit() {
			s.Kind, s.E = OpNull, nil
			return
		}
		if s.E != nil {
			e.expr(&s.E)
		}
	case *Try:
		if len(s.Handlers) > 1 {
			for i := range s.Handlers {
				if e.hit() {
					s.Handlers = append(s.Handlers[:i:i], s.Handlers[i+1:]...)
					return
				}
			}
		}
		if s.Layout != Scoped && e.hit() {
			s.Layout = Scoped
		}
		if s.Retry > 0 && e.hit() {
			s.Retry = 0
		}
		e.blk(&s.Body)
		for _, h := range s.Handlers {
			if isUser(h.Class) && e.hit() {
				h.Class = "System.Exception"
			}
			if isUser(h.FilterType) && e.hit() {
				h.FilterType = "System.Exception"
			}
			if h.FilterType != "" && e.hit() {
				h.FilterType = ""
			}
			if h.FilterCond != nil && e.hit() {
				h.FilterCond = nil
			}
			e.blk(&h.FilterBody)
			if h.FilterCond != nil {
				e.expr(&h.FilterCond)
			}
			e.blk(&h.Body)
		}
	default:
		e.valueStmt(s)
	}
}

// subexprs returns pointers to the expression's int children, those
// below its value-type expressions and locations included.
func subexprs(x Expr) []*Expr { return exprParts(x).flat() }

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func (e *editor) expr(p *Expr) {
	if e.done {
		return
	}
	x := *p
	if c, ok := x.(*Const); ok {
		switch {
		case c.V != 0 && e.hit():
			c.V = 0
		case abs(c.V) > 1 && e.hit():
			c.V = 1
		case abs(c.V) > 2 && e.hit():
			c.V /= 2
		}
		return
	}
	if e.hit() {
		*p = &Const{T: x.Type()}
		return
	}
	for _, s := range subexprs(x) {
		if (*s).Type() == x.Type() && e.hit() {
			*p = *s
			return
		}
	}
	switch x := x.(type) {
	case *Bin:
		if !x.Guard && (strings.HasPrefix(x.Op, "div") || strings.HasPrefix(x.Op, "rem")) && e.hit() {
			x.Guard = true
		}
		if strings.Contains(x.Op, ".ovf") && e.hit() {
			x.Op = strings.TrimSuffix(strings.TrimSuffix(x.Op, ".un"), ".ovf")
		}
	case *ArrLoad:
		if !x.Safe && e.hit() {
			x.Safe = true
		}
	case *JagLoad:
		if x.Token && e.hit() {
			x.Token = false
		}
	case *IfaceCall:
		if !x.Safe && e.hit() {
			x.Safe = true
		}
	}
	if e.valueExpr(x) {
		return
	}
	for _, s := range subexprs(x) {
		e.expr(s)
	}
}
