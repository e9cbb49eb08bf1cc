package il

// The base library of MINIIL.md. Each module gets its own copy of these
// classes (resolution fills in per-module data such as vtables), so nothing
// here is shared mutable state.

// exceptionClasses lists the base library's exception types with their base
// class and CoreCLR's default message, in an order where every base comes
// before its subclasses.
var exceptionClasses = []struct {
	name, base, message string
}{
	{"System.SystemException", "System.Exception", "System error."},
	{"System.ArithmeticException", "System.SystemException", "Overflow or underflow in the arithmetic operation."},
	{"System.DivideByZeroException", "System.ArithmeticException", "Attempted to divide by zero."},
	{"System.OverflowException", "System.ArithmeticException", "Arithmetic operation resulted in an overflow."},
	{"System.NullReferenceException", "System.SystemException", "Object reference not set to an instance of an object."},
	{"System.IndexOutOfRangeException", "System.SystemException", "Index was outside the bounds of the array."},
	{"System.InvalidCastException", "System.SystemException", "Specified cast is not valid."},
	{"System.ArrayTypeMismatchException", "System.SystemException", "Attempted to access an element as a type incompatible with the array."},
	{"System.ArgumentException", "System.SystemException", "Value does not fall within the expected range."},
	{"System.ArgumentOutOfRangeException", "System.ArgumentException", "Specified argument was out of the range of valid values."},
	{"System.ArgumentNullException", "System.ArgumentException", "Value cannot be null."},
	{"System.InvalidOperationException", "System.SystemException", "Operation is not valid due to the current state of the object."},
	{"System.NotSupportedException", "System.SystemException", "Specified method is not supported."},
	{"System.NotImplementedException", "System.SystemException", "The method or operation is not implemented."},
	{"System.FormatException", "System.SystemException", "One of the identified items was in an invalid format."},
	{"System.ApplicationException", "System.Exception", "Error in the application."},
	{"System.OutOfMemoryException", "System.SystemException", "Insufficient memory to continue the execution of the program."},
}

// BaseLibraryClasses returns the full names of the base library's classes,
// every base before its subclasses.
func BaseLibraryClasses() []string {
	names := []string{ObjectClass, StringClass, ConsoleClass, ExceptionClass}
	for _, e := range exceptionClasses {
		names = append(names, e.name)
	}
	return names
}

// DefaultMessage returns the message that the parameterless constructor of
// the named base library exception class stores, and false for
// System.Exception itself (whose Message is computed from the runtime type,
// see ExceptionDefaultMessage) and for classes outside the base library.
func DefaultMessage(class string) (string, bool) {
	for _, e := range exceptionClasses {
		if e.name == class {
			return e.message, true
		}
	}
	return "", false
}

// ExceptionDefaultMessage is the Message of an exception whose message was
// never set (System.Exception's parameterless constructor, or a null
// message): "Exception of type 'T' was thrown." with T the runtime type.
func ExceptionDefaultMessage(runtimeClass string) string {
	return "Exception of type '" + runtimeClass + "' was thrown."
}

// Names of base library classes and members that engines refer to.
const (
	ObjectClass    = "System.Object"
	StringClass    = "System.String"
	ConsoleClass   = "System.Console"
	ExceptionClass = "System.Exception"
	// MessageField is the hidden instance field of System.Exception that
	// holds the message (null: use the default).
	MessageField = "_message"
)

// consoleTypes are the parameter types of Console.Write/WriteLine.
var consoleTypes = []*Type{String, Bool, Char, Int32, UInt32, Int64, UInt64, Float64, Float32, Object}

// newBaseLibrary returns fresh base library classes by full name.
func newBaseLibrary() map[string]*Class {
	lib := map[string]*Class{}
	add := func(name string, base *Class) *Class {
		c := &Class{Name: name, Base: base, Builtin: true, Attrs: []string{"public"}}
		if base != nil {
			c.Extends = base.Type()
		}
		lib[name] = c
		return c
	}
	method := func(c *Class, name string, static, virtual bool, ret *Type, params ...*Type) *Method {
		m := &Method{Name: name, Owner: c, Static: static, Virtual: virtual, Ret: ret, Builtin: true, Slot: -1}
		m.Attrs = []string{"public"}
		if static {
			m.Attrs = append(m.Attrs, "static")
		}
		if virtual {
			m.Attrs = append(m.Attrs, "virtual")
		}
		for _, p := range params {
			m.Params = append(m.Params, &Param{Type: p})
		}
		c.Methods = append(c.Methods, m)
		return m
	}

	obj := add(ObjectClass, nil)
	method(obj, ".ctor", false, false, Void)
	method(obj, "ToString", false, true, String)

	str := add(StringClass, obj)
	method(str, "Concat", true, false, String, String, String)
	method(str, "Concat", true, false, String, String, String, String)
	method(str, "Concat", true, false, String, Object, Object)
	method(str, "get_Length", false, false, Int32)
	method(str, "op_Equality", true, false, Bool, String, String)

	con := add(ConsoleClass, obj)
	method(con, "WriteLine", true, false, Void)
	for _, t := range consoleTypes {
		method(con, "WriteLine", true, false, Void, t)
	}
	for _, t := range consoleTypes {
		method(con, "Write", true, false, Void, t)
	}

	exc := add(ExceptionClass, obj)
	exc.Fields = []*Field{{Name: MessageField, Type: String, Owner: exc, Attrs: []string{"private"}}}
	method(exc, ".ctor", false, false, Void)
	method(exc, ".ctor", false, false, Void, String)
	method(exc, "get_Message", false, true, String)
	method(exc, "ToString", false, true, String)

	for _, e := range exceptionClasses {
		c := add(e.name, lib[e.base])
		method(c, ".ctor", false, false, Void)
		method(c, ".ctor", false, false, Void, String)
	}
	return lib
}

// DefaultMaxCallDepth is the call depth both engines allow a run by
// default: the entry point is at depth 1, each method call one deeper (a
// handler or filter runs at its method's depth, a base library method at
// its caller's). A call deeper than the limit ends the run with a stack
// overflow, as CoreCLR does when its stack runs out.
const DefaultMaxCallDepth = 1_000_000

// MaxCallbackDepth is how deep base library methods that call managed code
// back (Console.WriteLine(object) or String.Concat(object, object) calling
// an overridden ToString, an overridden get_Message) may nest, on both
// engines: the JIT serves each such call with a Go frame of a few KiB.
// Deeper nesting ends the run with a stack overflow.
const MaxCallbackDepth = 10_000

// The managed heap's object sizes. Both engines charge every allocation
// against the heap limit (Config.MaxHeap) with these formulas, which are
// the JIT's object layout (see jitrt/abi.go): an 8-byte method table
// pointer, then 8-byte field slots; arrays and strings add an 8-byte
// length and pack their elements; every object is 8-byte aligned. With no
// collector yet, the charge is cumulative: an engine throws
// OutOfMemoryException once the bytes allocated in a run would exceed the
// limit, at the same allocation on both engines.

const (
	// OutOfMemoryClass is the exception both engines throw when the
	// managed heap limit is reached or an array is too long.
	OutOfMemoryClass = "System.OutOfMemoryException"
	// ArrayTooLongMessage is CoreCLR's message (64-bit) for newarr with
	// more than MaxArrayLength elements (an OutOfMemoryException) or more
	// than 2^31-1 (an OverflowException).
	ArrayTooLongMessage = "Array dimensions exceeded supported range."
)

// MaxArrayLength is the most elements an array may have (CoreCLR's
// Array.MaxLength); newarr beyond it throws OutOfMemoryException.
const MaxArrayLength = 0x7FFFFFC7

// ObjectSize returns the heap size of an instance of a class with
// numFields instance fields (inherited ones included).
func ObjectSize(numFields int) int64 { return 8 + 8*int64(numFields) }

// BoxSize is the heap size of a boxed primitive.
const BoxSize = 16

// ArraySize returns the heap size of an array of n elements of type elem
// (0 <= n <= MaxArrayLength).
func ArraySize(elem *Type, n int64) int64 { return align8(16 + n*int64(ElemSize(elem))) }

// StringSize returns the heap size of a string of n UTF-16 code units.
func StringSize(n int) int64 { return align8(16 + 2*int64(n)) }

// ElemSize returns the size in bytes of an array element of type t: the
// natural size of a primitive, 8 for references and 64-bit values.
func ElemSize(t *Type) int {
	switch t.Kind {
	case KBool, KI1, KU1:
		return 1
	case KChar, KI2, KU2:
		return 2
	case KI4, KU4, KR4:
		return 4
	}
	return 8
}

func align8(n int64) int64 { return (n + 7) &^ 7 }
