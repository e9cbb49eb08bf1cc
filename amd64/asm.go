package amd64

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"

	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"
	"github.com/twitchyliquid64/golang-asm/objabi"
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
	ar1Src                 // one operand, a source (Prog.From)
	ar1Dst                 // one operand, a destination (Prog.To)
	ar2                    // src, dst
	ar12                   // one source operand or src, dst
	ar3                    // $imm, src, dst
	arJcc                  // Jump only
	arJmpCall              // Jump, or one register or memory operand
)

type opInfo struct {
	name  string
	as    obj.As
	arity arity
	imm   immClass
}

// immClass says which immediates an instruction takes. golang-asm
// accepts 32-bit immediates in [-2^31, 2^32) for 64-bit instructions and
// silently sign-extends them (ADDQ $0xffffffff, AX adds -1), and truncates
// immediates of byte and word instructions: the Assembler checks ranges
// itself.
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

var initOnce sync.Once

// Init initializes golang-asm's global opcode tables. NewAssembler calls
// it; call it yourself only to move the one-time cost (well under a
// millisecond) out of the first compilation. After Init, Assemblers may
// be used on different goroutines (one Assembler per goroutine).
func Init() {
	initOnce.Do(func() {
		ctxt := &obj.Link{Arch: &x86.Linkamd64, Headtype: objabi.Hlinux}
		ctxt.DiagFunc = func(format string, args ...interface{}) {
			panic(fmt.Sprintf("amd64: golang-asm initialization: "+format, args...))
		}
		x86.Linkamd64.Init(ctxt)
	})
}

// progMeta is what the Assembler knows about each golang-asm Prog.
type progMeta struct {
	insn  int32 // index of the I/Jump/Bytes call, -1 for the end anchor
	op    Op
	kind  uint8
	label Label
}

const (
	metaPlain     = iota
	metaJump      // JMP/Jcc to label: branch target resolved by golang-asm
	metaLabelDisp // rel32 or RIP-relative disp32 to label, patched after assembly
)

const (
	chunkShift = 8
	chunkSize  = 1 << chunkShift
	chunkMask  = chunkSize - 1
)

// diagPanic carries a golang-asm diagnostic out of the assembler.
type diagPanic struct {
	msg  string
	prog *obj.Prog
}

// Assembler assembles amd64 code, one blob (method) at a time. It wraps
// the internals of golang-asm (the Go 1.15 assembler): a long-lived link
// context and the amd64 back end's span6 pass, both reused across blobs.
//
// Operands follow the Go assembler convention: sources first, destination
// last (ADDQ R(RBX), R(RAX) is RAX += RBX; MOVQ Mem(RBP, -8), R(RAX) is a
// load). Quirks inherited from the Go assembler (see the Op groups):
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
	ctxt     *obj.Link
	sym      obj.LSym
	fn       obj.FuncInfo
	labelSym obj.LSym

	chunks [][]obj.Prog // progs; pointers stay valid as the list grows
	n      int          // progs used
	meta   []progMeta   // one per prog
	rest   []obj.Addr   // storage for Prog.RestArgs
	labels []int32      // prog index each label is bound to, or -1
	marks  []int32      // prog index following each mark
	ninsn  int32        // I/Jump/Bytes calls so far
	err    *Error
	done   bool
}

// NewAssembler returns an Assembler with its own golang-asm link context,
// ready for the first blob.
func NewAssembler() *Assembler {
	Init()
	a := &Assembler{}
	a.ctxt = &obj.Link{
		Arch:     &x86.Linkamd64,
		Headtype: objabi.Hlinux,
		// IsAsm turns off the Intel jump-erratum padding (NOPs so that no
		// jump crosses or ends on a 32-byte boundary), which golang-asm
		// applies by default: larger code and slower assembly.
		IsAsm: true,
	}
	a.ctxt.DiagFunc = func(format string, args ...interface{}) {
		var bad *obj.Prog
		args = append([]interface{}(nil), args...)
		for i, x := range args {
			if p, ok := x.(*obj.Prog); ok {
				bad = p
				args[i] = p.InstructionString()
			}
		}
		panic(diagPanic{fmt.Sprintf(format, args...), bad})
	}
	a.ctxt.DiagFlush = func() {}
	a.sym.Name = "miniil.blob"
	a.labelSym.Name = "miniil.label"
	return a
}

// Reset starts a new blob, discarding everything emitted since the last
// Reset. The link context and all internal storage are kept.
func (a *Assembler) Reset() {
	a.n = 0
	a.meta = a.meta[:0]
	a.rest = a.rest[:0]
	a.labels = a.labels[:0]
	a.marks = a.marks[:0]
	a.ninsn = 0
	a.err = nil
	a.done = false
}

// NewLabel returns a new unbound label.
func (a *Assembler) NewLabel() Label {
	a.labels = append(a.labels, -1)
	return Label(len(a.labels) - 1)
}

// Bind binds l to the position of the next instruction (or the end of the
// blob if none follows). Binding a label twice is an error.
func (a *Assembler) Bind(l Label) {
	if a.err != nil {
		return
	}
	if l < 0 || int(l) >= len(a.labels) {
		a.fail(-1, badOp, fmt.Sprintf("Bind of unknown label L%d", l))
		return
	}
	if a.labels[l] >= 0 {
		a.fail(-1, badOp, fmt.Sprintf("label L%d bound twice", l))
		return
	}
	a.labels[l] = int32(a.n)
}

// Mark records the position of the next instruction (or the end of the
// blob if none follows); after Assemble, Blob.Marks[id] is its offset.
// Use it for call-site return addresses (Mark after the CALL) and block
// starts. Marks cost nothing in the code.
func (a *Assembler) Mark() MarkID {
	a.marks = append(a.marks, int32(a.n))
	return MarkID(len(a.marks) - 1)
}

func (a *Assembler) fail(insn int32, op Op, msg string) {
	if a.err == nil {
		a.err = &Error{Index: int(insn), Op: op, Msg: msg}
	}
}

func (a *Assembler) prog(i int) *obj.Prog {
	return &a.chunks[i>>chunkShift][i&chunkMask]
}

// newProg appends a zeroed Prog linked after the previous one.
func (a *Assembler) newProg(as obj.As, insn int32, op Op) (*obj.Prog, *progMeta) {
	c := a.n >> chunkShift
	if c == len(a.chunks) {
		a.chunks = append(a.chunks, make([]obj.Prog, chunkSize))
	}
	p := &a.chunks[c][a.n&chunkMask]
	*p = obj.Prog{Ctxt: a.ctxt, As: as}
	if a.n > 0 {
		a.prog(a.n - 1).Link = p
	}
	a.n++
	a.meta = append(a.meta, progMeta{insn: insn, op: op})
	return p, &a.meta[len(a.meta)-1]
}

// addr converts o into dst; it returns an error message or "".
func (a *Assembler) addr(dst *obj.Addr, o Operand, m *progMeta) string {
	switch o.kind {
	case kindReg:
		if !o.reg.IsGPR() && !o.reg.IsXMM() {
			return "invalid register " + o.reg.String()
		}
		dst.Type = obj.TYPE_REG
		dst.Reg = o.reg.goReg()
	case kindImm:
		dst.Type = obj.TYPE_CONST
		dst.Offset = o.val
	case kindMem:
		if !o.reg.IsGPR() {
			return "memory base must be a general-purpose register, not " + o.reg.String()
		}
		dst.Type = obj.TYPE_MEM
		dst.Reg = o.reg.goReg()
		dst.Offset = o.val
		if o.index != NoReg {
			if !o.index.IsGPR() || o.index == RSP {
				return "invalid memory index register " + o.index.String()
			}
			switch o.scale {
			case 1, 2, 4, 8:
			default:
				return "memory scale must be 1, 2, 4 or 8, not " + strconv.Itoa(int(o.scale))
			}
			dst.Index = o.index.goReg()
			dst.Scale = int16(o.scale)
		}
	case kindLabel:
		if o.label < 0 || int(o.label) >= len(a.labels) {
			return fmt.Sprintf("unknown label L%d", o.label)
		}
		if m.kind != metaPlain {
			return "more than one label operand"
		}
		m.kind = metaLabelDisp
		m.label = o.label
		dst.Type = obj.TYPE_MEM
		dst.Name = obj.NAME_EXTERN
		dst.Sym = &a.labelSym
	default:
		return "invalid (zero) operand"
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
	info := &opTable[op]
	n := len(ops)
	ok := false
	switch info.arity {
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
		a.fail(insn, op, "conditional jumps need a label: use Jump")
		return
	case arJmpCall:
		ok = n == 1 && (ops[0].kind == kindReg || ops[0].IsMem())
		if !ok {
			a.fail(insn, op, "I takes one register or memory operand; use Jump for a label")
			return
		}
	}
	if !ok {
		a.fail(insn, op, "wrong number of operands: "+strconv.Itoa(n))
		return
	}
	for i := range ops {
		if ops[i].kind == kindImm {
			if msg := checkImm(op, ops[i].val, ops[n-1]); msg != "" {
				a.fail(insn, op, msg)
				return
			}
		}
	}
	if op == INT3 {
		p, _ := a.newProg(x86.ABYTE, insn, op)
		p.From.Type = obj.TYPE_CONST
		p.From.Offset = 0xCC
		return
	}
	p, m := a.newProg(info.as, insn, op)
	var msg string
	switch n {
	case 1:
		if info.arity == ar1Dst || info.arity == arJmpCall {
			msg = a.addr(&p.To, ops[0], m)
		} else {
			msg = a.addr(&p.From, ops[0], m)
		}
	case 2:
		msg = a.addr(&p.From, ops[0], m)
		if msg == "" {
			msg = a.addr(&p.To, ops[1], m)
		}
	case 3:
		a.rest = append(a.rest, obj.Addr{})
		r := a.rest[len(a.rest)-1:]
		msg = a.addr(&p.From, ops[0], m)
		if msg == "" {
			msg = a.addr(&r[0], ops[1], m)
		}
		if msg == "" {
			msg = a.addr(&p.To, ops[2], m)
		}
		p.RestArgs = r[:1:1]
	}
	if msg != "" {
		a.fail(insn, op, msg)
	}
}

// Jump emits a jump to l: op is JMP, a conditional jump (JEQ ... JPC, see
// Cond.Jcc) or CALL. golang-asm picks the short (rel8) or near (rel32)
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
		a.fail(insn, op, fmt.Sprintf("unknown label L%d", l))
		return
	}
	p, m := a.newProg(opTable[op].as, insn, op)
	m.label = l
	if op == CALL {
		// golang-asm cannot CALL a branch target (it wants a symbol and
		// log.Fatalfs without one): emit CALL $0, the E8 rel32 form with an
		// R_PCREL relocation, and patch the displacement after assembly.
		m.kind = metaLabelDisp
		p.To.Type = obj.TYPE_CONST
		return
	}
	m.kind = metaJump
	p.To.Type = obj.TYPE_BRANCH
}

// Bytes emits raw bytes (for encodings golang-asm lacks, or data such as
// constants addressed with LabelAddr).
func (a *Assembler) Bytes(b ...byte) {
	insn := a.ninsn
	a.ninsn++
	if a.err != nil {
		return
	}
	for _, x := range b {
		p, _ := a.newProg(x86.ABYTE, insn, badOp)
		p.From.Type = obj.TYPE_CONST
		p.From.Offset = int64(x)
	}
}

// Assemble assembles the blob emitted since the last Reset (or
// NewAssembler). It returns the first error: one recorded while emitting,
// a label referenced but never bound, or a golang-asm diagnostic
// (typically "invalid instruction" for an operand combination the
// instruction does not have). Call Reset before starting the next blob.
func (a *Assembler) Assemble() (blob *Blob, err error) {
	if a.done {
		return nil, &Error{Index: -1, Msg: "Assemble called twice without Reset"}
	}
	a.done = true
	if a.err != nil {
		return nil, a.err
	}
	// Every referenced label must be bound; a label bound at the very end
	// needs a (zero-size) Prog to stand for it.
	anchor := false
	for i := range a.meta {
		m := &a.meta[i]
		if m.kind != metaPlain {
			b := a.labels[m.label]
			if b < 0 {
				return nil, &Error{Index: int(m.insn), Op: m.op, Msg: fmt.Sprintf("label L%d is never bound", m.label)}
			}
			if int(b) == a.n {
				anchor = true
			}
		}
	}
	if a.n == 0 {
		return a.blob(nil), nil
	}
	if anchor {
		a.newProg(obj.ANOP, -1, badOp)
	}
	for i := range a.meta {
		if m := &a.meta[i]; m.kind == metaJump {
			a.prog(i).To.SetTarget(a.prog(int(a.labels[m.label])))
		}
	}

	defer func() {
		if r := recover(); r != nil {
			blob = nil
			err = a.panicError(r)
		}
	}()
	a.ctxt.Errors = 0
	a.fn = obj.FuncInfo{Text: a.prog(0)}
	a.sym.Func = &a.fn
	a.sym.P = nil // span6 does nothing if P is set
	a.sym.R = a.sym.R[:0]
	a.sym.Size = 0
	x86.Linkamd64.Assemble(a.ctxt, &a.sym, a.ctxt.NewProg)
	if a.ctxt.Errors != 0 {
		return nil, &Error{Index: -1, Msg: "golang-asm reported an error"}
	}
	code := a.sym.P[:a.sym.Size:a.sym.Size]
	if err := a.patch(code); err != nil {
		return nil, err
	}
	return a.blob(code), nil
}

// patch writes the rel32/disp32 fields of CALLs to labels and LabelAddr
// operands. golang-asm recorded each as a relocation of size 4 at the
// field (relocations are in instruction order); x86 measures the
// displacement from the end of the instruction.
func (a *Assembler) patch(code []byte) error {
	rs := a.sym.R
	ri := 0
	for i := range a.meta {
		m := &a.meta[i]
		if m.kind != metaLabelDisp {
			continue
		}
		p := a.prog(i)
		end := p.Pc + int64(p.Isize)
		for ri < len(rs) && rs[ri].Type != objabi.R_PCREL {
			ri++ // R_CALLIND markers of indirect calls and the like
		}
		if ri >= len(rs) || int64(rs[ri].Off) < p.Pc || int64(rs[ri].Off)+4 > end || rs[ri].Siz != 4 {
			return &Error{Index: int(m.insn), Op: m.op, Msg: "internal error: no relocation for label operand"}
		}
		disp := a.prog(int(a.labels[m.label])).Pc - end
		binary.LittleEndian.PutUint32(code[rs[ri].Off:], uint32(int32(disp)))
		ri++
	}
	for ; ri < len(rs); ri++ {
		if rs[ri].Type == objabi.R_PCREL {
			return &Error{Index: -1, Msg: "internal error: unexpected relocation"}
		}
	}
	return nil
}

func (a *Assembler) blob(code []byte) *Blob {
	offs := make([]int, len(a.labels)+len(a.marks))
	b := &Blob{Code: code, Labels: offs[:len(a.labels):len(a.labels)], Marks: offs[len(a.labels):]}
	if code == nil {
		b.Code = []byte{}
	}
	off := func(i int32) int {
		if int(i) >= a.n {
			return len(code)
		}
		return int(a.prog(int(i)).Pc)
	}
	for l, i := range a.labels {
		if i < 0 {
			b.Labels[l] = -1
		} else {
			b.Labels[l] = off(i)
		}
	}
	for m, i := range a.marks {
		b.Marks[m] = off(i)
	}
	return b
}

func (a *Assembler) panicError(r interface{}) *Error {
	d, ok := r.(diagPanic)
	if !ok {
		return &Error{Index: -1, Msg: fmt.Sprintf("internal error in golang-asm: %v", r)}
	}
	if d.prog != nil {
		for i := 0; i < a.n; i++ {
			if a.prog(i) == d.prog {
				m := &a.meta[i]
				return &Error{Index: int(m.insn), Op: m.op, Msg: d.msg}
			}
		}
	}
	return &Error{Index: -1, Msg: d.msg}
}
