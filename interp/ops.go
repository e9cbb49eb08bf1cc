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
	// oInit is a site that triggers the type initializer s.inits[b]: it
	// runs it when it must (cctor.go), then the instruction itself,
	// dmethod.initSites[a].
	oInit
	oTemps
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

	// Value types and managed pointers (see valuetype.go).
	oLdvV     // push a copy of the struct in vars[a]
	oStvV     // copy the struct popped into vars[a]
	oDupV     // dup of a struct: a copy
	oNewobjV  // newobj of a value type's constructor: pushes the value
	oLdfldOV  // struct field at slot a of an object; b = type index
	oStfldOV  // store a struct into the field at slot a of an object
	oLdfldP   // field at slot a through a pointer; n = the field's kind
	oStfldP   // store through a pointer into slot a, normalized to kind n
	oLdfldPV  // struct field at slot a through a pointer; b = type index
	oStfldPV  // store a struct through a pointer into slot a
	oLdfldV   // field at slot a of a struct value
	oLdfldVV  // struct field at slot a of a struct value; b = type index
	oLdsfldV  // struct static at word a; b = type index
	oStsfldV  // store a struct into the static at word a
	oLdfldaO  // pointer to slot a of an object, a location of kind n
	oLdfldaP  // pointer to slot a from a pointer, a location of kind n
	oLdsflda  // pointer to static word a, a location of kind n
	oLdva     // pointer to vars[a], a location of kind n
	oLdvaV    // pointer to the struct in vars[a]
	oLdind    // load through a pointer, normalized to kind n
	oLdindRef // load a reference through a pointer
	oStind    // store through a pointer (normalized to the location's kind)
	oLdobjV   // load a struct through a pointer; a = type index
	oStobjV   // store a struct of a words through a pointer
	oCpobj    // copy a location: a = words, n = 1 for a struct
	oInitobj  // zero a location: a = words, n = 1 for a struct
	oBoxV     // box a struct; a = type index
	// oConstrained is a constrained. callvirt whose this, a pointer, is
	// replaced by what it points to (n = consRef) or by a box of it
	// (consBoxV, consBoxP; k = type index), before the virtual call of
	// method a (argument normalization b, as oCallvirt).
	oConstrained
	oUnboxV  // unbox.any to a struct; a = type index
	oUnboxP  // unbox: pointer into a box; a = type index
	oLdelemV // load a struct element
	oStelemV // store a struct element
	oLdelema // pointer to an element; a = type index of the token

	oThrow
	oRethrow // a = clause index
	oLeave   // a = index into dmethod.leaves
	oEndfinally
	oEndfilter
)

// Modes of oConstrained.
const (
	consRef  = iota // load the reference the pointer points to
	consBoxV        // box the value type the pointer points to
	consBoxP        // box the primitive the pointer points to
)
