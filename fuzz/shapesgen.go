package fuzz

import (
	"math"
	"math/rand/v2"
)

// Generating the shapes the JIT optimizes (shapes.go).

const (
	// shapeExprPct is the chance (in percent) that an expression of a
	// program with the feature is a shape (a small call, a division by
	// a constant, an array element, a CSE pair, a type chain).
	shapeExprPct = 6
	// maxALen is the longest array a shape makes (the static arr has 5
	// elements, jag's rows at most 8).
	maxALen = 12
	// loopIters bounds the iterations of a ForArr (BLE: one more than
	// the longest array).
	loopIters = maxALen + 2
)

// shLoop is an enclosing ForArr: its id (index ixID) and array local.
type shLoop struct{ id, a int }

// shapeDivisors are the constant divisors of the shapes: powers of two
// and their negatives, 1, -1, small odd and even ones, magic values, the
// extremes; shapeDivisors64 adds int64 ones that fit no int32.
var (
	shapeDivisors = []int64{1, -1, 2, 4, 8, 16, 32, 1024, 1 << 30, -2, -4, -8, -1024, 3, 5, 6, 7, 9, 10, 11, 12, 13,
		25, 60, 100, 125, 641, 1000, 3600, 6700417, 0x55555556, math.MaxInt32, math.MinInt32, -3, -5, -7, -10, -100, -6700417}
	shapeDivisors64 = []int64{1 << 32, 1 << 40, -(1 << 40), 1000000007, 10000000000, 0x5555555555555556, 274177,
		67280421310721, math.MaxInt64, math.MinInt64, 1 << 62, -(1 << 62), -1000000007}
)

// shapesInit decides whether the program has the shapes, from a random
// stream of its own (programs without them stay what they were), and
// makes its small methods.
func (g *gen) shapesInit(seed uint64) {
	if g.o.Shapes <= 0 {
		return
	}
	r := rand.New(rand.NewPCG(seed, 0x736861706573))
	if r.IntN(100) >= g.o.Shapes {
		return
	}
	g.shapes = true
	g.sw = 1 + r.IntN(3)
	g.p.SmSealed = r.IntN(2) == 0
	g.exc = map[string]bool{} // the methods' own start afresh
	n := 2 + g.r.IntN(5)
	for k := 0; k < n; k++ {
		g.p.Fns = append(g.p.Fns, g.smallFn())
	}
}

// smallFn makes a small leaf method.
func (g *gen) smallFn() *SmallFn {
	f := &SmallFn{Inst: g.chance(45), may: map[string]bool{}}
	if f.Inst {
		f.Virt = g.chance(40)
	}
	for np := g.r.IntN(4); len(f.Params) < np; {
		f.Params = append(f.Params, g.typ())
	}
	f.Ret = g.typ()
	if g.chance(20) {
		f.Void, f.Ret = true, I4
	}
	if len(f.Params) > 0 && f.Params[0] == I4 && g.chance(25) {
		f.ThrowIf, f.ThrowV = true, int32(g.r.IntN(8))
		f.may["System.InvalidOperationException"] = true
	}
	f.Body = g.fnExpr(f, f.Ret, 0)
	if f.Void && f.Inst {
		f.reads = true
	}
	return f
}

// fnExpr returns an expression of a small method's body: its arguments,
// constants, this.f, arithmetic, shifts, divisions by constants (and
// rarely by an argument), comparisons and conversions, two levels deep.
func (g *gen) fnExpr(f *SmallFn, t Type, depth int) Expr {
	var args []int
	for k, pt := range f.Params {
		if pt == t {
			args = append(args, k)
		}
	}
	if depth >= 2 || g.chance(35) {
		switch k := g.r.IntN(100); {
		case k < 55 && len(args) > 0:
			return &Load{V: Var{Kind: Arg, Index: args[g.r.IntN(len(args))], T: t}}
		case k < 75 && f.Inst:
			f.reads = true
			if t == I8 {
				return &Conv{Op: "conv.i8", A: &SmThis{}, T: I8}
			}
			return &SmThis{}
		}
		return g.constant(t)
	}
	d := depth + 1
	switch k := g.r.IntN(100); {
	case k < 35:
		op := g.oneOf(arithOps)
		return &Bin{Op: op, A: g.fnExpr(f, t, d), B: g.fnExpr(f, t, d), T: t}
	case k < 48:
		width := int64(32)
		if t == I8 {
			width = 64
		}
		return &Bin{Op: g.oneOf(shiftOps), A: g.fnExpr(f, t, d), B: &Const{T: I4, V: g.r.Int64N(width)}, T: t}
	case k < 70:
		e := g.divBy(t, g.fnExpr(f, t, d), false)
		if b := e.(*Bin); !b.Guard {
			f.may[ovf] = true
		}
		return e
	case k < 76 && len(args) > 0:
		f.may["System.DivideByZeroException"] = true
		f.may[ovf] = true
		return &Bin{Op: g.oneOf(divOps), A: g.fnExpr(f, t, d), B: &Load{V: Var{Kind: Arg, Index: args[g.r.IntN(len(args))], T: t}}, T: t}
	case k < 88 && t == I4:
		ct := g.typ()
		return &Cmp{Op: g.oneOf(cmpOps), A: g.fnExpr(f, ct, d), B: g.fnExpr(f, ct, d)}
	case t == I8:
		return &Conv{Op: g.oneOf(convI8), A: g.fnExpr(f, I4, d), T: I8}
	}
	return &Conv{Op: g.oneOf(convI4), A: g.fnExpr(f, I8, d), T: I4}
}

// divBy divides a (of type t) by a constant of the shapes: signed or
// unsigned, division or remainder. A signed division by -1 (which
// overflows for MinValue) stays unguarded, unless safe (then the divisor
// is 1); every other constant needs no guard.
func (g *gen) divBy(t Type, a Expr, safe bool) Expr {
	op := g.oneOf([]string{"div", "rem", "div", "rem", "div.un", "rem.un"})
	d := shapeDivisors[g.r.IntN(len(shapeDivisors))]
	if t == I8 && g.chance(35) {
		d = shapeDivisors64[g.r.IntN(len(shapeDivisors64))]
	}
	c := g.monoConst(&Const{T: t, V: d})
	b := &Bin{Op: op, A: a, B: c, T: t, Guard: true}
	if c.V == -1 && (op == "div" || op == "rem") {
		if safe {
			c.V = 1
		} else {
			b.Guard = false
			g.may(ovf)
		}
	}
	return b
}

// dividend returns the dividend of a division by a constant: often the
// type's MinValue, else an expression.
func (g *gen) dividend(t Type, depth int, budget *int, safe bool) Expr {
	switch k := g.r.IntN(100); {
	case k < 15:
		if t == I8 {
			return g.monoConst(&Const{T: I8, V: math.MinInt64})
		}
		return g.monoConst(&Const{T: I4, V: math.MinInt32})
	case k < 35 && t == I4 && len(g.shLoops) > 0 && !safe:
		return g.elem(budget)
	case k < 45 && t == I4 && len(g.shLoops) > 0:
		return &IdxLoad{Loop: g.shLoops[len(g.shLoops)-1].id}
	}
	return g.expr(t, depth+1, budget, safe)
}

// shapePrologue gives the method's array locals their first arrays:
// mostly new ones, filled, sometimes empty, the static arr, a row of
// jag or null.
func (g *gen) shapePrologue(budget *int) []Stmt {
	var out []Stmt
	for a := 0; a < g.m.ALocals; a++ {
		*budget--
		out = append(out, g.aset(a, true))
	}
	return out
}

// aset returns a store of an array into local a (first: at the start
// of the method, mostly a new one).
func (g *gen) aset(a int, first bool) *ASet {
	s := &ASet{A: a}
	k := g.r.IntN(100)
	if first && g.chance(50) {
		k = 0 // three quarters new arrays that are not empty
	}
	switch {
	case k < 50:
		s.Src, s.Len = ANew, 1+g.r.IntN(maxALen)
		if g.chance(80) {
			s.Mul, s.Add = int32(g.r.IntN(41)-20), int32(g.r.IntN(201)-100)
		}
	case k < 62:
		s.Src = ANew // empty
	case k < 72:
		s.Src = AStatic
	case k < 80:
		s.Src, s.Row = ARow, g.r.IntN(3)
	case k < 90 && g.m.ALocals > 1:
		s.Src, s.From = ACopy, (a+1+g.r.IntN(g.m.ALocals-1))%g.m.ALocals
	default:
		s.Src = ANull
	}
	return s
}

// index returns an index into the array of the innermost enclosing
// ForArr: mostly its index, else the next or the previous one (out of
// range at the ends), the sum with an outer loop's index, a masked
// expression or a constant.
func (g *gen) index(budget *int) Expr {
	L := g.shLoops[len(g.shLoops)-1]
	i := &IdxLoad{Loop: L.id}
	switch k := g.r.IntN(100); {
	case k < 58:
		return i
	case k < 70:
		return &Bin{Op: "add", A: i, B: &Const{T: I4, V: 1}, T: I4}
	case k < 75:
		return &Bin{Op: "sub", A: i, B: &Const{T: I4, V: 1}, T: I4}
	case k < 90 && len(g.shLoops) > 1:
		o := g.shLoops[len(g.shLoops)-2]
		return &Bin{Op: "add", A: &IdxLoad{Loop: o.id}, B: i, T: I4}
	case k < 95:
		return &Bin{Op: "and", A: g.expr(I4, 2, budget, false), B: &Const{T: I4, V: 15}, T: I4}
	}
	return &Const{T: I4, V: int64(g.r.IntN(4))}
}

// elem reads an element of the innermost loop's array (or, rarely,
// another array local) at an index of the loop.
func (g *gen) elem(budget *int) Expr {
	g.may(nre, "System.IndexOutOfRangeException")
	a := g.shLoops[len(g.shLoops)-1].a
	if g.chance(10) {
		a = g.r.IntN(g.m.ALocals)
	}
	return &AElem{A: a, Idx: g.index(budget)}
}

// sumVar picks a variable to accumulate into, mostly an int32 local.
func (g *gen) sumVar() Var {
	t := g.typ()
	if g.chance(70) {
		n := g.m.NI4
		if t == I8 {
			n = g.m.NI8
		}
		if n > 0 {
			return Var{Kind: Local, Index: g.r.IntN(n), T: t}
		}
	}
	vs := g.vars(t)
	return vs[g.r.IntN(len(vs))]
}

// accumulate returns v = v + e (e an int32, widened for an int64 v).
func accumulate(v Var, e Expr) Stmt {
	if v.T == I8 {
		e = &Conv{Op: "conv.i8", A: e, T: I8}
	}
	return &Assign{Dst: v, E: &Bin{Op: "add", A: &Load{V: v}, B: e, T: v.T}}
}

// arrOp returns a statement of a ForArr's body over its array: a sum of
// elements, a store, a read-modify-write, the same element read twice,
// a small call or a division by a constant of an element, a throw
// depending on an element, a new array, a nested loop. call forces the
// small call.
func (g *gen) arrOp(budget *int, depth int, call bool) Stmt {
	*budget--
	L := g.shLoops[len(g.shLoops)-1]
	k := g.r.IntN(100)
	if call {
		k = 55
	}
	switch {
	case k < 28:
		return accumulate(g.sumVar(), g.elem(budget))
	case k < 40:
		g.may(nre, "System.IndexOutOfRangeException")
		return &AStore{A: L.a, Idx: g.index(budget), E: g.expr(I4, 1, budget, false)}
	case k < 48:
		g.may(nre, "System.IndexOutOfRangeException")
		idx := g.index(budget)
		op := g.oneOf([]string{"add", "mul", "xor"})
		return &AStore{A: L.a, Idx: idx, E: &Bin{Op: op, A: &AElem{A: L.a, Idx: cloneExpr(idx)}, B: g.constant(I4), T: I4}}
	case k < 55:
		return &Mix{E: g.cse(budget)}
	case k < 66:
		if c := g.fnCall(I4, 1, budget, false, false); c != nil {
			return accumulate(g.sumVar(), c)
		}
		if c := g.fnCall(I8, 1, budget, false, false); c != nil {
			vs := g.vars(I8)
			v := vs[g.r.IntN(len(vs))]
			return &Assign{Dst: v, E: &Bin{Op: "add", A: &Load{V: v}, B: c, T: I8}}
		}
		if c := g.fnCall(I4, 1, budget, false, true); c != nil {
			return &FnStmt{C: c}
		}
		return accumulate(g.sumVar(), g.elem(budget))
	case k < 76:
		return accumulate(g.sumVar(), g.divBy(I4, g.elem(budget), false))
	case k < 84:
		c := thrown[g.r.IntN(len(thrown))]
		g.may(c)
		t := &Throw{Class: c}
		if isUser(c) {
			t.Code = g.elem(budget)
		}
		return &If{C: Cond{Op: "beq", A: &Bin{Op: "and", A: g.elem(budget), B: &Const{T: I4, V: 7}, T: I4}, B: &Const{T: I4, V: int64(g.r.IntN(8))}}, Then: []Stmt{t}}
	case k < 90:
		a := g.aset(L.a, false)
		if g.chance(50) {
			// only on one iteration
			return &If{C: Cond{Op: "beq", A: &IdxLoad{Loop: L.id}, B: &Const{T: I4, V: int64(g.r.IntN(4))}}, Then: []Stmt{a}}
		}
		return a
	case depth < g.o.MaxDepth+1:
		if f := g.forArr(budget, depth, false); f != nil {
			return f
		}
	}
	return accumulate(g.sumVar(), g.elem(budget))
}

// cse returns an int32 that reads the same address twice: an element
// of an array (at an index of the enclosing loops), the field of bx or
// of sm.
func (g *gen) cse(budget *int) Expr {
	op := g.oneOf([]string{"add", "xor", "sub", "mul"})
	var x Expr
	switch k := g.r.IntN(100); {
	case k < 60 && len(g.shLoops) > 0:
		x = g.elem(budget)
	case k < 75:
		g.may(nre, "System.IndexOutOfRangeException")
		x = &AElem{A: g.r.IntN(g.m.ALocals), Idx: &Bin{Op: "and", A: g.expr(I4, 2, budget, false), B: &Const{T: I4, V: 7}, T: I4}}
	case k < 88:
		g.may(nre)
		x = &BoxField{}
	default:
		g.may(nre)
		x = &SmField{}
	}
	y := cloneExpr(x)
	if g.chance(30) {
		y = &Bin{Op: "add", A: y, B: g.constant(I4), T: I4}
	}
	return &Bin{Op: op, A: x, B: y, T: I4}
}

// fnCall returns a call of a small method returning t (any, void ones
// included, when stmt), nil when there is none. In a ForArr, int32
// arguments are often the element and the index.
func (g *gen) fnCall(t Type, depth int, budget *int, safe, stmt bool) *FnCall {
	var cands []int
	for k, f := range g.p.Fns {
		if !stmt && (f.Void || f.Ret != t) {
			continue
		}
		if safe && len(f.may) > 0 {
			continue
		}
		cands = append(cands, k)
	}
	if len(cands) == 0 {
		return nil
	}
	*budget--
	k := cands[g.r.IntN(len(cands))]
	f := g.p.Fns[k]
	c := &FnCall{Fn: k, T: f.Ret}
	for _, pt := range f.Params {
		var a Expr
		switch {
		case pt == I4 && len(g.shLoops) > 0 && !safe && g.chance(40):
			a = g.elem(budget)
		case pt == I4 && len(g.shLoops) > 0 && g.chance(30):
			a = &IdxLoad{Loop: g.shLoops[len(g.shLoops)-1].id}
		default:
			a = g.expr(pt, depth+1, budget, safe)
		}
		c.Args = append(c.Args, a)
	}
	if f.Inst {
		switch x := g.r.IntN(100); {
		case safe || x < 25:
			c.Obj, c.K = ONewSm, int32(g.r.IntN(201)-100)
		case x < 88:
			c.Obj = OSm
		default:
			c.Obj = ONil
		}
		c.CallVirt = !f.Virt && g.chance(40)
		if c.Obj != ONewSm && (f.reads || f.Virt || c.CallVirt) {
			g.may(nre)
		}
	}
	g.mayAll(f.may)
	return c
}

// typeChain returns isinst and castclass steps over a value of a known
// type (nothing that throws when safe).
func (g *gen) typeChain(safe bool) Expr {
	e := &TypeChain{Src: TSrc(g.r.IntN(int(nTSrcs))), K: int32(g.r.IntN(41) - 20), Local: g.chance(50)}
	for n := 1 + g.r.IntN(3); len(e.Steps) < n; {
		e.Steps = append(e.Steps, TStep{Cast: !safe && g.chance(40), Guard: g.chance(35), C: TClass(g.r.IntN(int(nTClasses)))})
	}
	if !safe {
		e.End = TEnd(g.r.IntN(int(nTEnds) + 2))
		if e.End >= nTEnds {
			e.End = TENonNull
		}
		g.may(nre, "System.InvalidCastException")
		if e.End == TEApply {
			g.may("System.DivideByZeroException")
		}
	}
	return e
}

// shapeExpr returns a shape expression of type t (nil: none fits).
func (g *gen) shapeExpr(t Type, depth int, budget *int, safe bool) Expr {
	k := g.r.IntN(100)
	switch {
	case k < 35:
		if c := g.fnCall(t, depth, budget, safe, false); c != nil {
			return c
		}
		return g.divBy(t, g.dividend(t, depth, budget, safe), safe)
	case k < 65:
		return g.divBy(t, g.dividend(t, depth, budget, safe), safe)
	case t == I8 || safe:
		return nil
	case k < 78:
		if len(g.shLoops) > 0 {
			if g.chance(70) {
				return g.elem(budget)
			}
			return &IdxLoad{Loop: g.shLoops[len(g.shLoops)-1].id}
		}
		g.may(nre)
		if g.chance(40) {
			return &ALen{A: g.r.IntN(g.m.ALocals)}
		}
		g.may("System.IndexOutOfRangeException")
		return &AElem{A: g.r.IntN(g.m.ALocals), Idx: &Bin{Op: "and", A: g.expr(I4, depth+1, budget, safe), B: &Const{T: I4, V: 15}, T: I4}}
	case k < 88:
		return g.cse(budget)
	}
	return g.typeChain(safe)
}

// shapeStmts returns the statement choices of the shapes.
func (g *gen) shapeStmts(budget *int, depth int, safe, compound bool) []choice {
	w := g.sw
	cs := []choice{
		{2 * w, func() Stmt {
			if c := g.fnCall(I4, 0, budget, safe, true); c != nil {
				if c.T == I4 && !g.p.Fns[c.Fn].Void && g.chance(60) {
					return &Mix{E: c}
				}
				return &FnStmt{C: c}
			}
			return nil
		}},
		{2 * w, func() Stmt {
			t := g.typ()
			return &Mix{E: g.divBy(t, g.dividend(t, 0, budget, safe), safe), Print: g.chance(20)}
		}},
		{w, func() Stmt { return &Mix{E: g.typeChain(safe)} }},
		{1, func() Stmt { return g.aset(g.r.IntN(g.m.ALocals), false) }},
		{1, func() Stmt { return &SetSm{Null: g.chance(25), E: g.expr(I4, 1, budget, safe)} }},
	}
	if safe {
		return cs
	}
	cs = append(cs, choice{w, func() Stmt { return &Mix{E: g.cse(budget)} }})
	if len(g.shLoops) > 0 {
		cs = append(cs, choice{8 * w, func() Stmt { return g.arrOp(budget, depth, false) }})
	}
	if compound && *budget >= 2*loopIters {
		cs = append(cs,
			choice{3 * w, func() Stmt { return g.arrLoop(budget, depth) }},
			choice{2 * w, func() Stmt { return g.ehLoop(budget, depth) }},
		)
	}
	return cs
}

// forArr returns a loop over one of the method's arrays (nil when the
// budget has no room), its body starting with an arrOp (a small call
// when call).
func (g *gen) forArr(budget *int, depth int, call bool) *ForArr {
	if *budget < loopIters {
		return nil
	}
	f := &ForArr{ID: g.id(), A: g.r.IntN(g.m.ALocals), K: g.r.IntN(maxALen + 1),
		Down: g.chance(15), Rotated: g.chance(35), NoConv: g.chance(15), MixIdx: g.chance(40)}
	switch k := g.r.IntN(100); {
	case k < 40:
		f.Bound = BLen
	case k < 60:
		f.Bound = BN
	case k < 70:
		f.Bound = BLenM1
	case k < 80:
		f.Bound = BLE
	default:
		f.Bound = BConst
	}
	if f.Bound != BConst {
		g.may(nre)
	}
	switch k := g.r.IntN(100); {
	case k < 15:
		f.Start = 1
	case k < 25:
		f.Start = 2
	}
	g.push(fLoop, f.ID)
	g.shLoops = append(g.shLoops, shLoop{f.ID, f.A})
	b := *budget / loopIters
	start := b
	f.Body = []Stmt{g.arrOp(&b, depth+1, call)}
	if g.chance(60) {
		f.Body = append(f.Body, g.block(&b, depth+1)...)
	}
	g.shLoops = g.shLoops[:len(g.shLoops)-1]
	g.pop()
	*budget -= (start - b) * loopIters
	return f
}

// arrLoop returns a loop over an array, sometimes after a new array is
// stored (null, empty, ...), and sometimes in a try whose catch reads
// the index (and a variable the body writes first, before its checks).
func (g *gen) arrLoop(budget *int, depth int) Stmt {
	return g.arrLoopCall(budget, depth, false)
}

func (g *gen) arrLoopCall(budget *int, depth int, call bool) Stmt {
	var pre []Stmt
	var t *Try
	if g.chance(35) {
		t = &Try{ID: g.id()}
		g.push(fTry, t.ID)
	}
	f := g.forArr(budget, depth, call)
	if f == nil {
		if t != nil {
			g.pop()
		}
		return nil
	}
	if g.chance(25) {
		pre = append(pre, g.aset(f.A, false))
	}
	var out Stmt = f
	var after []Stmt
	if t != nil {
		g.pop()
		t.Body = []Stmt{f}
		cls := []string{"System.Exception", "System.Object", "System.IndexOutOfRangeException", nre}[g.r.IntN(4)]
		h := &Handler{Kind: Catch, ID: g.id(), Class: cls, Body: []Stmt{&Mix{E: &IdxLoad{Loop: f.ID}}}}
		if g.chance(40) {
			// A variable written before the body's first check, read in
			// the catch and after it: no check may move above the write.
			v := g.sumVar()
			f.Body = append([]Stmt{accumulate(v, &Const{T: I4, V: 1})}, f.Body...)
			h.Body = append(h.Body, &Mix{E: &Load{V: v}})
			after = append(after, &Mix{E: &Load{V: v}})
		}
		t.Handlers = []*Handler{h}
		out = t
	}
	if len(pre) == 0 && len(after) == 0 {
		return out
	}
	return &Block{Body: append(append(pre, out), after...)}
}

// ehLoop returns a loop whose body is a try/finally or try/catch: a
// variable modified in the try is read in the handler and after the
// loop, the index in the handler.
func (g *gen) ehLoop(budget *int, depth int) Stmt {
	if *budget < 2*loopIters {
		return nil
	}
	f := &ForArr{ID: g.id(), A: g.r.IntN(g.m.ALocals), K: 1 + g.r.IntN(maxALen), Rotated: g.chance(30), MixIdx: g.chance(30)}
	if g.chance(50) {
		f.Bound = BConst
	} else {
		g.may(nre)
	}
	v := g.sumVar()
	g.push(fLoop, f.ID)
	g.shLoops = append(g.shLoops, shLoop{f.ID, f.A})
	b := *budget / loopIters
	start := b
	t := &Try{ID: g.id()}
	kind := Finally
	if g.chance(40) {
		kind = Catch
	}
	g.push(fTry, t.ID)
	var x Expr = &IdxLoad{Loop: f.ID}
	if f.Bound != BConst && g.chance(70) {
		x = g.elem(&b)
	}
	t.Body = []Stmt{accumulate(v, x)}
	cls := "System.Exception"
	if g.chance(50) {
		c := thrown[g.r.IntN(len(thrown))]
		g.may(c)
		th := &Throw{Class: c}
		if isUser(c) {
			th.Code = &IdxLoad{Loop: f.ID}
		}
		t.Body = append(t.Body, &If{C: Cond{Op: "beq", A: &Bin{Op: "and", A: &IdxLoad{Loop: f.ID}, B: &Const{T: I4, V: 3}, T: I4}, B: &Const{T: I4, V: int64(g.r.IntN(4))}}, Then: []Stmt{th}})
		if g.chance(70) {
			cls = c
		}
	}
	if g.chance(40) {
		t.Body = append(t.Body, g.block(&b, depth+2)...)
	}
	g.pop()
	h := &Handler{Kind: kind, ID: g.id()}
	if kind == Catch {
		h.Class = cls
		g.push(fCatch, t.ID)
	} else {
		g.push(fFinally, t.ID)
	}
	h.Body = []Stmt{&Mix{E: &Load{V: v}}}
	if g.chance(50) {
		h.Body = append(h.Body, &Mix{E: &IdxLoad{Loop: f.ID}})
	}
	if g.chance(40) {
		w := g.sumVar()
		h.Body = append(h.Body, accumulate(w, &Const{T: I4, V: 1}))
	}
	g.pop()
	t.Handlers = []*Handler{h}
	f.Body = []Stmt{t}
	g.shLoops = g.shLoops[:len(g.shLoops)-1]
	g.pop()
	*budget -= (start - b + 3) * loopIters
	return &Block{Body: []Stmt{f, &Mix{E: &Load{V: v}}}}
}

// anchors returns shapes every method of a program with the feature
// may start from (the root always has two): a loop over an array, a
// loop of small calls, a loop whose body is a try.
func (g *gen) anchors(budget *int, i int) []Stmt {
	n := 0
	switch {
	case i == 0:
		n = 2
	case g.chance(40):
		n = 1
	}
	var out []Stmt
	for k := 0; k < n; k++ {
		var s Stmt
		switch x := g.r.IntN(100); {
		case x < 45:
			s = g.arrLoop(budget, 1)
		case x < 75:
			s = g.arrLoopCall(budget, 1, true)
		default:
			s = g.ehLoop(budget, 1)
		}
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// insertAt inserts each of xs into body at a random position from
// start on.
func (g *gen) insertAt(body []Stmt, start int, xs []Stmt) []Stmt {
	for _, x := range xs {
		p := start + g.r.IntN(len(body)-start+1)
		body = append(body[:p:p], append([]Stmt{x}, body[p:]...)...)
	}
	return body
}
