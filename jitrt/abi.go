package jitrt

// The managed ABI shared by the code generator and the runtime: helper exit
// codes, and the layout of objects and method tables in managed memory.

// Helper exits. Native code stores one of these at CtxExitCode (and an
// argument at CtxExitArg where noted), puts the operands in the SysV
// argument registers, and calls the exit stub. Results come back in RAX
// (or XMM0).
const (
	// HelperAlloc: RDI = method table; RAX = new zeroed object.
	HelperAlloc = ExitHelperBase + iota
	// HelperNewArr: RDI = array method table, RSI = length (>= 0); RAX = array.
	HelperNewArr
	// HelperBox: RDI = method table of a boxed primitive, RSI = the value's
	// bits (float32 in the low 32 bits); RAX = box.
	HelperBox
	// HelperIsInst: RDI = object (may be null), RSI = method table of the
	// target type; RAX = the object if it is an instance, else null.
	HelperIsInst
	// HelperTypeIs: RDI = non-null object, RSI = method table of a boxed
	// primitive; RAX = 1 if unbox.any to that type may read the box.
	HelperTypeIs
	// HelperCanStore: RDI = array, RSI = non-null object; RAX = 1 if the
	// object may be stored in the array (the array store check).
	HelperCanStore
	// HelperThrow: RDI = exception object (non-null). Does not return.
	HelperThrow
	// HelperThrowNew: RDI = method table of a base library exception class;
	// for InvalidCastException RSI = the object and RDX = the method table
	// of the target type. Throws a new instance. Does not return.
	HelperThrowNew
	// HelperBuiltin: CtxExitArg = base library method id; arguments in the
	// argument registers as for a managed call; result in RAX or XMM0.
	HelperBuiltin
	// HelperFRem: XMM0 = a, XMM1 = b (float64); XMM0 = the C# remainder.
	HelperFRem
	// HelperF2U8: XMM0 = float64; RAX = CoreCLR's unchecked conversion to
	// uint64.
	HelperF2U8
	// HelperRethrow: rethrow the exception of the catch funclet that makes
	// the exit. Does not return.
	HelperRethrow
)

// ExitFuncletReturn is the exit of the stub that a funclet invoked by the
// exception dispatcher returns to; RAX holds the funclet's result.
const ExitFuncletReturn = 5

// Object layout. Every object starts with its method table address.
// Instance fields take 8 bytes each in slot order (Field.Slot); a field of
// a 4-byte type uses the low 4 bytes of its slot. Arrays and strings keep
// their length after the header; array elements and string characters
// follow at offset 16, with the element type's natural size.
const (
	ObjMT     = 0  // method table pointer
	ObjFields = 8  // first instance field
	ArrLen    = 8  // array length (int64)
	ArrData   = 16 // first element
	StrLen    = 8  // string length in UTF-16 units (int64)
	StrData   = 16 // first UTF-16 unit
	BoxValue  = 8  // the boxed value
)

// Method table layout. Method tables live in managed (non-Go) memory.
const (
	MTBase     = 0  // base class method table (0 for System.Object)
	MTTypeID   = 8  // index of the type in the runtime's type list
	MTVTable   = 16 // first virtual slot: the code address of the slot's method
	MTSlotSize = 8
)
