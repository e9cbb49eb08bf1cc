// Package il is the mini MSIL front end: the program model (module,
// classes, fields, methods, instructions with their ECMA-335 IL offsets,
// IL-offset exception clauses), the lexer and parser for the ilasm text
// syntax, name resolution against the program and the base library, a
// verifier, and a printer whose output parses back to an equal module.
// Part of it is supported API for embedders, listed below; the rest is
// internal to miniil: no compatibility promise.
//
// # Supported API
//
// Embedders reach this package through package miniil, and may rely on:
//
//   - Error, ErrorList and Pos: a load that fails returns an ErrorList of
//     *Error sorted by position (errors.As finds the first *Error), each
//     with its Pos (File, Line, Col; String) and Msg.
//   - The declarations of a loaded program (miniil.Program.Module and
//     FindMethod), to read only: a Program shares its module between
//     runs, so modifying anything reachable from it is unsupported.
//     Per type, its fields, then after the semicolon its methods.
//     Module: File, Assembly, Name, Externs, Classes, Fields, Methods,
//     Entry; Class, AllMethods, StaticFields. Class: Name, Attrs,
//     Extends, Base, Fields, Methods, Builtin, Pos; Type, IsSubclassOf.
//     Field: Name, Type, Static, Attrs, Owner, Pos; FullName. Method:
//     Name, Owner, Attrs, Impl, Static, Virtual, NewSlot, Ret, Params,
//     Locals, IsEntry, Builtin, Pos; HasThis, NumArgs, ArgType, FullName,
//     Signature, TraceName. Param and Local: Type, Name. Type: Kind,
//     Name, Elem, Class; String, CLRName, ShortCLRName, Equal, IsRef.
//     Kind and its constants (more kinds will come as the language
//     grows).
//
// Everything else is internal, however it is exported: method bodies and
// their exception clauses (Method.Code, Labels, EH, CodeSize, MaxStack,
// HasMaxStack, InitLocals, EntryPos, EndPos, and the types Instr, Op,
// OpInfo, Ops, OperandKind, Label, FieldRef, MethodRef, EHClause,
// EHKind), what resolution computes for the engines (Slot, Index, VTable,
// NumFields, Depth), fields and methods added later unless listed here,
// and every function, variable and constant of the package other than
// Kind's constants (Load, Parse, Verify, Fprint, the predefined types,
// the object sizes, the float formatting, the base library's names and
// messages).
package il

import (
	"fmt"
	"math"
	"strings"
)

// Pos is a position in a source file. Line and Col are 1-based; Col counts
// bytes.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Kind is the kind of a type.
type Kind uint8

// Type kinds. The order matters to nothing but printing.
const (
	KVoid Kind = iota
	KBool
	KChar
	KI1
	KU1
	KI2
	KU2
	KI4
	KU4
	KI8
	KU8
	KI // native int
	KU // native unsigned int
	KR4
	KR8
	KString
	KObject
	KClass // a class by name
	KArray // single-dimension zero-based array of Elem
	KValue // a value type (a class extending System.ValueType) by name
	KByRef // a managed pointer to Elem (T&)
)

var kindNames = [...]string{
	KVoid: "void", KBool: "bool", KChar: "char", KI1: "int8", KU1: "uint8",
	KI2: "int16", KU2: "uint16", KI4: "int32", KU4: "uint32", KI8: "int64",
	KU8: "uint64", KI: "native int", KU: "native unsigned int",
	KR4: "float32", KR8: "float64", KString: "string", KObject: "object",
}

// Type is a mini MSIL type. Class types name their class by full name
// (namespace and name, without assembly scope); Class is filled in by
// resolution.
type Type struct {
	Kind  Kind
	Name  string // full class name, for KClass and KValue
	Elem  *Type  // element type, for KArray; target type, for KByRef
	Class *Class // resolved class, for KClass and KValue (nil before resolution)

	bare bool // named in a type token without class or valuetype
}

// Predefined types.
var (
	Void    = &Type{Kind: KVoid}
	Bool    = &Type{Kind: KBool}
	Char    = &Type{Kind: KChar}
	Int8    = &Type{Kind: KI1}
	UInt8   = &Type{Kind: KU1}
	Int16   = &Type{Kind: KI2}
	UInt16  = &Type{Kind: KU2}
	Int32   = &Type{Kind: KI4}
	UInt32  = &Type{Kind: KU4}
	Int64   = &Type{Kind: KI8}
	UInt64  = &Type{Kind: KU8}
	NatInt  = &Type{Kind: KI}
	NatUInt = &Type{Kind: KU}
	Float32 = &Type{Kind: KR4}
	Float64 = &Type{Kind: KR8}
	String  = &Type{Kind: KString}
	Object  = &Type{Kind: KObject}
)

// PrimitiveType returns the predefined type of a kind that has no operands.
func PrimitiveType(k Kind) *Type {
	switch k {
	case KVoid:
		return Void
	case KBool:
		return Bool
	case KChar:
		return Char
	case KI1:
		return Int8
	case KU1:
		return UInt8
	case KI2:
		return Int16
	case KU2:
		return UInt16
	case KI4:
		return Int32
	case KU4:
		return UInt32
	case KI8:
		return Int64
	case KU8:
		return UInt64
	case KI:
		return NatInt
	case KU:
		return NatUInt
	case KR4:
		return Float32
	case KR8:
		return Float64
	case KString:
		return String
	case KObject:
		return Object
	}
	return nil
}

// ClassType returns the type of a class given by full name.
func ClassType(name string) *Type { return &Type{Kind: KClass, Name: name} }

// ArrayOf returns the single-dimension array type of elem.
func ArrayOf(elem *Type) *Type { return &Type{Kind: KArray, Elem: elem} }

// ValueType returns the type of a value type given by full name.
func ValueType(name string) *Type { return &Type{Kind: KValue, Name: name} }

// ByRefOf returns the managed pointer type elem&.
func ByRefOf(elem *Type) *Type { return &Type{Kind: KByRef, Elem: elem} }

// String returns the type in ilasm syntax.
func (t *Type) String() string {
	if t.Kind == KByRef {
		return t.Elem.String() + "&"
	}
	elem, rank := t.innermost()
	switch elem.Kind {
	case KClass:
		return withBrackets("class "+elem.Name, rank)
	case KValue:
		return withBrackets("valuetype "+elem.Name, rank)
	}
	return withBrackets(kindNames[elem.Kind], rank)
}

// innermost returns the element type of nested arrays (t itself if it is
// no array) and the nesting count. Types are walked in loops, not
// recursively: a program may nest arrays as deep as its size allows.
func (t *Type) innermost() (*Type, int) {
	n := 0
	for t.Kind == KArray {
		t, n = t.Elem, n+1
	}
	return t, n
}

// withBrackets returns base followed by n "[]".
func withBrackets(base string, n int) string {
	if n == 0 {
		return base
	}
	var b strings.Builder
	b.Grow(len(base) + 2*n)
	b.WriteString(base)
	for range n {
		b.WriteString("[]")
	}
	return b.String()
}

// Equal reports whether two types are the same type.
func (t *Type) Equal(u *Type) bool {
	for {
		if t == u {
			return true
		}
		if t == nil || u == nil || t.Kind != u.Kind {
			return false
		}
		switch t.Kind {
		case KClass, KValue:
			return t.Name == u.Name
		case KArray, KByRef:
			t, u = t.Elem, u.Elem
			continue
		}
		return true
	}
}

// IsRef reports whether values of the type are object references.
func (t *Type) IsRef() bool {
	return t.Kind == KString || t.Kind == KObject || t.Kind == KClass || t.Kind == KArray
}

// CLRName returns the type's name as the CLR reflects it (System.Int32,
// MyNs.Foo, System.String[]): used in messages and stack traces.
func (t *Type) CLRName() string {
	if t.Kind == KByRef {
		return t.Elem.CLRName() + "&"
	}
	elem, rank := t.innermost()
	if elem.Kind == KClass || elem.Kind == KValue {
		return withBrackets(elem.Name, rank)
	}
	return withBrackets(clrNames[elem.Kind], rank)
}

// IsValue reports whether t is a user value type (KValue).
func (t *Type) IsValue() bool { return t.Kind == KValue }

// Words returns how many 8-byte words a value of type t takes in a
// field, a local, an array element of a value type or a box: the number
// of words of a value type's layout (Class.NumFields, at least 1), and 1
// for every other type. Valid after resolution.
func (t *Type) Words() int {
	if t.Kind == KValue && t.Class != nil {
		return max(t.Class.NumFields, 1)
	}
	return 1
}

var clrNames = [...]string{
	KVoid: "System.Void", KBool: "System.Boolean", KChar: "System.Char",
	KI1: "System.SByte", KU1: "System.Byte", KI2: "System.Int16",
	KU2: "System.UInt16", KI4: "System.Int32", KU4: "System.UInt32",
	KI8: "System.Int64", KU8: "System.UInt64", KI: "System.IntPtr",
	KU: "System.UIntPtr", KR4: "System.Single", KR8: "System.Double",
	KString: "System.String", KObject: "System.Object",
}

// ShortCLRName is CLRName without the namespace (Int32, String, Foo[]), as
// stack traces print parameter types.
func (t *Type) ShortCLRName() string {
	n := t.CLRName()
	base, suffix := n, ""
	if i := strings.Index(n, "["); i >= 0 {
		base, suffix = n[:i], n[i:]
	}
	if i := strings.LastIndex(base, "."); i >= 0 {
		base = base[i+1:]
	}
	return base + suffix
}

// Module is a parsed program.
//
// Resolution lays out values in 8-byte words: a field of a primitive or
// reference type takes one word, a field of a value type the words of
// that type's fields; an object's fields, a value type's fields and the
// module's statics are numbered in words (Field.Slot).
type Module struct {
	File     string    // source file name as given to the parser
	Assembly string    // name in `.assembly NAME`, if any
	Name     string    // name in `.module NAME`, if any
	Externs  []string  // names in `.assembly extern NAME`
	Classes  []*Class  // user classes, in declaration order
	Fields   []*Field  // global static fields
	Methods  []*Method // global static methods
	Entry    *Method   // the method with .entrypoint (after resolution)
	// NumInterfaces counts the interfaces the module declares
	// (Class.IfaceIndex numbers them).
	NumInterfaces int
	// StaticWords is the size of the module's static storage in 8-byte
	// words: every static field takes Type.Words() of them from its Slot.
	StaticWords int
	// Init is the module initializer, from a global .cctor (nil: none).
	Init *TypeInit
	// TypeInits lists every type initializer (the module's, then the
	// classes' in declaration order); see CodeMethods.
	TypeInits []*TypeInit

	classes map[string]*Class // user and base-library classes by full name
}

// Class is a class: one the program declares, or one of the base library
// (Builtin).
type Class struct {
	Name      string   // full name: Namespace.Name
	Attrs     []string // attributes as written (public, auto, ansi, ...)
	Extends   *Type    // base class as written (nil: System.Object)
	Base      *Class   // resolved base class (nil only for System.Object)
	Fields    []*Field
	Methods   []*Method
	Builtin   bool // part of the base library
	Pos       Pos
	VTable    []*Method // virtual slots, filled in by resolution
	NumFields int       // instance fields including inherited ones
	Depth     int       // 0 for System.Object, base depth + 1 otherwise

	// Interface marks an interface (.class interface): no base class, no
	// instance fields, only abstract virtual instance methods (whose
	// Slot numbers them within the interface) and static members.
	Interface bool
	// Implements lists the interfaces as written after implements.
	Implements []*Type
	// Interfaces are the interfaces the class implements, or an interface
	// extends: those written, those they extend and (for a class) those
	// of its base classes, without repeats, filled in by resolution.
	Interfaces []*Class
	// IMap gives, for each interface in Interfaces, the method that
	// implements each of its slots (a class only; nil where an abstract
	// class leaves a slot for its subclasses to implement).
	IMap map[*Class][]*Method
	// IfaceIndex numbers the module's interfaces from 0 (-1: a class).
	IfaceIndex int

	// ValueType marks a value type: a class that extends System.ValueType.
	// Its instances are values of NumFields 8-byte words (Field.Slot of
	// an instance field is its first word); a field, local, argument or
	// array element of a value type holds the words themselves.
	ValueType bool
	// Size is what sizeof returns for a value type: the size of CoreCLR's
	// layout of its fields (natural alignment, references first when it
	// holds any), which miniil's word layout does not follow.
	Size int
	// RefWords lists, in increasing order, the words of a value type's
	// layout (see ValueType) that hold object references, those of
	// nested value types included: what the garbage collector must see
	// of a value wherever it is stored.
	RefWords []int

	// Init is the class's type initializer, made by resolution when it
	// declares a static constructor (nil: none).
	Init *TypeInit

	align   int  // CoreCLR alignment of a value type
	hasRefs bool // a value type holding references (in nested values too)
}

// ImplementsIface reports whether c is, extends or implements interface i.
func (c *Class) ImplementsIface(i *Class) bool {
	if c == i {
		return true
	}
	for _, x := range c.Interfaces {
		if x == i {
			return true
		}
	}
	return false
}

// IsAbstract reports whether the class is declared abstract (interfaces
// are).
func (c *Class) IsAbstract() bool { return c.Interface || hasAttr(c.Attrs, "abstract") }

// Type returns the class type of c (object and string for the two
// primitive-named base library classes).
func (c *Class) Type() *Type {
	switch c.Name {
	case "System.Object":
		return Object
	case "System.String":
		return String
	}
	if pt := primitiveOfClass[c.Name]; pt != nil {
		return pt
	}
	if c.ValueType {
		return &Type{Kind: KValue, Name: c.Name, Class: c}
	}
	return &Type{Kind: KClass, Name: c.Name, Class: c}
}

// primitiveOfClass maps the base library's classes of primitive types to
// those types (the class holds the type's methods).
var primitiveOfClass = map[string]*Type{
	"System.Int32": Int32, "System.Int64": Int64, "System.Double": Float64,
	"System.UInt32": UInt32, "System.UInt64": UInt64, "System.Single": Float32,
	"System.Boolean": Bool, "System.Char": Char,
}

// IsSubclassOf reports whether c is base or derives from it.
func (c *Class) IsSubclassOf(base *Class) bool {
	for k := c; k != nil; k = k.Base {
		if k == base {
			return true
		}
	}
	return false
}

// Field is a static or instance field; Owner is nil for a global field.
type Field struct {
	Name   string
	Type   *Type
	Static bool
	Attrs  []string // as written
	Owner  *Class
	Pos    Pos
	// Slot is, for an instance field, its first 8-byte word in the
	// object (or, in a value type, in the value); for a static field, its
	// first word in the module's static storage (Module.StaticWords).
	Slot int

	// Builtin marks a static field of the base library (Stopwatch's
	// Frequency, String's Empty), which programs read but cannot store;
	// every run starts with Init in it (in the engines' 64-bit form:
	// integers sign-extended, floats as float64 bits), or for a field
	// of type string with String.Empty, the interned literal "".
	Builtin bool
	Init    int64
}

// FullName returns Owner::Name (or Name for a global field).
func (f *Field) FullName() string {
	if f.Owner == nil {
		return f.Name
	}
	return f.Owner.Name + "::" + f.Name
}

// Param is a method parameter.
type Param struct {
	Type *Type
	Name string // may be empty
}

// Local is a local variable.
type Local struct {
	Type *Type
	Name string // may be empty
}

// Method is a method: global (Owner nil), static, instance or virtual.
// Builtin methods belong to the base library and have no body.
type Method struct {
	Name        string
	Owner       *Class
	Attrs       []string // as written, in order (public, static, virtual, ...)
	Impl        []string // implementation attributes (cil managed)
	Static      bool
	Virtual     bool
	NewSlot     bool
	Abstract    bool // no body: an interface method or an abstract class's
	Ret         *Type
	Params      []*Param
	Locals      []*Local
	InitLocals  bool
	MaxStack    int
	HasMaxStack bool
	IsEntry     bool
	EntryPos    Pos // position of the .entrypoint directive
	Code        []*Instr
	Labels      []Label     // in the order written (so by instruction)
	EH          []*EHClause // in ilasm's order: inner before outer
	CodeSize    int         // IL bytes
	Builtin     bool
	BuiltinKind BuiltinKind // which base library method (BuiltinNone: not Builtin)
	Pos         Pos
	EndPos      Pos // position of the closing brace
	Slot        int // vtable slot for virtual methods, -1 otherwise
	Index       int // index in the module's method list (see Module.AllMethods)
	// NewobjCall is, for a constructor of System.String, the method that
	// newobj calls instead of allocating an object and running the
	// constructor: a static base library method of the same kind and
	// parameters that returns the new string (CoreCLR's String.Ctor). It
	// belongs to no class's method list, so no program can name it.
	NewobjCall *Method
	// Hidden marks a method resolution synthesized (TypeInit.Run): it is
	// in no method list of the program's declarations, the printer never
	// prints it, and stack traces leave it out.
	Hidden bool
}

// HasThis reports whether the method takes an implicit this argument.
func (m *Method) HasThis() bool { return !m.Static }

// NumArgs returns the number of arguments including this.
func (m *Method) NumArgs() int {
	if m.Static {
		return len(m.Params)
	}
	return len(m.Params) + 1
}

// ArgType returns the type of argument i, counting this as argument 0 for
// instance methods.
func (m *Method) ArgType(i int) *Type {
	if !m.Static {
		if i == 0 {
			return m.ThisType()
		}
		i--
	}
	return m.Params[i].Type
}

// ThisType returns the type of an instance method's this: the owner's
// class type, or a managed pointer to the value for a value type's
// method (primitive types' methods included).
func (m *Method) ThisType() *Type {
	t := m.Owner.Type()
	if m.Owner.ValueType || primitiveOfClass[m.Owner.Name] != nil {
		return ByRefOf(t)
	}
	return t
}

// FullName returns Class::Name, or Name for a global method.
func (m *Method) FullName() string {
	if m.Owner == nil {
		return m.Name
	}
	return m.Owner.Name + "::" + m.Name
}

// Signature returns the method's signature in ilasm syntax, as a method
// reference would spell it: [instance] RET CLASS::NAME(PARAMS).
func (m *Method) Signature() string {
	var b strings.Builder
	if !m.Static {
		b.WriteString("instance ")
	}
	b.WriteString(m.Ret.String())
	b.WriteByte(' ')
	b.WriteString(m.FullName())
	b.WriteByte('(')
	for i, p := range m.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Type.String())
	}
	b.WriteByte(')')
	return b.String()
}

// TraceName returns the method as CoreCLR's stack traces print it:
// Class.Name(Int32 a, String b), and <Module>.Name(...) for globals.
func (m *Method) TraceName() string {
	var b strings.Builder
	if m.Owner == nil {
		b.WriteString("<Module>")
	} else {
		b.WriteString(m.Owner.Name)
	}
	b.WriteByte('.')
	b.WriteString(m.Name)
	b.WriteByte('(')
	for i, p := range m.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Type.ShortCLRName())
		if p.Name != "" {
			b.WriteByte(' ')
			b.WriteString(p.Name)
		}
	}
	b.WriteByte(')')
	return b.String()
}

// Instr is one instruction. Which operand it has depends on the opcode's
// OperandKind: an integer in Int, or one of the values the accessors
// return (their zero value when the opcode has none). Instructions are
// the bulk of a loaded program, so they are kept small: the position is
// a line and column (the file is the module's), labels are listed by the
// method (Method.Labels), and the operands other than Int share one
// field.
type Instr struct {
	Op     Op
	Line   int32 // source position of the opcode: 1-based line
	Col    int32 // and column (in bytes); the file is Module.File
	Offset int32 // IL byte offset of the instruction

	// Int holds OpI1, OpI4 and OpI8 operands, and the index of OpShortVar
	// and OpVar operands and ldarg.N-style forms. For OpR4 and OpR8 it
	// holds the IEEE 754 bits of Float.
	Int int64

	operand any // string, *branch, *Type, *FieldRef or *MethodRef
}

// branch is the operand of a branch, leave or switch.
type branch struct {
	targets []int    // instruction indices (len(Code) is never a valid target)
	names   []string // the targets' labels as written
}

// branch1 is a one-target branch with its target and label held inline,
// so the parser makes one (from a slab) instead of three allocations.
type branch1 struct {
	branch
	target [1]int
	name   [1]string
}

// Pos returns the instruction's position in file (its module's File).
func (in *Instr) Pos(file string) Pos {
	return Pos{File: file, Line: int(in.Line), Col: int(in.Col)}
}

// Float returns the operand of ldc.r4 and ldc.r8.
func (in *Instr) Float() float64 { return math.Float64frombits(uint64(in.Int)) }

// SetFloat sets the operand of ldc.r4 and ldc.r8.
func (in *Instr) SetFloat(f float64) { in.Int = int64(math.Float64bits(f)) }

// Str returns the string of ldstr, or the name of an OpShortVar or OpVar
// operand if the program used one.
func (in *Instr) Str() string {
	s, _ := in.operand.(string)
	return s
}

// SetStr sets the string operand (see Str).
func (in *Instr) SetStr(s string) { in.operand = s }

// Targets returns the instruction indices a branch, leave or switch may
// go to (not counting a conditional branch's fall-through).
func (in *Instr) Targets() []int {
	if b, ok := in.operand.(*branch); ok {
		return b.targets
	}
	return nil
}

// TargetNames returns the labels of the targets, as written.
func (in *Instr) TargetNames() []string {
	if b, ok := in.operand.(*branch); ok {
		return b.names
	}
	return nil
}

// SetTargets sets the targets of a branch, leave or switch and their
// labels as written.
func (in *Instr) SetTargets(targets []int, names []string) {
	in.operand = &branch{targets: targets, names: names}
}

// Target returns the single branch target of a branch or leave.
func (in *Instr) Target() int { return in.Targets()[0] }

// Type returns an OpType operand.
func (in *Instr) Type() *Type {
	t, _ := in.operand.(*Type)
	return t
}

// SetType sets an OpType operand.
func (in *Instr) SetType(t *Type) { in.operand = t }

// Field returns an OpField operand.
func (in *Instr) Field() *FieldRef {
	f, _ := in.operand.(*FieldRef)
	return f
}

// SetField sets an OpField operand.
func (in *Instr) SetField(f *FieldRef) { in.operand = f }

// Method returns an OpMethod operand.
func (in *Instr) Method() *MethodRef {
	switch m := in.operand.(type) {
	case *MethodRef:
		return m
	case *Constrained:
		return m.Method
	}
	return nil
}

// SetMethod sets an OpMethod operand.
func (in *Instr) SetMethod(m *MethodRef) {
	if c, ok := in.operand.(*Constrained); ok {
		c.Method = m
		return
	}
	in.operand = m
}

// Constrained is what the constrained. prefix adds to the callvirt that
// follows it: the type of the value its this points to.
type Constrained struct {
	Method *MethodRef
	Type   *Type
	// Direct is, after resolution, the method of a value type (or of a
	// primitive type's class) that implements the method called: it is
	// called with the pointer as this. Nil for a reference type (this is
	// loaded through the pointer) and for a value type that does not
	// implement the method (the value is boxed, then the call is virtual).
	Direct *Method
}

// Constrained returns the constrained. prefix of a callvirt (nil if none).
func (in *Instr) Constrained() *Constrained {
	c, _ := in.operand.(*Constrained)
	return c
}

// SetConstrained makes the callvirt's method operand constrained to t.
func (in *Instr) SetConstrained(t *Type) {
	in.operand = &Constrained{Method: in.Method(), Type: t}
}

// constrainedSize is the size of the constrained. prefix: FE 16 and a
// type token.
const constrainedSize = 6

// Size returns the encoded size of the instruction in bytes.
func (in *Instr) Size() int {
	n := in.Op.Size(len(in.Targets()))
	if in.Constrained() != nil {
		n += constrainedSize
	}
	return n
}

// Label is a label defined in a method body.
type Label struct {
	Name  string
	Instr int // index of the instruction it labels
}

// FieldRef is a field operand: TYPE [CLASS::]NAME.
type FieldRef struct {
	Type  *Type
	Class *Type // owning class, nil for a global field
	Name  string
	Field *Field // resolved
}

// MethodRef is a method operand: [instance] RET [CLASS::]NAME(PARAMS).
type MethodRef struct {
	Instance bool
	Ret      *Type
	Class    *Type // owning class, nil for a global method
	Name     string
	Params   []*Type
	Method   *Method // resolved

	same *MethodRef // the parser's next interned reference of the same class and name
}

// EHKind is the kind of an exception-handling clause.
type EHKind uint8

// Clause kinds.
const (
	EHCatch EHKind = iota
	EHFilter
	EHFinally
	EHFault
)

func (k EHKind) String() string {
	return [...]string{"catch", "filter", "finally", "fault"}[k]
}

// EHClause is an exception-handling clause. Ranges are half-open and are
// given twice: as instruction indices into Method.Code and as IL offsets,
// exactly as ilasm would emit them.
type EHClause struct {
	Kind      EHKind
	CatchType *Type // EHCatch
	Pos       Pos   // position of the handler keyword
	TryPos    Pos   // position of the .try directive

	TryStart, TryEnd         int // instruction indices
	HandlerStart, HandlerEnd int
	FilterStart              int // EHFilter: the filter block runs from here to HandlerStart

	TryOffset, TryLength         int // IL offsets
	HandlerOffset, HandlerLength int
	FilterOffset                 int
}

// Class returns the class with the given full name, from the program or the
// base library.
func (m *Module) Class(name string) *Class { return m.classes[name] }

// AllMethods returns every method with a body: global methods first, then
// each class's methods in declaration order. Method.Index is the position
// in this list.
func (m *Module) AllMethods() []*Method {
	all := append([]*Method(nil), m.Methods...)
	for _, c := range m.Classes {
		all = append(all, c.Methods...)
	}
	return all
}

// StaticFields returns every static field: global ones first, then those
// of the classes, then (in a resolved module) the base library's. The
// static storage holds them in this order: Field.Slot of a static field
// is its first word there, and it takes Type.Words() words
// (Module.StaticWords in all).
func (m *Module) StaticFields() []*Field {
	all := append([]*Field(nil), m.Fields...)
	for _, c := range m.Classes {
		for _, f := range c.Fields {
			if f.Static {
				all = append(all, f)
			}
		}
	}
	for _, name := range staticFieldClasses {
		if c := m.classes[name]; c != nil {
			for _, f := range c.Fields {
				if f.Static {
					all = append(all, f)
				}
			}
		}
	}
	return all
}
