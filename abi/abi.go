// Package abi is what miniil's code generator (amd64) and its runtime
// (jitrt) agree on, and nothing else: the offsets of the context block
// that native code reaches through R15, the exit and helper codes, the
// layout of objects and method tables, and the compiled method that the
// compiler hands to the runtime (code, call sites, funclets, EH clauses).
// Neither side imports the other; both import abi. It is internal to
// miniil: no compatibility promise.
//
// The managed calling convention: integer arguments in RDI, RSI, RDX,
// RCX, R8, R9, floating-point ones in XMM0-7, the result in RAX or XMM0.
// RBX and R12-R14 are callee-saved; R15 holds the context block and is
// never written; RSP, RBP as usual (frame pointer chains); every other
// register is caller-saved. jitrt's package documentation holds the full
// contract (exits, polls, stack checks, cells and prestubs).
package abi

import "fmt"

// Byte offsets of the slots of a Machine's context block. The block lives in
// mmap'd memory outside the Go heap; native code reaches it through R15, for
// example `SUBQ $1, CtxPoll(R15)` or `CALL [R15+CtxExitStub]`. Every slot is
// 8 bytes. The slots native code touches on hot paths come first so they are
// reachable with an 8-bit displacement (offsets below 0x80).
const (
	// CtxPoll asks loop back edges to poll: they test it and exit with
	// ExitPoll when it is zero or negative. The watchdog thread stores 0
	// to it every PollInterval while a Call runs; the Go side then resets
	// it to the Machine's poll budget (code may also decrement it, and
	// then exits at least every PollBudget decrements).
	CtxPoll = 0x00
	// CtxStackLimit is the lowest RSP a managed frame may leave after its
	// prolog: the native stack's lowest usable address plus the reserve.
	// The watchdog raises it to all ones to make the next prolog's stack
	// check exit (a poll request, see CtxPollReq); the Go side restores it.
	CtxStackLimit = 0x08
	// CtxExitCode is where native code stores the exit code before entering
	// the exit stub. The Go loop clears it to ExitNone before every resume.
	CtxExitCode = 0x10
	// CtxExitArg is an optional argument of an exit (for ExitCompile: the
	// method index).
	CtxExitArg = 0x18
	// CtxExitStub holds the address of the exit stub: `CALL [R15+CtxExitStub]`.
	CtxExitStub = 0x20
	// CtxPollStub holds the address of the poll stub, which exits with
	// ExitPoll: `CALL [R15+CtxPollStub]`.
	CtxPollStub = 0x28
	// CtxOverflowStub holds the address of the stack overflow stub, which
	// exits with ExitStackOverflow: `CALL [R15+CtxOverflowStub]`.
	CtxOverflowStub = 0x30
	// CtxReturnStub holds the address of the return-to-Go stub: Call places
	// it as the return address of the entry frame; it exits with ExitReturn.
	CtxReturnStub = 0x38

	// CtxHeapTop and CtxHeapLimit are the managed heap's bump allocator
	// (absolute addresses): native code allocates inline and exits with
	// HelperAlloc only when the object does not fit.
	CtxHeapTop   = 0x40
	CtxHeapLimit = 0x48

	// CardShift is the log2 of the bytes of heap one card covers.
	CardShift = 9

	// CtxPollReq is set to 1 by the watchdog thread before it raises
	// CtxStackLimit: an ExitStackOverflow with CtxPollReq set is a poll
	// request, not an overflow. The Go side clears it when it restores
	// the limit.
	CtxPollReq = 0x50

	// CtxStackHard is the lowest RSP any frame may leave after its prolog
	// (the native stack's lowest usable address plus the reserve): funclet
	// prologs, which add no call depth, check against it, while method
	// prologs check CtxStackLimit, which the runtime may keep higher to
	// count call depth (see ExitStackLimit).
	CtxStackHard = 0x58

	// The write barrier's constants (set once by the runtime; a nested
	// Call does not save or restore them). After a reference store to an
	// address A of a value V, native code sets the card of A,
	// byte CtxCards + (A-CtxHeapLo)>>abi.CardShift, when V is young
	// (V-CtxYoungLo < CtxYoungSpan, unsigned) and A is in the heap
	// (A-CtxHeapLo < CtxHeapSpan, unsigned).
	CtxYoungLo   = 0x60
	CtxYoungSpan = 0x68
	CtxHeapLo    = 0x70
	CtxHeapSpan  = 0x78

	// CtxPC is the native PC: where resume continues. After an exit it is
	// the return address of the CALL that entered the exit stub.
	CtxPC = 0x80
	// CtxRSP is the native RSP: after an exit, the RSP the exiting code had
	// before its CALL to the exit stub (the stub pops its return address).
	CtxRSP = 0x88
	// CtxRBP is the native RBP.
	CtxRBP = 0x90

	// CtxRAX .. CtxR14 are the saved general purpose registers. The exit
	// stub saves and resume restores all of them (R15 is the context
	// pointer, RSP and RBP have their own slots above).
	CtxRAX = 0x98
	CtxRBX = 0xa0
	CtxRCX = 0xa8
	CtxRDX = 0xb0
	CtxRSI = 0xb8
	CtxRDI = 0xc0
	CtxR8  = 0xc8
	CtxR9  = 0xd0
	CtxR10 = 0xd8
	CtxR11 = 0xe0
	CtxR12 = 0xe8
	CtxR13 = 0xf0
	CtxR14 = 0xf8

	// CtxXMM0 .. CtxXMM15 hold the low 64 bits of XMM0-XMM15.
	CtxXMM0  = 0x100
	CtxXMM1  = 0x108
	CtxXMM2  = 0x110
	CtxXMM3  = 0x118
	CtxXMM4  = 0x120
	CtxXMM5  = 0x128
	CtxXMM6  = 0x130
	CtxXMM7  = 0x138
	CtxXMM8  = 0x140
	CtxXMM9  = 0x148
	CtxXMM10 = 0x150
	CtxXMM11 = 0x158
	CtxXMM12 = 0x160
	CtxXMM13 = 0x168
	CtxXMM14 = 0x170
	CtxXMM15 = 0x178

	// CtxGoSP and CtxGoBP are Go's SP and BP, saved by resume and restored
	// by the exit stub. Native code must not write them.
	CtxGoSP = 0x180
	CtxGoBP = 0x188

	// CtxStackHi is the native stack's high end (exclusive): the initial RSP
	// of a top-level Call is CtxStackHi-8. CtxStackLo is the lowest usable
	// address (just above the guard pages). Both are informational; native
	// code checks against CtxStackLimit.
	CtxStackHi = 0x190
	CtxStackLo = 0x198

	// CtxCards is the address of the card table (see CtxYoungLo).
	CtxCards = 0x1a0

	// CtxPlansDone counts the planned second passes of exception
	// dispatch whose catch returned (the plan stub increments it as it
	// resumes the continuation); the runtime ends those dispatches at
	// its next exit and clears it (jitrt/ehplan.go).
	CtxPlansDone = 0x1a8

	// CtxIntToString is the address of the routine that makes the
	// decimal string of a signed 64-bit integer, called by native code
	// for the ToString of Int32, UInt32, Int64 and UInt64 (below 2^63)
	// once the call site has loaded the value: RDI is the managed pointer
	// the method was called on (this), RSI the value, sign- or
	// zero-extended, RDX the method table of System.String. It
	// bump-allocates the string as CtxSbToString does and returns it in
	// RAX; 0, with RDI unchanged, when it does not fit below
	// CtxHeapLimit. It clobbers only RAX, RCX, RDX, RSI, RDI, R8 and R9,
	// never exits and is no safepoint.
	CtxIntToString = 0x1b0

	// CtxSpare11 and CtxSpare12 are more free slots (32-bit displacements).
	CtxSpare11 = 0x1b8
	CtxSpare12 = 0x1c0

	// CtxSbCtor is the address of the StringBuilder constructor routine,
	// called by native code for StringBuilder::.ctor() and .ctor(int32):
	// RDI is the builder (may be null), ESI the capacity (0 for the
	// default), RDX the method table of char[]. It bump-allocates the
	// buffer at CtxHeapTop below CtxHeapLimit (smaller than
	// StrConcatMaxBytes), stores it with the card-marking barrier and
	// clears the length, and returns RAX non-zero; it returns 0, with RDI
	// and RSI unchanged, when the base library method must run instead (a
	// null builder, a negative capacity, a buffer that is too large or
	// does not fit). The routines of CtxSbCtor to CtxSbToString clobber
	// only RAX, RCX, RDX, RSI, RDI, R8 and R9, never exit and are no
	// safepoints.
	CtxSbCtor = 0x1c8
	// CtxSbAppendString is the address of the StringBuilder.Append(string)
	// routine: RDI is the builder, RSI the string. It copies the string's
	// units into the buffer when they fit (nothing for a null or empty
	// string) and returns the builder in RAX; 0, with RDI and RSI
	// unchanged, for a null builder or units that do not fit (the buffer
	// must grow).
	CtxSbAppendString = 0x1e0
	// CtxSbAppendChar is the address of the StringBuilder.Append(char)
	// routine: RDI is the builder, SI the unit. As CtxSbAppendString.
	CtxSbAppendChar = 0x1e8
	// CtxSbAppendInt is the address of the routine that appends a signed
	// 64-bit integer in decimal (Append(int32) and Append(uint32) once
	// the call site has extended ESI to RSI, Append(int64)): RDI is the
	// builder, RSI the value. As CtxSbAppendString.
	CtxSbAppendInt = 0x1f0
	// CtxSbToString is the address of the StringBuilder.ToString routine:
	// RDI is the builder, RDX the method table of System.String. It
	// bump-allocates the string as CtxStrConcat does and returns it in
	// RAX; 0, with RDI unchanged, for a null or empty builder (String.Empty)
	// or a string that is not below StrConcatMaxBytes or does not fit.
	CtxSbToString = 0x1f8

	// CtxStrConcat is the address of the string concatenation routine,
	// called by native code for String::Concat(string, string): RDI and
	// RSI are the strings (either may be null), RDX the method table of
	// System.String. It returns in RAX the result, or 0 when the base
	// library method must run instead (both empty, or a new string that
	// is not below StrConcatMaxBytes or does not fit below
	// CtxHeapLimit), with RDI and RSI unchanged. A new string is
	// bump-allocated at CtxHeapTop. It clobbers only RAX, RCX, RDX, RSI,
	// RDI, R8 and R9, never exits and is no safepoint.
	CtxStrConcat = 0x1d0

	// CtxStrEquals is the address of the string equality routine, called
	// by native code for String::op_Equality and op_Inequality: RDI and
	// RSI are the strings (either may be null); it returns EAX = 1 if they
	// are the same reference or both non-null with the same characters,
	// else 0. It clobbers only RAX, RCX, RDX, RSI and RDI, touches neither
	// the heap nor the stack below its return address, and is no
	// safepoint.
	CtxStrEquals = 0x1d8

	// CtxSize is the size of the context block in bytes.
	CtxSize = 0x200
)

// Exit codes, stored at CtxExitCode by native code before it enters the exit
// stub.
const (
	// ExitNone is what the Go loop stores before every resume; seeing it
	// after an exit means native code entered the exit stub without setting
	// a code, and Call fails.
	ExitNone = 0
	// ExitReturn: the entry frame returned (through the return stub); the
	// result is in RAX (and XMM0).
	ExitReturn = 1
	// ExitPoll: a loop back edge saw CtxPoll at or below zero. The loop
	// checks the Go context, yields the processor, resets CtxPoll and
	// resumes.
	ExitPoll = 2
	// ExitStackOverflow: a prolog's stack check failed. Call returns a
	// *StackOverflowError; the frames on the native stack are abandoned.
	ExitStackOverflow = 3
	// ExitCompile: a prestub was called; CtxExitArg is the method index.
	// Delivered to the ExitHandler.
	ExitCompile = 4
	// Codes 5 .. ExitHelperBase-1 are reserved for runtime exits (throw and
	// the like); they are delivered to the ExitHandler too.

	// ExitStackLimit is delivered to the ExitHandler when a method
	// prolog's stack check failed against CtxStackLimit while the frame is
	// still above CtxStackHard: the soft limit the runtime set to check
	// call depth (Machine.SetStackLimit). The handler either returns an
	// error (the run overflows) or resumes, usually after lowering the
	// limit; the code then continues as if the check had passed. The
	// value compared is Machine.StackCheckValue.
	ExitStackLimit = 6
	// ExitCheckpoint is the exit of the checkpoint stub: a frame whose
	// return address the runtime replaced to count call depth returned.
	ExitCheckpoint = 7
	// ExitStubBuiltin is the exit of the stub through which a vtable calls
	// a virtual base library method (CtxExitArg = its il.BuiltinKind).
	ExitStubBuiltin = ExitHelperBase - 1

	// ExitHelperBase is the first code for helper calls; codes at or above
	// it are delivered to the ExitHandler.
	ExitHelperBase = 16
)

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
	// HelperBuiltin: CtxExitArg = the method's il.BuiltinKind; arguments
	// in the argument registers as for a managed call; result in RAX or
	// XMM0.
	HelperBuiltin
	// HelperFRem: XMM0 = a, XMM1 = b (float64); XMM0 = the C# remainder.
	HelperFRem
	// HelperF2U8: XMM0 = float64; RAX = CoreCLR's unchecked conversion to
	// uint64.
	HelperF2U8
	// HelperRethrow: rethrow the exception of the running catch (or filter
	// handler) of IL clause CtxExitArg in the frame that makes the exit:
	// the catch that lexically encloses the rethrow, whose funclet or one
	// nested in it makes the exit. Does not return.
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

// System.Text.StringBuilder's layout (il/stringbuilder.go): an object of
// two hidden fields, its buffer (a char[] whose length is the capacity)
// and the number of units in use (int64).
const (
	SbChars  = ObjFields     // il.StringBuilderCharsField
	SbLength = ObjFields + 8 // il.StringBuilderLengthField
)

// StrConcatMaxBytes bounds the strings the concatenation routine
// (CtxStrConcat) allocates: half the smallest nursery, below the size from
// which the collector puts objects in the old generation.
const StrConcatMaxBytes = 2 << 10

// A string is laid out as an array of char: the JIT reads its length and
// characters with the array operations (ir.OpArrLen, ir.OpLdElem). These
// fail to compile if the layouts part.
var (
	_ = [1]int{}[StrLen-ArrLen]
	_ = [1]int{}[StrData-ArrData]
)

// Method table layout. Method tables live in managed (non-Go) memory.
const (
	MTBase   = 0 // base class method table (0 for System.Object)
	MTTypeID = 8 // index of the type in the runtime's type list
	// MTITab is the address of the type's interface table: one word per
	// interface of the module (il.Class.IfaceIndex), the address of the
	// code addresses of the methods implementing that interface's slots
	// (0: not implemented). 0 for a type that implements none.
	MTITab = 16
	// MTElem is, for an array type whose elements are references, the
	// method table of the element type (the array store check compares
	// it with the stored object's); 0 for other types.
	MTElem     = 24
	MTVTable   = 32 // first virtual slot: the code address of the slot's method
	MTSlotSize = 8
)

// ExitName names an exit or helper code for dumps: "poll", "NewArr", ...
func ExitName(code int) string {
	names := map[int]string{
		ExitReturn: "return", ExitPoll: "poll", ExitStackOverflow: "stack overflow", ExitCompile: "compile",
		ExitFuncletReturn: "funclet return", ExitStackLimit: "stack limit", ExitCheckpoint: "checkpoint",
		ExitStubBuiltin: "builtin (virtual)",
		HelperAlloc:     "Alloc", HelperNewArr: "NewArr", HelperBox: "Box", HelperIsInst: "IsInst",
		HelperTypeIs: "TypeIs", HelperCanStore: "CanStore", HelperThrow: "Throw", HelperThrowNew: "ThrowNew",
		HelperBuiltin: "Builtin", HelperFRem: "FRem", HelperF2U8: "F2U8", HelperRethrow: "Rethrow",
	}
	if n, ok := names[code]; ok {
		return n
	}
	return fmt.Sprintf("exit %d", code)
}
