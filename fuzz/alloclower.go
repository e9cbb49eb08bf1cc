package fuzz

import (
	"fmt"
	"strings"
)

// Lowering allocation-heavy code (alloc.go).

// exNode is the exception class with a Node payload.
const exNode = "EN"

const (
	int32ToString = "call instance string [mscorlib]System.Int32::ToString()"
	concat2       = "call string [mscorlib]System.String::Concat(string, string)"
	sbClass       = "[mscorlib]System.Text.StringBuilder"
	nodeCtor      = "newobj instance void Node::.ctor(int32, class Node)"
	callNsum      = "call int32 nsum(class Node, int32)"
	callPsum      = "call int32 psum(valuetype Pair)"
)

// allocDeps marks what the used allocation classes, statics and
// helpers need.
func (l *lowerer) allocDeps() {
	if l.used[exNode] && l.used["enter"] && !l.p.NoMix {
		l.used["nsum"] = true
	}
	if l.used["nsum"] {
		l.used["psum"] = true
	}
	for _, k := range []string{"nsum", "psum", "abuild", "apin", "an0", "an1", "anarr", "apa", "aps", exNode, "Pair"} {
		if l.used[k] {
			l.used["Node"] = true
		}
	}
	if l.used["Node"] {
		l.used["Pair"] = true
	}
	if l.used["nsum"] || l.used["psum"] {
		l.used["ahash"] = true
	}
}

// oLocal names Node local n; qLocal Pair local n.
func oLocal(n int) string { return fmt.Sprintf("o%d", n) }

func qLocal(n int) string { return fmt.Sprintf("q%d", n) }

// readR pushes the reference location L holds.
func (l *lowerer) readR(L *RLoc) {
	l.used["Node"] = true
	switch L.Root {
	case RLocal:
		l.emit("ldloc %s", l.local(oLocal(L.N), "class Node"))
	case RParam:
		l.emit("ldarg oa%d", L.N)
	case RStatic:
		l.used[fmt.Sprintf("an%d", L.N)] = true
		l.emit("ldsfld class Node an%d", L.N)
	case RElem:
		l.relemIndex(L)
		if L.Alt {
			l.emit("ldelem Node")
		} else {
			l.emit("ldelem.ref")
		}
	case RNext:
		l.readR(L.In)
		l.produced[nre] = true
		l.emit("ldfld class Node Node::next")
	case RQ:
		if L.Alt {
			l.qvalue(L.Q)
		} else {
			l.qaddr(L.Q)
		}
		l.emit("ldfld class Node Pair::n")
	}
}

// storeR stores the reference val pushes into L.
func (l *lowerer) storeR(L *RLoc, val func()) {
	l.used["Node"] = true
	switch L.Root {
	case RLocal:
		val()
		l.emit("stloc %s", l.local(oLocal(L.N), "class Node"))
	case RParam:
		val()
		l.emit("starg oa%d", L.N)
	case RStatic:
		val()
		l.used[fmt.Sprintf("an%d", L.N)] = true
		l.emit("stsfld class Node an%d", L.N)
	case RElem:
		l.relemIndex(L)
		val()
		if L.Alt {
			l.emit("stelem Node")
		} else {
			l.emit("stelem.ref")
		}
	case RNext:
		l.readR(L.In)
		l.produced[nre] = true
		val()
		l.emit("stfld class Node Node::next")
	case RQ:
		l.qaddr(L.Q)
		val()
		l.emit("stfld class Node Pair::n")
	}
}

// relemIndex pushes anarr and the index of element location L.
func (l *lowerer) relemIndex(L *RLoc) {
	l.used["anarr"] = true
	l.emit("ldsfld class Node[] anarr")
	l.expr(orZero(L.Idx))
	l.emit("ldc.i4 3")
	l.emit("and")
}

// qaddr pushes the address of Pair location Q.
func (l *lowerer) qaddr(Q *QLoc) {
	l.used["Pair"] = true
	switch Q.Root {
	case QLocal:
		l.emit("ldloca %s", l.local(qLocal(Q.N), "valuetype Pair"))
	case QElem:
		l.qelemIndex(Q)
		l.emit("ldelema Pair")
	case QStatic:
		l.used["aps"] = true
		l.emit("ldsflda valuetype Pair aps")
	case QNode:
		l.readR(Q.In)
		l.produced[nre] = true
		l.emit("ldflda valuetype Pair Node::p")
	}
}

// qvalue pushes the value of Pair location Q.
func (l *lowerer) qvalue(Q *QLoc) {
	l.used["Pair"] = true
	switch Q.Root {
	case QLocal:
		l.emit("ldloc %s", l.local(qLocal(Q.N), "valuetype Pair"))
	case QElem:
		l.qelemIndex(Q)
		l.emit("ldelem Pair")
	case QStatic:
		l.used["aps"] = true
		l.emit("ldsfld valuetype Pair aps")
	case QNode:
		l.readR(Q.In)
		l.produced[nre] = true
		l.emit("ldfld valuetype Pair Node::p")
	}
}

// qstore stores the Pair value val pushes into Q.
func (l *lowerer) qstore(Q *QLoc, val func()) {
	l.used["Pair"] = true
	switch Q.Root {
	case QLocal:
		val()
		l.emit("stloc %s", l.local(qLocal(Q.N), "valuetype Pair"))
	case QElem:
		l.qelemIndex(Q)
		val()
		l.emit("stelem Pair")
	case QStatic:
		val()
		l.used["aps"] = true
		l.emit("stsfld valuetype Pair aps")
	case QNode:
		l.readR(Q.In)
		l.produced[nre] = true
		val()
		l.emit("stfld valuetype Pair Node::p")
	}
}

// qelemIndex pushes apa and the index of element location Q.
func (l *lowerer) qelemIndex(Q *QLoc) {
	l.used["apa"] = true
	l.emit("ldsfld valuetype Pair[] apa")
	l.expr(orZero(Q.Idx))
	l.emit("ldc.i4 3")
	l.emit("and")
}

// rexpr lowers a Node expression.
func (l *lowerer) rexpr(e RExpr) {
	l.used["Node"] = true
	switch e := e.(type) {
	case nil, *RNull:
		l.emit("ldnull")
	case *RRead:
		l.readR(e.L)
	case *RNew:
		l.expr(orZero(e.V))
		l.rexpr(e.Next)
		l.emit(nodeCtor)
		if e.Str {
			// o = v.ToString(), this being the address of the new node's
			// field
			l.emit("dup")
			l.emit("dup")
			l.emit("ldflda int32 Node::v")
			l.emit(int32ToString)
			l.emit("stfld object Node::o")
		}
	case *RBuild:
		l.used["abuild"] = true
		l.emit("ldc.i4 %d", e.N)
		l.expr(orZero(e.V))
		l.rexpr(e.Tail)
		l.emit("call class Node abuild(int32, int32, class Node)")
	default:
		panic(fmt.Sprintf("fuzz: cannot lower %T", e))
	}
}

// mixTop folds the int32 on the stack into the hash (drops it with
// NoMix).
func (l *lowerer) mixTop() {
	if l.p.NoMix {
		l.emit("pop")
		return
	}
	l.mix()
}

// allocExpr lowers the int expressions over references; false for
// other expressions.
func (l *lowerer) allocExpr(e Expr) bool {
	switch e := e.(type) {
	case *RSum:
		l.used["nsum"] = true
		l.rexpr(e.Src)
		l.emit("ldc.i4 %d", e.Max)
		l.emit(callNsum)
	case *QSum:
		l.used["psum"] = true
		l.qvalue(e.Q)
		l.emit(callPsum)
	default:
		return false
	}
	return true
}

// allocStmt lowers the allocation statements; false for other
// statements.
func (l *lowerer) allocStmt(s Stmt) bool {
	switch s := s.(type) {
	case *RSet:
		l.storeR(s.L, func() { l.rexpr(s.E) })
	case *QSet:
		if s.Init {
			l.qaddr(s.Q)
			l.emit("initobj Pair")
		}
		l.qaddr(s.Q)
		l.rexpr(s.N)
		l.emit("stfld class Node Pair::n")
		l.qaddr(s.Q)
		l.expr(orZero(s.K))
		l.emit("stfld int32 Pair::k")
		if s.Str {
			l.qaddr(s.Q)
			l.qaddr(s.Q)
			l.emit("ldflda int32 Pair::k")
			l.emit(int32ToString)
			l.emit("stfld string Pair::s")
		}
	case *QCopy:
		if s.Dst.Root == QLocal || s.Src.Root == QLocal {
			l.qstore(s.Dst, func() { l.qvalue(s.Src) })
		} else {
			l.qaddr(s.Dst)
			l.qaddr(s.Src)
			l.emit("ldobj Pair")
			l.emit("stobj Pair")
		}
	case *Churn:
		l.churn(s)
	case *Pin:
		l.pin(s)
	case *AThrow:
		l.used[exNode] = true
		l.used["Node"] = true
		l.produced[exNode] = true
		l.expr(orZero(s.Code))
		l.rexpr(s.Payload)
		l.emit("newobj instance void EN::.ctor(int32, class Node)")
		l.emit("throw")
	case *ExCheck:
		l.used[exNode] = true
		l.used["nsum"] = true
		ex := l.local("ex", "object")
		skip := l.newLabel()
		l.emit("ldloc %s", ex)
		l.emit("isinst EN")
		l.emit("brfalse %s", skip)
		l.emit("ldloc %s", ex)
		l.emit("castclass EN")
		l.emit("ldfld class Node EN::payload")
		l.emit("ldc.i4 %d", s.Max)
		l.emit(callNsum)
		l.mixTop()
		if s.Set != nil {
			l.emit("ldloc %s", ex)
			l.emit("castclass EN")
			l.rexpr(s.Set)
			l.emit("stfld class Node EN::payload")
		}
		l.label(skip)
	default:
		return false
	}
	return true
}

// churn lowers an allocation loop (see Churn).
func (l *lowerer) churn(c *Churn) {
	l.used["Node"] = true
	ci := l.local(fmt.Sprintf("ci%d", c.ID), "int32")
	ct := l.local(fmt.Sprintf("ct%d", c.ID), "class Node")
	cv := l.local(fmt.Sprintf("cv%d", c.ID), "int32")
	cp := ""
	if c.Prev || c.NodeP {
		cp = l.local(fmt.Sprintf("cp%d", c.ID), "class Node")
	}
	keep := c.Keep > 0 && c.Target != nil
	ctl := ""
	l.expr(orZero(c.V))
	l.emit("stloc %s", cv)
	if keep && c.Append {
		ctl = l.local(fmt.Sprintf("ctl%d", c.ID), "class Node")
		l.readR(c.Target)
		l.emit("stloc %s", ctl)
	}
	head, end := l.newLabel(), l.newLabel()
	l.emit("ldc.i4 0")
	l.emit("stloc %s", ci)
	l.label(head)
	l.emit("ldloc %s", ci)
	l.emit("ldc.i4 %d", c.Iter)
	l.emit("bge %s", end)
	l.emit("ldloc %s", ci)
	l.emit("ldloc %s", cv)
	l.emit("add")
	if c.Prev {
		l.emit("ldloc %s", cp)
	} else {
		l.emit("ldnull")
	}
	l.emit(nodeCtor)
	l.emit("stloc %s", ct)
	if c.O != ONone {
		l.emit("ldloc %s", ct)
		l.churnObject(c, ct, ci, cv)
		l.emit("stfld object Node::o")
	}
	if c.NodeP {
		l.emit("ldloc %s", ct)
		l.emit("ldflda valuetype Pair Node::p")
		l.emit("ldloc %s", cp)
		l.emit("stfld class Node Pair::n")
		l.emit("ldloc %s", ct)
		l.emit("ldflda valuetype Pair Node::p")
		l.emit("ldloc %s", ci)
		l.emit("stfld int32 Pair::k")
		l.emit("ldloc %s", ct)
		l.emit("ldflda valuetype Pair Node::p")
		l.emit("dup")
		l.emit("ldflda int32 Pair::k")
		l.emit(int32ToString)
		l.emit("stfld string Pair::s")
	}
	if cp != "" {
		// the previous node, the chain cut every 32 nodes
		cut := l.newLabel()
		l.emit("ldloc %s", ct)
		l.emit("stloc %s", cp)
		l.emit("ldloc %s", ci)
		l.emit("ldc.i4 31")
		l.emit("and")
		l.emit("brtrue %s", cut)
		l.emit("ldnull")
		l.emit("stloc %s", cp)
		l.label(cut)
	}
	if keep {
		skip := l.newLabel()
		l.emit("ldloc %s", ci)
		l.emit("ldc.i4 %d", c.Keep-1)
		l.emit("and")
		l.emit("brtrue %s", skip)
		if c.Append {
			link, set := l.newLabel(), l.newLabel()
			l.emit("ldloc %s", ctl)
			l.emit("brtrue %s", link)
			l.storeR(c.Target, func() { l.emit("ldloc %s", ct) })
			l.emit("br %s", set)
			l.label(link)
			l.emit("ldloc %s", ctl)
			l.emit("ldloc %s", ct)
			l.emit("stfld class Node Node::next")
			l.label(set)
			l.emit("ldloc %s", ct)
			l.emit("stloc %s", ctl)
		} else {
			l.emit("ldloc %s", ct)
			l.readR(c.Target)
			l.emit("stfld class Node Node::next")
			l.storeR(c.Target, func() { l.emit("ldloc %s", ct) })
		}
		l.label(skip)
	}
	l.emit("ldloc %s", ci)
	l.emit("ldc.i4 1")
	l.emit("add")
	l.emit("stloc %s", ci)
	l.emit("br %s", head)
	l.label(end)
	if keep && c.Check {
		l.stmt(&Mix{E: &RSum{Src: &RRead{L: c.Target}, Max: deepMax}})
	}
}

// churnObject pushes the object a Churn iteration stores in its node's
// o field.
func (l *lowerer) churnObject(c *Churn, ct, ci, cv string) {
	appendSB := func(t string) {
		l.emit("callvirt instance class %s %s::Append(%s)", sbClass, sbClass, t)
	}
	switch c.O {
	case OString:
		l.emit("ldloca %s", ci)
		l.emit(int32ToString)
		l.emit(`ldstr "c"`)
		l.emit(concat2)
	case OSBStr, OBuilder:
		l.emit("newobj instance void %s::.ctor()", sbClass)
		l.emit("ldloc %s", ci)
		appendSB("int32")
		l.emit(`ldstr ":"`)
		appendSB("string")
		l.emit("ldloc %s", cv)
		appendSB("int32")
		if c.O == OSBStr {
			l.emit("callvirt instance string [mscorlib]System.Object::ToString()")
		}
	case OInts:
		l.emit("ldloc %s", ci)
		l.emit("ldc.i4 7")
		l.emit("and")
		l.emit("ldc.i4 1")
		l.emit("add")
		l.emit("newarr [mscorlib]System.Int32")
		l.emit("dup")
		l.emit("ldc.i4 0")
		l.emit("ldloc %s", ci)
		l.emit("stelem.i4")
	case ONodes:
		l.emit("ldc.i4 3")
		l.emit("newarr Node")
		l.emit("dup")
		l.emit("ldc.i4 0")
		l.emit("ldloc %s", ct)
		l.emit("stelem.ref")
		l.emit("dup")
		l.emit("ldc.i4 2")
		l.emit("ldloc %s", cv)
		l.emit("ldnull")
		l.emit(nodeCtor)
		l.emit("stelem.ref")
	case OPairs:
		l.emit("ldc.i4 2")
		l.emit("newarr Pair")
		l.emit("dup")
		l.emit("ldc.i4 1")
		l.emit("ldelema Pair")
		l.emit("ldloc %s", ct)
		l.emit("stfld class Node Pair::n")
		l.emit("dup")
		l.emit("ldc.i4 1")
		l.emit("ldelema Pair")
		l.emit("ldloc %s", ci)
		l.emit("stfld int32 Pair::k")
	case OBoxed:
		l.emit("ldloc %s", ci)
		l.emit("box [mscorlib]System.Int32")
	}
}

// pin lowers a managed pointer held across allocations (see Pin).
func (l *lowerer) pin(p *Pin) {
	l.used["Node"] = true
	hp := l.local(fmt.Sprintf("hp%d", p.ID), "int32&")
	pn := ""
	switch p.Kind {
	case PinNodeV, PinNodePK:
		l.rexpr(p.Src)
		if _, ok := p.Src.(*RNew); !ok {
			l.produced[nre] = true
		}
		if p.Keep != nil {
			pn = l.local(fmt.Sprintf("pn%d", p.ID), "class Node")
			l.emit("stloc %s", pn)
			l.storeR(p.Keep, func() { l.emit("ldloc %s", pn) })
			l.emit("ldloc %s", pn)
		}
		if p.Kind == PinNodeV {
			l.emit("ldflda int32 Node::v")
		} else {
			l.emit("ldflda valuetype Pair Node::p")
			l.emit("ldflda int32 Pair::k")
		}
		l.emit("stloc %s", hp)
		if pn != "" {
			// the pointer and Keep now hold the node
			l.emit("ldnull")
			l.emit("stloc %s", pn)
		}
	case PinInts:
		// the array is reachable only through the pointer
		l.emit("ldc.i4 %d", max(p.Len, 1))
		l.emit("newarr [mscorlib]System.Int32")
		l.emit("ldc.i4 %d", min(p.Idx, max(p.Len, 1)-1))
		l.emit("ldelema int32")
		l.emit("stloc %s", hp)
	case PinPairs:
		l.used["apa"] = true
		l.emit("ldsfld valuetype Pair[] apa")
		l.emit("ldc.i4 %d", p.Idx&3)
		l.emit("ldelema Pair")
		l.emit("ldflda int32 Pair::k")
		l.emit("stloc %s", hp)
	}
	switch {
	case p.Call:
		l.used["apin"] = true
		l.emit("ldloc %s", hp)
		l.emit("ldc.i4 %d", p.Iter)
		l.emit("call void apin(int32&, int32)")
	case p.Churn != nil:
		l.churn(p.Churn)
	}
	l.emit("ldloc %s", hp)
	l.emit("ldloc %s", hp)
	l.emit("ldind.i4")
	l.emit("ldc.i4 %d", p.Delta)
	l.emit("add")
	l.emit("stind.i4")
	l.emit("ldloc %s", hp)
	l.emit("ldind.i4")
	l.mixTop()
	if p.Keep != nil && (p.Kind == PinNodeV || p.Kind == PinNodePK) {
		l.stmt(&Mix{E: &RSum{Src: &RRead{L: p.Keep}, Max: 1}})
	}
}

// allocEnd mixes, at the end of the method being lowered, the hashes of
// its Node parameters and of the Node and Pair locals its code used.
func (l *lowerer) allocEnd() {
	if l.p.NoRefHash || l.cur == nil {
		return
	}
	for n := 0; n < l.cur.OParams; n++ {
		l.stmt(&Mix{E: &RSum{Src: &RRead{L: &RLoc{Root: RParam, N: n}}, Max: 64}})
	}
	for n := 0; n < l.cur.OLocals; n++ {
		if _, ok := l.locals[oLocal(n)]; ok {
			l.stmt(&Mix{E: &RSum{Src: &RRead{L: &RLoc{Root: RLocal, N: n}}, Max: 64}})
		}
	}
	for n := 0; n < l.cur.QLocals; n++ {
		if _, ok := l.locals[qLocal(n)]; ok {
			l.stmt(&Mix{E: &QSum{Q: &QLoc{Root: QLocal, N: n}}})
		}
	}
}

// allocStaticsEnd mixes, at the end of the program, the hashes of the
// allocation statics the program uses (as the first lowering pass
// found).
func (l *lowerer) allocStaticsEnd() {
	if l.p.NoRefHash {
		return
	}
	for n := 0; n < nRStatics; n++ {
		if l.knownUsed[fmt.Sprintf("an%d", n)] {
			l.stmt(&Mix{E: &RSum{Src: &RRead{L: &RLoc{Root: RStatic, N: n}}, Max: deepMax}})
		}
	}
	for i := range 4 {
		if l.knownUsed["anarr"] {
			l.stmt(&Mix{E: &RSum{Src: &RRead{L: &RLoc{Root: RElem, Idx: &Const{T: I4, V: int64(i)}}}, Max: 64}})
		}
		if l.knownUsed["apa"] {
			l.stmt(&Mix{E: &QSum{Q: &QLoc{Root: QElem, Idx: &Const{T: I4, V: int64(i)}}}})
		}
	}
	if l.knownUsed["aps"] {
		l.stmt(&Mix{E: &QSum{Q: &QLoc{Root: QStatic}}})
	}
}

// allocInits initializes, in the entry point, the allocation statics
// used: the Node statics to new nodes, the arrays.
func (l *lowerer) allocInits() {
	for n := 0; n < nRStatics; n++ {
		if l.used[fmt.Sprintf("an%d", n)] {
			l.emit("ldc.i4 %d", 101+n)
			l.emit("ldnull")
			l.emit(nodeCtor)
			l.emit("stsfld class Node an%d", n)
		}
	}
	if l.used["anarr"] {
		l.emit("ldc.i4 4")
		l.emit("newarr Node")
		l.emit("stsfld class Node[] anarr")
	}
	if l.used["apa"] {
		l.emit("ldc.i4 4")
		l.emit("newarr Pair")
		l.emit("stsfld valuetype Pair[] apa")
	}
}

// allocDecls declares the allocation classes and statics used.
func (l *lowerer) allocDecls() string {
	var b strings.Builder
	if l.used["Pair"] {
		b.WriteString(`.class public sequential ansi sealed beforefieldinit Pair extends [mscorlib]System.ValueType
{
  .field public class Node n
  .field public int32 k
  .field public string s
}
`)
	}
	if l.used["Node"] {
		b.WriteString(`.class public auto ansi beforefieldinit Node extends [mscorlib]System.Object
{
  .field public int32 v
  .field public class Node next
  .field public object o
  .field public valuetype Pair p
  .method public hidebysig specialname rtspecialname instance void .ctor(int32 v, class Node next) cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0
    ldarg.1
    stfld int32 Node::v
    ldarg.0
    ldarg.2
    stfld class Node Node::next
    ret
  }
}
`)
	}
	if l.used[exNode] {
		b.WriteString(`.class public auto ansi beforefieldinit EN extends [mscorlib]System.Exception
{
  .field public class Node payload
  .field public int32 code
  .method public hidebysig specialname rtspecialname instance void .ctor(int32 c, class Node p) cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Exception::.ctor()
    ldarg.0
    ldarg.1
    stfld int32 EN::code
    ldarg.0
    ldarg.2
    stfld class Node EN::payload
    ret
  }
}
`)
	}
	for n := 0; n < nRStatics; n++ {
		if l.used[fmt.Sprintf("an%d", n)] {
			fmt.Fprintf(&b, ".field public static class Node an%d\n", n)
		}
	}
	if l.used["anarr"] {
		b.WriteString(".field public static class Node[] anarr\n")
	}
	if l.used["apa"] {
		b.WriteString(".field public static valuetype Pair[] apa\n")
	}
	if l.used["aps"] {
		b.WriteString(".field public static valuetype Pair aps\n")
	}
	return b.String()
}

// allocHelpers returns the allocation helpers used.
func (l *lowerer) allocHelpers() string {
	var b strings.Builder
	if l.used["ahash"] {
		b.WriteString(ahashHelper)
	}
	if l.used["psum"] {
		b.WriteString(psumHelper)
	}
	if l.used["nsum"] {
		b.WriteString(nsumHelper)
	}
	if l.used["abuild"] {
		b.WriteString(abuildHelper)
	}
	if l.used["apin"] {
		b.WriteString(apinHelper)
	}
	return b.String()
}

// ahash hashes an object a Node's o field or a Pair's s field holds:
// null, a string (its characters), an int32[], Node[] or Pair[] (its
// elements), a StringBuilder (its length), a boxed int32.
const ahashHelper = `.method public static int32 ahash(object o) cil managed
{
  .locals init (int32 h, int32 i, string s, int32[] ia, class Node[] na, valuetype Pair[] pa, class Node n)
  ldarg.0
  brtrue A0
  ldc.i4 0
  ret
A0:
  ldarg.0
  isinst [mscorlib]System.String
  stloc s
  ldloc s
  brfalse A1
  ldloc s
  callvirt instance int32 [mscorlib]System.String::get_Length()
  stloc h
AS:
  ldloc i
  ldloc s
  callvirt instance int32 [mscorlib]System.String::get_Length()
  bge AE
  ldloc h
  ldc.i4 31
  mul
  ldloc s
  ldloc i
  callvirt instance char [mscorlib]System.String::get_Chars(int32)
  add
  stloc h
  ldloc i
  ldc.i4 1
  add
  stloc i
  br AS
A1:
  ldarg.0
  isinst int32[]
  stloc ia
  ldloc ia
  brfalse A2
  ldloc ia
  ldlen
  conv.i4
  ldc.i4 1000
  add
  stloc h
AI:
  ldloc i
  ldloc ia
  ldlen
  conv.i4
  bge AE
  ldloc h
  ldc.i4 31
  mul
  ldloc ia
  ldloc i
  ldelem.i4
  add
  stloc h
  ldloc i
  ldc.i4 1
  add
  stloc i
  br AI
A2:
  ldarg.0
  isinst class Node[]
  stloc na
  ldloc na
  brfalse A3
  ldloc na
  ldlen
  conv.i4
  ldc.i4 2000
  add
  stloc h
AN:
  ldloc i
  ldloc na
  ldlen
  conv.i4
  bge AE
  ldloc na
  ldloc i
  ldelem.ref
  stloc n
  ldloc h
  ldc.i4 31
  mul
  ldc.i4 1
  add
  stloc h
  ldloc n
  brfalse AN1
  ldloc h
  ldloc n
  ldfld int32 Node::v
  add
  stloc h
AN1:
  ldloc i
  ldc.i4 1
  add
  stloc i
  br AN
A3:
  ldarg.0
  isinst valuetype Pair[]
  stloc pa
  ldloc pa
  brfalse A4
  ldloc pa
  ldlen
  conv.i4
  ldc.i4 3000
  add
  stloc h
AP:
  ldloc i
  ldloc pa
  ldlen
  conv.i4
  bge AE
  ldloc h
  ldc.i4 31
  mul
  ldloc pa
  ldloc i
  ldelema Pair
  ldfld int32 Pair::k
  add
  stloc h
  ldloc pa
  ldloc i
  ldelem Pair
  ldfld class Node Pair::n
  stloc n
  ldloc n
  brfalse AP1
  ldloc h
  ldc.i4 7
  mul
  ldloc n
  ldfld int32 Node::v
  add
  stloc h
AP1:
  ldloc i
  ldc.i4 1
  add
  stloc i
  br AP
A4:
  ldarg.0
  isinst ` + sbClass + `
  brfalse A5
  ldarg.0
  castclass ` + sbClass + `
  callvirt instance int32 ` + sbClass + `::get_Length()
  ldc.i4 4000
  add
  ret
A5:
  ldarg.0
  isinst [mscorlib]System.Int32
  brfalse A6
  ldarg.0
  unbox.any [mscorlib]System.Int32
  ret
A6:
  ldc.i4 3
  ret
AE:
  ldloc h
  ret
}
`

// psum hashes a Pair: k, n's v (-1 for null) and s.
const psumHelper = `.method public static int32 psum(valuetype Pair p) cil managed
{
  .locals init (int32 h, class Node n)
  ldarga p
  ldfld int32 Pair::k
  ldc.i4 31
  mul
  ldc.i4 -1
  add
  stloc h
  ldarg p
  ldfld class Node Pair::n
  stloc n
  ldloc n
  brfalse P0
  ldloc h
  ldc.i4 1
  add
  ldloc n
  ldfld int32 Node::v
  add
  stloc h
P0:
  ldloc h
  ldc.i4 31
  mul
  ldarga p
  ldfld string Pair::s
  call int32 ahash(object)
  add
  ret
}
`

// nsum hashes the first max nodes of the list at n (v, o, p of each)
// and their number.
const nsumHelper = `.method public static int32 nsum(class Node n, int32 max) cil managed
{
  .locals init (int32 h, int32 k)
  ldc.i4 17
  stloc h
L:
  ldarg.0
  brfalse E
  ldloc k
  ldarg.1
  bge E
  ldloc h
  ldc.i4 31
  mul
  ldarg.0
  ldfld int32 Node::v
  add
  ldc.i4 31
  mul
  ldarg.0
  ldfld object Node::o
  call int32 ahash(object)
  add
  ldc.i4 31
  mul
  ldarg.0
  ldfld valuetype Pair Node::p
  call int32 psum(valuetype Pair)
  add
  stloc h
  ldarg.0
  ldfld class Node Node::next
  starg n
  ldloc k
  ldc.i4 1
  add
  stloc k
  br L
E:
  ldloc h
  ldc.i4 31
  mul
  ldloc k
  add
  ret
}
`

// abuild prepends n new nodes (values v, v+1, ..., each with a string)
// to tail.
const abuildHelper = `.method public static class Node abuild(int32 n, int32 v, class Node tail) cil managed
{
  .locals init (int32 i, class Node h)
  ldarg tail
  stloc h
L:
  ldloc i
  ldarg n
  bge E
  ldarg v
  ldloc i
  add
  ldloc h
  ` + nodeCtor + `
  stloc h
  ldloc h
  ldloca i
  ` + int32ToString + `
  ldstr "b"
  ` + concat2 + `
  stfld object Node::o
  ldloc i
  ldc.i4 1
  add
  stloc i
  br L
E:
  ldloc h
  ret
}
`

// apin allocates n nodes (chains of up to 64, each with a string), then
// adds 1000 to the int32 at p.
const apinHelper = `.method public static void apin(int32& p, int32 n) cil managed
{
  .locals init (int32 i, class Node t)
L:
  ldloc i
  ldarg n
  bge E
  ldloc i
  ldloc t
  ` + nodeCtor + `
  stloc t
  ldloc t
  ldloca i
  ` + int32ToString + `
  stfld object Node::o
  ldloc i
  ldc.i4 63
  and
  ldc.i4 63
  bne.un K
  ldnull
  stloc t
K:
  ldloc i
  ldc.i4 1
  add
  stloc i
  br L
E:
  ldarg p
  ldarg p
  ldind.i4
  ldc.i4 1000
  add
  stind.i4
  ret
}
`
