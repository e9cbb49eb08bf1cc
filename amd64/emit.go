package amd64

import (
	"fmt"
	"strings"

	"miniil/abi"
	"miniil/funclet"
	"miniil/il"
	"miniil/ir"
)

// Code generation is split by concern:
//
//	plan.go      the peephole plan, decided before allocation (Allocate)
//	regalloc.go  register homes
//	frame.go     frame layout, prologs, epilogs, the cold section
//	emit.go      the driver (Emit): funclets, blocks, branches, the Code
//	move.go      where values are: homes, slots, immediates, RAX
//	arith.go     integer and float arithmetic, shifts, compares
//	conv.go      conversions
//	mem.go       fields, statics, arrays, allocation
//	call.go      calls, helper exits, the calling convention
//	eh.go        throws and EH terminators

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
// EH clause builder need to know about how it was laid out. A Code made
// from a function with an ir.Cache comes from that cache, as do its
// lists (the abi.Method's too, but for GC.Locs and the EH clauses): like
// the IR, it is valid until the cache's next Reset. The machine code is
// the Assembler's (AssembleScratch), valid until its next blob. What
// outlives the compile copies them (jit.Method.Compiled, the runtime's
// install).
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
	// Blocks are the RBP offsets of the frame blocks (ir.Func.Slots).
	Blocks []int
	// Slots is each value's frame slot, an RBP offset (0: none; a
	// register home or no location).
	Slots []int
	// Barriers and BarriersElided count the reference stores that got a
	// write barrier and those that needed none (null stores, stores into
	// frame blocks and into objects allocated inline with no safepoint
	// since).
	Barriers, BarriersElided int
}

// Note names the target of the call or exit whose return address is at
// Offset: "call Foo::Bar", "helper NewArr", "poll". Only dumps read it,
// so a note keeps its parts (the method it names, say) and its text is
// made when asked for (Text): a compile makes no string per call.
type Note struct {
	Offset int
	text   string     // the text, or what comes before the name
	callee *il.Method // whose full name is the name, if set
	name   string     // else the name
	suffix string     // after the name
}

// Text returns the note's text.
func (n Note) Text() string {
	name := n.name
	if n.callee != nil {
		name = n.callee.FullName()
	}
	return n.text + name + n.suffix
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
	plan   *plan       // read-only
	homes  []Reg       // read-only
	liveIn []valueList // read-only, by block ID: use liveInto
	gc     *gcPlan     // read-only
	frame  *frame      // read-only

	// Labels of blocks (by ID) and funclets (in layout order), the IDs of
	// the blocks that start a funclet, and funcletOf's index.
	blocks        []Label
	funcletLabels []Label
	funcletStart  []bool // by block ID
	funcletByKey  map[funcletKey]Label

	// What the code records, resolved to offsets after assembly.
	sites      []siteMark
	cellRefs   []cellRef
	notes      []noteMark
	safepoints []safepoint // GC information of the cold section's calls, in code order
	cold       []coldCall  // out-of-line calls, emitted after the last funclet

	// cur is the plan of the block being emitted, curInstr the
	// instruction (or terminator) and curFunclet the funclet (an index in
	// lay.Funcs).
	cur        blockPlan
	curBlock   *ir.Block
	curInstr   *ir.Instr
	curFunclet int
	// curAfter and curPoll are the tracked GC values live across the
	// calls and exits of each instruction of the block (by position; the
	// terminator last) and at its poll.
	curAfter []vlist
	curPoll  vlist
	curIndex int
	regState

	// The write barrier (barrier.go): values that are frame block
	// addresses, objects allocated inline with no safepoint since, and
	// counts of barriers emitted and left out.
	frameAddr                ir.ValueSet
	fresh                    map[ir.Value]bool
	barriers, barriersElided int
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
	// fwd is a result elided into RAX that the previous instruction
	// computed in another register instead: the home of the next
	// instruction's result (see nextHome).
	fwd struct {
		v ir.Value
		r Reg
	}
	// argRegs maps arguments to the registers that still hold them, from
	// the prolog until the entry block first clobbers an argument
	// register; entryArgRegs is what it was at the end of the entry block.
	argRegs, entryArgRegs map[ir.Value]Reg
	// argsUnstored tells whether the register arguments are not in their
	// homes yet, the prolog having deferred their stores (plan.deferArgs):
	// in the entry block, and in a block after it that only returns.
	argsUnstored bool
}

// siteMark, cellRef and noteMark are a call site, a CALL [RIP+disp32] to
// a cell and a note, by the mark just after the call. A site also keeps
// what its GC information comes from: the instruction whose code makes
// the call, its funclet, and whether it calls managed code.
type (
	siteMark struct {
		mark     MarkID
		ilOffset int32
		inline   int32
		funclet  int32
		flags    abi.SafepointFlags
		vals     vlist // the tracked values live across the call
	}
	cellRef struct {
		mark MarkID
		cell uintptr
	}
	noteMark struct {
		mark MarkID
		note Note // without its Offset
	}
)

// genScratch is what Emit keeps from compile to compile (ir.Keep).
type genScratch struct {
	sites      []siteMark
	cellRefs   []cellRef
	notes      []noteMark
	safepoints []safepoint
	cold       []coldCall
	fresh      map[ir.Value]bool
}

// Emit generates the machine code of f, laid out by lay, with the plan
// and homes of alloc.
func Emit(f *ir.Func, lay *funclet.Layout, alloc *Alloc, env Env, a *Assembler) (code *Code, err error) {
	a.Reset()
	g := &gen{a: a, f: f, env: env, lay: lay, plan: alloc.plan, homes: alloc.Homes, liveIn: alloc.liveIn, gc: alloc.gc,
		regState: regState{hold: ir.NoValue, avail: ir.NoValue, computed: ir.NoValue},

		frameAddr: frameAddrs(f)}
	defer func() {
		if r := recover(); r != nil {
			code, err = nil, fmt.Errorf("%s: code generation failed: %v", f.Method.FullName(), r)
		}
	}()
	// The lists emission records (copied into the Code at the end) grow
	// in memory kept from compile to compile.
	s := ir.Keep[genScratch](f.Cache)
	g.sites, g.cellRefs, g.notes, g.safepoints, g.cold = s.sites[:0], s.cellRefs[:0], s.notes[:0], s.safepoints[:0], s.cold[:0]
	g.fresh = ir.Emptied(&s.fresh)
	defer func() {
		*s = genScratch{g.sites[:0], g.cellRefs[:0], g.notes[:0], g.safepoints[:0], g.cold[:0], g.fresh}
	}()
	g.fwd.v = ir.NoValue
	g.frame = layoutFrame(f, lay, alloc.Homes, alloc.Transient)
	m := g.emit()
	blob, err := a.AssembleScratch()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Method.FullName(), err)
	}
	return g.result(blob, m), nil
}

// codeMarks are the places emit marks for the Code: where each block and
// funclet starts, where the main body's prolog and the last funclet end,
// and where the cold section starts.
type codeMarks struct {
	blocks, funclets          []MarkID
	prologEnd, end, coldStart MarkID
}

// emit emits the funclets, each a prolog and its blocks, then the cold
// section.
func (g *gen) emit() codeMarks {
	a, f, lay := g.a, g.f, g.lay
	g.blocks = ir.Make[Label](f.Cache, len(f.Blocks))
	for i := range f.Blocks {
		g.blocks[i] = a.NewLabel()
	}
	g.funcletLabels = ir.Make[Label](f.Cache, len(lay.Funcs))
	g.funcletStart = ir.Make[bool](f.Cache, len(f.Blocks))
	for k, fn := range lay.Funcs {
		g.funcletLabels[k] = a.NewLabel()
		g.funcletStart[fn.Blocks[0].ID] = true
	}
	m := codeMarks{blocks: ir.Make[MarkID](f.Cache, len(f.Blocks)), funclets: ir.Make[MarkID](f.Cache, len(lay.Funcs))}
	for k, fn := range lay.Funcs {
		a.Bind(g.funcletLabels[k])
		m.funclets[k] = a.Mark()
		g.curFunclet, g.curInstr = k, nil
		if k == 0 {
			m.prologEnd = g.prolog()
		} else {
			g.funcletProlog()
		}
		for _, b := range fn.Blocks {
			a.Bind(g.blocks[b.ID])
			m.blocks[b.ID] = a.Mark()
			g.block(b)
		}
	}
	m.end = a.Mark()
	m.coldStart = g.emitCold()
	return m
}

// result is the Code of the assembled blob, with the offsets of m and of
// what emission recorded.
func (g *gen) result(blob *Blob, m codeMarks) *Code {
	f, lay := g.f, g.lay
	// The Code and its lists come from the cache (see Code).
	code := ir.New[Code](f.Cache)
	*code = Code{Method: abi.Method{Code: blob.Code, ColdStart: blob.Marks[m.coldStart]},
		FrameSize: g.frame.size, PrologSize: blob.Marks[m.prologEnd], PSPOffset: g.frame.pspOff, Layout: lay,
		Homes: g.homes, Saves: g.frame.saves, Blocks: g.frame.blocks, Slots: g.frame.slots,
		Barriers: g.barriers, BarriersElided: g.barriersElided}
	inFilter := map[*ir.Region]bool{}
	for _, r := range f.Regions { // parents first
		inFilter[r] = r.Kind == ir.RegionFilter || inFilter[r.Parent]
	}
	for k, fn := range lay.Funcs {
		fc := abi.Funclet{Kind: fn.Kind, Clause: fn.Clause, Start: blob.Marks[m.funclets[k]], FrameSize: g.frame.size,
			InFilter: inFilter[fn.Region], Enclosing: -1}
		if k+1 < len(lay.Funcs) {
			fc.End = blob.Marks[m.funclets[k+1]]
		} else {
			fc.End = blob.Marks[m.end]
		}
		if k > 0 {
			fc.FrameSize = g.frame.funcletSize
		}
		code.Funclets = ir.Append(f.Cache, code.Funclets, fc)
	}
	code.Sites = ir.Make[abi.Site](f.Cache, len(g.sites))[:0]
	for _, s := range g.sites {
		code.Sites = append(code.Sites, abi.Site{Offset: blob.Marks[s.mark], ILOffset: int(s.ilOffset), Inline: s.inline})
	}
	for _, s := range f.Inlines {
		code.Inlines = ir.Append(f.Cache, code.Inlines, abi.InlineSite{Method: s.Method, Parent: s.Parent, ILOffset: s.ILOffset})
	}
	code.GC = g.gcInfo(blob)
	code.BlockOffsets = ir.Make[int](f.Cache, len(m.blocks))
	for i, mk := range m.blocks {
		code.BlockOffsets[i] = blob.Marks[mk]
	}
	for _, c := range g.cellRefs {
		code.CellRefs = ir.Append(f.Cache, code.CellRefs, abi.CellRef{Offset: blob.Marks[c.mark] - 4, Cell: c.cell})
	}
	code.Notes = ir.Make[Note](f.Cache, len(g.notes))
	for i, n := range g.notes {
		code.Notes[i] = n.note
		code.Notes[i].Offset = blob.Marks[n.mark]
	}
	return code
}

// block emits block b: its instructions, then its terminator.
func (g *gen) block(b *ir.Block) {
	f := g.f
	g.hold = ir.NoValue // a branch target: RAX holds nothing known
	switch {
	case b.ID == 0 && len(b.Preds) == 0:
		g.argsUnstored = g.plan.deferArgs
	case b.ID != 0 && readsArgRegs(f, b):
		g.argRegs = g.entryArgRegs // reached only from the entry block
		g.argsUnstored = g.plan.deferArgs && returnsOnly(b)
		if g.plan.deferArgs && !returnsOnly(b) {
			g.storeArgs(b)
		}
	default:
		g.argRegs = nil
		g.argsUnstored = false
	}
	g.cur = g.plan.blocks[b.ID]
	g.fwd.v = ir.NoValue
	clear(g.fresh)
	g.curAfter, g.curPoll = g.gc.blockSafepoints(b, g.curAfter)
	for i, in := range b.Instrs {
		if in == g.cur.fused {
			continue // emitted by the terminator
		}
		if !keepsArgRegs(in) {
			g.argRegs = nil
		}
		g.avail, g.hold = g.hold, ir.NoValue
		computed, fwd := g.computed, g.fwd
		g.curInstr, g.curIndex, g.curBlock = in, i, b
		g.instr(in)
		g.noteFresh(in)
		if g.computed == computed {
			g.computed = ir.NoValue
		}
		if g.fwd == fwd {
			g.fwd.v = ir.NoValue
		}
	}
	g.avail, g.hold = g.hold, ir.NoValue
	if b.ID == 0 {
		g.entryArgRegs = g.argRegs
		if t := b.Term.Op; t != ir.OpIf && t != ir.OpJump {
			g.entryArgRegs = nil
		}
	}
	g.curInstr, g.curIndex = b.Term, len(b.Instrs)
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
	case ir.OpSlotAddr:
		g.slotAddr(in)
	case ir.OpStaticAddr:
		g.staticAddr(in)
	case ir.OpLea, ir.OpFieldAddr, ir.OpBoxData:
		g.lea(in)
	case ir.OpElemAddr:
		g.elemAddr(in)
	case ir.OpLoad:
		g.loadInd(in)
	case ir.OpStore:
		g.storeInd(in)
	case ir.OpCopyBlk:
		g.copyBlk(in)
	case ir.OpZeroBlk:
		g.zeroBlk(in)
	case ir.OpCall, ir.OpCallVirt:
		g.call(in)
	case ir.OpCatchArg:
		g.catchArg(in)
	case ir.OpDepthCheck:
		g.depthCheck(in)
	default:
		panic(fmt.Sprintf("unknown instruction %s", in.Op))
	}
}

// term emits block b's terminator, after a poll if it is a loop back edge
// (a branch to a block at or before it in layout order).
func (g *gen) term(b *ir.Block) {
	a, t := g.a, b.Term
	if g.plan.polls[b.ID] {
		g.poll(b)
	}
	next := func(s *ir.Block) bool { return s.ID == b.ID+1 && !(s.ID < len(g.funcletStart) && g.funcletStart[s.ID]) }
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
// cmpOperand returns the operand a fused compare reads for its second
// operand y: an array length the plan contained in the compare
// (blockPlan.lenOf) is read from the array's header, the array loaded
// into RCX when it has no register.
func (g *gen) cmpOperand(y ir.Value) Operand {
	if y != g.cur.lenOf.length {
		return g.src(y)
	}
	return Mem(g.reg(g.cur.lenOf.array, RCX), abi.ArrLen)
}

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
	ys := g.cmpOperand(y)
	_, yConst := g.plan.consts.get(y)
	_, xConst := g.plan.consts.get(x)
	r, inReg := g.argRegs[x]
	switch {
	case g.avail == x:
		a.I(cmp, R(RAX), ys)
	case inReg:
		a.I(cmp, R(r), ys)
	case g.inHome(x):
		a.I(cmp, R(g.homes[x]), ys)
	case yConst && !xConst:
		a.I(cmp, g.src(x), ys) // x is neither a constant nor in a register: its slot
	default:
		g.load(x, RAX)
		a.I(cmp, R(RAX), ys)
	}
	return intJumps[c.Aux.Cond]
}

// liveInto returns the values live into main body block b (none for
// other blocks).
func (g *gen) liveInto(b *ir.Block) valueList {
	if b.ID < 0 || b.ID >= len(g.liveIn) {
		return nil
	}
	return g.liveIn[b.ID]
}
