package il

// OperandKind says what follows an opcode in the instruction stream, and so
// how many bytes the instruction takes in the ECMA-335 encoding.
type OperandKind uint8

// Operand kinds, named after ECMA-335 Partition III's operand types.
const (
	OpNone     OperandKind = iota // no operand
	OpShortVar                    // uint8 argument or local index (ldarg.s, stloc.s)
	OpVar                         // uint16 argument or local index (ldarg, stloc)
	OpI1                          // int8 constant (ldc.i4.s)
	OpI4                          // int32 constant (ldc.i4)
	OpI8                          // int64 constant (ldc.i8)
	OpR4                          // float32 constant (ldc.r4)
	OpR8                          // float64 constant (ldc.r8)
	OpShortBr                     // int8 branch displacement
	OpBr                          // int32 branch displacement
	OpSwitch                      // uint32 count, then count int32 displacements
	OpMethod                      // method token
	OpField                       // field token
	OpType                        // type token
	OpString                      // string token
)

// Op identifies an instruction. Aliases that ilasm accepts (brnull for
// brfalse, ldelem.u8 for ldelem.i8, ...) are distinct Ops with the same
// encoding so that the printer writes back what the program said.
type Op uint16

// OpInfo describes one opcode.
type OpInfo struct {
	Name    string      // ilasm mnemonic
	Code    uint16      // encoding: one byte, or 0xFE00|b for two-byte opcodes
	Operand OperandKind // what follows the opcode
	Canon   Op          // the opcode this one is an alias of (itself if none)
}

// Size returns the number of bytes of the opcode itself.
func (i *OpInfo) opcodeSize() int {
	if i.Code >= 0xFE00 {
		return 2
	}
	return 1
}

// The instructions of mini MSIL. The numbering is internal; Code in OpInfo
// holds the real encoding.
const (
	Nop Op = iota
	Ldarg0
	Ldarg1
	Ldarg2
	Ldarg3
	Ldloc0
	Ldloc1
	Ldloc2
	Ldloc3
	Stloc0
	Stloc1
	Stloc2
	Stloc3
	LdargS
	StargS
	LdlocS
	StlocS
	Ldnull
	LdcI4M1
	LdcI40
	LdcI41
	LdcI42
	LdcI43
	LdcI44
	LdcI45
	LdcI46
	LdcI47
	LdcI48
	LdcI4S
	LdcI4
	LdcI8
	LdcR4
	LdcR8
	Dup
	Pop
	Call
	Ret
	BrS
	BrfalseS
	BrtrueS
	BeqS
	BgeS
	BgtS
	BleS
	BltS
	BneUnS
	BgeUnS
	BgtUnS
	BleUnS
	BltUnS
	Br
	Brfalse
	Brtrue
	Beq
	Bge
	Bgt
	Ble
	Blt
	BneUn
	BgeUn
	BgtUn
	BleUn
	BltUn
	Switch
	Add
	Sub
	Mul
	Div
	DivUn
	Rem
	RemUn
	And
	Or
	Xor
	Shl
	Shr
	ShrUn
	Neg
	Not
	ConvI1
	ConvI2
	ConvI4
	ConvI8
	ConvR4
	ConvR8
	ConvU4
	ConvU8
	Callvirt
	Newobj
	Ldstr
	Castclass
	Isinst
	ConvRUn
	Throw
	Ldfld
	Stfld
	Ldsfld
	Stsfld
	ConvOvfI1Un
	ConvOvfI2Un
	ConvOvfI4Un
	ConvOvfI8Un
	ConvOvfU1Un
	ConvOvfU2Un
	ConvOvfU4Un
	ConvOvfU8Un
	ConvOvfIUn
	ConvOvfUUn
	Box
	Newarr
	Ldlen
	LdelemI1
	LdelemU1
	LdelemI2
	LdelemU2
	LdelemI4
	LdelemU4
	LdelemI8
	LdelemI
	LdelemR4
	LdelemR8
	LdelemRef
	StelemI
	StelemI1
	StelemI2
	StelemI4
	StelemI8
	StelemR4
	StelemR8
	StelemRef
	Ldelem
	Stelem
	UnboxAny
	ConvOvfI1
	ConvOvfU1
	ConvOvfI2
	ConvOvfU2
	ConvOvfI4
	ConvOvfU4
	ConvOvfI8
	ConvOvfU8
	Ckfinite
	ConvU2
	ConvU1
	ConvI
	ConvOvfI
	ConvOvfU
	AddOvf
	AddOvfUn
	MulOvf
	MulOvfUn
	SubOvf
	SubOvfUn
	Endfinally
	Leave
	LeaveS
	ConvU
	Ceq
	Cgt
	CgtUn
	Clt
	CltUn
	Ldarg
	Starg
	Ldloc
	Stloc
	Endfilter
	Rethrow

	// Value types and managed pointers.
	LdargaS
	Ldarga
	LdlocaS
	Ldloca
	Ldflda
	Ldsflda
	Ldelema
	LdindI1
	LdindU1
	LdindI2
	LdindU2
	LdindI4
	LdindU4
	LdindI8
	LdindI
	LdindR4
	LdindR8
	LdindRef
	StindRef
	StindI1
	StindI2
	StindI4
	StindI8
	StindR4
	StindR8
	StindI
	Ldobj
	Stobj
	Cpobj
	Initobj
	Sizeof
	Unbox

	// Aliases accepted by ilasm.
	Endfault
	LdelemU8
	Brnull
	BrnullS
	Brzero
	BrzeroS
	Brinst
	BrinstS
	LdcI4M1Upper
	LdindU8

	numOps
)

// Ops is the opcode table, indexed by Op.
var Ops = [numOps]OpInfo{
	Nop:          {"nop", 0x00, OpNone, Nop},
	Ldarg0:       {"ldarg.0", 0x02, OpNone, Ldarg0},
	Ldarg1:       {"ldarg.1", 0x03, OpNone, Ldarg1},
	Ldarg2:       {"ldarg.2", 0x04, OpNone, Ldarg2},
	Ldarg3:       {"ldarg.3", 0x05, OpNone, Ldarg3},
	Ldloc0:       {"ldloc.0", 0x06, OpNone, Ldloc0},
	Ldloc1:       {"ldloc.1", 0x07, OpNone, Ldloc1},
	Ldloc2:       {"ldloc.2", 0x08, OpNone, Ldloc2},
	Ldloc3:       {"ldloc.3", 0x09, OpNone, Ldloc3},
	Stloc0:       {"stloc.0", 0x0A, OpNone, Stloc0},
	Stloc1:       {"stloc.1", 0x0B, OpNone, Stloc1},
	Stloc2:       {"stloc.2", 0x0C, OpNone, Stloc2},
	Stloc3:       {"stloc.3", 0x0D, OpNone, Stloc3},
	LdargS:       {"ldarg.s", 0x0E, OpShortVar, LdargS},
	StargS:       {"starg.s", 0x10, OpShortVar, StargS},
	LdlocS:       {"ldloc.s", 0x11, OpShortVar, LdlocS},
	StlocS:       {"stloc.s", 0x13, OpShortVar, StlocS},
	Ldnull:       {"ldnull", 0x14, OpNone, Ldnull},
	LdcI4M1:      {"ldc.i4.m1", 0x15, OpNone, LdcI4M1},
	LdcI40:       {"ldc.i4.0", 0x16, OpNone, LdcI40},
	LdcI41:       {"ldc.i4.1", 0x17, OpNone, LdcI41},
	LdcI42:       {"ldc.i4.2", 0x18, OpNone, LdcI42},
	LdcI43:       {"ldc.i4.3", 0x19, OpNone, LdcI43},
	LdcI44:       {"ldc.i4.4", 0x1A, OpNone, LdcI44},
	LdcI45:       {"ldc.i4.5", 0x1B, OpNone, LdcI45},
	LdcI46:       {"ldc.i4.6", 0x1C, OpNone, LdcI46},
	LdcI47:       {"ldc.i4.7", 0x1D, OpNone, LdcI47},
	LdcI48:       {"ldc.i4.8", 0x1E, OpNone, LdcI48},
	LdcI4S:       {"ldc.i4.s", 0x1F, OpI1, LdcI4S},
	LdcI4:        {"ldc.i4", 0x20, OpI4, LdcI4},
	LdcI8:        {"ldc.i8", 0x21, OpI8, LdcI8},
	LdcR4:        {"ldc.r4", 0x22, OpR4, LdcR4},
	LdcR8:        {"ldc.r8", 0x23, OpR8, LdcR8},
	Dup:          {"dup", 0x25, OpNone, Dup},
	Pop:          {"pop", 0x26, OpNone, Pop},
	Call:         {"call", 0x28, OpMethod, Call},
	Ret:          {"ret", 0x2A, OpNone, Ret},
	BrS:          {"br.s", 0x2B, OpShortBr, BrS},
	BrfalseS:     {"brfalse.s", 0x2C, OpShortBr, BrfalseS},
	BrtrueS:      {"brtrue.s", 0x2D, OpShortBr, BrtrueS},
	BeqS:         {"beq.s", 0x2E, OpShortBr, BeqS},
	BgeS:         {"bge.s", 0x2F, OpShortBr, BgeS},
	BgtS:         {"bgt.s", 0x30, OpShortBr, BgtS},
	BleS:         {"ble.s", 0x31, OpShortBr, BleS},
	BltS:         {"blt.s", 0x32, OpShortBr, BltS},
	BneUnS:       {"bne.un.s", 0x33, OpShortBr, BneUnS},
	BgeUnS:       {"bge.un.s", 0x34, OpShortBr, BgeUnS},
	BgtUnS:       {"bgt.un.s", 0x35, OpShortBr, BgtUnS},
	BleUnS:       {"ble.un.s", 0x36, OpShortBr, BleUnS},
	BltUnS:       {"blt.un.s", 0x37, OpShortBr, BltUnS},
	Br:           {"br", 0x38, OpBr, Br},
	Brfalse:      {"brfalse", 0x39, OpBr, Brfalse},
	Brtrue:       {"brtrue", 0x3A, OpBr, Brtrue},
	Beq:          {"beq", 0x3B, OpBr, Beq},
	Bge:          {"bge", 0x3C, OpBr, Bge},
	Bgt:          {"bgt", 0x3D, OpBr, Bgt},
	Ble:          {"ble", 0x3E, OpBr, Ble},
	Blt:          {"blt", 0x3F, OpBr, Blt},
	BneUn:        {"bne.un", 0x40, OpBr, BneUn},
	BgeUn:        {"bge.un", 0x41, OpBr, BgeUn},
	BgtUn:        {"bgt.un", 0x42, OpBr, BgtUn},
	BleUn:        {"ble.un", 0x43, OpBr, BleUn},
	BltUn:        {"blt.un", 0x44, OpBr, BltUn},
	Switch:       {"switch", 0x45, OpSwitch, Switch},
	Add:          {"add", 0x58, OpNone, Add},
	Sub:          {"sub", 0x59, OpNone, Sub},
	Mul:          {"mul", 0x5A, OpNone, Mul},
	Div:          {"div", 0x5B, OpNone, Div},
	DivUn:        {"div.un", 0x5C, OpNone, DivUn},
	Rem:          {"rem", 0x5D, OpNone, Rem},
	RemUn:        {"rem.un", 0x5E, OpNone, RemUn},
	And:          {"and", 0x5F, OpNone, And},
	Or:           {"or", 0x60, OpNone, Or},
	Xor:          {"xor", 0x61, OpNone, Xor},
	Shl:          {"shl", 0x62, OpNone, Shl},
	Shr:          {"shr", 0x63, OpNone, Shr},
	ShrUn:        {"shr.un", 0x64, OpNone, ShrUn},
	Neg:          {"neg", 0x65, OpNone, Neg},
	Not:          {"not", 0x66, OpNone, Not},
	ConvI1:       {"conv.i1", 0x67, OpNone, ConvI1},
	ConvI2:       {"conv.i2", 0x68, OpNone, ConvI2},
	ConvI4:       {"conv.i4", 0x69, OpNone, ConvI4},
	ConvI8:       {"conv.i8", 0x6A, OpNone, ConvI8},
	ConvR4:       {"conv.r4", 0x6B, OpNone, ConvR4},
	ConvR8:       {"conv.r8", 0x6C, OpNone, ConvR8},
	ConvU4:       {"conv.u4", 0x6D, OpNone, ConvU4},
	ConvU8:       {"conv.u8", 0x6E, OpNone, ConvU8},
	Callvirt:     {"callvirt", 0x6F, OpMethod, Callvirt},
	Newobj:       {"newobj", 0x73, OpMethod, Newobj},
	Ldstr:        {"ldstr", 0x72, OpString, Ldstr},
	Castclass:    {"castclass", 0x74, OpType, Castclass},
	Isinst:       {"isinst", 0x75, OpType, Isinst},
	ConvRUn:      {"conv.r.un", 0x76, OpNone, ConvRUn},
	Throw:        {"throw", 0x7A, OpNone, Throw},
	Ldfld:        {"ldfld", 0x7B, OpField, Ldfld},
	Stfld:        {"stfld", 0x7D, OpField, Stfld},
	Ldsfld:       {"ldsfld", 0x7E, OpField, Ldsfld},
	Stsfld:       {"stsfld", 0x80, OpField, Stsfld},
	ConvOvfI1Un:  {"conv.ovf.i1.un", 0x82, OpNone, ConvOvfI1Un},
	ConvOvfI2Un:  {"conv.ovf.i2.un", 0x83, OpNone, ConvOvfI2Un},
	ConvOvfI4Un:  {"conv.ovf.i4.un", 0x84, OpNone, ConvOvfI4Un},
	ConvOvfI8Un:  {"conv.ovf.i8.un", 0x85, OpNone, ConvOvfI8Un},
	ConvOvfU1Un:  {"conv.ovf.u1.un", 0x86, OpNone, ConvOvfU1Un},
	ConvOvfU2Un:  {"conv.ovf.u2.un", 0x87, OpNone, ConvOvfU2Un},
	ConvOvfU4Un:  {"conv.ovf.u4.un", 0x88, OpNone, ConvOvfU4Un},
	ConvOvfU8Un:  {"conv.ovf.u8.un", 0x89, OpNone, ConvOvfU8Un},
	ConvOvfIUn:   {"conv.ovf.i.un", 0x8A, OpNone, ConvOvfIUn},
	ConvOvfUUn:   {"conv.ovf.u.un", 0x8B, OpNone, ConvOvfUUn},
	Box:          {"box", 0x8C, OpType, Box},
	Newarr:       {"newarr", 0x8D, OpType, Newarr},
	Ldlen:        {"ldlen", 0x8E, OpNone, Ldlen},
	LdelemI1:     {"ldelem.i1", 0x90, OpNone, LdelemI1},
	LdelemU1:     {"ldelem.u1", 0x91, OpNone, LdelemU1},
	LdelemI2:     {"ldelem.i2", 0x92, OpNone, LdelemI2},
	LdelemU2:     {"ldelem.u2", 0x93, OpNone, LdelemU2},
	LdelemI4:     {"ldelem.i4", 0x94, OpNone, LdelemI4},
	LdelemU4:     {"ldelem.u4", 0x95, OpNone, LdelemU4},
	LdelemI8:     {"ldelem.i8", 0x96, OpNone, LdelemI8},
	LdelemI:      {"ldelem.i", 0x97, OpNone, LdelemI},
	LdelemR4:     {"ldelem.r4", 0x98, OpNone, LdelemR4},
	LdelemR8:     {"ldelem.r8", 0x99, OpNone, LdelemR8},
	LdelemRef:    {"ldelem.ref", 0x9A, OpNone, LdelemRef},
	StelemI:      {"stelem.i", 0x9B, OpNone, StelemI},
	StelemI1:     {"stelem.i1", 0x9C, OpNone, StelemI1},
	StelemI2:     {"stelem.i2", 0x9D, OpNone, StelemI2},
	StelemI4:     {"stelem.i4", 0x9E, OpNone, StelemI4},
	StelemI8:     {"stelem.i8", 0x9F, OpNone, StelemI8},
	StelemR4:     {"stelem.r4", 0xA0, OpNone, StelemR4},
	StelemR8:     {"stelem.r8", 0xA1, OpNone, StelemR8},
	StelemRef:    {"stelem.ref", 0xA2, OpNone, StelemRef},
	Ldelem:       {"ldelem", 0xA3, OpType, Ldelem},
	Stelem:       {"stelem", 0xA4, OpType, Stelem},
	UnboxAny:     {"unbox.any", 0xA5, OpType, UnboxAny},
	ConvOvfI1:    {"conv.ovf.i1", 0xB3, OpNone, ConvOvfI1},
	ConvOvfU1:    {"conv.ovf.u1", 0xB4, OpNone, ConvOvfU1},
	ConvOvfI2:    {"conv.ovf.i2", 0xB5, OpNone, ConvOvfI2},
	ConvOvfU2:    {"conv.ovf.u2", 0xB6, OpNone, ConvOvfU2},
	ConvOvfI4:    {"conv.ovf.i4", 0xB7, OpNone, ConvOvfI4},
	ConvOvfU4:    {"conv.ovf.u4", 0xB8, OpNone, ConvOvfU4},
	ConvOvfI8:    {"conv.ovf.i8", 0xB9, OpNone, ConvOvfI8},
	ConvOvfU8:    {"conv.ovf.u8", 0xBA, OpNone, ConvOvfU8},
	Ckfinite:     {"ckfinite", 0xC3, OpNone, Ckfinite},
	ConvU2:       {"conv.u2", 0xD1, OpNone, ConvU2},
	ConvU1:       {"conv.u1", 0xD2, OpNone, ConvU1},
	ConvI:        {"conv.i", 0xD3, OpNone, ConvI},
	ConvOvfI:     {"conv.ovf.i", 0xD4, OpNone, ConvOvfI},
	ConvOvfU:     {"conv.ovf.u", 0xD5, OpNone, ConvOvfU},
	AddOvf:       {"add.ovf", 0xD6, OpNone, AddOvf},
	AddOvfUn:     {"add.ovf.un", 0xD7, OpNone, AddOvfUn},
	MulOvf:       {"mul.ovf", 0xD8, OpNone, MulOvf},
	MulOvfUn:     {"mul.ovf.un", 0xD9, OpNone, MulOvfUn},
	SubOvf:       {"sub.ovf", 0xDA, OpNone, SubOvf},
	SubOvfUn:     {"sub.ovf.un", 0xDB, OpNone, SubOvfUn},
	Endfinally:   {"endfinally", 0xDC, OpNone, Endfinally},
	Leave:        {"leave", 0xDD, OpBr, Leave},
	LeaveS:       {"leave.s", 0xDE, OpShortBr, LeaveS},
	ConvU:        {"conv.u", 0xE0, OpNone, ConvU},
	Ceq:          {"ceq", 0xFE01, OpNone, Ceq},
	Cgt:          {"cgt", 0xFE02, OpNone, Cgt},
	CgtUn:        {"cgt.un", 0xFE03, OpNone, CgtUn},
	Clt:          {"clt", 0xFE04, OpNone, Clt},
	CltUn:        {"clt.un", 0xFE05, OpNone, CltUn},
	Ldarg:        {"ldarg", 0xFE09, OpVar, Ldarg},
	Starg:        {"starg", 0xFE0B, OpVar, Starg},
	Ldloc:        {"ldloc", 0xFE0C, OpVar, Ldloc},
	Stloc:        {"stloc", 0xFE0E, OpVar, Stloc},
	Endfilter:    {"endfilter", 0xFE11, OpNone, Endfilter},
	Rethrow:      {"rethrow", 0xFE1A, OpNone, Rethrow},
	LdargaS:      {"ldarga.s", 0x0F, OpShortVar, LdargaS},
	Ldarga:       {"ldarga", 0xFE0A, OpVar, Ldarga},
	LdlocaS:      {"ldloca.s", 0x12, OpShortVar, LdlocaS},
	Ldloca:       {"ldloca", 0xFE0D, OpVar, Ldloca},
	Ldflda:       {"ldflda", 0x7C, OpField, Ldflda},
	Ldsflda:      {"ldsflda", 0x7F, OpField, Ldsflda},
	Ldelema:      {"ldelema", 0x8F, OpType, Ldelema},
	LdindI1:      {"ldind.i1", 0x46, OpNone, LdindI1},
	LdindU1:      {"ldind.u1", 0x47, OpNone, LdindU1},
	LdindI2:      {"ldind.i2", 0x48, OpNone, LdindI2},
	LdindU2:      {"ldind.u2", 0x49, OpNone, LdindU2},
	LdindI4:      {"ldind.i4", 0x4A, OpNone, LdindI4},
	LdindU4:      {"ldind.u4", 0x4B, OpNone, LdindU4},
	LdindI8:      {"ldind.i8", 0x4C, OpNone, LdindI8},
	LdindI:       {"ldind.i", 0x4D, OpNone, LdindI},
	LdindR4:      {"ldind.r4", 0x4E, OpNone, LdindR4},
	LdindR8:      {"ldind.r8", 0x4F, OpNone, LdindR8},
	LdindRef:     {"ldind.ref", 0x50, OpNone, LdindRef},
	StindRef:     {"stind.ref", 0x51, OpNone, StindRef},
	StindI1:      {"stind.i1", 0x52, OpNone, StindI1},
	StindI2:      {"stind.i2", 0x53, OpNone, StindI2},
	StindI4:      {"stind.i4", 0x54, OpNone, StindI4},
	StindI8:      {"stind.i8", 0x55, OpNone, StindI8},
	StindR4:      {"stind.r4", 0x56, OpNone, StindR4},
	StindR8:      {"stind.r8", 0x57, OpNone, StindR8},
	StindI:       {"stind.i", 0xDF, OpNone, StindI},
	Ldobj:        {"ldobj", 0x71, OpType, Ldobj},
	Stobj:        {"stobj", 0x81, OpType, Stobj},
	Cpobj:        {"cpobj", 0x70, OpType, Cpobj},
	Initobj:      {"initobj", 0xFE15, OpType, Initobj},
	Sizeof:       {"sizeof", 0xFE1C, OpType, Sizeof},
	Unbox:        {"unbox", 0x79, OpType, Unbox},
	Endfault:     {"endfault", 0xDC, OpNone, Endfinally},
	LdelemU8:     {"ldelem.u8", 0x96, OpNone, LdelemI8},
	Brnull:       {"brnull", 0x39, OpBr, Brfalse},
	BrnullS:      {"brnull.s", 0x2C, OpShortBr, BrfalseS},
	Brzero:       {"brzero", 0x39, OpBr, Brfalse},
	BrzeroS:      {"brzero.s", 0x2C, OpShortBr, BrfalseS},
	Brinst:       {"brinst", 0x3A, OpBr, Brtrue},
	BrinstS:      {"brinst.s", 0x2D, OpShortBr, BrtrueS},
	LdcI4M1Upper: {"ldc.i4.M1", 0x15, OpNone, LdcI4M1},
	LdindU8:      {"ldind.u8", 0x4C, OpNone, LdindI8},
}

// opByName finds an opcode by mnemonic: an open-addressing table
// (linear probing) indexed by an FNV-1a hash of the mnemonic. The parser
// looks up every instruction here; for names this short it is about
// twice as fast as a map[string]Op.
var opByName = func() *[opTableSize]Op {
	var t [opTableSize]Op
	for i := range t {
		t[i] = numOps // empty
	}
	for op := Op(0); op < numOps; op++ {
		h := opHash(Ops[op].Name)
		for t[h] != numOps {
			h = (h + 1) & (opTableSize - 1)
		}
		t[h] = op
	}
	return &t
}()

// opTableSize is a power of two, about four times the number of opcodes.
const opTableSize = 1024

func opHash(s string) uint32 {
	h := uint32(2166136261) // FNV-1a: mnemonics are short
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return (h ^ h>>16) & (opTableSize - 1)
}

// LookupOp returns the opcode for an ilasm mnemonic.
func LookupOp(name string) (Op, bool) {
	for h := opHash(name); ; h = (h + 1) & (opTableSize - 1) {
		op := opByName[h]
		if op == numOps {
			return 0, false
		}
		if Ops[op].Name == name {
			return op, true
		}
	}
}

// String returns the mnemonic.
func (op Op) String() string {
	if op < numOps {
		return Ops[op].Name
	}
	return "op?"
}

// Info returns the opcode's table entry.
func (op Op) Info() *OpInfo { return &Ops[op] }

// Canon returns the opcode this one is an alias of (itself when it is not
// an alias). Engines switch on canonical opcodes only.
func (op Op) Canon() Op { return Ops[op].Canon }

// Size returns the encoded size in bytes of an instruction with this
// opcode; for switch, n is the number of targets.
func (op Op) Size(n int) int {
	info := &Ops[op]
	s := info.opcodeSize()
	switch info.Operand {
	case OpShortVar, OpI1, OpShortBr:
		s++
	case OpVar:
		s += 2
	case OpI4, OpR4, OpBr, OpMethod, OpField, OpType, OpString:
		s += 4
	case OpI8, OpR8:
		s += 8
	case OpSwitch:
		s += 4 + 4*n
	}
	return s
}

// IsBranch reports whether the opcode has branch target operands
// (including leave and switch).
func (op Op) IsBranch() bool {
	k := Ops[op].Operand
	return k == OpShortBr || k == OpBr || k == OpSwitch
}
