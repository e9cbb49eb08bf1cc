package fuzz

import "slices"

// Walking and reducing value types, locations and managed pointers.

// parts are a node's direct children: int expressions, value-type
// expressions and locations, Node expressions and reference and Pair
// locations (alloc.go).
type parts struct {
	exprs  []*Expr
	sexprs []*SExpr
	locs   []*Loc
	rexprs []*RExpr
	rlocs  []*RLoc
	qlocs  []*QLoc
}

func (ps *parts) expr(x *Expr) {
	if *x != nil {
		ps.exprs = append(ps.exprs, x)
	}
}

func (ps *parts) call(args []Expr, sargs []SExpr, rargs []*Loc, oargs []RExpr) {
	for i := range args {
		ps.expr(&args[i])
	}
	for i := range sargs {
		ps.sexprs = append(ps.sexprs, &sargs[i])
	}
	ps.locs = append(ps.locs, rargs...)
	for i := range oargs {
		ps.rexpr(&oargs[i])
	}
}

// exprParts returns the children of an int expression.
func exprParts(x Expr) parts {
	var ps parts
	switch x := x.(type) {
	case *Bin:
		ps.expr(&x.A)
		ps.expr(&x.B)
	case *Un:
		ps.expr(&x.A)
	case *Conv:
		ps.expr(&x.A)
	case *Cmp:
		ps.expr(&x.A)
		ps.expr(&x.B)
	case *CallExpr:
		ps.call(x.Args, x.SArgs, x.RArgs, x.OArgs)
	case *ArrLoad:
		ps.expr(&x.Idx)
	case *JagLoad:
		ps.expr(&x.Row)
		ps.expr(&x.Col)
	case *JagLen:
		ps.expr(&x.Row)
	case *IfaceCall:
		ps.expr(&x.Idx)
		ps.expr(&x.Arg)
	case *LocLoad:
		ps.locs = append(ps.locs, x.L)
	case *SHash:
		ps.sexprs = append(ps.sexprs, &x.Src)
	case *SStep:
		ps.locs = append(ps.locs, x.L)
		ps.expr(&x.Arg)
	case *SField:
		ps.sexprs = append(ps.sexprs, &x.Src)
	default:
		allocExprParts(x, &ps)
	}
	return ps
}

// sexprParts returns the children of a value-type expression.
func sexprParts(x SExpr) parts {
	var ps parts
	switch x := x.(type) {
	case *SLoad:
		ps.locs = append(ps.locs, x.L)
	case *SNew:
		ps.expr(&x.Arg)
	case *SCall:
		ps.call(x.Args, x.SArgs, x.RArgs, x.OArgs)
	case *SCond:
		ps.expr(&x.C.A)
		ps.expr(&x.C.B)
		ps.sexprs = append(ps.sexprs, &x.A, &x.B)
	}
	return ps
}

// locParts returns the index expressions of a location.
func locParts(L *Loc) parts {
	var ps parts
	if L != nil {
		ps.expr(&L.Idx)
		ps.expr(&L.Col)
	}
	return ps
}

// stmtParts returns a statement's own children (not its nested blocks).
func stmtParts(s Stmt) parts {
	var ps parts
	switch s := s.(type) {
	case *Assign:
		ps.expr(&s.E)
	case *Mix:
		ps.expr(&s.E)
	case *If:
		ps.expr(&s.C.A)
		ps.expr(&s.C.B)
	case *Switch:
		ps.expr(&s.E)
	case *CallStmt:
		ps.call(s.Args, s.SArgs, s.RArgs, s.OArgs)
	case *Throw:
		ps.expr(&s.Code)
	case *SetBox:
		ps.expr(&s.E)
	case *SetObj:
		ps.expr(&s.E)
	case *StoreElem:
		ps.expr(&s.Idx)
		ps.expr(&s.E)
	case *StoreField:
		ps.expr(&s.E)
	case *JagStore:
		ps.expr(&s.Row)
		ps.expr(&s.Col)
		ps.expr(&s.E)
	case *SetRow:
		ps.expr(&s.Row)
	case *SetOp:
		ps.expr(&s.E)
	case *Try:
		for _, h := range s.Handlers {
			ps.expr(&h.FilterCond)
		}
	case *LocStore:
		ps.locs = append(ps.locs, s.L)
		ps.expr(&s.E)
	case *SStore:
		ps.locs = append(ps.locs, s.L)
		ps.sexprs = append(ps.sexprs, &s.Src)
	case *SInit:
		ps.locs = append(ps.locs, s.L)
		ps.expr(&s.Arg)
	case *SCopy:
		ps.locs = append(ps.locs, s.Dst, s.Src)
	case *BoxStruct:
		ps.sexprs = append(ps.sexprs, &s.Src)
	case *PSet:
		ps.locs = append(ps.locs, s.L)
	default:
		allocStmtParts(s, &ps)
	}
	return ps
}

// flat returns the int expressions among ps and, through value-type
// expressions and locations, below them (not below those expressions).
func (ps parts) flat() []*Expr {
	out := slices.Clone(ps.exprs)
	for _, x := range ps.sexprs {
		if *x != nil {
			out = append(out, sexprParts(*x).flat()...)
		}
	}
	for _, L := range ps.locs {
		out = append(out, locParts(L).flat()...)
	}
	for _, x := range ps.rexprs {
		out = append(out, rexprParts(*x).flat()...)
	}
	for _, L := range ps.rlocs {
		out = append(out, rlocParts(L).flat()...)
	}
	for _, Q := range ps.qlocs {
		out = append(out, qlocParts(Q).flat()...)
	}
	return out
}

// walker visits every node of a method, a parent before its children
// (which it reads after the visit, so a visit may replace the node).
type walker struct {
	stmt  func(ss *[]Stmt, i int)
	expr  func(x *Expr)
	sexpr func(x *SExpr)
	loc   func(L *Loc)
	rexpr func(x *RExpr)
	rloc  func(L *RLoc)
	qloc  func(Q *QLoc)
}

func (w *walker) method(m *Method) {
	forEachStmt(&m.Body, func(ss *[]Stmt, i int) {
		if w.stmt != nil {
			w.stmt(ss, i)
		}
		w.parts(stmtParts((*ss)[i]))
	})
	if m.RetExpr != nil {
		w.walkExpr(&m.RetExpr)
	}
	if m.RetSExpr != nil {
		w.walkSExpr(&m.RetSExpr)
	}
}

func (w *walker) parts(ps parts) {
	for _, x := range ps.exprs {
		w.walkExpr(x)
	}
	for _, x := range ps.sexprs {
		w.walkSExpr(x)
	}
	for _, L := range ps.locs {
		w.walkLoc(L)
	}
	for _, x := range ps.rexprs {
		w.walkRExpr(x)
	}
	for _, L := range ps.rlocs {
		w.walkRLoc(L)
	}
	for _, Q := range ps.qlocs {
		w.walkQLoc(Q)
	}
}

func (w *walker) walkExpr(x *Expr) {
	if *x == nil {
		return
	}
	if w.expr != nil {
		w.expr(x)
	}
	w.parts(exprParts(*x))
}

func (w *walker) walkSExpr(x *SExpr) {
	if *x == nil {
		return
	}
	if w.sexpr != nil {
		w.sexpr(x)
	}
	w.parts(sexprParts(*x))
}

func (w *walker) walkLoc(L *Loc) {
	if L == nil {
		return
	}
	if w.loc != nil {
		w.loc(L)
	}
	w.parts(locParts(L))
}

// dropArg removes argument k from the calls of method j in every
// method: argument list which (0: Args, 1: SArgs, 2: RArgs, 3: OArgs).
func dropArg(p *Program, j, k, which int) {
	fix := func(callee int, args *[]Expr, sargs *[]SExpr, rargs *[]*Loc, oargs *[]RExpr) {
		if callee != j {
			return
		}
		switch {
		case which == 0 && k < len(*args):
			*args = slices.Delete(slices.Clone(*args), k, k+1)
		case which == 1 && k < len(*sargs):
			*sargs = slices.Delete(slices.Clone(*sargs), k, k+1)
		case which == 2 && k < len(*rargs):
			*rargs = slices.Delete(slices.Clone(*rargs), k, k+1)
		case which == 3 && k < len(*oargs):
			*oargs = slices.Delete(slices.Clone(*oargs), k, k+1)
		}
	}
	w := &walker{
		stmt: func(ss *[]Stmt, i int) {
			if c, ok := (*ss)[i].(*CallStmt); ok {
				fix(c.Callee, &c.Args, &c.SArgs, &c.RArgs, &c.OArgs)
			}
		},
		expr: func(x *Expr) {
			if c, ok := (*x).(*CallExpr); ok {
				fix(c.Callee, &c.Args, &c.SArgs, &c.RArgs, &c.OArgs)
			}
		},
		sexpr: func(x *SExpr) {
			if c, ok := (*x).(*SCall); ok {
				fix(c.Callee, &c.Args, &c.SArgs, &c.RArgs, &c.OArgs)
			}
		},
	}
	for _, m := range p.Methods {
		w.method(m)
	}
}

// removeSParam deletes value-type parameter k of method j: it becomes a
// new local of the method, and the callers pass one argument less.
func removeSParam(p *Program, j, k int) {
	m := p.Methods[j]
	nl := len(m.SLocals)
	m.SLocals = append(m.SLocals, m.SParams[k])
	m.SParams = slices.Delete(slices.Clone(m.SParams), k, k+1)
	(&walker{loc: func(L *Loc) {
		if L.Root == RSArg {
			switch {
			case L.N == k:
				L.Root, L.N = RSLocal, nl
			case L.N > k:
				L.N--
			}
		}
	}}).method(m)
	dropArg(p, j, k, 1)
}

// removeRParam deletes byref parameter k of method j: what it pointed to
// becomes a static location of its type (a pointer local, null, if there
// is none), and the callers pass one argument less.
func removeRParam(p *Program, j, k int) {
	m := p.Methods[j]
	t := m.RParams[k]
	static, ok := p.staticLoc(t)
	if !ok {
		static = Loc{Root: RPtr, N: len(m.PLocals)}
		m.PLocals = append(m.PLocals, t)
	}
	m.RParams = slices.Delete(slices.Clone(m.RParams), k, k+1)
	(&walker{loc: func(L *Loc) {
		if L.Root == RRef {
			switch {
			case L.N == k:
				path := append(slices.Clone(static.Path), L.Path...)
				*L = static
				L.Path = path
			case L.N > k:
				L.N--
			}
		}
	}}).method(m)
	dropArg(p, j, k, 2)
}

// staticLoc returns a static location of type t: s0, g0, obj, a
// value-type static or one of its fields.
func (p *Program) staticLoc(t FType) (Loc, bool) {
	switch t.K {
	case FI4:
		return Loc{Root: RVar, Var: Var{Kind: Static, T: I4}}, true
	case FI8:
		return Loc{Root: RVar, Var: Var{Kind: Static, T: I8}}, true
	case FRef:
		return Loc{Root: RObj}, true
	case FStruct:
		return Loc{Root: RSStatic, N: t.S}, true
	}
	for s := range p.Structs {
		if path, ok := p.pathTo(s, t); ok {
			return Loc{Root: RSStatic, N: s, Path: path}, true
		}
	}
	return Loc{}, false
}

// pathTo finds a field of type t in value type s, nested ones included.
func (p *Program) pathTo(s int, t FType) ([]int, bool) {
	for f, ft := range p.Structs[s].Fields {
		if ft == t {
			return []int{f}, true
		}
		if ft.K == FStruct {
			if sub, ok := p.pathTo(ft.S, t); ok {
				return append([]int{f}, sub...), true
			}
		}
	}
	return nil, false
}

// inlineLocals appends callee's value-type, pointer, Node and Pair
// locals to caller's and renumbers them in body (the callee's
// statements, to be inlined in caller).
func inlineLocals(caller, callee *Method, body []Stmt) {
	ns, np := len(caller.SLocals), len(caller.PLocals)
	caller.SLocals = append(caller.SLocals, callee.SLocals...)
	caller.PLocals = append(caller.PLocals, callee.PLocals...)
	no, nq := caller.OLocals, caller.QLocals
	caller.OLocals += callee.OLocals
	caller.QLocals += callee.QLocals
	w := &walker{loc: func(L *Loc) {
		switch L.Root {
		case RSLocal:
			L.N += ns
		case RPtr:
			L.N += np
		}
	}, rloc: func(L *RLoc) {
		if L.Root == RLocal {
			L.N += no
		}
	}, qloc: func(Q *QLoc) {
		if Q.Root == QLocal {
			Q.N += nq
		}
	}}
	w.method(&Method{Body: body})
	forEachStmt(&body, func(ss *[]Stmt, i int) {
		if s, ok := (*ss)[i].(*PSet); ok {
			s.N += np
		}
	})
}

// Editor steps for the value-type nodes (see editor).

func (e *editor) loc(L *Loc) {
	if e.done || L == nil {
		return
	}
	if (L.Root == RSElem || L.Root == RArr) && !L.Safe && e.hit() {
		L.Safe = true
		return
	}
	if L.Idx != nil {
		e.expr(&L.Idx)
	}
	if L.Col != nil {
		e.expr(&L.Col)
	}
}

func (e *editor) noCheck(c *bool) {
	if *c && e.hit() {
		*c = false
	}
}

func (e *editor) access(a *Access) {
	if *a != ADirect && e.hit() {
		*a = ADirect
	}
}

func (e *editor) call(args []Expr, sargs []SExpr, rargs []*Loc, oargs []RExpr) {
	for i := range args {
		e.expr(&args[i])
	}
	for i := range sargs {
		e.sexpr(&sargs[i])
	}
	for _, L := range rargs {
		e.loc(L)
	}
	for i := range oargs {
		e.rexpr(&oargs[i])
	}
}

// sexpr simplifies a value-type expression: to newobj of the value type
// with argument 0, then its parts.
func (e *editor) sexpr(p *SExpr) {
	if e.done || *p == nil {
		return
	}
	if n, ok := (*p).(*SNew); !ok || !isZero(n.Arg) {
		if e.hit() {
			*p = &SNew{S: (*p).Struct(), Arg: &Const{T: I4}}
			return
		}
	}
	switch x := (*p).(type) {
	case *SLoad:
		e.access(&x.A)
		e.loc(x.L)
	case *SNew:
		if x.Arg != nil {
			e.expr(&x.Arg)
		}
	case *SCall:
		e.call(x.Args, x.SArgs, x.RArgs, x.OArgs)
	case *SUnbox:
		if x.Addr && e.hit() {
			x.Addr = false
		}
	case *SCond:
		for _, y := range []SExpr{x.A, x.B} {
			if y != nil && e.hit() {
				*p = y
				return
			}
		}
		e.expr(&x.C.A)
		if x.C.B != nil {
			e.expr(&x.C.B)
		}
		e.sexpr(&x.A)
		e.sexpr(&x.B)
	}
}

func isZero(x Expr) bool {
	c, ok := x.(*Const)
	return ok && c.V == 0
}

// valueStmt edits the value-type statements.
func (e *editor) valueStmt(s Stmt) {
	switch s := s.(type) {
	case *LocStore:
		e.noCheck(&s.Check)
		if s.Obj != ONull && e.hit() {
			s.Obj, s.E = ONull, nil
		}
		e.access(&s.A)
		e.loc(s.L)
		if s.E != nil {
			e.expr(&s.E)
		}
	case *SStore:
		e.noCheck(&s.Check)
		e.access(&s.A)
		e.loc(s.L)
		e.sexpr(&s.Src)
	case *SInit:
		e.noCheck(&s.Check)
		if !s.Zero && e.hit() {
			s.Zero, s.Arg = true, nil
		}
		e.loc(s.L)
		if s.Arg != nil {
			e.expr(&s.Arg)
		}
	case *SCopy:
		e.noCheck(&s.Check)
		e.loc(s.Dst)
		e.loc(s.Src)
	case *BoxStruct:
		e.sexpr(&s.Src)
	case *PSet:
		e.loc(s.L)
	default:
		e.allocStmt(s)
	}
}

// valueExpr edits the parts of the value-type int expressions; false
// for other expressions.
func (e *editor) valueExpr(x Expr) bool {
	switch x := x.(type) {
	case *LocLoad:
		if x.Flip && e.hit() {
			x.Flip = false
		}
		e.access(&x.A)
		e.loc(x.L)
	case *SHash:
		e.sexpr(&x.Src)
	case *SStep:
		e.loc(x.L)
		if x.Arg != nil {
			e.expr(&x.Arg)
		}
	case *SField:
		e.sexpr(&x.Src)
	case *CallExpr:
		e.call(x.Args, x.SArgs, x.RArgs, x.OArgs)
	default:
		return e.allocExpr(x)
	}
	return true
}

// forEachPath calls f for every field path of p's locations and value
// fields (SField), with the value type each path starts from; f may
// change the path's indices.
func forEachPath(p *Program, f func(start FType, path []int)) {
	for _, m := range p.Methods {
		(&walker{
			loc: func(L *Loc) { f(p.rootType(m, L), L.Path) },
			expr: func(x *Expr) {
				if sf, ok := (*x).(*SField); ok && sf.Src != nil {
					f(FType{K: FStruct, S: sf.Src.Struct()}, sf.Path)
				}
			},
		}).method(m)
	}
}

// fieldUsed reports whether a location or value field of p goes through
// field fi of value type s.
func fieldUsed(p *Program, s, fi int) bool {
	used := false
	forEachPath(p, func(t FType, path []int) {
		for _, f := range path {
			if t.K == FStruct && t.S == s && f == fi {
				used = true
			}
			t = p.Structs[t.S].Fields[f]
		}
	})
	return used
}

// removeField deletes field fi of value type s, which no path uses: the
// paths past it are renumbered.
func removeField(p *Program, s, fi int) {
	forEachPath(p, func(t FType, path []int) {
		for i, f := range path {
			next := p.Structs[t.S].Fields[f]
			if t.K == FStruct && t.S == s && f > fi {
				path[i]--
			}
			t = next
		}
	})
	sd := p.Structs[s]
	sd.Fields = slices.Delete(slices.Clone(sd.Fields), fi, fi+1)
	if fi < sd.Init {
		sd.Init--
	}
}

// structs edits the value types: fields nothing uses go, constructors
// set nothing.
func (e *editor) structs(p *Program) bool {
	for s, sd := range p.Structs {
		if sd.Init > 0 && e.hit() {
			sd.Init = 0
			return true
		}
		if len(sd.Fields) < 2 {
			continue
		}
		for fi := range sd.Fields {
			if !fieldUsed(p, s, fi) && e.hit() {
				removeField(p, s, fi)
				return true
			}
		}
	}
	return false
}
