package interp

// opcode is an instruction of the decoded form: IL opcodes specialized by
// the static types of their operands.
type opcode uint16

const (
	oUnreachable opcode = iota
	oNop
	oLdv  // push vars[a]
	oStv  // vars[a] = pop
	oStvN // vars[a] = normalize(n, pop)
	oLdi  // push integer k
	oLdf  // push float bits k
	oLdnull
	oLdstr // push s.strs[a]
	oDup
	oPop

	oAddI4
	oAddI8
	oAddF
	oAddR4
	oSubI4
	oSubI8
	oSubF
	oSubR4
	oMulI4
	oMulI8
	oMulF
	oMulR4
	oDivI4
	oDivI8
	oDivF
	oDivR4
	oDivUnI4
	oDivUnI8
	oRemI4
	oRemI8
	oRemF
	oRemR4
	oRemUnI4
	oRemUnI8
	oAnd
	oOr
	oXor
	oShlI4
	oShlI8
	oShrI4
	oShrI8
	oShrUnI4
	oShrUnI8
	oNegI4
	oNegI8
	oNegF
	oNot
	oAddOvfI4
	oAddOvfI8
	oAddOvfUnI4
	oAddOvfUnI8
	oSubOvfI4
	oSubOvfI8
	oSubOvfUnI4
	oSubOvfUnI8
	oMulOvfI4
	oMulOvfI8
	oMulOvfUnI4
	oMulOvfUnI8
	oConv // a = target, b = mode, n = source stack type
	oCkfinite

	oCeqI
	oCeqF
	oCeqO
	oCgtI
	oCgtU32
	oCgtU64
	oCgtF
	oCgtUnF
	oCgtUnO
	oCltI
	oCltU32
	oCltU64
	oCltF
	oCltUnF
	oCltUnO

	oBr
	oBrtrueI
	oBrfalseI
	oBrtrueO
	oBrfalseO
	oBeqI
	oBeqF
	oBeqO
	oBneI
	oBneF
	oBneO
	oBgeI
	oBgeF
	oBgeU32
	oBgeU64
	oBgeUnF
	oBgtI
	oBgtF
	oBgtU32
	oBgtU64
	oBgtUnF
	oBleI
	oBleF
	oBleU32
	oBleU64
	oBleUnF
	oBltI
	oBltF
	oBltU32
	oBltU64
	oBltUnF
	oSwitch // a = index into dmethod.switches

	oCall     // a = method index, b = arg normalization index or -1
	oCallvirt // virtual call
	oCallnv   // non-virtual instance call with a null check
	oNewobj
	oRet  // void
	oRetV // with a value, normalized by n

	oLdfld  // a = slot
	oStfld  // a = slot, n = normalization kind
	oLdsfld // a = static slot
	oStsfld // a = static slot, n = normalization kind
	// oLdsfldInit and oStsfldInit are oLdsfld and oStsfld that first run
	// the type initializer s.inits[b] when it must run (cctor.go).
	oLdsfldInit
	oStsfldInit
	oIsinst // a = type index
	oCastclass
	oBox    // n = kind
	oUnbox  // a = type index (unbox.any)
	oNewarr // a = element type index
	oLdlen  //
	oLdelem // n = kind of the load
	oLdelemRef
	oStelem // n = unused (the array's element kind normalizes)
	oStelemRef

	oThrow
	oRethrow // a = clause index
	oLeave   // a = index into dmethod.leaves
	oEndfinally
	oEndfilter
)
