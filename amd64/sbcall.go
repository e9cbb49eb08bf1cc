package amd64

import (
	"miniil/abi"
	"miniil/il"
	"miniil/ir"
)

// System.Text.StringBuilder's frequent members stay in native code: a
// call of the runtime's routine (abi.CtxSbCtor .. abi.CtxSbToString:
// the constructor, Append of a string, a char and an integer, ToString),
// or for get_Length, get_Chars and Clear a few inline instructions; the
// helper exit of the base library method, with the same arguments,
// where the routine returns 0 or the inline code finds a null builder
// (or an index out of range): the exit throws, grows the buffer, or
// allocates where a collection may run first. The routines and the
// inline code neither exit nor allocate past CtxHeapLimit: they are no
// safepoints, and only the exit has GC information. They use only the
// scratch and argument registers (never a home: a value kept across a
// base library call stays in its register, which the exit preserves).

// sbRoutine gives the context slot of the routine that serves a call of
// a StringBuilder method of kind k, and what the call site loads before
// calling it.
var sbRoutine = map[il.BuiltinKind]struct {
	slot  int32
	setup sbSetup
}{
	il.StringBuilderCtor:         {abi.CtxSbCtor, sbZeroCapacity},
	il.StringBuilderCtorInt32:    {abi.CtxSbCtor, sbCharArrayMT},
	il.StringBuilderAppendString: {abi.CtxSbAppendString, sbNone},
	il.StringBuilderAppendChar:   {abi.CtxSbAppendChar, sbNone},
	il.StringBuilderAppendInt32:  {abi.CtxSbAppendInt, sbSignExtend},
	il.StringBuilderAppendUInt32: {abi.CtxSbAppendInt, sbZeroExtend},
	il.StringBuilderAppendInt64:  {abi.CtxSbAppendInt, sbNone},
	il.StringBuilderToString:     {abi.CtxSbToString, sbStringMT},
}

// sbSetup is what a call site loads before calling a StringBuilder
// routine.
type sbSetup int

const (
	sbNone         sbSetup = iota
	sbZeroCapacity         // .ctor(): ESI = 0 (the default capacity), RDX = char[]'s method table
	sbCharArrayMT          // .ctor(int32): RDX = char[]'s method table
	sbSignExtend           // int32: RSI = ESI sign-extended
	sbZeroExtend           // uint32: RSI = ESI zero-extended
	sbStringMT             // RDX = System.String's method table
)

// sbNative reports whether a call of base library method kind k is
// served in native code (stringBuilderCall).
func sbNative(k il.BuiltinKind) bool {
	switch k {
	case il.StringBuilderGetLength, il.StringBuilderGetChars, il.StringBuilderClear:
		return true
	}
	_, ok := sbRoutine[k]
	return ok
}

// stringBuilderCall emits a call of a StringBuilder method for which
// sbNative holds, its arguments in their registers: the native path,
// then the helper exit where it cannot serve the call. The result is in
// RAX.
func (g *gen) stringBuilderCall(in *ir.Instr) {
	a := g.a
	k := in.Aux.Method().BuiltinKind
	slow, done := a.NewLabel(), a.NewLabel()
	switch k {
	case il.StringBuilderGetLength:
		a.I(TESTQ, R(RDI), R(RDI))
		a.Jump(JEQ, slow)
		a.I(MOVL, Mem(RDI, abi.SbLength), R(RAX))
		a.Jump(JMP, done)
	case il.StringBuilderGetChars:
		// An index out of [0, Length) (unsigned, as 32 bits: a length is
		// below 2^31) throws in the exit.
		a.I(TESTQ, R(RDI), R(RDI))
		a.Jump(JEQ, slow)
		a.I(CMPL, R(RSI), Mem(RDI, abi.SbLength))
		a.Jump(JCC, slow)
		a.I(MOVQ, Mem(RDI, abi.SbChars), R(RAX))
		a.I(MOVL, R(RSI), R(RCX))
		a.I(MOVWLZX, MemIdx(RAX, RCX, 2, abi.ArrData), R(RAX))
		a.Jump(JMP, done)
	case il.StringBuilderClear:
		a.I(TESTQ, R(RDI), R(RDI))
		a.Jump(JEQ, slow)
		a.I(MOVQ, Imm(0), Mem(RDI, abi.SbLength))
		a.I(MOVQ, R(RDI), R(RAX))
		a.Jump(JMP, done)
	default:
		r := sbRoutine[k]
		switch r.setup {
		case sbZeroCapacity:
			a.I(XORL, R(RSI), R(RSI))
			a.I(MOVQ, Imm(int64(g.env.TypeMT(il.ArrayOf(il.Char)))), R(RDX))
		case sbCharArrayMT:
			a.I(MOVQ, Imm(int64(g.env.TypeMT(il.ArrayOf(il.Char)))), R(RDX))
		case sbSignExtend:
			a.I(MOVLQSX, R(RSI), R(RSI))
		case sbZeroExtend:
			a.I(MOVL, R(RSI), R(RSI))
		case sbStringMT:
			a.I(MOVQ, Imm(int64(g.env.TypeMT(il.String))), R(RDX))
		}
		g.callRoutine(r.slot, done)
	}
	g.libraryExit(k, in.ILOffset, slow, done)
}
