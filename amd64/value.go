package amd64

import (
	"fmt"

	"miniil/abi"
	"miniil/il"
	"miniil/ir"
)

// Addresses and memory: managed pointers and value types (see package
// reader). Frame blocks (ir.Func.Slots) lie below the value slots, at
// fixed RBP offsets, so funclets reach them as the main body does; the
// prolog zeroes the locals' blocks. A block copy or zeroing of up to
// unrollWords words is unrolled, a longer one is a loop.

// unrollWords is the longest block copy or zeroing emitted unrolled.
const unrollWords = 16

// maxFrameBytes bounds a frame: its offsets must fit in 32 bits with room
// to spare. A larger one is a compile error.
const maxFrameBytes = 1 << 30

// slotAddr emits OpSlotAddr.
func (g *gen) slotAddr(in *ir.Instr) {
	g.define(LEAQ, Mem(RBP, int32(g.frame.blocks[in.Aux.Int])), in.Dst)
}

// staticAddr emits OpStaticAddr.
func (g *gen) staticAddr(in *ir.Instr) {
	g.define(MOVQ, Imm(int64(g.env.StaticAddr(in.Aux.Field()))), in.Dst)
}

// lea emits OpLea, OpFieldAddr and OpBoxData: an offset from an address
// or an object.
func (g *gen) lea(in *ir.Instr) {
	off := int(in.Aux.Int)
	switch in.Op {
	case ir.OpFieldAddr:
		off = abi.ObjFields + 8*in.Aux.Field().Slot
	case ir.OpBoxData:
		off = abi.BoxValue
	}
	g.define(LEAQ, Mem(g.reg(in.Args[0], RCX), int32(off)), in.Dst)
}

// elemAddr emits OpElemAddr: ArrData + index * element size from the
// array's start.
func (g *gen) elemAddr(in *ir.Instr) {
	base := g.reg(in.Args[0], RCX)
	size := il.ElemSize(in.Aux.Type)
	g.load(in.Args[1], RDX)
	scale := uint8(size)
	if size != 1 && size != 2 && size != 4 && size != 8 {
		g.a.I(IMUL3Q, Imm(int64(size)), R(RDX), R(RDX))
		scale = 1
	}
	g.define(LEAQ, MemIdx(base, RDX, scale, abi.ArrData), in.Dst)
}

// define emits `op src, r` with r v's register home, or RAX, which is
// then stored to v's slot.
func (g *gen) define(op Op, src Operand, v ir.Value) {
	if g.inHome(v) {
		g.a.I(op, src, R(g.homes[v]))
		return
	}
	g.a.I(op, src, R(RAX))
	g.store(RAX, v)
}

// loadInd emits OpLoad.
func (g *gen) loadInd(in *ir.Instr) {
	base := g.reg(in.Args[0], RCX)
	g.loadElem(in.Aux.Type, Mem(base, int32(in.Aux.Int)), in.Dst)
}

// storeInd emits OpStore.
func (g *gen) storeInd(in *ir.Instr) {
	base := g.reg(in.Args[0], RCX)
	m := Mem(base, int32(in.Aux.Int))
	if g.f.Kinds[in.Args[1]] == ir.Ref {
		g.storeRef(m, in.Args[0], in.Args[1])
		return
	}
	g.storeElem(in.Aux.Type, m, in.Args[1])
}

// copyBlk emits OpCopyBlk: word by word through RAX, or, for long
// blocks, a loop counting down in RAX and moving through XMM0.
func (g *gen) copyBlk(in *ir.Instr) {
	a := g.a
	dst := g.reg(in.Args[0], RCX)
	src := g.reg(in.Args[1], RDX)
	n := int(in.Aux.Int)
	if (in.Aux.Type == nil || hasRefs(in.Aux.Type)) && !g.frameAddr.Has(in.Args[0]) {
		defer g.blockBarrier(dst, n)
	} else if in.Aux.Type != nil {
		g.barriersElided++
	}
	if n <= unrollWords {
		for i := range n {
			a.I(MOVQ, Mem(src, int32(8*i)), R(RAX))
			a.I(MOVQ, R(RAX), Mem(dst, int32(8*i)))
		}
		return
	}
	loop := a.NewLabel()
	a.I(MOVL, Imm(int64(n)), R(RAX))
	a.Bind(loop)
	a.I(MOVSD, MemIdx(src, RAX, 8, -8), R(X0))
	a.I(MOVSD, R(X0), MemIdx(dst, RAX, 8, -8))
	a.I(SUBQ, Imm(1), R(RAX))
	a.Jump(JNE, loop)
}

// zeroBlk emits OpZeroBlk.
func (g *gen) zeroBlk(in *ir.Instr) {
	g.zeroWords(g.reg(in.Args[0], RCX), 0, int(in.Aux.Int), RDX)
}

// zeroWords zeroes n words at base+disp through RAX, counting a loop
// (when there are more than unrollWords) in counter, a scratch register
// other than base and RAX.
func (g *gen) zeroWords(base Reg, disp, n int, counter Reg) {
	a := g.a
	a.I(XORL, R(RAX), R(RAX))
	if n <= unrollWords {
		for i := range n {
			a.I(MOVQ, R(RAX), Mem(base, int32(disp+8*i)))
		}
		return
	}
	loop := a.NewLabel()
	a.I(MOVL, Imm(int64(n)), R(counter))
	a.Bind(loop)
	a.I(MOVQ, R(RAX), MemIdx(base, counter, 8, int32(disp-8)))
	a.I(SUBQ, Imm(1), R(counter))
	a.Jump(JNE, loop)
}

// zeroSlots zeroes the locals' frame blocks in the prolog, before the
// arguments are stored to their homes: it uses only RAX and R11, which
// hold no argument and, that early, no home.
func (g *gen) zeroSlots() {
	for _, s := range g.f.ZeroSlots {
		g.zeroWords(RBP, g.frame.blocks[s], g.f.SlotWords(s), R11)
	}
}

// layoutBlocks places the frame blocks below the n value slots already
// laid out, returning the new slot count.
func (fr *frame) layoutBlocks(f *ir.Func, n int) int {
	fr.blocks = make([]int, len(f.Slots))
	for i := range f.Slots {
		n += f.SlotWords(i)
		if 8*n > maxFrameBytes {
			panic(fmt.Sprintf("the frame would exceed %d bytes (value-type temporaries and locals)", maxFrameBytes))
		}
		fr.blocks[i] = -8 * n
	}
	return n
}
