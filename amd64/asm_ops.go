package amd64

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
	MOVQ:      {name: "MOVQ", arity: ar2, imm: immMOVQ, enc: encMOV, w: 8},
	MOVL:      {name: "MOVL", arity: ar2, imm: immL, enc: encMOV, w: 4},
	MOVW:      {name: "MOVW", arity: ar2, imm: immW, enc: encMOV, w: 2},
	MOVB:      {name: "MOVB", arity: ar2, imm: immB, enc: encMOV, w: 1},
	MOVBLSX:   {name: "MOVBLSX", arity: ar2, imm: immNone, enc: encMOVX, w: 4, op1: 0xbe, sw: 1},
	MOVBLZX:   {name: "MOVBLZX", arity: ar2, imm: immNone, enc: encMOVX, w: 4, op1: 0xb6, sw: 1},
	MOVBQSX:   {name: "MOVBQSX", arity: ar2, imm: immNone, enc: encMOVX, w: 8, op1: 0xbe, sw: 1},
	MOVBQZX:   {name: "MOVBQZX", arity: ar2, imm: immNone, enc: encMOVX, w: 8, op1: 0xb6, sw: 1},
	MOVWLSX:   {name: "MOVWLSX", arity: ar2, imm: immNone, enc: encMOVX, w: 4, op1: 0xbf, sw: 2},
	MOVWLZX:   {name: "MOVWLZX", arity: ar2, imm: immNone, enc: encMOVX, w: 4, op1: 0xb7, sw: 2},
	MOVWQSX:   {name: "MOVWQSX", arity: ar2, imm: immNone, enc: encMOVX, w: 8, op1: 0xbf, sw: 2},
	MOVWQZX:   {name: "MOVWQZX", arity: ar2, imm: immNone, enc: encMOVX, w: 8, op1: 0xb7, sw: 2},
	MOVLQSX:   {name: "MOVLQSX", arity: ar2, imm: immNone, enc: encMOVSXD, w: 8},
	MOVLQZX:   {name: "MOVLQZX", arity: ar2, imm: immNone, enc: encMOVLQZX, w: 4},
	LEAQ:      {name: "LEAQ", arity: ar2, imm: immNone, enc: encLEA, w: 8},
	LEAL:      {name: "LEAL", arity: ar2, imm: immNone, enc: encLEA, w: 4},
	XCHGQ:     {name: "XCHGQ", arity: ar2, imm: immNone, enc: encXCHG, w: 8},
	XCHGL:     {name: "XCHGL", arity: ar2, imm: immNone, enc: encXCHG, w: 4},
	PUSHQ:     {name: "PUSHQ", arity: ar1Src, imm: immQ, enc: encPUSH, w: 8},
	POPQ:      {name: "POPQ", arity: ar1Dst, imm: immNone, enc: encPOP, w: 8},
	ADDQ:      {name: "ADDQ", arity: ar2, imm: immQ, enc: encALU, w: 8},
	ADDL:      {name: "ADDL", arity: ar2, imm: immL, enc: encALU, w: 4},
	ADCQ:      {name: "ADCQ", arity: ar2, imm: immQ, enc: encALU, w: 8, digit: 2},
	ADCL:      {name: "ADCL", arity: ar2, imm: immL, enc: encALU, w: 4, digit: 2},
	SUBQ:      {name: "SUBQ", arity: ar2, imm: immQ, enc: encALU, w: 8, digit: 5},
	SUBL:      {name: "SUBL", arity: ar2, imm: immL, enc: encALU, w: 4, digit: 5},
	SBBQ:      {name: "SBBQ", arity: ar2, imm: immQ, enc: encALU, w: 8, digit: 3},
	SBBL:      {name: "SBBL", arity: ar2, imm: immL, enc: encALU, w: 4, digit: 3},
	IMULQ:     {name: "IMULQ", arity: ar12, imm: immQ, enc: encIMUL, w: 8},
	IMULL:     {name: "IMULL", arity: ar12, imm: immL, enc: encIMUL, w: 4},
	IMUL3Q:    {name: "IMUL3Q", arity: ar3, imm: immQ, enc: encIMUL3, w: 8},
	IMUL3L:    {name: "IMUL3L", arity: ar3, imm: immL, enc: encIMUL3, w: 4},
	MULQ:      {name: "MULQ", arity: ar1Src, imm: immNone, enc: encUnary, w: 8, digit: 4, op0: 0xf7},
	MULL:      {name: "MULL", arity: ar1Src, imm: immNone, enc: encUnary, w: 4, digit: 4, op0: 0xf7},
	IDIVQ:     {name: "IDIVQ", arity: ar1Src, imm: immNone, enc: encUnary, w: 8, digit: 7, op0: 0xf7},
	IDIVL:     {name: "IDIVL", arity: ar1Src, imm: immNone, enc: encUnary, w: 4, digit: 7, op0: 0xf7},
	DIVQ:      {name: "DIVQ", arity: ar1Src, imm: immNone, enc: encUnary, w: 8, digit: 6, op0: 0xf7},
	DIVL:      {name: "DIVL", arity: ar1Src, imm: immNone, enc: encUnary, w: 4, digit: 6, op0: 0xf7},
	CQO:       {name: "CQO", arity: ar0, imm: immNone, enc: encFixed, w: 2, pfx: 0x48, op0: 0x99},
	CDQ:       {name: "CDQ", arity: ar0, imm: immNone, enc: encFixed, w: 1, pfx: 0x99},
	NEGQ:      {name: "NEGQ", arity: ar1Dst, imm: immNone, enc: encUnary, w: 8, digit: 3, op0: 0xf7},
	NEGL:      {name: "NEGL", arity: ar1Dst, imm: immNone, enc: encUnary, w: 4, digit: 3, op0: 0xf7},
	NOTQ:      {name: "NOTQ", arity: ar1Dst, imm: immNone, enc: encUnary, w: 8, digit: 2, op0: 0xf7},
	NOTL:      {name: "NOTL", arity: ar1Dst, imm: immNone, enc: encUnary, w: 4, digit: 2, op0: 0xf7},
	INCQ:      {name: "INCQ", arity: ar1Dst, imm: immNone, enc: encUnary, w: 8, op0: 0xff},
	INCL:      {name: "INCL", arity: ar1Dst, imm: immNone, enc: encUnary, w: 4, op0: 0xff},
	DECQ:      {name: "DECQ", arity: ar1Dst, imm: immNone, enc: encUnary, w: 8, digit: 1, op0: 0xff},
	DECL:      {name: "DECL", arity: ar1Dst, imm: immNone, enc: encUnary, w: 4, digit: 1, op0: 0xff},
	ANDQ:      {name: "ANDQ", arity: ar2, imm: immQ, enc: encALU, w: 8, digit: 4},
	ANDL:      {name: "ANDL", arity: ar2, imm: immL, enc: encALU, w: 4, digit: 4},
	ORQ:       {name: "ORQ", arity: ar2, imm: immQ, enc: encALU, w: 8, digit: 1},
	ORL:       {name: "ORL", arity: ar2, imm: immL, enc: encALU, w: 4, digit: 1},
	XORQ:      {name: "XORQ", arity: ar2, imm: immQ, enc: encALU, w: 8, digit: 6},
	XORL:      {name: "XORL", arity: ar2, imm: immL, enc: encALU, w: 4, digit: 6},
	SHLQ:      {name: "SHLQ", arity: ar2, imm: immShQ, enc: encShift, w: 8, digit: 4},
	SHLL:      {name: "SHLL", arity: ar2, imm: immShL, enc: encShift, w: 4, digit: 4},
	SARQ:      {name: "SARQ", arity: ar2, imm: immShQ, enc: encShift, w: 8, digit: 7},
	SARL:      {name: "SARL", arity: ar2, imm: immShL, enc: encShift, w: 4, digit: 7},
	SHRQ:      {name: "SHRQ", arity: ar2, imm: immShQ, enc: encShift, w: 8, digit: 5},
	SHRL:      {name: "SHRL", arity: ar2, imm: immShL, enc: encShift, w: 4, digit: 5},
	CMPQ:      {name: "CMPQ", arity: ar2, imm: immQ, enc: encALU, w: 8, digit: 7},
	CMPL:      {name: "CMPL", arity: ar2, imm: immL, enc: encALU, w: 4, digit: 7},
	CMPW:      {name: "CMPW", arity: ar2, imm: immW, enc: encALU, w: 2, digit: 7},
	CMPB:      {name: "CMPB", arity: ar2, imm: immB, enc: encALU, w: 1, digit: 7},
	TESTQ:     {name: "TESTQ", arity: ar2, imm: immQ, enc: encTEST, w: 8},
	TESTL:     {name: "TESTL", arity: ar2, imm: immL, enc: encTEST, w: 4},
	TESTB:     {name: "TESTB", arity: ar2, imm: immB, enc: encTEST, w: 1},
	SETEQ:     {name: "SETEQ", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x94},
	SETNE:     {name: "SETNE", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x95},
	SETLT:     {name: "SETLT", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x9c},
	SETGE:     {name: "SETGE", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x9d},
	SETLE:     {name: "SETLE", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x9e},
	SETGT:     {name: "SETGT", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x9f},
	SETCS:     {name: "SETCS", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x92},
	SETCC:     {name: "SETCC", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x93},
	SETLS:     {name: "SETLS", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x96},
	SETHI:     {name: "SETHI", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x97},
	SETMI:     {name: "SETMI", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x98},
	SETPL:     {name: "SETPL", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x99},
	SETOS:     {name: "SETOS", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x90},
	SETOC:     {name: "SETOC", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x91},
	SETPS:     {name: "SETPS", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x9a},
	SETPC:     {name: "SETPC", arity: ar1Dst, imm: immNone, enc: encSETcc, w: 1, op1: 0x9b},
	CMOVQEQ:   {name: "CMOVQEQ", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x44},
	CMOVQNE:   {name: "CMOVQNE", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x45},
	CMOVQLT:   {name: "CMOVQLT", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x4c},
	CMOVQGE:   {name: "CMOVQGE", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x4d},
	CMOVQLE:   {name: "CMOVQLE", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x4e},
	CMOVQGT:   {name: "CMOVQGT", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x4f},
	CMOVQCS:   {name: "CMOVQCS", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x42},
	CMOVQCC:   {name: "CMOVQCC", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x43},
	CMOVQLS:   {name: "CMOVQLS", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x46},
	CMOVQHI:   {name: "CMOVQHI", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x47},
	CMOVQMI:   {name: "CMOVQMI", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x48},
	CMOVQPL:   {name: "CMOVQPL", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x49},
	CMOVQOS:   {name: "CMOVQOS", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x40},
	CMOVQOC:   {name: "CMOVQOC", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x41},
	CMOVQPS:   {name: "CMOVQPS", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x4a},
	CMOVQPC:   {name: "CMOVQPC", arity: ar2, imm: immNone, enc: encCMOV, w: 8, op1: 0x4b},
	CMOVLEQ:   {name: "CMOVLEQ", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x44},
	CMOVLNE:   {name: "CMOVLNE", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x45},
	CMOVLLT:   {name: "CMOVLLT", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x4c},
	CMOVLGE:   {name: "CMOVLGE", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x4d},
	CMOVLLE:   {name: "CMOVLLE", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x4e},
	CMOVLGT:   {name: "CMOVLGT", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x4f},
	CMOVLCS:   {name: "CMOVLCS", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x42},
	CMOVLCC:   {name: "CMOVLCC", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x43},
	CMOVLLS:   {name: "CMOVLLS", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x46},
	CMOVLHI:   {name: "CMOVLHI", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x47},
	CMOVLMI:   {name: "CMOVLMI", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x48},
	CMOVLPL:   {name: "CMOVLPL", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x49},
	CMOVLOS:   {name: "CMOVLOS", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x40},
	CMOVLOC:   {name: "CMOVLOC", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x41},
	CMOVLPS:   {name: "CMOVLPS", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x4a},
	CMOVLPC:   {name: "CMOVLPC", arity: ar2, imm: immNone, enc: encCMOV, w: 4, op1: 0x4b},
	JEQ:       {name: "JEQ", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x84},
	JNE:       {name: "JNE", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x85},
	JLT:       {name: "JLT", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x8c},
	JGE:       {name: "JGE", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x8d},
	JLE:       {name: "JLE", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x8e},
	JGT:       {name: "JGT", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x8f},
	JCS:       {name: "JCS", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x82},
	JCC:       {name: "JCC", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x83},
	JLS:       {name: "JLS", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x86},
	JHI:       {name: "JHI", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x87},
	JMI:       {name: "JMI", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x88},
	JPL:       {name: "JPL", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x89},
	JOS:       {name: "JOS", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x80},
	JOC:       {name: "JOC", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x81},
	JPS:       {name: "JPS", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x8a},
	JPC:       {name: "JPC", arity: arJcc, imm: immNone, enc: encJcc, op1: 0x8b},
	JMP:       {name: "JMP", arity: arJmpCall, imm: immNone, enc: encJMP, digit: 4},
	CALL:      {name: "CALL", arity: arJmpCall, imm: immNone, enc: encJMP, digit: 2},
	RET:       {name: "RET", arity: ar0, imm: immNone, enc: encFixed, w: 1, pfx: 0xc3},
	LEAVEQ:    {name: "LEAVEQ", arity: ar0, imm: immNone, enc: encFixed, w: 1, pfx: 0xc9},
	MOVSD:     {name: "MOVSD", arity: ar2, imm: immNone, enc: encSSEMov, pfx: 0xf2, op1: 0x10},
	MOVSS:     {name: "MOVSS", arity: ar2, imm: immNone, enc: encSSEMov, pfx: 0xf3, op1: 0x10},
	MOVAPS:    {name: "MOVAPS", arity: ar2, imm: immNone, enc: encSSEMov, op1: 0x28},
	MOVUPS:    {name: "MOVUPS", arity: ar2, imm: immNone, enc: encSSEMov, op1: 0x10},
	ADDSD:     {name: "ADDSD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf2, op1: 0x58},
	SUBSD:     {name: "SUBSD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf2, op1: 0x5c},
	MULSD:     {name: "MULSD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf2, op1: 0x59},
	DIVSD:     {name: "DIVSD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf2, op1: 0x5e},
	ADDSS:     {name: "ADDSS", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf3, op1: 0x58},
	SUBSS:     {name: "SUBSS", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf3, op1: 0x5c},
	MULSS:     {name: "MULSS", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf3, op1: 0x59},
	DIVSS:     {name: "DIVSS", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf3, op1: 0x5e},
	SQRTSD:    {name: "SQRTSD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf2, op1: 0x51},
	SQRTSS:    {name: "SQRTSS", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf3, op1: 0x51},
	MINSD:     {name: "MINSD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf2, op1: 0x5d},
	MAXSD:     {name: "MAXSD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf2, op1: 0x5f},
	MINSS:     {name: "MINSS", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf3, op1: 0x5d},
	MAXSS:     {name: "MAXSS", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf3, op1: 0x5f},
	UCOMISD:   {name: "UCOMISD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0x66, op1: 0x2e},
	UCOMISS:   {name: "UCOMISS", arity: ar2, imm: immNone, enc: encSSE, op1: 0x2e},
	COMISD:    {name: "COMISD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0x66, op1: 0x2f},
	COMISS:    {name: "COMISS", arity: ar2, imm: immNone, enc: encSSE, op1: 0x2f},
	CVTSQ2SD:  {name: "CVTSQ2SD", arity: ar2, imm: immNone, enc: encCVTI2F, w: 8, pfx: 0xf2, op1: 0x2a},
	CVTSL2SD:  {name: "CVTSL2SD", arity: ar2, imm: immNone, enc: encCVTI2F, w: 4, pfx: 0xf2, op1: 0x2a},
	CVTSQ2SS:  {name: "CVTSQ2SS", arity: ar2, imm: immNone, enc: encCVTI2F, w: 8, pfx: 0xf3, op1: 0x2a},
	CVTSL2SS:  {name: "CVTSL2SS", arity: ar2, imm: immNone, enc: encCVTI2F, w: 4, pfx: 0xf3, op1: 0x2a},
	CVTTSD2SQ: {name: "CVTTSD2SQ", arity: ar2, imm: immNone, enc: encCVTF2I, w: 8, pfx: 0xf2, op1: 0x2c},
	CVTTSD2SL: {name: "CVTTSD2SL", arity: ar2, imm: immNone, enc: encCVTF2I, w: 4, pfx: 0xf2, op1: 0x2c},
	CVTTSS2SQ: {name: "CVTTSS2SQ", arity: ar2, imm: immNone, enc: encCVTF2I, w: 8, pfx: 0xf3, op1: 0x2c},
	CVTTSS2SL: {name: "CVTTSS2SL", arity: ar2, imm: immNone, enc: encCVTF2I, w: 4, pfx: 0xf3, op1: 0x2c},
	CVTSD2SS:  {name: "CVTSD2SS", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf2, op1: 0x5a},
	CVTSS2SD:  {name: "CVTSS2SD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0xf3, op1: 0x5a},
	XORPS:     {name: "XORPS", arity: ar2, imm: immNone, enc: encSSE, op1: 0x57},
	XORPD:     {name: "XORPD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0x66, op1: 0x57},
	ANDPS:     {name: "ANDPS", arity: ar2, imm: immNone, enc: encSSE, op1: 0x54},
	ANDPD:     {name: "ANDPD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0x66, op1: 0x54},
	ANDNPS:    {name: "ANDNPS", arity: ar2, imm: immNone, enc: encSSE, op1: 0x55},
	ANDNPD:    {name: "ANDNPD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0x66, op1: 0x55},
	ORPS:      {name: "ORPS", arity: ar2, imm: immNone, enc: encSSE, op1: 0x56},
	ORPD:      {name: "ORPD", arity: ar2, imm: immNone, enc: encSSE, pfx: 0x66, op1: 0x56},
	ROUNDSD:   {name: "ROUNDSD", arity: ar3, imm: immU8, enc: encROUND, pfx: 0x66, op1: 0xb},
	ROUNDSS:   {name: "ROUNDSS", arity: ar3, imm: immU8, enc: encROUND, pfx: 0x66, op1: 0xa},
	NOP:       {name: "NOP", arity: ar0, imm: immNone, enc: encFixed},
	INT3:      {name: "INT3", arity: ar0, imm: immNone, enc: encFixed, w: 1, pfx: 0xcc},
	UD2:       {name: "UD2", arity: ar0, imm: immNone, enc: encFixed, w: 2, pfx: 0xf, op0: 0xb},
	PAUSE:     {name: "PAUSE", arity: ar0, imm: immNone, enc: encFixed, w: 2, pfx: 0xf3, op0: 0x90},
	MFENCE:    {name: "MFENCE", arity: ar0, imm: immNone, enc: encFixed, w: 3, pfx: 0xf, op0: 0xae, op1: 0xf0},
	REP:       {name: "REP", arity: ar0, imm: immNone, enc: encFixed, w: 1, pfx: 0xf3},
	LOCK:      {name: "LOCK", arity: ar0, imm: immNone, enc: encFixed, w: 1, pfx: 0xf0},
	STOSQ:     {name: "STOSQ", arity: ar0, imm: immNone, enc: encFixed, w: 2, pfx: 0x48, op0: 0xab},
	MOVSQ:     {name: "MOVSQ", arity: ar0, imm: immNone, enc: encFixed, w: 2, pfx: 0x48, op0: 0xa5},
	XADDQ:     {name: "XADDQ", arity: ar2, imm: immNone, enc: encXADD, w: 8, op1: 0xc1},
	XADDL:     {name: "XADDL", arity: ar2, imm: immNone, enc: encXADD, w: 4, op1: 0xc1},
	CMPXCHGQ:  {name: "CMPXCHGQ", arity: ar2, imm: immNone, enc: encXADD, w: 8, op1: 0xb1},
	CMPXCHGL:  {name: "CMPXCHGL", arity: ar2, imm: immNone, enc: encXADD, w: 4, op1: 0xb1},
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
