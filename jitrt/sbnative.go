//go:build linux && amd64

package jitrt

import (
	"fmt"

	"miniil/abi"
	"miniil/amd64"
	"miniil/il"
)

// The StringBuilder routines (abi.CtxSbCtor .. abi.CtxSbToString, and
// abi.CtxIntToString, which formats as Append(int64) does),
// assembled once per code heap: what a StringBuilder call does when it
// neither grows the buffer nor allocates anything but a small object in
// the nursery, without leaving native code. Each returns 0 in RAX, with
// the base library method's arguments unchanged, where the base library method must run
// instead (the call site then makes its helper exit with the same
// arguments, the safepoint where a collection may run and where the
// buffer grows by il.StringBuilderGrow): a null builder (the exit throws
// NullReferenceException), a buffer that is full, an allocation that
// does not fit below CtxHeapLimit (which the collector keeps under the
// heap limit, so a routine allocates only what the exit would have
// allocated in the nursery, in the same order) or is not below
// abi.StrConcatMaxBytes (below the collector's large object size).
//
// They use only RAX, RCX, RDX, RSI, RDI, R8 and R9 (scratch and argument
// registers: the register allocator keeps values across a base library
// call in R10, R11, RBX, R12-R14 and XMM8-15, which an exit preserves),
// and the stack only for their return address.

// sbRoutines are the addresses of the routines, and the end of the last.
type sbRoutines struct {
	ctor, appendString, appendChar, appendInt, toString, intToString, end uintptr
}

// installSBRoutines assembles and installs the StringBuilder routines
// and the integer ToString routine, which shares their digit code.
func (h *CodeHeap) installSBRoutines() error {
	var marks [7]amd64.MarkID
	b, err := assemble(h.asm, func(a *amd64.Assembler) {
		for i, emit := range []func(*amd64.Assembler){emitSbCtor, emitSbAppendString, emitSbAppendChar, emitSbAppendInt, emitSbToString, emitIntToString} {
			marks[i] = a.Mark()
			emit(a)
		}
		marks[6] = a.Mark()
	})
	if err != nil {
		return err
	}
	base, err := h.Install(b.Code)
	if err != nil {
		return fmt.Errorf("jitrt: installing the StringBuilder routines: %w", err)
	}
	at := func(i int) uintptr { return base + uintptr(b.Marks[marks[i]]) }
	h.sb = sbRoutines{at(0), at(1), at(2), at(3), at(4), at(5), at(6)}
	return nil
}

// setSBRoutines stores the routines' addresses in m's context.
func (h *CodeHeap) setSBRoutines(m *Machine) {
	m.SetReg(abi.CtxSbCtor, uint64(h.sb.ctor))
	m.SetReg(abi.CtxSbAppendString, uint64(h.sb.appendString))
	m.SetReg(abi.CtxSbAppendChar, uint64(h.sb.appendChar))
	m.SetReg(abi.CtxSbAppendInt, uint64(h.sb.appendInt))
	m.SetReg(abi.CtxSbToString, uint64(h.sb.toString))
	m.SetReg(abi.CtxIntToString, uint64(h.sb.intToString))
}

// sbRoutineRanges names the routines for perf maps, with their ranges.
func (h *CodeHeap) sbRoutineRanges() []struct {
	addr, end uintptr
	name      string
} {
	s := h.sb
	return []struct {
		addr, end uintptr
		name      string
	}{
		{s.ctor, s.appendString, "StringBuilder constructor"},
		{s.appendString, s.appendChar, "StringBuilder.Append(string)"},
		{s.appendChar, s.appendInt, "StringBuilder.Append(char)"},
		{s.appendInt, s.toString, "StringBuilder.Append(integer)"},
		{s.toString, s.intToString, "StringBuilder.ToString"},
		{s.intToString, s.end, "integer ToString"},
	}
}

// emitFail binds fail to `XOR EAX, EAX; RET`.
func emitFail(a *amd64.Assembler, fail amd64.Label) {
	a.Bind(fail)
	a.I(amd64.XORL, amd64.R(amd64.RAX), amd64.R(amd64.RAX))
	a.I(amd64.RET)
}

// emitSbBuffer loads builder RDI's buffer into R8, jumping to fail for a
// null builder (or a buffer not yet made, which no builder that a
// constructor returned has).
func emitSbBuffer(a *amd64.Assembler, fail amd64.Label) {
	a.I(amd64.TESTQ, amd64.R(amd64.RDI), amd64.R(amd64.RDI))
	a.Jump(amd64.JEQ, fail)
	a.I(amd64.MOVQ, amd64.Mem(amd64.RDI, abi.SbChars), amd64.R(amd64.R8))
	a.I(amd64.TESTQ, amd64.R(amd64.R8), amd64.R(amd64.R8))
	a.Jump(amd64.JEQ, fail)
}

// emitCopyUnits copies RCX bytes (even, at least 2) from [src+srcDisp]
// to [dst+dstDisp]: a REP MOVSB from 128 bytes on, else 8 bytes at a
// time with the last 8 overlapping, 4 and 4 or 2 below 8. It clobbers
// RCX, RDX, RSI, RDI and tmp (src and dst must be neither RDX nor tmp,
// and dst not RSI).
func emitCopyUnits(a *amd64.Assembler, src amd64.Reg, srcDisp int32, dst amd64.Reg, dstDisp int32, tmp amd64.Reg) {
	small, two, rep, loop, done := a.NewLabel(), a.NewLabel(), a.NewLabel(), a.NewLabel(), a.NewLabel()
	a.I(amd64.CMPQ, amd64.R(amd64.RCX), amd64.Imm(8))
	a.Jump(amd64.JCS, small)
	a.I(amd64.CMPQ, amd64.R(amd64.RCX), amd64.Imm(128))
	a.Jump(amd64.JCC, rep)
	// RDX = offset of the next 8 bytes, RCX = offset of the last 8.
	a.I(amd64.XORL, amd64.R(amd64.RDX), amd64.R(amd64.RDX))
	a.I(amd64.SUBQ, amd64.Imm(8), amd64.R(amd64.RCX))
	a.Bind(loop)
	a.I(amd64.MOVQ, amd64.MemIdx(src, amd64.RDX, 1, srcDisp), amd64.R(tmp))
	a.I(amd64.MOVQ, amd64.R(tmp), amd64.MemIdx(dst, amd64.RDX, 1, dstDisp))
	a.I(amd64.ADDQ, amd64.Imm(8), amd64.R(amd64.RDX))
	a.I(amd64.CMPQ, amd64.R(amd64.RDX), amd64.R(amd64.RCX))
	a.Jump(amd64.JCS, loop)
	a.I(amd64.MOVQ, amd64.MemIdx(src, amd64.RCX, 1, srcDisp), amd64.R(tmp))
	a.I(amd64.MOVQ, amd64.R(tmp), amd64.MemIdx(dst, amd64.RCX, 1, dstDisp))
	a.Jump(amd64.JMP, done)
	a.Bind(small) // 2, 4 or 6 bytes
	a.I(amd64.CMPQ, amd64.R(amd64.RCX), amd64.Imm(4))
	a.Jump(amd64.JCS, two)
	a.I(amd64.MOVL, amd64.Mem(src, srcDisp), amd64.R(tmp))
	a.I(amd64.MOVL, amd64.R(tmp), amd64.Mem(dst, dstDisp))
	a.I(amd64.MOVL, amd64.MemIdx(src, amd64.RCX, 1, srcDisp-4), amd64.R(tmp))
	a.I(amd64.MOVL, amd64.R(tmp), amd64.MemIdx(dst, amd64.RCX, 1, dstDisp-4))
	a.Jump(amd64.JMP, done)
	a.Bind(two)
	a.I(amd64.MOVWLZX, amd64.Mem(src, srcDisp), amd64.R(tmp))
	a.I(amd64.MOVW, amd64.R(tmp), amd64.Mem(dst, dstDisp))
	a.Jump(amd64.JMP, done)
	a.Bind(rep)
	// The direction flag is clear in managed code, as in SysV.
	a.I(amd64.LEAQ, amd64.Mem(src, srcDisp), amd64.R(amd64.RSI))
	a.I(amd64.LEAQ, amd64.Mem(dst, dstDisp), amd64.R(amd64.RDI))
	a.Bytes(0xF3, 0xA4) // REP MOVSB
	a.Bind(done)
}

// emitSbCtor emits the constructor routine (abi.CtxSbCtor): capacity
// ESI (il.StringBuilderCapacity: 0 is the default, a negative one
// throws), a char[] of that length bump-allocated in the nursery (which
// is zeroed), stored into the builder with the write barrier (a builder
// in the old generation must have its card set for the young buffer).
func emitSbCtor(a *amd64.Assembler) {
	fail, sized, skip := a.NewLabel(), a.NewLabel(), a.NewLabel()
	a.I(amd64.TESTQ, amd64.R(amd64.RDI), amd64.R(amd64.RDI))
	a.Jump(amd64.JEQ, fail)
	a.I(amd64.MOVLQSX, amd64.R(amd64.RSI), amd64.R(amd64.RCX))
	a.I(amd64.TESTQ, amd64.R(amd64.RCX), amd64.R(amd64.RCX))
	a.Jump(amd64.JLT, fail)
	a.Jump(amd64.JNE, sized)
	a.I(amd64.MOVL, amd64.Imm(il.StringBuilderDefaultCapacity), amd64.R(amd64.RCX))
	a.Bind(sized)
	// R8 = il.ArraySize(Char, RCX), small enough, at the heap top.
	a.I(amd64.LEAQ, amd64.MemIdx(amd64.RCX, amd64.RCX, 1, abi.ArrData+7), amd64.R(amd64.R8))
	a.I(amd64.ANDQ, amd64.Imm(-8), amd64.R(amd64.R8))
	a.I(amd64.CMPQ, amd64.R(amd64.R8), amd64.Imm(abi.StrConcatMaxBytes))
	a.Jump(amd64.JCC, fail)
	a.I(amd64.MOVQ, ctx(abi.CtxHeapTop), amd64.R(amd64.RAX))
	a.I(amd64.ADDQ, amd64.R(amd64.RAX), amd64.R(amd64.R8))
	a.I(amd64.CMPQ, amd64.R(amd64.R8), ctx(abi.CtxHeapLimit))
	a.Jump(amd64.JHI, fail)
	a.I(amd64.MOVQ, amd64.R(amd64.R8), ctx(abi.CtxHeapTop))
	a.I(amd64.MOVQ, amd64.R(amd64.RDX), amd64.Mem(amd64.RAX, abi.ObjMT))
	a.I(amd64.MOVQ, amd64.R(amd64.RCX), amd64.Mem(amd64.RAX, abi.ArrLen))
	a.I(amd64.MOVQ, amd64.R(amd64.RAX), amd64.Mem(amd64.RDI, abi.SbChars))
	a.I(amd64.MOVQ, amd64.Imm(0), amd64.Mem(amd64.RDI, abi.SbLength))
	// The barrier (amd64/barrier.go): the buffer is young, so the card of
	// the field, if the builder is in the heap.
	a.I(amd64.LEAQ, amd64.Mem(amd64.RDI, abi.SbChars), amd64.R(amd64.RCX))
	a.I(amd64.SUBQ, ctx(abi.CtxHeapLo), amd64.R(amd64.RCX))
	a.I(amd64.CMPQ, amd64.R(amd64.RCX), ctx(abi.CtxHeapSpan))
	a.Jump(amd64.JCC, skip)
	a.I(amd64.SHRQ, amd64.Imm(abi.CardShift), amd64.R(amd64.RCX))
	a.I(amd64.ADDQ, ctx(abi.CtxCards), amd64.R(amd64.RCX))
	a.I(amd64.MOVB, amd64.Imm(1), amd64.Mem(amd64.RCX, 0))
	a.Bind(skip)
	a.I(amd64.RET) // RAX: the buffer, not 0
	emitFail(a, fail)
}

// emitSbAppendString emits the Append(string) routine
// (abi.CtxSbAppendString).
func emitSbAppendString(a *amd64.Assembler) {
	fail, ret := a.NewLabel(), a.NewLabel()
	a.I(amd64.TESTQ, amd64.R(amd64.RDI), amd64.R(amd64.RDI))
	a.Jump(amd64.JEQ, fail)
	a.I(amd64.MOVQ, amd64.R(amd64.RDI), amd64.R(amd64.RAX))
	a.I(amd64.TESTQ, amd64.R(amd64.RSI), amd64.R(amd64.RSI))
	a.Jump(amd64.JEQ, ret) // null: appends nothing
	a.I(amd64.MOVQ, amd64.Mem(amd64.RSI, abi.StrLen), amd64.R(amd64.RCX))
	a.I(amd64.TESTQ, amd64.R(amd64.RCX), amd64.R(amd64.RCX))
	a.Jump(amd64.JEQ, ret)
	emitSbBuffer(a, fail)
	// RDX = units in use, R9 = with the string's.
	a.I(amd64.MOVQ, amd64.Mem(amd64.RDI, abi.SbLength), amd64.R(amd64.RDX))
	a.I(amd64.LEAQ, amd64.MemIdx(amd64.RDX, amd64.RCX, 1, 0), amd64.R(amd64.R9))
	a.I(amd64.CMPQ, amd64.R(amd64.R9), amd64.Mem(amd64.R8, abi.ArrLen))
	a.Jump(amd64.JHI, fail)
	a.I(amd64.MOVQ, amd64.R(amd64.R9), amd64.Mem(amd64.RDI, abi.SbLength))
	a.I(amd64.LEAQ, amd64.MemIdx(amd64.R8, amd64.RDX, 2, abi.ArrData), amd64.R(amd64.R8))
	a.I(amd64.ADDQ, amd64.R(amd64.RCX), amd64.R(amd64.RCX))
	emitCopyUnits(a, amd64.RSI, abi.StrData, amd64.R8, 0, amd64.R9)
	a.Bind(ret)
	a.I(amd64.RET)
	emitFail(a, fail)
}

// emitSbAppendChar emits the Append(char) routine (abi.CtxSbAppendChar).
func emitSbAppendChar(a *amd64.Assembler) {
	fail := a.NewLabel()
	emitSbBuffer(a, fail)
	a.I(amd64.MOVQ, amd64.Mem(amd64.RDI, abi.SbLength), amd64.R(amd64.RCX))
	a.I(amd64.CMPQ, amd64.R(amd64.RCX), amd64.Mem(amd64.R8, abi.ArrLen))
	a.Jump(amd64.JCC, fail)
	a.I(amd64.MOVW, amd64.R(amd64.RSI), amd64.MemIdx(amd64.R8, amd64.RCX, 2, abi.ArrData))
	a.I(amd64.INCQ, amd64.R(amd64.RCX))
	a.I(amd64.MOVQ, amd64.R(amd64.RCX), amd64.Mem(amd64.RDI, abi.SbLength))
	a.I(amd64.MOVQ, amd64.R(amd64.RDI), amd64.R(amd64.RAX))
	a.I(amd64.RET)
	emitFail(a, fail)
}

// emitSbAppendInt emits the routine that appends signed RSI in decimal
// (abi.CtxSbAppendInt), as il.AppendPrimitive formats it (emitSign,
// emitCountDigits, emitDigits).
func emitSbAppendInt(a *amd64.Assembler) {
	fail := a.NewLabel()
	emitSbBuffer(a, fail)
	emitSign(a)
	emitCountDigits(a, amd64.RDX)
	// R9 = the new length, if it fits.
	a.I(amd64.ADDQ, amd64.R(amd64.RCX), amd64.R(amd64.R9))
	a.I(amd64.MOVQ, amd64.Mem(amd64.RDI, abi.SbLength), amd64.R(amd64.RDX))
	a.I(amd64.ADDQ, amd64.R(amd64.RDX), amd64.R(amd64.R9))
	a.I(amd64.CMPQ, amd64.R(amd64.R9), amd64.Mem(amd64.R8, abi.ArrLen))
	a.Jump(amd64.JHI, fail)
	a.I(amd64.MOVQ, amd64.R(amd64.R9), amd64.Mem(amd64.RDI, abi.SbLength))
	emitNumber(a, amd64.MemIdx(amd64.R8, amd64.RDX, 2, abi.ArrData), amd64.MemIdx(amd64.R8, amd64.R9, 2, abi.ArrData))
	a.I(amd64.MOVQ, amd64.R(amd64.RDI), amd64.R(amd64.RAX))
	a.I(amd64.RET)
	emitFail(a, fail)
}

// emitIntToString emits the routine that makes the decimal string of
// signed RSI (abi.CtxIntToString), as il's formatting of integers does:
// the string allocated as emitSbToString allocates it (emitAllocString),
// then the sign and digits written into it. It fails before it changes
// RDI.
func emitIntToString(a *amd64.Assembler) {
	fail := a.NewLabel()
	emitSign(a)
	emitCountDigits(a, amd64.R8)
	a.I(amd64.ADDQ, amd64.R(amd64.RCX), amd64.R(amd64.R9)) // R9 = the length
	emitAllocString(a, amd64.R9, amd64.RSI, amd64.R8, fail)
	a.I(amd64.MOVQ, amd64.R(amd64.RSI), amd64.R(amd64.RDI)) // the string, returned
	emitNumber(a, amd64.Mem(amd64.RDI, abi.StrData), amd64.MemIdx(amd64.RDI, amd64.R9, 2, abi.StrData))
	a.I(amd64.MOVQ, amd64.R(amd64.RDI), amd64.R(amd64.RAX))
	a.I(amd64.RET)
	emitFail(a, fail)
}

// emitAllocString bump-allocates, at the heap top, a string of the units
// in register n (its method table in RDX) into register obj, with size
// as scratch; it jumps to fail, with obj and size changed but nothing
// else, for a string that is not below abi.StrConcatMaxBytes (under the
// collector's large object size) or does not fit below CtxHeapLimit.
// The characters are left to the caller (the nursery is zeroed).
func emitAllocString(a *amd64.Assembler, n, obj, size amd64.Reg, fail amd64.Label) {
	// size = il.StringSize(n).
	a.I(amd64.LEAQ, amd64.MemIdx(n, n, 1, abi.StrData+7), amd64.R(size))
	a.I(amd64.ANDQ, amd64.Imm(-8), amd64.R(size))
	a.I(amd64.CMPQ, amd64.R(size), amd64.Imm(abi.StrConcatMaxBytes))
	a.Jump(amd64.JCC, fail)
	a.I(amd64.MOVQ, ctx(abi.CtxHeapTop), amd64.R(obj))
	a.I(amd64.ADDQ, amd64.R(obj), amd64.R(size))
	a.I(amd64.CMPQ, amd64.R(size), ctx(abi.CtxHeapLimit))
	a.Jump(amd64.JHI, fail)
	a.I(amd64.MOVQ, amd64.R(size), ctx(abi.CtxHeapTop))
	a.I(amd64.MOVQ, amd64.R(amd64.RDX), amd64.Mem(obj, abi.ObjMT))
	a.I(amd64.MOVQ, amd64.R(n), amd64.Mem(obj, abi.StrLen))
}

// emitSign sets RAX to the magnitude of signed RSI (2^63 for the least
// int64, which NEG leaves as an unsigned 2^63) and RCX to 1 if RSI is
// negative (the sign's unit), else 0.
func emitSign(a *amd64.Assembler) {
	pos := a.NewLabel()
	a.I(amd64.MOVQ, amd64.R(amd64.RSI), amd64.R(amd64.RAX))
	a.I(amd64.XORL, amd64.R(amd64.RCX), amd64.R(amd64.RCX))
	a.I(amd64.TESTQ, amd64.R(amd64.RAX), amd64.R(amd64.RAX))
	a.Jump(amd64.JGE, pos)
	a.I(amd64.NEGQ, amd64.R(amd64.RAX))
	a.I(amd64.MOVL, amd64.Imm(1), amd64.R(amd64.RCX))
	a.Bind(pos)
}

// emitCountDigits sets R9 to the number of decimal digits of unsigned
// RAX: the least n with RAX < 10^n, counted against the powers of ten in
// pow (10^19 fits in 64 bits, and no magnitude reaches it).
func emitCountDigits(a *amd64.Assembler, pow amd64.Reg) {
	count, counted := a.NewLabel(), a.NewLabel()
	a.I(amd64.MOVL, amd64.Imm(1), amd64.R(amd64.R9))
	a.I(amd64.MOVL, amd64.Imm(10), amd64.R(pow))
	a.Bind(count)
	a.I(amd64.CMPQ, amd64.R(amd64.RAX), amd64.R(pow))
	a.Jump(amd64.JCS, counted)
	a.I(amd64.INCL, amd64.R(amd64.R9))
	a.I(amd64.IMUL3Q, amd64.Imm(10), amd64.R(pow), amd64.R(pow))
	a.Jump(amd64.JMP, count)
	a.Bind(counted)
}

// emitNumber writes the number emitSign and emitCountDigits measured:
// the sign at first if RCX is 1, then the digits of RAX ending just
// before end (emitDigits). It clobbers RAX, RCX, RDX, RSI and R8; first
// is written after RSI is set to end, so it must not be addressed
// through RSI.
func emitNumber(a *amd64.Assembler, first, end amd64.Operand) {
	unsigned := a.NewLabel()
	a.I(amd64.LEAQ, end, amd64.R(amd64.RSI))
	a.I(amd64.TESTL, amd64.R(amd64.RCX), amd64.R(amd64.RCX))
	a.Jump(amd64.JEQ, unsigned)
	a.I(amd64.MOVW, amd64.Imm('-'), first)
	a.Bind(unsigned)
	emitDigits(a)
}

// emitDigits writes the decimal digits of unsigned RAX as UTF-16 units
// ending just before RSI, from the last, dividing by ten with a multiply
// by 0xCCCCCCCCCCCCCCCD. It clobbers RAX, RCX, RDX, RSI and R8.
func emitDigits(a *amd64.Assembler) {
	loop := a.NewLabel()
	a.I(amd64.MOVQ, amd64.Imm(-0x3333333333333333), amd64.R(amd64.R8)) // 0xCCCCCCCCCCCCCCCD
	a.Bind(loop)
	a.I(amd64.MOVQ, amd64.R(amd64.RAX), amd64.R(amd64.RCX))
	a.I(amd64.MULQ, amd64.R(amd64.R8))
	a.I(amd64.SHRQ, amd64.Imm(3), amd64.R(amd64.RDX)) // RDX = RCX / 10
	a.I(amd64.LEAQ, amd64.MemIdx(amd64.RDX, amd64.RDX, 4, 0), amd64.R(amd64.RAX))
	a.I(amd64.ADDQ, amd64.R(amd64.RAX), amd64.R(amd64.RAX))
	a.I(amd64.SUBQ, amd64.R(amd64.RAX), amd64.R(amd64.RCX)) // RCX = the last digit
	a.I(amd64.ADDL, amd64.Imm('0'), amd64.R(amd64.RCX))
	a.I(amd64.SUBQ, amd64.Imm(2), amd64.R(amd64.RSI))
	a.I(amd64.MOVW, amd64.R(amd64.RCX), amd64.Mem(amd64.RSI, 0))
	a.I(amd64.MOVQ, amd64.R(amd64.RDX), amd64.R(amd64.RAX))
	a.I(amd64.TESTQ, amd64.R(amd64.RAX), amd64.R(amd64.RAX))
	a.Jump(amd64.JNE, loop)
}

// emitSbToString emits the ToString routine (abi.CtxSbToString): a new
// string of the units in use, allocated as CtxStrConcat allocates.
func emitSbToString(a *amd64.Assembler) {
	fail := a.NewLabel()
	emitSbBuffer(a, fail)
	a.I(amd64.MOVQ, amd64.Mem(amd64.RDI, abi.SbLength), amd64.R(amd64.R9))
	a.I(amd64.TESTQ, amd64.R(amd64.R9), amd64.R(amd64.R9))
	a.Jump(amd64.JEQ, fail) // String.Empty: the base library's
	emitAllocString(a, amd64.R9, amd64.RAX, amd64.RCX, fail)
	a.I(amd64.LEAQ, amd64.MemIdx(amd64.R9, amd64.R9, 1, 0), amd64.R(amd64.RCX))
	emitCopyUnits(a, amd64.R8, abi.ArrData, amd64.RAX, abi.StrData, amd64.R9)
	a.I(amd64.RET)
	emitFail(a, fail)
}

// emitStubFastPath emits, at the start of the stub through which a
// vtable calls the virtual base library method of kind k, what serves
// the call without the stub's exit, returning to the caller: for
// StringBuilder.ToString (C# compilers call it as Object::ToString) the
// ToString routine, falling through to the exit where it returns 0.
// The exit then finds the stack as the stub was entered.
func (rt *Runtime) emitStubFastPath(a *amd64.Assembler, k il.BuiltinKind) {
	if k != il.StringBuilderToString {
		return
	}
	exit := a.NewLabel()
	a.I(amd64.MOVQ, amd64.Imm(int64(rt.TypeMT(il.String))), amd64.R(amd64.RDX))
	a.I(amd64.CALL, ctx(abi.CtxSbToString))
	a.I(amd64.TESTQ, amd64.R(amd64.RAX), amd64.R(amd64.RAX))
	a.Jump(amd64.JEQ, exit)
	a.I(amd64.RET)
	a.Bind(exit)
}
