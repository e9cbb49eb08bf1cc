package fuzz

// Walking and reducing allocation-heavy code (alloc.go).

func (ps *parts) rexpr(x *RExpr) {
	if *x != nil {
		ps.rexprs = append(ps.rexprs, x)
	}
}

func (ps *parts) rloc(L *RLoc) {
	if L != nil {
		ps.rlocs = append(ps.rlocs, L)
	}
}

func (ps *parts) qloc(Q *QLoc) {
	if Q != nil {
		ps.qlocs = append(ps.qlocs, Q)
	}
}

// allocExprParts adds the children of an int expression over references.
func allocExprParts(x Expr, ps *parts) {
	switch x := x.(type) {
	case *RSum:
		ps.rexpr(&x.Src)
	case *QSum:
		ps.qloc(x.Q)
	default:
		shapeExprParts(x, ps)
	}
}

// allocStmtParts adds the children of an allocation statement.
func allocStmtParts(s Stmt, ps *parts) {
	churn := func(c *Churn) {
		if c != nil {
			ps.expr(&c.V)
			ps.rloc(c.Target)
		}
	}
	switch s := s.(type) {
	case *RSet:
		ps.rloc(s.L)
		ps.rexpr(&s.E)
	case *QSet:
		ps.qloc(s.Q)
		ps.rexpr(&s.N)
		ps.expr(&s.K)
	case *QCopy:
		ps.qloc(s.Dst)
		ps.qloc(s.Src)
	case *Churn:
		churn(s)
	case *Pin:
		ps.rexpr(&s.Src)
		ps.rloc(s.Keep)
		churn(s.Churn)
	case *AThrow:
		ps.expr(&s.Code)
		ps.rexpr(&s.Payload)
	case *ExCheck:
		ps.rexpr(&s.Set)
	default:
		shapeStmtParts(s, ps)
	}
}

// rexprParts returns the children of a Node expression.
func rexprParts(x RExpr) parts {
	var ps parts
	switch x := x.(type) {
	case *RRead:
		ps.rloc(x.L)
	case *RNew:
		ps.expr(&x.V)
		ps.rexpr(&x.Next)
	case *RBuild:
		ps.expr(&x.V)
		ps.rexpr(&x.Tail)
	}
	return ps
}

// rlocParts returns the children of a reference location.
func rlocParts(L *RLoc) parts {
	var ps parts
	if L != nil {
		ps.expr(&L.Idx)
		ps.rloc(L.In)
		ps.qloc(L.Q)
	}
	return ps
}

// qlocParts returns the children of a Pair location.
func qlocParts(Q *QLoc) parts {
	var ps parts
	if Q != nil {
		ps.expr(&Q.Idx)
		ps.rloc(Q.In)
	}
	return ps
}

func (w *walker) walkRExpr(x *RExpr) {
	if *x == nil {
		return
	}
	if w.rexpr != nil {
		w.rexpr(x)
	}
	w.parts(rexprParts(*x))
}

func (w *walker) walkRLoc(L *RLoc) {
	if L == nil {
		return
	}
	if w.rloc != nil {
		w.rloc(L)
	}
	w.parts(rlocParts(L))
}

func (w *walker) walkQLoc(Q *QLoc) {
	if Q == nil {
		return
	}
	if w.qloc != nil {
		w.qloc(Q)
	}
	w.parts(qlocParts(Q))
}

// removeOParam deletes Node parameter k of method j: it becomes a new
// Node local of the method, and the callers pass one argument less.
func removeOParam(p *Program, j, k int) {
	m := p.Methods[j]
	nl := m.OLocals
	m.OLocals++
	m.OParams--
	(&walker{rloc: func(L *RLoc) {
		if L.Root == RParam {
			switch {
			case L.N == k:
				L.Root, L.N = RLocal, nl
			case L.N > k:
				L.N--
			}
		}
	}}).method(m)
	dropArg(p, j, k, 3)
}

// Editor steps for the allocation nodes (see editor).

// rexpr simplifies a Node expression: to null, then its parts.
func (e *editor) rexpr(p *RExpr) {
	if e.done || *p == nil {
		return
	}
	if _, ok := (*p).(*RNull); !ok && e.hit() {
		*p = &RNull{}
		return
	}
	switch x := (*p).(type) {
	case *RRead:
		e.rloc(x.L)
	case *RNew:
		if x.Str && e.hit() {
			x.Str = false
		}
		if x.V != nil {
			e.expr(&x.V)
		}
		e.rexpr(&x.Next)
	case *RBuild:
		if x.N > 1 && e.hit() {
			x.N = 1
		}
		if x.V != nil {
			e.expr(&x.V)
		}
		e.rexpr(&x.Tail)
	}
}

// rloc simplifies a reference location: the next field of a node to a
// static, the other instruction form to the first.
func (e *editor) rloc(L *RLoc) {
	if e.done || L == nil {
		return
	}
	if L.Root == RNext && e.hit() {
		*L = RLoc{Root: RStatic}
		return
	}
	if L.Alt && e.hit() {
		L.Alt = false
	}
	if L.Idx != nil {
		e.expr(&L.Idx)
	}
	e.rloc(L.In)
	e.qloc(L.Q)
}

// qloc simplifies a Pair location: the p field of a node to the static.
func (e *editor) qloc(Q *QLoc) {
	if e.done || Q == nil {
		return
	}
	if Q.Root == QNode && e.hit() {
		*Q = QLoc{Root: QStatic}
		return
	}
	if Q.Idx != nil {
		e.expr(&Q.Idx)
	}
	e.rloc(Q.In)
}

// churn simplifies an allocation loop: one iteration, then half as
// many; fewer kinds of allocation; nothing kept.
func (e *editor) churn(c *Churn) {
	if c == nil {
		return
	}
	if c.Iter > 1 && e.hit() {
		c.Iter = 1
	}
	if c.Iter > 1 && e.hit() {
		c.Iter /= 2
	}
	for _, f := range []*bool{&c.NodeP, &c.Prev, &c.Check, &c.Append} {
		if *f && e.hit() {
			*f = false
		}
	}
	if c.O != ONone && e.hit() {
		c.O = ONone
	}
	if c.Keep > 0 && e.hit() {
		c.Keep, c.Target = 0, nil
	}
	if c.V != nil {
		e.expr(&c.V)
	}
	e.rloc(c.Target)
}

// allocStmt edits the allocation statements.
func (e *editor) allocStmt(s Stmt) {
	switch s := s.(type) {
	case *RSet:
		e.rloc(s.L)
		e.rexpr(&s.E)
	case *QSet:
		for _, f := range []*bool{&s.Init, &s.Str} {
			if *f && e.hit() {
				*f = false
			}
		}
		e.qloc(s.Q)
		e.rexpr(&s.N)
		if s.K != nil {
			e.expr(&s.K)
		}
	case *QCopy:
		e.qloc(s.Dst)
		e.qloc(s.Src)
	case *Churn:
		e.churn(s)
	case *Pin:
		if s.Call && s.Iter > 1 && e.hit() {
			s.Iter = 1
		}
		if s.Keep != nil && e.hit() {
			s.Keep = nil
		}
		e.churn(s.Churn)
		e.rexpr(&s.Src)
		e.rloc(s.Keep)
	case *AThrow:
		if s.Code != nil {
			e.expr(&s.Code)
		}
		e.rexpr(&s.Payload)
	case *ExCheck:
		if s.Max > 1 && e.hit() {
			s.Max = 1
		}
		if s.Set != nil && e.hit() {
			s.Set = nil
		}
		e.rexpr(&s.Set)
	default:
		e.shapeStmt(s)
	}
}

// allocExpr edits the int expressions over references; false for other
// expressions.
func (e *editor) allocExpr(x Expr) bool {
	switch x := x.(type) {
	case *RSum:
		if x.Max > 1 && e.hit() {
			x.Max = 1
		}
		e.rexpr(&x.Src)
	case *QSum:
		e.qloc(x.Q)
	default:
		return e.shapeExpr(x)
	}
	return true
}
