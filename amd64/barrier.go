package amd64

import (
	"miniil/abi"
	"miniil/il"
	"miniil/ir"
)

// The write barrier: after storing a reference into memory that may be
// in the managed heap, native code sets the card of the address stored
// to, when the value stored is in the young generation and the address
// is in the heap (abi.CtxYoungLo documents the test), so that a nursery
// collection finds the old objects that refer to young ones. It uses RDI
// and RSI, argument registers that hold nothing between the instructions
// of a block (no value's home; calls load them last).
//
// The barrier is left out where it is needless: a store of null; a
// store into a frame block (never in the heap); a store into an object
// the method allocated inline in the same block with no safepoint since
// (it is in the nursery, and a nursery object's references are found by
// tracing it). Stores to statics need none: the statics are roots of
// every collection.

// barrierWanted reports whether a store of reference v into memory
// based on address or object base needs the barrier.
func (g *gen) barrierWanted(base, v ir.Value) bool {
	if c, ok := g.plan.consts.get(v); ok && c == 0 {
		g.barriersElided++
		return false
	}
	if g.frameAddr.Has(base) || g.fresh[base] {
		g.barriersElided++
		return false
	}
	return true
}

// storeRef stores reference v to m (whose base register is not RAX),
// then runs the barrier for it if it is wanted.
func (g *gen) storeRef(m Operand, base, v ir.Value) {
	if !g.barrierWanted(base, v) {
		g.storeMem(v, m)
		return
	}
	r := g.reg(v, RAX)
	g.a.I(MOVQ, R(r), m)
	g.barrier(m, r)
}

// barrier emits the card marking for a store of the reference in
// register val to m.
func (g *gen) barrier(m Operand, val Reg) {
	a := g.a
	skip := a.NewLabel()
	a.I(MOVQ, R(val), R(RSI))
	a.I(SUBQ, Mem(R15, abi.CtxYoungLo), R(RSI))
	a.I(CMPQ, R(RSI), Mem(R15, abi.CtxYoungSpan))
	a.Jump(JCC, skip) // not young (null included)
	g.markCard(m, skip)
	a.Bind(skip)
	g.barriers++
}

// markCard sets the card of the address of m if it is in the heap;
// skip is bound after it by the caller.
func (g *gen) markCard(m Operand, skip Label) {
	a := g.a
	a.I(LEAQ, m, R(RDI))
	a.I(SUBQ, Mem(R15, abi.CtxHeapLo), R(RDI))
	a.I(CMPQ, R(RDI), Mem(R15, abi.CtxHeapSpan))
	a.Jump(JCC, skip)
	a.I(SHRQ, Imm(abi.CardShift), R(RDI))
	a.I(ADDQ, Mem(R15, abi.CtxCards), R(RDI))
	a.I(MOVB, Imm(1), Mem(RDI, 0))
}

// blockBarrier sets the cards of the first and last words of a block of
// n words at the address in register dst, after a copy of a value type
// holding references there.
func (g *gen) blockBarrier(dst Reg, n int) {
	a := g.a
	for _, off := range []int32{0, int32(8 * (n - 1))} {
		skip := a.NewLabel()
		g.markCard(Mem(dst, off), skip)
		a.Bind(skip)
		if n == 1 {
			break
		}
	}
	g.barriers++
}

// hasRefs reports whether a value of type t holds references.
func hasRefs(t *il.Type) bool {
	return t != nil && (t.IsRef() || t.Kind == il.KValue && len(t.Class.RefWords) > 0)
}

// noteFresh updates the set of objects allocated inline in the current
// block with no safepoint since, after instruction in.
func (g *gen) noteFresh(in *ir.Instr) {
	switch in.Op {
	case ir.OpAlloc:
		clear(g.fresh)
		g.fresh[in.Dst] = true
	case ir.OpStField, ir.OpLdField, ir.OpConst, ir.OpStr, ir.OpCopy, ir.OpArrLen, ir.OpLdStatic, ir.OpStStatic,
		ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpShl, ir.OpShr, ir.OpShrUn, ir.OpNeg, ir.OpNot,
		ir.OpCmp, ir.OpConv, ir.OpSlotAddr, ir.OpLea, ir.OpFieldAddr, ir.OpLoad, ir.OpStore:
		if in.Dst != ir.NoValue && g.fresh[in.Dst] {
			delete(g.fresh, in.Dst) // redefined
		}
		if in.Op == ir.OpCopy && g.fresh[in.Args[0]] {
			g.fresh[in.Dst] = true
		}
	default:
		clear(g.fresh)
	}
}

// frameAddrs returns the values defined only by OpSlotAddr: addresses of
// frame blocks.
func frameAddrs(f *ir.Func) ir.ValueSet {
	slot := ir.MakeValueSet(f.Cache, len(f.Kinds))
	other := ir.MakeValueSet(f.Cache, len(f.Kinds))
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Dst == ir.NoValue {
				continue
			}
			if in.Op == ir.OpSlotAddr {
				slot.Add(in.Dst)
			} else {
				other.Add(in.Dst)
			}
		}
	}
	slot.AndNot(other)
	return slot
}
