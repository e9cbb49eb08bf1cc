package amd64

import (
	"fmt"

	"miniil/abi"
	"miniil/ir"
)

// Exceptions: throws are helper exits that never return, and the EH
// terminators call finally funclets and return from funclets (see
// funcletProlog for how a funclet reaches its method's frame).

// ehTerm emits the exception terminators of block b; next reports whether
// a block follows b directly.
func (g *gen) ehTerm(b *ir.Block, next func(*ir.Block) bool) {
	a, t := g.a, b.Term
	switch t.Op {
	case ir.OpThrow:
		g.load(t.Args[0], RDI)
		g.exit(abi.HelperThrow, 0, false, t.ILOffset)
		a.I(INT3)
	case ir.OpRethrow:
		// The IL clause of the catch whose exception is rethrown.
		g.exit(abi.HelperRethrow, uint64(t.Aux.Int), true, t.ILOffset)
		a.I(INT3)
	case ir.OpThrowHelper:
		a.I(MOVQ, Imm(int64(g.env.ClassMT(t.Aux.Class()))), R(RDI))
		if t.Aux.Type != nil {
			g.load(t.Args[0], RSI)
			a.I(MOVQ, Imm(int64(g.env.TypeMT(t.Aux.Type))), R(RDX))
		}
		g.exit(abi.HelperThrowNew, 0, false, t.ILOffset)
		a.I(INT3)
	case ir.OpCallFinally:
		// The establisher frame is this frame: RSP (whose PSPSym the
		// finally's prolog copies).
		a.I(MOVQ, R(RSP), R(RDI))
		a.Jump(CALL, g.funcletOf(int(t.Aux.Int), abi.FinallyFunclet))
		g.site(t.ILOffset, abi.SPCall)
		g.note(fmt.Sprintf("finally of IL clause %d", t.Aux.Int))
		if !next(b.Succs[0]) {
			a.Jump(JMP, g.blocks[b.Succs[0].ID])
		}
	case ir.OpCatchRet:
		// A catch funclet returns where its method resumes.
		a.I(LEAQ, LabelAddr(g.blocks[b.Succs[0].ID]), R(RAX))
		g.funcletEpilog()
	case ir.OpEndFinally:
		g.funcletEpilog()
	case ir.OpEndFilter:
		g.load(t.Args[0], RAX)
		g.funcletEpilog()
	default:
		panic(fmt.Sprintf("unknown terminator %s", t.Op))
	}
}

// catchArg emits OpCatchArg: a catch or filter funclet receives the
// exception in RSI.
func (g *gen) catchArg(in *ir.Instr) {
	g.a.I(MOVQ, R(RSI), g.slot(in.Dst))
}

// funcletKey identifies a funclet by clause and kind.
type funcletKey struct {
	clause int
	kind   abi.FuncletKind
}

// funcletOf returns the label of the funclet of clause c with kind k
// (from a map made on first use: a method can have many funclets).
func (g *gen) funcletOf(c int, k abi.FuncletKind) Label {
	if g.funcletByKey == nil {
		g.funcletByKey = make(map[funcletKey]Label, len(g.lay.Funcs))
		for i, fn := range g.lay.Funcs {
			key := funcletKey{fn.Clause, fn.Kind}
			if _, ok := g.funcletByKey[key]; !ok {
				g.funcletByKey[key] = g.funcletLabels[i]
			}
		}
	}
	if l, ok := g.funcletByKey[funcletKey{c, k}]; ok {
		return l
	}
	panic(fmt.Sprintf("no %s funclet for clause %d", k, c))
}
