package amd64

import (
	"bytes"

	"miniil/abi"
	"miniil/funclet"
	"miniil/ir"
)

// Frames.
//
// The main body's frame, below the return address:
//
//	[RBP]             the caller's RBP
//	[RBP-8*n]         value slots, then the callee-saved registers' slots
//	[RSP+8*out]       the PSPSym (methods with funclets)
//	[RSP..RSP+8*out)  outgoing stack arguments
//
// A funclet's frame holds its outgoing arguments and its copy of the
// PSPSym at the same RSP offset; its RBP points at the main body's frame,
// so every slot has the same RBP offset in every funclet.

// frame is the layout of a method's frames, fixed before its code is
// emitted.
type frame struct {
	slots []int // each value's frame slot (an RBP offset; 0 if none)
	// blocks are the RBP offsets of the frame blocks (ir.Func.Slots).
	blocks []int
	saves  []Save // the callee-saved registers the prolog stores
	size   int    // bytes below the saved RBP in the main body's frame
	// funcletSize is the frame size of every funclet.
	funcletSize int
	// pspOff is the RSP-relative offset of the PSPSym in every frame.
	pspOff int
	// hasEH is true when the method has funclets (and a PSPSym).
	hasEH bool
}

// layoutFrame lays out the frames of f: a slot for each value that has
// neither a register home nor transient set, the callee-saved registers
// the homes use (all of them in a method with handlers), the outgoing
// arguments and the PSPSym.
func layoutFrame(f *ir.Func, lay *funclet.Layout, homes []Reg, transient ir.ValueSet) *frame {
	fr := ir.Keep[frame](f.Cache) // one a compile: kept in the cache (its lists, the Code's, from the cache too)
	*fr = frame{hasEH: len(lay.Funcs) > 1}
	out := outArgSlots(f)
	fr.pspOff = 8 * out
	psp := 0
	if fr.hasEH {
		psp = 8
	}
	fr.slots = ir.Make[int](f.Cache, len(f.Kinds))
	n := 0
	for v := range fr.slots {
		if homes[v] == NoReg && !transient.Has(ir.Value(v)) {
			n++
			fr.slots[v] = -8 * n
		}
	}
	n = fr.layoutBlocks(f, n)
	for _, r := range CalleeSaved {
		used := fr.hasEH
		for _, h := range homes {
			used = used || h == r
		}
		if used {
			n++
			fr.saves = ir.Append(f.Cache, fr.saves, Save{Reg: r, Offset: -8 * n})
		}
	}
	fr.size = (8*n + 8*out + psp + 15) &^ 15
	fr.funcletSize = (8*out + 8 + 15) &^ 15
	return fr
}

// argRegMap holds the map of gen.argRegs, kept in the cache from
// compile to compile.
type argRegMap struct{ m map[ir.Value]Reg }

// prolog emits the main body's prolog: the frame, the stack check, the
// callee-saved stores, the PSPSym, the arguments' stores (unless the plan
// defers them) and the locals' zeroing. It returns the mark of its end.
func (g *gen) prolog() MarkID {
	a, f, fr := g.a, g.f, g.frame
	a.I(PUSHQ, R(RBP))
	a.I(MOVQ, R(RSP), R(RBP))
	// Small frames are checked after allocation (the runtime keeps a
	// reserve below the limit); large ones before, so that frames of any
	// size stay above the limit (RAX is free: arguments are in RDI...).
	sp := safepoint{ilOffset: -1, flags: abi.SPProlog, fixed: g.prologLive(), rax: ir.NoValue}
	if fr.size < 4096 {
		if fr.size > 0 {
			a.I(SUBQ, Imm(int64(fr.size)), R(RSP))
		}
		g.stackCheck(RSP, abi.CtxStackLimit, sp)
	} else {
		a.I(LEAQ, Mem(RSP, int32(-fr.size)), R(RAX))
		g.stackCheck(RAX, abi.CtxStackLimit, sp)
		a.I(SUBQ, Imm(int64(fr.size)), R(RSP))
	}
	// No poll here: a poll request also fails the stack check above
	// (abi.PollInterval).
	for _, sv := range fr.saves {
		a.I(MOVQ, R(sv.Reg), Mem(RBP, int32(sv.Offset)))
	}
	if fr.hasEH {
		a.I(MOVQ, R(RSP), Mem(RSP, int32(fr.pspOff))) // PSPSym = InitialSP
	}
	g.zeroSlots()
	g.zeroUntracked()
	locs, _ := classify(f.Cache, f.Kinds[:f.NumArgs:f.NumArgs])
	g.argRegs = ir.Emptied(&ir.Keep[argRegMap](f.Cache).m)
	for i, l := range locs {
		v := ir.Value(i)
		if !g.located(v) {
			continue // its value is never read (see located)
		}
		if l.stack >= 0 {
			a.I(MOVQ, Mem(RBP, int32(16+8*l.stack)), R(RAX))
			g.storeBits(RAX, v)
			continue
		}
		if !g.plan.deferArgs {
			g.store(l.reg, v)
		}
		if l.reg.IsGPR() {
			g.argRegs[v] = l.reg
		}
	}
	if f.NumLocals > 0 {
		a.I(XORL, R(RAX), R(RAX))
		for i := 0; i < f.NumLocals; i++ {
			if v := ir.Value(f.NumArgs + i); !g.plan.deadLocals.Has(v) && g.located(v) {
				g.storeBits(RAX, v)
			}
		}
	}
	return a.Mark()
}

// located reports whether variable v (an argument or local) has a
// location, a register home or a frame slot, for the prolog to store its
// initial value in. One without (a compare fused into its branch and
// computed straight into the variable its only reader reads) is never
// read before that compare writes it: the caller's argument or the
// initial zero is never seen.
func (g *gen) located(v ir.Value) bool {
	return g.homes[v] != NoReg || g.frame.slots[v] != 0
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
	locs, _ := classify(g.f.Cache, g.f.Kinds[:g.f.NumArgs])
	for i, l := range locs {
		v := ir.Value(i)
		if l.stack < 0 && g.located(v) && (g.homes[v] == NoReg || g.liveInto(b).Has(v)) {
			g.store(l.reg, v)
		}
	}
}

// epilog restores the callee-saved registers and returns from the main
// body.
func (g *gen) epilog() {
	for _, sv := range g.frame.saves {
		g.a.I(MOVQ, Mem(RBP, int32(sv.Offset)), R(sv.Reg))
	}
	g.a.I(LEAVEQ)
	g.a.I(RET)
}

// funcletProlog starts a funclet: RDI is the establisher frame (whose
// PSPSym holds the main body's InitialSP), RSI the exception object of a
// catch or filter funclet.
func (g *gen) funcletProlog() {
	a, fr := g.a, g.frame
	a.I(PUSHQ, R(RBP))
	a.I(SUBQ, Imm(int64(fr.funcletSize)), R(RSP))
	// Against the hard limit: a funclet adds no call depth, which the
	// runtime may be counting through CtxStackLimit.
	g.stackCheck(RSP, abi.CtxStackHard,
		safepoint{ilOffset: -1, funclet: g.curFunclet, flags: abi.SPProlog, fixed: g.funcletPrologLive(g.curFunclet), rax: ir.NoValue})
	a.I(MOVQ, Mem(RDI, int32(fr.pspOff)), R(RAX))
	a.I(MOVQ, R(RAX), Mem(RSP, int32(fr.pspOff)))
	a.I(LEAQ, Mem(RAX, int32(fr.size)), R(RBP))
	g.argRegs = nil
}

// funcletEpilog returns from a funclet.
func (g *gen) funcletEpilog() {
	g.a.I(ADDQ, Imm(int64(g.frame.funcletSize)), R(RSP))
	g.a.I(POPQ, R(RBP))
	g.a.I(RET)
}

// stackCheck compares v (RSP, or RAX holding the RSP a large frame will
// have) with the stack limit at [R15+limit] and calls the overflow stub,
// out of line, when it is below; after the call the check runs again
// (the runtime may have moved the limit: a poll request, or the call
// depth count). jitrt decodes this form: the call's return address is
// followed by a jump to `CMP v, [R15+limit]`. sp is the GC information
// of the call (its mark is set when the call is emitted).
func (g *gen) stackCheck(v Reg, limit int32, sp safepoint) {
	check := g.a.NewLabel()
	g.a.Bind(check)
	g.a.I(CMPQ, R(v), Mem(R15, limit))
	g.outOfLine(JCS, abi.CtxOverflowStub, check, sp)
}

// depthCheck emits an inlined call's call-depth check (ir.OpDepthCheck):
// the stack check a prolog makes, of the RSP the inlined frames would
// have had (16 bytes each, the least a frame takes: see jitrt's call
// depth), against the soft limit. The runtime tells it from a prolog's
// check by its safepoint, which is in inlined code.
func (g *gen) depthCheck(in *ir.Instr) {
	g.avail = ir.NoValue // RAX is overwritten
	g.a.I(LEAQ, Mem(RSP, int32(-16*in.Aux.Int)), R(RAX))
	g.stackCheck(RAX, abi.CtxStackLimit, safepoint{ilOffset: in.ILOffset, inline: in.Inline, funclet: g.curFunclet,
		vals: g.gc.list(g.curAfter[g.curIndex]), rax: ir.NoValue})
}

// poll exits to Go when the runtime asks for it (CtxPoll at or below
// zero, see abi.PollInterval), before block b's terminator. It only
// reads memory, so polls add no dependency chain between calls or loop
// iterations.
func (g *gen) poll(b *ir.Block) {
	back := g.a.NewLabel()
	g.a.I(CMPQ, Mem(R15, abi.CtxPoll), Imm(0))
	g.outOfLine(JLE, abi.CtxPollStub, back, g.pollSafepoint(b))
	g.a.Bind(back)
}

// coldCall is a call to a runtime stub placed out of line, in the cold
// section after the funclets: the stub at [R15+stub], then a jump back to
// back; sp is its GC information.
type coldCall struct {
	at, back Label
	stub     int32
	sp       safepoint
}

// coldGap is the padding between the last funclet and the cold section:
// no cache line holds both hot code and a cold call.
const coldGap = 64

// int3Gap is the padding itself: INT3s, so a stray jump into it traps.
var int3Gap = [coldGap]byte(bytes.Repeat([]byte{0xCC}, coldGap))

// outOfLine jumps with op to a call of the stub at [R15+stub] placed in
// the cold section, which jumps back to back. Such calls run rarely
// (polls, stack overflow) and must stay away from hot code: a call that
// has run once takes a branch target buffer entry for its cache line, and
// one in a loop's line, or in the line of a small method or a finally
// called every iteration, made that code 10-20% slower for good after the
// first poll (measured on Zen 4).
func (g *gen) outOfLine(op Op, stub int32, back Label, sp safepoint) {
	at := g.a.NewLabel()
	g.a.Jump(op, at)
	g.cold = append(g.cold, coldCall{at: at, back: back, stub: stub, sp: sp})
}

// emitCold emits the cold section: coldGap bytes of INT3, then the
// out-of-line calls. It returns the mark of the section's start.
func (g *gen) emitCold() MarkID {
	g.a.Bytes(int3Gap[:]...)
	start := g.a.Mark()
	for _, c := range g.cold {
		g.a.Bind(c.at)
		g.a.I(CALL, Mem(R15, c.stub))
		c.sp.mark = g.a.Mark()
		g.safepoints = append(g.safepoints, c.sp)
		switch {
		case c.stub == abi.CtxPollStub:
			g.note("poll")
		case c.sp.inline > 0:
			g.note("stack overflow (call depth of an inlined call)")
		default:
			g.note("stack overflow")
		}
		g.a.Jump(JMP, c.back)
	}
	g.cold = g.cold[:0]
	return start
}
