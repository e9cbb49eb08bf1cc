package fuzz

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// headerPrefix starts the first line of a generated program; it records
// the seed and options so that the reducer can rebuild the AST.
const headerPrefix = "// miniil-fuzz "

// Header returns the first line of the program's IL text.
func (p *Program) Header() string {
	o := p.Opts
	mono := 0
	if o.MonoSafe {
		mono = 1
	}
	h := fmt.Sprintf("%sseed=%d opts=%d,%d,%d,%d,%d,%d", headerPrefix, p.Seed,
		o.MaxMethods, o.MaxStmts, o.MaxDepth, o.MaxExprDepth, o.MaxCost, mono)
	if o.Alloc != 0 || o.Shapes != 0 {
		// absent before Options.Alloc existed (and when 0)
		h += fmt.Sprintf(",%d", o.Alloc)
	}
	if o.Shapes != 0 {
		// absent before Options.Shapes existed (and when 0)
		h += fmt.Sprintf(",%d", o.Shapes)
	}
	return h
}

// ParseHeader reads the seed and options from a program's first line
// (without Options.Alloc or Options.Shapes, a 0, in the forms written
// before they existed).
func ParseHeader(src string) (seed uint64, o Options, ok bool) {
	line, _, _ := strings.Cut(src, "\n")
	rest, found := strings.CutPrefix(line, headerPrefix)
	if !found {
		return 0, o, false
	}
	var opts string
	if n, err := fmt.Sscanf(rest, "seed=%d opts=%s", &seed, &opts); err != nil || n != 2 {
		return 0, o, false
	}
	var vs []int
	for _, f := range strings.Split(opts, ",") {
		v, err := strconv.Atoi(f)
		if err != nil {
			return 0, o, false
		}
		vs = append(vs, v)
	}
	if len(vs) < 6 || len(vs) > 8 {
		return 0, o, false
	}
	o.MaxMethods, o.MaxStmts, o.MaxDepth, o.MaxExprDepth, o.MaxCost = vs[0], vs[1], vs[2], vs[3], vs[4]
	o.MonoSafe = vs[5] == 1
	if len(vs) >= 7 {
		o.Alloc = vs[6]
	}
	if len(vs) == 8 {
		o.Shapes = vs[7]
	}
	return seed, o, true
}

// GenerateIL returns the IL text of the program for seed.
func GenerateIL(seed uint64, opts Options) string {
	return Generate(seed, opts).IL()
}

type lframe struct {
	kind fkind
	id   int
	end  string
}

type lowerer struct {
	p    *Program
	used map[string]bool // statics, classes, helpers
	// knownUsed is used as the first pass found it.
	knownUsed map[string]bool
	produced  map[string]bool // exception classes that may reach a handler
	known     map[string]bool // produced, as found by a first pass
	reach     []bool
	// current method
	b      strings.Builder
	labels int
	indent int
	locals map[string]string // name -> type
	frames []lframe
	msg    int
	// tries holds the resume point of each try with Retry, by ID.
	tries map[int]*resumeInfo
	// deferred lowers, after the method's ret, the handlers laid out
	// there (Layout AfterRet).
	deferred []func()
	// cur is the method being lowered (m0 for an inlined root), nil in
	// the entry point.
	cur *Method
}

// resumeInfo is where a try's handlers resume (label) and the local that
// counts the resumes.
type resumeInfo struct {
	label, counter string
	retry          int
}

// IL lowers the program to mini MSIL text. Only what the program uses is
// emitted: reachable methods, used statics, classes and helpers.
func (p *Program) IL() string {
	// The first pass finds the exception classes the program can
	// produce; the second one lowers with that knowledge.
	first := newLowerer(p, nil)
	first.run()
	l := newLowerer(p, first.produced)
	l.knownUsed = first.used
	return fitMaxStack(l.run())
}

func newLowerer(p *Program, known map[string]bool) *lowerer {
	if known == nil {
		known = map[string]bool{}
	}
	return &lowerer{p: p, used: map[string]bool{}, produced: map[string]bool{}, known: known, knownUsed: map[string]bool{},
		reach: make([]bool, len(p.Methods)), tries: map[int]*resumeInfo{}}
}

func (l *lowerer) run() string {
	p := l.p
	var methods []string
	if len(p.Methods) > 0 && !p.InlineRoot {
		l.reach[0] = true
	}
	body, locals := l.entryBody()
	for i := range p.Methods {
		if l.reach[i] {
			methods = append(methods, l.method(i))
		}
	}
	entry := l.entry(body, locals)
	l.allocDeps()
	fns, smClass := l.fnDecls()
	var out strings.Builder
	out.WriteString(p.Header() + "\n")
	out.WriteString(".assembly extern mscorlib {}\n.assembly fuzz {}\n")
	out.WriteString(l.declarations())
	out.WriteString(smClass)
	out.WriteString(l.helpers())
	out.WriteString(fns)
	for _, m := range methods {
		out.WriteString(m)
	}
	out.WriteString(entry)
	return out.String()
}

func (l *lowerer) emit(format string, args ...any) {
	if strings.HasPrefix(format, "}") {
		l.indent--
	}
	for i := 0; i <= l.indent; i++ {
		l.b.WriteString("  ")
	}
	if strings.HasSuffix(format, "{") {
		l.indent++
	}
	fmt.Fprintf(&l.b, format, args...)
	l.b.WriteByte('\n')
}

func (l *lowerer) label(name string) { l.b.WriteString(name + ":\n") }

func (l *lowerer) newLabel() string { l.labels++; return "L" + strconv.Itoa(l.labels) }

func (l *lowerer) local(name, typ string) string {
	l.locals[name] = typ
	return name
}

// sig returns the signature of method i as a call names it.
func (l *lowerer) sig(m *Method, i int) string {
	return fmt.Sprintf("%s m%d(%s)", l.retType(m), i, strings.Join(l.paramTypes(m), ", "))
}

func (l *lowerer) retType(m *Method) string {
	if m.Ret {
		return "int32"
	}
	if s, ok := m.retStruct(); ok {
		return l.vtype(s)
	}
	return "void"
}

// paramName returns the name of parameter k of m (a, sa, ra then oa).
func (l *lowerer) paramName(m *Method, k int) string {
	switch {
	case k < len(m.Params):
		return fmt.Sprintf("a%d", k)
	case k < len(m.Params)+len(m.SParams):
		return fmt.Sprintf("sa%d", k-len(m.Params))
	case k < len(m.Params)+len(m.SParams)+len(m.RParams):
		return fmt.Sprintf("ra%d", k-len(m.Params)-len(m.SParams))
	}
	return fmt.Sprintf("oa%d", k-len(m.Params)-len(m.SParams)-len(m.RParams))
}

// paramTypes returns the types of m's parameters.
func (l *lowerer) paramTypes(m *Method) []string {
	var ps []string
	for _, t := range m.Params {
		ps = append(ps, t.il())
	}
	for _, s := range m.SParams {
		ps = append(ps, l.vtype(s))
	}
	for _, t := range m.RParams {
		ps = append(ps, l.ftype(t)+"&")
	}
	for range m.OParams {
		l.used["Node"] = true
		ps = append(ps, "class Node")
	}
	return ps
}

func (l *lowerer) method(i int) string {
	m := l.p.Methods[i]
	l.b.Reset()
	l.labels = 0
	l.indent = 0
	l.locals = map[string]string{}
	l.frames = []lframe{{fMethod, 0, "MEND"}}
	l.cur = m
	l.stmts(m.Body)
	l.label("MEND")
	l.valueEnd()
	l.allocEnd()
	l.retValue(m)
	l.emit("ret")
	l.flushDeferred()
	body := l.b.String()
	var h strings.Builder
	ps := l.paramTypes(m)
	for k := range ps {
		ps[k] += " " + l.paramName(m, k)
	}
	fmt.Fprintf(&h, ".method public static %s m%d(%s) cil managed\n{\n  .maxstack 64\n", l.retType(m), i, strings.Join(ps, ", "))
	h.WriteString(l.localsDecl())
	h.WriteString(body)
	h.WriteString("}\n")
	return h.String()
}

// retValue pushes the result of m, if any.
func (l *lowerer) retValue(m *Method) {
	if m.Ret {
		l.expr(orZero(m.RetExpr))
	} else if s, ok := m.retStruct(); ok {
		if m.RetSExpr == nil {
			l.sexpr(&SNew{S: s})
		} else {
			l.sexpr(m.RetSExpr)
		}
	}
}

func (l *lowerer) localsDecl() string {
	if len(l.locals) == 0 {
		return ""
	}
	names := make([]string, 0, len(l.locals))
	for n := range l.locals {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	var ds []string
	for _, n := range names {
		ds = append(ds, l.locals[n]+" "+n)
	}
	return "  .locals init (" + strings.Join(ds, ", ") + ")\n"
}

// expressions

func (l *lowerer) expr(e Expr) {
	switch e := e.(type) {
	case *Const:
		if e.T == I8 {
			l.emit("ldc.i8 %d", e.V)
		} else {
			l.emit("ldc.i4 %d", int32(e.V))
		}
	case *Load:
		l.load(e.V)
	case *Bin:
		l.expr(e.A)
		l.expr(e.B)
		switch {
		case e.Op == "div" || e.Op == "rem" || e.Op == "div.un" || e.Op == "rem.un":
			if e.Guard && !safeDivisor(e.Op, e.B) {
				// divisor in 2..257 (or -257..-2 for signed ops when B is odd): never 0 or -1
				c := "ldc.i4"
				if e.T == I8 {
					c = "ldc.i8"
				}
				l.emit("%s 255", c)
				l.emit("and")
				l.emit("%s 2", c)
				l.emit("add")
				if e.Neg && (e.Op == "div" || e.Op == "rem") {
					l.emit("neg")
				}
			} else {
				l.produced["System.DivideByZeroException"] = true
				l.produced["System.OverflowException"] = true
			}
		case strings.Contains(e.Op, ".ovf"):
			l.produced["System.OverflowException"] = true
		}
		l.emit("%s", e.Op)
	case *Un:
		l.expr(e.A)
		l.emit("%s", e.Op)
	case *Conv:
		l.expr(e.A)
		if strings.Contains(e.Op, ".ovf") {
			l.produced["System.OverflowException"] = true
		}
		l.emit("%s", e.Op)
	case *Cmp:
		l.expr(e.A)
		l.expr(e.B)
		l.emit("%s", e.Op)
	case *CallExpr:
		l.call(e.Callee, e.Args, e.SArgs, e.RArgs, e.OArgs)
		if m := l.p.Methods[e.Callee]; !m.Ret {
			if m.RetS > 0 {
				l.emit("pop")
			}
			l.emit("ldc.i4 0") // the reducer made the callee void
		}
	case *ArrLoad:
		l.arrIndex(e.Idx, e.Safe)
		l.emit("ldelem.i4")
	case *ArrLen:
		l.used["arr"] = true
		l.emit("ldsfld int32[] arr")
		l.emit("ldlen")
		l.emit("conv.i4")
	case *JagLoad:
		l.jagRow(e.Row, e.Token)
		l.jagCol(e.Col)
		if e.Token {
			l.emit("ldelem [mscorlib]System.Int32")
		} else {
			l.emit("ldelem.i4")
		}
	case *JagLen:
		l.jagRow(e.Row, false)
		l.emit("ldlen")
		l.emit("conv.i4")
	case *BoxField:
		l.used["bx"] = true
		l.produced["System.NullReferenceException"] = true
		l.emit("ldsfld class Box bx")
		l.emit("ldfld int32 Box::v")
	case *CastField:
		l.used["obj"] = true
		l.used["Box"] = true
		l.produced["System.NullReferenceException"] = true
		l.produced["System.InvalidCastException"] = true
		l.emit("ldsfld object obj")
		l.emit("castclass Box")
		l.emit("ldfld int32 Box::v")
	case *FailedInit:
		l.used["Bad"] = true
		l.produced[tie] = true
		l.emit("ldsfld int32 Bad::v")
	case *Unbox:
		l.used["obj"] = true
		l.produced["System.NullReferenceException"] = true
		l.produced["System.InvalidCastException"] = true
		l.emit("ldsfld object obj")
		l.emit("unbox.any [mscorlib]System.Int32")
	case *IfaceCall:
		l.used["ops"] = true
		l.emit("ldsfld class IOp[] ops")
		l.expr(e.Idx)
		if e.Safe {
			l.emit("ldc.i4 1")
		} else {
			l.produced["System.NullReferenceException"] = true
			l.produced["System.DivideByZeroException"] = true
			l.emit("ldc.i4 3")
		}
		l.emit("and")
		l.emit("ldelem.ref")
		l.expr(e.Arg)
		l.emit("callvirt instance int32 IOp::Apply(int32)")
	default:
		if !l.valueExpr(e) && !l.allocExpr(e) && !l.shapeExpr(e) {
			panic(fmt.Sprintf("fuzz: cannot lower %T", e))
		}
	}
}

// safeDivisor reports whether divisor b of op is a constant that cannot
// make it throw: not 0, and not -1 for a signed op (MinValue / -1
// overflows). A guarded division by it needs no guard, so the JIT sees a
// constant divisor.
func safeDivisor(op string, b Expr) bool {
	c, ok := b.(*Const)
	if !ok {
		return false
	}
	v := c.V
	if c.T == I4 {
		v = int64(int32(v))
	}
	return v != 0 && (v != -1 || strings.HasSuffix(op, ".un"))
}

func (l *lowerer) arrIndex(idx Expr, safe bool) {
	l.used["arr"] = true
	l.emit("ldsfld int32[] arr")
	l.expr(idx)
	if safe {
		l.emit("ldc.i4 3")
	} else {
		l.produced["System.IndexOutOfRangeException"] = true
		l.emit("ldc.i4 7")
	}
	l.emit("and")
}

// jagIndex pushes jag and the index Row & 3 (3 is out of range).
func (l *lowerer) jagIndex(row Expr) {
	l.used["jag"] = true
	l.produced["System.IndexOutOfRangeException"] = true
	l.emit("ldsfld int32[][] jag")
	l.expr(row)
	l.emit("ldc.i4 3")
	l.emit("and")
}

// jagRow pushes the row jag[row & 3], which may be null.
func (l *lowerer) jagRow(row Expr, token bool) {
	l.jagIndex(row)
	l.produced["System.NullReferenceException"] = true
	if token {
		l.emit("ldelem int32[]")
	} else {
		l.emit("ldelem.ref")
	}
}

// jagCol pushes the column index col & 7 (past the end of every row but
// arr's).
func (l *lowerer) jagCol(col Expr) {
	l.expr(col)
	l.emit("ldc.i4 7")
	l.emit("and")
}

func (l *lowerer) load(v Var) {
	switch v.Kind {
	case Local:
		l.emit("ldloc %s", l.localName(v))
	case Arg:
		l.emit("ldarg a%d", v.Index)
	case Static:
		l.emit("ldsfld %s %s", v.T.il(), l.staticName(v))
	}
}

func (l *lowerer) store(v Var) {
	switch v.Kind {
	case Local:
		l.emit("stloc %s", l.localName(v))
	case Arg:
		l.emit("starg a%d", v.Index)
	case Static:
		l.emit("stsfld %s %s", v.T.il(), l.staticName(v))
	}
}

func (l *lowerer) localName(v Var) string {
	if v.T == I8 {
		return l.local(fmt.Sprintf("w%d", v.Index), "int64")
	}
	return l.local(fmt.Sprintf("l%d", v.Index), "int32")
}

func (l *lowerer) staticName(v Var) string {
	n := fmt.Sprintf("s%d", v.Index)
	if v.T == I8 {
		n = fmt.Sprintf("g%d", v.Index)
	}
	if l.p.Cctor != NoCctor {
		l.used["St"] = true
		return "St::" + n
	}
	l.used[n] = true
	return n
}

func (l *lowerer) call(j int, args []Expr, sargs []SExpr, rargs []*Loc, oargs []RExpr) {
	l.reach[j] = true
	for _, a := range args {
		l.expr(a)
	}
	for _, a := range sargs {
		l.sexpr(a)
	}
	for _, a := range rargs {
		l.locAddr(a)
	}
	for _, a := range oargs {
		l.rexpr(a)
	}
	l.emit("call %s", l.sig(l.p.Methods[j], j))
}

// statements

func (l *lowerer) stmts(ss []Stmt) {
	for _, s := range ss {
		l.stmt(s)
	}
}

func (l *lowerer) mix() {
	l.used["mix"] = true
	l.emit("call void mix(int32)")
}

func (l *lowerer) stmt(s Stmt) {
	switch s := s.(type) {
	case *Assign:
		l.expr(s.E)
		l.store(s.Dst)
	case *Mix:
		l.expr(s.E)
		if s.Print {
			l.emit("dup")
			l.emit("call void [mscorlib]System.Console::WriteLine(%s)", s.E.Type().il())
		}
		if l.p.NoMix {
			l.emit("pop")
			break
		}
		if s.E.Type() == I8 {
			l.emit("dup")
			l.emit("ldc.i4 32")
			l.emit("shr")
			l.emit("xor")
			l.emit("conv.i4")
		}
		l.mix()
	case *Trace:
		l.trace(s.ID)
	case *If:
		then, end := l.newLabel(), l.newLabel()
		l.cond(s.C, then)
		l.stmts(s.Else)
		l.emit("br %s", end)
		l.label(then)
		l.stmts(s.Then)
		l.label(end)
	case *Loop:
		head, end := l.newLabel(), l.newLabel()
		c := l.local(fmt.Sprintf("c%d", s.ID), "int32")
		l.emit("ldc.i4 0")
		l.emit("stloc %s", c)
		l.label(head)
		l.emit("ldloc %s", c)
		l.emit("ldc.i4 %d", s.N)
		l.emit("bge %s", end)
		l.frames = append(l.frames, lframe{fLoop, s.ID, end})
		l.stmts(s.Body)
		l.frames = l.frames[:len(l.frames)-1]
		l.emit("ldloc %s", c)
		l.emit("ldc.i4 1")
		l.emit("add")
		l.emit("stloc %s", c)
		l.emit("br %s", head)
		l.label(end)
	case *Switch:
		l.expr(s.E)
		var cases []string
		for range s.Cases {
			cases = append(cases, l.newLabel())
		}
		def, end := l.newLabel(), l.newLabel()
		l.emit("switch (%s)", strings.Join(cases, ", "))
		l.emit("br %s", def)
		for i, c := range cases {
			l.label(c)
			l.stmts(s.Cases[i])
			l.emit("br %s", end)
		}
		l.label(def)
		l.stmts(s.Default)
		l.label(end)
	case *CallStmt:
		l.call(s.Callee, s.Args, s.SArgs, s.RArgs, s.OArgs)
		if m := l.p.Methods[s.Callee]; m.Ret || m.RetS > 0 {
			l.emit("pop")
		}
	case *Throw:
		if isUser(s.Class) {
			l.userClass(s.Class)
			code := s.Code
			if code == nil {
				code = &Const{T: I4}
			}
			l.expr(code)
			l.emit("newobj instance void %s::.ctor(int32)", s.Class)
		} else {
			l.msg++
			l.emit("ldstr \"x%d\"", l.msg)
			l.emit("newobj instance void [mscorlib]%s::.ctor(string)", s.Class)
		}
		l.produced[s.Class] = true
		l.emit("throw")
	case *ThrowNull:
		l.produced["System.NullReferenceException"] = true
		l.emit("ldnull")
		l.emit("throw")
	case *Rethrow:
		if l.canRethrow() {
			l.emit("rethrow")
		}
	case *Resume:
		if r := l.resumeTarget(s.Try); r != nil {
			skip := l.newLabel()
			l.emit("ldloc %s", r.counter)
			l.emit("ldc.i4 %d", r.retry)
			l.emit("bge %s", skip)
			l.emit("ldloc %s", r.counter)
			l.emit("ldc.i4 1")
			l.emit("add")
			l.emit("stloc %s", r.counter)
			l.emit("leave %s", r.label)
			l.label(skip)
		}
	case *Leave:
		if lbl, crossing, ok := l.leaveTarget(s.Target); ok {
			if crossing {
				l.emit("leave %s", lbl)
			} else {
				l.emit("br %s", lbl)
			}
		}
	case *SetBox:
		l.used["bx"] = true
		if s.Null || s.E == nil {
			l.emit("ldnull")
		} else {
			l.expr(s.E)
			l.emit("newobj instance void Box::.ctor(int32)")
		}
		l.emit("stsfld class Box bx")
	case *SetObj:
		l.used["obj"] = true
		if s.FromBox || s.E == nil {
			l.used["bx"] = true
			l.emit("ldsfld class Box bx")
		} else {
			l.expr(s.E)
			l.emit("box [mscorlib]System.Int32")
		}
		l.emit("stsfld object obj")
	case *StoreElem:
		l.arrIndex(s.Idx, s.Safe)
		l.expr(s.E)
		l.emit("stelem.i4")
	case *StoreField:
		l.used["bx"] = true
		l.produced["System.NullReferenceException"] = true
		l.emit("ldsfld class Box bx")
		l.expr(s.E)
		l.emit("stfld int32 Box::v")
	case *JagStore:
		l.jagRow(s.Row, s.Token)
		l.jagCol(s.Col)
		l.expr(s.E)
		if s.Token {
			l.emit("stelem [mscorlib]System.Int32")
		} else {
			l.emit("stelem.i4")
		}
	case *SetRow:
		l.jagIndex(s.Row)
		switch s.Val {
		case RowNull:
			l.emit("ldnull")
		case RowNew:
			l.emit("ldc.i4 %d", s.Len)
			l.emit("newarr [mscorlib]System.Int32")
		case RowArr:
			l.used["arr"] = true
			l.emit("ldsfld int32[] arr")
		case RowString:
			l.produced["System.ArrayTypeMismatchException"] = true
			l.emit(`ldstr "row"`)
		}
		l.emit("stelem.ref")
	case *SetOp:
		l.used["ops"] = true
		l.emit("ldsfld class IOp[] ops")
		l.emit("ldc.i4 %d", s.Slot)
		if s.Kind == OpNull || s.E == nil {
			l.emit("ldnull")
		} else {
			l.expr(s.E)
			l.emit("newobj instance void %s::.ctor(int32)", opClass[s.Kind])
		}
		l.emit("stelem.ref")
	case *BumpCode:
		l.bumpCode(s.Delta)
	case *Try:
		l.try(s)
	default:
		if !l.valueStmt(s) && !l.allocStmt(s) && !l.shapeStmt(s) {
			panic(fmt.Sprintf("fuzz: cannot lower %T", s))
		}
	}
}

// cond branches to then when c holds.
func (l *lowerer) cond(c Cond, then string) {
	l.expr(c.A)
	if c.Op == "" {
		l.emit("brtrue %s", then)
	} else {
		l.expr(c.B)
		l.emit("%s %s", c.Op, then)
	}
}

func (l *lowerer) userClass(c string) {
	l.used[c] = true
	if c == "E3" {
		l.used["E1"] = true
	}
}

// bumpCode adds delta to the code field of the exception in ex, when it
// is one of the program's user exceptions.
func (l *lowerer) bumpCode(delta int32) {
	ex := l.local("ex", "object")
	for _, c := range []string{"E1", "E2"} {
		if !l.known[c] && !(c == "E1" && l.known["E3"]) {
			continue
		}
		skip := l.newLabel()
		l.emit("ldloc %s", ex)
		l.emit("isinst %s", c)
		l.emit("brfalse %s", skip)
		l.emit("ldloc %s", ex)
		l.emit("castclass %s", c)
		l.emit("dup")
		l.emit("ldfld int32 %s::code", c)
		l.emit("ldc.i4 %d", delta)
		l.emit("add")
		l.emit("stfld int32 %s::code", c)
		l.label(skip)
	}
}

func (l *lowerer) canRethrow() bool {
	return rethrowAllowed(len(l.frames), func(k int) fkind { return l.frames[k].kind }, !l.p.Opts.MonoSafe)
}

// resumeTarget returns the resume point of try id when the code being
// lowered is in one of its catch or filter handlers, with no finally,
// fault or filter in between (nil otherwise).
func (l *lowerer) resumeTarget(id int) *resumeInfo {
	for k := len(l.frames) - 1; k >= 0; k-- {
		f := l.frames[k]
		switch f.kind {
		case fFinally, fFault, fFilter, fMethod:
			return nil
		case fCatch, fFilterHandler:
			if f.id == id {
				return l.tries[id]
			}
		}
	}
	return nil
}

// topLevel reports whether the code being lowered is outside every
// protected region and handler.
func (l *lowerer) topLevel() bool {
	for _, f := range l.frames {
		if f.kind != fMethod && f.kind != fLoop {
			return false
		}
	}
	return true
}

// flushDeferred lowers the handlers laid out after the method's ret.
func (l *lowerer) flushDeferred() {
	for len(l.deferred) > 0 {
		f := l.deferred[0]
		l.deferred = l.deferred[1:]
		f()
	}
}

// leaveTarget finds the end label of target, and whether reaching it
// leaves a protected region (leave) or not (br).
func (l *lowerer) leaveTarget(target int) (string, bool, bool) {
	crossing := false
	for k := len(l.frames) - 1; k >= 0; k-- {
		f := l.frames[k]
		switch f.kind {
		case fFinally, fFault, fFilter:
			return "", false, false
		case fTry, fCatch, fFilterHandler:
			crossing = true
			if f.id == target {
				return f.end, true, true
			}
		case fLoop:
			if f.id == target {
				return f.end, crossing, true
			}
		case fMethod:
			if target == 0 {
				return f.end, crossing, true
			}
		}
	}
	return "", false, false
}

func (l *lowerer) trace(id int) {
	l.used["trace"] = true
	if !l.p.NoMix {
		l.used["mix"] = true
	}
	l.emit("ldc.i4 %d", id)
	l.emit("call void trace(int32)")
}

func (l *lowerer) enter(id int) {
	if l.p.NoEnter {
		l.emit("pop")
		return
	}
	ex := l.local("ex", "object")
	l.emit("stloc %s", ex)
	if l.p.InlineEnter {
		l.used["tname"] = true
		l.emit("ldstr \"h%d \"", id)
		l.emit("call void [mscorlib]System.Console::Write(string)")
		l.emit("ldloc %s", ex)
		l.emit("call string tname(object)")
		l.emit("call void [mscorlib]System.Console::WriteLine(string)")
		return
	}
	l.used["enter"] = true
	if !l.p.NoMix {
		l.used["mix"] = true
	}
	l.used["tname"] = true
	l.emit("ldloc %s", ex)
	l.emit("ldc.i4 %d", id)
	l.emit("call void enter(object, int32)")
}

func (l *lowerer) try(t *Try) {
	if len(t.Handlers) == 0 {
		l.stmts(t.Body)
		return
	}
	end := l.newLabel()
	if t.Retry > 0 && (t.Handlers[0].Kind == Catch || t.Handlers[0].Kind == Filter) {
		r := &resumeInfo{label: l.newLabel(), counter: l.local(fmt.Sprintf("rt%d", t.ID), "int32"), retry: t.Retry}
		l.tries[t.ID] = r
		l.emit("ldc.i4 0")
		l.emit("stloc %s", r.counter)
	} else {
		delete(l.tries, t.ID)
	}
	layout := t.Layout
	if layout == AfterRet && !l.topLevel() {
		layout = Before
	}
	if layout == Scoped {
		l.emit(".try {")
		l.tryBody(t, end)
		for _, h := range t.Handlers {
			switch h.Kind {
			case Catch:
				l.emit("} catch %s {", l.classRef(h.Class))
			case Filter:
				l.emit("} filter {")
				l.filterCode(t, h)
				l.emit("} {")
			case Finally:
				l.emit("} finally {")
			case Fault:
				l.emit("} fault {")
			}
			l.handlerCode(t, h, end)
		}
		l.emit("}")
		l.label(end)
		return
	}
	// Label form: the handlers go before the try body (jumped over) or
	// after the method's ret; the clauses follow the construct, so the
	// ones nested in it come first in the table.
	start, tend := l.newLabel(), l.newLabel()
	handlers := func() []string {
		var heads []string // per handler: FROM (and filter start) labels
		for _, h := range t.Handlers {
			if h.Kind == Filter {
				fl := l.newLabel()
				l.label(fl)
				l.filterCode(t, h)
				heads = append(heads, fl)
			} else {
				heads = append(heads, "")
			}
			hl := l.newLabel()
			l.label(hl)
			l.handlerCode(t, h, end)
			heads = append(heads, hl)
		}
		return heads
	}
	clauses := func(heads []string, last string) {
		for i, h := range t.Handlers {
			to := last
			if i+1 < len(t.Handlers) {
				to = heads[2*i+2]
				if to == "" {
					to = heads[2*i+3]
				}
			}
			head := fmt.Sprintf(".try %s to %s ", start, tend)
			switch h.Kind {
			case Catch:
				l.emit("%scatch %s handler %s to %s", head, l.classRef(h.Class), heads[2*i+1], to)
			case Filter:
				l.emit("%sfilter %s handler %s to %s", head, heads[2*i], heads[2*i+1], to)
			case Finally:
				l.emit("%sfinally handler %s to %s", head, heads[2*i+1], to)
			case Fault:
				l.emit("%sfault handler %s to %s", head, heads[2*i+1], to)
			}
		}
	}
	if layout == Before {
		l.emit("br %s", start)
		heads := handlers()
		l.label(start)
		l.tryBody(t, end)
		l.label(tend)
		l.label(end)
		clauses(heads, start)
		return
	}
	l.label(start)
	l.tryBody(t, end)
	l.label(tend)
	l.label(end)
	frames := slices.Clone(l.frames)
	l.deferred = append(l.deferred, func() {
		saved := l.frames
		l.frames = frames
		heads := handlers()
		hend := l.newLabel()
		l.label(hend)
		l.frames = saved
		clauses(heads, hend)
	})
}

// tryBody lowers a try's body, with its resume label, and its final
// leave.
func (l *lowerer) tryBody(t *Try, end string) {
	r := l.tries[t.ID]
	l.frames = append(l.frames, lframe{fTry, t.ID, end})
	for i, s := range t.Body {
		if r != nil && i == t.ResumeAt {
			l.label(r.label)
		}
		l.stmt(s)
	}
	if r != nil && t.ResumeAt >= len(t.Body) {
		l.label(r.label)
	}
	l.frames = l.frames[:len(l.frames)-1]
	l.emit("leave %s", end)
}

// classRef names exception class c in a catch clause or isinst.
func (l *lowerer) classRef(c string) string {
	if isLocal(c) {
		l.userClass(c)
		return c
	}
	return "[mscorlib]" + c
}

// filterCode lowers the filter block of filter handler h, up to its
// endfilter.
func (l *lowerer) filterCode(t *Try, h *Handler) {
	l.enter(h.ID)
	l.frames = append(l.frames, lframe{fFilter, t.ID, ""}) // nothing leaves a filter
	l.stmts(h.FilterBody)
	if h.FilterType != "" {
		l.emit("ldloc %s", l.local("ex", "object"))
		l.emit("isinst %s", l.classRef(h.FilterType))
		l.emit("ldnull")
		l.emit("cgt.un")
	}
	if h.FilterCond != nil {
		l.expr(h.FilterCond)
		l.emit("ldc.i4 0")
		l.emit("cgt.un")
		if h.FilterType != "" {
			l.emit("and")
		}
	}
	if h.FilterType == "" && h.FilterCond == nil {
		l.emit("ldc.i4 1")
	}
	l.frames = l.frames[:len(l.frames)-1]
	l.emit("endfilter")
}

// handlerCode lowers the handler block of h, which leaves to end (a
// catch or filter handler) or ends with endfinally or endfault.
func (l *lowerer) handlerCode(t *Try, h *Handler, end string) {
	var k fkind
	switch h.Kind {
	case Catch:
		l.enter(h.ID)
		k = fCatch
	case Filter:
		l.enter(-h.ID)
		k = fFilterHandler
	case Finally, Fault:
		if !l.p.NoEnter {
			l.trace(h.ID)
		}
		k = fFinally
		if h.Kind == Fault {
			k = fFault
		}
	}
	l.frames = append(l.frames, lframe{k, t.ID, end})
	l.stmts(h.Body)
	l.frames = l.frames[:len(l.frames)-1]
	switch h.Kind {
	case Finally:
		l.emit("endfinally")
	case Fault:
		l.emit("endfault")
	default:
		l.emit("leave %s", end)
	}
}

// entry point, declarations and helpers

// entryBody lowers the entry point's body, before the methods that it
// makes reachable.
func (l *lowerer) entryBody() (string, string) {
	l.b.Reset()
	l.labels = 0
	l.locals = map[string]string{}
	l.indent = 0
	if !l.p.NoCatchAll {
		l.used["tname"] = true
		l.emit(".try {")
	}
	l.cur = nil
	if l.p.InlineRoot && len(l.p.Methods) > 0 {
		// m0's body, in place of the call
		l.cur = l.p.Methods[0]
		l.frames = []lframe{{fTry, -1, "END"}, {fMethod, 0, "MEND"}}
		l.stmts(l.p.Methods[0].Body)
		l.label("MEND")
		l.valueEnd()
		l.allocEnd()
	} else {
		l.emit("call void m0()")
	}
	if !l.p.NoCatchAll {
		l.emit("leave END")
		l.emit("} catch [mscorlib]System.Object {")
		l.emit("ldstr \"caught \"")
		l.emit("call void [mscorlib]System.Console::Write(string)")
		l.emit("call string tname(object)")
		l.emit("call void [mscorlib]System.Console::WriteLine(string)")
		l.emit("leave END")
		l.emit("}")
		l.label("END")
	}
	if l.p.NoEnd {
		l.emit("ldc.i4 0")
	} else {
		l.cur = nil
		l.staticsEnd()
		l.allocStaticsEnd()
		l.emit("ldstr \"end \"")
		l.emit("call void [mscorlib]System.Console::Write(string)")
		l.emit("ldsfld int32 hash")
		l.emit("call void [mscorlib]System.Console::WriteLine(int32)")
		l.emit("ldsfld int32 hash")
		l.emit("ldc.i4 63")
		l.emit("and")
	}
	l.emit("ret")
	l.flushDeferred()
	return l.b.String(), l.localsDecl()
}

// entry assembles the entry point: the initialization of the statics
// the program uses, then the body.
func (l *lowerer) entry(body, locals string) string {
	l.b.Reset()
	l.indent = 0
	if l.used["arr"] {
		l.emit("ldc.i4 5")
		l.emit("newarr [mscorlib]System.Int32")
		l.emit("stsfld int32[] arr")
	}
	if l.used["jag"] {
		// rows: an int32[4], null, and arr (or an int32[2])
		l.emit("ldc.i4 3")
		l.emit("newarr int32[]")
		l.emit("stsfld int32[][] jag")
		l.emit("ldsfld int32[][] jag")
		l.emit("ldc.i4 0")
		l.emit("ldc.i4 4")
		l.emit("newarr [mscorlib]System.Int32")
		l.emit("stelem.ref")
		l.emit("ldsfld int32[][] jag")
		l.emit("ldc.i4 2")
		if l.used["arr"] {
			l.emit("ldsfld int32[] arr")
		} else {
			l.emit("ldc.i4 2")
			l.emit("newarr [mscorlib]System.Int32")
		}
		l.emit("stelem.ref")
	}
	if l.used["bx"] {
		l.emit("ldc.i4 7")
		l.emit("newobj instance void Box::.ctor(int32)")
		l.emit("stsfld class Box bx")
	}
	if l.used["ops"] {
		l.emit("ldc.i4 4")
		l.emit("newarr IOp")
		l.emit("stsfld class IOp[] ops")
		for slot, c := range []struct {
			kind OpKind
			k    int
		}{{OpAdd, 3}, {OpMul, 5}, {OpDiv, 7}} {
			l.emit("ldsfld class IOp[] ops")
			l.emit("ldc.i4 %d", slot)
			l.emit("ldc.i4 %d", c.k)
			l.emit("newobj instance void %s::.ctor(int32)", opClass[c.kind])
			l.emit("stelem.ref")
		}
	}
	if l.used["obj"] {
		l.emit("ldc.i4 9")
		l.emit("box [mscorlib]System.Int32")
		l.emit("stsfld object obj")
	}
	l.valueInits()
	l.allocInits()
	l.shapeInits()
	l.b.WriteString(body)
	var h strings.Builder
	h.WriteString(".method public static int32 main() cil managed\n{\n  .entrypoint\n  .maxstack 64\n")
	h.WriteString(locals)
	h.WriteString(l.b.String())
	h.WriteString("}\n")
	return h.String()
}

func (l *lowerer) declarations() string {
	var b strings.Builder
	if l.used["bx"] || l.used["obj"] || l.used["Box"] {
		l.used["Box"] = true
		b.WriteString(`.class public auto ansi beforefieldinit Box extends [mscorlib]System.Object
{
  .field public int32 v
  .method public hidebysig specialname rtspecialname instance void .ctor(int32 x) cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0
    ldarg.1
    stfld int32 Box::v
    ret
  }
}
`)
	}
	if l.used["E1"] {
		b.WriteString(userClassDecl("E1", "[mscorlib]System.Exception"))
	}
	if l.used["E2"] {
		b.WriteString(userClassDecl("E2", "[mscorlib]System.ApplicationException"))
	}
	if l.used["E3"] {
		b.WriteString(`.class public auto ansi beforefieldinit E3 extends E1
{
  .method public hidebysig specialname rtspecialname instance void .ctor(int32 c) cil managed
  {
    ldarg.0
    ldarg.1
    call instance void E1::.ctor(int32)
    ret
  }
}
`)
	}
	if l.used["ops"] {
		b.WriteString(opDecls)
	}
	b.WriteString(l.structDecls())
	b.WriteString(l.allocDecls())
	if l.used["St"] {
		b.WriteString(l.staticsClass())
	}
	if l.used["Bad"] {
		b.WriteString(badClass)
	}
	if l.used["mix"] || l.used["trace"] || l.used["enter"] || !l.p.NoEnd || l.used["St"] || l.used["Bad"] {
		b.WriteString(".field public static int32 hash\n")
	}
	for i := 0; i < nStaticI4; i++ {
		if l.used[fmt.Sprintf("s%d", i)] {
			fmt.Fprintf(&b, ".field public static int32 s%d\n", i)
		}
	}
	for i := 0; i < nStaticI8; i++ {
		if l.used[fmt.Sprintf("g%d", i)] {
			fmt.Fprintf(&b, ".field public static int64 g%d\n", i)
		}
	}
	if l.used["arr"] {
		b.WriteString(".field public static int32[] arr\n")
	}
	if l.used["jag"] {
		b.WriteString(".field public static int32[][] jag\n")
	}
	if l.used["bx"] {
		b.WriteString(".field public static class Box bx\n")
	}
	if l.used["obj"] {
		b.WriteString(".field public static object obj\n")
	}
	return b.String()
}

// staticsClass declares St, which holds the static variables when the
// program has a static constructor (Program.Cctor): it sets them to
// their initial values and, for a precise class, mixes the hash, so the
// output shows where it ran.
func (l *lowerer) staticsClass() string {
	var b strings.Builder
	attrs := "public auto ansi"
	if l.p.Cctor == LazyCctor {
		attrs += " beforefieldinit"
	}
	fmt.Fprintf(&b, ".class %s St extends [mscorlib]System.Object\n{\n", attrs)
	for i := 0; i < nStaticI4; i++ {
		fmt.Fprintf(&b, "  .field public static int32 s%d\n", i)
	}
	for i := 0; i < nStaticI8; i++ {
		fmt.Fprintf(&b, "  .field public static int64 g%d\n", i)
	}
	b.WriteString("  .method private hidebysig specialname rtspecialname static void .cctor() cil managed\n  {\n    .maxstack 2\n")
	if l.p.Cctor == PreciseCctor {
		b.WriteString("    ldsfld int32 hash\n    ldc.i4 31\n    mul\n    ldc.i4 7001\n    add\n    stsfld int32 hash\n")
	}
	for i, v := range l.p.CctorInit {
		if i < nStaticI4 {
			fmt.Fprintf(&b, "    ldc.i4 %d\n    stsfld int32 St::s%d\n", v, i)
		} else {
			fmt.Fprintf(&b, "    ldc.i8 %d\n    stsfld int64 St::g%d\n", v, i-nStaticI4)
		}
	}
	b.WriteString("    ret\n  }\n}\n")
	return b.String()
}

// badClass declares Bad, whose static constructor mixes the hash and
// fails (FailedInit).
const badClass = `.class public auto ansi Bad extends [mscorlib]System.Object
{
  .field public static int32 v
  .method private hidebysig specialname rtspecialname static void .cctor() cil managed
  {
    .maxstack 2
    ldsfld int32 hash
    ldc.i4 31
    mul
    ldc.i4 9001
    add
    stsfld int32 hash
    newobj instance void [mscorlib]System.InvalidOperationException::.ctor()
    throw
  }
}
`

// opClass names the class of each OpKind.
var opClass = [...]string{OpAdd: "OpAdd", OpMul: "OpMul", OpDiv: "OpDiv"}

// opDecls declares the interface IOp, the classes implementing it (OpMul
// through its base class OpAdd, whose implementation it overrides) and
// the static array ops.
const opDecls = `.class interface public abstract auto ansi IOp
{
  .method public hidebysig newslot abstract virtual instance int32 Apply(int32 x) cil managed {}
}
.class public auto ansi beforefieldinit OpAdd extends [mscorlib]System.Object implements IOp
{
  .field public int32 k
  .method public hidebysig specialname rtspecialname instance void .ctor(int32 k) cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0
    ldarg.1
    stfld int32 OpAdd::k
    ret
  }
  .method public hidebysig newslot virtual instance int32 Apply(int32 x) cil managed
  {
    ldarg.1
    ldarg.0
    ldfld int32 OpAdd::k
    add
    ret
  }
}
.class public auto ansi beforefieldinit OpMul extends OpAdd
{
  .method public hidebysig specialname rtspecialname instance void .ctor(int32 k) cil managed
  {
    ldarg.0
    ldarg.1
    call instance void OpAdd::.ctor(int32)
    ret
  }
  .method public hidebysig virtual instance int32 Apply(int32 x) cil managed
  {
    ldarg.1
    ldarg.0
    ldfld int32 OpAdd::k
    mul
    ret
  }
}
.class public auto ansi beforefieldinit OpDiv extends [mscorlib]System.Object implements IOp
{
  .field public int32 k
  .method public hidebysig specialname rtspecialname instance void .ctor(int32 k) cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0
    ldarg.1
    stfld int32 OpDiv::k
    ret
  }
  .method public hidebysig newslot virtual instance int32 Apply(int32 x) cil managed
  {
    ldc.i4 1000
    ldarg.1
    ldarg.0
    ldfld int32 OpDiv::k
    and
    div
    ret
  }
}
.field public static class IOp[] ops
`

func userClassDecl(name, base string) string {
	return fmt.Sprintf(`.class public auto ansi beforefieldinit %[1]s extends %[2]s
{
  .field public int32 code
  .method public hidebysig specialname rtspecialname instance void .ctor(int32 c) cil managed
  {
    ldarg.0
    call instance void %[2]s::.ctor()
    ldarg.0
    ldarg.1
    stfld int32 %[1]s::code
    ret
  }
}
`, name, base)
}

const writeStr = "call void [mscorlib]System.Console::Write(string)"

func (l *lowerer) helpers() string {
	var b strings.Builder
	b.WriteString(l.valueHelpers())
	b.WriteString(l.allocHelpers())
	if l.used["mix"] {
		b.WriteString(`.method public static void mix(int32 v) cil managed
{
  ldsfld int32 hash
  ldc.i4 31
  mul
  ldarg.0
  add
  stsfld int32 hash
  ret
}
`)
	}
	mix := !l.p.NoMix
	lines := func(ls ...string) {
		for _, x := range ls {
			if x != "" {
				b.WriteString("  " + x + "\n")
			}
		}
	}
	when := func(c bool, x string) string {
		if c {
			return x
		}
		return ""
	}
	if l.used["trace"] {
		b.WriteString(".method public static void trace(int32 id) cil managed\n{\n")
		lines(when(mix, "ldarg.0"), when(mix, "call void mix(int32)"),
			`ldstr "t"`, writeStr, "ldarg.0", "call void [mscorlib]System.Console::Write(int32)",
			`ldstr " "`, writeStr, "ldsfld int32 hash", "call void [mscorlib]System.Console::WriteLine(int32)", "ret")
		b.WriteString("}\n")
	}
	if l.used["enter"] {
		b.WriteString(".method public static void enter(object e, int32 id) cil managed\n{\n")
		lines(when(mix, "ldarg.1"), when(mix, "call void mix(int32)"))
		for _, c := range []string{"E1", "E2"} {
			if !l.used[c] || !mix {
				continue
			}
			lines("ldarg.0", "isinst "+c, "brfalse N"+c, "ldarg.0", "castclass "+c, "ldfld int32 "+c+"::code", "call void mix(int32)")
			b.WriteString("N" + c + ":\n")
		}
		if l.used[exNode] && mix {
			// the code and a walk of the payload of an EN
			lines("ldarg.0", "isinst EN", "brfalse NEN", "ldarg.0", "castclass EN", "ldfld int32 EN::code", "call void mix(int32)",
				"ldarg.0", "castclass EN", "ldfld class Node EN::payload", "ldc.i4 64", callNsum, "call void mix(int32)")
			b.WriteString("NEN:\n")
		}
		lines(`ldstr "h"`, writeStr, "ldarg.1", "call void [mscorlib]System.Console::Write(int32)",
			`ldstr " "`, writeStr, "ldarg.0", "call string tname(object)")
		if mix {
			lines("dup", writeStr, "callvirt instance int32 [mscorlib]System.String::get_Length()", "call void mix(int32)")
		} else {
			lines(writeStr)
		}
		lines(`ldstr " "`, writeStr, "ldsfld int32 hash", "call void [mscorlib]System.Console::WriteLine(int32)", "ret")
		b.WriteString("}\n")
	}
	if l.used["tname"] {
		var names []string
		for c := range l.produced {
			names = append(names, c)
		}
		sort.Slice(names, func(i, j int) bool {
			di, dj := classDepth(names[i]), classDepth(names[j])
			if di != dj {
				return di > dj
			}
			return names[i] < names[j]
		})
		b.WriteString(".method public static string tname(object e) cil managed\n{\n")
		for k, c := range names {
			ref := c
			if !isLocal(c) {
				ref = "[mscorlib]" + c
			}
			fmt.Fprintf(&b, "  ldarg.0\n  isinst %s\n  brfalse T%d\n  ldstr \"%s\"\n  ret\nT%d:\n", ref, k, c, k)
		}
		b.WriteString("  ldstr \"other\"\n  ret\n}\n")
	}
	return b.String()
}
