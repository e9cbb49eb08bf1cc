package opt

import "miniil/ir"

// deadCode removes the instructions that compute a temporary of a
// number kind no instruction reads and that have no effect besides
// (arithmetic without overflow checks, compares, conversions, array
// lengths, loads), until none is left: what remains of the checks the
// loop passes removed (the index conversion, the length). It returns the
// number removed.
//
// An instruction reading a reference or an address is removed only when
// allow holds it: the GC information follows the liveness of such
// values, and the interpreter's heap accounting follows the GC
// information of the method's IL, so a pass may drop such a read only
// where another read of the value follows before any safepoint.
func deadCode(f *ir.Func, allow map[*ir.Instr]bool) int {
	uses := make([]int32, len(f.Kinds))
	for _, b := range f.Blocks {
		for _, in := range b.Code() {
			for _, a := range in.Args {
				uses[a]++
			}
		}
	}
	removed := 0
	for changed := true; changed; {
		changed = false
		for _, b := range f.Blocks {
			kept := b.Instrs[:0]
			for _, in := range b.Instrs {
				if removable(f, in) && uses[in.Dst] == 0 && (allow[in] || !readsGC(f, in)) {
					for _, a := range in.Args {
						uses[a]--
					}
					removed++
					changed = true
					continue
				}
				kept = append(kept, in)
			}
			clear(b.Instrs[len(kept):])
			b.Instrs = kept
		}
	}
	return removed
}

// removable reports whether in defines a number temporary and does
// nothing else, so that it may go when the temporary is not read.
func removable(f *ir.Func, in *ir.Instr) bool {
	if in.Dst == ir.NoValue || in.Dst2 != ir.NoValue || !isTemp(f, in.Dst) {
		return false
	}
	switch f.Kinds[in.Dst] {
	case ir.I32, ir.I64, ir.F32, ir.F64:
	default:
		return false
	}
	return pureOp(in.Op) || in.Op == ir.OpArrLen || in.Op == ir.OpLdField || in.Op == ir.OpLdElem || in.Op == ir.OpLoad
}

// pureOp reports whether op computes its result from its operands alone,
// without effects and without faulting: integer division and remainder,
// which the reader's checks guard, are left out.
func pureOp(op ir.Op) bool {
	switch op {
	case ir.OpConst, ir.OpCopy, ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpAnd, ir.OpOr, ir.OpXor,
		ir.OpShl, ir.OpShr, ir.OpShrUn, ir.OpNeg, ir.OpNot, ir.OpCmp, ir.OpConv:
		return true
	}
	return false
}

// readsGC reports whether in reads a reference or an address.
func readsGC(f *ir.Func, in *ir.Instr) bool {
	for _, a := range in.Args {
		if f.Kinds[a].IsGC() {
			return true
		}
	}
	return false
}
