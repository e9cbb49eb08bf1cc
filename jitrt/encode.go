package jitrt

import "miniil/abi"

import "encoding/binary"

// A tiny hand-written amd64 encoder for the runtime's own stubs. It knows
// only the forms the stubs need, all with R15 as the base register; tests
// check every form against x86asm.

// Register numbers in the hardware encoding.
const (
	regRAX = iota
	regRCX
	regRDX
	regRBX
	regRSP
	regRBP
	regRSI
	regRDI
	regR8
	regR9
	regR10
	regR11
	regR12
	regR13
	regR14
	regR15
)

type asmbuf struct {
	b []byte
}

func (a *asmbuf) byte(bs ...byte) { a.b = append(a.b, bs...) }

func (a *asmbuf) u32(v uint32) { a.b = binary.LittleEndian.AppendUint32(a.b, v) }

func (a *asmbuf) u64(v uint64) { a.b = binary.LittleEndian.AppendUint64(a.b, v) }

func (a *asmbuf) len() int { return len(a.b) }

// rexR15 returns the REX prefix for an operand [R15+disp] with reg in the
// ModRM reg field.
func rexR15(w bool, reg int) byte {
	rex := byte(0x41) // REX.B: base is R15
	if w {
		rex |= 0x08
	}
	if reg >= 8 {
		rex |= 0x04
	}
	return rex
}

// modrmR15 emits the ModRM byte (and displacement) for [R15+disp] with the
// low three bits of reg in the reg field. R15's low bits (111) need no SIB
// and are never RIP-relative, so mod 00 works for a zero displacement.
func (a *asmbuf) modrmR15(reg int, disp int32) {
	r := byte(reg&7) << 3
	switch {
	case disp == 0:
		a.byte(0x00 | r | 7)
	case disp >= -128 && disp <= 127:
		a.byte(0x40|r|7, byte(int8(disp)))
	default:
		a.byte(0x80 | r | 7)
		a.u32(uint32(disp))
	}
}

// store: MOV QWORD PTR [R15+disp], reg
func (a *asmbuf) store(disp int32, reg int) {
	a.byte(rexR15(true, reg), 0x89)
	a.modrmR15(reg, disp)
}

// load: MOV reg, QWORD PTR [R15+disp]
func (a *asmbuf) load(reg int, disp int32) {
	a.byte(rexR15(true, reg), 0x8b)
	a.modrmR15(reg, disp)
}

// storeX: MOVQ QWORD PTR [R15+disp], xmm (66 0F D6 /r)
func (a *asmbuf) storeX(disp int32, x int) {
	a.byte(0x66, rexR15(false, x), 0x0f, 0xd6)
	a.modrmR15(x, disp)
}

// loadX: MOVQ xmm, QWORD PTR [R15+disp] (F3 0F 7E /r)
func (a *asmbuf) loadX(x int, disp int32) {
	a.byte(0xf3, rexR15(false, x), 0x0f, 0x7e)
	a.modrmR15(x, disp)
}

// popMem: POP QWORD PTR [R15+disp] (8F /0)
func (a *asmbuf) popMem(disp int32) {
	a.byte(rexR15(false, 0), 0x8f)
	a.modrmR15(0, disp)
}

// storeImm: MOV QWORD PTR [R15+disp], imm32 (sign-extended; REX.W C7 /0)
func (a *asmbuf) storeImm(disp int32, imm int32) {
	a.byte(rexR15(true, 0), 0xc7)
	a.modrmR15(0, disp)
	a.u32(uint32(imm))
}

// callMem: CALL QWORD PTR [R15+disp] (FF /2)
func (a *asmbuf) callMem(disp int32) {
	a.byte(rexR15(false, 0), 0xff)
	a.modrmR15(2, disp)
}

// jmpMem: JMP QWORD PTR [R15+disp] (FF /4)
func (a *asmbuf) jmpMem(disp int32) {
	a.byte(rexR15(false, 0), 0xff)
	a.modrmR15(4, disp)
}

// callRel: CALL rel32 to target, with the buffer placed at base.
func (a *asmbuf) callRel(base, target uintptr) {
	a.byte(0xe8)
	a.rel32(base, target)
}

// jmpRel: JMP rel32 to target, with the buffer placed at base.
func (a *asmbuf) jmpRel(base, target uintptr) {
	a.byte(0xe9)
	a.rel32(base, target)
}

// jmpRIP: JMP QWORD PTR [RIP+disp32], jumping through the 8-byte cell at
// address cell, with the buffer placed at base.
func (a *asmbuf) jmpRIP(base, cell uintptr) {
	a.byte(0xff, 0x25)
	a.rel32(base, cell)
}

// rel32 emits the 32-bit displacement from the end of the displacement
// field to target.
func (a *asmbuf) rel32(base, target uintptr) {
	next := base + uintptr(len(a.b)) + 4
	d := int64(target) - int64(next)
	if d != int64(int32(d)) {
		panic("jitrt: rel32 out of range")
	}
	a.u32(uint32(int32(d)))
}

// ret: RET
func (a *asmbuf) ret() { a.byte(0xc3) }

// padTo pads with INT3 up to a multiple of n bytes.
func (a *asmbuf) padTo(n int) {
	for len(a.b)%n != 0 {
		a.byte(0xcc)
	}
}

// savedGPRs lists the general purpose registers the exit stub saves and
// resume restores, with their slots (RSP, RBP and R15 are handled apart).
var savedGPRs = [...]struct {
	reg  int
	slot int32
}{
	{regRAX, abi.CtxRAX}, {regRBX, abi.CtxRBX}, {regRCX, abi.CtxRCX}, {regRDX, abi.CtxRDX},
	{regRSI, abi.CtxRSI}, {regRDI, abi.CtxRDI}, {regR8, abi.CtxR8}, {regR9, abi.CtxR9},
	{regR10, abi.CtxR10}, {regR11, abi.CtxR11}, {regR12, abi.CtxR12}, {regR13, abi.CtxR13},
	{regR14, abi.CtxR14},
}

// emitExitStub emits the exit stub: entered by a CALL with R15 = context,
// it pops its return address into CtxPC, saves RSP (after the pop), RBP,
// the GPRs and the low halves of XMM0-15, switches back to Go's SP and BP
// and returns, which returns from resume to its Go caller.
func (a *asmbuf) emitExitStub() {
	a.popMem(abi.CtxPC)
	a.store(abi.CtxRSP, regRSP)
	a.store(abi.CtxRBP, regRBP)
	for _, r := range savedGPRs {
		a.store(r.slot, r.reg)
	}
	for x := 0; x < 16; x++ {
		a.storeX(abi.CtxXMM0+8*int32(x), x)
	}
	a.load(regRSP, abi.CtxGoSP)
	a.load(regRBP, abi.CtxGoBP)
	a.ret()
}
