package amd64

import "encoding/binary"

// The encoder: each Op's encoding class (opInfo.enc) picks among the
// instruction's forms by operand kinds, as the Go assembler (whose
// encodings TestEncoderMatchesGolangAsm checks byte for byte) does:
// the sign-extended imm8 form of ALU immediates before the RAX form
// before imm32, register-direct ModRM with the destination in r/m for
// register-register moves and arithmetic, the shortest displacement
// (none, disp8, disp32) for memory operands, a SIB byte for an index or an
// RSP/R12 base, and REX only when an operand needs it (W for 64-bit
// operands, R/X/B for R8-R15 and XMM8-15, and a bare REX for SPL, BPL,
// SIL and DIL as byte registers).

// encClass is an Op's encoding class.
type encClass uint8

const (
	encNone    encClass = iota
	encALU              // ADD OR ADC SBB AND SUB XOR CMP: digit = /n and base opcode/8
	encMOV              // MOVQ MOVL MOVW MOVB, GPR <-> XMM included
	encMOVX             // MOVBLSX...MOVWQZX: 0F op1, source width sw
	encMOVSXD           // MOVLQSX: REX.W 63
	encMOVLQZX          // MOVLQZX: 32-bit MOV 8B
	encLEA              // 8D
	encXCHG             // 87, or 90+r with RAX
	encPUSH             // 50+r, 6A/68 imm, FF /6
	encPOP              // 58+r, 8F /0
	encIMUL             // F7 /5, 0F AF, 6B/69
	encIMUL3            // 6B/69 with a separate source
	encUnary            // op0 /digit
	encShift            // D1/C1/D3 /digit
	encTEST             // A8/A9, F6/F7 /0, 84/85
	encSETcc            // 0F op1 /0
	encCMOV             // 0F op1 /r
	encJcc              // Jump only
	encJMP              // FF /digit (register or memory); Jump for labels
	encFixed            // w bytes: pfx, op0, op1
	encSSE              // pfx 0F op1 /r: XMM <- XMM or memory
	encCVTI2F           // pfx [REX.W] 0F 2A: XMM <- GPR or memory
	encCVTF2I           // pfx [REX.W] 0F 2C: GPR <- XMM or memory
	encSSEMov           // pfx 0F op1 (load) and op1+1 (store)
	encROUND            // 66 0F 3A op1 /r ib
	encXADD             // [REX.W] 0F op1 /r: register source, r/m destination
)

// ModRM flags.
const (
	fW       = 1 << iota // REX.W
	fRegByte             // the reg field is a byte register
	fRmByte              // a register r/m is a byte register
)

const (
	rexW = 0x48
	rexR = 0x44
	rexX = 0x42
	rexB = 0x41
)

func fits8(v int64) bool { return v >= -128 && v <= 127 }

func isGPR(o *Operand) bool { return o.kind == kindReg && o.reg.IsGPR() }
func isXMM(o *Operand) bool { return o.kind == kindReg && o.reg.IsXMM() }
func isMem(o *Operand) bool { return o.kind == kindMem || o.kind == kindLabel }
func isRM(o *Operand) bool  { return isGPR(o) || isMem(o) }
func isImm(o *Operand) bool { return o.kind == kindImm }

// isRAX reports whether o is the register RAX (AL, AX, EAX).
func isRAX(o *Operand) bool { return o.kind == kindReg && o.reg == RAX }

// modrm emits [pfx] [REX] [esc...] opc ModRM [SIB] [disp] for the ModRM
// reg field reg (a register number or a /digit) and the r/m operand o.
// esc is 0, 0x0F or 0x0F3A.
func (a *Assembler) modrm(pfx byte, flags uint8, esc uint16, opc byte, reg int, o *Operand, insn int32, op Op) {
	rex := byte(0)
	if flags&fW != 0 {
		rex |= rexW
	}
	if reg >= 8 {
		rex |= rexR
	}
	if flags&fRegByte != 0 && reg >= 4 && reg < 8 {
		rex |= 0x40
	}
	switch o.kind {
	case kindReg:
		n := o.reg.Num()
		if n >= 8 {
			rex |= rexB
		}
		if flags&fRmByte != 0 && n >= 4 && n < 8 {
			rex |= 0x40
		}
	case kindMem:
		if o.reg.Num() >= 8 {
			rex |= rexB
		}
		if o.index != NoReg && o.index.Num() >= 8 {
			rex |= rexX
		}
	}
	c := a.code
	if pfx != 0 {
		c = append(c, pfx)
	}
	if rex != 0 {
		c = append(c, rex)
	}
	switch esc {
	case 0x0F:
		c = append(c, 0x0F)
	case 0x0F3A:
		c = append(c, 0x0F, 0x3A)
	}
	c = append(c, opc)
	r := byte(reg&7) << 3
	switch o.kind {
	case kindReg:
		c = append(c, 0xC0|r|byte(o.reg.Num()&7))
	case kindLabel:
		c = append(c, r|5)
		a.fixups = append(a.fixups, fixup{at: int32(len(c)), nj: int32(len(a.jumps)), label: o.label, insn: insn, op: op})
		c = append(c, 0, 0, 0, 0)
	default:
		base := byte(o.reg.Num() & 7)
		disp := int32(o.val)
		var mod byte
		switch {
		case disp == 0 && base != 5:
			mod = 0
		case disp >= -128 && disp <= 127:
			mod = 0x40
		default:
			mod = 0x80
		}
		switch {
		case o.index != NoReg:
			var ss byte
			switch o.scale {
			case 2:
				ss = 1 << 6
			case 4:
				ss = 2 << 6
			case 8:
				ss = 3 << 6
			}
			c = append(c, mod|r|4, ss|byte(o.index.Num()&7)<<3|base)
		case base == 4:
			c = append(c, mod|r|4, 0x24)
		default:
			c = append(c, mod|r|base)
		}
		switch mod {
		case 0x40:
			c = append(c, byte(disp))
		case 0x80:
			c = binary.LittleEndian.AppendUint32(c, uint32(disp))
		}
	}
	a.code = c
}

// opReg emits [pfx] [REX] opc+reg (the 50+r, 58+r, 90+r, B0+r and B8+r
// forms).
func (a *Assembler) opReg(pfx byte, flags uint8, opc byte, r Reg) {
	rex := byte(0)
	if flags&fW != 0 {
		rex |= rexW
	}
	n := r.Num()
	if n >= 8 {
		rex |= rexB
	}
	if flags&fRmByte != 0 && n >= 4 && n < 8 {
		rex |= 0x40
	}
	if pfx != 0 {
		a.code = append(a.code, pfx)
	}
	if rex != 0 {
		a.code = append(a.code, rex)
	}
	a.code = append(a.code, opc+byte(n&7))
}

// imm appends an immediate of size bytes.
func (a *Assembler) imm(v int64, size uint8) {
	switch size {
	case 1:
		a.code = append(a.code, byte(v))
	case 2:
		a.code = binary.LittleEndian.AppendUint16(a.code, uint16(v))
	case 4:
		a.code = binary.LittleEndian.AppendUint32(a.code, uint32(v))
	default:
		a.code = binary.LittleEndian.AppendUint64(a.code, uint64(v))
	}
}

// sizeFlags returns the operand-size prefix, the ModRM flags and the
// immediate size of an integer instruction of w bytes.
func sizeFlags(w uint8) (pfx byte, flags uint8, immSize uint8) {
	switch w {
	case 1:
		return 0, fRegByte | fRmByte, 1
	case 2:
		return 0x66, 0, 2
	case 8:
		return 0, fW, 4
	}
	return 0, 0, 4
}

// encode appends op's encoding; it reports false when the instruction
// has no form for these operands.
func (a *Assembler) encode(op Op, info *opInfo, ops []Operand, insn int32) bool {
	switch info.enc {
	case encFixed:
		b := [3]byte{info.pfx, info.op0, info.op1}
		a.code = append(a.code, b[:info.w]...)
		return true
	case encALU:
		s, d := &ops[0], &ops[1]
		if op >= CMPQ && op <= CMPB {
			s, d = d, s
		}
		pfx, fl, is := sizeFlags(info.w)
		base := info.digit * 8
		switch {
		case isImm(s) && isRM(d):
			switch {
			case info.w == 1:
				a.modrm(pfx, fl&^fRegByte, 0, 0x80, int(info.digit), d, insn, op)
			case fits8(s.val):
				a.modrm(pfx, fl&^fRegByte, 0, 0x83, int(info.digit), d, insn, op)
				is = 1
			case isRAX(d):
				if pfx != 0 {
					a.code = append(a.code, pfx)
				}
				if fl&fW != 0 {
					a.code = append(a.code, rexW)
				}
				a.code = append(a.code, base+5)
			default:
				a.modrm(pfx, fl&^fRegByte, 0, 0x81, int(info.digit), d, insn, op)
			}
			a.imm(s.val, is)
		case isGPR(s) && isRM(d):
			a.modrm(pfx, fl, 0, base+1-(info.w&1), s.reg.Num(), d, insn, op)
		case isMem(s) && isGPR(d):
			a.modrm(pfx, fl, 0, base+3-(info.w&1), d.reg.Num(), s, insn, op)
		default:
			return false
		}
		return true
	case encMOV:
		s, d := &ops[0], &ops[1]
		pfx, fl, is := sizeFlags(info.w)
		byteOp := byte(info.w & 1) // 1 for MOVB
		switch {
		case isGPR(s) && isRM(d):
			a.modrm(pfx, fl, 0, 0x89-byteOp, s.reg.Num(), d, insn, op)
		case isMem(s) && isGPR(d):
			a.modrm(pfx, fl, 0, 0x8B-byteOp, d.reg.Num(), s, insn, op)
		case isImm(s) && isGPR(d):
			v := s.val
			switch {
			case info.w == 1:
				a.opReg(0, fRmByte, 0xB0, d.reg)
			case info.w != 8:
				a.opReg(pfx, 0, 0xB8, d.reg)
			case v >= -1<<31 && v < 1<<31:
				a.modrm(0, fW, 0, 0xC7, 0, d, insn, op)
			case v >= 0 && v < 1<<32:
				a.opReg(0, 0, 0xB8, d.reg)
			default:
				a.opReg(0, fW, 0xB8, d.reg)
				is = 8
			}
			a.imm(v, is)
		case isImm(s) && isMem(d):
			a.modrm(pfx, fl&^fRegByte, 0, 0xC7-byteOp, 0, d, insn, op)
			a.imm(s.val, is)
		case info.w == 8 && isGPR(s) && isXMM(d):
			a.modrm(0x66, fW, 0x0F, 0x6E, d.reg.Num(), s, insn, op)
		case info.w == 8 && isXMM(s) && isGPR(d):
			a.modrm(0x66, fW, 0x0F, 0x7E, s.reg.Num(), d, insn, op)
		case info.w == 8 && (isMem(s) || isXMM(s)) && isXMM(d):
			a.modrm(0xF3, 0, 0x0F, 0x7E, d.reg.Num(), s, insn, op)
		case info.w == 8 && isXMM(s) && isMem(d):
			a.modrm(0x66, 0, 0x0F, 0xD6, s.reg.Num(), d, insn, op)
		case info.w == 4 && isRM(s) && isXMM(d):
			a.modrm(0x66, 0, 0x0F, 0x6E, d.reg.Num(), s, insn, op)
		case info.w == 4 && isXMM(s) && isRM(d):
			a.modrm(0x66, 0, 0x0F, 0x7E, s.reg.Num(), d, insn, op)
		default:
			return false
		}
		return true
	case encMOVX:
		s, d := &ops[0], &ops[1]
		if !isRM(s) || !isGPR(d) {
			return false
		}
		var fl uint8
		if info.w == 8 {
			fl = fW
		}
		if info.sw == 1 {
			fl |= fRmByte
		}
		a.modrm(0, fl, 0x0F, info.op1, d.reg.Num(), s, insn, op)
		return true
	case encMOVSXD, encMOVLQZX:
		s, d := &ops[0], &ops[1]
		if !isRM(s) || !isGPR(d) {
			return false
		}
		if info.enc == encMOVSXD {
			a.modrm(0, fW, 0, 0x63, d.reg.Num(), s, insn, op)
		} else {
			a.modrm(0, 0, 0, 0x8B, d.reg.Num(), s, insn, op)
		}
		return true
	case encLEA:
		s, d := &ops[0], &ops[1]
		if !isMem(s) || !isGPR(d) {
			return false
		}
		_, fl, _ := sizeFlags(info.w)
		a.modrm(0, fl, 0, 0x8D, d.reg.Num(), s, insn, op)
		return true
	case encXCHG:
		s, d := &ops[0], &ops[1]
		_, fl, _ := sizeFlags(info.w)
		switch {
		case isRAX(s) && isGPR(d):
			a.opReg(0, fl, 0x90, d.reg)
		case isGPR(s) && isRAX(d):
			a.opReg(0, fl, 0x90, s.reg)
		case isGPR(s) && isRM(d):
			a.modrm(0, fl, 0, 0x87, s.reg.Num(), d, insn, op)
		case isMem(s) && isGPR(d):
			a.modrm(0, fl, 0, 0x87, d.reg.Num(), s, insn, op)
		default:
			return false
		}
		return true
	case encPUSH:
		s := &ops[0]
		switch {
		case isGPR(s):
			a.opReg(0, 0, 0x50, s.reg)
		case isMem(s):
			a.modrm(0, 0, 0, 0xFF, 6, s, insn, op)
		case isImm(s) && fits8(s.val):
			a.code = append(a.code, 0x6A, byte(s.val))
		case isImm(s):
			a.code = append(a.code, 0x68)
			a.imm(s.val, 4)
		default:
			return false
		}
		return true
	case encPOP:
		d := &ops[0]
		switch {
		case isGPR(d):
			a.opReg(0, 0, 0x58, d.reg)
		case isMem(d):
			a.modrm(0, 0, 0, 0x8F, 0, d, insn, op)
		default:
			return false
		}
		return true
	case encIMUL:
		_, fl, _ := sizeFlags(info.w)
		if len(ops) == 1 {
			if !isRM(&ops[0]) {
				return false
			}
			a.modrm(0, fl, 0, 0xF7, 5, &ops[0], insn, op)
			return true
		}
		s, d := &ops[0], &ops[1]
		switch {
		case isImm(s) && isGPR(d) && fits8(s.val):
			a.modrm(0, fl, 0, 0x6B, d.reg.Num(), d, insn, op)
			a.imm(s.val, 1)
		case isImm(s) && isGPR(d):
			a.modrm(0, fl, 0, 0x69, d.reg.Num(), d, insn, op)
			a.imm(s.val, 4)
		case isRM(s) && isGPR(d):
			a.modrm(0, fl, 0x0F, 0xAF, d.reg.Num(), s, insn, op)
		default:
			return false
		}
		return true
	case encIMUL3:
		k, s, d := &ops[0], &ops[1], &ops[2]
		if !isImm(k) || !isRM(s) || !isGPR(d) {
			return false
		}
		_, fl, _ := sizeFlags(info.w)
		if fits8(k.val) {
			a.modrm(0, fl, 0, 0x6B, d.reg.Num(), s, insn, op)
			a.imm(k.val, 1)
		} else {
			a.modrm(0, fl, 0, 0x69, d.reg.Num(), s, insn, op)
			a.imm(k.val, 4)
		}
		return true
	case encUnary:
		if !isRM(&ops[0]) {
			return false
		}
		_, fl, _ := sizeFlags(info.w)
		a.modrm(0, fl, 0, info.op0, int(info.digit), &ops[0], insn, op)
		return true
	case encShift:
		s, d := &ops[0], &ops[1]
		if !isRM(d) {
			return false
		}
		_, fl, _ := sizeFlags(info.w)
		switch {
		case isImm(s) && s.val == 1:
			a.modrm(0, fl, 0, 0xD1, int(info.digit), d, insn, op)
		case isImm(s):
			a.modrm(0, fl, 0, 0xC1, int(info.digit), d, insn, op)
			a.imm(s.val, 1)
		case s.kind == kindReg && s.reg == RCX:
			a.modrm(0, fl, 0, 0xD3, int(info.digit), d, insn, op)
		default:
			return false
		}
		return true
	case encTEST:
		s, d := &ops[0], &ops[1]
		pfx, fl, is := sizeFlags(info.w)
		byteOp := byte(info.w & 1)
		switch {
		case isImm(s) && isRAX(d) && info.w != 1:
			if fl&fW != 0 {
				a.code = append(a.code, rexW)
			}
			a.code = append(a.code, 0xA9)
			a.imm(s.val, is)
		case isImm(s) && isRM(d):
			a.modrm(pfx, fl&^fRegByte, 0, 0xF7-byteOp, 0, d, insn, op)
			a.imm(s.val, is)
		case isGPR(s) && isRM(d):
			a.modrm(pfx, fl, 0, 0x85-byteOp, s.reg.Num(), d, insn, op)
		case isMem(s) && isGPR(d):
			a.modrm(pfx, fl, 0, 0x85-byteOp, d.reg.Num(), s, insn, op)
		default:
			return false
		}
		return true
	case encSETcc:
		if !isRM(&ops[0]) {
			return false
		}
		a.modrm(0, fRmByte, 0x0F, info.op1, 0, &ops[0], insn, op)
		return true
	case encCMOV:
		s, d := &ops[0], &ops[1]
		if !isRM(s) || !isGPR(d) {
			return false
		}
		_, fl, _ := sizeFlags(info.w)
		a.modrm(0, fl, 0x0F, info.op1, d.reg.Num(), s, insn, op)
		return true
	case encJMP:
		if !isRM(&ops[0]) {
			return false
		}
		a.modrm(0, 0, 0, 0xFF, int(info.digit), &ops[0], insn, op)
		return true
	case encSSE:
		s, d := &ops[0], &ops[1]
		if !isXMM(d) || !(isXMM(s) || isMem(s)) {
			return false
		}
		a.modrm(info.pfx, 0, 0x0F, info.op1, d.reg.Num(), s, insn, op)
		return true
	case encCVTI2F:
		s, d := &ops[0], &ops[1]
		if !isXMM(d) || !isRM(s) {
			return false
		}
		_, fl, _ := sizeFlags(info.w)
		a.modrm(info.pfx, fl, 0x0F, info.op1, d.reg.Num(), s, insn, op)
		return true
	case encCVTF2I:
		s, d := &ops[0], &ops[1]
		if !isGPR(d) || !(isXMM(s) || isMem(s)) {
			return false
		}
		_, fl, _ := sizeFlags(info.w)
		a.modrm(info.pfx, fl, 0x0F, info.op1, d.reg.Num(), s, insn, op)
		return true
	case encSSEMov:
		s, d := &ops[0], &ops[1]
		switch {
		case isXMM(d) && (isXMM(s) || isMem(s)):
			a.modrm(info.pfx, 0, 0x0F, info.op1, d.reg.Num(), s, insn, op)
		case isXMM(s) && isMem(d):
			a.modrm(info.pfx, 0, 0x0F, info.op1+1, s.reg.Num(), d, insn, op)
		default:
			return false
		}
		return true
	case encROUND:
		k, s, d := &ops[0], &ops[1], &ops[2]
		if !isImm(k) || !isXMM(d) || !(isXMM(s) || isMem(s)) {
			return false
		}
		a.modrm(info.pfx, 0, 0x0F3A, info.op1, d.reg.Num(), s, insn, op)
		a.imm(k.val, 1)
		return true
	case encXADD:
		s, d := &ops[0], &ops[1]
		if !isGPR(s) || !isRM(d) {
			return false
		}
		_, fl, _ := sizeFlags(info.w)
		a.modrm(0, fl, 0x0F, info.op1, s.reg.Num(), d, insn, op)
		return true
	}
	return false
}
