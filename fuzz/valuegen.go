package fuzz

import "slices"

// Generating value types, their locations and managed pointers.

// structs declares the program's value types: one to three, sometimes a
// large one (more than 16 words: the engines copy it in a loop) or one of
// three words (an element size that is no power of two), sometimes with
// a nested value type field.
func (g *gen) structs() {
	n := 1 + g.r.IntN(3)
	for k := 0; k < n; k++ {
		sd := &StructDef{}
		switch c := g.r.IntN(100); {
		case c < 22:
			for nf := 17 + g.r.IntN(6); len(sd.Fields) < nf; {
				sd.Fields = append(sd.Fields, g.fieldType(k, false))
			}
		case c < 44:
			for len(sd.Fields) < 3 {
				sd.Fields = append(sd.Fields, g.fieldType(k, false))
			}
		default:
			for nf := 1 + g.r.IntN(5); len(sd.Fields) < nf; {
				sd.Fields = append(sd.Fields, g.fieldType(k, true))
			}
			if k > 0 && g.chance(35) {
				sd.Fields[g.r.IntN(len(sd.Fields))] = FType{K: FStruct, S: g.r.IntN(k)}
			}
		}
		sd.Init = len(sd.Fields)
		if g.chance(25) {
			sd.Init = g.r.IntN(len(sd.Fields))
		}
		g.p.Structs = append(g.p.Structs, sd)
	}
}

// fieldType picks the type of a field of value type k: nested (an
// earlier value type) only when allowed.
func (g *gen) fieldType(k int, nested bool) FType {
	switch c := g.r.IntN(100); {
	case c < 30:
		return FType{K: FI4}
	case c < 44:
		return FType{K: FI8}
	case c < 54:
		return FType{K: FR8}
	case c < 64:
		return FType{K: FRef}
	case c < 91 || !nested || k == 0:
		return FType{K: []FKind{FI1, FU1, FI2, FU2, FChar, FBool}[g.r.IntN(6)]}
	}
	return FType{K: FStruct, S: g.r.IntN(k)}
}

// targetTypes returns the types of locations every method can reach
// (through the value-type statics): what byref parameters and pointer
// locals may point to.
func (g *gen) targetTypes() []FType {
	seen := map[FType]bool{{K: FI4}: true, {K: FI8}: true, {K: FRef}: true}
	out := []FType{{K: FI4}, {K: FI8}, {K: FRef}}
	for s := range g.p.Structs {
		for _, path := range g.paths(FType{K: FStruct, S: s}) {
			t := g.p.fieldType(s, path)
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// pointerType picks the target type of a byref parameter or pointer
// local: mostly int32, int64, object and value types, sometimes any
// other type some value type has a field of.
func (g *gen) pointerType() FType {
	switch c := g.r.IntN(100); {
	case c < 30:
		return FType{K: FI4}
	case c < 42:
		return FType{K: FI8}
	case c < 52:
		return FType{K: FRef}
	case c < 75:
		return FType{K: FStruct, S: g.r.IntN(len(g.p.Structs))}
	case c < 85:
		if ts := g.targetTypes(); slices.Contains(ts, FType{K: FR8}) {
			return FType{K: FR8}
		}
	}
	ts := g.targetTypes()
	return ts[g.r.IntN(len(ts))]
}

// valueVars gives method m (index i) its value-type locals and pointer
// locals, and a method other than the root its value-type and byref
// parameters and maybe a value-type result.
func (g *gen) valueVars(m *Method, i int) {
	ns := len(g.p.Structs)
	for n := g.r.IntN(3); n > 0; n-- {
		m.SLocals = append(m.SLocals, g.r.IntN(ns))
	}
	if g.chance(50) {
		for n := 1 + g.r.IntN(2); n > 0; n-- {
			m.PLocals = append(m.PLocals, g.pointerType())
		}
	}
	if i == 0 {
		return
	}
	if g.chance(35) {
		for n := 1 + g.r.IntN(2); n > 0; n-- {
			m.SParams = append(m.SParams, g.r.IntN(ns))
		}
	}
	if g.chance(40) {
		for n := 1 + g.r.IntN(2); n > 0; n-- {
			m.RParams = append(m.RParams, g.pointerType())
		}
	}
	if !m.Ret && g.chance(35) {
		m.RetS = 1 + g.r.IntN(ns)
	}
}

// refPrologue writes through some of the method's byref parameters
// first, and then sometimes throws: a caller's handler must see the
// writes.
func (g *gen) refPrologue(budget *int) []Stmt {
	var out []Stmt
	for k, t := range g.m.RParams {
		if !g.chance(60) {
			continue
		}
		L := &Loc{Root: RRef, N: k}
		if t.K == FStruct {
			switch c := g.r.IntN(3); c {
			case 0:
				out = append(out, &SStore{L: L, A: g.access(), Src: g.sexpr(t.S, 1, budget, false)})
			case 1:
				out = append(out, &Mix{E: &SStep{L: L, Arg: g.expr(I4, 1, budget, false)}})
			default:
				out = append(out, &SInit{L: L, Arg: g.expr(I4, 1, budget, false)})
			}
			continue
		}
		out = append(out, g.scalarStore(L, t, budget, false))
	}
	if len(out) > 0 && g.chance(35) {
		out = append(out, g.maybeIf(budget, g.throwStmt(budget)))
	}
	return out
}

// paths returns the paths to the fields of t, nested ones included, and
// the empty path (t itself).
func (g *gen) paths(t FType) [][]int {
	out := [][]int{nil}
	if t.K != FStruct {
		return out
	}
	for f, ft := range g.p.Structs[t.S].Fields {
		for _, sub := range g.paths(ft) {
			out = append(out, append([]int{f}, sub...))
		}
	}
	return out
}

// locMode says whether a location may throw when reached.
type locMode uint8

const (
	locSafe  locMode = iota // never throws
	locAny                  // may throw (a null pointer, an index out of range), sometimes
	locRisky                // throws sometimes: a pointer local, an unmasked index, a row of jag
)

// locReq is what a location must be.
type locReq struct {
	want  func(FType) bool
	mode  locMode
	field bool // a field of a value type (a path)
	safe  bool // the index expressions must not throw
	load  bool // the location is only read (LocLoad, SLoad)
}

func isStruct(t FType) bool { return t.K == FStruct }
func isScalar(t FType) bool { return t.K != FStruct }
func anyType(FType) bool    { return true }
func exactly(u FType) func(FType) bool {
	return func(t FType) bool { return t == u }
}
func scalarOf(ty Type) func(FType) bool {
	return func(t FType) bool { return t.K != FStruct && t.intType() == ty }
}

type rootCand struct {
	w     int
	L     Loc
	paths [][]int
}

// loc picks a location meeting req (nil when there is none).
func (g *gen) loc(req locReq, budget *int) *Loc {
	var cands []rootCand
	total := 0
	add := func(w int, L Loc) {
		var ps [][]int
		for _, p := range g.paths(g.p.rootType(g.m, &L)) {
			if (len(p) > 0 || !req.field) && req.want(g.p.pathType(g.m, &L, p)) {
				ps = append(ps, p)
			}
		}
		if len(ps) > 0 {
			cands = append(cands, rootCand{w, L, ps})
			total += w
		}
	}
	risky := req.mode == locRisky
	if !risky {
		add(3, Loc{Root: RVar, Var: Var{T: I4}})
		add(2, Loc{Root: RVar, Var: Var{T: I8}})
		for n := range g.m.SLocals {
			add(3, Loc{Root: RSLocal, N: n})
		}
		for n := range g.m.SParams {
			add(2, Loc{Root: RSArg, N: n})
		}
		for n := range g.p.Structs {
			add(1, Loc{Root: RSStatic, N: n})
			add(1, Loc{Root: RHeld, N: n})
		}
		add(1, Loc{Root: RObj})
		for n := range g.m.RParams {
			add(4, Loc{Root: RRef, N: n})
		}
	}
	for n := range g.p.Structs {
		add(1, Loc{Root: RSElem, N: n})
	}
	add(1, Loc{Root: RArr})
	if req.mode != locSafe {
		for n := range g.m.PLocals {
			add(2, Loc{Root: RPtr, N: n})
		}
		add(1, Loc{Root: RJag})
	}
	if total == 0 {
		return nil
	}
	k := g.r.IntN(total)
	var c rootCand
	for _, c = range cands {
		if k < c.w {
			break
		}
		k -= c.w
	}
	L := c.L
	L.Path = c.paths[g.r.IntN(len(c.paths))]
	if g.o.MonoSafe && L.Root == RPtr {
		// Mono does not null-check ldflda through a pointer: the
		// exception would come later, after the operands of a store or
		// call (or never, for a pointer a PSet keeps); loads have no
		// operands in between. And Mono 6.8 (as CoreCLR 2.0) crashes
		// (SIGSEGV) on ldobj, ldfld, stobj and cpobj of a value type
		// holding references from or to a null address instead of
		// throwing NullReferenceException.
		t := g.p.locType(g.m, &L)
		if !req.load && len(L.Path) > 0 || t.K == FStruct && g.p.hasRefs(t.S) {
			req.mode = locSafe
			return g.loc(req, budget)
		}
	}
	switch L.Root {
	case RVar:
		vs := g.vars(L.Var.T)
		L.Var = vs[g.r.IntN(len(vs))]
	case RSElem, RArr:
		L.Idx = g.expr(I4, 2, budget, req.safe)
		L.Safe = !risky && (req.mode == locSafe || g.chance(75))
		if !L.Safe {
			g.may("System.IndexOutOfRangeException")
		}
	case RJag:
		L.Idx, L.Col = g.leaf(I4, budget, req.safe), g.leaf(I4, budget, req.safe)
		g.may(nre, "System.IndexOutOfRangeException")
	case RPtr:
		g.may(nre)
	}
	return &L
}

// access picks an instruction form.
func (g *gen) access() Access {
	switch k := g.r.IntN(100); {
	case k < 35:
		return ADirect
	case k < 55:
		return AFld
	case k < 90:
		return AInd
	}
	return AObj
}

// accessOf picks an instruction form to read L: with MonoSafe, a read
// through a pointer local takes field addresses (ldflda) down to the
// location, never a nested value with ldfld (Mono crashes loading a
// value type holding references from a null address).
func (g *gen) accessOf(L *Loc) Access {
	a := g.access()
	if g.o.MonoSafe && L.Root == RPtr && (a == ADirect || a == AFld) {
		a = AInd
	}
	return a
}

// stmtMode is the location mode of a statement: safe in a MonoSafe
// filter, else sometimes a location that may throw.
func (g *gen) stmtMode(safe bool) locMode {
	if safe {
		return locSafe
	}
	if g.chance(20) {
		return locAny
	}
	return locSafe
}

// valueStmts returns the statement choices over value types and
// managed pointers.
func (g *gen) valueStmts(budget *int, safe bool) []choice {
	cs := []choice{
		{5, func() Stmt {
			L := g.loc(locReq{want: isScalar, mode: g.stmtMode(safe), safe: safe}, budget)
			s := g.scalarStore(L, g.p.locType(g.m, L), budget, safe)
			s.Check = g.chance(checkPct)
			return s
		}},
		{4, func() Stmt {
			L := g.loc(locReq{want: isStruct, mode: g.stmtMode(safe), safe: safe}, budget)
			t := g.p.locType(g.m, L)
			return &SStore{L: L, A: g.access(), Src: g.sexpr(t.S, 1, budget, safe), Check: g.chance(checkPct)}
		}},
		{2, func() Stmt {
			want := isStruct
			if g.chance(30) {
				want = anyType
			}
			L := g.loc(locReq{want: want, mode: g.stmtMode(safe), safe: safe}, budget)
			s := &SInit{L: L, Zero: !isStruct(g.p.locType(g.m, L)) || g.chance(40), Check: g.chance(checkPct)}
			if !s.Zero {
				s.Arg = g.expr(I4, 1, budget, safe)
			}
			return s
		}},
		{1, func() Stmt {
			// cpobj of anything but an object: a boxed value in a value
			// type's object field would let boxes nest without bound.
			dst := g.loc(locReq{want: func(t FType) bool { return t.K != FRef }, mode: g.stmtMode(safe), safe: safe}, budget)
			t := g.p.locType(g.m, dst)
			return &SCopy{Dst: dst, Src: g.loc(locReq{want: exactly(t), mode: g.stmtMode(safe), safe: safe}, budget), Check: g.chance(checkPct)}
		}},
		{1, func() Stmt { return &BoxStruct{Src: g.sexpr(g.r.IntN(len(g.p.Structs)), 1, budget, safe)} }},
	}
	if len(g.m.PLocals) > 0 {
		cs = append(cs, choice{2, func() Stmt {
			n := g.r.IntN(len(g.m.PLocals))
			return &PSet{N: n, L: g.loc(locReq{want: exactly(g.m.PLocals[n]), mode: g.stmtMode(safe), safe: safe}, budget)}
		}})
	}
	return cs
}

// checkPct is the chance (in percent) that a store into a location reads
// it back into the hash.
const checkPct = 35

// scalarStore stores a value of L's type t into L.
func (g *gen) scalarStore(L *Loc, t FType, budget *int, safe bool) *LocStore {
	s := &LocStore{L: L, A: g.access()}
	switch t.K {
	case FI8:
		s.E = g.expr(I8, 1, budget, safe)
	case FRef:
		switch k := g.r.IntN(100); {
		case k < 25:
			s.Obj = ONull
		case k < 60:
			s.Obj, s.E = OInt, g.expr(I4, 1, budget, safe)
		case k < 85:
			s.Obj, s.Len = OStr, g.r.IntN(6)
		default:
			s.Obj, s.E = OBox, g.expr(I4, 1, budget, safe)
		}
	default:
		s.E = g.expr(I4, 1, budget, safe)
	}
	return s
}

// anyStruct picks a value type.
func (g *gen) anyStruct() int { return g.r.IntN(len(g.p.Structs)) }

// sexpr returns an expression of value type s that does not throw
// (unless its operands do): a location's value, newobj, a call, or a
// conditional one.
func (g *gen) sexpr(s int, depth int, budget *int, safe bool) SExpr {
	k := g.r.IntN(100)
	if k >= 75 {
		if cl := g.scallees(*budget, s); len(cl) > 0 {
			j := cl[g.r.IntN(len(cl))]
			*budget -= g.cost[j]
			g.mayAll(g.throws[j])
			c := &SCall{Callee: j, S: s}
			c.Args, c.SArgs, c.RArgs, c.OArgs = g.args(j, budget, safe)
			return c
		}
	}
	if k >= 65 && depth < g.o.MaxExprDepth {
		return &SCond{C: g.cond(budget), A: g.sexpr(s, depth+1, budget, safe), B: g.sexpr(s, depth+1, budget, safe), S: s}
	}
	if k < 55 || depth >= g.o.MaxExprDepth {
		if L := g.loc(locReq{want: exactly(FType{K: FStruct, S: s}), mode: locSafe, safe: safe, load: true}, budget); L != nil {
			return &SLoad{L: L, A: g.accessOf(L), S: s}
		}
	}
	return &SNew{S: s, Arg: g.expr(I4, depth+1, budget, safe)}
}

// scallees returns the methods returning value type s callable within
// budget.
func (g *gen) scallees(budget, s int) []int {
	var out []int
	for _, j := range g.callees(budget, false) {
		if g.p.Methods[j].RetS == s+1 {
			out = append(out, j)
		}
	}
	return out
}

// valueExpr returns an int expression of type t over value types and
// managed pointers that does not throw (unless its operands do), or nil.
func (g *gen) valueExpr(t Type, depth int, budget *int, safe bool) Expr {
	d := depth + 1
	if t == I8 {
		if g.chance(25) {
			if e := g.sfield(I8, d, budget, safe, false); e != nil {
				return e
			}
		}
		return g.locLoad(I8, locSafe, budget, safe)
	}
	switch k := g.r.IntN(100); {
	case k < 25:
		*budget--
		return &SHash{Src: g.sexpr(g.anyStruct(), d, budget, safe)}
	case k < 50:
		*budget--
		L := g.loc(locReq{want: isStruct, mode: locSafe, safe: safe}, budget)
		return &SStep{L: L, Arg: g.expr(I4, d, budget, safe)}
	case k < 85:
		return g.locLoad(I4, locSafe, budget, safe)
	case k < 93:
		if e := g.sfield(I4, d, budget, safe, false); e != nil {
			return e
		}
	case k < 97:
		return &IsBoxed{S: g.anyStruct()}
	default:
		// Mono lays out references in declaration order, CoreCLR first:
		// their sizes differ.
		var ss []int
		for s := range g.p.Structs {
			if !g.o.MonoSafe || !g.p.hasRefs(s) {
				ss = append(ss, s)
			}
		}
		if len(ss) > 0 {
			return &SizeOf{S: ss[g.r.IntN(len(ss))]}
		}
	}
	return g.locLoad(I4, locSafe, budget, safe)
}

// locLoad reads a scalar location of int type t.
func (g *gen) locLoad(t Type, mode locMode, budget *int, safe bool) Expr {
	L := g.loc(locReq{want: scalarOf(t), mode: mode, safe: safe, load: true}, budget)
	if L == nil {
		return nil
	}
	return &LocLoad{L: L, A: g.accessOf(L), Flip: g.chance(40), T: t}
}

// sfield reads a field of int type t of a value on the stack: a new
// value, a call's result, or (unbox) obj unboxed.
func (g *gen) sfield(t Type, depth int, budget *int, safe, unbox bool) Expr {
	var cands []int
	for s := range g.p.Structs {
		if len(g.fieldPaths(s, t)) > 0 {
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	s := cands[g.r.IntN(len(cands))]
	ps := g.fieldPaths(s, t)
	e := &SField{Path: ps[g.r.IntN(len(ps))], T: t}
	if unbox {
		g.may(nre, "System.InvalidCastException")
		e.Src = &SUnbox{S: s, Addr: g.chance(40)}
	} else if cl := g.scallees(*budget, s); len(cl) > 0 && g.chance(50) {
		e.Src = g.sexpr(s, depth, budget, safe)
	} else {
		e.Src = &SNew{S: s, Arg: g.expr(I4, depth, budget, safe)}
	}
	return e
}

// fieldPaths returns the paths to the scalar fields of value type s
// read as type t.
func (g *gen) fieldPaths(s int, t Type) [][]int {
	var out [][]int
	for _, p := range g.paths(FType{K: FStruct, S: s}) {
		if ft := g.p.fieldType(s, p); len(p) > 0 && ft.K != FStruct && ft.intType() == t {
			out = append(out, p)
		}
	}
	return out
}

// valueRisky returns an int expression that may throw: a read through
// a pointer local (null until set), an index out of range, a row of jag,
// or obj unboxed as a value type.
func (g *gen) valueRisky(t Type, depth int, budget *int) Expr {
	if g.chance(60) {
		if e := g.locLoad(t, locRisky, budget, false); e != nil {
			return e
		}
	}
	if t == I4 && g.chance(30) {
		g.may(nre, "System.InvalidCastException")
		return &SHash{Src: &SUnbox{S: g.anyStruct(), Addr: g.chance(40)}}
	}
	return g.sfield(t, depth, budget, false, true)
}

// filterRead reads a field of a value-type location (for a filter's
// condition).
func (g *gen) filterRead(budget *int) Expr {
	L := g.loc(locReq{want: scalarOf(I4), mode: locSafe, field: true, safe: g.safe()}, budget)
	if L == nil {
		return nil
	}
	return &LocLoad{L: L, A: g.access(), Flip: g.chance(40), T: I4}
}

// args returns the arguments of a call of method j.
func (g *gen) args(j int, budget *int, safe bool) ([]Expr, []SExpr, []*Loc, []RExpr) {
	m := g.p.Methods[j]
	var as []Expr
	for _, t := range m.Params {
		as = append(as, g.expr(t, 1, budget, safe))
	}
	var ss []SExpr
	for _, s := range m.SParams {
		ss = append(ss, g.sexpr(s, 1, budget, safe))
	}
	var rs []*Loc
	for _, t := range m.RParams {
		mode := g.stmtMode(safe)
		if g.o.MonoSafe {
			// no pointer local: the callee may ldflda or stobj through
			// it (see loc)
			mode = locSafe
		}
		rs = append(rs, g.loc(locReq{want: exactly(t), mode: mode, safe: safe}, budget))
	}
	var os []RExpr
	for range m.OParams {
		os = append(os, g.rexpr(1, budget, safe))
	}
	return as, ss, rs, os
}

// valueTry makes the exception-handling shapes of value types: a try
// mutates a value-type location (through its address, and through byref
// arguments of a call that may write and throw) and may throw; the
// handler (a catch, filter, finally or fault) reads the location, a
// filter reads one of its fields, and a catch or filter handler copies
// it to another location, which is read after the try. It returns the
// try and what follows it, under an if that always holds.
func (g *gen) valueTry(budget *int) Stmt {
	L := g.structLoc(budget)
	t := g.p.locType(g.m, L)
	read := func() Stmt { return &Mix{E: &SHash{Src: &SLoad{L: cloneLoc(L), A: g.access(), S: t.S}}} }
	tr := &Try{ID: g.id()}
	switch c := g.r.IntN(3); c {
	case 0:
		tr.Body = append(tr.Body, &Mix{E: &SStep{L: cloneLoc(L), Arg: g.expr(I4, 1, budget, false)}})
	case 1:
		tr.Body = append(tr.Body, &SStore{L: cloneLoc(L), A: g.access(), Src: g.sexpr(t.S, 1, budget, false)})
	default:
		if ps := g.paths(t)[1:]; len(ps) > 0 {
			f := cloneLoc(L)
			f.Path = append(f.Path, ps[g.r.IntN(len(ps))]...)
			if ft := g.p.locType(g.m, f); ft.K == FStruct {
				tr.Body = append(tr.Body, &Mix{E: &SStep{L: f, Arg: g.expr(I4, 1, budget, false)}})
			} else {
				tr.Body = append(tr.Body, g.scalarStore(f, ft, budget, false))
			}
		}
	}
	if c := g.refCall(L, t, budget); c != nil {
		tr.Body = append(tr.Body, c)
	}
	if len(g.m.PLocals) > 0 && g.chance(50) {
		// a pointer local, null unless a PSet ran
		tr.Body = append(tr.Body, &Mix{E: g.ptrRead(g.r.IntN(len(g.m.PLocals)))})
	}
	if g.chance(60) {
		tr.Body = append(tr.Body, g.maybeIf(budget, g.throwStmt(budget)))
	}
	var copyTo *Loc
	h := &Handler{ID: g.id()}
	switch k := g.r.IntN(100); {
	case k < 40:
		h.Kind, h.Class = Catch, "System.Exception"
	case k < 65:
		h.Kind = Filter
		if ps := g.fieldPaths(t.S, I4); len(ps) > 0 {
			f := cloneLoc(L)
			f.Path = append(f.Path, ps[g.r.IntN(len(ps))]...)
			h.FilterCond = &LocLoad{L: f, A: g.access(), Flip: g.chance(40), T: I4}
			if g.chance(50) {
				// accept whatever the field holds
				h.FilterCond = &Bin{Op: "or", A: h.FilterCond, B: &Const{T: I4, V: 1}, T: I4}
			}
		}
	case k < 85:
		h.Kind = Finally
	default:
		h.Kind = Fault
	}
	h.Body = []Stmt{read()}
	if h.Kind == Catch || h.Kind == Filter {
		copyTo = g.loc(locReq{want: exactly(t), mode: locSafe}, budget)
		h.Body = append(h.Body, &SStore{L: copyTo, A: g.access(), Src: &SLoad{L: cloneLoc(L), A: g.access(), S: t.S}})
	}
	tr.Handlers = []*Handler{h}
	after := []Stmt{tr, read()}
	if copyTo != nil {
		after = append(after, &Mix{E: &SHash{Src: &SLoad{L: cloneLoc(copyTo), A: g.access(), S: t.S}}})
	}
	return &If{C: Cond{A: &Const{T: I4, V: 1}}, Then: after}
}

// ptrRead reads through pointer local n (a scalar field of its target
// when that is a value type).
func (g *gen) ptrRead(n int) Expr {
	L := &Loc{Root: RPtr, N: n}
	t := g.m.PLocals[n]
	if t.K == FStruct {
		var ps [][]int
		for _, p := range g.paths(t) {
			if isScalar(g.p.fieldType(t.S, p)) {
				ps = append(ps, p)
			}
		}
		L.Path = ps[g.r.IntN(len(ps))]
		t = g.p.fieldType(t.S, L.Path)
	}
	g.may(nre)
	return &LocLoad{L: L, A: g.accessOf(L), Flip: g.chance(40), T: t.intType()}
}

// structLoc picks a value-type location for valueTry: mostly a local
// or parameter of the method (a frame block the handlers reach), else
// any location that does not throw, at a constant index.
func (g *gen) structLoc(budget *int) *Loc {
	var ls []*Loc
	for n := range g.m.SLocals {
		ls = append(ls, &Loc{Root: RSLocal, N: n})
	}
	for n := range g.m.SParams {
		ls = append(ls, &Loc{Root: RSArg, N: n})
	}
	if len(ls) > 0 && g.chance(80) {
		return ls[g.r.IntN(len(ls))]
	}
	L := g.loc(locReq{want: isStruct, mode: locSafe}, budget)
	if L.Idx != nil {
		// read again in the handler and filter: no side effects
		L.Idx = &Const{T: I4, V: int64(g.r.IntN(4))}
	}
	return L
}

// refCall calls a method with byref parameters, pointing those of L's
// type (or of one of its fields') at L, so that the callee's writes
// (before it may throw) show in the caller's handler.
func (g *gen) refCall(L *Loc, t FType, budget *int) Stmt {
	var cl []int
	for _, j := range g.callees(*budget, false) {
		if len(g.p.Methods[j].RParams) > 0 {
			cl = append(cl, j)
		}
	}
	if len(cl) == 0 {
		return nil
	}
	j := cl[g.r.IntN(len(cl))]
	*budget -= g.cost[j]
	g.mayAll(g.throws[j])
	c := &CallStmt{Callee: j}
	c.Args, c.SArgs, c.RArgs, c.OArgs = g.args(j, budget, false)
	for k, rt := range g.p.Methods[j].RParams {
		var ps [][]int
		for _, p := range g.paths(t) {
			if g.p.fieldType(t.S, p) == rt {
				ps = append(ps, p)
			}
		}
		if len(ps) > 0 {
			f := cloneLoc(L)
			f.Path = append(f.Path, ps[g.r.IntN(len(ps))]...)
			c.RArgs[k] = f
		}
	}
	return c
}
