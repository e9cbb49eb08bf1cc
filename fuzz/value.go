package fuzz

import "fmt"

// Value types and managed pointers in the AST.
//
// A program declares a few value types V0, V1, ... (Program.Structs):
// sealed structs whose fields (f0, f1, ...) are int32, int64, float64,
// object, the small integer kinds (int8 uint8 int16 uint16 char bool) or
// an earlier value type (nested). Each has a constructor .ctor(int32)
// that sets its first Init fields from the argument, an instance method
// Step(int32) that mutates some fields through this (the managed
// pointer) and returns Hash(this), and a static Hash(valuetype V) that
// folds every field into an int32 (float64 through conv.i8, objects
// through the helper ohash, nested values through their own Hash), so
// the checksum shows any wrong copy.
//
// Locations (Loc) are what a managed pointer may point to: an int32 or
// int64 variable, a value-type local, argument, static (svK), field of
// the object hh of class H (hK) or element of the static VK[4] vaK, an
// element of arr or of a row of jag, the static obj, the location a
// pointer local (pN) or a byref parameter (raN) points to, and a field
// of any value-type location, nested ones included (Loc.Path). Methods
// have value-type locals (vN), parameters (saN), byref parameters (raN,
// int32& int64& float64& object& or a value type's), pointer locals
// (pN, null until PSet sets them) and may return a value type.

// FKind is the kind of a location's type.
type FKind uint8

const (
	FI4     FKind = iota // int32
	FI8                  // int64
	FR8                  // float64
	FRef                 // object
	FI1                  // int8
	FU1                  // uint8
	FI2                  // int16
	FU2                  // uint16
	FChar                // char
	FBool                // bool
	FStruct              // value type V<S>
)

// FType is the type of a field or of the target of a managed pointer.
type FType struct {
	K FKind
	S int // the value type, for FStruct
}

var fkindIL = [...]string{FI4: "int32", FI8: "int64", FR8: "float64", FRef: "object", FI1: "int8",
	FU1: "uint8", FI2: "int16", FU2: "uint16", FChar: "char", FBool: "bool"}

func (t FType) il() string {
	if t.K == FStruct {
		return fmt.Sprintf("valuetype V%d", t.S)
	}
	return fkindIL[t.K]
}

// token is the type as an instruction's type token (ldobj, box, ...).
func (t FType) token() string {
	if t.K == FStruct {
		return fmt.Sprintf("V%d", t.S)
	}
	return fkindIL[t.K]
}

// small reports whether t is one of the integer kinds narrower than
// int32.
func (t FType) small() bool { return t.K >= FI1 && t.K <= FBool }

// intType is the type of the int expression reading a scalar of type t
// gives: int64 for int64 and float64 (conv.i8), int32 for the others
// (an object through ohash).
func (t FType) intType() Type {
	if t.K == FI8 || t.K == FR8 {
		return I8
	}
	return I4
}

// ind returns the ldind/stind suffix for a location of type t; flip
// takes the other signedness of a load (ldind.u1 for an int8, ldind.i4
// as ldind.u4, ...), which shows sign and zero extension.
func (t FType) ind(load, flip bool) string {
	switch t.K {
	case FI4:
		if load && flip {
			return "u4"
		}
		return "i4"
	case FI8:
		return "i8"
	case FR8:
		return "r8"
	case FRef:
		return "ref"
	case FI1, FU1, FBool, FI2, FU2, FChar:
		bits := "1"
		if t.K == FI2 || t.K == FU2 || t.K == FChar {
			bits = "2"
		}
		if !load {
			return "i" + bits
		}
		if (t.K == FI1 || t.K == FI2) != flip {
			return "i" + bits
		}
		return "u" + bits
	}
	panic("fuzz: no ldind for a value type")
}

// StructDef is the value type V<index in Program.Structs>.
type StructDef struct {
	Fields []FType // a nested value type is an earlier one
	// Init is how many fields (from f0) the constructor sets; the others
	// keep what the location held (zero after newobj).
	Init int
}

// Root is where a location starts.
type Root uint8

const (
	RVar     Root = iota // the int32 or int64 variable Loc.Var
	RSLocal              // value-type local vN
	RSArg                // value-type parameter saN
	RSStatic             // static field svN of value type VN
	RHeld                // field hN (value type VN) of the static object hh of class H
	RSElem               // element vaN[Idx & mask] of the static VN[4] vaN
	RArr                 // element arr[Idx & mask] of the static int32[5] arr
	RJag                 // element jag[Idx & 3][Col & 7] (ldelema of a row)
	RObj                 // the static object obj
	RPtr                 // where pointer local pN points (null: NullReferenceException)
	RRef                 // where byref parameter raN points
)

// Loc is a location: a root, then fields of value types (Path).
type Loc struct {
	Root     Root
	N        int   // the local, parameter, pointer or value type of the root
	Var      Var   // RVar
	Idx, Col Expr  // RSElem, RArr: the index; RJag: row and column
	Safe     bool  // RSElem, RArr: the index is masked into range (mask 3), else mask 7
	Path     []int // fields, from the root's value type down
}

// Access is the instruction form reading or writing a location.
type Access uint8

const (
	// ADirect loads the root's value (ldloc, ldarg, ldsfld, ldelem) and
	// then ldfld down the path on values; it stores with stloc, starg,
	// stsfld, stelem at the root, and stfld at the parent's address for
	// a field.
	ADirect Access = iota
	// AFld takes the root's address, then ldfld down the path from the
	// managed pointer (stfld for a store).
	AFld
	// AInd takes the location's address (ldflda down the path), then
	// ldind/stind (ldobj/stobj for a value type).
	AInd
	// AObj is AInd with ldobj/stobj of the location's type, also for a
	// primitive.
	AObj
)

// ObjVal is an object LocStore stores into an object location.
type ObjVal uint8

const (
	ONull ObjVal = iota // null
	OInt                // a boxed int32 (E)
	OStr                // a string of Len characters
	OBox                // a new Box(E)
)

// LocLoad reads scalar location L: int32 for int32, the small kinds and
// object (ohash of it), int64 for int64 and float64 (conv.i8).
type LocLoad struct {
	L    *Loc
	A    Access
	Flip bool // AInd: ldind of the other signedness (ind)
	T    Type // the type of L: FType.intType
}

// SHash is V::Hash(Src) of a value of a value type.
type SHash struct{ Src SExpr }

// SStep calls V::Step(Arg) on the address of value-type location L,
// which mutates it.
type SStep struct {
	L   *Loc
	Arg Expr
}

// SField reads a scalar field of a value on the stack (ldfld from a
// value), down Path.
type SField struct {
	Src  SExpr
	Path []int
	T    Type // the field's FType.intType
}

// IsBoxed is obj isinst VS != null.
type IsBoxed struct{ S int }

// SizeOf is sizeof VS.
type SizeOf struct{ S int }

func (e *LocLoad) Type() Type { return e.T }
func (e *SHash) Type() Type   { return I4 }
func (e *SStep) Type() Type   { return I4 }
func (e *SField) Type() Type  { return e.T }
func (e *IsBoxed) Type() Type { return I4 }
func (e *SizeOf) Type() Type  { return I4 }

// SExpr is an expression of a value type: it leaves a value on the
// stack.
type SExpr interface{ Struct() int }

// SLoad reads value-type location L.
type SLoad struct {
	L *Loc
	A Access
	S int // the value type (L's type)
}

// SNew is newobj VS::.ctor(Arg).
type SNew struct {
	S   int
	Arg Expr
}

// SCall calls a method returning value type S.
type SCall struct {
	Callee int
	Args   []Expr
	SArgs  []SExpr
	RArgs  []*Loc
	OArgs  []RExpr
	S      int
}

// SUnbox unboxes obj as VS: unbox.any, or unbox and ldobj with Addr
// (NullReferenceException, InvalidCastException).
type SUnbox struct {
	S    int
	Addr bool
}

// SCond is C ? A : B (values of value type S): the value crosses a
// branch and a join on the stack.
type SCond struct {
	C    Cond
	A, B SExpr
	S    int
}

func (e *SLoad) Struct() int  { return e.S }
func (e *SCond) Struct() int  { return e.S }
func (e *SNew) Struct() int   { return e.S }
func (e *SCall) Struct() int  { return e.S }
func (e *SUnbox) Struct() int { return e.S }

// LocStore stores into scalar location L: E (int32, int64 for an int64
// location, conv.r8 of an int32 for a float64 one), or Obj for an object
// location.
type LocStore struct {
	L     *Loc
	A     Access
	E     Expr
	Obj   ObjVal
	Len   int  // OStr
	Check bool // read L back (with another access) into the hash
}

// SStore stores Src into value-type location L.
type SStore struct {
	L     *Loc
	A     Access
	Src   SExpr
	Check bool // hash L's value afterwards
}

// SInit initializes location L: initobj with Zero (any location type),
// else the value type's constructor called on its address with Arg.
type SInit struct {
	L     *Loc
	Zero  bool
	Arg   Expr
	Check bool // read L afterwards into the hash
}

// SCopy is cpobj from Src's location to Dst's (the same type).
type SCopy struct {
	Dst, Src *Loc
	Check    bool // read Dst afterwards into the hash
}

// BoxStruct stores box(Src) into obj.
type BoxStruct struct{ Src SExpr }

// PSet points pointer local pN at location L.
type PSet struct {
	N int
	L *Loc
}

func (*LocStore) stmt()  {}
func (*SStore) stmt()    {}
func (*SInit) stmt()     {}
func (*SCopy) stmt()     {}
func (*BoxStruct) stmt() {}
func (*PSet) stmt()      {}

// retStruct returns the value type m returns, if any.
func (m *Method) retStruct() (int, bool) { return m.RetS - 1, m.RetS > 0 }

// rootType returns the type of L's root in method m.
func (p *Program) rootType(m *Method, L *Loc) FType {
	switch L.Root {
	case RVar:
		if L.Var.T == I8 {
			return FType{K: FI8}
		}
		return FType{K: FI4}
	case RSLocal:
		return FType{K: FStruct, S: m.SLocals[L.N]}
	case RSArg:
		return FType{K: FStruct, S: m.SParams[L.N]}
	case RSStatic, RHeld, RSElem:
		return FType{K: FStruct, S: L.N}
	case RArr, RJag:
		return FType{K: FI4}
	case RObj:
		return FType{K: FRef}
	case RPtr:
		return m.PLocals[L.N]
	case RRef:
		return m.RParams[L.N]
	}
	panic("fuzz: unknown root")
}

// locType returns the type of location L in method m.
func (p *Program) locType(m *Method, L *Loc) FType { return p.pathType(m, L, L.Path) }

// pathType is the type down path from L's root (L's own path ignored).
func (p *Program) pathType(m *Method, L *Loc, path []int) FType {
	t := p.rootType(m, L)
	for _, f := range path {
		t = p.Structs[t.S].Fields[f]
	}
	return t
}

// fieldType returns the type of the field down path from value type s.
func (p *Program) fieldType(s int, path []int) FType {
	t := FType{K: FStruct, S: s}
	for _, f := range path {
		t = p.Structs[t.S].Fields[f]
	}
	return t
}

// hasRefs reports whether value type s holds an object reference (in a
// nested value type too).
func (p *Program) hasRefs(s int) bool {
	for _, f := range p.Structs[s].Fields {
		if f.K == FRef || f.K == FStruct && p.hasRefs(f.S) {
			return true
		}
	}
	return false
}

// words returns how many 8-byte words a value of value type s takes in
// miniil's layout (a nested value type its own words).
func (p *Program) words(s int) int {
	n := 0
	for _, f := range p.Structs[s].Fields {
		if f.K == FStruct {
			n += p.words(f.S)
		} else {
			n++
		}
	}
	return max(n, 1)
}

func cloneLoc(L *Loc) *Loc {
	if L == nil {
		return nil
	}
	c := *L
	c.Idx, c.Col = cloneExpr(L.Idx), cloneExpr(L.Col)
	c.Path = append([]int(nil), L.Path...)
	return &c
}

func cloneLocs(ls []*Loc) []*Loc {
	if ls == nil {
		return nil
	}
	out := make([]*Loc, len(ls))
	for i, L := range ls {
		out[i] = cloneLoc(L)
	}
	return out
}

func cloneSExprs(es []SExpr) []SExpr {
	if es == nil {
		return nil
	}
	out := make([]SExpr, len(es))
	for i, e := range es {
		out[i] = cloneSExpr(e)
	}
	return out
}

func cloneSExpr(e SExpr) SExpr {
	switch e := e.(type) {
	case nil:
		return nil
	case *SLoad:
		return &SLoad{L: cloneLoc(e.L), A: e.A, S: e.S}
	case *SNew:
		return &SNew{S: e.S, Arg: cloneExpr(e.Arg)}
	case *SCall:
		return &SCall{Callee: e.Callee, Args: cloneExprs(e.Args), SArgs: cloneSExprs(e.SArgs), RArgs: cloneLocs(e.RArgs), OArgs: cloneRExprs(e.OArgs), S: e.S}
	case *SUnbox:
		c := *e
		return &c
	case *SCond:
		return &SCond{C: cloneCond(e.C), A: cloneSExpr(e.A), B: cloneSExpr(e.B), S: e.S}
	}
	panic("fuzz: unknown value-type expression")
}

// cloneValueExpr clones the value-type nodes among int expressions.
func cloneValueExpr(e Expr) (Expr, bool) {
	switch e := e.(type) {
	case *LocLoad:
		return &LocLoad{L: cloneLoc(e.L), A: e.A, Flip: e.Flip, T: e.T}, true
	case *SHash:
		return &SHash{Src: cloneSExpr(e.Src)}, true
	case *SStep:
		return &SStep{L: cloneLoc(e.L), Arg: cloneExpr(e.Arg)}, true
	case *SField:
		return &SField{Src: cloneSExpr(e.Src), Path: append([]int(nil), e.Path...), T: e.T}, true
	case *IsBoxed:
		c := *e
		return &c, true
	case *SizeOf:
		c := *e
		return &c, true
	}
	return nil, false
}

// cloneValueStmt clones the value-type statements.
func cloneValueStmt(s Stmt) (Stmt, bool) {
	switch s := s.(type) {
	case *LocStore:
		return &LocStore{L: cloneLoc(s.L), A: s.A, E: cloneExpr(s.E), Obj: s.Obj, Len: s.Len, Check: s.Check}, true
	case *SStore:
		return &SStore{L: cloneLoc(s.L), A: s.A, Src: cloneSExpr(s.Src), Check: s.Check}, true
	case *SInit:
		return &SInit{L: cloneLoc(s.L), Zero: s.Zero, Arg: cloneExpr(s.Arg), Check: s.Check}, true
	case *SCopy:
		return &SCopy{Dst: cloneLoc(s.Dst), Src: cloneLoc(s.Src), Check: s.Check}, true
	case *BoxStruct:
		return &BoxStruct{Src: cloneSExpr(s.Src)}, true
	case *PSet:
		return &PSet{N: s.N, L: cloneLoc(s.L)}, true
	}
	return nil, false
}
