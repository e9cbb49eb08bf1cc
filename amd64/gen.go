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

// Generate compiles an IR function to machine code: funclet.Build,
// Allocate and Emit. Every virtual register lives in its register home
// (see regalloc.go) or in a frame slot below RBP; instructions work in
// the result's home or in scratch registers (RAX, RCX, RDX, XMM0, XMM1).
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

// gen is the state of emitting one function. What it reads was decided
// before emission started: the plan and the homes (Alloc), the frame
// layout; what it changes is the code and its records, and what it knows
// about registers from one instruction to the next.
type gen struct {
	a      *Assembler
	f      *ir.Func
	env    Env
	lay    *funclet.Layout
	plan   *plan // read-only
	homes  []Reg // read-only
	liveIn map[*ir.Block]valueList
	frame  *frame // read-only

	// Labels of blocks (by ID) and funclets (in layout order), the IDs of
	// the blocks that start a funclet, and funcletOf's index.
	blocks        []Label
	funcletLabels []Label
	funcletStart  map[int]bool
	funcletByKey  map[funcletKey]Label

	// What the code records, resolved to offsets after assembly.
	sites    []siteMark
	cellRefs []cellRef
	notes    []noteMark
	cold     []coldCall // out-of-line calls, emitted after the last funclet

	// cur is the plan of the block being emitted.
	cur blockPlan
	regState
}

// regState is what emission knows that registers hold, from one
// instruction to the next.
type regState struct {
	// hold is the value the previous IR instruction left in RAX (NoValue
	// if none); avail is hold as seen by the current instruction until
	// its first load into RAX.
	hold, avail ir.Value
	// computed is the result the previous instruction left in its
	// argument register (blockPlan.into).
	computed ir.Value
	// argRegs maps arguments to the registers that still hold them, from
	// the prolog until the entry block first clobbers an argument
	// register; entryArgRegs is what it was at the end of the entry block.
	argRegs, entryArgRegs map[ir.Value]Reg
}

// siteMark, cellRef and noteMark are a call site, a CALL [RIP+disp32] to
// a cell and a note, by the mark just after the call.
type (
	siteMark struct {
		mark     MarkID
		ilOffset int
	}
	cellRef struct {
		mark MarkID
		cell uintptr
	}
	noteMark struct {
		mark MarkID
		text string
	}
)

// Emit generates the machine code of f, laid out by lay, with the plan
// and homes of alloc.
func Emit(f *ir.Func, lay *funclet.Layout, alloc *Alloc, env Env, a *Assembler) (code *Code, err error) {
	a.Reset()
	g := &gen{a: a, f: f, env: env, lay: lay, plan: alloc.plan, homes: alloc.Homes, liveIn: alloc.liveIn,
		regState: regState{hold: ir.NoValue, avail: ir.NoValue, computed: ir.NoValue}}
	defer func() {
		if r := recover(); r != nil {
			code, err = nil, fmt.Errorf("%s: code generation failed: %v", f.Method.FullName(), r)
		}
	}()
	g.frame = layoutFrame(f, lay, alloc.Homes, alloc.Transient)
	g.blocks = make([]Label, len(f.Blocks))
	for i := range f.Blocks {
		g.blocks[i] = a.NewLabel()
	}
	g.funcletLabels = make([]Label, len(lay.Funcs))
	g.funcletStart = map[int]bool{}
	for k, fn := range lay.Funcs {
		g.funcletLabels[k] = a.NewLabel()
		g.funcletStart[fn.Blocks[0].ID] = true
	}
	blockMarks := make([]MarkID, len(f.Blocks))
	funcStarts := make([]MarkID, len(lay.Funcs))
	var prologEnd MarkID
	for k, fn := range lay.Funcs {
		a.Bind(g.funcletLabels[k])
		funcStarts[k] = a.Mark()
		if k == 0 {
			prologEnd = g.prolog()
		} else {
			g.funcletProlog()
		}
		for _, b := range fn.Blocks {
			a.Bind(g.blocks[b.ID])
			blockMarks[b.ID] = a.Mark()
			g.block(b)
		}
	}
	end := a.Mark()
	coldStart := g.emitCold()
	blob, err := a.Assemble()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Method.FullName(), err)
	}
	code = &Code{Method: abi.Method{Code: blob.Code, ColdStart: blob.Marks[coldStart]},
		FrameSize: g.frame.size, PrologSize: blob.Marks[prologEnd], PSPOffset: g.frame.pspOff, Layout: lay,
		Homes: g.homes, Saves: g.frame.saves}
	inFilter := map[*ir.Region]bool{}
	for _, r := range f.Regions { // parents first
		inFilter[r] = r.Kind == ir.RegionFilter || inFilter[r.Parent]
	}
	for k, fn := range lay.Funcs {
		fc := abi.Funclet{Kind: fn.Kind, Clause: fn.Clause, Start: blob.Marks[funcStarts[k]], FrameSize: g.frame.size,
			InFilter: inFilter[fn.Region], Enclosing: -1}
		if k+1 < len(lay.Funcs) {
			fc.End = blob.Marks[funcStarts[k+1]]
		} else {
			fc.End = blob.Marks[end]
		}
		if k > 0 {
			fc.FrameSize = g.frame.funcletSize
		}
		code.Funclets = append(code.Funclets, fc)
	}
	for _, s := range g.sites {
		code.Sites = append(code.Sites, abi.Site{Offset: blob.Marks[s.mark], ILOffset: s.ilOffset})
	}
	for _, m := range blockMarks {
		code.BlockOffsets = append(code.BlockOffsets, blob.Marks[m])
	}
	for _, c := range g.cellRefs {
		code.CellRefs = append(code.CellRefs, abi.CellRef{Offset: blob.Marks[c.mark] - 4, Cell: c.cell})
	}
	for _, n := range g.notes {
		code.Notes = append(code.Notes, Note{Offset: blob.Marks[n.mark], Text: n.text})
	}
	return code, nil
}

// block emits block b: its instructions, then its terminator.
func (g *gen) block(b *ir.Block) {
	f := g.f
	g.hold = ir.NoValue // a branch target: RAX holds nothing known
	switch {
	case b.ID == 0 && len(b.Preds) == 0:
	case len(b.Preds) == 1 && b.Preds[0].ID == 0 && len(f.Blocks[0].Preds) == 0:
		g.argRegs = g.entryArgRegs // reached only from the entry block
		if g.plan.deferArgs && !returnsOnly(b) {
			g.storeArgs(b)
		}
	default:
		g.argRegs = nil
	}
	g.cur = g.plan.blocks[b.ID]
	for _, in := range b.Instrs {
		if in == g.cur.fused {
			continue // emitted by the terminator
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
	if b.ID == 0 {
		g.entryArgRegs = g.argRegs
		if t := b.Term.Op; t != ir.OpIf && t != ir.OpJump {
			g.entryArgRegs = nil
		}
	}
	g.term(b)
}

// instr emits one instruction, by its family's lowering.
func (g *gen) instr(in *ir.Instr) {
	switch in.Op {
	case ir.OpConst:
		g.constant(in)
	case ir.OpStr:
		g.str(in)
	case ir.OpCopy:
		g.copyValue(in)
	case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpDiv:
		g.binary(in)
	case ir.OpDivUn, ir.OpRem, ir.OpRemUn:
		if in.Kind.IsFloat() {
			g.floatRem(in)
		} else {
			g.divide(in)
		}
	case ir.OpShl, ir.OpShr, ir.OpShrUn:
		g.shift(in)
	case ir.OpNeg, ir.OpNot:
		g.unary(in)
	case ir.OpAddOvf, ir.OpSubOvf, ir.OpMulOvf:
		g.checked(in)
	case ir.OpCmp:
		g.compare(in)
	case ir.OpConv:
		g.convert(in)
	case ir.OpLdField, ir.OpStField:
		g.field(in)
	case ir.OpLdStatic, ir.OpStStatic:
		g.static(in)
	case ir.OpAlloc:
		g.alloc(in)
	case ir.OpIsInst, ir.OpTypeIs:
		g.typeTest(in)
	case ir.OpBox:
		g.box(in)
	case ir.OpUnbox:
		g.unbox(in)
	case ir.OpNewArr:
		g.newArr(in)
	case ir.OpArrLen:
		g.arrLen(in)
	case ir.OpLdElem, ir.OpStElem:
		g.elem(in)
	case ir.OpCanStore:
		g.canStore(in)
	case ir.OpCall, ir.OpCallVirt:
		g.call(in)
	case ir.OpCatchArg:
		g.catchArg(in)
	default:
		panic(fmt.Sprintf("unknown instruction %s", in.Op))
	}
}

// term emits block b's terminator, after a poll if it is a loop back edge
// (a branch to a block at or before it in layout order).
func (g *gen) term(b *ir.Block) {
	a, t := g.a, b.Term
	for _, s := range b.Succs {
		if s.ID <= b.ID {
			g.poll()
			break
		}
	}
	next := func(s *ir.Block) bool { return s.ID == b.ID+1 && !g.funcletStart[s.ID] }
	switch t.Op {
	case ir.OpJump:
		if !next(b.Succs[0]) {
			a.Jump(JMP, g.blocks[b.Succs[0].ID])
		}
	case ir.OpIf:
		jt := g.branchCond(t)
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
		a.I(MOVL, g.argSlot(t, t.Args[0]), R(RAX))
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
	default:
		g.ehTerm(b, next)
	}
}

// branchCond emits the compare of OpIf t and returns the jump to take to
// its "then" successor: the fused compare's own condition, or not-zero
// after testing the condition value.
func (g *gen) branchCond(t *ir.Instr) Op {
	a, c := g.a, g.cur.fused
	if c == nil {
		v := t.Args[0]
		if g.f.Kinds[v] == ir.I32 {
			a.I(CMPL, g.argSlot(t, v), Imm(0))
		} else {
			a.I(CMPQ, g.argSlot(t, v), Imm(0))
		}
		return JNE
	}
	x, y := c.Args[0], c.Args[1]
	cmp := CMPQ
	if g.f.Kinds[x] == ir.I32 {
		cmp = CMPL
	}
	_, yConst := g.plan.consts[y]
	_, xConst := g.plan.consts[x]
	r, inReg := g.argRegs[x]
	switch {
	case g.avail == x:
		a.I(cmp, R(RAX), g.src(y))
	case inReg:
		a.I(cmp, R(r), g.src(y))
	case g.inHome(x):
		a.I(cmp, R(g.homes[x]), g.src(y))
	case yConst && !xConst:
		a.I(cmp, g.src(x), g.src(y)) // x is neither a constant nor in a register: its slot
	default:
		g.load(x, RAX)
		a.I(cmp, R(RAX), g.src(y))
	}
	return intJumps[c.Aux.Cond]
}

// Where values are, and moving them: a value lives in its register home
// (Alloc.Homes) or its frame slot; it may also be in RAX (the previous
// instruction's elided result), in its argument register (in the entry
// block), or be a constant the plan reads as an immediate. The lowerings
// read operands through load, src and reg, which know all of that, or
// straight from the home or slot through argSlot and argBits, which only
// the operands slotReads declares may use.

// constant emits OpConst: nothing for a constant the plan reads as an
// immediate everywhere, else a store to its home.
func (g *gen) constant(in *ir.Instr) {
	a := g.a
	if g.plan.slotless[in.Dst] {
		return
	}
	switch in.Kind {
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
}

// str emits OpStr: the interned string's address.
func (g *gen) str(in *ir.Instr) {
	addr := Imm(int64(g.env.StringAddr(in.Aux.Str)))
	if g.inHome(in.Dst) {
		g.a.I(MOVQ, addr, R(g.homes[in.Dst]))
		return
	}
	g.a.I(MOVQ, addr, R(RAX))
	g.store(RAX, in.Dst)
}

// copyValue emits OpCopy.
func (g *gen) copyValue(in *ir.Instr) {
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
}

// src returns an operand for reading v: its constant as an immediate, or
// its slot.
func (g *gen) src(v ir.Value) Operand {
	if c, ok := g.plan.consts[v]; ok {
		return Imm(c)
	}
	if r, ok := g.argRegs[v]; ok {
		return R(r) // the argument's slot may not be stored yet
	}
	return g.slot(v)
}

// slot returns v's home: its register, or its frame slot.
func (g *gen) slot(v ir.Value) Operand {
	if r := g.homes[v]; r != NoReg {
		return R(r)
	}
	if g.frame.slots[v] == 0 {
		panic(fmt.Sprintf("%s has no frame slot", v))
	}
	return Mem(RBP, int32(g.frame.slots[v]))
}

// argSlot returns the home of operand v of in, for an instruction that
// reads it straight from there; the read must be one slotReads declares,
// since the plan keeps the slots of constants only for those.
func (g *gen) argSlot(in *ir.Instr, v ir.Value) Operand {
	for k, a := range in.Args {
		if a == v && readsSlot(in, k) {
			return g.slot(v)
		}
	}
	panic(fmt.Sprintf("%s reads %s from its slot, which slotReads does not declare", in.Op, v))
}

// argBits is loadBits for operand v of in, read from its home (see
// argSlot).
func (g *gen) argBits(in *ir.Instr, v ir.Value, reg Reg) {
	m := g.argSlot(in, v)
	if h := g.homes[v]; h.IsXMM() {
		g.a.I(MOVQ, R(h), R(reg))
		return
	}
	g.loadBits(v, m, reg)
}

// loadBits moves the raw bits of v (of v's width) into general purpose
// register reg from m, v's slot or general purpose home.
func (g *gen) loadBits(v ir.Value, m Operand, reg Reg) {
	if k := g.f.Kinds[v]; k == ir.I32 || k == ir.F32 {
		g.a.I(MOVL, m, R(reg))
	} else {
		g.a.I(MOVQ, m, R(reg))
	}
}

// inHome reports whether v's value lives in its register home here (it
// has one, and is not a result elided into RAX).
func (g *gen) inHome(v ir.Value) bool {
	return g.homes[v] != NoReg && !g.cur.elide[v]
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
	return h, x, y, (g.homes[y] != h || x == y) && !g.cur.elide[y]
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

// load moves v into reg (XMM for floats): from RAX if the previous
// instruction left it there, from its argument register, as an
// immediate, or from its home.
func (g *gen) load(v ir.Value, reg Reg) {
	if reg.IsGPR() && g.f.Kinds[v].IsFloat() {
		// The raw bits, e.g. a float argument passed on the stack (floats
		// are never constants the plan reads as immediates).
		if h := g.homes[v]; h.IsXMM() {
			g.a.I(MOVQ, R(h), R(reg))
		} else {
			g.loadBits(v, g.slot(v), reg)
		}
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
	if c, ok := g.plan.consts[v]; ok && !g.f.Kinds[v].IsFloat() {
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

// store moves reg into v's home. A result stored from RAX is what RAX
// holds for the next instruction (hold); an elided one is not stored.
func (g *gen) store(reg Reg, v ir.Value) {
	if reg == RAX && !g.f.Kinds[v].IsFloat() {
		g.hold = v
		if g.cur.elide[v] {
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

// Integer and float operation encodings per kind.
var (
	intOps = map[ir.Op][2]Op{ // [32-bit, 64-bit]
		ir.OpAdd: {ADDL, ADDQ}, ir.OpSub: {SUBL, SUBQ}, ir.OpMul: {IMULL, IMULQ},
		ir.OpAnd: {ANDL, ANDQ}, ir.OpOr: {ORL, ORQ}, ir.OpXor: {XORL, XORQ},
	}
	floatOps = map[ir.Op][2]Op{ // [float32, float64]
		ir.OpAdd: {ADDSS, ADDSD}, ir.OpSub: {SUBSS, SUBSD}, ir.OpMul: {MULSS, MULSD}, ir.OpDiv: {DIVSS, DIVSD},
	}
	shiftOps = map[ir.Op][2]Op{ir.OpShl: {SHLL, SHLQ}, ir.OpShr: {SARL, SARQ}, ir.OpShrUn: {SHRL, SHRQ}}
)

// wide reports whether an operation of kind k works on 64 bits.
func wide(k ir.Kind) bool { return k == ir.I64 || k == ir.Ref }

// pick returns the form of ops for an operation of kind k: the second
// for 64-bit integers, references and float64, else the first.
func pick(ops [2]Op, k ir.Kind) Op {
	if wide(k) || k == ir.F64 {
		return ops[1]
	}
	return ops[0]
}

// binary emits add, sub, mul, and, or, xor and div (float division; the
// integer one goes to divide).
func (g *gen) binary(in *ir.Instr) {
	a, k := g.a, in.Kind
	x, y := in.Args[0], in.Args[1]
	if k.IsFloat() {
		if h, hx, hy, ok := g.twoAddress(in.Op, in.Dst, x, y); ok {
			g.loadTo(hx, h)
			a.I(pick(floatOps[in.Op], k), g.argSlot(in, hy), R(h))
			return
		}
		g.load(x, X0)
		a.I(pick(floatOps[in.Op], k), g.argSlot(in, y), R(X0))
		g.store(X0, in.Dst)
		return
	}
	if in.Op == ir.OpDiv {
		g.divide(in)
		return
	}
	if t, ok := g.cur.into[in.Dst]; ok && t != RAX && g.binaryInto(in, t) {
		return
	}
	if commutative[in.Op] && y == g.avail && x != y {
		x, y = y, x
	}
	if h, hx, hy, ok := g.twoAddress(in.Op, in.Dst, x, y); ok {
		g.loadTo(hx, h)
		a.I(pick(intOps[in.Op], k), g.src(hy), R(h))
		return
	}
	g.load(x, RAX)
	a.I(pick(intOps[in.Op], k), g.src(y), R(RAX))
	g.store(RAX, in.Dst)
}

// binaryInto computes in straight into t, the argument register of the
// next call (planned in blockPlan.into), if an operand order allows: the
// second operand must be neither in RAX (forwarded, slot unwritten) nor
// in t (which the first operand's load overwrites). Otherwise it emits
// nothing and the call takes the result from RAX.
func (g *gen) binaryInto(in *ir.Instr, t Reg) bool {
	x, y := in.Args[0], in.Args[1]
	fits := func(y ir.Value) bool {
		r, held := g.argRegs[y]
		return y != g.avail && !(held && r == t)
	}
	cx, cy, use := x, y, fits(y)
	if !use && commutative[in.Op] && fits(x) {
		cx, cy, use = y, x, true
	}
	if !use {
		return false
	}
	if r, held := g.argRegs[cx]; !held || r != t {
		g.load(cx, t)
	}
	g.a.I(pick(intOps[in.Op], in.Kind), g.src(cy), R(t))
	for v, r := range g.argRegs {
		if r == t {
			delete(g.argRegs, v)
		}
	}
	g.computed = in.Dst
	return true
}

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

// shift emits shl, shr and shr.un.
func (g *gen) shift(in *ir.Instr) {
	a, k := g.a, in.Kind
	op := pick(shiftOps[in.Op], k)
	// A constant count is an immediate, masked to the operand width; a
	// variable one goes in CL, which the 32-bit and 64-bit forms mask
	// the same way (see shiftCount).
	count := R(RCX)
	if c, ok := g.plan.consts[in.Args[1]]; ok {
		count = Imm(shiftCount(c, wide(k)))
	} else {
		g.load(in.Args[1], RCX)
	}
	if g.inHome(in.Dst) {
		h := g.homes[in.Dst]
		g.loadTo(in.Args[0], h)
		a.I(op, count, R(h))
		return
	}
	g.load(in.Args[0], RAX)
	a.I(op, count, R(RAX))
	g.store(RAX, in.Dst)
}

// unary emits neg and not.
func (g *gen) unary(in *ir.Instr) {
	a, k := g.a, in.Kind
	switch {
	case in.Op == ir.OpNeg && k == ir.F32:
		g.argBits(in, in.Args[0], RAX)
		a.I(XORL, Imm(-0x80000000), R(RAX))
		g.storeBits(RAX, in.Dst)
	case in.Op == ir.OpNeg && k == ir.F64:
		g.argBits(in, in.Args[0], RAX)
		a.I(MOVQ, Imm(math.MinInt64), R(RCX))
		a.I(XORQ, R(RCX), R(RAX))
		g.storeBits(RAX, in.Dst)
	default:
		g.load(in.Args[0], RAX)
		if in.Op == ir.OpNeg {
			a.I(pick([2]Op{NEGL, NEGQ}, k), R(RAX))
		} else {
			a.I(pick([2]Op{NOTL, NOTQ}, k), R(RAX))
		}
		g.store(RAX, in.Dst)
	}
}

// divide emits integer division and remainder (the reader has already
// checked the divisor).
func (g *gen) divide(in *ir.Instr) {
	a := g.a
	q := in.Kind == ir.I64
	g.load(in.Args[0], RAX)
	y := g.argSlot(in, in.Args[1])
	signed := in.Op == ir.OpDiv || in.Op == ir.OpRem
	switch {
	case signed && q:
		a.I(CQO)
		a.I(IDIVQ, y)
	case signed:
		a.I(CDQ)
		a.I(IDIVL, y)
	case q:
		a.I(XORL, R(RDX), R(RDX))
		a.I(DIVQ, y)
	default:
		a.I(XORL, R(RDX), R(RDX))
		a.I(DIVL, y)
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
		a.I(CVTSS2SD, g.argSlot(in, in.Args[0]), R(X0))
		a.I(CVTSS2SD, g.argSlot(in, in.Args[1]), R(X1))
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
	b := g.argSlot(in, in.Args[1])
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

// Condition codes of integer comparisons: the jump to take and the
// setcc to materialize each condition.
var (
	intJumps = map[ir.Cond]Op{
		ir.Eq: JEQ, ir.Ne: JNE, ir.Lt: JLT, ir.Le: JLE, ir.Gt: JGT, ir.Ge: JGE,
		ir.LtUn: JCS, ir.LeUn: JLS, ir.GtUn: JHI, ir.GeUn: JCC,
	}
	intSets = map[ir.Cond]Op{
		ir.Eq: SETEQ, ir.Ne: SETNE, ir.Lt: SETLT, ir.Le: SETLE, ir.Gt: SETGT, ir.Ge: SETGE,
		ir.LtUn: SETCS, ir.LeUn: SETLS, ir.GtUn: SETHI, ir.GeUn: SETCC,
	}
)

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
		a.I(intSets[in.Aux.Cond], R(RAX))
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
		a.I(ucom, g.argSlot(in, q), R(X0))
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

// Objects, statics and arrays: fields are 8-byte slots after the method
// table (abi.ObjFields), arrays keep their length at abi.ArrLen and their
// elements, of their own size, from abi.ArrData. Allocation is inline;
// type tests, boxing, array creation and covariance checks are helper
// exits.

// field emits ldfield and stfield.
func (g *gen) field(in *ir.Instr) {
	base := g.reg(in.Args[0], RCX)
	m := Mem(base, int32(abi.ObjFields+8*in.Aux.Field.Slot))
	if in.Op == ir.OpLdField {
		g.loadMem(m, in.Dst)
	} else {
		g.storeMem(in.Args[1], m)
	}
}

// static emits ldstatic and ststatic.
func (g *gen) static(in *ir.Instr) {
	g.a.I(MOVQ, Imm(int64(g.env.StaticAddr(in.Aux.Field))), R(RCX))
	if in.Op == ir.OpLdStatic {
		g.loadMem(Mem(RCX, 0), in.Dst)
	} else {
		g.storeMem(in.Args[0], Mem(RCX, 0))
	}
}

// alloc emits OpAlloc: bump allocation inline; the heap is fresh zeroed
// memory. Only a full heap exits (HelperAlloc then reports it).
func (g *gen) alloc(in *ir.Instr) {
	a := g.a
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
}

// typeTest emits isinst and typeis: helper exits with the object and the
// type's method table.
func (g *gen) typeTest(in *ir.Instr) {
	helper := abi.HelperIsInst
	if in.Op == ir.OpTypeIs {
		helper = abi.HelperTypeIs
	}
	g.load(in.Args[0], RDI)
	g.a.I(MOVQ, Imm(int64(g.env.TypeMT(in.Aux.Type))), R(RSI))
	g.exit(helper, 0, false, in.ILOffset)
	g.store(RAX, in.Dst)
}

// box emits OpBox: a helper exit with the method table and the value's
// bits.
func (g *gen) box(in *ir.Instr) {
	g.a.I(MOVQ, Imm(int64(g.env.TypeMT(in.Aux.Type))), R(RDI))
	g.argBits(in, in.Args[0], RSI)
	g.exit(abi.HelperBox, 0, false, in.ILOffset)
	g.store(RAX, in.Dst)
}

// unbox emits OpUnbox (the reader has checked the box's type).
func (g *gen) unbox(in *ir.Instr) {
	g.load(in.Args[0], RCX)
	g.loadMem(Mem(RCX, abi.BoxValue), in.Dst)
}

// newArr emits OpNewArr: a helper exit with the array type's method table
// and the length.
func (g *gen) newArr(in *ir.Instr) {
	g.a.I(MOVQ, Imm(int64(g.env.TypeMT(il.ArrayOf(in.Aux.Type)))), R(RDI))
	g.load(in.Args[0], RSI)
	g.exit(abi.HelperNewArr, 0, false, in.ILOffset)
	g.store(RAX, in.Dst)
}

// arrLen emits OpArrLen.
func (g *gen) arrLen(in *ir.Instr) {
	base := g.reg(in.Args[0], RCX)
	g.loadMem(Mem(base, abi.ArrLen), in.Dst)
}

// elem emits ldelem and stelem (the reader has checked the index).
func (g *gen) elem(in *ir.Instr) {
	base := g.reg(in.Args[0], RCX)
	idx := g.reg(in.Args[1], RDX)
	m := MemIdx(base, idx, uint8(il.ElemSize(in.Aux.Type)), abi.ArrData)
	if in.Op == ir.OpLdElem {
		g.loadElem(in.Aux.Type, m, in.Dst)
	} else {
		g.storeElem(in.Aux.Type, m, in.Args[2])
	}
}

// canStore emits OpCanStore: the array covariance check, a helper exit.
func (g *gen) canStore(in *ir.Instr) {
	g.load(in.Args[0], RDI)
	g.load(in.Args[1], RSI)
	g.exit(abi.HelperCanStore, 0, false, in.ILOffset)
	g.store(RAX, in.Dst)
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
	if c, ok := g.plan.consts[v]; ok && v != g.avail {
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

// outArgSlots returns the number of stack slots the calls of f pass
// arguments in (the most any one call needs).
func outArgSlots(f *ir.Func) int {
	out := 0
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == ir.OpCall || in.Op == ir.OpCallVirt {
				_, ns := classify(kinds(f, in.Args))
				out = max(out, ns)
			}
		}
	}
	return out
}

// inlineExcCtor reports whether a method of kind k is a base library
// exception constructor whose work (storing the message) the generated
// code does itself.
func inlineExcCtor(k il.BuiltinKind) bool {
	switch k {
	case il.ArgumentNullExceptionCtorString, il.ArgumentOutOfRangeExceptionCtorString:
		return false // the argument is a parameter name
	}
	return k.IsExceptionCtor()
}

// call emits OpCall and OpCallVirt.
func (g *gen) call(in *ir.Instr) {
	a := g.a
	callee := in.Aux.Method
	if callee.BuiltinKind == il.ObjectCtor {
		return // Object's constructor does nothing
	}
	if inlineExcCtor(callee.BuiltinKind) {
		// Store the message (the class's interned default, or the
		// argument) into the exception's _message slot; a null this takes
		// the helper, which raises NullReferenceException.
		slow, done := a.NewLabel(), a.NewLabel()
		g.load(in.Args[0], RCX)
		a.I(TESTQ, R(RCX), R(RCX))
		a.Jump(JEQ, slow)
		if len(callee.Params) == 1 {
			g.load(in.Args[1], RAX)
		} else if msg, ok := il.DefaultMessage(callee.Owner.Name); ok {
			a.I(MOVQ, Imm(int64(g.env.StringAddr(msg))), R(RAX))
		} else {
			a.I(XORL, R(RAX), R(RAX))
		}
		a.I(MOVQ, R(RAX), Mem(RCX, abi.ObjFields))
		a.Jump(JMP, done)
		a.Bind(slow)
		g.callGeneric(in)
		a.Bind(done)
		return
	}
	g.callGeneric(in)
}

// callGeneric emits a call: arguments in registers (and the stack), then
// the vtable, the helper exit of a base library method, or the cell.
func (g *gen) callGeneric(in *ir.Instr) {
	a := g.a
	callee := in.Aux.Method
	locs, _ := classify(kinds(g.f, in.Args))
	for i, l := range locs {
		if l.stack >= 0 {
			g.load(in.Args[i], RAX)
			a.I(MOVQ, R(RAX), Mem(RSP, int32(8*l.stack)))
		}
	}
	for i, l := range locs {
		if l.stack < 0 && !(in.Args[i] == g.computed && g.cur.into[in.Args[i]] == l.reg) {
			g.load(in.Args[i], l.reg)
		}
	}
	switch {
	case in.Op == ir.OpCallVirt:
		a.I(MOVQ, Mem(RDI, abi.ObjMT), R(RAX))
		a.I(CALL, Mem(RAX, int32(abi.MTVTable+abi.MTSlotSize*callee.Slot)))
		g.site(in.ILOffset)
		g.note("callvirt " + callee.FullName())
	case callee.Builtin:
		g.exit(abi.HelperBuiltin, uint64(callee.BuiltinKind), true, in.ILOffset)
		g.note("call " + callee.BuiltinKind.String() + " (base library)")
	default:
		// CALL [RIP+disp32] to the callee's cell; the displacement is set
		// at install time (Code.CellRefs).
		a.Bytes(0xFF, 0x15, 0, 0, 0, 0)
		g.cellRefs = append(g.cellRefs, cellRef{a.Mark(), g.env.CellAddr(callee)})
		g.site(in.ILOffset)
		g.note("call " + callee.FullName())
	}
	if in.Dst != ir.NoValue {
		if g.f.Kinds[in.Dst].IsFloat() {
			g.store(X0, in.Dst)
		} else {
			g.store(RAX, in.Dst)
		}
	}
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

// site records the return address of the call just emitted.
func (g *gen) site(ilOffset int) {
	g.sites = append(g.sites, siteMark{g.a.Mark(), ilOffset})
}

// note names what the call just emitted calls, for dumps.
func (g *gen) note(text string) {
	g.notes = append(g.notes, noteMark{g.a.Mark(), text})
}

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
		g.exit(abi.HelperRethrow, 0, false, t.ILOffset)
		a.I(INT3)
	case ir.OpThrowHelper:
		a.I(MOVQ, Imm(int64(g.env.ClassMT(t.Aux.Class))), R(RDI))
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
		g.site(t.ILOffset)
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
