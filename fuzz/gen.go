package fuzz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// Options bound the size of generated programs.
type Options struct {
	MaxMethods   int  // methods besides the entry point (at least 1)
	MaxStmts     int  // statements per method
	MaxDepth     int  // nesting depth of compound statements and regions
	MaxExprDepth int  // nesting depth of expressions
	MaxCost      int  // static bound on executed statements (loops and calls multiply)
	MonoSafe     bool // filters never throw (nothing in them can), and no int64 constant -2^31: Mono agrees
	// Alloc is the percentage of programs that allocate heavily (the
	// allocation feature, alloc.go): 0 none, 100 every one.
	Alloc int
	// Shapes is the percentage of programs with the code shapes the
	// JIT optimizes (shapes.go): 0 none (the generator as it was
	// before them), 100 every one.
	Shapes int
}

// DefaultShapes is the Options.Shapes of every size.
const DefaultShapes = 70

// SizeOptions returns the options for a named size: small, medium or large.
func SizeOptions(size string) (Options, error) {
	switch size {
	case "small":
		return Options{MaxMethods: 3, MaxStmts: 14, MaxDepth: 3, MaxExprDepth: 2, MaxCost: 400, Alloc: 25, Shapes: DefaultShapes}, nil
	case "medium", "":
		return Options{MaxMethods: 6, MaxStmts: 30, MaxDepth: 4, MaxExprDepth: 3, MaxCost: 2500, Alloc: 35, Shapes: DefaultShapes}, nil
	case "large":
		return Options{MaxMethods: 10, MaxStmts: 60, MaxDepth: 5, MaxExprDepth: 4, MaxCost: 10000, Alloc: 60, Shapes: DefaultShapes}, nil
	}
	return Options{}, fmt.Errorf("unknown size %q (want small, medium or large)", size)
}

func (o Options) normalized() Options {
	if o.MaxMethods < 1 {
		o.MaxMethods = 1
	}
	if o.MaxStmts < 1 {
		o.MaxStmts = 1
	}
	if o.MaxDepth < 1 {
		o.MaxDepth = 1
	}
	if o.MaxExprDepth < 1 {
		o.MaxExprDepth = 1
	}
	if o.MaxCost < 10 {
		o.MaxCost = 10
	}
	o.Alloc = min(max(o.Alloc, 0), 100)
	o.Shapes = min(max(o.Shapes, 0), 100)
	return o
}

// exception classes: name as written in the AST, depth in the hierarchy.
type exClass struct {
	name  string
	depth int
	user  bool
}

var classes = []exClass{
	{"System.Object", 0, false},
	{"System.Exception", 1, false},
	{"System.SystemException", 2, false},
	{"System.ApplicationException", 2, false},
	{"E1", 2, true}, // : System.Exception
	{"System.ArithmeticException", 3, false},
	{"System.NullReferenceException", 3, false},
	{"System.IndexOutOfRangeException", 3, false},
	{"System.InvalidCastException", 3, false},
	{"System.InvalidOperationException", 3, false},
	{"System.ArgumentException", 3, false},
	{"System.FormatException", 3, false},
	{"System.NotSupportedException", 3, false},
	{"E2", 3, true}, // : System.ApplicationException
	{"E3", 3, true}, // : E1
	{"System.OverflowException", 4, false},
	{"System.DivideByZeroException", 4, false},
	{"System.ArgumentOutOfRangeException", 4, false},
	{"System.ArrayTypeMismatchException", 3, false},
}

func classDepth(name string) int {
	switch name {
	case tie:
		return 3
	case exNode:
		return 2
	}
	for _, c := range classes {
		if c.name == name {
			return c.depth
		}
	}
	return 0
}

func isUser(name string) bool { return name == "E1" || name == "E2" || name == "E3" }

// isLocal reports whether exception class name is declared by the
// program (a user class or EN).
func isLocal(name string) bool { return isUser(name) || name == exNode }

// thrown are the classes deliberately thrown.
var thrown = []string{
	"System.InvalidOperationException", "System.ArgumentException",
	"System.ArgumentOutOfRangeException", "System.FormatException",
	"System.NotSupportedException", "E1", "E2", "E3",
}

type fkind uint8

const (
	fMethod fkind = iota
	fTry
	fCatch         // catch handler (rethrow allowed)
	fFilterHandler // filter's handler block (rethrow allowed)
	fFilter        // filter block
	fFinally
	fFault
	fLoop
)

type frame struct {
	kind fkind
	id   int
}

type gen struct {
	r      *rand.Rand
	cc     *rand.Rand // static constructors' choices (cctor, risky)
	o      Options
	p      *Program
	nextID int
	cost   []int             // per method: static cost bound
	throws []map[string]bool // per method: exception classes it may throw
	// current method
	mi     int
	m      *Method
	stmts  int
	frames []frame
	// exception classes the code generated so far may throw (in the
	// current method, or the current try body)
	exc map[string]bool
	// probability (per mille) that an expression node is one that may throw
	risk int
	// resumable holds the trys whose handlers may resume in their body.
	resumable map[int]bool
	// alloc: the program allocates heavily (alloc.go), with its
	// statements weighted by aw.
	alloc bool
	aw    int
	// shapes: the program has the shapes the JIT optimizes
	// (shapes.go), with their statements weighted by sw; shLoops are
	// the enclosing loops over arrays.
	shapes  bool
	sw      int
	shLoops []shLoop
}

// Generate builds the AST of the program for seed.
func Generate(seed uint64, opts Options) *Program {
	o := opts.normalized()
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x6d696e69696c)), o: o, nextID: 1, resumable: map[int]bool{}}
	// Static constructors draw from a stream of their own, so the rest of
	// a seed's program is what it was before they were generated.
	g.cc = rand.New(rand.NewPCG(seed, 0x6363746f72))
	nm := 1 + g.r.IntN(o.MaxMethods)
	g.p = &Program{Seed: seed, Opts: opts, Methods: make([]*Method, nm)}
	g.cctor()
	g.cost = make([]int, nm)
	g.throws = make([]map[string]bool, nm)
	g.risk = []int{2, 5, 10, 25}[g.r.IntN(4)]
	g.allocInit(seed)
	g.shapesInit(seed)
	g.structs()
	for i := nm - 1; i >= 0; i-- {
		g.method(i)
	}
	return g.p
}

func (g *gen) id() int { g.nextID++; return g.nextID - 1 }

// cctor decides where the static variables live (Program.Cctor) and
// their initial values.
func (g *gen) cctor() {
	switch k := g.cc.IntN(10); {
	case k < 4:
		return
	case k < 8:
		g.p.Cctor = PreciseCctor
	default:
		g.p.Cctor = LazyCctor
	}
	for i := range g.p.CctorInit {
		g.p.CctorInit[i] = g.cc.Int64N(2001) - 1000
	}
}

// tie is the exception a failed static constructor's class throws.
const tie = "System.TypeInitializationException"

func (g *gen) chance(pct int) bool { return g.r.IntN(100) < pct }

func (g *gen) method(i int) {
	m := &Method{NI4: 1 + g.r.IntN(4), NI8: g.r.IntN(3)}
	budget := g.o.MaxCost
	g.stmts = g.o.MaxStmts
	if i > 0 {
		np := g.r.IntN(4)
		for k := 0; k < np; k++ {
			if g.chance(70) {
				m.Params = append(m.Params, I4)
			} else {
				m.Params = append(m.Params, I8)
			}
		}
		m.Ret = g.chance(60)
		budget = g.o.MaxCost/10 + g.r.IntN(g.o.MaxCost/4+1)
		g.stmts = g.o.MaxStmts/3 + g.r.IntN(g.o.MaxStmts-g.o.MaxStmts/3+1)
	}
	g.valueVars(m, i)
	if g.alloc {
		g.allocVars(m, i)
	}
	if g.shapes {
		m.ALocals = 1 + g.r.IntN(2)
	}
	g.mi, g.m = i, m
	g.p.Methods[i] = m
	g.exc = map[string]bool{}
	g.frames = []frame{{fMethod, 0}}
	start := budget
	m.Body = append(g.refPrologue(&budget), g.allocPrologue(&budget)...)
	if g.shapes {
		m.Body = append(m.Body, g.shapePrologue(&budget)...)
		share := budget / 3
		ab := share
		anchors := g.anchors(&ab, i)
		budget -= share - ab
		n := len(m.Body)
		m.Body = append(m.Body, g.block(&budget, 0)...)
		m.Body = g.insertAt(m.Body, n, anchors)
	} else {
		m.Body = append(m.Body, g.block(&budget, 0)...)
	}
	if g.alloc {
		// the root's statements guarded, others' sometimes
		m.Body = g.guard(m.Body, []int{100, 30}[min(i, 1)])
	}
	if m.Ret {
		m.RetExpr = g.expr(I4, 0, &budget, false)
	}
	if s, ok := m.retStruct(); ok {
		m.RetSExpr = g.sexpr(s, 0, &budget, false)
	}
	g.cost[i] = start - budget + 1
	if g.cost[i] < 1 {
		g.cost[i] = 1
	}
	g.throws[i] = g.exc
}

// context queries

func (g *gen) inFilter() bool {
	for _, f := range g.frames {
		if f.kind == fFilter {
			return true
		}
	}
	return false
}

// safe reports whether what is generated now must not throw.
func (g *gen) safe() bool { return g.o.MonoSafe && g.inFilter() }

func (g *gen) canRethrow() bool {
	return rethrowAllowed(len(g.frames), func(k int) fkind { return g.frames[k].kind }, !g.o.MonoSafe)
}

// rethrowAllowed reports whether rethrow may appear inside the n enclosing
// frames (kind(n-1) the innermost): a catch or filter handler must
// enclose it, past trys, loops, finallys and (with throughFault: Mono
// 6.8 crashes on it) faults, but not past a filter block.
func rethrowAllowed(n int, kind func(int) fkind, throughFault bool) bool {
	for k := n - 1; k >= 0; k-- {
		switch kind(k) {
		case fTry, fLoop, fFinally:
			continue
		case fFault:
			if throughFault {
				continue
			}
			return false
		case fCatch, fFilterHandler:
			return true
		default:
			return false
		}
	}
	return false
}

// resumeTarget returns the try whose catch or filter handler encloses
// the code being generated, when that try takes resumes and no finally,
// fault or filter lies in between.
func (g *gen) resumeTarget() (int, bool) {
	for k := len(g.frames) - 1; k >= 0; k-- {
		switch f := g.frames[k]; f.kind {
		case fFinally, fFault, fFilter, fMethod:
			return 0, false
		case fCatch, fFilterHandler:
			if g.resumable[f.id] {
				return f.id, true
			}
		}
	}
	return 0, false
}

// topLevel reports whether the code being generated is outside every
// protected region and handler.
func (g *gen) topLevel() bool {
	for _, f := range g.frames {
		if f.kind != fMethod && f.kind != fLoop {
			return false
		}
	}
	return true
}

func (g *gen) inHandler() bool {
	for _, f := range g.frames {
		switch f.kind {
		case fCatch, fFilterHandler, fFilter:
			return true
		}
	}
	return false
}

func (g *gen) leaveTargets() []int {
	var ts []int
	for k := len(g.frames) - 1; k >= 0; k-- {
		f := g.frames[k]
		switch f.kind {
		case fFinally, fFault, fFilter:
			return ts
		case fTry, fCatch, fFilterHandler, fLoop:
			ts = append(ts, f.id)
		case fMethod:
			// a plain return at the top of a method only cuts it short
			if len(ts) > 0 && g.chance(30) {
				ts = append(ts, 0)
			}
		}
	}
	return ts
}

func (g *gen) push(k fkind, id int) { g.frames = append(g.frames, frame{k, id}) }
func (g *gen) pop()                 { g.frames = g.frames[:len(g.frames)-1] }

// callees returns the methods callable from here within budget.
func (g *gen) callees(budget int, needRet bool) []int {
	var out []int
	for j := g.mi + 1; j < len(g.p.Methods); j++ {
		if g.cost[j]+1 > budget {
			continue
		}
		if needRet && !g.p.Methods[j].Ret {
			continue
		}
		if g.safe() && len(g.throws[j]) > 0 {
			continue
		}
		out = append(out, j)
	}
	return out
}

// statements

func (g *gen) block(budget *int, depth int) []Stmt {
	n := 1 + g.r.IntN(4)
	if depth == 0 {
		n = 4 + g.r.IntN(g.o.MaxStmts/2+1)
	}
	var out []Stmt
	for i := 0; i < n && g.stmts > 0 && *budget > 0; i++ {
		if s := g.stmt(budget, depth); s != nil {
			out = append(out, s)
		}
	}
	return out
}

type choice struct {
	w int
	f func() Stmt
}

func (g *gen) pick(cs []choice) Stmt {
	total := 0
	for _, c := range cs {
		total += c.w
	}
	n := g.r.IntN(total)
	for _, c := range cs {
		if n < c.w {
			return c.f()
		}
		n -= c.w
	}
	return nil
}

func (g *gen) stmt(budget *int, depth int) Stmt {
	g.stmts--
	*budget--
	safe := g.safe()
	compound := depth < g.o.MaxDepth && g.stmts > 2 && *budget > 4
	cs := []choice{
		{14, func() Stmt { v := g.wvar(); return &Assign{Dst: v, E: g.expr(v.T, 0, budget, safe)} }},
		{10, func() Stmt { return &Mix{E: g.expr(g.typ(), 0, budget, safe), Print: g.chance(35)} }},
		{3, func() Stmt { return &Trace{ID: g.id()} }},
		{3, func() Stmt { return &SetBox{Null: g.chance(20), E: g.expr(I4, 1, budget, safe)} }},
		{3, func() Stmt { return &SetObj{FromBox: g.chance(50), E: g.expr(I4, 1, budget, safe)} }},
		{1, func() Stmt { return g.setOp(budget, safe) }},
		{3, func() Stmt {
			st := &StoreElem{Idx: g.expr(I4, 1, budget, safe), E: g.expr(I4, 1, budget, safe), Safe: safe || g.chance(70)}
			if !st.Safe {
				g.may("System.IndexOutOfRangeException")
			}
			return st
		}},
	}
	if !safe {
		cs = append(cs,
			choice{1, func() Stmt { g.may(nre); return &StoreField{E: g.expr(I4, 1, budget, safe)} }},
			choice{g.throwWeight(), func() Stmt { return g.maybeIf(budget, g.throwStmt(budget)) }},
			choice{1, func() Stmt { g.may(nre); return g.maybeIf(budget, &ThrowNull{}) }},
			choice{2, func() Stmt {
				g.may(nre, "System.IndexOutOfRangeException")
				return &JagStore{Row: g.expr(I4, 1, budget, safe), Col: g.expr(I4, 1, budget, safe), E: g.expr(I4, 1, budget, safe), Token: g.chance(30)}
			}},
			choice{1, func() Stmt { return g.setRow(budget) }},
		)
		if g.canRethrow() {
			cs = append(cs, choice{3, func() Stmt { g.may("System.Exception"); return g.maybeIf(budget, &Rethrow{}) }})
		}
		if id, ok := g.resumeTarget(); ok {
			cs = append(cs, choice{3, func() Stmt { return g.maybeIf(budget, &Resume{Try: id}) }})
		}
	}
	if g.inHandler() {
		cs = append(cs, choice{2, func() Stmt { return &BumpCode{Delta: int32(1 + g.r.IntN(100))} }})
	}
	cs = append(cs, g.valueStmts(budget, safe)...)
	if g.alloc {
		cs = append(cs, g.allocStmts(budget, safe)...)
	}
	if g.shapes {
		cs = append(cs, g.shapeStmts(budget, depth, safe, compound)...)
	}
	if ts := g.leaveTargets(); len(ts) > 0 {
		cs = append(cs, choice{3, func() Stmt { return g.maybeIf(budget, &Leave{Target: ts[g.r.IntN(len(ts))]}) }})
	}
	if cl := g.callees(*budget, false); len(cl) > 0 {
		cs = append(cs, choice{8, func() Stmt {
			j := cl[g.r.IntN(len(cl))]
			*budget -= g.cost[j]
			g.mayAll(g.throws[j])
			c := &CallStmt{Callee: j}
			c.Args, c.SArgs, c.RArgs, c.OArgs = g.args(j, budget, safe)
			return c
		}})
	}
	if compound {
		cs = append(cs,
			choice{8, func() Stmt { return g.ifStmt(budget, depth) }},
			choice{5, func() Stmt { return g.loop(budget, depth) }},
			choice{2, func() Stmt { return g.switchStmt(budget, depth) }},
		)
		if !safe {
			cs = append(cs, choice{18, func() Stmt { return g.try(budget, depth) }},
				choice{4, func() Stmt { return g.valueTry(budget) }})
		}
	}
	return g.pick(cs)
}

// setRow replaces a row of the jagged static jag.
func (g *gen) setRow(budget *int) Stmt {
	g.may("System.IndexOutOfRangeException")
	s := &SetRow{Row: g.expr(I4, 1, budget, false)}
	switch k := g.r.IntN(100); {
	case k < 25:
		s.Val = RowNull
	case k < 75:
		s.Val, s.Len = RowNew, g.r.IntN(9)
	case k < 90:
		s.Val = RowArr
	default:
		s.Val = RowString
		g.may("System.ArrayTypeMismatchException")
	}
	return s
}

// setOp stores a new OpAdd, OpMul or OpDiv, or null, in slot 2 or 3 of
// ops (slots 0 and 1 stay as they are, for the calls that must not
// throw).
func (g *gen) setOp(budget *int, safe bool) Stmt {
	s := &SetOp{Slot: 2 + g.r.IntN(2), Kind: OpKind(g.r.IntN(4))}
	if s.Kind != OpNull {
		s.E = g.expr(I4, 1, budget, safe)
	}
	return s
}

// throwWeight makes throws likelier directly in a try body.
func (g *gen) throwWeight() int {
	for k := len(g.frames) - 1; k >= 0; k-- {
		switch g.frames[k].kind {
		case fLoop:
			continue
		case fTry:
			return 10
		case fCatch, fFilterHandler, fFinally, fFault:
			return 3
		}
		break
	}
	return 1
}

func (g *gen) throwStmt(budget *int) Stmt {
	if g.alloc && g.chance(30) {
		return g.athrow(budget)
	}
	c := thrown[g.r.IntN(len(thrown))]
	g.may(c)
	t := &Throw{Class: c}
	if isUser(c) {
		t.Code = g.expr(I4, 1, budget, false)
	}
	return t
}

// maybeIf wraps s (a jump or throw) in an if most of the time, so the
// code after it stays reachable.
func (g *gen) maybeIf(budget *int, s Stmt) Stmt {
	if !g.chance(85) {
		return s
	}
	c := g.cond(budget)
	if g.chance(50) {
		// taken about a quarter of the time
		c = Cond{Op: "beq", A: &Bin{Op: "and", A: g.expr(I4, 1, budget, g.safe()), B: &Const{T: I4, V: 3}, T: I4}, B: &Const{T: I4}}
	}
	return &If{C: c, Then: []Stmt{s}}
}

var brOps = []string{"beq", "bne.un", "blt", "blt.un", "ble", "ble.un", "bgt", "bgt.un", "bge", "bge.un"}

func (g *gen) cond(budget *int) Cond {
	safe := g.safe()
	if g.chance(30) {
		return Cond{A: g.expr(I4, 0, budget, safe)}
	}
	t := g.typ()
	op := brOps[g.r.IntN(len(brOps))]
	return Cond{Op: op, A: g.operand(op, 0, t, 1, budget, safe), B: g.operand(op, 1, t, 1, budget, safe)}
}

func (g *gen) ifStmt(budget *int, depth int) Stmt {
	s := &If{C: g.cond(budget)}
	half := *budget / 2
	b1, b2 := half, half
	s.Then = g.block(&b1, depth+1)
	if g.chance(50) {
		s.Else = g.block(&b2, depth+1)
	}
	*budget -= (half - b1) + (half - b2)
	return s
}

func (g *gen) loop(budget *int, depth int) Stmt {
	n := 1 + g.r.IntN(4)
	if g.chance(10) {
		n = 5 + g.r.IntN(20)
	}
	for n > 1 && *budget/n < 3 {
		n--
	}
	s := &Loop{ID: g.id(), N: n}
	g.push(fLoop, s.ID)
	b := *budget / n
	start := b
	s.Body = g.block(&b, depth+1)
	g.pop()
	*budget -= (start - b) * n
	return s
}

func (g *gen) switchStmt(budget *int, depth int) Stmt {
	s := &Switch{E: g.expr(I4, 1, g.ptr(0), g.safe())}
	if g.chance(60) {
		s.E = &Bin{Op: "and", A: s.E, B: &Const{T: I4, V: 3}, T: I4}
	}
	nc := 1 + g.r.IntN(3)
	share := *budget / (nc + 1)
	used := 0
	for i := 0; i < nc; i++ {
		b := share
		s.Cases = append(s.Cases, g.block(&b, depth+1))
		used += share - b
	}
	if g.chance(50) {
		b := share
		s.Default = g.block(&b, depth+1)
		used += share - b
	}
	*budget -= used
	return s
}

func (g *gen) ptr(v int) *int { return &v }

func (g *gen) try(budget *int, depth int) Stmt {
	t := &Try{ID: g.id()}
	k := g.r.IntN(100)
	var kind HandlerKind
	switch {
	case k < 45:
		kind = Catch
	case k < 67:
		kind = Filter
	case k < 87:
		kind = Finally
	default:
		kind = Fault
	}
	// A third of the trys use label-form clauses, with the handlers out
	// of line (after ret only outside every region).
	switch l := g.r.IntN(100); {
	case l < 18 && !(g.o.MonoSafe && kind == Filter):
		t.Layout = Before
	case l < 33 && !(g.o.MonoSafe && kind == Filter):
		t.Layout = Before
		if g.topLevel() {
			t.Layout = AfterRet
		}
	}
	share := *budget / 2
	used := 0
	b := share
	outer := g.exc
	g.exc = map[string]bool{}
	g.push(fTry, t.ID)
	t.Body = g.block(&b, depth+1)
	g.pop()
	// A quarter of the catch and filter trys resume in their body.
	if (kind == Catch || kind == Filter) && g.chance(25) {
		t.Retry = 1 + g.r.IntN(3)
		t.ResumeAt = g.r.IntN(len(t.Body) + 1)
		g.resumable[t.ID] = true
	}
	used += share - b
	body := g.exc
	g.exc = outer
	// conservatively, whatever the body throws may escape the handlers
	g.mayAll(body)
	switch kind {
	case Catch:
		n := 1 + g.r.IntN(3)
		seen := map[string]bool{}
		for i := 0; i < n; i++ {
			c := g.catchClass(body)
			if seen[c] {
				continue
			}
			seen[c] = true
			t.Handlers = append(t.Handlers, &Handler{Kind: Catch, ID: g.id(), Class: c})
		}
		if g.chance(85) {
			sort.SliceStable(t.Handlers, func(i, j int) bool {
				return classDepth(t.Handlers[i].Class) > classDepth(t.Handlers[j].Class)
			})
		}
		hb := (*budget - used) / (len(t.Handlers) + 1)
		for _, h := range t.Handlers {
			g.push(fCatch, t.ID)
			b := hb
			h.Body = g.block(&b, depth+1)
			used += hb - b
			g.pop()
			g.resumeFirst(t, h)
		}
	case Filter:
		h := &Handler{Kind: Filter, ID: g.id()}
		g.push(fFilter, t.ID)
		fb := (*budget - used) / 4
		b := fb
		if g.chance(80) {
			h.FilterBody = g.block(&b, depth+1)
		}
		if g.chance(60) {
			h.FilterType = g.catchClass(body)
		}
		if g.chance(50) {
			h.FilterCond = g.expr(I4, 1, &b, g.safe())
			if g.chance(40) {
				// a filter that reads a field of a value type
				if e := g.filterRead(&b); e != nil {
					h.FilterCond = e
				}
			}
		}
		used += fb - b
		g.pop()
		g.push(fFilterHandler, t.ID)
		hb := (*budget - used) / 2
		b = hb
		h.Body = g.block(&b, depth+1)
		used += hb - b
		g.pop()
		g.resumeFirst(t, h)
		t.Handlers = []*Handler{h}
	case Finally, Fault:
		h := &Handler{Kind: kind, ID: g.id()}
		fk := fFinally
		if kind == Fault {
			fk = fFault
		}
		g.push(fk, t.ID)
		hb := (*budget - used) / 2
		b := hb
		h.Body = g.block(&b, depth+1)
		used += hb - b
		g.pop()
		t.Handlers = []*Handler{h}
	}
	if t.Retry > 0 {
		// The body and handlers run up to Retry more times.
		for t.Retry > 0 && used*(t.Retry+1) > *budget {
			t.Retry--
		}
		used *= t.Retry + 1
		delete(g.resumable, t.ID)
	}
	*budget -= used
	return t
}

// resumeFirst makes half of a resuming try's handlers start by resuming
// (guarded by the try's counter, so the handler goes on once it is spent).
func (g *gen) resumeFirst(t *Try, h *Handler) {
	if t.Retry > 0 && g.chance(50) {
		h.Body = append([]Stmt{&Resume{Try: t.ID}}, h.Body...)
	}
}

// baseOf maps a class to its base class.
var baseOf = map[string]string{
	"System.OverflowException":           "System.ArithmeticException",
	"System.DivideByZeroException":       "System.ArithmeticException",
	"System.ArgumentOutOfRangeException": "System.ArgumentException",
	"E3":                                 "E1",
	"E1":                                 "System.Exception",
	"E2":                                 "System.ApplicationException",
	"System.ApplicationException":        "System.Exception",
	"System.SystemException":             "System.Exception",
	"System.Exception":                   "System.Object",
	exNode:                               "System.Exception",
}

func base(c string) string {
	if b, ok := baseOf[c]; ok {
		return b
	}
	return "System.SystemException"
}

// catchClass picks a class to catch, mostly one that the protected
// code may throw (or one of its bases).
func (g *gen) catchClass(body map[string]bool) string {
	k := g.r.IntN(100)
	if len(body) > 0 && k < 75 {
		cs := make([]string, 0, len(body))
		for c := range body {
			cs = append(cs, c)
		}
		sort.Strings(cs)
		c := cs[g.r.IntN(len(cs))]
		for k >= 50 && c != "System.Object" {
			c = base(c)
			k = g.r.IntN(100)
		}
		return c
	}
	return classes[g.r.IntN(len(classes))].name
}

func (g *gen) may(cs ...string) {
	for _, c := range cs {
		g.exc[c] = true
	}
}

func (g *gen) mayAll(cs map[string]bool) {
	for c := range cs {
		g.exc[c] = true
	}
}

const (
	nre = "System.NullReferenceException"
	ovf = "System.OverflowException"
)

// variables and expressions

func (g *gen) typ() Type {
	if g.chance(70) {
		return I4
	}
	return I8
}

const (
	nStaticI4 = 3
	nStaticI8 = 2
)

// vars returns the variables of type t visible in the current method.
func (g *gen) vars(t Type) []Var {
	var vs []Var
	n := g.m.NI4
	if t == I8 {
		n = g.m.NI8
	}
	for i := 0; i < n; i++ {
		vs = append(vs, Var{Local, i, t})
	}
	for i, pt := range g.m.Params {
		if pt == t {
			vs = append(vs, Var{Arg, i, t})
		}
	}
	ns := nStaticI4
	if t == I8 {
		ns = nStaticI8
	}
	for i := 0; i < ns; i++ {
		vs = append(vs, Var{Static, i, t})
	}
	return vs
}

// wvar picks a variable to assign.
func (g *gen) wvar() Var {
	t := g.typ()
	vs := g.vars(t)
	return vs[g.r.IntN(len(vs))]
}

var int32Consts = []int64{0, 1, -1, 2, 3, 7, 31, 32, 33, 63, 64, 100, -100, 255, 65535, 65536, math.MaxInt32, math.MinInt32, math.MaxInt32 - 1, math.MinInt32 + 1, 0x55555555, 128, -129}
var int64Consts = []int64{0, 1, -1, 2, 31, 32, 63, 64, 65, math.MaxInt32, math.MinInt32, math.MaxUint32, 1 << 32, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 0x123456789, -5000000000}

// shiftCounts are constant shift counts: inside, at and beyond the width
// of both operand sizes, negative and large (a count is masked to the
// operand width, as CoreCLR does).
var shiftCounts = []int64{0, 1, 2, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 95, 96, 127, 128, 255, 256, -1, -2, -31, -32, -33, -63, -64, math.MaxInt32, math.MinInt32, math.MinInt32 + 1}

// divisors are constant divisors that never throw: not 0, and -1 only
// for the unsigned operators (a signed MinValue / -1 overflows).
// int64Divisors add int64 ones that fit no int32, whose multipliers take
// the 64-bit shapes of the JIT's division by a constant (a pre-shift, a
// 65-bit or a negative multiplier).
var (
	divisors      = []int64{1, 2, 3, 5, 7, 10, 16, 100, 255, 256, 1000, 65536, 0x55555555, math.MaxInt32, math.MinInt32, -2, -3, -7, -16, -100, -65536}
	int64Divisors = []int64{1 << 32, 1<<32 + 1, 3 << 32, 10000000000, 1000000000000000000, -1000000000000000000,
		0x5555555555555555, -0x5555555555555555, 1 << 62, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 0x7fffffffffffff01, -2147483649}
)

func (g *gen) constant(t Type) *Const {
	c := &Const{T: t}
	switch k := g.r.IntN(10); {
	case k < 4:
		c.V = int64(g.r.IntN(41) - 20)
	case k < 8:
		if t == I4 {
			c.V = int32Consts[g.r.IntN(len(int32Consts))]
		} else {
			c.V = int64Consts[g.r.IntN(len(int64Consts))]
		}
	default:
		if t == I4 {
			c.V = int64(int32(g.r.Uint32()))
		} else {
			c.V = int64(g.r.Uint64())
		}
	}
	return g.monoConst(c)
}

// monoConst keeps MonoSafe programs off a Mono 6.8 bug: it multiplies an
// int64 by the constant -2^31 with the wrong sign (3L * -2147483648L =
// 6442450944), also when the constant is an int32 -2^31 widened by
// conv.i8 (which Mono folds into one).
func (g *gen) monoConst(c *Const) *Const {
	if g.o.MonoSafe && c.V == math.MinInt32 {
		c.V = math.MinInt32 + 1
	}
	return c
}

// operandConstPct is the chance (in percent) that an operand of a binary
// operator is a constant chosen for that operator (opConst), on top of
// the constant leaves of expr. Shift counts have their own shapes
// (shiftCount).
const operandConstPct = 10

// divisorConstPct is the chance (in percent) that the divisor of a
// division is a constant chosen for it (opConst, or 0, ±1, ±2 when
// unguarded), on top of operand's: the JIT divides by constants without
// a division instruction, by a code shape of their own for each kind of
// divisor.
const divisorConstPct = 25

// operand returns operand side (0: the first, 1: the second) of a binary
// operator op (a Bin, Cmp or Cond operator) of type t: sometimes a
// constant chosen for op, otherwise any expression.
func (g *gen) operand(op string, side int, t Type, depth int, budget *int, safe bool) Expr {
	if g.chance(operandConstPct) {
		return g.opConst(op, side, t)
	}
	return g.expr(t, depth, budget, safe)
}

// opConst returns an interesting constant operand for side of op: a
// divisor that cannot throw for the second operand of a guarded division
// (see lowering), else the edge values of t (0, 1, -1, the minimum and
// maximum and their neighbors, shift counts, bit patterns).
func (g *gen) opConst(op string, side int, t Type) *Const {
	if side == 1 && isDiv(op) {
		v := divisors[g.r.IntN(len(divisors))]
		switch k := g.r.IntN(100); {
		case k < 30 && t == I8:
			v = int64Divisors[g.r.IntN(len(int64Divisors))]
		case k < 50:
			// Any divisor, of any length: the guard maps 0 and a signed -1.
			v = int64(g.r.Uint64()) >> g.r.IntN(64)
			if t == I4 {
				v = int64(int32(v))
			}
		}
		if strings.HasSuffix(op, ".un") && g.chance(15) {
			v = -1
		}
		return g.monoConst(&Const{T: t, V: v})
	}
	if t == I4 {
		return &Const{T: t, V: int32Consts[g.r.IntN(len(int32Consts))]}
	}
	return g.monoConst(&Const{T: t, V: int64Consts[g.r.IntN(len(int64Consts))]})
}

func isDiv(op string) bool {
	return strings.HasPrefix(op, "div") || strings.HasPrefix(op, "rem")
}

// shiftCount returns the int32 count of a shift of a t value: a constant
// (in range, or any of shiftCounts: beyond the width, negative, large),
// an expression masked to the width, masked wider than the width, or
// unmasked. With MonoSafe an int32 shl or shr count stays in [0, 31]:
// Mono 6.8 folds those shifts masking a constant count by 63 (int32 5 shl
// 33 gives 0, CoreCLR 10), also counts it propagates from locals; and an
// int32 shr count is a literal constant.
func (g *gen) shiftCount(op string, t Type, depth int, budget *int, safe bool) Expr {
	width := int64(32)
	if t == I8 {
		width = 64
	}
	inRange := g.o.MonoSafe && t == I4 && op != "shr.un"
	mask := func(e Expr, m int64) Expr { return &Bin{Op: "and", A: e, B: &Const{T: I4, V: m}, T: I4} }
	if g.o.MonoSafe && t == I4 && op == "shr" {
		// Mono 6.8 shifts an int32 it folds from an overflowing operation
		// untruncated when the count is computed (65536 * 65536 >> y, y
		// a local holding 1, is -2^31); a literal count it shifts right.
		return &Const{T: I4, V: g.r.Int64N(width)}
	}
	switch k := g.r.IntN(100); {
	case k < 20:
		return &Const{T: I4, V: g.r.Int64N(width)}
	case k < 45:
		c := shiftCounts[g.r.IntN(len(shiftCounts))]
		if inRange {
			c &= width - 1
		}
		return &Const{T: I4, V: c}
	case k < 70 || inRange:
		return mask(g.expr(I4, depth, budget, safe), width-1)
	case k < 85:
		return mask(g.expr(I4, depth, budget, safe), 4*width-1)
	}
	return g.expr(I4, depth, budget, safe)
}

var (
	arithOps   = []string{"add", "sub", "mul", "and", "or", "xor"}
	checkedOps = []string{"add.ovf", "sub.ovf", "mul.ovf", "add.ovf.un", "sub.ovf.un", "mul.ovf.un"}
	shiftOps   = []string{"shl", "shr", "shr.un"}
	divOps     = []string{"div", "rem", "div.un", "rem.un"}
	cmpOps     = []string{"ceq", "cgt", "cgt.un", "clt", "clt.un"}
	convI4     = []string{"conv.i1", "conv.i2", "conv.u1", "conv.u2", "conv.i4", "conv.u4"}
	convI8     = []string{"conv.i8", "conv.u8"}
	convOvfI4  = []string{"conv.ovf.i1", "conv.ovf.u1", "conv.ovf.i2", "conv.ovf.u2", "conv.ovf.i4", "conv.ovf.u4",
		"conv.ovf.i1.un", "conv.ovf.u1.un", "conv.ovf.i2.un", "conv.ovf.u2.un", "conv.ovf.i4.un", "conv.ovf.u4.un"}
	convOvfI8 = []string{"conv.ovf.i8", "conv.ovf.u8", "conv.ovf.i8.un", "conv.ovf.u8.un"}
)

func (g *gen) oneOf(ss []string) string { return ss[g.r.IntN(len(ss))] }

func (g *gen) expr(t Type, depth int, budget *int, safe bool) Expr {
	if !safe && g.r.IntN(1000) < g.risk {
		return g.risky(t, depth, budget)
	}
	if g.chance(valueExprPct) {
		if e := g.valueExpr(t, depth, budget, safe); e != nil {
			return e
		}
	}
	if g.alloc && t == I4 && g.chance(allocExprPct) {
		return g.allocExpr(depth, budget, safe)
	}
	if g.shapes && g.chance(shapeExprPct) {
		if e := g.shapeExpr(t, depth, budget, safe); e != nil {
			return e
		}
	}
	if depth >= g.o.MaxExprDepth || g.chance(25+15*depth) {
		return g.leaf(t, budget, safe)
	}
	d := depth + 1
	switch k := g.r.IntN(100); {
	case k < 38:
		op := g.oneOf(arithOps)
		return &Bin{Op: op, A: g.operand(op, 0, t, d, budget, safe), B: g.operand(op, 1, t, d, budget, safe), T: t}
	case k < 50:
		op := g.oneOf(shiftOps)
		return &Bin{Op: op, A: g.operand(op, 0, t, d, budget, safe), B: g.shiftCount(op, t, d, budget, safe), T: t}
	case k < 60:
		op := g.oneOf(divOps)
		a := g.operand(op, 0, t, d, budget, safe)
		var b Expr
		if g.chance(divisorConstPct) {
			b = g.opConst(op, 1, t)
		} else {
			b = g.operand(op, 1, t, d, budget, safe)
		}
		return &Bin{Op: op, A: a, B: b, T: t, Guard: true, Neg: g.chance(50)}
	case k < 68:
		return &Un{Op: g.oneOf([]string{"neg", "not"}), A: g.expr(t, d, budget, safe)}
	case k < 84:
		op := g.oneOf(convI4)
		if t == I8 {
			op = g.oneOf(convI8)
		}
		return &Conv{Op: op, A: g.expr(g.typ(), d, budget, safe), T: t}
	case t == I4:
		ct := g.typ()
		op := g.oneOf(cmpOps)
		return &Cmp{Op: op, A: g.operand(op, 0, ct, d, budget, safe), B: g.operand(op, 1, ct, d, budget, safe)}
	}
	return g.leaf(t, budget, safe)
}

// risky returns an expression node that may throw: checked arithmetic
// and conversions, unguarded division, an index that may be out of
// range, field access through a reference that may be null, a cast or
// unbox that may fail, an element or the length of a row of the jagged
// static that may be null or too short.
func (g *gen) risky(t Type, depth int, budget *int) Expr {
	d := depth + 1
	if t == I4 && g.cc.IntN(100) < 8 {
		g.may(tie)
		return &FailedInit{}
	}
	if g.chance(valueRiskyPct) {
		if e := g.valueRisky(t, d, budget); e != nil {
			return e
		}
	}
	if t == I4 && g.chance(20) {
		// An interface call on any slot of ops: null, or an OpDiv that
		// divides by zero, throw.
		g.may(nre, "System.DivideByZeroException")
		return &IfaceCall{Idx: g.leaf(I4, budget, false), Arg: g.expr(I4, d, budget, false)}
	}
	k := g.r.IntN(100 + jagRisk)
	if t == I8 && k >= 60 {
		k %= 60
	}
	switch {
	case k >= 100:
		g.may(nre, "System.IndexOutOfRangeException")
		if k >= 100+jagRisk*3/4 {
			return &JagLen{Row: g.leaf(I4, budget, false)}
		}
		return &JagLoad{Row: g.leaf(I4, budget, false), Col: g.leaf(I4, budget, false), Token: g.chance(30)}
	case k < 25:
		g.may(ovf)
		op := g.oneOf(checkedOps)
		return &Bin{Op: op, A: g.operand(op, 0, t, d, budget, false), B: g.operand(op, 1, t, d, budget, false), T: t}
	case k < 45:
		g.may(ovf)
		op := g.oneOf(convOvfI4)
		if t == I8 {
			op = g.oneOf(convOvfI8)
		}
		a := g.expr(g.typ(), d, budget, false)
		if g.o.MonoSafe && op == "conv.ovf.u8" && a.Type() == I4 {
			// Mono 6.8 zero-extends an int32 computed by arithmetic
			// (also in a method it inlines) instead of throwing for a
			// negative one; a variable or constant it converts right.
			a = g.plainI4(budget)
		}
		return &Conv{Op: op, A: a, T: t}
	case k < 60:
		g.may("System.DivideByZeroException", ovf)
		// unguarded: a constant divisor may be 0 or -1 too
		op := g.oneOf(divOps)
		var b Expr
		if g.chance(divisorConstPct) {
			b = g.monoConst(&Const{T: t, V: []int64{0, -1, 1, 2, -2}[g.r.IntN(5)]})
		} else {
			b = g.expr(t, d, budget, false)
		}
		return &Bin{Op: op, A: g.operand(op, 0, t, d, budget, false), B: b, T: t}
	case k < 72:
		g.may("System.IndexOutOfRangeException")
		return &ArrLoad{Idx: g.leaf(I4, budget, false)}
	case k < 80:
		g.may(nre)
		return &BoxField{}
	case k < 90:
		g.may(nre, "System.InvalidCastException")
		return &CastField{}
	default:
		g.may(nre, "System.InvalidCastException")
		return &Unbox{}
	}
}

// valueExprPct is the chance (in percent) that an expression is one over
// value types and managed pointers (valueExpr); valueRiskyPct that a
// risky one is (valueRisky).
const (
	valueExprPct  = 7
	valueRiskyPct = 20
)

// plainI4 returns an int32 variable or constant.
func (g *gen) plainI4(budget *int) Expr {
	if g.chance(50) {
		return g.constant(I4)
	}
	vs := g.vars(I4)
	return &Load{V: vs[g.r.IntN(len(vs))]}
}

// jagRisk is the weight of the jagged array's loads among risky int32
// expressions, beside 100 for the others.
const jagRisk = 12

func (g *gen) leaf(t Type, budget *int, safe bool) Expr {
	k := g.r.IntN(100)
	switch {
	case k < 35:
		return g.constant(t)
	case k < 79:
		vs := g.vars(t)
		return &Load{V: vs[g.r.IntN(len(vs))]}
	case t == I4 && k < 82:
		// An interface call that cannot throw (slots 0 and 1 of ops).
		return &IfaceCall{Idx: g.leaf(I4, budget, safe), Arg: g.leaf(I4, budget, safe), Safe: true}
	case k < 82:
		vs := g.vars(t)
		return &Load{V: vs[g.r.IntN(len(vs))]}
	}
	if t == I4 {
		switch {
		case k < 90:
			if cl := g.callees(*budget, true); len(cl) > 0 {
				j := cl[g.r.IntN(len(cl))]
				*budget -= g.cost[j]
				g.mayAll(g.throws[j])
				c := &CallExpr{Callee: j}
				c.Args, c.SArgs, c.RArgs, c.OArgs = g.args(j, budget, safe)
				return c
			}
		case k < 96:
			if !safe && g.chance(25) {
				g.may(nre, "System.IndexOutOfRangeException")
				return &JagLoad{Row: g.leaf(I4, budget, safe), Col: g.leaf(I4, budget, safe), Token: g.chance(30)}
			}
			return &ArrLoad{Idx: g.leaf(I4, budget, safe), Safe: true}
		default:
			return &ArrLen{}
		}
	}
	return g.constant(t)
}
