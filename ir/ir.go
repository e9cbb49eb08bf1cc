// Package ir is the JIT's intermediate representation: a method is a list
// of basic blocks of instructions over virtual registers. Every implicit
// exception of the IL is an explicit compare-and-branch to a throw block,
// so the only ways out of a block are its terminator. It is internal to
// miniil: no compatibility promise.
//
// Virtual registers are numbered per function: arguments first, then
// locals, then temporaries. A register has one kind for its whole life.
package ir

import (
	"fmt"
	"math"

	"miniil/il"
)

// Kind is the machine kind of a virtual register.
type Kind uint8

// Register kinds. Native int is I64 on amd64. Float32 values have their
// own kind because, as in RyuJIT, float32 op float32 is computed in single
// precision; mixing float32 with float64 widens to float64.
//
// Ref is an object reference: null or the start of an object. Ptr is a
// managed pointer (CoreCLR's byref, which its GC info calls "interior"):
// null or an address inside an object, on the stack or in the statics;
// the address of a value-type value is one too. The code generator
// treats Ptr as it treats I64 (one 8-byte word in a general purpose
// register); the distinction is for the GC information, which reports
// Ref values as references, Ptr values as interior pointers and I64
// values not at all.
const (
	I32 Kind = iota + 1
	I64
	F32
	F64
	Ref
	Ptr
)

func (k Kind) String() string {
	switch k {
	case I32:
		return "i32"
	case I64:
		return "i64"
	case F32:
		return "f32"
	case F64:
		return "f64"
	case Ref:
		return "ref"
	case Ptr:
		return "ptr"
	}
	return "?"
}

// KindOf returns the register kind that holds values of type t.
func KindOf(t *il.Type) Kind {
	switch t.Kind {
	case il.KBool, il.KChar, il.KI1, il.KU1, il.KI2, il.KU2, il.KI4, il.KU4:
		return I32
	case il.KI8, il.KU8, il.KI, il.KU:
		return I64
	case il.KR4:
		return F32
	case il.KR8:
		return F64
	case il.KValue, il.KByRef:
		// A value type's value is handled through its address: a frame
		// block, an argument's copy, a field or an element.
		return Ptr
	}
	return Ref
}

// IsFloat reports whether k is F32 or F64.
func (k Kind) IsFloat() bool { return k == F32 || k == F64 }

// IsGC reports whether values of kind k are seen by the garbage
// collector: Ref (references) and Ptr (interior pointers).
func (k Kind) IsGC() bool { return k == Ref || k == Ptr }

// Value is a virtual register number; NoValue means none.
type Value int32

// NoValue marks an absent operand or result.
const NoValue Value = -1

func (v Value) String() string {
	if v == NoValue {
		return "_"
	}
	return fmt.Sprintf("v%d", v)
}

// Op is an IR operation.
type Op uint8

// Operations. Unless said otherwise, Dst receives the result and Args are
// the operands.
const (
	OpInvalid Op = iota

	// Values.
	OpConst // Dst = Aux.Int (I32, I64), Aux.Float() (F32, F64) or null (Ref)
	OpStr   // Dst = the string object for *Aux.Str
	OpCopy  // Dst = Args[0]

	// Arithmetic on Kind (I32, I64 or F64). Division and remainder are
	// only reached once the reader's checks passed.
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpDivUn
	OpRem
	OpRemUn
	OpAnd
	OpOr
	OpXor
	OpShl
	OpShr
	OpShrUn
	OpNeg
	OpNot
	// Checked arithmetic: Dst = result, Dst2 = 1 if it overflowed
	// (Aux.Unsigned selects the unsigned rules).
	OpAddOvf
	OpSubOvf
	OpMulOvf

	// OpCmp: Dst(I32) = Args[0] Aux.Cond Args[1] (0 or 1).
	OpCmp

	// OpConv converts Args[0] to Aux.Type (an il primitive type) without
	// checks: truncation, extension, int<->float as the CLR does. With
	// Aux.Unsigned the source is treated as unsigned (conv.r.un, and the
	// .un overflow conversions after their checks).
	OpConv

	// Objects and statics.
	OpLdField  // Dst = Args[0].Aux.Field (object checked non-null)
	OpStField  // Args[0].Aux.Field = Args[1]
	OpLdStatic // Dst = Aux.Field
	OpStStatic // Aux.Field = Args[0]
	OpAlloc    // Dst = new zeroed instance of Aux.Class
	OpIsInst   // Dst = Args[0] if it is an instance of Aux.Type, else null
	OpBox      // Dst = boxed Args[0] of primitive Aux.Type
	OpUnbox    // Dst = the value in box Args[0] (checked to be a boxed Aux.Type)
	OpTypeIs   // Dst(I32) = 1 if non-null Args[0] is exactly a boxed Aux.Type (unbox check)

	// Arrays (operands checked by the reader).
	OpNewArr   // Dst = new Aux.Type[] of length Args[0] (I64, checked >= 0)
	OpArrLen   // Dst(I64) = length of array (or string) Args[0]
	OpLdElem   // Dst = Args[0][Args[1]] with element type Aux.Type (char for a string)
	OpStElem   // Args[0][Args[1]] = Args[2] with element type Aux.Type
	OpCanStore // Dst(I32) = 1 if Args[1] (a reference) may be stored in array Args[0]

	// Addresses and memory: managed pointers and value types. An address
	// is a Ptr; a value of a value type is Type.Words() 8-byte words at
	// an address.
	OpSlotAddr   // Dst(Ptr) = the address of frame block Aux.Int (Func.Slots)
	OpStaticAddr // Dst(Ptr) = the address of static Aux.Field
	OpLea        // Dst(Ptr) = Args[0] (a reference or an address) + Aux.Int
	OpFieldAddr  // Dst(Ptr) = the address of instance field Aux.Field of object Args[0] (checked non-null)
	OpBoxData    // Dst(Ptr) = the address of the value in box Args[0] (checked non-null)
	OpElemAddr   // Dst(Ptr) = the address of element Args[1] (I64, checked) of array Args[0], of type Aux.Type
	OpLoad       // Dst = the Aux.Type (no value type) at Args[0] + Aux.Int
	OpStore      // the Aux.Type at Args[0] + Aux.Int = Args[1]
	OpCopyBlk    // copy Aux.Int words from address Args[1] to address Args[0]
	OpZeroBlk    // zero Aux.Int words at address Args[0]

	// Calls. Args are the arguments (this first).
	OpCall     // Dst = Aux.Method(Args...) (Dst NoValue for void)
	OpCallVirt // like OpCall, dispatched through the vtable of Args[0]

	// OpCatchArg: Dst = the exception object a catch or filter funclet
	// receives (its first instruction).
	OpCatchArg

	// OpDepthCheck is the call-depth check of an inlined call, at the
	// start of its body: a call Aux.Int deep in inlined calls counts as
	// that many frames more than the method's own (see jitrt's call
	// depth), so its check exits to the runtime when the stack is deep
	// enough that the limit could be passed.
	OpDepthCheck

	// Terminators.
	OpJump   // goto Succs[0]
	OpIf     // if Args[0] != 0 goto Succs[0] else Succs[1]
	OpSwitch // goto Succs[Args[0]] if in range, else the last successor
	OpRet    // return Args[0] (none for void)
	OpThrow  // throw Args[0] (checked non-null by the reader)
	// OpThrowHelper raises an implicit exception of class Aux.Class; for
	// InvalidCastException Args hold the object and Aux.Type is the target.
	OpThrowHelper
	// Exception-handling terminators.
	OpCallFinally // call the finally funclet of clause Aux.Int, then goto Succs[0]
	OpCatchRet    // return from a catch funclet, resuming at Succs[0] (in the parent)
	OpEndFinally  // return from a finally or fault funclet
	OpEndFilter   // return Args[0] from a filter funclet
	OpRethrow     // rethrow the exception of the catch of IL clause Aux.Int

	numOps
)

// NumOps is the number of operations: a table indexed by Op has this
// length.
const NumOps = int(numOps)

var opNames = [numOps]string{
	OpInvalid: "invalid", OpConst: "const", OpStr: "str", OpCopy: "copy",
	OpAdd: "add", OpSub: "sub", OpMul: "mul", OpDiv: "div", OpDivUn: "div.un",
	OpRem: "rem", OpRemUn: "rem.un", OpAnd: "and", OpOr: "or", OpXor: "xor",
	OpShl: "shl", OpShr: "shr", OpShrUn: "shr.un", OpNeg: "neg", OpNot: "not",
	OpAddOvf: "add.ovf", OpSubOvf: "sub.ovf", OpMulOvf: "mul.ovf",
	OpCmp: "cmp", OpConv: "conv",
	OpLdField: "ldfield", OpStField: "stfield", OpLdStatic: "ldstatic", OpStStatic: "ststatic",
	OpAlloc: "alloc", OpIsInst: "isinst", OpBox: "box", OpUnbox: "unbox", OpTypeIs: "typeis",
	OpNewArr: "newarr", OpArrLen: "arrlen", OpLdElem: "ldelem", OpStElem: "stelem", OpCanStore: "canstore",
	OpSlotAddr: "slotaddr", OpStaticAddr: "staticaddr", OpLea: "lea", OpElemAddr: "elemaddr",
	OpFieldAddr: "fieldaddr", OpBoxData: "boxdata",
	OpLoad: "load", OpStore: "store", OpCopyBlk: "copyblk", OpZeroBlk: "zeroblk",
	OpCall: "call", OpCallVirt: "callvirt", OpCatchArg: "catcharg", OpDepthCheck: "depthcheck",
	OpCallFinally: "callfinally", OpCatchRet: "catchret", OpEndFinally: "endfinally", OpEndFilter: "endfilter", OpRethrow: "rethrow",
	OpJump: "jump", OpIf: "if", OpSwitch: "switch", OpRet: "ret", OpThrow: "throw", OpThrowHelper: "throwhelper",
}

func (op Op) String() string {
	if op < numOps {
		return opNames[op]
	}
	return "op?"
}

// IsTerminator reports whether op ends a block.
func (op Op) IsTerminator() bool { return op >= OpJump && op < numOps }

// Cond is a comparison.
type Cond uint8

// Comparisons. The unsigned forms compare integers as unsigned and, for
// floats, are true when the operands are unordered (NaN), as cgt.un and
// clt.un are; the ordered float forms are false on NaN.
const (
	Eq Cond = iota
	Ne      // also true on unordered floats (bne.un)
	Lt
	Le
	Gt
	Ge
	LtUn
	LeUn
	GtUn
	GeUn
)

var condNames = [...]string{"eq", "ne", "lt", "le", "gt", "ge", "lt.un", "le.un", "gt.un", "ge.un"}

func (c Cond) String() string { return condNames[c] }

// Aux holds an instruction's non-register operands. Every instruction
// has one, so it is kept small: a float constant is held as its IEEE 754
// bits in Int (FloatAux, Float), and the one reference operand an
// instruction may have besides Type (a string constant's *string, a
// field, a method or a class) shares Ref, read through Str, Field,
// Method and Class.
type Aux struct {
	Int      int64
	Type     *il.Type
	Ref      any // *string (OpStr, StrAux), *il.Field, *il.Method or *il.Class
	Cond     Cond
	Unsigned bool
}

// Str returns OpStr's string (nil if Ref is not one).
func (a *Aux) Str() *string { s, _ := a.Ref.(*string); return s }

// Field returns the field operand (nil if Ref is not one).
func (a *Aux) Field() *il.Field { f, _ := a.Ref.(*il.Field); return f }

// Method returns the method operand (nil if Ref is not one).
func (a *Aux) Method() *il.Method { m, _ := a.Ref.(*il.Method); return m }

// Class returns the class operand (nil if Ref is not one).
func (a *Aux) Class() *il.Class { c, _ := a.Ref.(*il.Class); return c }

// FloatAux returns the Aux of a float constant f.
func FloatAux(f float64) Aux { return Aux{Int: int64(math.Float64bits(f))} }

// Float returns the value of a float constant (OpConst of kind F32 or
// F64).
func (a Aux) Float() float64 { return math.Float64frombits(uint64(a.Int)) }

// StrAux returns the Aux of the string constant s, holding it in c's
// memory (new memory when c is nil).
func StrAux(c *Cache, s string) Aux {
	p := &Make[string](c, 1)[0]
	*p = s
	return Aux{Ref: p}
}

// Instr is one IR instruction.
type Instr struct {
	Op   Op
	Kind Kind // operation kind (operand kind for OpCmp)
	Dst  Value
	Dst2 Value // overflow flag of the checked arithmetic ops
	// Inline is the inlined call the instruction belongs to: 0 for the
	// method's own code, k for Func.Inlines[k-1], whose method ILOffset
	// is an offset of.
	Inline   int32
	Args     []Value
	Aux      Aux
	ILOffset int32 // IL offset of the instruction this came from
}

// Block is a basic block: instructions, then one terminator.
type Block struct {
	ID       int
	Instrs   []*Instr
	Term     *Instr
	Succs    []*Block
	Preds    []*Block
	ILOffset int     // IL offset where the block starts (-1 for reader-made blocks)
	Cold     bool    // a throw block: laid out after the hot code of its region
	Region   *Region // innermost EH region containing the block (nil: none)
}

// Each yields the block's instructions followed by its terminator, as
// Code does but without copying them: for in := range b.Each { ... }.
// The block must not change while it yields.
func (b *Block) Each(yield func(*Instr) bool) {
	for _, in := range b.Instrs {
		if !yield(in) {
			return
		}
	}
	yield(b.Term)
}

// Code returns the block's instructions followed by its terminator, in a
// new slice (b.Instrs is never appended to).
func (b *Block) Code() []*Instr {
	return append(append(make([]*Instr, 0, len(b.Instrs)+1), b.Instrs...), b.Term)
}

// RegionKind is the kind of an exception-handling region.
type RegionKind uint8

// Region kinds.
const (
	RegionTry           RegionKind = iota // a protected block
	RegionCatch                           // a catch handler
	RegionFilter                          // the filter part of a filter clause
	RegionFilterHandler                   // the handler part of a filter clause
	RegionFinally                         // a finally handler
	RegionFault                           // a fault handler
)

func (k RegionKind) String() string {
	return [...]string{"try", "catch", "filter", "filter-handler", "finally", "fault"}[k]
}

// Region is a try body, handler or filter. Regions nest: Parent is the
// innermost region containing this one. Clause is the index of the IL
// clause (Method.EH) the region belongs to (for a try shared by several
// clauses, the first of them).
type Region struct {
	ID     int
	Kind   RegionKind
	Parent *Region
	Clause int
	Entry  *Block // for handlers and filters: the funclet's entry block
	// Depth is the number of regions enclosing this one (0: outermost),
	// set by Func.IndexRegions.
	Depth int

	// Set by Func.IndexRegions: the region's position in a preorder walk
	// of the region tree, the size of its subtree, and the innermost
	// handler containing it.
	indexed bool
	pre     int
	size    int
	funclet *Region
}

// IsHandler reports whether the region is code that runs as a funclet.
func (r *Region) IsHandler() bool { return r.Kind != RegionTry }

// Funclet returns the innermost handler or filter region containing r
// (r itself if it is one), or nil for code of the main body. It takes
// constant time once the regions are indexed (Func.IndexRegions).
func (r *Region) Funclet() *Region {
	if r != nil && r.indexed {
		return r.funclet
	}
	for ; r != nil; r = r.Parent {
		if r.IsHandler() {
			return r
		}
	}
	return nil
}

// Contains reports whether r is o or encloses it. It takes constant time
// once the regions are indexed (Func.IndexRegions).
func (r *Region) Contains(o *Region) bool {
	if o == nil {
		return false
	}
	if r.indexed && o.indexed {
		return r.pre <= o.pre && o.pre < r.pre+r.size
	}
	for ; o != nil; o = o.Parent {
		if o == r {
			return true
		}
	}
	return false
}

// IndexRegions sets each region's Depth and indexes the region tree so
// that Contains and Funclet answer in constant time; it takes time linear
// in the number of regions. f.Regions must list every region after its
// parent, and the Parent links must not change afterwards.
func (f *Func) IndexRegions() error {
	rs := f.Regions
	for _, r := range rs {
		r.indexed, r.size = false, 1
	}
	for _, r := range rs {
		if p := r.Parent; p != nil && !p.indexed {
			for _, r := range rs {
				r.indexed = false
			}
			return fmt.Errorf("%s: region %d is not listed after its parent %d", f.Method.FullName(), r.ID, p.ID)
		}
		r.indexed = true
	}
	// Subtree sizes, children before parents.
	for i := len(rs) - 1; i >= 0; i-- {
		if p := rs[i].Parent; p != nil {
			p.size += rs[i].size
		}
	}
	// Preorder positions, parents before children: each region takes the
	// next free position in its parent's subtree.
	used := make(map[*Region]int, len(rs)) // positions taken below each region
	roots := 0
	for _, r := range rs {
		if p := r.Parent; p == nil {
			r.pre, r.Depth, r.funclet = roots, 0, nil
			roots += r.size
		} else {
			r.pre, r.Depth, r.funclet = p.pre+1+used[p], p.Depth+1, p.funclet
			used[p] += r.size
		}
		if r.IsHandler() {
			r.funclet = r
		}
	}
	return nil
}

// Func is a method in IR form. Blocks[0] is the entry.
type Func struct {
	Method  *il.Method
	Blocks  []*Block
	Regions []*Region // every EH region, outer ones before the ones they contain
	Kinds   []Kind    // kind of each virtual register
	// NumArgs and NumLocals give the register ranges: arguments are
	// 0..NumArgs-1, locals NumArgs..NumArgs+NumLocals-1, then temporaries.
	NumArgs   int
	NumLocals int
	// Slots are the frame blocks OpSlotAddr addresses, by the type of
	// what each holds: value-type locals and temporaries, and variables
	// whose address the method takes (one word of a primitive or
	// reference type). SlotWords and SlotRefWords give their layout.
	Slots []*il.Type
	// ZeroSlots are the blocks the prolog zeroes (the locals').
	ZeroSlots []int
	// Inlines lists the calls whose callee's code was inlined: an
	// instruction with Inline k came from the method of Inlines[k-1].
	Inlines []InlineSite
	// Untracked lists GC values (in increasing order) that the GC
	// information reports at every safepoint whatever their liveness
	// (CoreCLR's untracked), besides those the code generator finds
	// shared with funclets: opt.MarkUntracked records them before the
	// passes that remove what made them so (a call of a finally, a
	// handler's use), so the collector sees what it did before.
	Untracked []Value
	// Cache is where the function and the passes over it take memory
	// that lives only as long as the compile (nil: they allocate).
	Cache *Cache
}

// InlineSite is a call whose callee's body the inliner copied into the
// function: the callee, and where the call was, in the method's own code
// (Parent 0) or in the body of another inlined call (Inlines[Parent-1]).
// Stack traces show the inlined method as a frame of its own.
type InlineSite struct {
	Method   *il.Method
	Parent   int32
	ILOffset int // the call's IL offset, in the parent's method
}

// InlineDepth returns the number of inlined calls instruction context k
// (an Instr.Inline) is nested in: 0 for the method's own code.
func (f *Func) InlineDepth(k int32) int {
	d := 0
	for ; k > 0; k = f.Inlines[k-1].Parent {
		d++
	}
	return d
}

// InlineMethod returns the method whose code instruction context k (an
// Instr.Inline) is: f.Method for 0.
func (f *Func) InlineMethod(k int32) *il.Method {
	if k == 0 {
		return f.Method
	}
	return f.Inlines[k-1].Method
}

// RetBuf returns the argument holding the address where a method
// returning a value type stores its result: an extra last argument, to
// which callers pass a block of their frame (NoValue when the method
// returns no value type).
func (f *Func) RetBuf() Value {
	if f.Method == nil || f.Method.Ret.Kind != il.KValue {
		return NoValue
	}
	return Value(f.Method.NumArgs())
}

// NewSlot adds a frame block holding a value of type t and returns its
// index.
func (f *Func) NewSlot(t *il.Type) int {
	f.Slots = append(f.Slots, t)
	return len(f.Slots) - 1
}

// SlotWords returns the size of frame block i in 8-byte words.
func (f *Func) SlotWords(i int) int { return f.Slots[i].Words() }

// SlotRefWords returns the words of frame block i that hold object
// references (in increasing order).
func (f *Func) SlotRefWords(i int) []int {
	switch t := f.Slots[i]; {
	case t.IsRef():
		return oneRefWord
	case t.Kind == il.KValue && t.Class != nil:
		return t.Class.RefWords
	}
	return nil
}

var oneRefWord = []int{0}

// NewValue allocates a temporary of kind k.
func (f *Func) NewValue(k Kind) Value {
	f.Kinds = Append(f.Cache, f.Kinds, k)
	return Value(len(f.Kinds) - 1)
}

// BlockIDs returns a bound on f's block IDs (every ID is below it), for
// arrays indexed by block ID.
func (f *Func) BlockIDs() int {
	n := len(f.Blocks)
	for _, b := range f.Blocks {
		n = max(n, b.ID+1)
	}
	return n
}

// NewBlock appends a new empty block.
func (f *Func) NewBlock(ilOffset int) *Block {
	b := &Make[Block](f.Cache, 1)[0]
	b.ID, b.ILOffset = len(f.Blocks), ilOffset
	f.Blocks = Append(f.Cache, f.Blocks, b)
	return b
}
