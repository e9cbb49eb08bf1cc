package amd64

import (
	"fmt"
	"math"
	"strings"

	"miniil/abi"
	"miniil/funclet"
	"miniil/il"
	"miniil/ir"
)

// Env supplies the runtime addresses and ids that generated code embeds.
type Env interface {
	// CellAddr is the address of the method's call cell, which holds the
	// method's current code address (its prestub until compiled).
	CellAddr(m *il.Method) uintptr
	// ClassMT is the method table of a class (for allocation).
	ClassMT(c *il.Class) uintptr
	// TypeMT is the method table of a type: a class, a boxed primitive or
	// an array type (for isinst, box, unbox and newarr).
	TypeMT(t *il.Type) uintptr
	// StaticAddr is the address of a static field's 8-byte slot.
	StaticAddr(f *il.Field) uintptr
	// StringAddr is the address of the interned string object for s.
	StringAddr(s string) uintptr
}

// Code is one compiled method: what the runtime installs (abi.Method,
// without its EH clauses, which ehclauses builds), and what dumps and the
// EH clause builder need to know about how it was laid out.
type Code struct {
	abi.Method
	BlockOffsets []int // native offset of each IR block (in layout order)
	FrameSize    int   // bytes below the saved RBP in the main body's frame
	PrologSize   int
	// Notes name what each call or exit calls (for dumps), by the offset
	// of its return address.
	Notes []Note
	// PSPOffset is the RSP-relative offset of the PSPSym slot, the same
	// in every frame of the method (meaningful when there are funclets).
	PSPOffset int
	Layout    *funclet.Layout
	// Homes is each virtual register's machine register for its whole
	// life (NoReg: a frame slot, or no location for an immediate).
	Homes []Reg
	// Saves lists the callee-saved registers the prolog stores (and every
	// return restores), with their RBP-relative slots. A method with
	// exception handlers saves them all: resuming after a catch restores
	// only RSP and RBP, so its epilog is what gives its caller back the
	// registers of the frames the exception unwound.
	Saves []Save
}

// Note names the target of the call or exit whose return address is at
// Offset: "call Foo::Bar", "helper NewArr", "poll".
type Note struct {
	Offset int
	Text   string
}

// Save is a callee-saved register and its frame slot (an RBP offset).
type Save struct {
	Reg    Reg
	Offset int
}

// HomeList lists the values that live in registers, as "v0=RBX v3=X8".
func (c *Code) HomeList() string {
	var b strings.Builder
	for v, r := range c.Homes {
		if r != NoReg {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "v%d=%s", v, strings.ToLower(r.String()))
		}
	}
	return b.String()
}

// Argument registers of the managed calling convention (SysV order).
var (
	intArgRegs   = []Reg{RDI, RSI, RDX, RCX, R8, R9}
	floatArgRegs = []Reg{X0, X1, X2, X3, X4, X5, X6, X7}
)

// argLoc is where one argument travels: a register, or a stack slot index
// (8 bytes each, above the return address).
type argLoc struct {
	reg   Reg
	stack int // -1 when in a register
}

// classify assigns argument locations: floats take the next XMM register,
// everything else the next integer register, the rest go on the stack in
// order.
func classify(kinds []ir.Kind) ([]argLoc, int) {
	locs := make([]argLoc, len(kinds))
	ni, nf, ns := 0, 0, 0
	for i, k := range kinds {
		switch {
		case k.IsFloat() && nf < len(floatArgRegs):
			locs[i] = argLoc{reg: floatArgRegs[nf], stack: -1}
			nf++
		case !k.IsFloat() && ni < len(intArgRegs):
			locs[i] = argLoc{reg: intArgRegs[ni], stack: -1}
			ni++
		default:
			locs[i] = argLoc{reg: NoReg, stack: ns}
			ns++
		}
	}
	return locs, ns
}

type gen struct {
	a      *Assembler
	f      *ir.Func
	env    Env
	blocks []Label
	marks  []MarkID
	markIL []int
	frame  int
	// Funclets.
	lay           *funclet.Layout
	cur           *funclet.Funclet // the funclet being emitted
	funcletLabels []Label          // start of each funclet (its prolog)
	funcletStart  map[int]bool     // IDs of blocks that start a funclet
	// cold lists the out-of-line calls (polls, stack overflow), placed
	// after the last funclet.
	cold      []coldCall
	fsize     int      // frame size of every funclet
	pspOff    int      // RSP-relative offset of the PSPSym
	cellMarks []MarkID // marks just after each CALL [RIP+disp32] to a cell
	// noteMarks and notes name what each call or exit calls, for dumps.
	noteMarks []MarkID
	notes     []string
	cells     []uintptr

	// consts holds the value of temporaries defined once, by a constant
	// that fits an immediate; uses read the immediate instead of the slot.
	consts map[ir.Value]int64
	uses   []int // number of uses of each register
	// hold is the register whose value the previous IR instruction left
	// in RAX (NoValue if none); avail is hold as seen by the current
	// instruction until its first load into RAX.
	hold, avail ir.Value
	// fused is the OpCmp whose result only feeds the block's OpIf: it is
	// emitted as compare-and-branch by the terminator.
	fused *ir.Instr
	// deferArgs moves the prolog's stores of register arguments into the
	// entry block's successors that need them (see canDeferArgStores).
	deferArgs bool
	// argRegs maps arguments to the registers that still hold them, from
	// the prolog until the entry block first clobbers an argument register.
	argRegs map[ir.Value]Reg
	// slotless marks constants no instruction reads from a slot: their
	// definitions emit nothing.
	slotless map[ir.Value]bool
	// elide marks temporaries whose only use is the next instruction,
	// which takes them from RAX: their slot is never written.
	elide map[ir.Value]bool
	// into maps elided integer results that the next instruction (a
	// call) passes in a register to that register: they are computed
	// there directly.
	into map[ir.Value]Reg
	// computed is the result the previous instruction left in its into
	// register.
	computed ir.Value
	// homes is each value's register home (NoReg: its frame slot), see
	// regalloc.go; slots is each value's frame slot (an RBP offset).
	homes  []Reg
	slots  []int
	saves  []Save
	liveIn map[*ir.Block]valueList // values live into each main body block
	// plans holds each block's fused compare and elided results (by
	// block ID), decided once before allocation.
	plans []blockPlan
	// funcletByKey finds a funclet's label (funcletOf), made on first use.
	funcletByKey map[funcletKey]Label
}

// blockPlan is what findElidable and fusable decided for one block.
type blockPlan struct {
	fused *ir.Instr
	elide map[ir.Value]bool
	into  map[ir.Value]Reg
}

// Generate compiles an IR function to machine code. Every virtual register
// lives in its register home (see regalloc.go) or in a frame slot below
// RBP; instructions work in the result's home or in scratch registers
// (RAX, RCX, RDX, XMM0, XMM1).
//
// Methods with exception handlers are laid out by package funclet: the
// main body, then one funclet per handler. Every frame of such a method
// has the PSPSym slot at RSP+PSPOffset holding the main body's InitialSP;
// a funclet is called with RDI = the establisher frame (the RSP of any
// frame of the same method invocation) and, for catch and filter funclets,
// RSI = the exception object. Its prolog copies the PSPSym and points RBP
// at the main body's frame, so the method's registers live at the same RBP
// offsets in every funclet. A catch funclet returns the continuation
// address in RAX, a filter its verdict.
func Generate(f *ir.Func, env Env, a *Assembler) (*Code, error) {
	lay, err := funclet.Build(f)
	if err != nil {
		return nil, err
	}
	alloc, err := Allocate(f, lay)
	if err != nil {
		return nil, err
	}
	return Emit(f, lay, alloc, env, a)
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
	Transient map[ir.Value]bool
	liveIn    map[*ir.Block]valueList
	consts    map[ir.Value]int64
	uses      []int
	slotless  map[ir.Value]bool
	plans     []blockPlan
}

// Allocate plans the emission of f, laid out by lay, and gives its values
// register homes (regalloc.go).
func Allocate(f *ir.Func, lay *funclet.Layout) (alloc *Alloc, err error) {
	defer func() {
		if r := recover(); r != nil {
			alloc, err = nil, fmt.Errorf("%s: register allocation failed: %v", f.Method.FullName(), r)
		}
	}()
	g := &gen{f: f, lay: lay, hold: ir.NoValue, avail: ir.NoValue, computed: ir.NoValue}
	g.analyze()
	transient := g.transient()
	homes, liveIn := allocate(f, lay, transient)
	return &Alloc{Homes: homes, Transient: transient, liveIn: liveIn,
		consts: g.consts, uses: g.uses, slotless: g.slotless, plans: g.plans}, nil
}

// Emit generates the machine code of f, laid out by lay, with the plan
// and homes of alloc.
func Emit(f *ir.Func, lay *funclet.Layout, alloc *Alloc, env Env, a *Assembler) (code *Code, err error) {
	a.Reset()
	g := &gen{a: a, f: f, env: env, lay: lay, hold: ir.NoValue, avail: ir.NoValue, computed: ir.NoValue,
		homes: alloc.Homes, liveIn: alloc.liveIn, consts: alloc.consts, uses: alloc.uses, slotless: alloc.slotless, plans: alloc.plans}
	transient := alloc.Transient
	defer func() {
		if r := recover(); r != nil {
			code, err = nil, fmt.Errorf("%s: code generation failed: %v", f.Method.FullName(), r)
		}
	}()
	g.blocks = make([]Label, len(f.Blocks))
	for i := range f.Blocks {
		g.blocks[i] = a.NewLabel()
	}
	out := 0
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == ir.OpCall || in.Op == ir.OpCallVirt {
				_, ns := classify(g.kinds(in.Args))
				out = max(out, ns)
			}
		}
	}
	hasEH := len(lay.Funcs) > 1
	g.pspOff = 8 * out
	psp := 0
	if hasEH {
		psp = 8
	}
	g.slots = make([]int, len(f.Kinds))
	n := 0
	for v := range g.slots {
		if g.homes[v] == NoReg && !transient[ir.Value(v)] {
			n++
			g.slots[v] = -8 * n
		}
	}
	for _, r := range CalleeSaved {
		used := hasEH
		for _, h := range g.homes {
			used = used || h == r
		}
		if used {
			n++
			g.saves = append(g.saves, Save{Reg: r, Offset: -8 * n})
		}
	}
	g.frame = (8*n + 8*out + psp + 15) &^ 15
	g.fsize = (8*out + 8 + 15) &^ 15
	g.funcletLabels = make([]Label, len(lay.Funcs))
	g.funcletStart = map[int]bool{}
	for k, fn := range lay.Funcs {
		g.funcletLabels[k] = a.NewLabel()
		g.funcletStart[fn.Blocks[0].ID] = true
	}
	blockMarks := make([]MarkID, len(f.Blocks))
	var entryArgRegs map[ir.Value]Reg // argument registers at the end of the entry block
	g.deferArgs = !hasEH && g.canDeferArgStores()
	var prologEnd MarkID
	funcStarts := make([]MarkID, len(lay.Funcs))
	for k, fn := range lay.Funcs {
		g.cur = fn
		a.Bind(g.funcletLabels[k])
		funcStarts[k] = a.Mark()
		if k == 0 {
			prologEnd = g.prolog(hasEH)
		} else {
			g.funcletProlog()
		}
		for _, b := range fn.Blocks {
			entryArgRegs = g.block(b, entryArgRegs, blockMarks)
		}
	}
	end := a.Mark()
	coldStart := g.emitCold()
	blob, err := a.Assemble()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Method.FullName(), err)
	}
	code = &Code{Method: abi.Method{Code: blob.Code, ColdStart: blob.Marks[coldStart]},
		FrameSize: g.frame, PrologSize: blob.Marks[prologEnd], PSPOffset: g.pspOff, Layout: lay, Homes: g.homes, Saves: g.saves}
	inFilter := map[*ir.Region]bool{}
	for _, r := range f.Regions { // parents first
		inFilter[r] = r.Kind == ir.RegionFilter || inFilter[r.Parent]
	}
	for k, fn := range lay.Funcs {
		fc := abi.Funclet{Kind: fn.Kind, Clause: fn.Clause, Start: blob.Marks[funcStarts[k]], FrameSize: g.frame,
			InFilter: inFilter[fn.Region], Enclosing: -1}
		if k+1 < len(lay.Funcs) {
			fc.End = blob.Marks[funcStarts[k+1]]
		} else {
			fc.End = blob.Marks[end]
		}
		if k > 0 {
			fc.FrameSize = g.fsize
		}
		code.Funclets = append(code.Funclets, fc)
	}
	for i, m := range g.marks {
		code.Sites = append(code.Sites, abi.Site{Offset: blob.Marks[m], ILOffset: g.markIL[i]})
	}
	for _, m := range blockMarks {
		code.BlockOffsets = append(code.BlockOffsets, blob.Marks[m])
	}
	for i, m := range g.cellMarks {
		code.CellRefs = append(code.CellRefs, abi.CellRef{Offset: blob.Marks[m] - 4, Cell: g.cells[i]})
	}
	for i, m := range g.noteMarks {
		code.Notes = append(code.Notes, Note{Offset: blob.Marks[m], Text: g.notes[i]})
	}
	return code, nil
}

// block emits one block; entryArgRegs carries the argument registers known
// at the end of the entry block.
func (g *gen) block(b *ir.Block, entryArgRegs map[ir.Value]Reg, blockMarks []MarkID) map[ir.Value]Reg {
	a, f := g.a, g.f
	i := b.ID
	{
		a.Bind(g.blocks[i])
		blockMarks[i] = a.Mark()
		g.hold = ir.NoValue // a branch target: RAX holds nothing known
		switch {
		case i == 0 && len(b.Preds) == 0:
		case len(b.Preds) == 1 && b.Preds[0].ID == 0 && len(f.Blocks[0].Preds) == 0:
			g.argRegs = entryArgRegs // reached only from the entry block
			if g.deferArgs && !returnsOnly(b) {
				g.storeArgs(b)
			}
		default:
			g.argRegs = nil
		}
		p := g.plans[b.ID]
		g.fused, g.elide, g.into = p.fused, p.elide, p.into
		for _, in := range b.Instrs {
			if in == g.fused {
				continue
			}
			if !keepsArgRegs(in) {
				g.argRegs = nil
			}
			g.avail, g.hold = g.hold, ir.NoValue
			computed := g.computed
			g.instr(in)
			if g.computed == computed {
				g.computed = ir.NoValue
			}
		}
		g.avail, g.hold = g.hold, ir.NoValue
		if i == 0 {
			entryArgRegs = g.argRegs
			if t := b.Term.Op; t != ir.OpIf && t != ir.OpJump {
				entryArgRegs = nil
			}
		}
		g.term(b, i)
	}
	return entryArgRegs
}

// analyze counts register uses and finds single-definition constants.
func (g *gen) analyze() {
	f := g.f
	g.uses = make([]int, len(f.Kinds))
	defs := make([]int, len(f.Kinds))
	g.consts = map[ir.Value]int64{}
	for _, b := range f.Blocks {
		for _, in := range b.Code() {
			for _, v := range in.Args {
				g.uses[v]++
			}
			for _, d := range []ir.Value{in.Dst, in.Dst2} {
				if d != ir.NoValue {
					defs[d]++
				}
			}
			if in.Op == ir.OpConst && (in.Kind == ir.I32 || in.Kind == ir.I64 && in.Aux.Int == int64(int32(in.Aux.Int))) {
				g.consts[in.Dst] = in.Aux.Int
			}
		}
	}
	for v := range g.consts {
		if defs[v] != 1 || int(v) < f.NumArgs+f.NumLocals {
			delete(g.consts, v)
		}
	}
	// A constant needs its slot only if some use reads the slot directly.
	g.slotless = map[ir.Value]bool{}
	for v := range g.consts {
		g.slotless[v] = true
	}
	for _, b := range f.Blocks {
		for _, in := range b.Code() {
			for k, v := range in.Args {
				if g.slotless[v] && readsSlot(in, k) {
					delete(g.slotless, v)
				}
			}
		}
	}
}

// transient plans every block (its fused compare and elided results, in
// g.plans) and returns the values that never need a location of their
// own: constants read as immediates, compares fused into their branch,
// and results that stay in RAX (or an argument register) for the next
// instruction.
func (g *gen) transient() map[ir.Value]bool {
	t := map[ir.Value]bool{}
	for v := range g.slotless {
		t[v] = true
	}
	g.plans = make([]blockPlan, len(g.f.Blocks))
	for _, b := range g.f.Blocks {
		g.fused = g.fusable(b)
		if g.fused != nil {
			t[g.fused.Dst] = true
		}
		g.findElidable(b)
		for v := range g.elide {
			t[v] = true
		}
		g.plans[b.ID] = blockPlan{g.fused, g.elide, g.into}
	}
	g.fused, g.elide, g.into = nil, nil, nil
	return t
}

// readsSlot reports whether instruction in reads operand k from its slot
// directly (rather than through load or src, which handle constants).
func readsSlot(in *ir.Instr, k int) bool {
	switch in.Op {
	case ir.OpIf, ir.OpSwitch, ir.OpConv, ir.OpBox:
		return true
	case ir.OpDiv, ir.OpDivUn, ir.OpRem, ir.OpRemUn, ir.OpAddOvf, ir.OpSubOvf, ir.OpMulOvf:
		return k == 1 || in.Kind.IsFloat()
	case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpCmp:
		return in.Kind.IsFloat()
	}
	return false
}

// fusable returns the block's last instruction if it is an integer or
// reference comparison whose only use is the block's OpIf.
func (g *gen) fusable(b *ir.Block) *ir.Instr {
	if b.Term.Op != ir.OpIf || len(b.Instrs) == 0 {
		return nil
	}
	last := b.Instrs[len(b.Instrs)-1]
	if last.Op != ir.OpCmp || last.Dst != b.Term.Args[0] || g.uses[last.Dst] != 1 || last.Kind.IsFloat() {
		return nil
	}
	return last
}

// Producers whose last action is storing their (integer or reference)
// result from RAX, and consumers that read an operand through load.
var (
	raxProducers = map[ir.Op]bool{
		ir.OpAdd: true, ir.OpSub: true, ir.OpMul: true, ir.OpAnd: true, ir.OpOr: true, ir.OpXor: true,
		ir.OpShl: true, ir.OpShr: true, ir.OpShrUn: true, ir.OpNeg: true, ir.OpNot: true, ir.OpDiv: true, ir.OpDivUn: true,
		ir.OpCmp: true, ir.OpLdField: true, ir.OpLdStatic: true, ir.OpArrLen: true, ir.OpCall: true, ir.OpCallVirt: true,
		ir.OpCopy: true, ir.OpAlloc: true, ir.OpIsInst: true, ir.OpNewArr: true, ir.OpStr: true,
	}
	commutative = map[ir.Op]bool{ir.OpAdd: true, ir.OpMul: true, ir.OpAnd: true, ir.OpOr: true, ir.OpXor: true}
)

// findElidable decides which results of block b need no slot: a
// temporary used once, by the next instruction, which reads it through
// load while RAX still holds it.
func (g *gen) findElidable(b *ir.Block) {
	g.elide = map[ir.Value]bool{}
	g.into = map[ir.Value]Reg{}
	f := g.f
	for i, in := range b.Instrs {
		d := in.Dst
		if d == ir.NoValue || in.Dst2 != ir.NoValue || !raxProducers[in.Op] || int(d) < f.NumArgs+f.NumLocals ||
			g.uses[d] != 1 || f.Kinds[d].IsFloat() || in.Kind.IsFloat() || in.Op == ir.OpOr && in.Kind == 0 {
			continue
		}
		if in == g.fused {
			continue
		}
		var next *ir.Instr
		if i+1 < len(b.Instrs) {
			next = b.Instrs[i+1]
		} else {
			next = b.Term
		}
		if next == g.fused {
			if next.Args[0] == d && next.Args[1] != d {
				g.elide[d] = true
			}
			continue
		}
		if g.consumes(next, d) {
			g.elide[d] = true
			if intOps[in.Op][0] != 0 && (next.Op == ir.OpCall || next.Op == ir.OpCallVirt) {
				locs, _ := classify(g.kinds(next.Args))
				for k, a := range next.Args {
					if a == d {
						g.into[d] = locs[k].reg
					}
				}
			}
		}
	}
}

// consumes reports whether instruction in reads d (used once) through
// load into a register before anything else writes RAX.
func (g *gen) consumes(in *ir.Instr, d ir.Value) bool {
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
		if k := in.Aux.Method.BuiltinKind; k == il.ObjectCtor || inlineExcCtor(k) {
			return false
		}
		// Stack arguments are moved through RAX first: only calls without
		// them may take d from RAX.
		locs, ns := classify(g.kinds(args))
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
// its arguments from their registers, ends in a plain branch, and each of
// its successors is reached from it alone (so each can store the arguments
// itself, see storeArgs). Methods with handlers never do this: a funclet
// may read any slot at any time.
func (g *gen) canDeferArgStores() bool {
	b := g.f.Blocks[0]
	if len(b.Preds) > 0 || b.Term.Op != ir.OpIf && b.Term.Op != ir.OpJump {
		return false
	}
	for _, in := range b.Instrs {
		if !keepsArgRegs(in) {
			return false
		}
		for _, a := range in.Args[min(1, len(in.Args)):] {
			if int(a) < g.f.NumArgs {
				return false // a second operand is read from its slot
			}
		}
	}
	if b.Term.Op == ir.OpIf && g.fusable(b) == nil && int(b.Term.Args[0]) < g.f.NumArgs {
		return false // the branch tests the argument's slot
	}
	for _, s := range b.Succs {
		if len(s.Preds) != 1 {
			return false
		}
	}
	return true
}

// returnsOnly reports whether block b only returns a value (loaded through
// load, which reads an argument from its register): it needs no slots.
func returnsOnly(b *ir.Block) bool {
	return len(b.Instrs) == 0 && b.Term.Op == ir.OpRet
}

// storeArgs stores the register arguments the prolog left unstored, at
// the start of block b. An argument with a register home is stored only
// if it is live there: once dead, its home may belong to another value.
func (g *gen) storeArgs(b *ir.Block) {
	locs, _ := classify(g.f.Kinds[:g.f.NumArgs])
	for i, l := range locs {
		v := ir.Value(i)
		if l.stack < 0 && (g.homes[v] == NoReg || g.liveIn[b].Has(v)) {
			g.store(l.reg, v)
		}
	}
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

// src returns an operand for reading v: its constant as an immediate, or
// its slot.
func (g *gen) src(v ir.Value) Operand {
	if c, ok := g.consts[v]; ok {
		return Imm(c)
	}
	if r, ok := g.argRegs[v]; ok {
		return R(r) // the argument's slot may not be stored yet
	}
	return g.slot(v)
}

func (g *gen) kinds(vs []ir.Value) []ir.Kind {
	ks := make([]ir.Kind, len(vs))
	for i, v := range vs {
		ks[i] = g.f.Kinds[v]
	}
	return ks
}

// slot returns v's home: its register, or its frame slot.
func (g *gen) slot(v ir.Value) Operand {
	if r := g.homes[v]; r != NoReg {
		return R(r)
	}
	if g.slots[v] == 0 {
		panic(fmt.Sprintf("%s has no frame slot", v))
	}
	return Mem(RBP, int32(g.slots[v]))
}

// loadBits moves the raw bits of v (of v's width) into general purpose
// register reg, from a slot, a general purpose home or an XMM home.
func (g *gen) loadBits(v ir.Value, reg Reg) {
	h, k := g.homes[v], g.f.Kinds[v]
	switch {
	case h.IsXMM():
		g.a.I(MOVQ, R(h), R(reg))
	case k == ir.I32 || k == ir.F32:
		g.a.I(MOVL, g.slot(v), R(reg))
	default:
		g.a.I(MOVQ, g.slot(v), R(reg))
	}
}

// inHome reports whether v's value lives in its register home here (it
// has one, and is not a result elided into RAX).
func (g *gen) inHome(v ir.Value) bool {
	return g.homes[v] != NoReg && !g.elide[v]
}

// twoAddress decides whether dst = x op y can be computed in dst's home h
// as "h = x; h op= y": dst must be in its home, and the second operand
// neither only in RAX (elided) nor in h itself (the first move would
// overwrite it); a commutative op may swap its operands to get there.
func (g *gen) twoAddress(op ir.Op, dst, x, y ir.Value) (h Reg, hx, hy ir.Value, ok bool) {
	if !g.inHome(dst) {
		return NoReg, x, y, false
	}
	h = g.homes[dst]
	if g.homes[y] == h && x != y && commutative[op] {
		x, y = y, x
	}
	return h, x, y, (g.homes[y] != h || x == y) && !g.elide[y]
}

// loadTo puts v in register r unless it is already there (r is v's home
// and v was written to it).
func (g *gen) loadTo(v ir.Value, r Reg) {
	if g.inHome(v) && g.homes[v] == r {
		return
	}
	g.load(v, r)
}

// reg returns a general purpose register holding integer or reference v:
// its home, or scratch after loading v there.
func (g *gen) reg(v ir.Value, scratch Reg) Reg {
	if g.inHome(v) && g.homes[v].IsGPR() {
		return g.homes[v]
	}
	g.load(v, scratch)
	return scratch
}

// movFor returns the move instruction for a value of kind k.
func movFor(k ir.Kind) Op {
	switch k {
	case ir.I32:
		return MOVL
	case ir.F32:
		return MOVSS
	case ir.F64:
		return MOVSD
	}
	return MOVQ
}

// storeBits moves raw bits from general purpose register reg into v's
// home (the reverse of loadBits).
func (g *gen) storeBits(reg Reg, v ir.Value) {
	h, k := g.homes[v], g.f.Kinds[v]
	switch {
	case h.IsXMM():
		g.a.I(MOVQ, R(reg), R(h))
	case k == ir.I32 || k == ir.F32:
		g.a.I(MOVL, R(reg), g.slot(v))
	default:
		g.a.I(MOVQ, R(reg), g.slot(v))
	}
}

// load moves register v's slot into reg (XMM for floats).
func (g *gen) load(v ir.Value, reg Reg) {
	if reg.IsGPR() && g.f.Kinds[v].IsFloat() {
		g.loadBits(v, reg) // e.g. a float argument passed on the stack
		return
	}
	if g.avail == v && v != ir.NoValue {
		if reg == RAX {
			g.avail = ir.NoValue
			return // the previous instruction left v in RAX
		}
		if reg.IsGPR() {
			g.a.I(MOVQ, R(RAX), R(reg))
			return
		}
	}
	if reg == RAX {
		g.avail = ir.NoValue
	}
	if r, ok := g.argRegs[v]; ok && reg.IsGPR() {
		if r == reg {
			return
		}
		if g.f.Kinds[v] == ir.I32 {
			g.a.I(MOVL, R(r), R(reg))
		} else {
			g.a.I(MOVQ, R(r), R(reg))
		}
		return
	}
	if c, ok := g.consts[v]; ok && !g.f.Kinds[v].IsFloat() {
		if g.f.Kinds[v] == ir.I32 {
			g.a.I(MOVL, Imm(int64(int32(c))), R(reg))
		} else {
			g.a.I(MOVQ, Imm(c), R(reg))
		}
		return
	}
	if h := g.homes[v]; h.IsXMM() {
		g.a.I(MOVAPS, R(h), R(reg)) // a whole-register copy: no false dependency
		return
	}
	switch g.f.Kinds[v] {
	case ir.I32:
		g.a.I(MOVL, g.slot(v), R(reg))
	case ir.F32:
		g.a.I(MOVSS, g.slot(v), R(reg))
	case ir.F64:
		g.a.I(MOVSD, g.slot(v), R(reg))
	default:
		g.a.I(MOVQ, g.slot(v), R(reg))
	}
}

// store moves reg into register v's slot.
func (g *gen) store(reg Reg, v ir.Value) {
	if reg == RAX && !g.f.Kinds[v].IsFloat() {
		g.hold = v
		if g.elide[v] {
			return
		}
	}
	if h := g.homes[v]; h.IsXMM() {
		g.a.I(MOVAPS, R(reg), R(h))
		return
	}
	switch g.f.Kinds[v] {
	case ir.I32:
		g.a.I(MOVL, R(reg), g.slot(v))
	case ir.F32:
		g.a.I(MOVSS, R(reg), g.slot(v))
	case ir.F64:
		g.a.I(MOVSD, R(reg), g.slot(v))
	default:
		g.a.I(MOVQ, R(reg), g.slot(v))
	}
}

// site records the return address of the call just emitted.
func (g *gen) site(ilOffset int) {
	g.marks = append(g.marks, g.a.Mark())
	g.markIL = append(g.markIL, ilOffset)
}

// note names what the call just emitted calls, for dumps.
func (g *gen) note(text string) {
	g.noteMarks = append(g.noteMarks, g.a.Mark())
	g.notes = append(g.notes, text)
}

// exit emits a helper exit.
func (g *gen) exit(code int, arg uint64, hasArg bool, ilOffset int) {
	g.a.I(MOVQ, Imm(int64(code)), Mem(R15, abi.CtxExitCode))
	if hasArg {
		g.a.I(MOVQ, Imm(int64(arg)), Mem(R15, abi.CtxExitArg))
	}
	g.a.I(CALL, Mem(R15, abi.CtxExitStub))
	g.site(ilOffset)
	if code != abi.HelperBuiltin { // calls of builtins name the method
		g.note("helper " + abi.ExitName(code))
	}
}

// coldCall is a call to a runtime stub placed out of line, in the cold
// section after the funclets: the stub at [R15+stub], then a jump back to
// back.
type coldCall struct {
	at, back Label
	stub     int32
}

// coldGap is the padding between the last funclet and the cold section:
// no cache line holds both hot code and a cold call.
const coldGap = 64

// outOfLine jumps with op to a call of the stub at [R15+stub] placed in
// the cold section, which jumps back to back. Such calls run rarely
// (polls, stack overflow) and must stay away from hot code: a call that
// has run once takes a branch target buffer entry for its cache line, and
// one in a loop's line, or in the line of a small method or a finally
// called every iteration, made that code 10-20% slower for good after the
// first poll (measured on Zen 4).
func (g *gen) outOfLine(op Op, stub int32, back Label) {
	at := g.a.NewLabel()
	g.a.Jump(op, at)
	g.cold = append(g.cold, coldCall{at: at, back: back, stub: stub})
}

// emitCold emits the cold section: coldGap bytes of INT3, then the
// out-of-line calls. It returns the mark of the section's start.
func (g *gen) emitCold() MarkID {
	for range coldGap {
		g.a.I(INT3)
	}
	start := g.a.Mark()
	for _, c := range g.cold {
		g.a.Bind(c.at)
		g.a.I(CALL, Mem(R15, c.stub))
		if c.stub == abi.CtxPollStub {
			g.note("poll")
		} else {
			g.note("stack overflow")
		}
		g.a.Jump(JMP, c.back)
	}
	g.cold = nil
	return start
}

// poll exits to Go when the runtime asks for it (CtxPoll at or below
// zero, see abi.PollInterval). It only reads memory, so polls add no
// dependency chain between calls or loop iterations.
func (g *gen) poll() {
	back := g.a.NewLabel()
	g.a.I(CMPQ, Mem(R15, abi.CtxPoll), Imm(0))
	g.outOfLine(JLE, abi.CtxPollStub, back)
	g.a.Bind(back)
}

// stackCheck compares v (RSP, or RAX holding the RSP a large frame will
// have) with the stack limit at [R15+limit] and calls the overflow stub,
// out of line, when it is below; after the call the check runs again
// (the runtime may have moved the limit: a poll request, or the call
// depth count). jitrt decodes this form: the call's return address is
// followed by a jump to `CMP v, [R15+limit]`.
func (g *gen) stackCheck(v Reg, limit int32) {
	check := g.a.NewLabel()
	g.a.Bind(check)
	g.a.I(CMPQ, R(v), Mem(R15, limit))
	g.outOfLine(JCS, abi.CtxOverflowStub, check)
}

func (g *gen) prolog(hasEH bool) MarkID {
	a, f := g.a, g.f
	a.I(PUSHQ, R(RBP))
	a.I(MOVQ, R(RSP), R(RBP))
	// Small frames are checked after allocation (the runtime keeps a
	// reserve below the limit); large ones before, so that frames of any
	// size stay above the limit (RAX is free: arguments are in RDI...).
	if g.frame < 4096 {
		if g.frame > 0 {
			a.I(SUBQ, Imm(int64(g.frame)), R(RSP))
		}
		g.stackCheck(RSP, abi.CtxStackLimit)
	} else {
		a.I(LEAQ, Mem(RSP, int32(-g.frame)), R(RAX))
		g.stackCheck(RAX, abi.CtxStackLimit)
		a.I(SUBQ, Imm(int64(g.frame)), R(RSP))
	}
	// No poll here: a poll request also fails the stack check above
	// (abi.PollInterval).
	for _, sv := range g.saves {
		a.I(MOVQ, R(sv.Reg), Mem(RBP, int32(sv.Offset)))
	}
	if hasEH {
		a.I(MOVQ, R(RSP), Mem(RSP, int32(g.pspOff))) // PSPSym = InitialSP
	}
	args := make([]ir.Kind, f.NumArgs)
	copy(args, f.Kinds[:f.NumArgs])
	locs, _ := classify(args)
	g.argRegs = map[ir.Value]Reg{}
	for i, l := range locs {
		v := ir.Value(i)
		if l.stack >= 0 {
			a.I(MOVQ, Mem(RBP, int32(16+8*l.stack)), R(RAX))
			g.storeBits(RAX, v)
			continue
		}
		if !g.deferArgs {
			g.store(l.reg, v)
		}
		if l.reg.IsGPR() {
			g.argRegs[v] = l.reg
		}
	}
	if f.NumLocals > 0 {
		a.I(XORL, R(RAX), R(RAX))
		for i := 0; i < f.NumLocals; i++ {
			g.storeBits(RAX, ir.Value(f.NumArgs+i))
		}
	}
	return a.Mark()
}

func (g *gen) epilog() {
	for _, sv := range g.saves {
		g.a.I(MOVQ, Mem(RBP, int32(sv.Offset)), R(sv.Reg))
	}
	g.a.I(LEAVEQ)
	g.a.I(RET)
}

// funcletProlog starts a funclet: RDI is the establisher frame (whose
// PSPSym holds the main body's InitialSP), RSI the exception object of a
// catch or filter funclet.
func (g *gen) funcletProlog() {
	a := g.a
	a.I(PUSHQ, R(RBP))
	a.I(SUBQ, Imm(int64(g.fsize)), R(RSP))
	// Against the hard limit: a funclet adds no call depth, which the
	// runtime may be counting through CtxStackLimit.
	g.stackCheck(RSP, abi.CtxStackHard)
	a.I(MOVQ, Mem(RDI, int32(g.pspOff)), R(RAX))
	a.I(MOVQ, R(RAX), Mem(RSP, int32(g.pspOff)))
	a.I(LEAQ, Mem(RAX, int32(g.frame)), R(RBP))
	g.argRegs = nil
}

// funcletEpilog returns from a funclet.
func (g *gen) funcletEpilog() {
	g.a.I(ADDQ, Imm(int64(g.fsize)), R(RSP))
	g.a.I(POPQ, R(RBP))
	g.a.I(RET)
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

// term emits block b's terminator; i is its layout index.
func (g *gen) term(b *ir.Block, i int) {
	a, t := g.a, b.Term
	for _, s := range b.Succs {
		if s.ID <= i {
			g.poll() // a loop back edge
			break
		}
	}
	next := func(s *ir.Block) bool { return s.ID == i+1 && !g.funcletStart[s.ID] }
	switch t.Op {
	case ir.OpJump:
		if !next(b.Succs[0]) {
			a.Jump(JMP, g.blocks[b.Succs[0].ID])
		}
	case ir.OpIf:
		v := t.Args[0]
		jt := JNE // jump to "then" when this holds
		if c := g.fused; c != nil {
			x, y := c.Args[0], c.Args[1]
			cmp := CMPQ
			if g.f.Kinds[x] == ir.I32 {
				cmp = CMPL
			}
			_, yConst := g.consts[y]
			_, xConst := g.consts[x]
			r, inReg := g.argRegs[x]
			switch {
			case g.avail == x:
				a.I(cmp, R(RAX), g.src(y))
			case inReg:
				a.I(cmp, R(r), g.src(y))
			case g.inHome(x):
				a.I(cmp, R(g.homes[x]), g.src(y))
			case yConst && !xConst:
				a.I(cmp, g.slot(x), g.src(y))
			default:
				g.load(x, RAX)
				a.I(cmp, R(RAX), g.src(y))
			}
			jt = map[ir.Cond]Op{
				ir.Eq: JEQ, ir.Ne: JNE, ir.Lt: JLT, ir.Le: JLE, ir.Gt: JGT, ir.Ge: JGE,
				ir.LtUn: JCS, ir.LeUn: JLS, ir.GtUn: JHI, ir.GeUn: JCC,
			}[c.Aux.Cond]
		} else if g.f.Kinds[v] == ir.I32 {
			a.I(CMPL, g.slot(v), Imm(0))
		} else {
			a.I(CMPQ, g.slot(v), Imm(0))
		}
		then, els := b.Succs[0], b.Succs[1]
		switch {
		case next(els):
			a.Jump(jt, g.blocks[then.ID])
		case next(then):
			a.Jump(Cond(jt-JEQ).Not().Jcc(), g.blocks[els.ID])
		default:
			a.Jump(jt, g.blocks[then.ID])
			a.Jump(JMP, g.blocks[els.ID])
		}
	case ir.OpSwitch:
		a.I(MOVL, g.slot(t.Args[0]), R(RAX))
		for k, s := range b.Succs[:len(b.Succs)-1] {
			a.I(CMPL, R(RAX), Imm(int64(k)))
			a.Jump(JEQ, g.blocks[s.ID])
		}
		if def := b.Succs[len(b.Succs)-1]; !next(def) {
			a.Jump(JMP, g.blocks[def.ID])
		}
	case ir.OpRet:
		if len(t.Args) == 1 {
			v := t.Args[0]
			if g.f.Kinds[v].IsFloat() {
				g.load(v, X0)
			} else {
				g.load(v, RAX)
			}
		}
		g.epilog()
	case ir.OpThrow:
		g.load(t.Args[0], RDI)
		g.exit(abi.HelperThrow, 0, false, t.ILOffset)
		a.I(INT3)
	case ir.OpRethrow:
		g.exit(abi.HelperRethrow, 0, false, t.ILOffset)
		a.I(INT3)
	case ir.OpCallFinally:
		a.I(MOVQ, R(RSP), R(RDI))
		a.Jump(CALL, g.funcletOf(int(t.Aux.Int), abi.FinallyFunclet))
		g.site(t.ILOffset)
		g.note(fmt.Sprintf("finally of IL clause %d", t.Aux.Int))
		if !next(b.Succs[0]) {
			a.Jump(JMP, g.blocks[b.Succs[0].ID])
		}
	case ir.OpCatchRet:
		a.I(LEAQ, LabelAddr(g.blocks[b.Succs[0].ID]), R(RAX))
		g.funcletEpilog()
	case ir.OpEndFinally:
		g.funcletEpilog()
	case ir.OpEndFilter:
		g.load(t.Args[0], RAX)
		g.funcletEpilog()
	case ir.OpThrowHelper:
		a.I(MOVQ, Imm(int64(g.env.ClassMT(t.Aux.Class))), R(RDI))
		if t.Aux.Type != nil {
			g.load(t.Args[0], RSI)
			a.I(MOVQ, Imm(int64(g.env.TypeMT(t.Aux.Type))), R(RDX))
		}
		g.exit(abi.HelperThrowNew, 0, false, t.ILOffset)
		a.I(INT3)
	default:
		panic(fmt.Sprintf("unknown terminator %s", t.Op))
	}
}

// Integer and float operation encodings per kind.
var (
	intOps = map[ir.Op][2]Op{ // [32-bit, 64-bit]
		ir.OpAdd: {ADDL, ADDQ}, ir.OpSub: {SUBL, SUBQ}, ir.OpMul: {IMULL, IMULQ},
		ir.OpAnd: {ANDL, ANDQ}, ir.OpOr: {ORL, ORQ}, ir.OpXor: {XORL, XORQ},
	}
	floatOps = map[ir.Op][2]Op{ // [float32, float64]
		ir.OpAdd: {ADDSS, ADDSD}, ir.OpSub: {SUBSS, SUBSD}, ir.OpMul: {MULSS, MULSD}, ir.OpDiv: {DIVSS, DIVSD},
	}
)

// shiftCount returns the immediate for a shift of a 32-bit (q false) or
// 64-bit operand by the constant count c: c masked to the operand width,
// as CoreCLR does (ECMA-335 leaves counts of the width or more
// unspecified) and as the hardware masks a count in CL.
func shiftCount(c int64, q bool) int64 {
	if q {
		return c & 63
	}
	return c & 31
}

func (g *gen) instr(in *ir.Instr) {
	a := g.a
	k := in.Kind
	q := k == ir.I64 || k == ir.Ref
	pick := func(ops [2]Op) Op {
		if q || k == ir.F64 {
			return ops[1]
		}
		return ops[0]
	}
	switch in.Op {
	case ir.OpConst:
		if g.slotless[in.Dst] {
			return
		}
		switch k {
		case ir.I32:
			a.I(MOVL, Imm(int64(int32(in.Aux.Int))), g.slot(in.Dst))
		case ir.F32:
			a.I(MOVL, Imm(int64(math.Float32bits(float32(in.Aux.Float)))), R(RAX))
			g.storeBits(RAX, in.Dst)
		case ir.F64:
			a.I(MOVQ, Imm(int64(math.Float64bits(in.Aux.Float))), R(RAX))
			g.storeBits(RAX, in.Dst)
		case ir.Ref:
			a.I(MOVQ, Imm(0), g.slot(in.Dst))
		default:
			a.I(MOVQ, Imm(in.Aux.Int), R(RAX))
			a.I(MOVQ, R(RAX), g.slot(in.Dst))
		}
	case ir.OpStr:
		if g.inHome(in.Dst) {
			a.I(MOVQ, Imm(int64(g.env.StringAddr(in.Aux.Str))), R(g.homes[in.Dst]))
			return
		}
		a.I(MOVQ, Imm(int64(g.env.StringAddr(in.Aux.Str))), R(RAX))
		g.store(RAX, in.Dst)
	case ir.OpCopy:
		if g.inHome(in.Dst) {
			g.loadTo(in.Args[0], g.homes[in.Dst])
			return
		}
		if g.f.Kinds[in.Dst].IsFloat() {
			g.load(in.Args[0], X0)
			g.store(X0, in.Dst)
		} else {
			g.load(in.Args[0], RAX)
			g.store(RAX, in.Dst)
		}
	case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpDiv:
		if k.IsFloat() {
			x, y := in.Args[0], in.Args[1]
			if h, hx, hy, ok := g.twoAddress(in.Op, in.Dst, x, y); ok {
				g.loadTo(hx, h)
				a.I(pick(floatOps[in.Op]), g.slot(hy), R(h))
				return
			}
			g.load(x, X0)
			a.I(pick(floatOps[in.Op]), g.slot(y), R(X0))
			g.store(X0, in.Dst)
			return
		}
		if in.Op == ir.OpDiv {
			g.divide(in)
			return
		}
		x, y := in.Args[0], in.Args[1]
		if t, ok := g.into[in.Dst]; ok && t != RAX {
			// Compute straight into the argument register of the next
			// call, if an operand order allows: the second operand must be
			// neither in RAX (forwarded, slot unwritten) nor in the target
			// register (which the first operand's load overwrites).
			fits := func(y ir.Value) bool {
				r, held := g.argRegs[y]
				return y != g.avail && !(held && r == t)
			}
			cx, cy, use := x, y, fits(y)
			if !use && commutative[in.Op] && fits(x) {
				cx, cy, use = y, x, true
			}
			if use {
				if r, held := g.argRegs[cx]; !held || r != t {
					g.load(cx, t)
				}
				a.I(pick(intOps[in.Op]), g.src(cy), R(t))
				for v, r := range g.argRegs {
					if r == t {
						delete(g.argRegs, v)
					}
				}
				g.computed = in.Dst
				return
			}
			delete(g.into, in.Dst) // the call loads the result from RAX
		}
		if commutative[in.Op] && y == g.avail && x != y {
			x, y = y, x
		}
		if h, hx, hy, ok := g.twoAddress(in.Op, in.Dst, x, y); ok {
			g.loadTo(hx, h)
			a.I(pick(intOps[in.Op]), g.src(hy), R(h))
			return
		}
		g.load(x, RAX)
		a.I(pick(intOps[in.Op]), g.src(y), R(RAX))
		g.store(RAX, in.Dst)
	case ir.OpDivUn, ir.OpRem, ir.OpRemUn:
		if k.IsFloat() {
			g.floatRem(in)
			return
		}
		g.divide(in)
	case ir.OpShl, ir.OpShr, ir.OpShrUn:
		ops := map[ir.Op][2]Op{ir.OpShl: {SHLL, SHLQ}, ir.OpShr: {SARL, SARQ}, ir.OpShrUn: {SHRL, SHRQ}}[in.Op]
		// A constant count is an immediate, masked to the operand width; a
		// variable one goes in CL, which the 32-bit and 64-bit forms mask
		// the same way (see shiftCount).
		count := R(RCX)
		if c, ok := g.consts[in.Args[1]]; ok {
			count = Imm(shiftCount(c, q))
		} else {
			g.load(in.Args[1], RCX)
		}
		if g.inHome(in.Dst) {
			h := g.homes[in.Dst]
			g.loadTo(in.Args[0], h)
			a.I(pick(ops), count, R(h))
			return
		}
		g.load(in.Args[0], RAX)
		a.I(pick(ops), count, R(RAX))
		g.store(RAX, in.Dst)
	case ir.OpNeg:
		switch k {
		case ir.F32:
			g.loadBits(in.Args[0], RAX)
			a.I(XORL, Imm(-0x80000000), R(RAX))
			g.storeBits(RAX, in.Dst)
		case ir.F64:
			g.loadBits(in.Args[0], RAX)
			a.I(MOVQ, Imm(math.MinInt64), R(RCX))
			a.I(XORQ, R(RCX), R(RAX))
			g.storeBits(RAX, in.Dst)
		default:
			g.load(in.Args[0], RAX)
			a.I(pick([2]Op{NEGL, NEGQ}), R(RAX))
			g.store(RAX, in.Dst)
		}
	case ir.OpNot:
		g.load(in.Args[0], RAX)
		a.I(pick([2]Op{NOTL, NOTQ}), R(RAX))
		g.store(RAX, in.Dst)
	case ir.OpAddOvf, ir.OpSubOvf, ir.OpMulOvf:
		g.checked(in)
	case ir.OpCmp:
		g.compare(in)
	case ir.OpConv:
		g.convert(in)
	case ir.OpLdField:
		base := g.reg(in.Args[0], RCX)
		g.loadMem(Mem(base, int32(abi.ObjFields+8*in.Aux.Field.Slot)), in.Dst)
	case ir.OpStField:
		base := g.reg(in.Args[0], RCX)
		g.storeMem(in.Args[1], Mem(base, int32(abi.ObjFields+8*in.Aux.Field.Slot)))
	case ir.OpLdStatic:
		a.I(MOVQ, Imm(int64(g.env.StaticAddr(in.Aux.Field))), R(RCX))
		g.loadMem(Mem(RCX, 0), in.Dst)
	case ir.OpStStatic:
		a.I(MOVQ, Imm(int64(g.env.StaticAddr(in.Aux.Field))), R(RCX))
		g.storeMem(in.Args[0], Mem(RCX, 0))
	case ir.OpAlloc:
		// Bump allocation inline; the heap is fresh zeroed memory. Only a
		// full heap exits (HelperAlloc then reports it).
		mt := int64(g.env.ClassMT(in.Aux.Class))
		size := int32(8 + 8*in.Aux.Class.NumFields)
		slow, done := a.NewLabel(), a.NewLabel()
		a.I(MOVQ, Mem(R15, abi.CtxHeapTop), R(RAX))
		a.I(LEAQ, Mem(RAX, size), R(RCX))
		a.I(CMPQ, R(RCX), Mem(R15, abi.CtxHeapLimit))
		a.Jump(JHI, slow)
		a.I(MOVQ, R(RCX), Mem(R15, abi.CtxHeapTop))
		a.I(MOVQ, Imm(mt), R(RCX))
		a.I(MOVQ, R(RCX), Mem(RAX, abi.ObjMT))
		a.Jump(JMP, done)
		a.Bind(slow)
		a.I(MOVQ, Imm(mt), R(RDI))
		g.exit(abi.HelperAlloc, 0, false, in.ILOffset)
		a.Bind(done)
		g.store(RAX, in.Dst)
	case ir.OpIsInst:
		g.load(in.Args[0], RDI)
		a.I(MOVQ, Imm(int64(g.env.TypeMT(in.Aux.Type))), R(RSI))
		g.exit(abi.HelperIsInst, 0, false, in.ILOffset)
		g.store(RAX, in.Dst)
	case ir.OpTypeIs:
		g.load(in.Args[0], RDI)
		a.I(MOVQ, Imm(int64(g.env.TypeMT(in.Aux.Type))), R(RSI))
		g.exit(abi.HelperTypeIs, 0, false, in.ILOffset)
		g.store(RAX, in.Dst)
	case ir.OpBox:
		a.I(MOVQ, Imm(int64(g.env.TypeMT(in.Aux.Type))), R(RDI))
		g.loadBits(in.Args[0], RSI)
		g.exit(abi.HelperBox, 0, false, in.ILOffset)
		g.store(RAX, in.Dst)
	case ir.OpUnbox:
		g.load(in.Args[0], RCX)
		g.loadMem(Mem(RCX, abi.BoxValue), in.Dst)
	case ir.OpNewArr:
		a.I(MOVQ, Imm(int64(g.env.TypeMT(il.ArrayOf(in.Aux.Type)))), R(RDI))
		g.load(in.Args[0], RSI)
		g.exit(abi.HelperNewArr, 0, false, in.ILOffset)
		g.store(RAX, in.Dst)
	case ir.OpArrLen:
		base := g.reg(in.Args[0], RCX)
		g.loadMem(Mem(base, abi.ArrLen), in.Dst)
	case ir.OpLdElem:
		base := g.reg(in.Args[0], RCX)
		idx := g.reg(in.Args[1], RDX)
		g.loadElem(in.Aux.Type, MemIdx(base, idx, uint8(il.ElemSize(in.Aux.Type)), abi.ArrData), in.Dst)
	case ir.OpStElem:
		base := g.reg(in.Args[0], RCX)
		idx := g.reg(in.Args[1], RDX)
		g.storeElem(in.Aux.Type, MemIdx(base, idx, uint8(il.ElemSize(in.Aux.Type)), abi.ArrData), in.Args[2])
	case ir.OpCanStore:
		g.load(in.Args[0], RDI)
		g.load(in.Args[1], RSI)
		g.exit(abi.HelperCanStore, 0, false, in.ILOffset)
		g.store(RAX, in.Dst)
	case ir.OpCall, ir.OpCallVirt:
		g.call(in)
	case ir.OpCatchArg:
		a.I(MOVQ, R(RSI), g.slot(in.Dst))
	default:
		panic(fmt.Sprintf("unknown instruction %s", in.Op))
	}
}

// loadMem loads a value of v's kind from memory into v's home.
func (g *gen) loadMem(m Operand, v ir.Value) {
	if g.inHome(v) {
		g.a.I(movFor(g.f.Kinds[v]), m, R(g.homes[v]))
		return
	}
	switch g.f.Kinds[v] {
	case ir.F32:
		g.a.I(MOVSS, m, R(X0))
		g.store(X0, v)
	case ir.F64:
		g.a.I(MOVSD, m, R(X0))
		g.store(X0, v)
	case ir.I32:
		g.a.I(MOVL, m, R(RAX))
		g.store(RAX, v)
	default:
		g.a.I(MOVQ, m, R(RAX))
		g.store(RAX, v)
	}
}

// storeMem stores v to memory with v's kind's width.
func (g *gen) storeMem(v ir.Value, m Operand) {
	k := g.f.Kinds[v]
	if g.inHome(v) {
		g.a.I(movFor(k), R(g.homes[v]), m)
		return
	}
	if c, ok := g.consts[v]; ok && v != g.avail {
		if k == ir.I32 {
			g.a.I(MOVL, Imm(int64(int32(c))), m)
		} else {
			g.a.I(MOVQ, Imm(c), m)
		}
		return
	}
	switch k {
	case ir.F32:
		g.load(v, X0)
		g.a.I(MOVSS, R(X0), m)
	case ir.F64:
		g.load(v, X0)
		g.a.I(MOVSD, R(X0), m)
	case ir.I32:
		g.load(v, RAX)
		g.a.I(MOVL, R(RAX), m)
	default:
		g.load(v, RAX)
		g.a.I(MOVQ, R(RAX), m)
	}
}

// loadElem loads array element m of type t into v.
func (g *gen) loadElem(t *il.Type, m Operand, v ir.Value) {
	var op Op
	switch t.Kind {
	case il.KI1:
		op = MOVBLSX
	case il.KBool, il.KU1:
		op = MOVBLZX
	case il.KI2:
		op = MOVWLSX
	case il.KChar, il.KU2:
		op = MOVWLZX
	default:
		g.loadMem(m, v)
		return
	}
	if g.inHome(v) {
		g.a.I(op, m, R(g.homes[v]))
		return
	}
	g.a.I(op, m, R(RAX))
	g.store(RAX, v)
}

// storeElem stores v into array element m of type t.
func (g *gen) storeElem(t *il.Type, m Operand, v ir.Value) {
	switch il.ElemSize(t) {
	case 1:
		g.a.I(MOVB, R(g.reg(v, RAX)), m)
	case 2:
		g.a.I(MOVW, R(g.reg(v, RAX)), m)
	default:
		g.storeMem(v, m)
	}
}

// divide emits integer division and remainder (the reader has already
// checked the divisor).
func (g *gen) divide(in *ir.Instr) {
	a := g.a
	q := in.Kind == ir.I64
	g.load(in.Args[0], RAX)
	signed := in.Op == ir.OpDiv || in.Op == ir.OpRem
	switch {
	case signed && q:
		a.I(CQO)
		a.I(IDIVQ, g.slot(in.Args[1]))
	case signed:
		a.I(CDQ)
		a.I(IDIVL, g.slot(in.Args[1]))
	case q:
		a.I(XORL, R(RDX), R(RDX))
		a.I(DIVQ, g.slot(in.Args[1]))
	default:
		a.I(XORL, R(RDX), R(RDX))
		a.I(DIVL, g.slot(in.Args[1]))
	}
	if in.Op == ir.OpRem || in.Op == ir.OpRemUn {
		g.store(RDX, in.Dst)
	} else {
		g.store(RAX, in.Dst)
	}
}

// floatRem computes the C# floating-point remainder in Go (a helper exit).
func (g *gen) floatRem(in *ir.Instr) {
	a := g.a
	if in.Kind == ir.F32 {
		a.I(CVTSS2SD, g.slot(in.Args[0]), R(X0))
		a.I(CVTSS2SD, g.slot(in.Args[1]), R(X1))
	} else {
		g.load(in.Args[0], X0)
		g.load(in.Args[1], X1)
	}
	g.exit(abi.HelperFRem, 0, false, in.ILOffset)
	if in.Kind == ir.F32 {
		a.I(CVTSD2SS, R(X0), R(X0))
	}
	g.store(X0, in.Dst)
}

// checked emits add.ovf, sub.ovf and mul.ovf: the result and a 0/1
// overflow flag.
func (g *gen) checked(in *ir.Instr) {
	a := g.a
	q := in.Kind == ir.I64
	un := in.Aux.Unsigned
	g.load(in.Args[0], RAX)
	b := g.slot(in.Args[1])
	flag := SETOS
	switch in.Op {
	case ir.OpAddOvf:
		a.I(map[bool]Op{false: ADDL, true: ADDQ}[q], b, R(RAX))
		if un {
			flag = SETCS
		}
	case ir.OpSubOvf:
		a.I(map[bool]Op{false: SUBL, true: SUBQ}[q], b, R(RAX))
		if un {
			flag = SETCS
		}
	case ir.OpMulOvf:
		switch {
		case un && q:
			a.I(MULQ, b)
		case un:
			a.I(MULL, b)
		case q:
			a.I(IMULQ, b, R(RAX))
		default:
			a.I(IMULL, b, R(RAX))
		}
	}
	a.I(flag, R(RCX))
	a.I(MOVBLZX, R(RCX), R(RCX))
	g.store(RAX, in.Dst)
	g.store(RCX, in.Dst2)
}

// compare emits OpCmp: a 0/1 result of comparing Args[0] with Args[1].
func (g *gen) compare(in *ir.Instr) {
	a := g.a
	x, y := in.Args[0], in.Args[1]
	k := g.f.Kinds[x]
	if !k.IsFloat() {
		g.load(x, RAX)
		if k == ir.I32 {
			a.I(CMPL, R(RAX), g.src(y))
		} else {
			a.I(CMPQ, R(RAX), g.src(y))
		}
		cond := map[ir.Cond]Op{
			ir.Eq: SETEQ, ir.Ne: SETNE, ir.Lt: SETLT, ir.Le: SETLE, ir.Gt: SETGT, ir.Ge: SETGE,
			ir.LtUn: SETCS, ir.LeUn: SETLS, ir.GtUn: SETHI, ir.GeUn: SETCC,
		}[in.Aux.Cond]
		a.I(cond, R(RAX))
		a.I(MOVBLZX, R(RAX), R(RAX))
		g.store(RAX, in.Dst)
		return
	}
	// UCOMISx m, X0 compares X0 with m: CF on X0 < m or unordered, ZF on
	// equal or unordered, PF on unordered.
	ucom := UCOMISD
	if k == ir.F32 {
		ucom = UCOMISS
	}
	cmp := func(p, q ir.Value) {
		g.load(p, X0)
		a.I(ucom, g.slot(q), R(X0))
	}
	switch in.Aux.Cond {
	case ir.Eq, ir.Ne:
		cmp(x, y)
		if in.Aux.Cond == ir.Eq {
			a.I(SETEQ, R(RAX))
			a.I(SETPC, R(RCX))
			a.I(ANDL, R(RCX), R(RAX))
		} else {
			a.I(SETNE, R(RAX))
			a.I(SETPS, R(RCX))
			a.I(ORL, R(RCX), R(RAX))
		}
	case ir.Gt: // x > y, false when unordered
		cmp(x, y)
		a.I(SETHI, R(RAX))
	case ir.Ge:
		cmp(x, y)
		a.I(SETCC, R(RAX))
	case ir.Lt: // y > x
		cmp(y, x)
		a.I(SETHI, R(RAX))
	case ir.Le:
		cmp(y, x)
		a.I(SETCC, R(RAX))
	case ir.LtUn: // x < y or unordered
		cmp(x, y)
		a.I(SETCS, R(RAX))
	case ir.LeUn:
		cmp(x, y)
		a.I(SETLS, R(RAX))
	case ir.GtUn: // y < x or unordered
		cmp(y, x)
		a.I(SETCS, R(RAX))
	case ir.GeUn:
		cmp(y, x)
		a.I(SETLS, R(RAX))
	}
	a.I(MOVBLZX, R(RAX), R(RAX))
	g.store(RAX, in.Dst)
}
