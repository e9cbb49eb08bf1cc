package fuzz

import "math/rand/v2"

// Generating allocation-heavy code (alloc.go).

const (
	// churnPerUnit is how many iterations of a Churn (or nodes apin and
	// abuild allocate) cost one unit of the static budget.
	churnPerUnit = 40
	// allocExprPct is the chance (in percent) that an int32 expression
	// of a program with the feature is a check over references (RSum,
	// QSum).
	allocExprPct = 4
	// deepMax bounds the walk of a deep check; shallow ones walk
	// shallowMax nodes.
	deepMax    = 512
	shallowMax = 16
)

// nsumCost is the budget a walk of up to n nodes costs.
func nsumCost(n int) int { return n/40 + 1 }

// allocInit decides whether the program allocates heavily, from a
// random stream of its own (programs without the feature stay what
// they were), and how much weight its statements get.
func (g *gen) allocInit(seed uint64) {
	if g.o.Alloc <= 0 {
		return
	}
	r := rand.New(rand.NewPCG(seed, 0x616c6c6f63))
	if r.IntN(100) < g.o.Alloc {
		g.alloc = true
		g.aw = 1 + r.IntN(3)
	}
}

// allocVars gives method m (index i) its Node and Pair locals and, but
// for the root, maybe Node parameters.
func (g *gen) allocVars(m *Method, i int) {
	m.OLocals = 1 + g.r.IntN(3)
	m.QLocals = g.r.IntN(3)
	if i > 0 && g.chance(45) {
		m.OParams = 1 + g.r.IntN(2)
	}
}

// allocPrologue sets most of the method's Node locals to new nodes or
// lists (so that fewer reads of a next field throw) and some of its
// Pair locals, with an allocation loop: first in the root (one that
// cannot throw, so that it always runs), after the stores in half of
// the other methods.
func (g *gen) allocPrologue(budget *int) []Stmt {
	if !g.alloc {
		return nil
	}
	var out []Stmt
	if g.mi == 0 {
		// first, and nothing in it throws: it always runs
		if c := g.churn(budget, true, true); c != nil {
			out = append(out, c)
		}
	}
	for k := 0; k < g.m.OLocals; k++ {
		if g.chance(70) {
			var e RExpr = &RNew{V: g.expr(I4, 1, budget, false), Str: g.chance(50)}
			if g.chance(30) {
				e = g.build(budget, false)
			}
			out = append(out, &RSet{L: &RLoc{Root: RLocal, N: k}, E: e})
		}
	}
	for k := 0; k < g.m.QLocals; k++ {
		if g.chance(40) {
			out = append(out, g.qset(&QLoc{Root: QLocal, N: k}, budget, false))
		}
	}
	if g.mi > 0 && g.chance(50) {
		if c := g.churn(budget, false, true); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// guard wraps runs of one to three of a method's top-level statements
// (pct percent of them) in a try with a catch of System.Object, so that
// an exception escaping one does not end the method: the allocation that
// follows runs.
func (g *gen) guard(body []Stmt, pct int) []Stmt {
	var out []Stmt
	for i := 0; i < len(body); {
		n := min(1+g.r.IntN(3), len(body)-i)
		if g.chance(pct) {
			out = append(out, &Try{ID: g.id(), Body: body[i : i+n],
				Handlers: []*Handler{{Kind: Catch, ID: g.id(), Class: "System.Object"}}})
		} else {
			out = append(out, body[i:i+n]...)
		}
		i += n
	}
	return out
}

// allocStmts returns the statement choices of the allocation feature.
func (g *gen) allocStmts(budget *int, safe bool) []choice {
	w := g.aw
	cs := []choice{
		{3 * w, func() Stmt { return &RSet{L: g.rloc(safe, 0), E: g.rexpr(0, budget, safe)} }},
		{4 * w, func() Stmt {
			if c := g.churn(budget, safe, true); c != nil {
				return c
			}
			return nil
		}},
		{2 * w, func() Stmt { return &Mix{E: g.allocExpr(0, budget, safe), Print: g.chance(20)} }},
		{w, func() Stmt { return g.qset(g.qloc(safe, 0), budget, safe) }},
		{1, func() Stmt { return &QCopy{Dst: g.qloc(safe, 0), Src: g.qloc(safe, 0)} }},
		{w, func() Stmt { return g.pin(budget, safe) }},
	}
	if g.inHandler() {
		cs = append(cs, choice{2, func() Stmt {
			x := &ExCheck{Max: shallowMax}
			if g.chance(30) {
				x.Max = deepMax
			}
			*budget -= nsumCost(x.Max)
			if g.chance(30) {
				x.Set = g.rexpr(1, budget, safe)
			}
			return x
		}})
	}
	return cs
}

// allocExpr returns a check over references: a walk of a list, or the
// hash of a Pair.
func (g *gen) allocExpr(depth int, budget *int, safe bool) Expr {
	if g.chance(25) {
		return &QSum{Q: g.qloc(safe, 0)}
	}
	s := &RSum{Src: g.rexpr(max(depth, 1), budget, safe), Max: shallowMax}
	if g.chance(25) {
		s.Max = deepMax
	}
	*budget -= nsumCost(s.Max)
	return s
}

// idx returns an index of an array location: a constant (masked to the
// array when lowered) or an int32 variable, which has no side effects
// (Churn reads its target once per kept node).
func (g *gen) idx() Expr {
	if g.chance(60) {
		return &Const{T: I4, V: int64(g.r.IntN(8))}
	}
	vs := g.vars(I4)
	return &Load{V: vs[g.r.IntN(len(vs))]}
}

// rloc picks a reference location: one that cannot throw when safe,
// else sometimes the next field of a node (NullReferenceException when
// the node is null).
func (g *gen) rloc(safe bool, depth int) *RLoc {
	type cand struct {
		w  int
		mk func() *RLoc
	}
	m := g.m
	var cs []cand
	if m.OLocals > 0 {
		cs = append(cs, cand{6, func() *RLoc { return &RLoc{Root: RLocal, N: g.r.IntN(m.OLocals)} }})
	}
	if m.OParams > 0 {
		cs = append(cs, cand{4, func() *RLoc { return &RLoc{Root: RParam, N: g.r.IntN(m.OParams)} }})
	}
	cs = append(cs,
		cand{2, func() *RLoc { return &RLoc{Root: RStatic, N: g.r.IntN(nRStatics)} }},
		cand{2, func() *RLoc { return &RLoc{Root: RElem, Idx: g.idx(), Alt: g.chance(30)} }},
		cand{2, func() *RLoc { return &RLoc{Root: RQ, Q: g.qloc(safe, depth+1), Alt: g.chance(30)} }},
	)
	if !safe && depth < 2 {
		cs = append(cs, cand{3, func() *RLoc {
			g.may(nre)
			return &RLoc{Root: RNext, In: g.rloc(safe, depth+1)}
		}})
	}
	total := 0
	for _, c := range cs {
		total += c.w
	}
	k := g.r.IntN(total)
	for _, c := range cs {
		if k < c.w {
			return c.mk()
		}
		k -= c.w
	}
	panic("unreachable")
}

// qloc picks a Pair location: one that cannot throw when safe, else
// sometimes the p field of a node.
func (g *gen) qloc(safe bool, depth int) *QLoc {
	k := g.r.IntN(100)
	switch {
	case k < 45 && g.m.QLocals > 0:
		return &QLoc{Root: QLocal, N: g.r.IntN(g.m.QLocals)}
	case k < 70:
		return &QLoc{Root: QElem, Idx: g.idx()}
	case k < 80 || safe || depth >= 2:
		return &QLoc{Root: QStatic}
	}
	g.may(nre)
	return &QLoc{Root: QNode, In: g.rloc(safe, depth+1)}
}

// rexpr returns a Node expression: null, a location's reference, a new
// node (linked to another expression's) or a list abuild makes.
func (g *gen) rexpr(depth int, budget *int, safe bool) RExpr {
	switch k := g.r.IntN(100); {
	case k < 10:
		return &RNull{}
	case k < 50:
		return &RRead{L: g.rloc(safe, 0)}
	case k < 88 || depth >= 2:
		*budget--
		n := &RNew{V: g.expr(I4, 2, budget, safe), Str: g.chance(40)}
		if depth < 2 && g.chance(50) {
			n.Next = g.rexpr(depth+1, budget, safe)
		}
		return n
	}
	return g.build(budget, safe)
}

// build returns a list abuild makes, on top of another expression's.
func (g *gen) build(budget *int, safe bool) *RBuild {
	b := &RBuild{N: 1 + g.r.IntN(48), V: g.expr(I4, 2, budget, safe), Tail: g.rexpr(2, budget, safe)}
	*budget -= b.N/churnPerUnit + 1
	return b
}

// qset sets Pair location q.
func (g *gen) qset(q *QLoc, budget *int, safe bool) Stmt {
	return &QSet{Q: q, Init: g.chance(30), N: g.rexpr(1, budget, safe), K: g.expr(I4, 1, budget, safe), Str: g.chance(50)}
}

// churn returns an allocation loop within budget (nil when it has no
// room for one), keeping some of its nodes in a location when keep.
func (g *gen) churn(budget *int, safe, keep bool) *Churn {
	most := *budget / 2 * churnPerUnit
	if most < 64 {
		return nil
	}
	iter := 1024 + g.r.IntN(7169)
	switch k := g.r.IntN(10); {
	case k == 0:
		iter = 16 + g.r.IntN(241)
	case k == 1:
		iter = 8192 + g.r.IntN(8193)
	}
	c := &Churn{ID: g.id(), Iter: min(iter, most), V: g.expr(I4, 1, budget, safe),
		O: OKind(g.r.IntN(int(nOKinds))), NodeP: g.chance(40), Prev: g.chance(50)}
	*budget -= c.Iter/churnPerUnit + 1
	if keep && g.chance(80) {
		c.Keep = 1 << g.r.IntN(9)
		for c.Iter/c.Keep > deepMax {
			c.Keep *= 2
		}
		c.Target = g.rloc(safe, 0)
		c.Append = g.chance(35)
		if g.chance(60) {
			c.Check = true
			*budget -= nsumCost(deepMax)
		}
	}
	return c
}

// pin returns a statement holding a managed pointer into a heap object
// across allocations (nil when the budget has no room).
func (g *gen) pin(budget *int, safe bool) Stmt {
	if *budget/2*churnPerUnit < 64 {
		return nil
	}
	p := &Pin{ID: g.id(), Kind: PinKind(g.r.IntN(int(nPinKinds))), Delta: int32(g.r.IntN(2001) - 1000)}
	switch p.Kind {
	case PinNodeV, PinNodePK:
		if safe || g.chance(60) {
			*budget--
			p.Src = &RNew{V: g.expr(I4, 2, budget, safe), Str: g.chance(30)}
		} else {
			g.may(nre)
			p.Src = &RRead{L: g.rloc(false, 0)}
		}
		if g.chance(50) {
			p.Keep = g.rloc(safe, 0)
		}
	case PinInts:
		p.Len = 1 + g.r.IntN(8)
		p.Idx = g.r.IntN(p.Len)
	case PinPairs:
		p.Idx = g.r.IntN(8)
	}
	if g.chance(35) {
		p.Call = true
		p.Iter = min(16+g.r.IntN(2000), *budget/2*churnPerUnit)
		*budget -= p.Iter/churnPerUnit + 1
	} else {
		p.Churn = g.churn(budget, safe, false)
	}
	return p
}

// athrow throws an EN whose payload is a Node expression.
func (g *gen) athrow(budget *int) Stmt {
	g.may(exNode)
	return &AThrow{Code: g.expr(I4, 1, budget, false), Payload: g.rexpr(0, budget, false)}
}
