package ir

import "fmt"

// Check validates the structure of f: every block ends in a terminator
// with the right number of successors, predecessor lists mirror successor
// lists, operands name existing registers, and operand kinds agree with
// the operation.
func Check(f *Func) error {
	if len(f.Blocks) == 0 {
		return fmt.Errorf("%s: no blocks", f.Method.FullName())
	}
	bad := func(b *Block, format string, args ...any) error {
		return fmt.Errorf("%s: b%d: %s", f.Method.FullName(), b.ID, fmt.Sprintf(format, args...))
	}
	preds := map[*Block]int{}
	for i, b := range f.Blocks {
		if b.ID != i {
			return bad(b, "block ID %d at index %d", b.ID, i)
		}
		if b.Term == nil || !b.Term.Op.IsTerminator() {
			return bad(b, "block does not end with a terminator")
		}
		want := -1
		switch b.Term.Op {
		case OpJump:
			want = 1
		case OpIf:
			want = 2
		case OpRet, OpThrow, OpThrowHelper, OpEndFinally, OpEndFilter, OpRethrow:
			want = 0
		case OpCallFinally, OpCatchRet:
			want = 1
		case OpSwitch:
			if len(b.Succs) < 1 {
				return bad(b, "switch without a default successor")
			}
		}
		if want >= 0 && len(b.Succs) != want {
			return bad(b, "%s has %d successors, want %d", b.Term.Op, len(b.Succs), want)
		}
		for _, s := range b.Succs {
			preds[s]++
		}
		for _, in := range append(append([]*Instr(nil), b.Instrs...), b.Term) {
			if in != b.Term && in.Op.IsTerminator() {
				return bad(b, "terminator %s in the middle of the block", in.Op)
			}
			for _, v := range append(append([]Value(nil), in.Args...), in.Dst, in.Dst2) {
				if v != NoValue && (v < 0 || int(v) >= len(f.Kinds)) {
					return bad(b, "%s uses undefined register %s", in.Op, v)
				}
			}
			if err := checkKinds(f, in); err != nil {
				return bad(b, "%s", err)
			}
		}
	}
	for _, b := range f.Blocks {
		if len(b.Preds) != preds[b] {
			return bad(b, "has %d predecessors, but %d edges lead to it", len(b.Preds), preds[b])
		}
	}
	return nil
}

func checkKinds(f *Func, in *Instr) error {
	k := func(v Value) Kind { return f.Kinds[v] }
	switch in.Op {
	case OpAdd, OpSub, OpMul, OpDiv, OpDivUn, OpRem, OpRemUn, OpAnd, OpOr, OpXor, OpAddOvf, OpSubOvf, OpMulOvf:
		if k(in.Args[0]) != in.Kind || k(in.Args[1]) != in.Kind || k(in.Dst) != in.Kind {
			return fmt.Errorf("%s.%s with operands %s, %s", in.Op, in.Kind, k(in.Args[0]), k(in.Args[1]))
		}
	case OpCmp:
		if k(in.Args[0]) != k(in.Args[1]) || k(in.Dst) != I32 {
			return fmt.Errorf("cmp of %s with %s", k(in.Args[0]), k(in.Args[1]))
		}
	case OpCopy:
		if k(in.Args[0]) != k(in.Dst) {
			return fmt.Errorf("copy of %s into %s", k(in.Args[0]), k(in.Dst))
		}
	case OpShl, OpShr, OpShrUn:
		if k(in.Args[1]) != I32 || k(in.Args[0]) != k(in.Dst) {
			return fmt.Errorf("%s of %s by %s", in.Op, k(in.Args[0]), k(in.Args[1]))
		}
	case OpIf:
		if k(in.Args[0]).IsFloat() {
			return fmt.Errorf("if on a float")
		}
	}
	return nil
}
