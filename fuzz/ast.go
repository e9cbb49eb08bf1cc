// Package fuzz is miniil's differential fuzzer: a random program
// generator that builds an AST of nested regions and lowers it to valid
// mini MSIL, a runner that compares the JIT, the interpreter and
// optionally ilasm+mono on the generated programs, and a reducer that
// shrinks a mismatching program while the mismatch persists. It is
// internal to miniil: no compatibility promise (use it through
// `miniil fuzz`).
//
// Generated programs are deterministic per seed, terminate quickly
// (counted loops, an acyclic call graph, a static cost budget), never
// let an exception go unhandled (a catch [mscorlib]System.Object around
// the entry point's body), and print a checksum trace: every handler
// entry prints its id, the exception's type and a running hash, so the
// first differing line of two outputs shows where two engines diverge.
//
// Comparing with Mono: outputs agree except where MINIIL.md names a
// difference. Programs never print floats (Mono prints float64
// differently: float64 fields reach the hash through conv.i8) nor
// exception messages, and nothing goes unhandled. The
// remaining difference, an exception escaping a filter (Mono lets it
// through), is avoided by Options.MonoSafe, which the runner's -mono
// mode sets: nothing inside a filter can throw (no throw statements or
// regions, only non-throwing expressions, calls only to methods that
// cannot throw). MonoSafe also avoids the int64 constant -2^31, which
// Mono 6.8 multiplies with the wrong sign; converts with conv.ovf.u8
// only int32 variables and constants (Mono 6.8 zero-extends an int32
// computed by arithmetic instead of throwing); keeps int32 shl and shr
// counts in [0, 31]: Mono 6.8 folds those shifts (of constants, also
// ones it propagates from locals) masking the count by 63, not 31; makes
// int32 shr counts literals (Mono 6.8 shifts an int32 it folds from an
// overflowing operation untruncated by a count it computes);
// takes sizeof only of value types without references (Mono lays those
// out in declaration order, CoreCLR references first); never reaches a
// value type holding references through a pointer local, reads through
// one with ldflda rather than ldfld of nested values, and passes none by
// reference (Mono crashes on ldobj, ldfld, stobj and cpobj of such a
// value at a null address); and takes the address of a field through a
// pointer local only to read it (Mono does not null-check ldflda through
// a pointer, so its exception would come later).
//
// Arrays: a static int32[5] arr, and a static jagged int32[][] jag whose
// rows start as an int32[4], null and arr (aliased; an int32[2] when
// the program does not use arr), and which the
// program reads and writes through rows that may be null or too short
// and replaces by null, new rows, arr or a string the store check
// refuses (ArrayTypeMismatchException).
//
// Every binary operator (arithmetic, bitwise, shifts, division,
// comparisons, compare-and-branch, checked arithmetic) gets constant
// operands on either side, often edge values (0, 1, -1, the minimum and
// maximum); shift counts are constants inside, at and beyond the operand
// width, negative and large, or expressions masked to the width, masked
// wider or not at all; a guarded division by a constant that cannot
// throw keeps it, so the JIT sees constant divisors too, of every kind
// (divisorConstPct, int64Divisors, random ones of any length).
//
// Interface calls: a fixed interface IOp { int32 Apply(int32) }
// implemented by OpAdd, by OpMul through its base class OpAdd (an
// override) and by OpDiv (which divides by zero for some arguments), with
// objects in a static IOp[] whose slot 3 starts null; expressions call
// Apply through the interface on slots that cannot throw, and, among the
// risky nodes, on any slot (NullReferenceException, or a
// DivideByZeroException thrown inside Apply); statements store new
// objects or null into the slots that may throw.
//
// Static constructors: in most programs the static variables are fields
// of a class St whose static constructor sets their initial values; a
// precise St also mixes the running hash, so the output shows where it
// ran (at the first access, which may be in any handler or filter), and
// a beforefieldinit one does not (Mono runs those earlier). Among the
// risky nodes, a read of Bad::v fails: Bad's static constructor mixes the
// hash and throws, so the first read throws a TypeInitializationException
// and every later one the same again.
//
// Value types and managed pointers (value.go): one to three value types
// per program (int32, int64, float64, object and small integer fields,
// sometimes a nested value type, sometimes more than 16 words or three),
// each with a constructor, a Step that mutates it through this and a
// Hash of every field; value-type locals, parameters, results, statics,
// fields of a class and array elements (ldelem, stelem, ldelema, an
// index out of range); box, unbox, unbox.any (InvalidCastException from
// a box of another type) and isinst; initobj, ldobj, stobj, cpobj and
// sizeof; managed pointers to every kind of location (variables,
// fields, elements of arr and of jag's rows, statics, what pointer
// locals and byref parameters point to) read and written with every
// ldind and stind width, byref parameters of int32, int64, float64,
// object and value types, and pointer locals that stay null until set
// (NullReferenceException). Value trys mutate a value-type location in
// a try, directly and through the byref arguments of a call that may
// throw after writing, read it in the catch, filter (a field), finally
// or fault handler, copy it there and read the copy after. Stores may
// read back what they stored, methods hash their value-type locals and
// parameters at their end and the program its value-type statics, so
// a wrong copy shows in the checksum.
//
// Allocation (alloc.go): Options.Alloc percent of the programs (25, 35
// and 60 for small, medium and large; 100 with miniil fuzz -alloc)
// allocate heavily, for the garbage collector: loops of thousands of
// nodes with strings (Int32::ToString, String::Concat, StringBuilder),
// int32[], Node[] and Pair[] arrays and boxes, keeping some in every kind
// of location (locals, Node parameters, statics, array elements, next
// fields of older nodes, reference fields of value-type locals, statics,
// array elements and of nodes); lists built by a helper; managed
// pointers into nodes and arrays held across allocation; an exception
// class with a Node payload thrown, caught and read; walks of the
// structures mixed into the checksum. The root method's statements are
// guarded by catches, so that the allocation runs; a program not chosen
// is the one the generator makes without the feature.
//
// Shapes (shapes.go): Options.Shapes percent of the programs (70 for
// every size; 0 with miniil fuzz -shapes 0 gives the programs of the
// generator before the feature) hold the code shapes the JIT's
// optimizations change: loops over int32[] locals bounded by their
// length (read at every test or before the loop, from 0, 1 or 2, up or
// down, one step out of range, nested, the array null, empty, aliased
// or replaced in the body, the index read after the loop), small leaf
// methods (static and instance, some that throw, on a null this) called
// in loops and straight-line code, division by constants, trys in loop
// bodies, the same address read twice and isinst/castclass chains on
// values of a known type.
//
// API: Generate(seed, Options) builds the AST, Program.IL lowers it;
// Runner runs one program on every engine and Mismatch compares the
// outcomes; Campaign runs many seeds; Reducer shrinks a mismatch.
package fuzz

// Type is the stack type of an expression or variable.
type Type uint8

const (
	I4 Type = iota // int32
	I8             // int64
)

func (t Type) il() string {
	if t == I8 {
		return "int64"
	}
	return "int32"
}

// VarKind says where a variable lives.
type VarKind uint8

const (
	Local  VarKind = iota // an int32 (lN) or int64 (wN) local
	Arg                   // a parameter (aN)
	Static                // a global static field (sN int32, gN int64)
)

// Var is a readable and writable integer variable.
type Var struct {
	Kind  VarKind
	Index int
	T     Type
}

// Program is the AST of one generated program. Methods[0] is the root
// that the entry point calls inside its catch-all; a method only calls
// methods with a larger index (the call graph is acyclic).
type Program struct {
	Seed    uint64
	Opts    Options
	Methods []*Method
	Structs []*StructDef // value types V0, V1, ... (see value.go)
	// Simplifications only the reducer sets:
	NoCatchAll  bool // no catch-all around the entry point's body
	NoMix       bool // no running hash: Mix prints or drops its value, handlers do not mix
	NoEnter     bool // handler entries print nothing (finally/fault: no trace)
	NoEnd       bool // the entry point prints no final hash and returns 0
	InlineEnter bool // handler entries print inline instead of calling enter
	InlineRoot  bool // the entry point holds m0's body instead of calling it
	NoValueHash bool // no hashes of value-type locals and parameters at a method's end, nor of value-type statics at the program's
	NoRefHash   bool // no hashes of Node and Pair locals and parameters at a method's end, nor of the allocation statics at the program's
	NextID      int  // next free region/handler id (for edits that add none; informative)
	// Cctor says where the static variables live: global fields
	// (NoCctor), or fields of a class St whose static constructor sets
	// them to CctorInit (s0..s2, then g0..g1) when the program first
	// uses one, mixing the running hash as it runs (PreciseCctor), or
	// without mixing (LazyCctor: beforefieldinit, which Mono runs
	// earlier).
	Cctor     CctorKind
	CctorInit [nStaticI4 + nStaticI8]int64
	// Fns are the small methods of the shapes feature (shapes.go), Sm
	// the class of the instance ones (sealed when SmSealed).
	Fns      []*SmallFn
	SmSealed bool
}

// CctorKind is where a program's static variables live (Program.Cctor).
type CctorKind uint8

const (
	NoCctor      CctorKind = iota // global static fields
	PreciseCctor                  // fields of St, whose .cctor mixes the hash
	LazyCctor                     // fields of a beforefieldinit St
)

// Method is one static method m<Index>. Its parameters are Params
// (a0, ...), then SParams (sa0, ...), then RParams (ra0, ...), then
// OParams Node parameters (oa0, ...).
type Method struct {
	Params  []Type
	Ret     bool // returns int32 (RetExpr at the end), else void (or RetS)
	RetExpr Expr
	NI4     int // int32 locals l0..
	NI8     int // int64 locals w0..
	Body    []Stmt

	SParams  []int   // value-type parameters sa0..: their value types
	RParams  []FType // byref parameters ra0..: their targets' types
	SLocals  []int   // value-type locals v0..: their value types
	PLocals  []FType // pointer locals p0.. (null until a PSet): their targets' types
	RetS     int     // 1 + the value type the method returns (RetSExpr at the end); 0: none
	RetSExpr SExpr

	OParams int // Node parameters oa0.. (alloc.go)
	OLocals int // Node locals o0..
	QLocals int // Pair locals q0..

	ALocals int // int32[] locals ar0.. (shapes.go)
}

// Expr is an int32 or int64 expression; it leaves one value on the stack.
type Expr interface{ Type() Type }

// Const is ldc.i4 or ldc.i8.
type Const struct {
	T Type
	V int64
}

// Load reads a variable.
type Load struct{ V Var }

// Bin is a binary operator: add sub mul and or xor, the checked
// add.ovf sub.ovf mul.ovf (and .un), the shifts shl shr shr.un (B is an
// int32 count, masked to the operand width when run), and div rem div.un
// rem.un (Guard makes the divisor non-zero and never -1: a constant
// divisor that is neither stays as it is, any other is mapped into
// 2..257, or -257..-2 with Neg).
type Bin struct {
	Op    string
	A, B  Expr
	T     Type
	Guard bool
	Neg   bool // guarded signed div/rem: negate the divisor
}

// Un is neg or not.
type Un struct {
	Op string
	A  Expr
}

// Conv is a conv.* or conv.ovf.* instruction with result type T.
type Conv struct {
	Op string
	A  Expr
	T  Type
}

// Cmp is ceq cgt cgt.un clt clt.un (an int32 0 or 1).
type Cmp struct {
	Op   string
	A, B Expr
}

// CallExpr calls an int32-returning method: Args for Params, SArgs
// for SParams, the addresses of RArgs for RParams and OArgs for
// OParams.
type CallExpr struct {
	Callee int
	Args   []Expr
	SArgs  []SExpr
	RArgs  []*Loc
	OArgs  []RExpr
}

// ArrLoad reads arr[Idx & mask] from the static int32[5] array: mask 3
// is always in range, mask 7 may throw IndexOutOfRangeException.
type ArrLoad struct {
	Idx  Expr
	Safe bool
}

// ArrLen is ldlen of the static array.
type ArrLen struct{}

// JagLoad reads jag[Row & 3][Col & 7] from the static jagged array
// int32[][] jag. Its rows start as an int32[4], null and an int32[2] (the
// static arr when the program uses it, so that stores through either are
// seen through both) until SetRow replaces them, and row 3 is outside
// jag: a load may throw NullReferenceException or
// IndexOutOfRangeException. Token reads with ldelem int32[] and ldelem
// int32 instead of ldelem.ref and ldelem.i4.
type JagLoad struct {
	Row, Col Expr
	Token    bool
}

// JagLen is the length of jag[Row & 3] (NullReferenceException for a null
// row, IndexOutOfRangeException for row 3).
type JagLen struct{ Row Expr }

// BoxField reads bx.v (NullReferenceException when bx is null).
type BoxField struct{}

// CastField reads ((Box)obj).v (InvalidCastException when obj holds a
// boxed int32, NullReferenceException when it is null).
type CastField struct{}

// Unbox reads (int32)obj (InvalidCastException when obj holds a Box).
type Unbox struct{}

// FailedInit reads Bad::v, whose class's static constructor mixes the
// hash and throws: the first read throws a TypeInitializationException
// (around an InvalidOperationException), and so does every later one,
// without running the constructor again.
type FailedInit struct{}

// IfaceCall calls ops[Idx & mask].Apply(Arg) through the interface IOp
// (callvirt instance int32 IOp::Apply(int32)). The static IOp[4] array
// ops holds an OpAdd (x + k) in slot 0, an OpMul (x * k: a subclass of
// OpAdd that overrides its implementation) in slot 1, and, until SetOp
// changes them, an OpDiv (1000 / (x & k): DivideByZeroException when
// that is 0) in slot 2 and null in slot 3 (NullReferenceException).
// Safe uses mask 1: slots 0 and 1 never change and never throw; otherwise
// mask 3.
type IfaceCall struct {
	Idx, Arg Expr
	Safe     bool
}

func (e *Const) Type() Type     { return e.T }
func (e *Load) Type() Type      { return e.V.T }
func (e *Bin) Type() Type       { return e.T }
func (e *Un) Type() Type        { return e.A.Type() }
func (e *Conv) Type() Type      { return e.T }
func (e *Cmp) Type() Type       { return I4 }
func (e *CallExpr) Type() Type  { return I4 }
func (e *ArrLoad) Type() Type   { return I4 }
func (e *ArrLen) Type() Type    { return I4 }
func (e *JagLoad) Type() Type   { return I4 }
func (e *JagLen) Type() Type    { return I4 }
func (e *BoxField) Type() Type  { return I4 }
func (e *CastField) Type() Type { return I4 }
func (e *Unbox) Type() Type     { return I4 }
func (*FailedInit) Type() Type  { return I4 }
func (e *IfaceCall) Type() Type { return I4 }

// Stmt is a stack-neutral statement.
type Stmt interface{ stmt() }

// Assign stores E into a variable.
type Assign struct {
	Dst Var
	E   Expr
}

// Mix folds E into the running hash; Print also writes E on its own line.
type Mix struct {
	E     Expr
	Print bool
}

// Trace folds ID into the hash and prints "t<ID> <hash>".
type Trace struct{ ID int }

// Cond is a branch condition: A alone (brtrue) or A Op B with a
// compare-and-branch op (beq bne.un blt blt.un ...).
type Cond struct {
	Op   string
	A, B Expr
}

// If runs Then when the condition holds, else Else.
type If struct {
	C          Cond
	Then, Else []Stmt
}

// Loop runs Body N times with its own counter local.
type Loop struct {
	ID   int
	N    int
	Body []Stmt
}

// Switch is the switch instruction over E.
type Switch struct {
	E       Expr
	Cases   [][]Stmt
	Default []Stmt
}

// CallStmt calls a method and discards its result (arguments as
// CallExpr's).
type CallStmt struct {
	Callee int
	Args   []Expr
	SArgs  []SExpr
	RArgs  []*Loc
	OArgs  []RExpr
}

// Throw creates and throws an exception of Class: a user class gets
// Code as its int32 field, a built-in one a message string.
type Throw struct {
	Class string
	Code  Expr
}

// ThrowNull is "ldnull throw" (NullReferenceException).
type ThrowNull struct{}

// Rethrow is lowered only lexically inside a catch or filter handler.
type Rethrow struct{}

// Leave jumps to the end of the Try or Loop with id Target (0: the
// method's return). It is lowered as leave when it crosses a region,
// as br otherwise, and dropped if the target is no longer reachable.
type Leave struct{ Target int }

// SetBox sets the static bx to new Box(E), or to null.
type SetBox struct {
	Null bool
	E    Expr
}

// SetObj sets the static obj to box(E), or to bx when FromBox.
type SetObj struct {
	FromBox bool
	E       Expr
}

// StoreElem stores arr[Idx & mask] = E.
type StoreElem struct {
	Idx, E Expr
	Safe   bool
}

// StoreField stores bx.v = E.
type StoreField struct{ E Expr }

// JagStore stores jag[Row & 3][Col & 7] = E (see JagLoad), with stelem
// int32[] and stelem int32 when Token.
type JagStore struct {
	Row, Col, E Expr
	Token       bool
}

// SetRow stores a row into jag[Row & 3] with stelem.ref: null, a new
// int32[Len], the static arr, or a string, which the array store check
// refuses (ArrayTypeMismatchException).
type SetRow struct {
	Row Expr
	Val RowVal
	Len int
}

// RowVal is what SetRow stores.
type RowVal uint8

const (
	RowNull   RowVal = iota // null
	RowNew                  // a new int32[Len]
	RowArr                  // the static int32[] arr
	RowString               // a string: ArrayTypeMismatchException
)

// OpKind is the class of an object SetOp stores in ops.
type OpKind uint8

const (
	OpNull OpKind = iota // null
	OpAdd                // OpAdd: implements IOp
	OpMul                // OpMul: implements IOp through its base class OpAdd
	OpDiv                // OpDiv: implements IOp, may throw
)

// SetOp stores in ops[Slot] (2 or 3) a new object of class Kind with
// field k = E, or null.
type SetOp struct {
	Slot int
	Kind OpKind
	E    Expr
}

// BumpCode adds Delta to the code field of the exception last stored in
// the method's ex local when it is a user exception (inside handlers).
type BumpCode struct{ Delta int32 }

// HandlerKind is the kind of an exception handler.
type HandlerKind uint8

const (
	Catch HandlerKind = iota
	Filter
	Finally
	Fault
)

// Handler is one clause of a Try. A Try has 1-3 Catch handlers, or
// exactly one Filter, Finally or Fault handler (Mono's ilasm rules).
type Handler struct {
	Kind       HandlerKind
	ID         int
	Class      string // catch type
	FilterBody []Stmt // filter: statements run in the filter
	FilterType string // filter: accept only this class ("" any)
	FilterCond Expr   // filter: and only when this int32 is non-zero (nil: true)
	Body       []Stmt
}

// Try is a protected region with its handlers.
type Try struct {
	ID       int
	Body     []Stmt
	Handlers []*Handler
	Layout   Layout
	// Retry is how many times the try's catch or filter handlers may
	// resume in its body (Resume statements), at top-level statement
	// ResumeAt of Body (len(Body): its final leave).
	Retry    int
	ResumeAt int
}

// Layout is where a Try's handlers are placed in the method's code.
type Layout uint8

const (
	// Scoped: .try { } handler { }, each handler right after the try.
	Scoped Layout = iota
	// Before: label-form clauses, the handlers before the try body
	// (jumped over), so they also land between two try bodies.
	Before
	// AfterRet: label-form clauses, the handlers after the method's ret;
	// lowered as Before for a try inside a protected region or handler
	// (a clause nests as a whole).
	AfterRet
)

// Resume is a leave from a catch or filter handler of Try back into that
// try's body, at its ResumeAt statement, taken while the try's resume
// counter (reset each time the try is entered) is below its Retry. It is
// dropped where it is not inside such a handler (or a finally, fault or
// filter lies in between).
type Resume struct{ Try int }

func (*Assign) stmt()     {}
func (*Mix) stmt()        {}
func (*Trace) stmt()      {}
func (*If) stmt()         {}
func (*Loop) stmt()       {}
func (*Switch) stmt()     {}
func (*CallStmt) stmt()   {}
func (*Throw) stmt()      {}
func (*ThrowNull) stmt()  {}
func (*Rethrow) stmt()    {}
func (*Leave) stmt()      {}
func (*SetBox) stmt()     {}
func (*SetObj) stmt()     {}
func (*StoreElem) stmt()  {}
func (*StoreField) stmt() {}
func (*JagStore) stmt()   {}
func (*SetRow) stmt()     {}
func (*SetOp) stmt()      {}
func (*BumpCode) stmt()   {}
func (*Try) stmt()        {}
func (*Resume) stmt()     {}

// Clone returns a deep copy of the program.
func (p *Program) Clone() *Program {
	q := *p
	q.Methods = make([]*Method, len(p.Methods))
	for i, m := range p.Methods {
		mm := *m
		mm.Params = append([]Type(nil), m.Params...)
		mm.SParams = append([]int(nil), m.SParams...)
		mm.RParams = append([]FType(nil), m.RParams...)
		mm.SLocals = append([]int(nil), m.SLocals...)
		mm.PLocals = append([]FType(nil), m.PLocals...)
		mm.RetExpr = cloneExpr(m.RetExpr)
		mm.RetSExpr = cloneSExpr(m.RetSExpr)
		mm.Body = cloneStmts(m.Body)
		q.Methods[i] = &mm
	}
	q.Fns = make([]*SmallFn, len(p.Fns))
	for i, f := range p.Fns {
		c := *f
		c.Params = append([]Type(nil), f.Params...)
		c.Body = cloneExpr(f.Body)
		q.Fns[i] = &c
	}
	q.Structs = make([]*StructDef, len(p.Structs))
	for i, sd := range p.Structs {
		c := *sd
		c.Fields = append([]FType(nil), sd.Fields...)
		q.Structs[i] = &c
	}
	return &q
}

func cloneExprs(es []Expr) []Expr {
	if es == nil {
		return nil
	}
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = cloneExpr(e)
	}
	return out
}

func cloneExpr(e Expr) Expr {
	switch e := e.(type) {
	case nil:
		return nil
	case *Const:
		c := *e
		return &c
	case *Load:
		c := *e
		return &c
	case *Bin:
		c := *e
		c.A, c.B = cloneExpr(e.A), cloneExpr(e.B)
		return &c
	case *Un:
		c := *e
		c.A = cloneExpr(e.A)
		return &c
	case *Conv:
		c := *e
		c.A = cloneExpr(e.A)
		return &c
	case *Cmp:
		c := *e
		c.A, c.B = cloneExpr(e.A), cloneExpr(e.B)
		return &c
	case *CallExpr:
		return &CallExpr{Callee: e.Callee, Args: cloneExprs(e.Args), SArgs: cloneSExprs(e.SArgs), RArgs: cloneLocs(e.RArgs), OArgs: cloneRExprs(e.OArgs)}
	case *ArrLoad:
		return &ArrLoad{Idx: cloneExpr(e.Idx), Safe: e.Safe}
	case *ArrLen:
		return &ArrLen{}
	case *JagLoad:
		return &JagLoad{Row: cloneExpr(e.Row), Col: cloneExpr(e.Col), Token: e.Token}
	case *JagLen:
		return &JagLen{Row: cloneExpr(e.Row)}
	case *BoxField:
		return &BoxField{}
	case *CastField:
		return &CastField{}
	case *Unbox:
		return &Unbox{}
	case *FailedInit:
		return &FailedInit{}
	case *IfaceCall:
		return &IfaceCall{Idx: cloneExpr(e.Idx), Arg: cloneExpr(e.Arg), Safe: e.Safe}
	}
	if c, ok := cloneValueExpr(e); ok {
		return c
	}
	if c, ok := cloneAllocExpr(e); ok {
		return c
	}
	if c, ok := cloneShapeExpr(e); ok {
		return c
	}
	panic("fuzz: unknown expression")
}

func cloneStmts(ss []Stmt) []Stmt {
	if ss == nil {
		return nil
	}
	out := make([]Stmt, len(ss))
	for i, s := range ss {
		out[i] = cloneStmt(s)
	}
	return out
}

func cloneCond(c Cond) Cond {
	return Cond{Op: c.Op, A: cloneExpr(c.A), B: cloneExpr(c.B)}
}

func cloneStmt(s Stmt) Stmt {
	switch s := s.(type) {
	case *Assign:
		return &Assign{Dst: s.Dst, E: cloneExpr(s.E)}
	case *Mix:
		return &Mix{E: cloneExpr(s.E), Print: s.Print}
	case *Trace:
		c := *s
		return &c
	case *If:
		return &If{C: cloneCond(s.C), Then: cloneStmts(s.Then), Else: cloneStmts(s.Else)}
	case *Loop:
		return &Loop{ID: s.ID, N: s.N, Body: cloneStmts(s.Body)}
	case *Switch:
		c := &Switch{E: cloneExpr(s.E), Default: cloneStmts(s.Default)}
		for _, cs := range s.Cases {
			c.Cases = append(c.Cases, cloneStmts(cs))
		}
		return c
	case *CallStmt:
		return &CallStmt{Callee: s.Callee, Args: cloneExprs(s.Args), SArgs: cloneSExprs(s.SArgs), RArgs: cloneLocs(s.RArgs), OArgs: cloneRExprs(s.OArgs)}
	case *Throw:
		return &Throw{Class: s.Class, Code: cloneExpr(s.Code)}
	case *ThrowNull:
		return &ThrowNull{}
	case *Rethrow:
		return &Rethrow{}
	case *Resume:
		return &Resume{Try: s.Try}
	case *Leave:
		c := *s
		return &c
	case *SetBox:
		return &SetBox{Null: s.Null, E: cloneExpr(s.E)}
	case *SetObj:
		return &SetObj{FromBox: s.FromBox, E: cloneExpr(s.E)}
	case *StoreElem:
		return &StoreElem{Idx: cloneExpr(s.Idx), E: cloneExpr(s.E), Safe: s.Safe}
	case *StoreField:
		return &StoreField{E: cloneExpr(s.E)}
	case *JagStore:
		return &JagStore{Row: cloneExpr(s.Row), Col: cloneExpr(s.Col), E: cloneExpr(s.E), Token: s.Token}
	case *SetRow:
		return &SetRow{Row: cloneExpr(s.Row), Val: s.Val, Len: s.Len}
	case *SetOp:
		return &SetOp{Slot: s.Slot, Kind: s.Kind, E: cloneExpr(s.E)}
	case *BumpCode:
		c := *s
		return &c
	case *Try:
		t := &Try{ID: s.ID, Body: cloneStmts(s.Body), Layout: s.Layout, Retry: s.Retry, ResumeAt: s.ResumeAt}
		for _, h := range s.Handlers {
			hh := *h
			hh.FilterBody = cloneStmts(h.FilterBody)
			hh.FilterCond = cloneExpr(h.FilterCond)
			hh.Body = cloneStmts(h.Body)
			t.Handlers = append(t.Handlers, &hh)
		}
		return t
	}
	if c, ok := cloneValueStmt(s); ok {
		return c
	}
	if c, ok := cloneAllocStmt(s); ok {
		return c
	}
	if c, ok := cloneShapeStmt(s); ok {
		return c
	}
	panic("fuzz: unknown statement")
}
