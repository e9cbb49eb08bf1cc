package amd64

import (
	"github.com/twitchyliquid64/golang-asm/obj"
	"github.com/twitchyliquid64/golang-asm/obj/x86"
)

// Op is an instruction mnemonic, named as in the Go assembler. Its zero
// value is invalid.
type Op uint16

const (
	badOp Op = iota

	// Integer moves and conversions. Immediates are range-checked by Assemble: a
	// Q instruction takes a sign-extended 32-bit immediate (only MOVQ to a
	// register takes any 64-bit value), L, W and B instructions take any value
	// that fits in 32, 16 or 8 bits, signed or unsigned. Memory width comes from
	// the suffix (Q=8, L=4, W=2, B=1 bytes). MOVQ also moves between a
	// general-purpose and an SSE register. MOVBLSX/MOVBLZX/MOVWLSX/MOVWLZX
	// sign/zero-extend a byte/word into 32 bits (which clears the upper half of
	// the 64-bit register), the ...Q forms into 64 bits; MOVLQSX is Intel
	// MOVSXD, MOVLQZX is a 32-bit MOV.
	MOVQ
	MOVL
	MOVW
	MOVB
	MOVBLSX
	MOVBLZX
	MOVBQSX
	MOVBQZX
	MOVWLSX
	MOVWLZX
	MOVWQSX
	MOVWQZX
	MOVLQSX
	MOVLQZX
	LEAQ
	LEAL
	XCHGQ
	XCHGL // note: XCHGL R(RAX), R(RAX) is encoded as 0x90, which does not clear RAX[63:32]
	PUSHQ
	POPQ

	// Integer arithmetic. IMULQ/IMULL take one operand (RDX:RAX = RAX*src) or
	// two (dst *= src); IMUL3Q/IMUL3L take $imm, src, dst (dst = src*imm).
	// MULQ/MULL, IDIVQ/IDIVL and DIVQ/DIVL take one source operand and use
	// RDX:RAX implicitly; CQO/CDQ sign-extend RAX/EAX into RDX/EDX.
	ADDQ
	ADDL
	ADCQ
	ADCL
	SUBQ
	SUBL
	SBBQ
	SBBL
	IMULQ
	IMULL
	IMUL3Q
	IMUL3L
	MULQ
	MULL
	IDIVQ
	IDIVL
	DIVQ
	DIVL
	CQO
	CDQ
	NEGQ
	NEGL
	NOTQ
	NOTL
	INCQ
	INCL
	DECQ
	DECL

	// Logic, shifts and comparisons. Shifts take $imm or R(RCX) (the count is
	// CL) as the source. CMPx and TESTx are the exception to the source-first
	// rule: CMPQ a, b compares a with b exactly as Intel's cmp a, b, so CMPQ
	// R(RAX), Imm(5) followed by JLT jumps when RAX < 5. TESTx takes the
	// immediate first: TESTB Imm(1), R(RAX).
	ANDQ
	ANDL
	ORQ
	ORL
	XORQ
	XORL
	SHLQ
	SHLL
	SARQ
	SARL
	SHRQ
	SHRL
	CMPQ
	CMPL
	CMPW
	CMPB
	TESTQ
	TESTL
	TESTB

	// SETcc: set the low byte of the single operand (register or byte of memory)
	// to 0 or 1. The order of conditions matches Cond.
	SETEQ // equal / zero
	SETNE // not equal / not zero
	SETLT // signed less
	SETGE // signed greater or equal
	SETLE // signed less or equal
	SETGT // signed greater
	SETCS // unsigned below / carry set (Intel B)
	SETCC // unsigned above or equal / carry clear (Intel AE)
	SETLS // unsigned below or equal (Intel BE)
	SETHI // unsigned above (Intel A)
	SETMI // negative / sign set
	SETPL // not negative / sign clear
	SETOS // overflow set
	SETOC // overflow clear
	SETPS // parity set (unordered after UCOMISx)
	SETPC // parity clear (ordered after UCOMISx)

	// CMOVQcc: conditional 64-bit move, CMOVQcc src, dst (src is a register or
	// memory). The order of conditions matches Cond.
	CMOVQEQ // equal / zero
	CMOVQNE // not equal / not zero
	CMOVQLT // signed less
	CMOVQGE // signed greater or equal
	CMOVQLE // signed less or equal
	CMOVQGT // signed greater
	CMOVQCS // unsigned below / carry set (Intel B)
	CMOVQCC // unsigned above or equal / carry clear (Intel AE)
	CMOVQLS // unsigned below or equal (Intel BE)
	CMOVQHI // unsigned above (Intel A)
	CMOVQMI // negative / sign set
	CMOVQPL // not negative / sign clear
	CMOVQOS // overflow set
	CMOVQOC // overflow clear
	CMOVQPS // parity set (unordered after UCOMISx)
	CMOVQPC // parity clear (ordered after UCOMISx)

	// CMOVLcc: conditional 32-bit move, CMOVLcc src, dst. The order of
	// conditions matches Cond.
	CMOVLEQ // equal / zero
	CMOVLNE // not equal / not zero
	CMOVLLT // signed less
	CMOVLGE // signed greater or equal
	CMOVLLE // signed less or equal
	CMOVLGT // signed greater
	CMOVLCS // unsigned below / carry set (Intel B)
	CMOVLCC // unsigned above or equal / carry clear (Intel AE)
	CMOVLLS // unsigned below or equal (Intel BE)
	CMOVLHI // unsigned above (Intel A)
	CMOVLMI // negative / sign set
	CMOVLPL // not negative / sign clear
	CMOVLOS // overflow set
	CMOVLOC // overflow clear
	CMOVLPS // parity set (unordered after UCOMISx)
	CMOVLPC // parity clear (ordered after UCOMISx)

	// Conditional jumps, emitted only with Assembler.Jump. The order of
	// conditions matches Cond.
	JEQ // equal / zero
	JNE // not equal / not zero
	JLT // signed less
	JGE // signed greater or equal
	JLE // signed less or equal
	JGT // signed greater
	JCS // unsigned below / carry set (Intel B)
	JCC // unsigned above or equal / carry clear (Intel AE)
	JLS // unsigned below or equal (Intel BE)
	JHI // unsigned above (Intel A)
	JMI // negative / sign set
	JPL // not negative / sign clear
	JOS // overflow set
	JOC // overflow clear
	JPS // parity set (unordered after UCOMISx)
	JPC // parity clear (ordered after UCOMISx)

	// Control transfer. JMP and CALL take a label through Assembler.Jump, or a
	// register or memory operand (indirect) through Assembler.I; RET takes no
	// operand. LEAVEQ is MOVQ RBP, RSP; POPQ RBP in one instruction (the
	// epilog: on AMD Zen the two-instruction form costs a stack-engine sync
	// that made recursive calls ~1.5x slower).
	JMP
	CALL
	RET
	LEAVEQ

	// SSE scalar floating point. MOVSD/MOVSS load, store or move (register to
	// register keeps the destination's upper bits). CVTSQ2SD/CVTSL2SD are Intel
	// CVTSI2SD from a 64/32-bit integer (CVTSQ2SS/CVTSL2SS to single);
	// CVTTSD2SQ/CVTTSD2SL (and SS) truncate to a 64/32-bit integer. UCOMISD a, b
	// compares b with a (Intel ucomisd b, a; unlike CMPx), so JHI after UCOMISD
	// a, b jumps when b > a, and JPS when either is NaN. ROUNDSD/ROUNDSS take
	// $mode, src, dst (SSE4.1).
	MOVSD
	MOVSS
	MOVAPS
	MOVUPS
	ADDSD
	SUBSD
	MULSD
	DIVSD
	ADDSS
	SUBSS
	MULSS
	DIVSS
	SQRTSD
	SQRTSS
	MINSD
	MAXSD
	MINSS
	MAXSS
	UCOMISD
	UCOMISS
	COMISD
	COMISS
	CVTSQ2SD
	CVTSL2SD
	CVTSQ2SS
	CVTSL2SS
	CVTTSD2SQ
	CVTTSD2SL
	CVTTSS2SQ
	CVTTSS2SL
	CVTSD2SS
	CVTSS2SD
	XORPS
	XORPD
	ANDPS
	ANDPD
	ANDNPS
	ANDNPD
	ORPS
	ORPD
	ROUNDSD
	ROUNDSS

	// Miscellaneous. NOP emits nothing (golang-asm's NOP is a
	// pseudo-instruction); INT3 emits 0xCC; REP and LOCK are prefixes emitted as
	// separate instructions before STOSQ/MOVSQ (REP) or XADDx/CMPXCHGx/...
	// (LOCK). CMPXCHGQ src, mem compares RAX with mem.
	NOP
	INT3
	UD2
	PAUSE
	MFENCE
	REP
	LOCK
	STOSQ
	MOVSQ
	XADDQ
	XADDL
	CMPXCHGQ
	CMPXCHGL

	numOps
)

var opTable = [numOps]opInfo{
	MOVQ:      {"MOVQ", x86.AMOVQ, ar2, immMOVQ},
	MOVL:      {"MOVL", x86.AMOVL, ar2, immL},
	MOVW:      {"MOVW", x86.AMOVW, ar2, immW},
	MOVB:      {"MOVB", x86.AMOVB, ar2, immB},
	MOVBLSX:   {"MOVBLSX", x86.AMOVBLSX, ar2, immNone},
	MOVBLZX:   {"MOVBLZX", x86.AMOVBLZX, ar2, immNone},
	MOVBQSX:   {"MOVBQSX", x86.AMOVBQSX, ar2, immNone},
	MOVBQZX:   {"MOVBQZX", x86.AMOVBQZX, ar2, immNone},
	MOVWLSX:   {"MOVWLSX", x86.AMOVWLSX, ar2, immNone},
	MOVWLZX:   {"MOVWLZX", x86.AMOVWLZX, ar2, immNone},
	MOVWQSX:   {"MOVWQSX", x86.AMOVWQSX, ar2, immNone},
	MOVWQZX:   {"MOVWQZX", x86.AMOVWQZX, ar2, immNone},
	MOVLQSX:   {"MOVLQSX", x86.AMOVLQSX, ar2, immNone},
	MOVLQZX:   {"MOVLQZX", x86.AMOVLQZX, ar2, immNone},
	LEAQ:      {"LEAQ", x86.ALEAQ, ar2, immNone},
	LEAL:      {"LEAL", x86.ALEAL, ar2, immNone},
	XCHGQ:     {"XCHGQ", x86.AXCHGQ, ar2, immNone},
	XCHGL:     {"XCHGL", x86.AXCHGL, ar2, immNone},
	PUSHQ:     {"PUSHQ", x86.APUSHQ, ar1Src, immQ},
	POPQ:      {"POPQ", x86.APOPQ, ar1Dst, immNone},
	ADDQ:      {"ADDQ", x86.AADDQ, ar2, immQ},
	ADDL:      {"ADDL", x86.AADDL, ar2, immL},
	ADCQ:      {"ADCQ", x86.AADCQ, ar2, immQ},
	ADCL:      {"ADCL", x86.AADCL, ar2, immL},
	SUBQ:      {"SUBQ", x86.ASUBQ, ar2, immQ},
	SUBL:      {"SUBL", x86.ASUBL, ar2, immL},
	SBBQ:      {"SBBQ", x86.ASBBQ, ar2, immQ},
	SBBL:      {"SBBL", x86.ASBBL, ar2, immL},
	IMULQ:     {"IMULQ", x86.AIMULQ, ar12, immQ},
	IMULL:     {"IMULL", x86.AIMULL, ar12, immL},
	IMUL3Q:    {"IMUL3Q", x86.AIMUL3Q, ar3, immQ},
	IMUL3L:    {"IMUL3L", x86.AIMUL3L, ar3, immL},
	MULQ:      {"MULQ", x86.AMULQ, ar1Src, immNone},
	MULL:      {"MULL", x86.AMULL, ar1Src, immNone},
	IDIVQ:     {"IDIVQ", x86.AIDIVQ, ar1Src, immNone},
	IDIVL:     {"IDIVL", x86.AIDIVL, ar1Src, immNone},
	DIVQ:      {"DIVQ", x86.ADIVQ, ar1Src, immNone},
	DIVL:      {"DIVL", x86.ADIVL, ar1Src, immNone},
	CQO:       {"CQO", x86.ACQO, ar0, immNone},
	CDQ:       {"CDQ", x86.ACDQ, ar0, immNone},
	NEGQ:      {"NEGQ", x86.ANEGQ, ar1Dst, immNone},
	NEGL:      {"NEGL", x86.ANEGL, ar1Dst, immNone},
	NOTQ:      {"NOTQ", x86.ANOTQ, ar1Dst, immNone},
	NOTL:      {"NOTL", x86.ANOTL, ar1Dst, immNone},
	INCQ:      {"INCQ", x86.AINCQ, ar1Dst, immNone},
	INCL:      {"INCL", x86.AINCL, ar1Dst, immNone},
	DECQ:      {"DECQ", x86.ADECQ, ar1Dst, immNone},
	DECL:      {"DECL", x86.ADECL, ar1Dst, immNone},
	ANDQ:      {"ANDQ", x86.AANDQ, ar2, immQ},
	ANDL:      {"ANDL", x86.AANDL, ar2, immL},
	ORQ:       {"ORQ", x86.AORQ, ar2, immQ},
	ORL:       {"ORL", x86.AORL, ar2, immL},
	XORQ:      {"XORQ", x86.AXORQ, ar2, immQ},
	XORL:      {"XORL", x86.AXORL, ar2, immL},
	SHLQ:      {"SHLQ", x86.ASHLQ, ar2, immShQ},
	SHLL:      {"SHLL", x86.ASHLL, ar2, immShL},
	SARQ:      {"SARQ", x86.ASARQ, ar2, immShQ},
	SARL:      {"SARL", x86.ASARL, ar2, immShL},
	SHRQ:      {"SHRQ", x86.ASHRQ, ar2, immShQ},
	SHRL:      {"SHRL", x86.ASHRL, ar2, immShL},
	CMPQ:      {"CMPQ", x86.ACMPQ, ar2, immQ},
	CMPL:      {"CMPL", x86.ACMPL, ar2, immL},
	CMPW:      {"CMPW", x86.ACMPW, ar2, immW},
	CMPB:      {"CMPB", x86.ACMPB, ar2, immB},
	TESTQ:     {"TESTQ", x86.ATESTQ, ar2, immQ},
	TESTL:     {"TESTL", x86.ATESTL, ar2, immL},
	TESTB:     {"TESTB", x86.ATESTB, ar2, immB},
	SETEQ:     {"SETEQ", x86.ASETEQ, ar1Dst, immNone},
	SETNE:     {"SETNE", x86.ASETNE, ar1Dst, immNone},
	SETLT:     {"SETLT", x86.ASETLT, ar1Dst, immNone},
	SETGE:     {"SETGE", x86.ASETGE, ar1Dst, immNone},
	SETLE:     {"SETLE", x86.ASETLE, ar1Dst, immNone},
	SETGT:     {"SETGT", x86.ASETGT, ar1Dst, immNone},
	SETCS:     {"SETCS", x86.ASETCS, ar1Dst, immNone},
	SETCC:     {"SETCC", x86.ASETCC, ar1Dst, immNone},
	SETLS:     {"SETLS", x86.ASETLS, ar1Dst, immNone},
	SETHI:     {"SETHI", x86.ASETHI, ar1Dst, immNone},
	SETMI:     {"SETMI", x86.ASETMI, ar1Dst, immNone},
	SETPL:     {"SETPL", x86.ASETPL, ar1Dst, immNone},
	SETOS:     {"SETOS", x86.ASETOS, ar1Dst, immNone},
	SETOC:     {"SETOC", x86.ASETOC, ar1Dst, immNone},
	SETPS:     {"SETPS", x86.ASETPS, ar1Dst, immNone},
	SETPC:     {"SETPC", x86.ASETPC, ar1Dst, immNone},
	CMOVQEQ:   {"CMOVQEQ", x86.ACMOVQEQ, ar2, immNone},
	CMOVQNE:   {"CMOVQNE", x86.ACMOVQNE, ar2, immNone},
	CMOVQLT:   {"CMOVQLT", x86.ACMOVQLT, ar2, immNone},
	CMOVQGE:   {"CMOVQGE", x86.ACMOVQGE, ar2, immNone},
	CMOVQLE:   {"CMOVQLE", x86.ACMOVQLE, ar2, immNone},
	CMOVQGT:   {"CMOVQGT", x86.ACMOVQGT, ar2, immNone},
	CMOVQCS:   {"CMOVQCS", x86.ACMOVQCS, ar2, immNone},
	CMOVQCC:   {"CMOVQCC", x86.ACMOVQCC, ar2, immNone},
	CMOVQLS:   {"CMOVQLS", x86.ACMOVQLS, ar2, immNone},
	CMOVQHI:   {"CMOVQHI", x86.ACMOVQHI, ar2, immNone},
	CMOVQMI:   {"CMOVQMI", x86.ACMOVQMI, ar2, immNone},
	CMOVQPL:   {"CMOVQPL", x86.ACMOVQPL, ar2, immNone},
	CMOVQOS:   {"CMOVQOS", x86.ACMOVQOS, ar2, immNone},
	CMOVQOC:   {"CMOVQOC", x86.ACMOVQOC, ar2, immNone},
	CMOVQPS:   {"CMOVQPS", x86.ACMOVQPS, ar2, immNone},
	CMOVQPC:   {"CMOVQPC", x86.ACMOVQPC, ar2, immNone},
	CMOVLEQ:   {"CMOVLEQ", x86.ACMOVLEQ, ar2, immNone},
	CMOVLNE:   {"CMOVLNE", x86.ACMOVLNE, ar2, immNone},
	CMOVLLT:   {"CMOVLLT", x86.ACMOVLLT, ar2, immNone},
	CMOVLGE:   {"CMOVLGE", x86.ACMOVLGE, ar2, immNone},
	CMOVLLE:   {"CMOVLLE", x86.ACMOVLLE, ar2, immNone},
	CMOVLGT:   {"CMOVLGT", x86.ACMOVLGT, ar2, immNone},
	CMOVLCS:   {"CMOVLCS", x86.ACMOVLCS, ar2, immNone},
	CMOVLCC:   {"CMOVLCC", x86.ACMOVLCC, ar2, immNone},
	CMOVLLS:   {"CMOVLLS", x86.ACMOVLLS, ar2, immNone},
	CMOVLHI:   {"CMOVLHI", x86.ACMOVLHI, ar2, immNone},
	CMOVLMI:   {"CMOVLMI", x86.ACMOVLMI, ar2, immNone},
	CMOVLPL:   {"CMOVLPL", x86.ACMOVLPL, ar2, immNone},
	CMOVLOS:   {"CMOVLOS", x86.ACMOVLOS, ar2, immNone},
	CMOVLOC:   {"CMOVLOC", x86.ACMOVLOC, ar2, immNone},
	CMOVLPS:   {"CMOVLPS", x86.ACMOVLPS, ar2, immNone},
	CMOVLPC:   {"CMOVLPC", x86.ACMOVLPC, ar2, immNone},
	JEQ:       {"JEQ", x86.AJEQ, arJcc, immNone},
	JNE:       {"JNE", x86.AJNE, arJcc, immNone},
	JLT:       {"JLT", x86.AJLT, arJcc, immNone},
	JGE:       {"JGE", x86.AJGE, arJcc, immNone},
	JLE:       {"JLE", x86.AJLE, arJcc, immNone},
	JGT:       {"JGT", x86.AJGT, arJcc, immNone},
	JCS:       {"JCS", x86.AJCS, arJcc, immNone},
	JCC:       {"JCC", x86.AJCC, arJcc, immNone},
	JLS:       {"JLS", x86.AJLS, arJcc, immNone},
	JHI:       {"JHI", x86.AJHI, arJcc, immNone},
	JMI:       {"JMI", x86.AJMI, arJcc, immNone},
	JPL:       {"JPL", x86.AJPL, arJcc, immNone},
	JOS:       {"JOS", x86.AJOS, arJcc, immNone},
	JOC:       {"JOC", x86.AJOC, arJcc, immNone},
	JPS:       {"JPS", x86.AJPS, arJcc, immNone},
	JPC:       {"JPC", x86.AJPC, arJcc, immNone},
	JMP:       {"JMP", obj.AJMP, arJmpCall, immNone},
	CALL:      {"CALL", obj.ACALL, arJmpCall, immNone},
	RET:       {"RET", obj.ARET, ar0, immNone},
	LEAVEQ:    {"LEAVEQ", x86.ALEAVEQ, ar0, immNone},
	MOVSD:     {"MOVSD", x86.AMOVSD, ar2, immNone},
	MOVSS:     {"MOVSS", x86.AMOVSS, ar2, immNone},
	MOVAPS:    {"MOVAPS", x86.AMOVAPS, ar2, immNone},
	MOVUPS:    {"MOVUPS", x86.AMOVUPS, ar2, immNone},
	ADDSD:     {"ADDSD", x86.AADDSD, ar2, immNone},
	SUBSD:     {"SUBSD", x86.ASUBSD, ar2, immNone},
	MULSD:     {"MULSD", x86.AMULSD, ar2, immNone},
	DIVSD:     {"DIVSD", x86.ADIVSD, ar2, immNone},
	ADDSS:     {"ADDSS", x86.AADDSS, ar2, immNone},
	SUBSS:     {"SUBSS", x86.ASUBSS, ar2, immNone},
	MULSS:     {"MULSS", x86.AMULSS, ar2, immNone},
	DIVSS:     {"DIVSS", x86.ADIVSS, ar2, immNone},
	SQRTSD:    {"SQRTSD", x86.ASQRTSD, ar2, immNone},
	SQRTSS:    {"SQRTSS", x86.ASQRTSS, ar2, immNone},
	MINSD:     {"MINSD", x86.AMINSD, ar2, immNone},
	MAXSD:     {"MAXSD", x86.AMAXSD, ar2, immNone},
	MINSS:     {"MINSS", x86.AMINSS, ar2, immNone},
	MAXSS:     {"MAXSS", x86.AMAXSS, ar2, immNone},
	UCOMISD:   {"UCOMISD", x86.AUCOMISD, ar2, immNone},
	UCOMISS:   {"UCOMISS", x86.AUCOMISS, ar2, immNone},
	COMISD:    {"COMISD", x86.ACOMISD, ar2, immNone},
	COMISS:    {"COMISS", x86.ACOMISS, ar2, immNone},
	CVTSQ2SD:  {"CVTSQ2SD", x86.ACVTSQ2SD, ar2, immNone},
	CVTSL2SD:  {"CVTSL2SD", x86.ACVTSL2SD, ar2, immNone},
	CVTSQ2SS:  {"CVTSQ2SS", x86.ACVTSQ2SS, ar2, immNone},
	CVTSL2SS:  {"CVTSL2SS", x86.ACVTSL2SS, ar2, immNone},
	CVTTSD2SQ: {"CVTTSD2SQ", x86.ACVTTSD2SQ, ar2, immNone},
	CVTTSD2SL: {"CVTTSD2SL", x86.ACVTTSD2SL, ar2, immNone},
	CVTTSS2SQ: {"CVTTSS2SQ", x86.ACVTTSS2SQ, ar2, immNone},
	CVTTSS2SL: {"CVTTSS2SL", x86.ACVTTSS2SL, ar2, immNone},
	CVTSD2SS:  {"CVTSD2SS", x86.ACVTSD2SS, ar2, immNone},
	CVTSS2SD:  {"CVTSS2SD", x86.ACVTSS2SD, ar2, immNone},
	XORPS:     {"XORPS", x86.AXORPS, ar2, immNone},
	XORPD:     {"XORPD", x86.AXORPD, ar2, immNone},
	ANDPS:     {"ANDPS", x86.AANDPS, ar2, immNone},
	ANDPD:     {"ANDPD", x86.AANDPD, ar2, immNone},
	ANDNPS:    {"ANDNPS", x86.AANDNPS, ar2, immNone},
	ANDNPD:    {"ANDNPD", x86.AANDNPD, ar2, immNone},
	ORPS:      {"ORPS", x86.AORPS, ar2, immNone},
	ORPD:      {"ORPD", x86.AORPD, ar2, immNone},
	ROUNDSD:   {"ROUNDSD", x86.AROUNDSD, ar3, immU8},
	ROUNDSS:   {"ROUNDSS", x86.AROUNDSS, ar3, immU8},
	NOP:       {"NOP", obj.ANOP, ar0, immNone},
	INT3:      {"INT3", x86.ABYTE, ar0, immNone},
	UD2:       {"UD2", x86.AUD2, ar0, immNone},
	PAUSE:     {"PAUSE", x86.APAUSE, ar0, immNone},
	MFENCE:    {"MFENCE", x86.AMFENCE, ar0, immNone},
	REP:       {"REP", x86.AREP, ar0, immNone},
	LOCK:      {"LOCK", x86.ALOCK, ar0, immNone},
	STOSQ:     {"STOSQ", x86.ASTOSQ, ar0, immNone},
	MOVSQ:     {"MOVSQ", x86.AMOVSQ, ar0, immNone},
	XADDQ:     {"XADDQ", x86.AXADDQ, ar2, immNone},
	XADDL:     {"XADDL", x86.AXADDL, ar2, immNone},
	CMPXCHGQ:  {"CMPXCHGQ", x86.ACMPXCHGQ, ar2, immNone},
	CMPXCHGL:  {"CMPXCHGL", x86.ACMPXCHGL, ar2, immNone},
}

// Cond is a condition code, in the order of the SETcc, CMOVQcc, CMOVLcc
// and Jcc Ops; c^1 is the negation of c.
type Cond uint8

// Conditions. The unsigned ones also have Intel names (CondB, ...).
const (
	CondEQ Cond = iota // equal / zero
	CondNE             // not equal / not zero
	CondLT             // signed less
	CondGE             // signed greater or equal
	CondLE             // signed less or equal
	CondGT             // signed greater
	CondCS             // unsigned below / carry set (Intel B)
	CondCC             // unsigned above or equal / carry clear (Intel AE)
	CondLS             // unsigned below or equal (Intel BE)
	CondHI             // unsigned above (Intel A)
	CondMI             // negative / sign set
	CondPL             // not negative / sign clear
	CondOS             // overflow set
	CondOC             // overflow clear
	CondPS             // parity set (unordered after UCOMISx)
	CondPC             // parity clear (ordered after UCOMISx)

	CondB  = CondCS // unsigned below
	CondAE = CondCC // unsigned above or equal
	CondBE = CondLS // unsigned below or equal
	CondA  = CondHI // unsigned above
)
