package amd64

import (
	"fmt"

	"miniil/abi"
	"miniil/il"
	"miniil/ir"
)

// Argument registers of the managed calling convention (SysV order).
var (
	intArgRegs   = []Reg{RDI, RSI, RDX, RCX, R8, R9}
	floatArgRegs = []Reg{X0, X1, X2, X3, X4, X5, X6, X7}
)

// argLoc is where one argument travels: a register, or a stack slot index
// (8 bytes each, above the return address).
type argLoc struct {
	reg   Reg
	stack int // -1 when in a register
}

// classify assigns argument locations: floats take the next XMM register,
// everything else the next integer register, the rest go on the stack in
// order. The list comes from c (it lives as long as the compile).
func classify(c *ir.Cache, kinds []ir.Kind) ([]argLoc, int) {
	locs := ir.Make[argLoc](c, len(kinds))
	ni, nf, ns := 0, 0, 0
	for i, k := range kinds {
		switch {
		case k.IsFloat() && nf < len(floatArgRegs):
			locs[i] = argLoc{reg: floatArgRegs[nf], stack: -1}
			nf++
		case !k.IsFloat() && ni < len(intArgRegs):
			locs[i] = argLoc{reg: intArgRegs[ni], stack: -1}
			ni++
		default:
			locs[i] = argLoc{reg: NoReg, stack: ns}
			ns++
		}
	}
	return locs, ns
}

// outArgSlots returns the number of stack slots the calls of f pass
// arguments in (the most any one call needs).
func outArgSlots(f *ir.Func) int {
	out := 0
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == ir.OpCall || in.Op == ir.OpCallVirt {
				_, ns := classify(f.Cache, kinds(f, in.Args))
				out = max(out, ns)
			}
		}
	}
	return out
}

// inlineExcCtor reports whether a method of kind k is a base library
// exception constructor whose work (storing the message) the generated
// code does itself: .ctor() and .ctor(string message).
func inlineExcCtor(k il.BuiltinKind) bool {
	switch k {
	case il.ArgumentNullExceptionCtorString, il.ArgumentOutOfRangeExceptionCtorString:
		return false // the argument is a parameter name
	}
	return k.IsExceptionCtor() && k.NumParams() <= 1
}

// call emits OpCall and OpCallVirt.
func (g *gen) call(in *ir.Instr) {
	a := g.a
	callee := in.Aux.Method()
	if callee.BuiltinKind == il.ObjectCtor {
		return // Object's constructor does nothing
	}
	if inlineExcCtor(callee.BuiltinKind) {
		// Store the message (the class's interned default, or the
		// argument) into the exception's _message slot; a null this takes
		// the helper, which raises NullReferenceException.
		slow, done := a.NewLabel(), a.NewLabel()
		g.load(in.Args[0], RCX)
		a.I(TESTQ, R(RCX), R(RCX))
		a.Jump(JEQ, slow)
		if len(callee.Params) == 1 {
			g.load(in.Args[1], RAX)
		} else if msg, ok := il.DefaultMessage(callee.Owner.Name); ok {
			a.I(MOVQ, Imm(int64(g.env.StringAddr(msg))), R(RAX))
		} else {
			a.I(XORL, R(RAX), R(RAX))
		}
		a.I(MOVQ, R(RAX), Mem(RCX, abi.ObjFields))
		a.Jump(JMP, done)
		a.Bind(slow)
		g.callGeneric(in)
		a.Bind(done)
		return
	}
	g.callGeneric(in)
}

// intMinMax gives the conditional move that picks the second argument
// for Math.Min and Math.Max of integers (RSI when it is the greater, or
// the less).
var intMinMax = map[il.BuiltinKind]Op{
	il.MathMaxInt32: CMOVQGT, il.MathMaxInt64: CMOVQGT,
	il.MathMinInt32: CMOVQLT, il.MathMinInt64: CMOVQLT,
}

// callGeneric emits a call: arguments in registers (and the stack), then
// the vtable, the helper exit of a base library method, or the cell.
func (g *gen) callGeneric(in *ir.Instr) {
	a := g.a
	callee := in.Aux.Method()
	locs, _ := classify(g.f.Cache, kinds(g.f, in.Args))
	for i, l := range locs {
		if l.stack >= 0 {
			g.load(in.Args[i], RAX)
			a.I(MOVQ, R(RAX), Mem(RSP, int32(8*l.stack)))
		}
	}
	for i, l := range locs {
		if l.stack < 0 && !(in.Args[i] == g.computed && g.cur.into[in.Args[i]] == l.reg) {
			g.load(in.Args[i], l.reg)
		}
	}
	switch {
	case in.Op == ir.OpCallVirt && callee.Owner.Interface:
		// Through the object's interface table: the block of the callee's
		// interface, then the slot.
		a.I(MOVQ, Mem(RDI, abi.ObjMT), R(RAX))
		a.I(MOVQ, Mem(RAX, abi.MTITab), R(RAX))
		a.I(MOVQ, Mem(RAX, int32(abi.MTSlotSize*callee.Owner.IfaceIndex)), R(RAX))
		a.I(CALL, Mem(RAX, int32(abi.MTSlotSize*callee.Slot)))
		g.site(in.ILOffset, abi.SPCall)
		g.noteCall("callvirt ", callee, " (interface)")
	case in.Op == ir.OpCallVirt:
		a.I(MOVQ, Mem(RDI, abi.ObjMT), R(RAX))
		a.I(CALL, Mem(RAX, int32(abi.MTVTable+abi.MTSlotSize*callee.Slot)))
		g.site(in.ILOffset, abi.SPCall)
		g.noteCall("callvirt ", callee, "")
	case callee.BuiltinKind == il.MathSqrt:
		// IEEE square root, correctly rounded like the base library's.
		a.I(SQRTSD, R(X0), R(X0))
	case intMinMax[callee.BuiltinKind] != 0:
		// Math.Min and Max of integers: a compare and a conditional move.
		cmp := CMPQ
		if k := callee.BuiltinKind; k == il.MathMaxInt32 || k == il.MathMinInt32 {
			cmp = CMPL
		}
		a.I(MOVQ, R(RDI), R(RAX))
		a.I(cmp, R(RSI), R(RAX))
		a.I(intMinMax[callee.BuiltinKind], R(RSI), R(RAX))
	case callee.BuiltinKind == il.StringOpEquality || callee.BuiltinKind == il.StringOpInequality:
		// The runtime's string equality routine: no exit, no safepoint
		// (it neither allocates nor calls back).
		a.I(CALL, Mem(R15, abi.CtxStrEquals))
		if callee.BuiltinKind == il.StringOpInequality {
			a.I(XORL, Imm(1), R(RAX))
		}
		g.note("call " + callee.BuiltinKind.String() + " (string equality routine)")
	case callee.BuiltinKind == il.StringConcatStringString:
		// The runtime's concatenation routine; where it returns 0 (a new
		// string that does not fit, or String.Empty), the base library
		// method with the same arguments, at a safepoint.
		slow, done := a.NewLabel(), a.NewLabel()
		a.I(MOVQ, Imm(int64(g.env.TypeMT(il.String))), R(RDX))
		g.callRoutine(abi.CtxStrConcat, done)
		g.libraryExit(callee.BuiltinKind, in.ILOffset, slow, done)
	case sbNative(callee.BuiltinKind):
		// StringBuilder's frequent members (sbcall.go).
		g.stringBuilderCall(in)
	case intToStringLoad[callee.BuiltinKind] != 0:
		// The integer types' ToString (tostring.go).
		g.intToStringCall(in)
	case callee.Builtin:
		g.exit(abi.HelperBuiltin, uint64(callee.BuiltinKind), true, in.ILOffset)
		g.noteLibrary(callee.BuiltinKind)
	case callee == g.f.Method:
		// A call of the method itself goes straight to its entry (the
		// main body's prolog): running, it is compiled, and its code is
		// where it stays. The runtime would patch a cell call to NOP;
		// CALL rel32 at install; emitted here it is a byte shorter (the
		// NOP cost fib 4-6%) and the dumps show the code that runs.
		a.Jump(CALL, g.funcletLabels[0])
		g.site(in.ILOffset, abi.SPCall)
		g.noteCall("call ", callee, " (itself)")
	default:
		// CALL [RIP+disp32] to the callee's cell; the displacement is set
		// at install time (Code.CellRefs).
		a.Bytes(0xFF, 0x15, 0, 0, 0, 0)
		g.cellRefs = append(g.cellRefs, cellRef{a.Mark(), g.env.CellAddr(callee)})
		g.site(in.ILOffset, abi.SPCall)
		g.noteCall("call ", callee, "")
	}
	if in.Dst != ir.NoValue {
		if g.f.Kinds[in.Dst].IsFloat() {
			g.store(X0, in.Dst)
		} else {
			g.store(RAX, in.Dst)
		}
	}
}

// exit emits a helper exit.
func (g *gen) exit(code int, arg uint64, hasArg bool, ilOffset int32) {
	g.a.I(MOVQ, Imm(int64(code)), Mem(R15, abi.CtxExitCode))
	if hasArg {
		g.a.I(MOVQ, Imm(int64(arg)), Mem(R15, abi.CtxExitArg))
	}
	g.a.I(CALL, Mem(R15, abi.CtxExitStub))
	g.site(ilOffset, 0)
	if code != abi.HelperBuiltin { // calls of builtins name the method
		g.note("helper " + abi.ExitName(code))
	}
}

// site records the return address of the call just emitted (a managed
// call, flags SPCall, or an exit), with its GC information.
func (g *gen) site(ilOffset int32, flags abi.SafepointFlags) {
	in := g.curInstr
	if in == nil || !hasSafepoint(in) {
		panic(fmt.Sprintf("a call or exit in the code of %v, which has no safepoint", in))
	}
	g.sites = append(g.sites, siteMark{mark: g.a.Mark(), ilOffset: ilOffset, inline: in.Inline, funclet: int32(g.curFunclet), flags: flags,
		vals: g.curAfter[g.curIndex]})
}

// note names what the call just emitted calls, for dumps.
func (g *gen) note(text string) {
	g.notes = append(g.notes, noteMark{g.a.Mark(), Note{text: text}})
}

// noteCall records a note naming callee, between prefix and suffix.
func (g *gen) noteCall(prefix string, callee *il.Method, suffix string) {
	g.notes = append(g.notes, noteMark{g.a.Mark(), Note{text: prefix, callee: callee, suffix: suffix}})
}

// noteLibrary records the note of a helper exit calling base library
// method k.
func (g *gen) noteLibrary(k il.BuiltinKind) {
	g.notes = append(g.notes, noteMark{g.a.Mark(), Note{text: "call ", name: k.String(), suffix: " (base library)"}})
}

// callRoutine calls the runtime routine whose address is in context slot
// slot and jumps to done where it returned non-zero in RAX (served).
func (g *gen) callRoutine(slot int32, done Label) {
	g.a.I(CALL, Mem(R15, slot))
	g.a.I(TESTQ, R(RAX), R(RAX))
	g.a.Jump(JNE, done)
}

// libraryExit binds slow to the helper exit of base library method k,
// the call's arguments still in their registers (where a routine or
// inline code could not serve it: the exit is the safepoint where the
// method runs), then done after it.
func (g *gen) libraryExit(k il.BuiltinKind, ilOffset int32, slow, done Label) {
	g.a.Bind(slow)
	g.exit(abi.HelperBuiltin, uint64(k), true, ilOffset)
	g.noteLibrary(k)
	g.a.Bind(done)
}
