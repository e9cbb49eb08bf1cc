package amd64

import (
	"encoding/binary"
	"strconv"
)

// Label is a position in a blob, created by Assembler.NewLabel and bound
// by Assembler.Bind. Labels are numbered densely from 0 in each blob.
type Label int32

// MarkID names a recorded position in a blob; see Assembler.Mark.
type MarkID int32

// Blob is the result of assembling one method.
type Blob struct {
	// Code is the machine code. The Blob owns it.
	Code []byte
	// Labels[l] is the final offset in Code of label l, or -1 when l was
	// never bound (and never referenced).
	Labels []int
	// Marks[m] is the final offset in Code of the instruction that
	// followed Mark m (len(Code) when nothing followed).
	Marks []int
}

// Error is an error reported by Assemble. Index is the 0-based number of
// the offending I, Jump or Bytes call in the blob (-1 when the error
// concerns the blob as a whole) and Op its mnemonic.
type Error struct {
	Index int
	Op    Op
	Msg   string
}

// Error formats the error as "amd64 asm: instruction N (OP): message".
func (e *Error) Error() string {
	if e.Index < 0 {
		return "amd64 asm: " + e.Msg
	}
	return "amd64 asm: instruction " + strconv.Itoa(e.Index) + " (" + e.Op.String() + "): " + e.Msg
}

type arity uint8

const (
	ar0       arity = iota // no operand
	ar1Src                 // one operand, a source
	ar1Dst                 // one operand, a destination
	ar2                    // src, dst
	ar12                   // one source operand or src, dst
	ar3                    // $imm, src, dst
	arJcc                  // Jump only
	arJmpCall              // Jump, or one register or memory operand
)

// opInfo describes an Op: its name, operands, immediates and encoding.
// The encoding fields are read by the encoder's class (enc): w is the
// operand size in bytes (for encFixed, the number of bytes, which are
// pfx, op0 and op1), digit the ModRM reg field of /digit forms, pfx a
// mandatory prefix (0x66, 0xF2, 0xF3) or 0, op0 and op1 opcode bytes
// (op1 after 0x0F for two-byte opcodes) and sw the source width of
// MOVBLSX and friends.
type opInfo struct {
	name  string
	arity arity
	imm   immClass
	enc   encClass
	w     uint8
	digit uint8
	pfx   byte
	op0   byte
	op1   byte
	sw    uint8
}

// immClass says which immediates an instruction takes: the Assembler
// checks ranges (a 64-bit instruction takes a sign-extended 32-bit
// immediate, byte and word instructions take what fits signed or
// unsigned), so no immediate is silently truncated or sign-extended.
type immClass uint8

const (
	immNone immClass = iota // no immediate operand
	immQ                    // sign-extended 32 bits
	immL                    // 32 bits, signed or unsigned
	immW                    // 16 bits, signed or unsigned
	immB                    // 8 bits, signed or unsigned
	immShQ                  // shift count 0..63
	immShL                  // shift count 0..31
	immU8                   // 0..255
	immMOVQ                 // any to a register, else as immQ
)

// checkImm returns an error message if v is out of range for op.
func checkImm(op Op, v int64, dst Operand) string {
	lo, hi := int64(0), int64(-1)
	switch opTable[op].imm {
	case immNone:
		return "takes no immediate operand"
	case immQ:
		lo, hi = -1<<31, 1<<31-1
	case immL:
		lo, hi = -1<<31, 1<<32-1
	case immW:
		lo, hi = -1<<15, 1<<16-1
	case immB:
		lo, hi = -1<<7, 1<<8-1
	case immShQ:
		lo, hi = 0, 63
	case immShL:
		lo, hi = 0, 31
	case immU8:
		lo, hi = 0, 255
	case immMOVQ:
		if dst.kind == kindReg {
			return ""
		}
		lo, hi = -1<<31, 1<<31-1
	}
	if v < lo || v > hi {
		return "immediate " + strconv.FormatInt(v, 10) + " out of range [" + strconv.FormatInt(lo, 10) + ", " + strconv.FormatInt(hi, 10) + "]"
	}
	return ""
}

// String returns the Go assembler mnemonic.
func (op Op) String() string {
	if op == badOp || op >= numOps {
		return "Op(" + strconv.Itoa(int(op)) + ")"
	}
	return opTable[op].name
}

var condNames = [16]string{"EQ", "NE", "LT", "GE", "LE", "GT", "CS", "CC", "LS", "HI", "MI", "PL", "OS", "OC", "PS", "PC"}

// String returns the Go assembler condition suffix (EQ, CS, ...).
func (c Cond) String() string {
	if c > CondPC {
		return "Cond(" + strconv.Itoa(int(c)) + ")"
	}
	return condNames[c]
}

// Not returns the negated condition (EQ <-> NE, LT <-> GE, CS <-> CC, ...).
func (c Cond) Not() Cond { return c ^ 1 }

// Swap returns the condition that holds for the comparison with its
// operands exchanged (a < b iff b > a): LT <-> GT, LE <-> GE, CS <-> HI,
// LS <-> CC; the others are unchanged.
func (c Cond) Swap() Cond {
	switch c {
	case CondLT:
		return CondGT
	case CondGT:
		return CondLT
	case CondLE:
		return CondGE
	case CondGE:
		return CondLE
	case CondCS:
		return CondHI
	case CondHI:
		return CondCS
	case CondLS:
		return CondCC
	case CondCC:
		return CondLS
	}
	return c
}

// Jcc returns the conditional jump on c (JEQ, ...).
func (c Cond) Jcc() Op { return JEQ + Op(c&15) }

// SETcc returns the SETcc instruction for c (SETEQ, ...).
func (c Cond) SETcc() Op { return SETEQ + Op(c&15) }

// CMOVQ returns the 64-bit conditional move for c (CMOVQEQ, ...).
func (c Cond) CMOVQ() Op { return CMOVQEQ + Op(c&15) }

// CMOVL returns the 32-bit conditional move for c (CMOVLEQ, ...).
func (c Cond) CMOVL() Op { return CMOVLEQ + Op(c&15) }

// Init does nothing; it remains for callers that moved the assembler's
// one-time set-up out of the first compilation when there was one (the
// encoder has none).
func Init() {}

// pos is a position in a blob before the jumps are sized: off bytes of
// code emitted and nj jumps before it. Its final offset is off plus the
// sizes of the first nj jumps.
type pos struct {
	off int32
	nj  int32
}

// jump is a JMP or Jcc to a label, whose bytes are written once it is
// sized (short rel8 or near rel32).
type jump struct {
	at    int32 // offset in Assembler.code where the jump goes
	label Label
	cc    uint8 // Jcc's condition (Intel numbering), jmpAlways for JMP
	insn  int32
}

const jmpAlways = 0xff

// fixup is a rel32 or RIP-relative disp32 field that holds the distance
// from the end of its instruction to a label (CALL to a label, LabelAddr).
type fixup struct {
	at    int32 // offset of the 4-byte field in Assembler.code
	end   int32 // offset of the end of the instruction in Assembler.code
	nj    int32 // jumps before the instruction
	label Label
	insn  int32
	op    Op
}

// Assembler assembles amd64 code, one blob (method) at a time. It
// encodes each instruction into bytes as it is emitted; jumps to labels
// are recorded apart and sized by Assemble (short rel8 when the target
// is in reach, else near rel32), and rel32 references to labels are
// patched once the labels' offsets are known. All its storage is reused
// from blob to blob.
//
// Operands follow the Go assembler convention: sources first, destination
// last (ADDQ R(RBX), R(RAX) is RAX += RBX; MOVQ Mem(RBP, -8), R(RAX) is a
// load). Quirks kept from the Go assembler (see the Op groups):
// CMPx keeps Intel's order (CMPQ a, b sets flags for a - b, immediate
// last); TESTx takes an immediate first; UCOMISD a, b compares b with a;
// shift counts are an immediate or R(RCX); NOP emits no bytes (use
// Bytes(0x90) for a real one). Byte instructions name full registers
// (R(RSI) is SIL); AH..BH are not reachable.
//
// Errors (bad operands, invalid operand combinations, unbound labels) are
// recorded and returned by Assemble; the emitting methods never fail.
//
// An Assembler is not safe for concurrent use.
type Assembler struct {
	code   []byte  // instructions, without the jumps' bytes
	jumps  []jump  // in emission order
	fixups []fixup // in emission order
	labels []pos   // where each label is bound; off -1 while unbound
	marks  []pos
	ninsn  int32 // I/Jump/Bytes calls so far
	err    *Error
	done   bool

	size []uint8 // Assemble: each jump's size
	cum  []int32 // Assemble: cum[j] = sizes of jumps[:j]

	// AssembleScratch's blob and its lists, reused from blob to blob.
	scratch     Blob
	scratchCode []byte
	scratchOffs []int
}

// NewAssembler returns an Assembler, ready for the first blob.
func NewAssembler() *Assembler { return &Assembler{} }

// Reset starts a new blob, discarding everything emitted since the last
// Reset. All internal storage is kept.
func (a *Assembler) Reset() {
	a.code = a.code[:0]
	a.jumps = a.jumps[:0]
	a.fixups = a.fixups[:0]
	a.labels = a.labels[:0]
	a.marks = a.marks[:0]
	a.ninsn = 0
	a.err = nil
	a.done = false
}

func (a *Assembler) here() pos { return pos{int32(len(a.code)), int32(len(a.jumps))} }

// NewLabel returns a new unbound label.
func (a *Assembler) NewLabel() Label {
	a.labels = append(a.labels, pos{-1, 0})
	return Label(len(a.labels) - 1)
}

// Bind binds l to the position of the next instruction (or the end of the
// blob if none follows). Binding a label twice is an error.
func (a *Assembler) Bind(l Label) {
	if a.err != nil {
		return
	}
	if l < 0 || int(l) >= len(a.labels) {
		a.fail(-1, badOp, "Bind of unknown label L"+strconv.Itoa(int(l)))
		return
	}
	if a.labels[l].off >= 0 {
		a.fail(-1, badOp, "label L"+strconv.Itoa(int(l))+" bound twice")
		return
	}
	a.labels[l] = a.here()
}

// Mark records the position of the next instruction (or the end of the
// blob if none follows); after Assemble, Blob.Marks[id] is its offset.
// Use it for call-site return addresses (Mark after the CALL) and block
// starts. Marks cost nothing in the code.
func (a *Assembler) Mark() MarkID {
	a.marks = append(a.marks, a.here())
	return MarkID(len(a.marks) - 1)
}

func (a *Assembler) fail(insn int32, op Op, msg string) {
	if a.err == nil {
		a.err = &Error{Index: int(insn), Op: op, Msg: msg}
	}
}

// checkOperand returns an error message if o is malformed.
func (a *Assembler) checkOperand(o *Operand) string {
	switch o.kind {
	case kindReg:
		if !o.reg.IsGPR() && !o.reg.IsXMM() {
			return "invalid register " + o.reg.String()
		}
	case kindImm:
	case kindMem:
		if !o.reg.IsGPR() {
			return "memory base must be a general-purpose register, not " + o.reg.String()
		}
		if o.index != NoReg {
			if !o.index.IsGPR() || o.index == RSP {
				return "invalid memory index register " + o.index.String()
			}
			switch o.scale {
			case 1, 2, 4, 8:
			default:
				return "memory scale must be 1, 2, 4 or 8, not " + strconv.Itoa(int(o.scale))
			}
		}
	case kindLabel:
		if o.label < 0 || int(o.label) >= len(a.labels) {
			return "unknown label L" + strconv.Itoa(int(o.label))
		}
	default:
		return "invalid (zero) operand"
	}
	return ""
}

// checkArity says what is wrong with the number and kinds of ops for op
// as I takes them ("" when nothing is): labels go through Jump.
func checkArity(op Op, ops []Operand) string {
	n := len(ops)
	ok := false
	switch opTable[op].arity {
	case ar0:
		ok = n == 0
	case ar1Src, ar1Dst:
		ok = n == 1
	case ar2:
		ok = n == 2
	case ar12:
		ok = n == 1 || n == 2
	case ar3:
		ok = n == 3
	case arJcc:
		return "conditional jumps need a label: use Jump"
	case arJmpCall:
		if n != 1 || ops[0].kind != kindReg && !ops[0].IsMem() {
			return "I takes one register or memory operand; use Jump for a label"
		}
		ok = true
	}
	if !ok {
		return "wrong number of operands: " + strconv.Itoa(n)
	}
	return ""
}

// I emits one instruction. Operands follow the Go assembler order:
// sources first, destination last (with the CMPx exception documented on
// Assembler). Conditional jumps and jumps or calls to labels use Jump.
// Errors are reported by Assemble.
func (a *Assembler) I(op Op, ops ...Operand) {
	insn := a.ninsn
	a.ninsn++
	if a.err != nil {
		return
	}
	if op == badOp || op >= numOps {
		a.fail(insn, op, "invalid op")
		return
	}
	n := len(ops)
	if msg := checkArity(op, ops); msg != "" {
		a.fail(insn, op, msg)
		return
	}
	labels := 0
	for i := range ops {
		o := &ops[i]
		if msg := a.checkOperand(o); msg != "" {
			a.fail(insn, op, msg)
			return
		}
		switch o.kind {
		case kindImm:
			if msg := checkImm(op, o.val, ops[n-1]); msg != "" {
				a.fail(insn, op, msg)
				return
			}
		case kindLabel:
			if labels++; labels > 1 {
				a.fail(insn, op, "more than one label operand")
				return
			}
		}
	}
	start := len(a.code)
	nfix := len(a.fixups)
	if !a.encode(op, &opTable[op], ops, insn) {
		a.code = a.code[:start]
		a.fixups = a.fixups[:nfix]
		a.fail(insn, op, "invalid instruction: "+op.String()+" "+operandList(ops))
		return
	}
	if len(a.fixups) > nfix {
		a.fixups[nfix].end = int32(len(a.code))
	}
}

func operandList(ops []Operand) string {
	s := ""
	for i, o := range ops {
		if i > 0 {
			s += ", "
		}
		s += o.String()
	}
	return s
}

// Jump emits a jump to l: op is JMP, a conditional jump (JEQ ... JPC, see
// Cond.Jcc) or CALL. Assemble picks the short (rel8) or near (rel32)
// form for JMP and Jcc; CALL is always E8 rel32.
func (a *Assembler) Jump(op Op, l Label) {
	insn := a.ninsn
	a.ninsn++
	if a.err != nil {
		return
	}
	if op >= numOps || (opTable[op].arity != arJcc && op != JMP && op != CALL) {
		a.fail(insn, op, "Jump needs JMP, CALL or a conditional jump")
		return
	}
	if l < 0 || int(l) >= len(a.labels) {
		a.fail(insn, op, "unknown label L"+strconv.Itoa(int(l)))
		return
	}
	switch op {
	case CALL:
		a.code = append(a.code, 0xE8, 0, 0, 0, 0)
		e := int32(len(a.code))
		a.fixups = append(a.fixups, fixup{at: e - 4, end: e, nj: int32(len(a.jumps)), label: l, insn: insn, op: op})
	case JMP:
		a.jumps = append(a.jumps, jump{at: int32(len(a.code)), label: l, cc: jmpAlways, insn: insn})
	default:
		a.jumps = append(a.jumps, jump{at: int32(len(a.code)), label: l, cc: opTable[op].op1 - 0x80, insn: insn})
	}
}

// Bytes emits raw bytes (for encodings the Assembler lacks, or data such
// as constants addressed with LabelAddr).
func (a *Assembler) Bytes(b ...byte) {
	a.ninsn++
	if a.err != nil {
		return
	}
	a.code = append(a.code, b...)
}

// Assemble assembles the blob emitted since the last Reset (or
// NewAssembler). It returns the first error: one recorded while emitting
// (such as "invalid instruction" for an operand combination the
// instruction does not have) or a label referenced but never bound. Call
// Reset before starting the next blob.
//
// Jumps start short and become near while one does not reach its target
// (growing a jump only moves targets further), so the result is the
// least fixed point: every jump that can be short is.
func (a *Assembler) Assemble() (*Blob, error) {
	return a.assemble(false)
}

// AssembleScratch is Assemble, but the Blob and its lists are the
// Assembler's own, reused by its next AssembleScratch: for a caller that
// copies the code out (or is done with it) before then, as a compile is
// before the next, it makes no garbage per blob.
func (a *Assembler) AssembleScratch() (*Blob, error) {
	return a.assemble(true)
}

func (a *Assembler) assemble(scratch bool) (*Blob, error) {
	if a.done {
		return nil, &Error{Index: -1, Msg: "Assemble called twice without Reset"}
	}
	a.done = true
	if a.err != nil {
		return nil, a.err
	}
	for i := range a.jumps {
		j := &a.jumps[i]
		if a.labels[j.label].off < 0 {
			op := JMP
			if j.cc != jmpAlways {
				op = JEQ + Op(jccToCond[j.cc])
			}
			return nil, &Error{Index: int(j.insn), Op: op, Msg: "label L" + strconv.Itoa(int(j.label)) + " is never bound"}
		}
	}
	for i := range a.fixups {
		f := &a.fixups[i]
		if a.labels[f.label].off < 0 {
			return nil, &Error{Index: int(f.insn), Op: f.op, Msg: "label L" + strconv.Itoa(int(f.label)) + " is never bound"}
		}
	}
	nj := len(a.jumps)
	if cap(a.cum) < nj+1 {
		a.size = make([]uint8, nj, nj+nj/2)
		a.cum = make([]int32, nj+1, nj+nj/2+1)
	}
	size, cum := a.size[:nj], a.cum[:nj+1]
	for i := range size {
		size[i] = 2
	}
	for {
		var c int32
		for i := range size {
			cum[i] = c
			c += int32(size[i])
		}
		cum[nj] = c
		grown := false
		for i := range a.jumps {
			j := &a.jumps[i]
			if size[i] != 2 {
				continue
			}
			t := a.labels[j.label]
			d := t.off + cum[t.nj] - (j.at + cum[i] + 2)
			if d < -128 || d > 127 {
				size[i] = 5
				if j.cc != jmpAlways {
					size[i] = 6
				}
				grown = true
			}
		}
		if !grown {
			break
		}
	}
	var code []byte
	if scratch {
		code = grown(&a.scratchCode, len(a.code)+int(cum[nj]))
	} else {
		code = make([]byte, len(a.code)+int(cum[nj]))
	}
	src, dst := 0, 0
	for i := range a.jumps {
		j := &a.jumps[i]
		dst += copy(code[dst:], a.code[src:j.at])
		src = int(j.at)
		t := a.labels[j.label]
		end := int32(dst) + int32(size[i])
		d := t.off + cum[t.nj] - end
		switch {
		case size[i] == 2 && j.cc == jmpAlways:
			code[dst], code[dst+1] = 0xEB, byte(d)
		case size[i] == 2:
			code[dst], code[dst+1] = 0x70+j.cc, byte(d)
		case j.cc == jmpAlways:
			code[dst] = 0xE9
			binary.LittleEndian.PutUint32(code[dst+1:], uint32(d))
		default:
			code[dst], code[dst+1] = 0x0F, 0x80+j.cc
			binary.LittleEndian.PutUint32(code[dst+2:], uint32(d))
		}
		dst = int(end)
	}
	copy(code[dst:], a.code[src:])
	for i := range a.fixups {
		f := &a.fixups[i]
		t := a.labels[f.label]
		shift := cum[f.nj]
		d := t.off + cum[t.nj] - (f.end + shift)
		binary.LittleEndian.PutUint32(code[f.at+shift:], uint32(d))
	}
	var offs []int
	b := &a.scratch
	if scratch {
		offs = grown(&a.scratchOffs, len(a.labels)+len(a.marks))
	} else {
		offs = make([]int, len(a.labels)+len(a.marks))
		b = new(Blob)
	}
	*b = Blob{Code: code, Labels: offs[:len(a.labels):len(a.labels)], Marks: offs[len(a.labels):]}
	for l, p := range a.labels {
		if p.off < 0 {
			b.Labels[l] = -1
		} else {
			b.Labels[l] = int(p.off + cum[p.nj])
		}
	}
	for m, p := range a.marks {
		b.Marks[m] = int(p.off + cum[p.nj])
	}
	return b, nil
}

// grown returns (*buf)[:n], growing *buf when it is shorter. Every
// element is overwritten by the caller.
func grown[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n, n+n/4)
	}
	return (*buf)[:n]
}

// jccToCond maps Intel condition numbers back to Cond (for errors).
var jccToCond = [16]Cond{
	0: CondOS, 1: CondOC, 2: CondCS, 3: CondCC, 4: CondEQ, 5: CondNE, 6: CondLS, 7: CondHI,
	8: CondMI, 9: CondPL, 10: CondPS, 11: CondPC, 12: CondLT, 13: CondGE, 14: CondLE, 15: CondGT,
}
