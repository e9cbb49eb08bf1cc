package ir

import "testing"

// TestOpTable checks that every operation has an entry in opTable that
// agrees with Op.IsTerminator.
func TestOpTable(t *testing.T) {
	for op := OpInvalid + 1; op < numOps; op++ {
		info := opTable[op]
		if info.kind == (kindRule{}) {
			t.Errorf("%s has no entry", op)
		}
		if info.term != op.IsTerminator() {
			t.Errorf("%s: the table says terminator %v, IsTerminator %v", op, info.term, op.IsTerminator())
		}
		if !info.term && info.succs != 0 {
			t.Errorf("%s: successors on a non-terminator", op)
		}
		if info.term && info.dst != never {
			t.Errorf("%s: a terminator with a result", op)
		}
		if info.variadic && info.rule == nil {
			t.Errorf("%s: variadic without a rule to check its operands", op)
		}
	}
}
