package fuzz

import (
	"fmt"
	"strings"
)

// Lowering the shapes (shapes.go).

func (l *lowerer) arrLocal(a int) string { return l.local(fmt.Sprintf("ar%d", a), "int32[]") }

func (l *lowerer) idxLocal(id int) string { return l.local(fmt.Sprintf("ix%d", id), "int32") }

// shapeExpr lowers the shapes' expressions; false for other expressions.
func (l *lowerer) shapeExpr(e Expr) bool {
	switch e := e.(type) {
	case *AElem:
		l.produced[nre] = true
		l.produced["System.IndexOutOfRangeException"] = true
		l.emit("ldloc %s", l.arrLocal(e.A))
		l.expr(orZero(e.Idx))
		l.emit("ldelem.i4")
	case *ALen:
		l.produced[nre] = true
		l.emit("ldloc %s", l.arrLocal(e.A))
		l.emit("ldlen")
		l.emit("conv.i4")
	case *IdxLoad:
		l.emit("ldloc %s", l.idxLocal(e.Loop))
	case *SmThis:
		l.emit("ldarg.0")
		l.emit("ldfld int32 Sm::f")
	case *SmField:
		l.used["sm"] = true
		l.produced[nre] = true
		l.emit("ldsfld class Sm sm")
		l.emit("ldfld int32 Sm::f")
	case *ShsLoad:
		l.used["shs"] = true
		l.emit("ldsfld int32 shs")
	case *FnCall:
		l.fnCall(e)
		if l.p.Fns[e.Fn].Void {
			l.emit("ldc.i4 0")
		}
	case *TypeChain:
		l.typeChain(e)
	default:
		return false
	}
	return true
}

// shapeStmt lowers the shapes' statements; false for other statements.
func (l *lowerer) shapeStmt(s Stmt) bool {
	switch s := s.(type) {
	case *ASet:
		a := l.arrLocal(s.A)
		switch s.Src {
		case ANew:
			l.emit("ldc.i4 %d", s.Len)
			l.emit("newarr [mscorlib]System.Int32")
			l.emit("stloc %s", a)
			if s.Mul != 0 || s.Add != 0 {
				for k := 0; k < s.Len; k++ {
					l.emit("ldloc %s", a)
					l.emit("ldc.i4 %d", k)
					l.emit("ldc.i4 %d", int32(k)*s.Mul+s.Add)
					l.emit("stelem.i4")
				}
			}
		case ANull:
			l.emit("ldnull")
			l.emit("stloc %s", a)
		case AStatic:
			l.used["arr"] = true
			l.emit("ldsfld int32[] arr")
			l.emit("stloc %s", a)
		case ARow:
			l.used["jag"] = true
			l.emit("ldsfld int32[][] jag")
			l.emit("ldc.i4 %d", s.Row)
			l.emit("ldelem.ref")
			l.emit("stloc %s", a)
		case ACopy:
			l.emit("ldloc %s", l.arrLocal(s.From))
			l.emit("stloc %s", a)
		}
	case *AStore:
		l.produced[nre] = true
		l.produced["System.IndexOutOfRangeException"] = true
		l.emit("ldloc %s", l.arrLocal(s.A))
		l.expr(orZero(s.Idx))
		l.expr(orZero(s.E))
		l.emit("stelem.i4")
	case *ForArr:
		l.forArr(s)
	case *Block:
		l.stmts(s.Body)
	case *FnStmt:
		l.fnCall(s.C)
		f := l.p.Fns[s.C.Fn]
		switch {
		case !f.Void:
			l.emit("pop")
		case !f.Inst && !l.p.NoMix:
			l.used["shs"] = true
			l.emit("ldsfld int32 shs")
			l.mix()
		}
	case *SetSm:
		l.used["sm"] = true
		if s.Null || s.E == nil {
			l.emit("ldnull")
		} else {
			l.expr(s.E)
			l.emit("newobj instance void Sm::.ctor(int32)")
		}
		l.emit("stsfld class Sm sm")
	default:
		return false
	}
	return true
}

// bound pushes the value the index of f is compared with (the first
// index past the end; for BLE the last one, compared with bgt/ble).
func (l *lowerer) bound(f *ForArr, n string) {
	length := func() {
		l.produced[nre] = true
		l.emit("ldloc %s", l.arrLocal(f.A))
		l.emit("ldlen")
		if !f.NoConv {
			l.emit("conv.i4")
		}
	}
	switch f.Bound {
	case BLen, BLE:
		length()
	case BN:
		l.emit("ldloc %s", n)
	case BLenM1:
		length()
		if f.NoConv {
			l.emit("conv.i4")
		}
		l.emit("ldc.i4 1")
		l.emit("sub")
	case BConst:
		l.emit("ldc.i4 %d", f.K)
	}
}

// forArr lowers a loop over an array (see ForArr).
func (l *lowerer) forArr(f *ForArr) {
	i := l.idxLocal(f.ID)
	n := ""
	if f.Bound == BN {
		n = l.local(fmt.Sprintf("nx%d", f.ID), "int32")
		l.produced[nre] = true
		l.emit("ldloc %s", l.arrLocal(f.A))
		l.emit("ldlen")
		l.emit("conv.i4")
		l.emit("stloc %s", n)
	}
	body, test, end := l.newLabel(), l.newLabel(), l.newLabel()
	le := f.Bound == BLE
	if f.Down {
		// i = the last index (the bound - 1; for BLE the bound itself)
		l.bound(f, n)
		if f.NoConv && (f.Bound == BLen || f.Bound == BLE) {
			l.emit("conv.i4")
		}
		if !le {
			l.emit("ldc.i4 1")
			l.emit("sub")
		}
	} else {
		l.emit("ldc.i4 %d", f.Start)
	}
	l.emit("stloc %s", i)
	cond := func(target string, exit bool) {
		// exit: branch to target when the loop ends; else when it goes on
		l.emit("ldloc %s", i)
		if f.Down {
			l.emit("ldc.i4 %d", f.Start)
			if exit {
				l.emit("blt %s", target)
			} else {
				l.emit("bge %s", target)
			}
			return
		}
		l.bound(f, n)
		switch {
		case exit && le:
			l.emit("bgt %s", target)
		case exit:
			l.emit("bge %s", target)
		case le:
			l.emit("ble %s", target)
		default:
			l.emit("blt %s", target)
		}
	}
	if f.Rotated {
		l.emit("br %s", test)
	} else {
		l.label(test)
		cond(end, true)
	}
	l.label(body)
	l.frames = append(l.frames, lframe{fLoop, f.ID, end})
	l.stmts(f.Body)
	l.frames = l.frames[:len(l.frames)-1]
	l.emit("ldloc %s", i)
	l.emit("ldc.i4 1")
	if f.Down {
		l.emit("sub")
	} else {
		l.emit("add")
	}
	l.emit("stloc %s", i)
	if f.Rotated {
		l.label(test)
		cond(body, false)
	} else {
		l.emit("br %s", test)
	}
	l.label(end)
	if f.MixIdx {
		l.emit("ldloc %s", i)
		if l.p.NoMix {
			l.emit("pop")
		} else {
			l.mix()
		}
	}
}

// fnSig is the signature of SmallFn k as a call names it.
func (l *lowerer) fnSig(k int) string {
	f := l.p.Fns[k]
	ret := f.Ret.il()
	if f.Void {
		ret = "void"
	}
	var ps []string
	for _, t := range f.Params {
		ps = append(ps, t.il())
	}
	if f.Inst {
		return fmt.Sprintf("instance %s Sm::f%d(%s)", ret, k, strings.Join(ps, ", "))
	}
	return fmt.Sprintf("%s f%d(%s)", ret, k, strings.Join(ps, ", "))
}

func (l *lowerer) fnCall(c *FnCall) {
	f := l.p.Fns[c.Fn]
	l.used[fmt.Sprintf("f%d", c.Fn)] = true
	for e := range f.may {
		l.produced[e] = true
	}
	if f.Inst {
		l.used["Sm"] = true
		switch c.Obj {
		case OSm:
			l.used["sm"] = true
			l.emit("ldsfld class Sm sm")
		case ONil:
			l.emit("ldnull")
		case ONewSm:
			l.emit("ldc.i4 %d", c.K)
			l.emit("newobj instance void Sm::.ctor(int32)")
		}
		if c.Obj != ONewSm && (f.reads || f.Virt || c.CallVirt) {
			l.produced[nre] = true
		}
	}
	for k, t := range f.Params {
		if k < len(c.Args) && c.Args[k] != nil && c.Args[k].Type() == t {
			l.expr(c.Args[k])
		} else {
			l.expr(&Const{T: t})
		}
	}
	op := "call"
	if f.Inst && (f.Virt || c.CallVirt) {
		op = "callvirt"
	}
	l.emit("%s %s", op, l.fnSig(c.Fn))
}

// fnBody lowers the body of SmallFn k (its instructions, without the
// method's header).
func (l *lowerer) fnBody(k int) string {
	f := l.p.Fns[k]
	saved, savedIndent := l.b, l.indent
	l.b = strings.Builder{}
	l.indent = 0
	if f.ThrowIf {
		l.emit("ldarg a0")
		l.emit("ldc.i4 %d", f.ThrowV)
		l.emit("bne.un OK")
		l.emit("newobj instance void [mscorlib]System.InvalidOperationException::.ctor()")
		l.emit("throw")
		l.label("OK")
	}
	if f.Void && f.Inst {
		l.emit("ldarg.0")
	}
	l.expr(orZeroT(f.Body, f.Ret))
	if f.Void {
		if f.Inst {
			l.emit("stfld int32 Sm::f")
		} else {
			l.used["shs"] = true
			l.emit("stsfld int32 shs")
		}
	}
	l.emit("ret")
	out := l.b.String()
	l.b, l.indent = saved, savedIndent
	return out
}

func orZeroT(e Expr, t Type) Expr {
	if e == nil {
		return &Const{T: t}
	}
	return e
}

// fnDecls returns the declarations of the small static methods used and
// the class Sm (with the instance ones) when used.
func (l *lowerer) fnDecls() (statics, class string) {
	var sb, cb strings.Builder
	for k, f := range l.p.Fns {
		if !l.used[fmt.Sprintf("f%d", k)] {
			continue
		}
		body := l.fnBody(k)
		var ps []string
		for i, t := range f.Params {
			ps = append(ps, fmt.Sprintf("%s a%d", t.il(), i))
		}
		ret := f.Ret.il()
		if f.Void {
			ret = "void"
		}
		if f.Inst {
			attrs := "public hidebysig instance"
			if f.Virt {
				attrs = "public hidebysig newslot virtual final instance"
			}
			fmt.Fprintf(&cb, "  .method %s %s f%d(%s) cil managed\n  {\n", attrs, ret, k, strings.Join(ps, ", "))
			for _, line := range strings.SplitAfter(strings.TrimSuffix(body, "\n"), "\n") {
				cb.WriteString("  " + line)
			}
			cb.WriteString("\n  }\n")
			continue
		}
		fmt.Fprintf(&sb, ".method public static %s f%d(%s) cil managed\n{\n", ret, k, strings.Join(ps, ", "))
		sb.WriteString(body)
		sb.WriteString("}\n")
	}
	if l.used["Sm"] || l.used["sm"] {
		attrs := "public auto ansi beforefieldinit"
		if l.p.SmSealed {
			attrs = "public auto ansi sealed beforefieldinit"
		}
		class = fmt.Sprintf(`.class %s Sm extends [mscorlib]System.Object
{
  .field public int32 f
  .method public hidebysig specialname rtspecialname instance void .ctor(int32 x) cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0
    ldarg.1
    stfld int32 Sm::f
    ret
  }
%s}
`, attrs, cb.String())
	}
	if l.used["sm"] {
		class += ".field public static class Sm sm\n"
	}
	if l.used["shs"] {
		class += ".field public static int32 shs\n"
	}
	return sb.String(), class
}

// shapeInits initializes the statics of the shapes: sm = new Sm(5).
func (l *lowerer) shapeInits() {
	if l.used["sm"] {
		l.emit("ldc.i4 5")
		l.emit("newobj instance void Sm::.ctor(int32)")
		l.emit("stsfld class Sm sm")
	}
}

// tclassRef names a TypeChain class in isinst and castclass.
var tclassRef = [...]string{TObject: "[mscorlib]System.Object", TBox: "Box", TOpAdd: "OpAdd", TOpMul: "OpMul",
	TOpDiv: "OpDiv", TIOp: "IOp", TSm: "Sm", TInt32: "[mscorlib]System.Int32", TString: "[mscorlib]System.String"}

func (l *lowerer) tclass(c TClass) string {
	switch c {
	case TBox:
		l.used["Box"] = true
	case TOpAdd, TOpMul, TOpDiv, TIOp:
		l.used["ops"] = true
	case TSm:
		l.used["Sm"] = true
	}
	return tclassRef[c]
}

// typeChain lowers a TypeChain.
func (l *lowerer) typeChain(e *TypeChain) {
	l.produced["System.InvalidCastException"] = true
	l.produced[nre] = true
	switch e.Src {
	case TSNewBox:
		l.used["Box"] = true
		l.emit("ldc.i4 %d", e.K)
		l.emit("newobj instance void Box::.ctor(int32)")
	case TSNewOpAdd, TSNewOpMul, TSNewOpDiv:
		l.used["ops"] = true
		l.emit("ldc.i4 %d", e.K)
		l.emit("newobj instance void %s::.ctor(int32)", opClass[OpAdd+OpKind(e.Src-TSNewOpAdd)])
	case TSNewSm:
		l.used["Sm"] = true
		l.emit("ldc.i4 %d", e.K)
		l.emit("newobj instance void Sm::.ctor(int32)")
	case TSBoxed:
		l.emit("ldc.i4 %d", e.K)
		l.emit("box [mscorlib]System.Int32")
	case TSNull:
		l.emit("ldnull")
	case TSObj:
		l.used["obj"] = true
		l.emit("ldsfld object obj")
	}
	var t string
	if e.Local {
		l.labels++
		t = l.local(fmt.Sprintf("tc%d", l.labels), "object")
		l.emit("stloc %s", t)
	}
	for _, s := range e.Steps {
		c := l.tclass(s.C)
		op := "isinst"
		if s.Cast {
			op = "castclass"
		}
		if !e.Local {
			l.emit("%s %s", op, c)
			continue
		}
		if s.Guard {
			skip := l.newLabel()
			l.emit("ldloc %s", t)
			l.emit("isinst %s", c)
			l.emit("brfalse %s", skip)
			l.emit("ldloc %s", t)
			l.emit("castclass %s", c)
			l.emit("stloc %s", t)
			l.label(skip)
			continue
		}
		l.emit("ldloc %s", t)
		l.emit("%s %s", op, c)
		l.emit("stloc %s", t)
	}
	if e.Local {
		l.emit("ldloc %s", t)
	}
	switch e.End {
	case TENonNull:
		l.emit("ldnull")
		l.emit("cgt.un")
	case TEApply:
		l.used["ops"] = true
		l.produced["System.DivideByZeroException"] = true
		l.emit("castclass IOp")
		l.emit("ldc.i4 %d", e.K)
		l.emit("callvirt instance int32 IOp::Apply(int32)")
	case TEBoxV:
		l.used["Box"] = true
		l.emit("castclass Box")
		l.emit("ldfld int32 Box::v")
	case TEUnbox:
		l.emit("unbox.any [mscorlib]System.Int32")
	}
}
