package fuzz

import (
	"fmt"
	"strings"
)

// Lowering value types, locations and managed pointers.

// useStruct marks value type s (and what its methods need) used.
func (l *lowerer) useStruct(s int) {
	name := fmt.Sprintf("V%d", s)
	if l.used[name] {
		return
	}
	l.used[name] = true
	l.used["hmix"] = true
	for _, f := range l.p.Structs[s].Fields {
		switch f.K {
		case FStruct:
			l.useStruct(f.S)
		case FI8, FR8:
			l.used["fold"] = true
		case FRef:
			l.used["ohash"] = true
		}
	}
}

func (l *lowerer) sname(s int) string {
	l.useStruct(s)
	return fmt.Sprintf("V%d", s)
}

// vtype names value type s in a signature or field declaration.
func (l *lowerer) vtype(s int) string { return "valuetype " + l.sname(s) }

// ftype names type t in a signature, marking value types used.
func (l *lowerer) ftype(t FType) string {
	if t.K == FStruct {
		return l.vtype(t.S)
	}
	return t.il()
}

func (l *lowerer) rootType(L *Loc) FType { return l.p.rootType(l.cur, L) }

func (l *lowerer) locType(L *Loc) FType { return l.p.locType(l.cur, L) }

func (l *lowerer) sLocal(n int) string {
	return l.local(fmt.Sprintf("v%d", n), l.vtype(l.cur.SLocals[n]))
}

func (l *lowerer) pLocal(n int) string {
	return l.local(fmt.Sprintf("p%d", n), l.ftype(l.cur.PLocals[n])+"&")
}

// structIndex pushes the array vaN and the index Idx & mask of an RSElem
// or RArr location.
func (l *lowerer) structIndex(L *Loc) {
	if L.Root == RArr {
		l.arrIndex(orZero(L.Idx), L.Safe)
		return
	}
	l.used[fmt.Sprintf("va%d", L.N)] = true
	l.emit("ldsfld %s[] va%d", l.vtype(L.N), L.N)
	l.expr(orZero(L.Idx))
	if L.Safe {
		l.emit("ldc.i4 3")
	} else {
		l.produced["System.IndexOutOfRangeException"] = true
		l.emit("ldc.i4 7")
	}
	l.emit("and")
}

func orZero(e Expr) Expr {
	if e == nil {
		return &Const{T: I4}
	}
	return e
}

// rootAddr pushes the address of L's root.
func (l *lowerer) rootAddr(L *Loc) {
	switch L.Root {
	case RVar:
		switch v := L.Var; v.Kind {
		case Local:
			l.emit("ldloca %s", l.localName(v))
		case Arg:
			l.emit("ldarga a%d", v.Index)
		case Static:
			l.emit("ldsflda %s %s", v.T.il(), l.staticName(v))
		}
	case RSLocal:
		l.emit("ldloca %s", l.sLocal(L.N))
	case RSArg:
		l.emit("ldarga sa%d", L.N)
	case RSStatic:
		l.used[fmt.Sprintf("sv%d", L.N)] = true
		l.emit("ldsflda %s sv%d", l.vtype(L.N), L.N)
	case RHeld:
		l.used["hh"] = true
		l.emit("ldsfld class H hh")
		l.emit("ldflda %s H::h%d", l.vtype(L.N), L.N)
	case RSElem:
		l.structIndex(L)
		l.emit("ldelema %s", l.sname(L.N))
	case RArr:
		l.structIndex(L)
		l.emit("ldelema int32")
	case RJag:
		l.jagRow(orZero(L.Idx), false)
		l.jagCol(orZero(L.Col))
		l.emit("ldelema int32")
	case RObj:
		l.used["obj"] = true
		l.emit("ldsflda object obj")
	case RPtr:
		l.produced["System.NullReferenceException"] = true
		l.emit("ldloc %s", l.pLocal(L.N))
	case RRef:
		l.emit("ldarg ra%d", L.N)
	}
}

// rootValue pushes the value of L's root (a root that is no pointer).
func (l *lowerer) rootValue(L *Loc) {
	switch L.Root {
	case RVar:
		l.load(L.Var)
	case RSLocal:
		l.emit("ldloc %s", l.sLocal(L.N))
	case RSArg:
		l.emit("ldarg sa%d", L.N)
	case RSStatic:
		l.used[fmt.Sprintf("sv%d", L.N)] = true
		l.emit("ldsfld %s sv%d", l.vtype(L.N), L.N)
	case RHeld:
		l.used["hh"] = true
		l.emit("ldsfld class H hh")
		l.emit("ldfld %s H::h%d", l.vtype(L.N), L.N)
	case RSElem:
		l.structIndex(L)
		l.emit("ldelem %s", l.sname(L.N))
	case RArr:
		l.structIndex(L)
		l.emit("ldelem.i4")
	case RJag:
		l.jagRow(orZero(L.Idx), false)
		l.jagCol(orZero(L.Col))
		l.emit("ldelem.i4")
	case RObj:
		l.used["obj"] = true
		l.emit("ldsfld object obj")
	default:
		panic("fuzz: no value of a pointer root")
	}
}

// fieldInstr emits op (ldfld, ldflda, stfld) for each field of path
// from value type t.
func (l *lowerer) fields(op string, t FType, path []int) FType {
	for _, f := range path {
		ft := l.p.Structs[t.S].Fields[f]
		l.emit("%s %s %s::f%d", op, l.ftype(ft), l.sname(t.S), f)
		t = ft
	}
	return t
}

// locAddr pushes the address of location L.
func (l *lowerer) locAddr(L *Loc) {
	l.rootAddr(L)
	l.fields("ldflda", l.rootType(L), L.Path)
}

func isPtrRoot(r Root) bool { return r == RPtr || r == RRef }

// loadLoc pushes the value of location L with access a.
func (l *lowerer) loadLoc(L *Loc, a Access, flip bool) {
	t := l.locType(L)
	ptr := isPtrRoot(L.Root)
	switch {
	case a == AInd || a == AObj || len(L.Path) == 0 && (ptr || a == AFld):
		l.locAddr(L)
		if t.K == FStruct || a == AObj {
			l.emit("ldobj %s", l.ftok(t))
		} else {
			l.emit("ldind.%s", t.ind(true, flip))
		}
	case a == AFld || ptr:
		l.rootAddr(L)
		l.fields("ldfld", l.rootType(L), L.Path)
	default:
		l.rootValue(L)
		l.fields("ldfld", l.rootType(L), L.Path)
	}
}

// ftok names type t as a type token.
func (l *lowerer) ftok(t FType) string {
	if t.K == FStruct {
		return l.sname(t.S)
	}
	return t.token()
}

// storeLoc stores the value val pushes into location L with access a.
func (l *lowerer) storeLoc(L *Loc, a Access, val func()) {
	t := l.locType(L)
	ptr := isPtrRoot(L.Root)
	switch {
	case a == AInd || a == AObj || len(L.Path) == 0 && ptr:
		l.locAddr(L)
		val()
		if t.K == FStruct || a == AObj {
			l.emit("stobj %s", l.ftok(t))
		} else {
			l.emit("stind.%s", t.ind(false, false))
		}
	case len(L.Path) > 0:
		parent := *L
		parent.Path = L.Path[:len(L.Path)-1]
		l.locAddr(&parent)
		val()
		pt := l.locType(&parent)
		l.emit("stfld %s %s::f%d", l.ftype(t), l.sname(pt.S), L.Path[len(L.Path)-1])
	default:
		l.rootStore(L, val)
	}
}

// rootStore stores into L's root, no pointer.
func (l *lowerer) rootStore(L *Loc, val func()) {
	switch L.Root {
	case RVar:
		val()
		l.store(L.Var)
	case RSLocal:
		val()
		l.emit("stloc %s", l.sLocal(L.N))
	case RSArg:
		val()
		l.emit("starg sa%d", L.N)
	case RSStatic:
		val()
		l.used[fmt.Sprintf("sv%d", L.N)] = true
		l.emit("stsfld %s sv%d", l.vtype(L.N), L.N)
	case RHeld:
		l.used["hh"] = true
		l.emit("ldsfld class H hh")
		val()
		l.emit("stfld %s H::h%d", l.vtype(L.N), L.N)
	case RSElem:
		l.structIndex(L)
		val()
		l.emit("stelem %s", l.sname(L.N))
	case RArr:
		l.structIndex(L)
		val()
		l.emit("stelem.i4")
	case RJag:
		l.jagRow(orZero(L.Idx), false)
		l.jagCol(orZero(L.Col))
		val()
		l.emit("stelem.i4")
	case RObj:
		val()
		l.used["obj"] = true
		l.emit("stsfld object obj")
	default:
		panic("fuzz: no store to a pointer root")
	}
}

// toInt converts a scalar of type t on the stack to its int expression
// type: float64 by conv.i8, an object by ohash.
func (l *lowerer) toInt(t FType) {
	switch t.K {
	case FR8:
		l.emit("conv.i8")
	case FRef:
		l.used["ohash"] = true
		l.emit("call int32 ohash(object)")
	}
}

// sexpr lowers an expression of a value type.
func (l *lowerer) sexpr(e SExpr) {
	switch e := e.(type) {
	case *SLoad:
		l.loadLoc(e.L, e.A, false)
	case *SNew:
		l.expr(orZero(e.Arg))
		l.emit("newobj instance void %s::.ctor(int32)", l.sname(e.S))
	case *SCall:
		l.call(e.Callee, e.Args, e.SArgs, e.RArgs, e.OArgs)
	case *SCond:
		then, end := l.newLabel(), l.newLabel()
		l.cond(e.C, then)
		l.sexpr(orNew(e.B, e.S))
		l.emit("br %s", end)
		l.label(then)
		l.sexpr(orNew(e.A, e.S))
		l.label(end)
	case *SUnbox:
		l.used["obj"] = true
		l.produced["System.NullReferenceException"] = true
		l.produced["System.InvalidCastException"] = true
		l.emit("ldsfld object obj")
		if e.Addr {
			l.emit("unbox %s", l.sname(e.S))
			l.emit("ldobj %s", l.sname(e.S))
		} else {
			l.emit("unbox.any %s", l.sname(e.S))
		}
	default:
		panic(fmt.Sprintf("fuzz: cannot lower %T", e))
	}
}

func orNew(e SExpr, s int) SExpr {
	if e == nil {
		return &SNew{S: s}
	}
	return e
}

// valueExpr lowers the int expressions over value types; false for
// other expressions.
func (l *lowerer) valueExpr(e Expr) bool {
	switch e := e.(type) {
	case *LocLoad:
		l.loadLoc(e.L, e.A, e.Flip)
		l.toInt(l.locType(e.L))
	case *SHash:
		l.sexpr(e.Src)
		s := e.Src.Struct()
		l.emit("call int32 %s::Hash(%s)", l.sname(s), l.vtype(s))
	case *SStep:
		s := l.locType(e.L).S
		l.locAddr(e.L)
		l.expr(orZero(e.Arg))
		l.emit("call instance int32 %s::Step(int32)", l.sname(s))
	case *SField:
		l.sexpr(e.Src)
		l.toInt(l.fields("ldfld", FType{K: FStruct, S: e.Src.Struct()}, e.Path))
	case *IsBoxed:
		l.used["obj"] = true
		l.emit("ldsfld object obj")
		l.emit("isinst %s", l.sname(e.S))
		l.emit("ldnull")
		l.emit("cgt.un")
	case *SizeOf:
		l.emit("sizeof %s", l.sname(e.S))
	default:
		return false
	}
	return true
}

// scalarValue pushes the value a LocStore stores into a location of
// type t.
func (l *lowerer) scalarValue(s *LocStore, t FType) {
	switch t.K {
	case FI8:
		if s.E == nil {
			l.expr(&Const{T: I8})
		} else {
			l.expr(s.E)
		}
	case FRef:
		switch {
		case s.Obj == OInt && s.E != nil:
			l.expr(s.E)
			l.emit("box [mscorlib]System.Int32")
		case s.Obj == OBox && s.E != nil:
			l.used["Box"] = true
			l.expr(s.E)
			l.emit("newobj instance void Box::.ctor(int32)")
		case s.Obj == OStr:
			l.emit("ldstr \"%s\"", strings.Repeat("z", s.Len))
		default:
			l.emit("ldnull")
		}
	default:
		l.expr(orZero(s.E))
		if t.K == FR8 {
			l.emit("conv.r8")
		}
	}
}

// valueStmt lowers the statements over value types; false for other
// statements.
func (l *lowerer) valueStmt(s Stmt) bool {
	switch s := s.(type) {
	case *LocStore:
		t := l.locType(s.L)
		l.storeLoc(s.L, s.A, func() { l.scalarValue(s, t) })
		l.check(s.Check, s.L, s.A)
	case *SStore:
		l.storeLoc(s.L, s.A, func() { l.sexpr(s.Src) })
		l.check(s.Check, s.L, s.A)
	case *SInit:
		t := l.locType(s.L)
		l.locAddr(s.L)
		if s.Zero || t.K != FStruct {
			l.emit("initobj %s", l.ftok(t))
		} else {
			l.expr(orZero(s.Arg))
			l.emit("call instance void %s::.ctor(int32)", l.sname(t.S))
		}
		l.check(s.Check, s.L, AInd)
	case *SCopy:
		l.locAddr(s.Dst)
		l.locAddr(s.Src)
		l.emit("cpobj %s", l.ftok(l.locType(s.Dst)))
		l.check(s.Check, s.Dst, AInd)
	case *BoxStruct:
		l.used["obj"] = true
		l.sexpr(s.Src)
		l.emit("box %s", l.sname(s.Src.Struct()))
		l.emit("stsfld object obj")
	case *PSet:
		l.locAddr(s.L)
		l.emit("stloc %s", l.pLocal(s.N))
	default:
		return false
	}
	return true
}

// check reads location L, just stored with access a, back into the
// hash (with another access), when c is set.
func (l *lowerer) check(c bool, L *Loc, a Access) {
	if !c {
		return
	}
	other := ADirect
	if a == ADirect {
		other = AInd
	}
	l.stmt(l.readLoc(L, other))
}

// readLoc returns a Mix of the hash of location L's value.
func (l *lowerer) readLoc(L *Loc, a Access) Stmt {
	t := l.locType(L)
	if t.K == FStruct {
		return &Mix{E: &SHash{Src: &SLoad{L: L, A: a, S: t.S}}}
	}
	return &Mix{E: &LocLoad{L: L, A: a, T: t.intType()}}
}

// valueEnd mixes, at the end of the method being lowered, the hashes of
// its value-type parameters and of the value-type locals its code used.
func (l *lowerer) valueEnd() {
	if l.p.NoValueHash || l.cur == nil {
		return
	}
	for n := range l.cur.SParams {
		l.stmt(l.readLoc(&Loc{Root: RSArg, N: n}, ADirect))
	}
	for n := range l.cur.SLocals {
		if _, ok := l.locals[fmt.Sprintf("v%d", n)]; ok {
			l.stmt(l.readLoc(&Loc{Root: RSLocal, N: n}, ADirect))
		}
	}
}

// staticsEnd mixes, at the end of the program, the hashes of the
// value-type statics the program uses (as the first lowering pass found).
func (l *lowerer) staticsEnd() {
	if l.p.NoValueHash {
		return
	}
	for s := range l.p.Structs {
		if l.knownUsed[fmt.Sprintf("sv%d", s)] {
			l.stmt(l.readLoc(&Loc{Root: RSStatic, N: s}, ADirect))
		}
		if l.knownUsed[fmt.Sprintf("va%d", s)] {
			for i := range 4 {
				l.stmt(l.readLoc(&Loc{Root: RSElem, N: s, Idx: &Const{T: I4, V: int64(i)}, Safe: true}, ADirect))
			}
		}
		if l.knownUsed["hh"] && l.knownUsed[fmt.Sprintf("V%d", s)] {
			l.stmt(l.readLoc(&Loc{Root: RHeld, N: s}, ADirect))
		}
	}
}

// structDecls declares the value types used, class H (a field of each)
// and the statics holding values.
func (l *lowerer) structDecls() string {
	var b strings.Builder
	var used []int
	for s := range l.p.Structs {
		if l.used[fmt.Sprintf("V%d", s)] {
			used = append(used, s)
		}
	}
	for _, s := range used {
		b.WriteString(l.structDecl(s))
	}
	if l.used["hh"] {
		b.WriteString(".class public auto ansi beforefieldinit H extends [mscorlib]System.Object\n{\n")
		for _, s := range used {
			fmt.Fprintf(&b, "  .field public valuetype V%d h%d\n", s, s)
		}
		b.WriteString("  .method public hidebysig specialname rtspecialname instance void .ctor() cil managed\n  {\n" +
			"    ldarg.0\n    call instance void [mscorlib]System.Object::.ctor()\n    ret\n  }\n}\n")
		b.WriteString(".field public static class H hh\n")
	}
	for _, s := range used {
		if l.used[fmt.Sprintf("sv%d", s)] {
			fmt.Fprintf(&b, ".field public static valuetype V%d sv%d\n", s, s)
		}
		if l.used[fmt.Sprintf("va%d", s)] {
			fmt.Fprintf(&b, ".field public static valuetype V%d[] va%d\n", s, s)
		}
	}
	return b.String()
}

// structDecl declares value type s with its constructor, Step and Hash.
func (l *lowerer) structDecl(s int) string {
	sd := l.p.Structs[s]
	name := fmt.Sprintf("V%d", s)
	var b strings.Builder
	fmt.Fprintf(&b, ".class public sequential ansi sealed beforefieldinit %s extends [mscorlib]System.ValueType\n{\n", name)
	for i, f := range sd.Fields {
		fmt.Fprintf(&b, "  .field public %s f%d\n", f.il(), i)
	}
	lines := func(ls ...string) {
		for _, x := range ls {
			b.WriteString("    " + x + "\n")
		}
	}
	fld := func(i int) string { return fmt.Sprintf("%s %s::f%d", sd.Fields[i].il(), name, i) }

	b.WriteString("  .method public hidebysig specialname rtspecialname instance void .ctor(int32 x) cil managed\n  {\n")
	for i := 0; i < sd.Init && i < len(sd.Fields); i++ {
		switch f := sd.Fields[i]; f.K {
		case FI4:
			lines("ldarg.0", "ldarg.1", fmt.Sprintf("ldc.i4 %d", i), "add", "stfld "+fld(i))
		case FI8:
			lines("ldarg.0", "ldarg.1", "conv.i8", fmt.Sprintf("ldc.i8 %d", int64(i+1)*0x100000001), "mul", "stfld "+fld(i))
		case FR8:
			lines("ldarg.0", "ldarg.1", "conv.r8", "stfld "+fld(i))
		case FRef:
			switch i % 3 {
			case 0:
				lines("ldarg.0", "ldarg.1", "box [mscorlib]System.Int32", "stfld "+fld(i))
			case 1:
				lines("ldarg.0", fmt.Sprintf("ldstr \"%s\"", strings.Repeat("y", i)), "stfld "+fld(i))
			default:
				lines("ldarg.0", "ldnull", "stfld "+fld(i))
			}
		case FStruct:
			lines("ldarg.0", fmt.Sprintf("ldflda valuetype V%d %s::f%d", f.S, name, i), "ldarg.1",
				fmt.Sprintf("ldc.i4 %d", i), "add", fmt.Sprintf("call instance void V%d::.ctor(int32)", f.S))
		default:
			lines("ldarg.0", "ldarg.1", fmt.Sprintf("ldc.i4 %d", 37*i+1), "mul", "stfld "+fld(i))
		}
	}
	lines("ret")
	b.WriteString("  }\n")

	// Step mutates every third field and the last one through this.
	b.WriteString("  .method public hidebysig instance int32 Step(int32 k) cil managed\n  {\n")
	for i, f := range sd.Fields {
		if i%3 != 0 && i != len(sd.Fields)-1 {
			continue
		}
		switch f.K {
		case FI4:
			lines("ldarg.0", "ldarg.0", "ldfld "+fld(i), "ldc.i4 3", "mul", "ldarg.1", "add", "stfld "+fld(i))
		case FI8:
			lines("ldarg.0", "ldarg.0", "ldfld "+fld(i), "ldarg.1", "conv.i8", "ldc.i4 20", "shl", "add", "stfld "+fld(i))
		case FR8:
			lines("ldarg.0", "ldarg.0", "ldfld "+fld(i), "ldc.r8 0.5", "mul", "ldarg.1", "conv.r8", "add", "stfld "+fld(i))
		case FRef:
			set, end := fmt.Sprintf("S%d", i), fmt.Sprintf("E%d", i)
			lines("ldarg.0", "ldfld "+fld(i), "brfalse "+set, "ldarg.0", "ldnull", "stfld "+fld(i), "br "+end)
			b.WriteString(set + ":\n")
			lines("ldarg.0", "ldarg.1", "box [mscorlib]System.Int32", "stfld "+fld(i))
			b.WriteString(end + ":\n")
		case FStruct:
			lines("ldarg.0", fmt.Sprintf("ldflda valuetype V%d %s::f%d", f.S, name, i), "ldarg.1",
				fmt.Sprintf("call instance int32 V%d::Step(int32)", f.S), "pop")
		default:
			lines("ldarg.0", "ldflda "+fld(i), "dup", "ldind."+f.ind(true, false), "ldarg.1", "add", "stind."+f.ind(false, false))
		}
	}
	lines("ldarg.0", "ldobj "+name, fmt.Sprintf("call int32 %s::Hash(valuetype %s)", name, name), "ret")
	b.WriteString("  }\n")

	// Hash folds every field, read in turn with ldfld from the value,
	// ldfld through its address, ldflda and ldind (ldobj for a value
	// type), and ldflda and ldind of the other signedness (ldobj for
	// the types without one), a small field also with an ldind of
	// either signedness: the engines run every form often.
	fmt.Fprintf(&b, "  .method public hidebysig static int32 Hash(valuetype %s v) cil managed\n  {\n", name)
	lines("ldc.i4 17")
	for i, f := range sd.Fields {
		if f.small() {
			// both extensions of a small field, then one of the forms
			for _, flip := range []bool{false, true} {
				lines("ldarga.s v", "ldflda "+fld(i), "ldind."+f.ind(true, flip), "call int32 hmix(int32, int32)")
			}
		}
		switch i % 4 {
		case 0:
			lines("ldarg.0", "ldfld "+fld(i))
		case 1:
			lines("ldarga.s v", "ldfld "+fld(i))
		default:
			lines("ldarga.s v", "ldflda "+fld(i))
			switch {
			case f.K == FStruct || i%4 == 3 && !f.small() && f.K != FI4:
				lines("ldobj " + f.token())
			default:
				lines("ldind." + f.ind(true, i%4 == 3))
			}
		}
		switch f.K {
		case FI8:
			lines("call int32 fold(int64)")
		case FR8:
			lines("conv.i8", "call int32 fold(int64)")
		case FRef:
			lines("call int32 ohash(object)")
		case FStruct:
			lines(fmt.Sprintf("call int32 V%d::Hash(valuetype V%d)", f.S, f.S))
		}
		lines("call int32 hmix(int32, int32)")
	}
	lines("ret")
	b.WriteString("  }\n}\n")
	return b.String()
}

// valueHelpers returns hmix, fold and ohash as far as used.
func (l *lowerer) valueHelpers() string {
	var b strings.Builder
	if l.used["hmix"] {
		b.WriteString(".method public static int32 hmix(int32 h, int32 v) cil managed\n{\n  ldarg.0\n  ldc.i4 31\n  mul\n  ldarg.1\n  add\n  ret\n}\n")
	}
	if l.used["fold"] {
		b.WriteString(".method public static int32 fold(int64 v) cil managed\n{\n  ldarg.0\n  ldarg.0\n  ldc.i4 32\n  shr\n  xor\n  conv.i4\n  ret\n}\n")
	}
	if l.used["ohash"] {
		b.WriteString(".method public static int32 ohash(object o) cil managed\n{\n")
		k := 0
		test := func(class string, val ...string) {
			k++
			fmt.Fprintf(&b, "  ldarg.0\n  isinst %s\n  brfalse O%d\n  ldarg.0\n", class, k)
			for _, v := range val {
				b.WriteString("  " + v + "\n")
			}
			fmt.Fprintf(&b, "  ret\nO%d:\n", k)
		}
		b.WriteString("  ldarg.0\n  brtrue O0\n  ldc.i4 0\n  ret\nO0:\n")
		test("[mscorlib]System.String", "castclass [mscorlib]System.String",
			"callvirt instance int32 [mscorlib]System.String::get_Length()", "ldc.i4 1000", "add")
		test("[mscorlib]System.Int32", "unbox.any [mscorlib]System.Int32")
		if l.used["Box"] {
			test("Box", "castclass Box", "ldfld int32 Box::v", "ldc.i4 2000", "add")
		}
		for s := range l.p.Structs {
			if l.used[fmt.Sprintf("V%d", s)] {
				test(fmt.Sprintf("V%d", s), fmt.Sprintf("unbox.any V%d", s),
					fmt.Sprintf("call int32 V%d::Hash(valuetype V%d)", s, s), fmt.Sprintf("ldc.i4 %d", 3000+s), "add")
			}
		}
		b.WriteString("  ldc.i4 5\n  ret\n}\n")
	}
	return b.String()
}

// valueInits initializes, in the entry point, the statics of value
// types that need it: the arrays vaN and the object hh.
func (l *lowerer) valueInits() {
	for s := range l.p.Structs {
		if l.used[fmt.Sprintf("va%d", s)] {
			l.emit("ldc.i4 4")
			l.emit("newarr V%d", s)
			l.emit("stsfld valuetype V%d[] va%d", s, s)
		}
	}
	if l.used["hh"] {
		l.emit("newobj instance void H::.ctor()")
		l.emit("stsfld class H hh")
	}
}
