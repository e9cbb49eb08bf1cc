package amd64

import (
	"fmt"
	"slices"
	"strings"

	"miniil/funclet"
	"miniil/ir"
)

// The register allocator's contract, checked apart from regalloc.go: with
// its own liveness (a plain iterative dataflow per instruction) and its
// own register lists, so that a bug in the allocator's liveness or
// intervals cannot hide itself.

var (
	// Registers a home may be: never a scratch register of the code
	// generator (RAX, RCX, RDX, XMM0, XMM1), an argument register but R8,
	// R9 and XMM2-7 (for values no call comes near), RSP, RBP or R15 (the
	// context).
	homeGPRs = []Reg{RSI, RDI, R8, R9, R10, R11, RBX, R12, R13, R14}
	homeXMMs = []Reg{X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15}
	// Registers a managed call preserves.
	calleeSavedGPRs = []Reg{RBX, R12, R13, R14}
)

// argHome reports whether r is an argument register a home may be: R8,
// R9 or XMM2-7, where a call may load an argument.
func argHome(r Reg) bool { return r == R8 || r == R9 || r >= X2 && r <= X7 }

// managedCall reports whether in calls managed code (which may change
// every caller-saved register); base library calls run in exits, which
// preserve every register.
func managedCall(in *ir.Instr) bool {
	return in.Op == ir.OpCallVirt || in.Op == ir.OpCall && !in.Aux.Method().Builtin
}

// verifyHomes checks the homes of f's values (f laid out as lay) and
// returns what is wrong:
//   - a home is a home register of the value's class, and values that
//     need no location (skip) have none;
//   - two values live at once never share a home: a result's home differs
//     from the home of every other value live after its instruction, and
//     the arguments and locals differ (the prolog stores every argument
//     and zeroes every local);
//   - a value live across a managed call or a callfinally is in a
//     callee-saved register or the frame, and one live across the call of
//     a finally holding a try in the frame;
//   - values a funclet mentions, and values live into a catch's
//     continuation, stay in the frame;
//   - a value in R8, R9 or XMM2-7 is live across no call, and read by
//     no call nor by the instruction right before one.
func verifyHomes(f *ir.Func, lay *funclet.Layout, homes []Reg, skip ir.ValueSet) []string {
	resumable := resumableFinallys(f)
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if len(homes) != len(f.Kinds) {
		return []string{fmt.Sprintf("%d homes for %d values", len(homes), len(f.Kinds))}
	}
	name := func(v ir.Value) string { return fmt.Sprintf("%s:%s (in %s)", v, f.Kinds[v], homes[v]) }
	for v, r := range homes {
		v := ir.Value(v)
		switch {
		case r == NoReg:
		case skip != nil && skip.Has(v):
			bad("%s needs no location but has a home", name(v))
		case f.Kinds[v].IsFloat() && !slices.Contains(homeXMMs, r), !f.Kinds[v].IsFloat() && !slices.Contains(homeGPRs, r):
			bad("%s: not a home register for its kind", name(v))
		}
	}
	framed := func(v ir.Value, why string) {
		if homes[v] != NoReg {
			bad("%s %s, yet is not in the frame", name(v), why)
		}
	}
	main := lay.Funcs[0].Blocks
	live := blockLiveness(f, main)
	for _, fn := range lay.Funcs[1:] {
		for _, b := range fn.Blocks {
			for _, in := range b.Code() {
				for _, v := range append([]ir.Value{in.Dst, in.Dst2}, in.Args...) {
					if v != ir.NoValue {
						framed(v, fmt.Sprintf("is mentioned by the %s funclet of clause %d", fn.Kind, fn.Clause))
					}
				}
			}
			if b.Term.Op == ir.OpCatchRet {
				for _, v := range live.in[b.Succs[0]] {
					framed(v, fmt.Sprintf("is live into b%d, a catch's continuation", b.Succs[0].ID))
				}
			}
		}
	}
	// Arguments and locals are all written at the start.
	seen := map[Reg]ir.Value{}
	for v := range ir.Value(f.NumArgs + f.NumLocals) {
		if r := homes[v]; r != NoReg {
			if w, ok := seen[r]; ok {
				bad("arguments or locals %s and %s share a home", name(w), name(v))
			}
			seen[r] = v
		}
	}
	for _, b := range main {
		set := ir.NewValueSet(len(f.Kinds))
		for _, v := range live.out[b] {
			set.Add(v)
		}
		code := b.Code()
		for i := len(code) - 1; i >= 0; i-- {
			in := code[i]
			where := fmt.Sprintf("b%d: %s", b.ID, f.Format(in, b))
			defs := []ir.Value{in.Dst, in.Dst2}
			set.Each(func(v ir.Value) {
				for _, d := range defs {
					if d != ir.NoValue && d != v && homes[d] != NoReg && homes[d] == homes[v] {
						bad("%s: writes %s over %s, which is live", where, name(d), name(v))
					}
				}
				if slices.Contains(defs, v) {
					return
				}
				switch {
				case in.Op == ir.OpCallFinally && resumable[int(in.Aux.Int)]:
					framed(v, "is live across "+where)
				case (managedCall(in) || in.Op == ir.OpCallFinally) && homes[v] != NoReg && !slices.Contains(calleeSavedGPRs, homes[v]):
					bad("%s: %s is live across the call in a register the call may change", where, name(v))
				case (in.Op == ir.OpCall || in.Op == ir.OpCallVirt) && argHome(homes[v]):
					bad("%s: %s is live across a call, which may load an argument there", where, name(v))
				case writesRDIRSI(in) && (homes[v] == RDI || homes[v] == RSI):
					bad("%s: %s is live across code writing RDI or RSI", where, name(v))
				}
			})
			if in.Dst != ir.NoValue && in.Dst2 != ir.NoValue && homes[in.Dst] != NoReg && homes[in.Dst] == homes[in.Dst2] {
				bad("%s: both results in %s", where, homes[in.Dst])
			}
			for _, d := range defs {
				if d != ir.NoValue {
					set.Remove(d)
				}
			}
			call := func(x *ir.Instr) bool { return x.Op == ir.OpCall || x.Op == ir.OpCallVirt }
			if call(in) || i+1 < len(code) && call(code[i+1]) {
				for _, a := range in.Args {
					if argHome(homes[a]) {
						bad("%s: reads %s at or just before a call", where, name(a))
					}
				}
			}
			if writesRDIRSI(in) || i+1 < len(code) && writesRDIRSI(code[i+1]) {
				for _, a := range in.Args {
					if homes[a] == RDI || homes[a] == RSI {
						bad("%s: reads %s at or just before code writing RDI or RSI", where, name(a))
					}
				}
			}
			if b == main[0] {
				for _, v := range append(append([]ir.Value{}, in.Args...), in.Dst, in.Dst2) {
					if v != ir.NoValue && (homes[v] == RDI || homes[v] == RSI) {
						bad("%s: %s is in the entry block", where, name(v))
					}
				}
			}
			for _, a := range in.Args {
				set.Add(a)
			}
		}
	}
	return errs
}

// liveSets are the values live into and out of each block, sorted.
type liveSets struct{ in, out map[*ir.Block][]ir.Value }

// blockLiveness is the textbook backward dataflow over blocks (edges to
// blocks outside the list ignored), iterated to its fixed point.
func blockLiveness(f *ir.Func, blocks []*ir.Block) liveSets {
	n := len(f.Kinds)
	inList := map[*ir.Block]bool{}
	use, def := map[*ir.Block]ir.ValueSet{}, map[*ir.Block]ir.ValueSet{}
	in, out := map[*ir.Block]ir.ValueSet{}, map[*ir.Block]ir.ValueSet{}
	for _, b := range blocks {
		inList[b] = true
		use[b], def[b] = ir.NewValueSet(n), ir.NewValueSet(n)
		in[b], out[b] = ir.NewValueSet(n), ir.NewValueSet(n)
		for _, instr := range b.Code() {
			for _, a := range instr.Args {
				if !def[b].Has(a) {
					use[b].Add(a)
				}
			}
			for _, d := range []ir.Value{instr.Dst, instr.Dst2} {
				if d != ir.NoValue {
					def[b].Add(d)
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for i := len(blocks) - 1; i >= 0; i-- {
			b := blocks[i]
			o := ir.NewValueSet(n)
			for _, s := range b.Succs {
				if inList[s] {
					o.Or(in[s])
				}
			}
			x := ir.NewValueSet(n)
			x.Or(o)
			for v := range ir.Value(n) {
				if def[b].Has(v) {
					x.Remove(v)
				}
			}
			x.Or(use[b])
			if !slices.Equal(x, in[b]) || !slices.Equal(o, out[b]) {
				in[b], out[b], changed = x, o, true
			}
		}
	}
	ls := liveSets{in: map[*ir.Block][]ir.Value{}, out: map[*ir.Block][]ir.Value{}}
	for _, b := range blocks {
		in[b].Each(func(v ir.Value) { ls.in[b] = append(ls.in[b], v) })
		out[b].Each(func(v ir.Value) { ls.out[b] = append(ls.out[b], v) })
	}
	return ls
}

// homeList prints the homes of the values that have one.
func homeList(homes []Reg) string {
	var b strings.Builder
	for v, r := range homes {
		if r != NoReg {
			fmt.Fprintf(&b, " v%d=%s", v, r)
		}
	}
	return b.String()
}
