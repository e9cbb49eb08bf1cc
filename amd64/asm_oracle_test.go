package amd64

// The golang-asm oracle: the assembler miniil used before its own encoder
// (asm_encode.go), kept for tests only. TestEncoderMatchesGolangAsm
// assembles every instruction form with both and requires identical bytes.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"testing"

	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"
	"github.com/twitchyliquid64/golang-asm/objabi"
)

var goInitOnce sync.Once

// Init initializes golang-asm's global opcode tables. newGoAssembler calls
// it; call it yourself only to move the one-time cost (well under a
// millisecond) out of the first compilation. After Init, goAssemblers may
// be used on different goroutines (one goAssembler per goroutine).
func goInit() {
	goInitOnce.Do(func() {
		ctxt := &obj.Link{Arch: &x86.Linkamd64, Headtype: objabi.Hlinux}
		ctxt.DiagFunc = func(format string, args ...interface{}) {
			panic(fmt.Sprintf("amd64: golang-asm initialization: "+format, args...))
		}
		x86.Linkamd64.Init(ctxt)
	})
}

// goProgMeta is what the goAssembler knows about each golang-asm Prog.
type goProgMeta struct {
	insn  int32 // index of the I/Jump/Bytes call, -1 for the end anchor
	op    Op
	kind  uint8
	label Label
}

const (
	goMetaPlain     = iota
	goMetaJump      // JMP/Jcc to label: branch target resolved by golang-asm
	goMetaLabelDisp // rel32 or RIP-relative disp32 to label, patched after assembly
)

const (
	goChunkShift = 8
	goChunkSize  = 1 << goChunkShift
	goChunkMask  = goChunkSize - 1
)

// goDiagPanic carries a golang-asm diagnostic out of the assembler.
type goDiagPanic struct {
	msg  string
	prog *obj.Prog
}

// goAssembler assembles amd64 code, one blob (method) at a time. It wraps
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
// An goAssembler is not safe for concurrent use.
type goAssembler struct {
	ctxt     *obj.Link
	sym      obj.LSym
	fn       obj.FuncInfo
	labelSym obj.LSym

	chunks [][]obj.Prog // progs; pointers stay valid as the list grows
	n      int          // progs used
	meta   []goProgMeta // one per prog
	rest   []obj.Addr   // storage for Prog.RestArgs
	labels []int32      // prog index each label is bound to, or -1
	marks  []int32      // prog index following each mark
	ninsn  int32        // I/Jump/Bytes calls so far
	err    *Error
	done   bool
}

// newGoAssembler returns an goAssembler with its own golang-asm link context,
// ready for the first blob.
func newGoAssembler() *goAssembler {
	goInit()
	a := &goAssembler{}
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
		panic(goDiagPanic{fmt.Sprintf(format, args...), bad})
	}
	a.ctxt.DiagFlush = func() {}
	a.sym.Name = "miniil.blob"
	a.labelSym.Name = "miniil.label"
	return a
}

// Reset starts a new blob, discarding everything emitted since the last
// Reset. The link context and all internal storage are kept.
func (a *goAssembler) Reset() {
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
func (a *goAssembler) NewLabel() Label {
	a.labels = append(a.labels, -1)
	return Label(len(a.labels) - 1)
}

// Bind binds l to the position of the next instruction (or the end of the
// blob if none follows). Binding a label twice is an error.
func (a *goAssembler) Bind(l Label) {
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
func (a *goAssembler) Mark() MarkID {
	a.marks = append(a.marks, int32(a.n))
	return MarkID(len(a.marks) - 1)
}

func (a *goAssembler) fail(insn int32, op Op, msg string) {
	if a.err == nil {
		a.err = &Error{Index: int(insn), Op: op, Msg: msg}
	}
}

func (a *goAssembler) prog(i int) *obj.Prog {
	return &a.chunks[i>>goChunkShift][i&goChunkMask]
}

// newProg appends a zeroed Prog linked after the previous one.
func (a *goAssembler) newProg(as obj.As, insn int32, op Op) (*obj.Prog, *goProgMeta) {
	c := a.n >> goChunkShift
	if c == len(a.chunks) {
		a.chunks = append(a.chunks, make([]obj.Prog, goChunkSize))
	}
	p := &a.chunks[c][a.n&goChunkMask]
	*p = obj.Prog{Ctxt: a.ctxt, As: as}
	if a.n > 0 {
		a.prog(a.n - 1).Link = p
	}
	a.n++
	a.meta = append(a.meta, goProgMeta{insn: insn, op: op})
	return p, &a.meta[len(a.meta)-1]
}

// addr converts o into dst; it returns an error message or "".
func (a *goAssembler) addr(dst *obj.Addr, o Operand, m *goProgMeta) string {
	switch o.kind {
	case kindReg:
		if !o.reg.IsGPR() && !o.reg.IsXMM() {
			return "invalid register " + o.reg.String()
		}
		dst.Type = obj.TYPE_REG
		dst.Reg = o.reg.goRegNum()
	case kindImm:
		dst.Type = obj.TYPE_CONST
		dst.Offset = o.val
	case kindMem:
		if !o.reg.IsGPR() {
			return "memory base must be a general-purpose register, not " + o.reg.String()
		}
		dst.Type = obj.TYPE_MEM
		dst.Reg = o.reg.goRegNum()
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
			dst.Index = o.index.goRegNum()
			dst.Scale = int16(o.scale)
		}
	case kindLabel:
		if o.label < 0 || int(o.label) >= len(a.labels) {
			return fmt.Sprintf("unknown label L%d", o.label)
		}
		if m.kind != goMetaPlain {
			return "more than one label operand"
		}
		m.kind = goMetaLabelDisp
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
// goAssembler). Conditional jumps and jumps or calls to labels use Jump.
// Errors are reported by Assemble.
func (a *goAssembler) I(op Op, ops ...Operand) {
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
	p, m := a.newProg(goAs[op], insn, op)
	var msg string
	switch n {
	case 1:
		if opTable[op].arity == ar1Dst || opTable[op].arity == arJmpCall {
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
func (a *goAssembler) Jump(op Op, l Label) {
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
	p, m := a.newProg(goAs[op], insn, op)
	m.label = l
	if op == CALL {
		// golang-asm cannot CALL a branch target (it wants a symbol and
		// log.Fatalfs without one): emit CALL $0, the E8 rel32 form with an
		// R_PCREL relocation, and patch the displacement after assembly.
		m.kind = goMetaLabelDisp
		p.To.Type = obj.TYPE_CONST
		return
	}
	m.kind = goMetaJump
	p.To.Type = obj.TYPE_BRANCH
}

// Bytes emits raw bytes (for encodings golang-asm lacks, or data such as
// constants addressed with LabelAddr).
func (a *goAssembler) Bytes(b ...byte) {
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
// newGoAssembler). It returns the first error: one recorded while emitting,
// a label referenced but never bound, or a golang-asm diagnostic
// (typically "invalid instruction" for an operand combination the
// instruction does not have). Call Reset before starting the next blob.
func (a *goAssembler) Assemble() (blob *Blob, err error) {
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
		if m.kind != goMetaPlain {
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
		if m := &a.meta[i]; m.kind == goMetaJump {
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
func (a *goAssembler) patch(code []byte) error {
	rs := a.sym.R
	ri := 0
	for i := range a.meta {
		m := &a.meta[i]
		if m.kind != goMetaLabelDisp {
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

func (a *goAssembler) blob(code []byte) *Blob {
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

func (a *goAssembler) panicError(r interface{}) *Error {
	d, ok := r.(goDiagPanic)
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

// goAs maps each Op to its golang-asm instruction.
var goAs = [numOps]obj.As{
	MOVQ:      x86.AMOVQ,
	MOVL:      x86.AMOVL,
	MOVW:      x86.AMOVW,
	MOVB:      x86.AMOVB,
	MOVBLSX:   x86.AMOVBLSX,
	MOVBLZX:   x86.AMOVBLZX,
	MOVBQSX:   x86.AMOVBQSX,
	MOVBQZX:   x86.AMOVBQZX,
	MOVWLSX:   x86.AMOVWLSX,
	MOVWLZX:   x86.AMOVWLZX,
	MOVWQSX:   x86.AMOVWQSX,
	MOVWQZX:   x86.AMOVWQZX,
	MOVLQSX:   x86.AMOVLQSX,
	MOVLQZX:   x86.AMOVLQZX,
	LEAQ:      x86.ALEAQ,
	LEAL:      x86.ALEAL,
	XCHGQ:     x86.AXCHGQ,
	XCHGL:     x86.AXCHGL,
	PUSHQ:     x86.APUSHQ,
	POPQ:      x86.APOPQ,
	ADDQ:      x86.AADDQ,
	ADDL:      x86.AADDL,
	ADCQ:      x86.AADCQ,
	ADCL:      x86.AADCL,
	SUBQ:      x86.ASUBQ,
	SUBL:      x86.ASUBL,
	SBBQ:      x86.ASBBQ,
	SBBL:      x86.ASBBL,
	IMULQ:     x86.AIMULQ,
	IMULL:     x86.AIMULL,
	IMUL3Q:    x86.AIMUL3Q,
	IMUL3L:    x86.AIMUL3L,
	MULQ:      x86.AMULQ,
	MULL:      x86.AMULL,
	IDIVQ:     x86.AIDIVQ,
	IDIVL:     x86.AIDIVL,
	DIVQ:      x86.ADIVQ,
	DIVL:      x86.ADIVL,
	CQO:       x86.ACQO,
	CDQ:       x86.ACDQ,
	NEGQ:      x86.ANEGQ,
	NEGL:      x86.ANEGL,
	NOTQ:      x86.ANOTQ,
	NOTL:      x86.ANOTL,
	INCQ:      x86.AINCQ,
	INCL:      x86.AINCL,
	DECQ:      x86.ADECQ,
	DECL:      x86.ADECL,
	ANDQ:      x86.AANDQ,
	ANDL:      x86.AANDL,
	ORQ:       x86.AORQ,
	ORL:       x86.AORL,
	XORQ:      x86.AXORQ,
	XORL:      x86.AXORL,
	SHLQ:      x86.ASHLQ,
	SHLL:      x86.ASHLL,
	SARQ:      x86.ASARQ,
	SARL:      x86.ASARL,
	SHRQ:      x86.ASHRQ,
	SHRL:      x86.ASHRL,
	CMPQ:      x86.ACMPQ,
	CMPL:      x86.ACMPL,
	CMPW:      x86.ACMPW,
	CMPB:      x86.ACMPB,
	TESTQ:     x86.ATESTQ,
	TESTL:     x86.ATESTL,
	TESTB:     x86.ATESTB,
	SETEQ:     x86.ASETEQ,
	SETNE:     x86.ASETNE,
	SETLT:     x86.ASETLT,
	SETGE:     x86.ASETGE,
	SETLE:     x86.ASETLE,
	SETGT:     x86.ASETGT,
	SETCS:     x86.ASETCS,
	SETCC:     x86.ASETCC,
	SETLS:     x86.ASETLS,
	SETHI:     x86.ASETHI,
	SETMI:     x86.ASETMI,
	SETPL:     x86.ASETPL,
	SETOS:     x86.ASETOS,
	SETOC:     x86.ASETOC,
	SETPS:     x86.ASETPS,
	SETPC:     x86.ASETPC,
	CMOVQEQ:   x86.ACMOVQEQ,
	CMOVQNE:   x86.ACMOVQNE,
	CMOVQLT:   x86.ACMOVQLT,
	CMOVQGE:   x86.ACMOVQGE,
	CMOVQLE:   x86.ACMOVQLE,
	CMOVQGT:   x86.ACMOVQGT,
	CMOVQCS:   x86.ACMOVQCS,
	CMOVQCC:   x86.ACMOVQCC,
	CMOVQLS:   x86.ACMOVQLS,
	CMOVQHI:   x86.ACMOVQHI,
	CMOVQMI:   x86.ACMOVQMI,
	CMOVQPL:   x86.ACMOVQPL,
	CMOVQOS:   x86.ACMOVQOS,
	CMOVQOC:   x86.ACMOVQOC,
	CMOVQPS:   x86.ACMOVQPS,
	CMOVQPC:   x86.ACMOVQPC,
	CMOVLEQ:   x86.ACMOVLEQ,
	CMOVLNE:   x86.ACMOVLNE,
	CMOVLLT:   x86.ACMOVLLT,
	CMOVLGE:   x86.ACMOVLGE,
	CMOVLLE:   x86.ACMOVLLE,
	CMOVLGT:   x86.ACMOVLGT,
	CMOVLCS:   x86.ACMOVLCS,
	CMOVLCC:   x86.ACMOVLCC,
	CMOVLLS:   x86.ACMOVLLS,
	CMOVLHI:   x86.ACMOVLHI,
	CMOVLMI:   x86.ACMOVLMI,
	CMOVLPL:   x86.ACMOVLPL,
	CMOVLOS:   x86.ACMOVLOS,
	CMOVLOC:   x86.ACMOVLOC,
	CMOVLPS:   x86.ACMOVLPS,
	CMOVLPC:   x86.ACMOVLPC,
	JEQ:       x86.AJEQ,
	JNE:       x86.AJNE,
	JLT:       x86.AJLT,
	JGE:       x86.AJGE,
	JLE:       x86.AJLE,
	JGT:       x86.AJGT,
	JCS:       x86.AJCS,
	JCC:       x86.AJCC,
	JLS:       x86.AJLS,
	JHI:       x86.AJHI,
	JMI:       x86.AJMI,
	JPL:       x86.AJPL,
	JOS:       x86.AJOS,
	JOC:       x86.AJOC,
	JPS:       x86.AJPS,
	JPC:       x86.AJPC,
	JMP:       obj.AJMP,
	CALL:      obj.ACALL,
	RET:       obj.ARET,
	LEAVEQ:    x86.ALEAVEQ,
	MOVSD:     x86.AMOVSD,
	MOVSS:     x86.AMOVSS,
	MOVAPS:    x86.AMOVAPS,
	MOVUPS:    x86.AMOVUPS,
	ADDSD:     x86.AADDSD,
	SUBSD:     x86.ASUBSD,
	MULSD:     x86.AMULSD,
	DIVSD:     x86.ADIVSD,
	ADDSS:     x86.AADDSS,
	SUBSS:     x86.ASUBSS,
	MULSS:     x86.AMULSS,
	DIVSS:     x86.ADIVSS,
	SQRTSD:    x86.ASQRTSD,
	SQRTSS:    x86.ASQRTSS,
	MINSD:     x86.AMINSD,
	MAXSD:     x86.AMAXSD,
	MINSS:     x86.AMINSS,
	MAXSS:     x86.AMAXSS,
	UCOMISD:   x86.AUCOMISD,
	UCOMISS:   x86.AUCOMISS,
	COMISD:    x86.ACOMISD,
	COMISS:    x86.ACOMISS,
	CVTSQ2SD:  x86.ACVTSQ2SD,
	CVTSL2SD:  x86.ACVTSL2SD,
	CVTSQ2SS:  x86.ACVTSQ2SS,
	CVTSL2SS:  x86.ACVTSL2SS,
	CVTTSD2SQ: x86.ACVTTSD2SQ,
	CVTTSD2SL: x86.ACVTTSD2SL,
	CVTTSS2SQ: x86.ACVTTSS2SQ,
	CVTTSS2SL: x86.ACVTTSS2SL,
	CVTSD2SS:  x86.ACVTSD2SS,
	CVTSS2SD:  x86.ACVTSS2SD,
	XORPS:     x86.AXORPS,
	XORPD:     x86.AXORPD,
	ANDPS:     x86.AANDPS,
	ANDPD:     x86.AANDPD,
	ANDNPS:    x86.AANDNPS,
	ANDNPD:    x86.AANDNPD,
	ORPS:      x86.AORPS,
	ORPD:      x86.AORPD,
	ROUNDSD:   x86.AROUNDSD,
	ROUNDSS:   x86.AROUNDSS,
	NOP:       obj.ANOP,
	INT3:      x86.ABYTE,
	UD2:       x86.AUD2,
	PAUSE:     x86.APAUSE,
	MFENCE:    x86.AMFENCE,
	REP:       x86.AREP,
	LOCK:      x86.ALOCK,
	STOSQ:     x86.ASTOSQ,
	MOVSQ:     x86.AMOVSQ,
	XADDQ:     x86.AXADDQ,
	XADDL:     x86.AXADDL,
	CMPXCHGQ:  x86.ACMPXCHGQ,
	CMPXCHGL:  x86.ACMPXCHGL,
}

// goRegNum maps r to golang-asm's register number. r must be valid.
func (r Reg) goRegNum() int16 {
	if r.IsGPR() {
		return x86.REG_AX + int16(r)
	}
	return x86.REG_X0 + int16(r-X0)
}

// asmAPI is what the Assembler and the oracle share, for emitters that
// run on both.
type asmAPI interface {
	NewLabel() Label
	Bind(Label)
	Mark() MarkID
	I(Op, ...Operand)
	Jump(Op, Label)
	Bytes(...byte)
}

var (
	_ asmAPI = (*Assembler)(nil)
	_ asmAPI = (*goAssembler)(nil)
)

// oracleOperands are the operands TestEncoderMatchesGolangAsm combines:
// every register class and the registers with encoding quirks (RSP and
// R12 need a SIB byte as a base, RBP and R13 a displacement, SPL..DIL a
// REX prefix as byte registers, R8-R15 and X8-X15 REX bits), immediates
// at every size boundary, and memory operands of every addressing form.
func oracleOperands(l Label) []Operand {
	ops := []Operand{}
	for _, r := range []Reg{RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R12, R13, R15, X0, X1, X7, X8, X15} {
		ops = append(ops, R(r))
	}
	for _, v := range []int64{0, 1, 2, -1, 3, 31, 63, 127, 128, -128, -129, 255, 256, 0x7fff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, -0x80000000, 1 << 40, -1 << 63} {
		ops = append(ops, Imm(v))
	}
	ops = append(ops,
		Mem(RAX, 0), Mem(RBP, 0), Mem(RSP, 0), Mem(R12, 8), Mem(R13, -8), Mem(RBX, 0x1000), Mem(RSP, -200), Mem(R15, 127), Mem(RDI, -128),
		MemIdx(RAX, RCX, 8, 16), MemIdx(R12, R13, 4, -8), MemIdx(RBP, R9, 1, 0), MemIdx(R13, RAX, 2, 300), MemIdx(RSP, R15, 8, 0),
		LabelAddr(l))
	return ops
}

// TestEncoderMatchesGolangAsm assembles every Op with every combination
// of oracleOperands (the immediate of a three-operand Op first) with the
// encoder and with golang-asm, the oracle: both must reject it, or both
// must produce the same bytes (a LabelAddr operand's displacement
// included: the label is bound after the instruction).
func TestEncoderMatchesGolangAsm(t *testing.T) {
	mine, theirs := NewAssembler(), newGoAssembler()
	var bad []string
	forms, rejected := 0, 0
	try := func(op Op, pick func(l Label) []Operand) {
		run := func(a interface {
			asmAPI
			Reset()
			Assemble() (*Blob, error)
		}) (*Blob, error) {
			a.Reset()
			l := a.NewLabel()
			a.I(op, pick(l)...)
			a.Bind(l)
			a.I(RET)
			return a.Assemble()
		}
		b1, err1 := run(mine)
		b2, err2 := run(theirs)
		switch {
		case err1 != nil && err2 != nil:
			rejected++
		case err1 != nil || err2 != nil:
			bad = append(bad, fmt.Sprintf("%v %v: encoder error %v, golang-asm error %v", op, pick(0), err1, err2))
		case !bytes.Equal(b1.Code, b2.Code):
			bad = append(bad, fmt.Sprintf("%v %v: encoder % x, golang-asm % x", op, pick(0), b1.Code, b2.Code))
		default:
			forms++
		}
	}
	ops := oracleOperands(0)
	for op := Op(1); op < numOps; op++ {
		if opTable[op].arity == arJcc {
			continue // Jump only: TestBranches, TestRandomBranches
		}
		try(op, func(Label) []Operand { return nil })
		for i := range ops {
			try(op, func(l Label) []Operand { return []Operand{oracleOperands(l)[i]} })
			for j := range ops {
				try(op, func(l Label) []Operand { o := oracleOperands(l); return []Operand{o[i], o[j]} })
				if opTable[op].arity == ar3 && ops[i].kind == kindImm {
					for k := range ops {
						try(op, func(l Label) []Operand { o := oracleOperands(l); return []Operand{o[i], o[j], o[k]} })
					}
				}
			}
		}
	}
	t.Logf("%d forms encoded identically, %d combinations rejected by both", forms, rejected)
	for i, s := range bad {
		if i == 60 {
			t.Errorf("... and %d more", len(bad)-i)
			break
		}
		t.Error(s)
	}
}

// TestBlobsMatchGolangAsm assembles random blobs of jumps (forward and
// backward, short and near), calls to labels, LabelAddr operands, marks
// and filler with the encoder and with golang-asm: the code, label and
// mark offsets must be identical, so the jumps are sized alike.
func TestBlobsMatchGolangAsm(t *testing.T) {
	conds := []Op{JMP, JEQ, JNE, JLT, JGE, JLE, JGT, JCS, JCC, JLS, JHI, JMI, JPL, JOS, JOC, JPS, JPC}
	gen := func(seed int64) func(a asmAPI) {
		return func(a asmAPI) {
			rng := rand.New(rand.NewSource(seed))
			nl := 1 + rng.Intn(30)
			labels := make([]Label, nl)
			for i := range labels {
				labels[i] = a.NewLabel()
			}
			bound := make([]bool, nl)
			for i, n := 0, 20+rng.Intn(600); i < n; i++ {
				switch r := rng.Intn(12); {
				case r == 0:
					if j := rng.Intn(nl); !bound[j] {
						a.Bind(labels[j])
						bound[j] = true
					}
				case r == 1:
					a.Mark()
				case r <= 5:
					l := labels[rng.Intn(nl)]
					switch rng.Intn(5) {
					case 0:
						a.I(LEAQ, LabelAddr(l), R(Reg(rng.Intn(16))))
					case 1:
						a.Jump(CALL, l)
					default:
						a.Jump(conds[rng.Intn(len(conds))], l)
					}
				case r == 6:
					a.I(NOP)
				case r == 7:
					a.Bytes(0x90, 0x90, 0x90)
				default:
					switch rng.Intn(4) {
					case 0:
						a.I(MOVQ, Imm(rng.Int63()>>uint(rng.Intn(63))), R(Reg(rng.Intn(16))))
					case 1:
						a.I(ADDQ, Imm(int64(rng.Intn(100000))), Mem(Reg(rng.Intn(16)), int32(rng.Intn(1000))))
					case 2:
						a.I(CMPQ, R(RAX), Imm(int64(rng.Intn(200))))
					default:
						a.I(MOVSD, Mem(RSP, 8), R(X5))
					}
				}
			}
			for j := range bound {
				if !bound[j] {
					a.Bind(labels[j])
				}
			}
		}
	}
	mine, theirs := NewAssembler(), newGoAssembler()
	for seed := int64(0); seed < 300; seed++ {
		g := gen(seed)
		mine.Reset()
		g(mine)
		b1, err1 := mine.Assemble()
		theirs.Reset()
		g(theirs)
		b2, err2 := theirs.Assemble()
		if err1 != nil || err2 != nil {
			t.Fatalf("seed %d: %v, %v", seed, err1, err2)
		}
		if !bytes.Equal(b1.Code, b2.Code) || fmt.Sprint(b1.Labels, b1.Marks) != fmt.Sprint(b2.Labels, b2.Marks) {
			t.Fatalf("seed %d: blobs differ:\nencoder    % x %v %v\ngolang-asm % x %v %v", seed, b1.Code, b1.Labels, b1.Marks, b2.Code, b2.Labels, b2.Marks)
		}
	}
}
