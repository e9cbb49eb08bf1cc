package amd64

import (
	"miniil/abi"
	"miniil/il"
	"miniil/ir"
)

// The ToString of the integer types stays in native code: the call site
// loads the value this points to and calls the runtime's routine
// (abi.CtxIntToString), which allocates the decimal string in the
// nursery; the helper exit of the base library method, with the same
// argument, where the value is a UInt64 of 2^63 or more (the routine
// formats signed values) or where the routine returns 0 (the string does
// not fit below CtxHeapLimit: the exit is where a collection may run).
// this is never null: the verifier takes only a managed pointer to the
// value, and no instruction makes a null one.

// intToStringLoad gives, per ToString of an integer type, the
// instruction that loads the value into RSI, extended to 64 bits as the
// routine formats it (signed).
var intToStringLoad = map[il.BuiltinKind]Op{
	il.Int32ToString:  MOVLQSX,
	il.UInt32ToString: MOVL, // zero-extends
	il.Int64ToString:  MOVQ,
	il.UInt64ToString: MOVQ, // then the exit for the values the sign bit marks
}

// intToStringCall emits a call of an integer type's ToString (a kind
// intToStringLoad has), this in RDI. The result is in RAX.
func (g *gen) intToStringCall(in *ir.Instr) {
	a := g.a
	k := in.Aux.Method().BuiltinKind
	slow, done := a.NewLabel(), a.NewLabel()
	a.I(intToStringLoad[k], Mem(RDI, 0), R(RSI))
	if k == il.UInt64ToString {
		a.I(TESTQ, R(RSI), R(RSI))
		a.Jump(JLT, slow)
	}
	a.I(MOVQ, Imm(int64(g.env.TypeMT(il.String))), R(RDX))
	g.callRoutine(abi.CtxIntToString, done)
	g.libraryExit(k, in.ILOffset, slow, done)
}
