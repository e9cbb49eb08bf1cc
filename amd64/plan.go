package amd64

import (
	"fmt"

	"miniil/funclet"
	"miniil/il"
	"miniil/ir"
)

// The peephole plan.
//
// Before values get homes, Allocate decides which of them need no
// location at all: a temporary defined once by a constant that fits an
// immediate is read as one; a compare whose only use is its block's
// branch is emitted with the branch; a result used once, by the very next
// instruction, stays in RAX (or is computed straight into the argument
// register of the call that takes it). Emission then follows the plan: it
// reads it and never changes it. What emission tracks as it goes (what
// RAX holds now, which argument registers still hold their arguments) is
// its own state, in gen.

// plan is what Allocate decides about a laid-out function before it gets
// register homes. Emission only reads it.
type plan struct {
	// uses is the number of uses of each value.
	uses []int
	// consts holds the value of temporaries defined once, by a constant
	// that fits an immediate (null among them); uses read the immediate
	// instead of the slot.
	consts valueInts
	// wide holds the value of the other integer temporaries defined once
	// by a constant (I64 ones that fit no immediate): only division reads
	// them as constants (divisor).
	wide valueInts
	// slotless marks the constants no instruction reads from a slot
	// (slotReads) or, for a wide one, at all but as a divisor: their
	// definitions emit nothing.
	slotless ir.ValueSet
	// deadLocals marks the locals no instruction reads or writes (a local
	// kept in a frame block, or one the program never uses): the prolog
	// does not zero them, and they need no location.
	deadLocals ir.ValueSet
	// blocks is each block's plan, by block ID.
	blocks []blockPlan
	// polls tells, by block ID, the blocks whose terminator polls first
	// (pollBlocks).
	polls []bool
	// deferArgs moves the prolog's stores of register arguments into the
	// entry block's successors that need them (see canDeferArgStores).
	deferArgs bool
}

// blockPlan is the plan of one block.
type blockPlan struct {
	// fused is the OpCmp whose result only feeds the block's OpIf: the
	// terminator emits it as a compare-and-branch.
	fused *ir.Instr
	// elide lists temporaries whose only use is the next instruction,
	// which takes them from RAX: their slot is never written (a few per
	// block: a list, searched).
	elide elided
	// into maps elided integer results that the next instruction (a
	// call) passes in a register to that register: they may be computed
	// there directly (binary does when the operands allow it).
	into map[ir.Value]Reg
	// lenOf is, for an array length that only feeds the fused compare
	// right after it (a bounds check), the array: the compare reads the
	// length from the array's header itself (CMP idx, [arr+ArrLen]), and
	// the length needs no location. ir.NoValue: none.
	lenOf struct{ length, array ir.Value }
}

// Alloc is the plan for emitting a laid-out function: the peephole plan
// (constants read as immediates, compares fused into their branch,
// results left in RAX or computed into a call's argument register) and
// the register homes it makes possible.
type Alloc struct {
	// Homes is each virtual register's machine register for its whole
	// life (NoReg: a frame slot, or no location for a transient value).
	Homes []Reg
	// Transient marks the values that need neither a register nor a slot.
	Transient ir.ValueSet
	liveIn    []valueList // values live into each main body block, by block ID
	plan      *plan
	gc        *gcPlan
}

// Allocate plans the emission of f, laid out by lay, and gives its values
// register homes (regalloc.go).
func Allocate(f *ir.Func, lay *funclet.Layout) (alloc *Alloc, err error) {
	defer func() {
		if r := recover(); r != nil {
			alloc, err = nil, fmt.Errorf("%s: register allocation failed: %v", f.Method.FullName(), r)
		}
	}()
	p := newPlan(f, lay)
	transient := p.transient(f)
	homes, live := allocate(f, lay, transient)
	liveIn := ir.Make[valueList](f.Cache, f.BlockIDs())
	for i, b := range lay.Funcs[0].Blocks {
		liveIn[b.ID] = live[i].in
	}
	gc := planGC(f, lay, p, live, homes, transient)
	alloc = ir.New[Alloc](f.Cache)
	*alloc = Alloc{Homes: homes, Transient: transient, liveIn: liveIn, plan: p, gc: gc}
	return alloc, nil
}

// newPlan plans the emission of f, laid out by lay.
func newPlan(f *ir.Func, lay *funclet.Layout) *plan {
	p := ir.Keep[plan](f.Cache) // one a compile: kept in the cache
	*p = plan{}
	p.analyze(f)
	p.polls = pollBlocks(f)
	p.blocks = ir.Make[blockPlan](f.Cache, len(f.Blocks))
	for _, b := range f.Blocks {
		p.blocks[b.ID] = p.planBlock(f, b)
	}
	// A funclet may read any slot at any time: methods with handlers
	// store their arguments in the prolog.
	p.deferArgs = len(lay.Funcs) == 1 && p.canDeferArgStores(f)
	return p
}

// analyze counts uses and finds the single-definition constants and the
// ones that need no slot.
func (p *plan) analyze(f *ir.Func) {
	p.uses = ir.Make[int](f.Cache, len(f.Kinds))
	defs := ir.Make[int](f.Cache, len(f.Kinds))
	p.consts = newValueInts(f.Cache, len(f.Kinds))
	for _, b := range f.Blocks {
		for in := range b.Each {
			for _, v := range in.Args {
				p.uses[v]++
			}
			for _, d := range []ir.Value{in.Dst, in.Dst2} {
				if d != ir.NoValue {
					defs[d]++
				}
			}
			if in.Op == ir.OpConst && in.Kind == ir.I64 && in.Aux.Int != int64(int32(in.Aux.Int)) {
				if p.wide.val == nil {
					p.wide = newValueInts(f.Cache, len(f.Kinds))
				}
				p.wide.set(in.Dst, in.Aux.Int)
			} else if in.Op == ir.OpConst && (in.Kind == ir.I32 || in.Kind == ir.I64 || in.Kind == ir.Ref && in.Aux.Int == 0) {
				p.consts.set(in.Dst, in.Aux.Int)
			}
		}
	}
	for _, m := range []valueInts{p.consts, p.wide} {
		m.each(func(v ir.Value, _ int64) {
			if defs[v] != 1 || int(v) < f.NumArgs+f.NumLocals {
				m.remove(v)
			}
		})
	}
	p.deadLocals = ir.MakeValueSet(f.Cache, len(f.Kinds))
	for v := f.NumArgs; v < f.NumArgs+f.NumLocals; v++ {
		if p.uses[v] == 0 && defs[v] == 0 {
			p.deadLocals.Add(ir.Value(v))
		}
	}
	// A constant needs its slot only if some use reads the slot directly,
	// a wide one if some use reads it at all, but as a divisor (which
	// divide reads as a constant, never from its slot).
	p.slotless = ir.MakeValueSet(f.Cache, len(f.Kinds))
	p.consts.each(func(v ir.Value, _ int64) { p.slotless.Add(v) })
	p.wide.each(func(v ir.Value, _ int64) { p.slotless.Add(v) })
	for _, b := range f.Blocks {
		for in := range b.Each {
			for k, v := range in.Args {
				if !p.slotless.Has(v) || k == 1 && intDivision(in) {
					continue
				}
				if _, wide := p.wide.get(v); wide || readsSlot(in, k) {
					p.slotless.Remove(v)
				}
			}
		}
	}
}

// transient returns the values that never need a location of their own:
// constants read as immediates, compares fused into their branch, and
// results that stay in RAX (or an argument register) for the next
// instruction.
func (p *plan) transient(f *ir.Func) ir.ValueSet {
	t := ir.MakeValueSet(f.Cache, len(f.Kinds))
	copy(t, p.slotless)
	t.Or(p.deadLocals)
	for _, bp := range p.blocks {
		if bp.fused != nil {
			t.Add(bp.fused.Dst)
		}
		for _, v := range bp.elide {
			t.Add(v)
		}
		if bp.lenOf.length != ir.NoValue {
			t.Add(bp.lenOf.length)
		}
	}
	return t
}

// operands is a set of operand positions: bit k stands for Args[k].
type operands uint8

// Operand sets.
const (
	first  operands = 1 << 0
	second operands = 1 << 1
	both            = first | second
)

// slotRead is the set of operands an operation's lowering reads straight
// from their home or frame slot (argSlot, argBits) rather than through
// load, src or reg, which read a single-definition constant as an
// immediate: for integer and reference operations and for float ones (by
// the instruction's Kind).
type slotRead struct{ ints, floats operands }

// slotReads is the slotRead of every operation whose lowering reads an
// operand from its slot. The plan keeps the slot of a constant that such
// an operand may be (analyze), and the lowerings assert, on every such
// read, that the table declares it (argSlot): an undeclared read fails
// the compilation even when the operand is no constant, so the table
// cannot silently fall behind the lowerings. TestSlotReads checks the
// other direction: each declared read is made by some shape of the
// operation.
var slotReads = [ir.NumOps]slotRead{
	ir.OpIf:     {first, 0}, // CMP slot, 0
	ir.OpSwitch: {first, 0},
	ir.OpBox:    {first, 0},     // the raw bits (a box is a reference)
	ir.OpConv:   {first, first}, // any source, into any kind, from memory

	ir.OpDiv:    {second, second}, // IDIV slot (a variable divisor); DIVSD slot
	ir.OpDivUn:  {second, 0},
	ir.OpRem:    {second, both}, // float32: CVTSS2SD slot for both
	ir.OpRemUn:  {second, 0},
	ir.OpAddOvf: {second, 0},
	ir.OpSubOvf: {second, 0},
	ir.OpMulOvf: {second, 0},

	ir.OpAdd: {0, both}, // ADDSD slot, with the operands swapped if that suits the home
	ir.OpMul: {0, both},
	ir.OpSub: {0, second},
	ir.OpCmp: {0, both}, // UCOMISD slot, either way round
	ir.OpNeg: {0, first},
}

// intDivision reports whether in is an int32 or int64 division or
// remainder, which reads a constant divisor as a constant (divisor).
func intDivision(in *ir.Instr) bool {
	switch in.Op {
	case ir.OpDiv, ir.OpDivUn, ir.OpRem, ir.OpRemUn:
		return in.Kind == ir.I32 || in.Kind == ir.I64
	}
	return false
}

// readsSlot reports whether the lowering of in reads operand k from its
// slot directly (see slotReads).
func readsSlot(in *ir.Instr, k int) bool {
	r := slotReads[in.Op]
	set := r.ints
	if in.Kind.IsFloat() {
		set = r.floats
	}
	return k < 8 && set&(1<<k) != 0
}

// fusable returns the block's last instruction if it is an integer or
// reference comparison whose only use is the block's OpIf.
func (p *plan) fusable(b *ir.Block) *ir.Instr {
	if b.Term.Op != ir.OpIf || len(b.Instrs) == 0 {
		return nil
	}
	last := b.Instrs[len(b.Instrs)-1]
	if last.Op != ir.OpCmp || last.Dst != b.Term.Args[0] || p.uses[last.Dst] != 1 || last.Kind.IsFloat() {
		return nil
	}
	return last
}

// Producers whose last action is storing their (integer or reference)
// result from RAX, and consumers that read an operand through load.
var (
	raxProducers = [ir.NumOps]bool{
		ir.OpAdd: true, ir.OpSub: true, ir.OpMul: true, ir.OpAnd: true, ir.OpOr: true, ir.OpXor: true,
		ir.OpShl: true, ir.OpShr: true, ir.OpShrUn: true, ir.OpNeg: true, ir.OpNot: true, ir.OpDiv: true, ir.OpDivUn: true,
		ir.OpCmp: true, ir.OpLdField: true, ir.OpLdStatic: true, ir.OpArrLen: true, ir.OpCall: true, ir.OpCallVirt: true,
		ir.OpCopy: true, ir.OpAlloc: true, ir.OpIsInst: true, ir.OpNewArr: true, ir.OpStr: true,
	}
	commutative = [ir.NumOps]bool{ir.OpAdd: true, ir.OpMul: true, ir.OpAnd: true, ir.OpOr: true, ir.OpXor: true}
)

// elided is a block's list of elided results.
type elided []ir.Value

// has reports whether v is in the list.
func (e elided) has(v ir.Value) bool {
	for _, x := range e {
		if x == v {
			return true
		}
	}
	return false
}

// setElide records that d needs no slot (the list grows in c).
func (bp *blockPlan) setElide(c *ir.Cache, d ir.Value) {
	if !bp.elide.has(d) {
		bp.elide = ir.Append(c, bp.elide, d)
	}
}

// planBlock plans block b: its fused compare, and which results need no
// slot (a temporary used once, by the next instruction, which reads it
// through load while RAX still holds it).
func (p *plan) planBlock(f *ir.Func, b *ir.Block) blockPlan {
	bp := blockPlan{fused: p.fusable(b)} // elide and into are made on first use: most blocks need neither
	bp.lenOf.length, bp.lenOf.array = ir.NoValue, ir.NoValue
	for i, in := range b.Instrs {
		d := in.Dst
		if d == ir.NoValue || in.Dst2 != ir.NoValue || !raxProducers[in.Op] || int(d) < f.NumArgs+f.NumLocals ||
			p.uses[d] != 1 || f.Kinds[d].IsFloat() || in.Kind.IsFloat() || in.Op == ir.OpOr && in.Kind == 0 {
			continue
		}
		if in == bp.fused {
			continue
		}
		var next *ir.Instr
		if i+1 < len(b.Instrs) {
			next = b.Instrs[i+1]
		} else {
			next = b.Term
		}
		if next == bp.fused {
			if next.Args[0] == d && next.Args[1] != d {
				bp.setElide(f.Cache, d)
			}
			continue
		}
		if consumes(f, next, d) {
			bp.setElide(f.Cache, d)
			if intOps[in.Op][0] != 0 && (next.Op == ir.OpCall || next.Op == ir.OpCallVirt) {
				locs, _ := classify(f.Cache, kinds(f, next.Args))
				for k, a := range next.Args {
					if a == d {
						if bp.into == nil {
							bp.into = map[ir.Value]Reg{}
						}
						bp.into[d] = locs[k].reg
					}
				}
			}
		}
	}
	// Not before a poll: the array would have to be reported live there.
	if c := bp.fused; c != nil && len(b.Instrs) >= 2 && !p.polls[b.ID] {
		l := b.Instrs[len(b.Instrs)-2]
		if l.Op == ir.OpArrLen && c.Args[1] == l.Dst && c.Args[0] != l.Dst && p.uses[l.Dst] == 1 &&
			!bp.elide.has(l.Dst) && !bp.elide.has(l.Args[0]) {
			bp.lenOf.length, bp.lenOf.array = l.Dst, l.Args[0]
		}
	}
	return bp
}

// consumes reports whether instruction in reads d (used once) through
// load into a register before anything else writes RAX.
func consumes(f *ir.Func, in *ir.Instr, d ir.Value) bool {
	args := in.Args
	switch in.Op {
	case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpShl, ir.OpShr, ir.OpShrUn:
		if in.Kind.IsFloat() {
			return false
		}
		return args[0] == d || commutative[in.Op] && args[1] == d
	case ir.OpCmp:
		return !in.Kind.IsFloat() && args[0] == d
	case ir.OpNeg, ir.OpNot, ir.OpCopy:
		return !in.Kind.IsFloat() && args[0] == d
	case ir.OpRet:
		return len(args) == 1 && args[0] == d
	case ir.OpLdField, ir.OpArrLen, ir.OpThrow:
		return args[0] == d
	case ir.OpStField:
		return args[1] == d
	case ir.OpCall, ir.OpCallVirt:
		if k := in.Aux.Method().BuiltinKind; k == il.ObjectCtor || inlineExcCtor(k) {
			return false
		}
		// Stack arguments are moved through RAX first: only calls without
		// them may take d from RAX.
		locs, ns := classify(f.Cache, kinds(f, args))
		if ns > 0 {
			return false
		}
		for k, a := range args {
			if a == d {
				return !locs[k].reg.IsXMM()
			}
		}
	}
	return false
}

// canDeferArgStores reports whether the prolog may leave register
// arguments unstored: the entry block is reached by no branch, only reads
// its arguments from their registers, ends in a plain branch or a
// return, and each of its successors is reached from it alone (so each
// can store the arguments itself, see storeArgs). A leaf of one block
// (x + 12345) then stores none. Methods with handlers never do this
// (newPlan).
func (p *plan) canDeferArgStores(f *ir.Func) bool {
	b := f.Blocks[0]
	if len(b.Preds) > 0 || b.Term.Op != ir.OpIf && b.Term.Op != ir.OpJump && b.Term.Op != ir.OpRet {
		return false
	}
	for _, in := range b.Instrs {
		if !keepsArgRegs(in) {
			return false
		}
		for _, a := range in.Args[min(1, len(in.Args)):] {
			if int(a) < f.NumArgs {
				return false // a second operand is read from its slot
			}
		}
	}
	if b.Term.Op == ir.OpIf && p.fusable(b) == nil && int(b.Term.Args[0]) < f.NumArgs {
		return false // the branch tests the argument's slot
	}
	for _, s := range b.Succs {
		if len(s.Preds) != 1 {
			return false
		}
	}
	return true
}

// keepsArgRegs reports whether instruction in leaves the argument
// registers alone and stores to no argument (it only uses RAX).
func keepsArgRegs(in *ir.Instr) bool {
	switch in.Op {
	case ir.OpConst, ir.OpStr, ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpNeg, ir.OpNot:
	case ir.OpCmp:
		if in.Kind.IsFloat() {
			return false
		}
	default:
		return false
	}
	return !in.Kind.IsFloat()
}

// kinds returns the kinds of values vs of f.
func kinds(f *ir.Func, vs []ir.Value) []ir.Kind {
	ks := ir.Make[ir.Kind](f.Cache, len(vs))
	for i, v := range vs {
		ks[i] = f.Kinds[v]
	}
	return ks
}
