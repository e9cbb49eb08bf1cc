package amd64

import (
	"fmt"
	"slices"

	"miniil/funclet"
	"miniil/ir"
)

// The register allocation's contract, checked apart from the allocator:
// CheckAlloc computes liveness itself and knows the registers from the
// code generator's conventions, not from regalloc.go's lists, so that a
// bug in the allocator's intervals or tables cannot hide itself.

var (
	// checkedIntHomes and checkedFloatHomes are the registers a home may
	// be: never a scratch register of the code generator (RAX, RCX, RDX,
	// XMM0, XMM1), an argument register of the managed convention but R8
	// and R9 (for values no call comes near), RSP, RBP, or R15 (the
	// context).
	checkedIntHomes   = []Reg{RSI, RDI, R8, R9, R10, R11, RBX, R12, R13, R14}
	checkedFloatHomes = []Reg{X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15}
	// checkedCalleeSaved are the home registers a managed call preserves.
	checkedCalleeSaved = []Reg{RBX, R12, R13, R14}
)

// notAHome says why r, which is not in checkedIntHomes or
// checkedFloatHomes, may not be a home.
func notAHome(r Reg) string {
	switch r {
	case RAX, RCX, RDX, X0, X1:
		return "a scratch register of the code generator"
	case RSP, RBP:
		return "the stack or frame pointer"
	case R15:
		return "the context register"
	}
	return "an unknown register"
}

// writesRDIRSI reports whether the code of in may write RDI or RSI: calls
// (arguments), calls of finallys (the establisher frame), helper exits
// with arguments (allocations, boxes, type tests, store checks, throws)
// and the write barriers of reference stores and value copies.
func writesRDIRSI(in *ir.Instr) bool {
	switch in.Op {
	case ir.OpCall, ir.OpCallVirt, ir.OpCallFinally, ir.OpAlloc, ir.OpNewArr, ir.OpBox, ir.OpIsInst, ir.OpTypeIs,
		ir.OpCanStore, ir.OpThrow, ir.OpThrowHelper, ir.OpRethrow, ir.OpCopyBlk, ir.OpCatchArg:
		return true
	case ir.OpStField, ir.OpStElem, ir.OpStore:
		return in.Kind == ir.Ref
	}
	return false
}

// callsManaged reports whether in calls managed code, which may change
// every caller-saved register. A base library method runs in an exit,
// which preserves every register (also when it calls managed code back:
// the runtime restores the registers of the exit).
func callsManaged(in *ir.Instr) bool {
	return in.Op == ir.OpCallVirt || in.Op == ir.OpCall && !in.Aux.Method().Builtin
}

// CheckAlloc verifies the register allocation of f, laid out as lay, and
// returns the first violation it finds:
//
//   - there is a home for every value, and a home is a register of the
//     value's class that the code generator gives homes: R10, R11, RBX,
//     R12-R14 for integers and references, XMM8-15 for floats (no
//     scratch, argument, stack, frame or context register); transient
//     values have none;
//   - values a funclet mentions have none (funclets reach the method's
//     values through the frame), nor have values live into a catch's
//     continuation in the main body (resuming restores only RSP and RBP);
//   - no two values live at once share a home: an instruction's result
//     (even if never read) is in a home no other value live after the
//     instruction holds, its two results are in different homes, and
//     the arguments and locals, which the prolog writes, have homes
//     different from each other and from the values live into the entry;
//   - a value live across a managed call (live after it and not its
//     result) is in a callee-saved register (RBX, R12-R14) or the frame,
//     so never a float, and one live across the callfinally of a
//     finally holding a try is in the frame (a catch in the finally may
//     resume with the registers of the frames it unwound);
//   - a value in R8, R9 or XMM2-7 is live across no call of any kind and
//     read by no call nor by the instruction before one (the code
//     generator loads arguments there, and computes the instruction
//     before a call into them), and none is a home in a method whose
//     arguments arrive there; a value in RDI or RSI the same for every instruction whose
//     code writes them (calls, allocations, boxes, type tests, store
//     checks, throws, reference stores and value copies, which have write
//     barriers), and it does not live in the entry block nor in a block
//     only the entry block reaches (whose code may still read the
//     arguments from their registers).
//
// Liveness is the usual backward dataflow over the main body's blocks,
// per value.
func CheckAlloc(f *ir.Func, lay *funclet.Layout, alloc *Alloc) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: register homes: %s", f.Method.FullName(), fmt.Sprintf(format, args...))
	}
	if alloc == nil || lay == nil || len(lay.Funcs) == 0 {
		return bad("no allocation or no layout")
	}
	c := &allocChecker{f: f, homes: alloc.Homes, transient: alloc.Transient, resumable: resumableFinallys(f)}
	if len(c.homes) != len(f.Kinds) {
		return bad("%d homes for %d values", len(c.homes), len(f.Kinds))
	}
	nInt, nFloat := 0, 0
	for _, k := range f.Kinds[:f.NumArgs] {
		if !k.IsFloat() {
			nInt++
		} else {
			nFloat++
		}
	}
	for v, r := range c.homes {
		v := ir.Value(v)
		switch float := f.Kinds[v].IsFloat(); {
		case r == R8 && nInt >= 5, r == R9 && nInt >= 6, r >= X2 && r <= X7 && int(r-X0) < nFloat:
			return bad("%s is in %s, where an argument of the method arrives", c.name(v), r)
		case r == NoReg:
		case c.transient.Has(v):
			return bad("%s needs no location but has one", c.name(v))
		case float && slices.Contains(checkedFloatHomes, r), !float && slices.Contains(checkedIntHomes, r):
		case float && slices.Contains(checkedIntHomes, r), !float && slices.Contains(checkedFloatHomes, r):
			return bad("%s is in a register of the other class", c.name(v))
		default:
			return bad("%s is in %s", c.name(v), notAHome(r))
		}
	}
	for _, v := range f.Untracked {
		if c.homes[v] != NoReg {
			return bad("%s is untracked (reported in its slot everywhere) but has a register", c.name(v))
		}
	}
	for _, fn := range lay.Funcs[1:] {
		for _, b := range fn.Blocks {
			for _, in := range b.Code() {
				for _, v := range append([]ir.Value{in.Dst, in.Dst2}, in.Args...) {
					if v != ir.NoValue && c.homes[v] != NoReg {
						return bad("%s is mentioned by the %s funclet of clause %d (b%d: %s)",
							c.name(v), fn.Kind, fn.Clause, b.ID, f.Format(in, b))
					}
				}
			}
		}
	}
	c.main = lay.Funcs[0].Blocks
	c.liveness()
	for _, fn := range lay.Funcs[1:] {
		for _, b := range fn.Blocks {
			if b.Term.Op != ir.OpCatchRet {
				continue
			}
			if k, ok := c.index[b.Succs[0]]; ok {
				for _, v := range c.liveIn[k] {
					if c.homes[v] != NoReg {
						return bad("%s is live into b%d, where the catch ending in b%d resumes", c.name(v), b.Succs[0].ID, b.ID)
					}
				}
			}
		}
	}
	if err := c.prolog(); err != nil {
		return bad("%v", err)
	}
	for k, b := range c.main {
		if err := c.block(k, b); err != nil {
			return bad("%v", err)
		}
	}
	return nil
}

// allocChecker holds CheckAlloc's state.
type allocChecker struct {
	resumable map[int]bool // clauses whose finally holds a try (resumableFinallys)
	f         *ir.Func
	homes     []Reg
	transient ir.ValueSet
	main      []*ir.Block       // the main body's blocks
	index     map[*ir.Block]int // position of each main body block
	liveIn    [][]ir.Value      // values live into each main body block
	liveOut   [][]ir.Value      // values live out of each main body block
	live      ir.ValueSet       // values live at the current point
	count     [X15 + 1]int      // number of values in live with each home
}

// name describes value v and its home for messages.
func (c *allocChecker) name(v ir.Value) string {
	return fmt.Sprintf("%s:%s (in %s)", v, c.f.Kinds[v], c.homes[v])
}

// liveness computes the values live into and out of each main body
// block, value by value: a value is live into a block that reads it
// before writing it, live out of every predecessor of a block it is live
// into, and live into a block it is live out of unless the block writes
// it. Edges to blocks outside the main body (there are none) are
// ignored; the predecessors come from the successor lists.
func (c *allocChecker) liveness() {
	f, n := c.f, len(c.main)
	c.index = make(map[*ir.Block]int, n)
	for k, b := range c.main {
		c.index[b] = k
	}
	preds := make([][]int, n)
	for k, b := range c.main {
		for _, s := range b.Succs {
			if j, ok := c.index[s]; ok {
				preds[j] = append(preds[j], k)
			}
		}
	}
	// Per value: the blocks reading it before writing it, and the blocks
	// writing it.
	nv := len(f.Kinds)
	exposed := make([][]int, nv)
	writes := make([]map[int]bool, nv)
	written := ir.NewValueSet(nv) // written so far in the current block
	for k, b := range c.main {
		var inBlock []ir.Value
		for _, in := range b.Code() {
			for _, a := range in.Args {
				if !written.Has(a) && (len(exposed[a]) == 0 || exposed[a][len(exposed[a])-1] != k) {
					exposed[a] = append(exposed[a], k)
				}
			}
			for _, d := range []ir.Value{in.Dst, in.Dst2} {
				if d != ir.NoValue {
					if writes[d] == nil {
						writes[d] = map[int]bool{}
					}
					writes[d][k] = true
					written.Add(d)
					inBlock = append(inBlock, d)
				}
			}
		}
		for _, d := range inBlock {
			written.Remove(d)
		}
	}
	c.liveIn, c.liveOut = make([][]ir.Value, n), make([][]ir.Value, n)
	in, out := make([]int32, n), make([]int32, n) // value+1 marked live in/out of a block
	var work []int
	for v := range nv {
		mark := int32(v + 1)
		work = work[:0]
		for _, k := range exposed[v] {
			in[k] = mark
			work = append(work, k)
		}
		for len(work) > 0 {
			k := work[len(work)-1]
			work = work[:len(work)-1]
			c.liveIn[k] = append(c.liveIn[k], ir.Value(v))
			for _, p := range preds[k] {
				if out[p] != mark {
					out[p] = mark
					c.liveOut[p] = append(c.liveOut[p], ir.Value(v))
				}
				if in[p] != mark && !writes[v][p] {
					in[p] = mark
					work = append(work, p)
				}
			}
		}
	}
	c.live = ir.NewValueSet(nv)
}

// enter and leave add a value to and remove it from the live set.
func (c *allocChecker) enter(v ir.Value) {
	if !c.live.Has(v) {
		c.live.Add(v)
		if h := c.homes[v]; h != NoReg {
			c.count[h]++
		}
	}
}

func (c *allocChecker) leave(v ir.Value) {
	if c.live.Has(v) {
		c.live.Remove(v)
		if h := c.homes[v]; h != NoReg {
			c.count[h]--
		}
	}
}

// clearLive empties the live set.
func (c *allocChecker) clearLive() {
	c.live.Each(c.leave)
}

// holder returns a live value other than except whose home is r.
func (c *allocChecker) holder(r Reg, except ir.Value) ir.Value {
	found := ir.NoValue
	c.live.Each(func(v ir.Value) {
		if found == ir.NoValue && v != except && c.homes[v] == r {
			found = v
		}
	})
	return found
}

// prolog checks the homes of the arguments and locals, all written at
// the start (the prolog stores the arguments and zeroes the locals),
// against each other and against the values live into the entry block.
func (c *allocChecker) prolog() error {
	f := c.f
	defer c.clearLive()
	if k, ok := c.index[f.Blocks[0]]; ok {
		for _, v := range c.liveIn[k] {
			c.enter(v)
		}
	}
	for v := range ir.Value(f.NumArgs + f.NumLocals) {
		c.enter(v)
	}
	for v := range ir.Value(f.NumArgs + f.NumLocals) {
		if h := c.homes[v]; h != NoReg && c.count[h] > 1 {
			return fmt.Errorf("the prolog writes %s, and %s is live there", c.name(v), c.name(c.holder(h, v)))
		}
	}
	return nil
}

// block walks main body block k backward from its live-out set and
// checks each instruction.
func (c *allocChecker) block(k int, b *ir.Block) error {
	defer c.clearLive()
	if entry := c.f.Blocks[0]; b == entry || len(b.Preds) == 1 && b.Preds[0] == entry && len(entry.Preds) == 0 {
		vs := append(append([]ir.Value{}, c.liveIn[k]...), c.liveOut[k]...)
		for _, in := range b.Code() {
			vs = append(append(vs, in.Args...), in.Dst, in.Dst2)
		}
		for _, v := range vs {
			if v != ir.NoValue && (c.homes[v] == RDI || c.homes[v] == RSI) {
				return fmt.Errorf("b%d: %s lives in a block where arguments may still be read from their registers (the entry block or one only it reaches)", b.ID, c.name(v))
			}
		}
	}
	for _, v := range c.liveOut[k] {
		c.enter(v)
	}
	code := b.Code()
	for i := len(code) - 1; i >= 0; i-- {
		in := code[i]
		where := func() string { return fmt.Sprintf("b%d: %s", b.ID, c.f.Format(in, b)) }
		defs := []ir.Value{in.Dst, in.Dst2}
		if d, d2 := in.Dst, in.Dst2; d != ir.NoValue && d2 != ir.NoValue && c.homes[d] != NoReg && c.homes[d] == c.homes[d2] {
			return fmt.Errorf("%s: both results in %s", where(), c.homes[d])
		}
		// c.live holds the values live after in.
		for _, d := range defs {
			if d == ir.NoValue || c.homes[d] == NoReg {
				continue
			}
			h := c.homes[d]
			others := c.count[h]
			if c.live.Has(d) {
				others--
			}
			if others > 0 {
				return fmt.Errorf("%s: writes %s over %s, which is live", where(), c.name(d), c.name(c.holder(h, d)))
			}
		}
		across := func(ok func(Reg) bool, what string) error {
			for r := range c.count {
				if c.count[r] == 0 || ok(Reg(r)) {
					continue
				}
				var v ir.Value = ir.NoValue
				c.live.Each(func(x ir.Value) {
					if v == ir.NoValue && c.homes[x] == Reg(r) && !slices.Contains(defs, x) {
						v = x
					}
				})
				if v != ir.NoValue {
					return fmt.Errorf("%s: %s is live across %s", where(), c.name(v), what)
				}
			}
			return nil
		}
		switch {
		case in.Op == ir.OpCallFinally && c.resumable[int(in.Aux.Int)]:
			if err := across(func(Reg) bool { return false }, "the call of a finally holding a try"); err != nil {
				return err
			}
		case in.Op == ir.OpCallFinally:
			if err := across(func(r Reg) bool { return slices.Contains(checkedCalleeSaved, r) }, "the call of a finally in a register it may change"); err != nil {
				return err
			}
		case callsManaged(in):
			if err := across(func(r Reg) bool { return slices.Contains(checkedCalleeSaved, r) }, "a managed call in a register it may change"); err != nil {
				return err
			}
		}
		isCall := func(x *ir.Instr) bool { return x.Op == ir.OpCall || x.Op == ir.OpCallVirt }
		if isCall(in) {
			if err := across(func(r Reg) bool { return r != R8 && r != R9 && !(r >= X2 && r <= X7) }, "a call, which may load an argument there"); err != nil {
				return err
			}
		}
		if isCall(in) || i+1 < len(code) && isCall(code[i+1]) {
			for _, a := range in.Args {
				if h := c.homes[a]; h == R8 || h == R9 || h >= X2 && h <= X7 {
					return fmt.Errorf("%s: reads %s, at or just before a call", where(), c.name(a))
				}
			}
		}
		if writesRDIRSI(in) {
			if err := across(func(r Reg) bool { return r != RDI && r != RSI }, "code that writes RDI or RSI"); err != nil {
				return err
			}
		}
		if writesRDIRSI(in) || i+1 < len(code) && writesRDIRSI(code[i+1]) {
			for _, a := range in.Args {
				if h := c.homes[a]; h == RDI || h == RSI {
					return fmt.Errorf("%s: reads %s, at or just before code that writes RDI or RSI", where(), c.name(a))
				}
			}
		}
		if k == 0 {
			for _, v := range append(append([]ir.Value{}, in.Args...), defs...) {
				if v != ir.NoValue && (c.homes[v] == RDI || c.homes[v] == RSI) {
					return fmt.Errorf("%s: %s is in the entry block, where arguments may still be in their registers", where(), c.name(v))
				}
			}
		}
		for _, d := range defs {
			if d != ir.NoValue {
				c.leave(d)
			}
		}
		for _, a := range in.Args {
			c.enter(a)
		}
	}
	return nil
}
