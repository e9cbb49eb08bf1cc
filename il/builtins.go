package il

import (
	"fmt"
	"strings"
)

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
	{"System.InvalidProgramException", "System.SystemException", "Common Language Runtime detected an invalid program."},
	// TypeInitializationException has no public constructor but
	// .ctor(string fullTypeName, Exception innerException); its default
	// message is the one CoreCLR's private parameterless constructor sets.
	{TypeInitializationClass, "System.SystemException", "Type constructor threw an exception."},
}

// sealedExceptions are the exception classes of exceptionClasses that
// .NET declares sealed: programs cannot extend them.
var sealedExceptions = map[string]bool{"System.InvalidProgramException": true, TypeInitializationClass: true}

// BaseLibraryClasses returns the full names of the base library's classes,
// every base before its subclasses.
func BaseLibraryClasses() []string {
	names := []string{ObjectClass, ValueTypeClass, StringClass, ConsoleClass, ExceptionClass}
	for _, e := range exceptionClasses {
		names = append(names, e.name)
	}
	names = append(names, StringBuilderClass)
	return append(names, staticClasses...)
}

// staticClasses are the base library's classes of static members only
// (all extend System.Object).
var staticClasses = []string{MathClass, Int32Class, Int64Class, DoubleClass, EnvironmentClass, StopwatchClass,
	UInt32Class, UInt64Class, SingleClass, BooleanClass, CharClass}

// staticFieldClasses are the base library classes that have static
// fields, in the order Module.StaticFields numbers them.
var staticFieldClasses = append(staticClasses[:len(staticClasses):len(staticClasses)], StringClass)

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
	ValueTypeClass = "System.ValueType"
	StringClass    = "System.String"
	ConsoleClass   = "System.Console"
	ExceptionClass = "System.Exception"
	// MessageField is the hidden instance field of System.Exception that
	// holds the message (null: use the default).
	MessageField = "_message"
	// InnerExceptionField is the hidden instance field of System.Exception
	// that holds InnerException (slot 1, after MessageField).
	InnerExceptionField = "_innerException"
	// TypeInitializationClass is the exception whose two-argument
	// constructor takes a type name, not a message.
	TypeInitializationClass = "System.TypeInitializationException"

	MathClass        = "System.Math"
	Int32Class       = "System.Int32" // its static Parse and ToString; int32 itself is a primitive type
	Int64Class       = "System.Int64"
	DoubleClass      = "System.Double"
	UInt32Class      = "System.UInt32" // its ToString; uint32 itself is a primitive type
	UInt64Class      = "System.UInt64"
	SingleClass      = "System.Single"
	BooleanClass     = "System.Boolean"
	CharClass        = "System.Char"
	EnvironmentClass = "System.Environment"
	StopwatchClass   = "System.Diagnostics.Stopwatch" // in .NET's [System] assembly
)

// Messages of Exception.ToString and TypeInitializationException.
const (
	// InnerExceptionPrefix starts an inner exception in ToString, after a
	// line break.
	InnerExceptionPrefix = " ---> "
	// EndOfInnerExceptionStack closes it, on a line of its own after
	// three spaces.
	EndOfInnerExceptionStack = "--- End of inner exception stack trace ---"
)

// WriteException writes what CoreCLR's Exception.ToString returns (and its
// report of an unhandled exception, after "Unhandled exception. "): TYPE,
// ": MESSAGE" unless the message is empty, the inner exception (written by
// inner, nil for none) between its markers, then an "at" line per frame.
func WriteException(b *strings.Builder, typ, msg string, trace []string, inner func(*strings.Builder)) {
	b.WriteString(typ)
	if msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	if inner != nil {
		b.WriteString("\n" + InnerExceptionPrefix)
		inner(b)
		b.WriteString("\n   " + EndOfInnerExceptionStack)
	}
	for _, t := range trace {
		b.WriteString("\n   at ")
		b.WriteString(t)
	}
}

// TypeInitializationMessage is the Message of a
// TypeInitializationException for the type named fullTypeName (a null
// name prints as empty).
func TypeInitializationMessage(fullTypeName string) string {
	return "The type initializer for '" + fullTypeName + "' threw an exception."
}

// StopwatchFrequency is the value of Stopwatch.Frequency: on Linux, .NET's
// Stopwatch counts nanoseconds of CLOCK_MONOTONIC.
const StopwatchFrequency = 1_000_000_000

// builtinStaticFields declares the base library's static fields (all
// read-only, initonly in .NET) and the value each run starts with, in the
// engines' 64-bit form (integers sign-extended, floats as float64 bits).
var builtinStaticFields = []struct {
	class, name string
	typ         *Type
	value       int64
}{
	{StopwatchClass, "Frequency", Int64, StopwatchFrequency},
	// String.Empty: a string field starts as "" (the interned literal),
	// its value unused.
	{StringClass, "Empty", String, 0},
}

// BuiltinKind identifies a base library method: one kind per method
// (class, name and signature), declared together with it in builtinDecls.
// Resolution sets Method.BuiltinKind once on the module's copy of each
// base library method, so the engines and the code generator switch on
// the kind instead of matching names; it is BuiltinNone for every method
// with a body. Kinds are small integers fixed at build time (the JIT's
// base library exits pass them to the runtime).
type BuiltinKind uint16

// Base library method kinds, in the order the methods are declared in
// their classes (which fixes the vtable slots).
const (
	BuiltinNone BuiltinKind = iota // not a base library method

	ObjectCtor     // System.Object::.ctor()
	ObjectToString // System.Object::ToString()

	StringConcatStringString       // System.String::Concat(string, string)
	StringConcatStringStringString // System.String::Concat(string, string, string)
	StringConcatObjectObject       // System.String::Concat(object, object)
	StringGetLength                // System.String::get_Length()
	StringOpEquality               // System.String::op_Equality(string, string)

	StringGetChars                       // System.String::get_Chars(int32)
	StringSubstringInt32                 // System.String::Substring(int32)
	StringSubstringInt32Int32            // System.String::Substring(int32, int32)
	StringIndexOfChar                    // System.String::IndexOf(char)
	StringIndexOfString                  // System.String::IndexOf(string)
	StringEqualsString                   // System.String::Equals(string)
	StringCompareOrdinal                 // System.String::CompareOrdinal(string, string)
	StringConcatStringStringStringString // System.String::Concat(string, string, string, string)
	StringConcatStringArray              // System.String::Concat(string[])
	StringToUpperInvariant               // System.String::ToUpperInvariant()
	StringToLowerInvariant               // System.String::ToLowerInvariant()
	StringCtorCharInt32                  // System.String::.ctor(char, int32), called by newobj (see Method.NewobjCall)

	ConsoleWriteLine        // System.Console::WriteLine()
	ConsoleWriteLineString  // System.Console::WriteLine(string)
	ConsoleWriteLineBoolean // System.Console::WriteLine(bool)
	ConsoleWriteLineChar    // System.Console::WriteLine(char)
	ConsoleWriteLineInt32   // System.Console::WriteLine(int32)
	ConsoleWriteLineUInt32  // System.Console::WriteLine(uint32)
	ConsoleWriteLineInt64   // System.Console::WriteLine(int64)
	ConsoleWriteLineUInt64  // System.Console::WriteLine(uint64)
	ConsoleWriteLineDouble  // System.Console::WriteLine(float64)
	ConsoleWriteLineSingle  // System.Console::WriteLine(float32)
	ConsoleWriteLineObject  // System.Console::WriteLine(object)
	ConsoleWriteString      // System.Console::Write(string)
	ConsoleWriteBoolean     // System.Console::Write(bool)
	ConsoleWriteChar        // System.Console::Write(char)
	ConsoleWriteInt32       // System.Console::Write(int32)
	ConsoleWriteUInt32      // System.Console::Write(uint32)
	ConsoleWriteInt64       // System.Console::Write(int64)
	ConsoleWriteUInt64      // System.Console::Write(uint64)
	ConsoleWriteDouble      // System.Console::Write(float64)
	ConsoleWriteSingle      // System.Console::Write(float32)
	ConsoleWriteObject      // System.Console::Write(object)

	// System.Math, the Parse methods and the clocks: static methods.
	MathSqrt                  // System.Math::Sqrt(float64)
	MathAbsDouble             // System.Math::Abs(float64)
	MathAbsInt32              // System.Math::Abs(int32)
	MathAbsInt64              // System.Math::Abs(int64)
	MathMinDouble             // System.Math::Min(float64, float64)
	MathMinInt32              // System.Math::Min(int32, int32)
	MathMinInt64              // System.Math::Min(int64, int64)
	MathMaxDouble             // System.Math::Max(float64, float64)
	MathMaxInt32              // System.Math::Max(int32, int32)
	MathMaxInt64              // System.Math::Max(int64, int64)
	MathFloor                 // System.Math::Floor(float64)
	MathCeiling               // System.Math::Ceiling(float64)
	MathRound                 // System.Math::Round(float64)
	MathTruncate              // System.Math::Truncate(float64)
	MathPow                   // System.Math::Pow(float64, float64)
	MathExp                   // System.Math::Exp(float64)
	MathLog                   // System.Math::Log(float64)
	MathLog10                 // System.Math::Log10(float64)
	MathSin                   // System.Math::Sin(float64)
	MathCos                   // System.Math::Cos(float64)
	MathTan                   // System.Math::Tan(float64)
	MathAtan                  // System.Math::Atan(float64)
	MathAtan2                 // System.Math::Atan2(float64 y, float64 x)
	Int32Parse                // System.Int32::Parse(string)
	Int64Parse                // System.Int64::Parse(string)
	DoubleParse               // System.Double::Parse(string)
	EnvironmentGetTickCount64 // System.Environment::get_TickCount64()
	StopwatchGetTimestamp     // System.Diagnostics.Stopwatch::GetTimestamp()

	ExceptionCtor       // System.Exception::.ctor()
	ExceptionCtorString // System.Exception::.ctor(string message)
	ExceptionGetMessage // System.Exception::get_Message()
	ExceptionToString   // System.Exception::ToString()

	// The constructors of the exception classes in exceptionClasses: the
	// parameterless one stores the class's default message, the other
	// takes the message (ArgumentNullException and
	// ArgumentOutOfRangeException: the parameter name).
	SystemExceptionCtor
	SystemExceptionCtorString
	ArithmeticExceptionCtor
	ArithmeticExceptionCtorString
	DivideByZeroExceptionCtor
	DivideByZeroExceptionCtorString
	OverflowExceptionCtor
	OverflowExceptionCtorString
	NullReferenceExceptionCtor
	NullReferenceExceptionCtorString
	IndexOutOfRangeExceptionCtor
	IndexOutOfRangeExceptionCtorString
	InvalidCastExceptionCtor
	InvalidCastExceptionCtorString
	ArrayTypeMismatchExceptionCtor
	ArrayTypeMismatchExceptionCtorString
	ArgumentExceptionCtor
	ArgumentExceptionCtorString
	ArgumentOutOfRangeExceptionCtor
	ArgumentOutOfRangeExceptionCtorString // .ctor(string paramName)
	ArgumentNullExceptionCtor
	ArgumentNullExceptionCtorString // .ctor(string paramName)
	InvalidOperationExceptionCtor
	InvalidOperationExceptionCtorString
	NotSupportedExceptionCtor
	NotSupportedExceptionCtorString
	NotImplementedExceptionCtor
	NotImplementedExceptionCtorString
	FormatExceptionCtor
	FormatExceptionCtorString
	ApplicationExceptionCtor
	ApplicationExceptionCtorString
	OutOfMemoryExceptionCtor
	OutOfMemoryExceptionCtorString

	// Inner exceptions: .ctor(string message, Exception innerException)
	// of System.Exception and of every base library exception class, and
	// InnerException.
	ExceptionCtorStringException
	ExceptionGetInnerException // System.Exception::get_InnerException()
	SystemExceptionCtorStringException
	ArithmeticExceptionCtorStringException
	DivideByZeroExceptionCtorStringException
	OverflowExceptionCtorStringException
	NullReferenceExceptionCtorStringException
	IndexOutOfRangeExceptionCtorStringException
	InvalidCastExceptionCtorStringException
	ArrayTypeMismatchExceptionCtorStringException
	ArgumentExceptionCtorStringException
	ArgumentOutOfRangeExceptionCtorStringException // .ctor(string message, Exception)
	ArgumentNullExceptionCtorStringException       // .ctor(string message, Exception)
	InvalidOperationExceptionCtorStringException
	NotSupportedExceptionCtorStringException
	NotImplementedExceptionCtorStringException
	FormatExceptionCtorStringException
	ApplicationExceptionCtorStringException
	OutOfMemoryExceptionCtorStringException
	InvalidProgramExceptionCtor
	InvalidProgramExceptionCtorString
	InvalidProgramExceptionCtorStringException
	TypeInitializationExceptionCtorStringException // .ctor(string fullTypeName, Exception)

	// System.Text.StringBuilder (see stringbuilder.go): a contiguous run
	// of kinds, from StringBuilderCtor to StringBuilderSetLength.
	StringBuilderCtor          // System.Text.StringBuilder::.ctor()
	StringBuilderCtorInt32     // System.Text.StringBuilder::.ctor(int32 capacity)
	StringBuilderAppendString  // System.Text.StringBuilder::Append(string)
	StringBuilderAppendChar    // System.Text.StringBuilder::Append(char)
	StringBuilderAppendBoolean // System.Text.StringBuilder::Append(bool)
	StringBuilderAppendInt32   // System.Text.StringBuilder::Append(int32)
	StringBuilderAppendUInt32  // System.Text.StringBuilder::Append(uint32)
	StringBuilderAppendInt64   // System.Text.StringBuilder::Append(int64)
	StringBuilderAppendUInt64  // System.Text.StringBuilder::Append(uint64)
	StringBuilderAppendDouble  // System.Text.StringBuilder::Append(float64)
	StringBuilderAppendSingle  // System.Text.StringBuilder::Append(float32)
	StringBuilderAppendObject  // System.Text.StringBuilder::Append(object)
	StringBuilderToString      // System.Text.StringBuilder::ToString(), virtual
	StringBuilderGetLength     // System.Text.StringBuilder::get_Length()
	StringBuilderClear         // System.Text.StringBuilder::Clear()
	StringBuilderGetChars      // System.Text.StringBuilder::get_Chars(int32)
	StringBuilderSetLength     // System.Text.StringBuilder::set_Length(int32)
	// ToString of the primitive types, instance methods of their classes
	// called on a managed pointer to the value (Method.ThisType), which
	// format it as Console.Write does.
	Int32ToString   // System.Int32::ToString()
	Int64ToString   // System.Int64::ToString()
	UInt32ToString  // System.UInt32::ToString()
	UInt64ToString  // System.UInt64::ToString()
	DoubleToString  // System.Double::ToString()
	SingleToString  // System.Single::ToString()
	BooleanToString // System.Boolean::ToString()
	CharToString    // System.Char::ToString()

	// Members C# compilers emit constantly (see il/library.go), appended
	// after the others so that the kinds above keep their numbers.
	ObjectEquals                   // System.Object::Equals(object), virtual
	ObjectReferenceEquals          // System.Object::ReferenceEquals(object, object)
	StringOpInequality             // System.String::op_Inequality(string, string)
	StringConcatObjectObjectObject // System.String::Concat(object, object, object)
	StringConcatObjectArray        // System.String::Concat(object[])
	StringIndexOfCharInt32         // System.String::IndexOf(char, int32)
	StringIndexOfStringInt32       // System.String::IndexOf(string, int32)
	StringLastIndexOfChar          // System.String::LastIndexOf(char)
	StringContains                 // System.String::Contains(string)
	StringStartsWith               // System.String::StartsWith(string)
	StringEndsWith                 // System.String::EndsWith(string)
	StringEqualsObject             // System.String::Equals(object), virtual (overrides Object's)

	numBuiltinKinds
)

// callKind is how a base library method is called.
type callKind uint8

const (
	callInstance callKind = iota
	callStatic
	callVirtual
)

// builtinDecl declares a base library method.
type builtinDecl struct {
	class   string // full name of the declaring class
	name    string
	call    callKind
	ret     *Type
	params  []*Type
	excCtor bool // a constructor of System.Exception or of a subclass
}

func staticMethod(class, name string, ret *Type, params ...*Type) builtinDecl {
	return builtinDecl{class: class, name: name, call: callStatic, ret: ret, params: params}
}

func instanceMethod(class, name string, ret *Type, params ...*Type) builtinDecl {
	return builtinDecl{class: class, name: name, call: callInstance, ret: ret, params: params}
}

func virtualMethod(class, name string, ret *Type, params ...*Type) builtinDecl {
	return builtinDecl{class: class, name: name, call: callVirtual, ret: ret, params: params}
}

func exceptionCtor(class string, params ...*Type) builtinDecl {
	return builtinDecl{class: class, name: ".ctor", call: callInstance, ret: Void, params: params, excCtor: true}
}

// builtinDecls declares the base library's methods by kind. Every kind but
// BuiltinNone has an entry; a class's methods are added to it in kind
// order.
var builtinDecls = [numBuiltinKinds]builtinDecl{
	ObjectCtor:     instanceMethod(ObjectClass, ".ctor", Void),
	ObjectToString: virtualMethod(ObjectClass, "ToString", String),

	StringConcatStringString:       staticMethod(StringClass, "Concat", String, String, String),
	StringConcatStringStringString: staticMethod(StringClass, "Concat", String, String, String, String),
	StringConcatObjectObject:       staticMethod(StringClass, "Concat", String, Object, Object),
	StringGetLength:                instanceMethod(StringClass, "get_Length", Int32),
	StringOpEquality:               staticMethod(StringClass, "op_Equality", Bool, String, String),

	StringGetChars:                       instanceMethod(StringClass, "get_Chars", Char, Int32),
	StringSubstringInt32:                 instanceMethod(StringClass, "Substring", String, Int32),
	StringSubstringInt32Int32:            instanceMethod(StringClass, "Substring", String, Int32, Int32),
	StringIndexOfChar:                    instanceMethod(StringClass, "IndexOf", Int32, Char),
	StringIndexOfString:                  instanceMethod(StringClass, "IndexOf", Int32, String),
	StringEqualsString:                   instanceMethod(StringClass, "Equals", Bool, String),
	StringCompareOrdinal:                 staticMethod(StringClass, "CompareOrdinal", Int32, String, String),
	StringConcatStringStringStringString: staticMethod(StringClass, "Concat", String, String, String, String, String),
	StringConcatStringArray:              staticMethod(StringClass, "Concat", String, ArrayOf(String)),
	StringToUpperInvariant:               instanceMethod(StringClass, "ToUpperInvariant", String),
	StringToLowerInvariant:               instanceMethod(StringClass, "ToLowerInvariant", String),
	StringCtorCharInt32:                  instanceMethod(StringClass, ".ctor", Void, Char, Int32),

	ConsoleWriteLine:        staticMethod(ConsoleClass, "WriteLine", Void),
	ConsoleWriteLineString:  staticMethod(ConsoleClass, "WriteLine", Void, String),
	ConsoleWriteLineBoolean: staticMethod(ConsoleClass, "WriteLine", Void, Bool),
	ConsoleWriteLineChar:    staticMethod(ConsoleClass, "WriteLine", Void, Char),
	ConsoleWriteLineInt32:   staticMethod(ConsoleClass, "WriteLine", Void, Int32),
	ConsoleWriteLineUInt32:  staticMethod(ConsoleClass, "WriteLine", Void, UInt32),
	ConsoleWriteLineInt64:   staticMethod(ConsoleClass, "WriteLine", Void, Int64),
	ConsoleWriteLineUInt64:  staticMethod(ConsoleClass, "WriteLine", Void, UInt64),
	ConsoleWriteLineDouble:  staticMethod(ConsoleClass, "WriteLine", Void, Float64),
	ConsoleWriteLineSingle:  staticMethod(ConsoleClass, "WriteLine", Void, Float32),
	ConsoleWriteLineObject:  staticMethod(ConsoleClass, "WriteLine", Void, Object),
	ConsoleWriteString:      staticMethod(ConsoleClass, "Write", Void, String),
	ConsoleWriteBoolean:     staticMethod(ConsoleClass, "Write", Void, Bool),
	ConsoleWriteChar:        staticMethod(ConsoleClass, "Write", Void, Char),
	ConsoleWriteInt32:       staticMethod(ConsoleClass, "Write", Void, Int32),
	ConsoleWriteUInt32:      staticMethod(ConsoleClass, "Write", Void, UInt32),
	ConsoleWriteInt64:       staticMethod(ConsoleClass, "Write", Void, Int64),
	ConsoleWriteUInt64:      staticMethod(ConsoleClass, "Write", Void, UInt64),
	ConsoleWriteDouble:      staticMethod(ConsoleClass, "Write", Void, Float64),
	ConsoleWriteSingle:      staticMethod(ConsoleClass, "Write", Void, Float32),
	ConsoleWriteObject:      staticMethod(ConsoleClass, "Write", Void, Object),

	MathSqrt:                  staticMethod(MathClass, "Sqrt", Float64, Float64),
	MathAbsDouble:             staticMethod(MathClass, "Abs", Float64, Float64),
	MathAbsInt32:              staticMethod(MathClass, "Abs", Int32, Int32),
	MathAbsInt64:              staticMethod(MathClass, "Abs", Int64, Int64),
	MathMinDouble:             staticMethod(MathClass, "Min", Float64, Float64, Float64),
	MathMinInt32:              staticMethod(MathClass, "Min", Int32, Int32, Int32),
	MathMinInt64:              staticMethod(MathClass, "Min", Int64, Int64, Int64),
	MathMaxDouble:             staticMethod(MathClass, "Max", Float64, Float64, Float64),
	MathMaxInt32:              staticMethod(MathClass, "Max", Int32, Int32, Int32),
	MathMaxInt64:              staticMethod(MathClass, "Max", Int64, Int64, Int64),
	MathFloor:                 staticMethod(MathClass, "Floor", Float64, Float64),
	MathCeiling:               staticMethod(MathClass, "Ceiling", Float64, Float64),
	MathRound:                 staticMethod(MathClass, "Round", Float64, Float64),
	MathTruncate:              staticMethod(MathClass, "Truncate", Float64, Float64),
	MathPow:                   staticMethod(MathClass, "Pow", Float64, Float64, Float64),
	MathExp:                   staticMethod(MathClass, "Exp", Float64, Float64),
	MathLog:                   staticMethod(MathClass, "Log", Float64, Float64),
	MathLog10:                 staticMethod(MathClass, "Log10", Float64, Float64),
	MathSin:                   staticMethod(MathClass, "Sin", Float64, Float64),
	MathCos:                   staticMethod(MathClass, "Cos", Float64, Float64),
	MathTan:                   staticMethod(MathClass, "Tan", Float64, Float64),
	MathAtan:                  staticMethod(MathClass, "Atan", Float64, Float64),
	MathAtan2:                 staticMethod(MathClass, "Atan2", Float64, Float64, Float64),
	Int32Parse:                staticMethod(Int32Class, "Parse", Int32, String),
	Int64Parse:                staticMethod(Int64Class, "Parse", Int64, String),
	DoubleParse:               staticMethod(DoubleClass, "Parse", Float64, String),
	EnvironmentGetTickCount64: staticMethod(EnvironmentClass, "get_TickCount64", Int64),
	StopwatchGetTimestamp:     staticMethod(StopwatchClass, "GetTimestamp", Int64),

	ExceptionCtor:       exceptionCtor(ExceptionClass),
	ExceptionCtorString: exceptionCtor(ExceptionClass, String),
	ExceptionGetMessage: virtualMethod(ExceptionClass, "get_Message", String),
	ExceptionToString:   virtualMethod(ExceptionClass, "ToString", String),

	SystemExceptionCtor:                   exceptionCtor("System.SystemException"),
	SystemExceptionCtorString:             exceptionCtor("System.SystemException", String),
	ArithmeticExceptionCtor:               exceptionCtor("System.ArithmeticException"),
	ArithmeticExceptionCtorString:         exceptionCtor("System.ArithmeticException", String),
	DivideByZeroExceptionCtor:             exceptionCtor("System.DivideByZeroException"),
	DivideByZeroExceptionCtorString:       exceptionCtor("System.DivideByZeroException", String),
	OverflowExceptionCtor:                 exceptionCtor("System.OverflowException"),
	OverflowExceptionCtorString:           exceptionCtor("System.OverflowException", String),
	NullReferenceExceptionCtor:            exceptionCtor("System.NullReferenceException"),
	NullReferenceExceptionCtorString:      exceptionCtor("System.NullReferenceException", String),
	IndexOutOfRangeExceptionCtor:          exceptionCtor("System.IndexOutOfRangeException"),
	IndexOutOfRangeExceptionCtorString:    exceptionCtor("System.IndexOutOfRangeException", String),
	InvalidCastExceptionCtor:              exceptionCtor("System.InvalidCastException"),
	InvalidCastExceptionCtorString:        exceptionCtor("System.InvalidCastException", String),
	ArrayTypeMismatchExceptionCtor:        exceptionCtor("System.ArrayTypeMismatchException"),
	ArrayTypeMismatchExceptionCtorString:  exceptionCtor("System.ArrayTypeMismatchException", String),
	ArgumentExceptionCtor:                 exceptionCtor("System.ArgumentException"),
	ArgumentExceptionCtorString:           exceptionCtor("System.ArgumentException", String),
	ArgumentOutOfRangeExceptionCtor:       exceptionCtor("System.ArgumentOutOfRangeException"),
	ArgumentOutOfRangeExceptionCtorString: exceptionCtor("System.ArgumentOutOfRangeException", String),
	ArgumentNullExceptionCtor:             exceptionCtor("System.ArgumentNullException"),
	ArgumentNullExceptionCtorString:       exceptionCtor("System.ArgumentNullException", String),
	InvalidOperationExceptionCtor:         exceptionCtor("System.InvalidOperationException"),
	InvalidOperationExceptionCtorString:   exceptionCtor("System.InvalidOperationException", String),
	NotSupportedExceptionCtor:             exceptionCtor("System.NotSupportedException"),
	NotSupportedExceptionCtorString:       exceptionCtor("System.NotSupportedException", String),
	NotImplementedExceptionCtor:           exceptionCtor("System.NotImplementedException"),
	NotImplementedExceptionCtorString:     exceptionCtor("System.NotImplementedException", String),
	FormatExceptionCtor:                   exceptionCtor("System.FormatException"),
	FormatExceptionCtorString:             exceptionCtor("System.FormatException", String),
	ApplicationExceptionCtor:              exceptionCtor("System.ApplicationException"),
	ApplicationExceptionCtorString:        exceptionCtor("System.ApplicationException", String),
	OutOfMemoryExceptionCtor:              exceptionCtor(OutOfMemoryClass),
	OutOfMemoryExceptionCtorString:        exceptionCtor(OutOfMemoryClass, String),

	ExceptionCtorStringException:                   exceptionCtor(ExceptionClass, String, excType),
	ExceptionGetInnerException:                     instanceMethod(ExceptionClass, "get_InnerException", excType),
	SystemExceptionCtorStringException:             exceptionCtor("System.SystemException", String, excType),
	ArithmeticExceptionCtorStringException:         exceptionCtor("System.ArithmeticException", String, excType),
	DivideByZeroExceptionCtorStringException:       exceptionCtor("System.DivideByZeroException", String, excType),
	OverflowExceptionCtorStringException:           exceptionCtor("System.OverflowException", String, excType),
	NullReferenceExceptionCtorStringException:      exceptionCtor("System.NullReferenceException", String, excType),
	IndexOutOfRangeExceptionCtorStringException:    exceptionCtor("System.IndexOutOfRangeException", String, excType),
	InvalidCastExceptionCtorStringException:        exceptionCtor("System.InvalidCastException", String, excType),
	ArrayTypeMismatchExceptionCtorStringException:  exceptionCtor("System.ArrayTypeMismatchException", String, excType),
	ArgumentExceptionCtorStringException:           exceptionCtor("System.ArgumentException", String, excType),
	ArgumentOutOfRangeExceptionCtorStringException: exceptionCtor("System.ArgumentOutOfRangeException", String, excType),
	ArgumentNullExceptionCtorStringException:       exceptionCtor("System.ArgumentNullException", String, excType),
	InvalidOperationExceptionCtorStringException:   exceptionCtor("System.InvalidOperationException", String, excType),
	NotSupportedExceptionCtorStringException:       exceptionCtor("System.NotSupportedException", String, excType),
	NotImplementedExceptionCtorStringException:     exceptionCtor("System.NotImplementedException", String, excType),
	FormatExceptionCtorStringException:             exceptionCtor("System.FormatException", String, excType),
	ApplicationExceptionCtorStringException:        exceptionCtor("System.ApplicationException", String, excType),
	OutOfMemoryExceptionCtorStringException:        exceptionCtor(OutOfMemoryClass, String, excType),
	InvalidProgramExceptionCtor:                    exceptionCtor("System.InvalidProgramException"),
	InvalidProgramExceptionCtorString:              exceptionCtor("System.InvalidProgramException", String),
	InvalidProgramExceptionCtorStringException:     exceptionCtor("System.InvalidProgramException", String, excType),
	TypeInitializationExceptionCtorStringException: exceptionCtor(TypeInitializationClass, String, excType),

	StringBuilderCtor:          instanceMethod(StringBuilderClass, ".ctor", Void),
	StringBuilderCtorInt32:     instanceMethod(StringBuilderClass, ".ctor", Void, Int32),
	StringBuilderAppendString:  instanceMethod(StringBuilderClass, "Append", sbType, String),
	StringBuilderAppendChar:    instanceMethod(StringBuilderClass, "Append", sbType, Char),
	StringBuilderAppendBoolean: instanceMethod(StringBuilderClass, "Append", sbType, Bool),
	StringBuilderAppendInt32:   instanceMethod(StringBuilderClass, "Append", sbType, Int32),
	StringBuilderAppendUInt32:  instanceMethod(StringBuilderClass, "Append", sbType, UInt32),
	StringBuilderAppendInt64:   instanceMethod(StringBuilderClass, "Append", sbType, Int64),
	StringBuilderAppendUInt64:  instanceMethod(StringBuilderClass, "Append", sbType, UInt64),
	StringBuilderAppendDouble:  instanceMethod(StringBuilderClass, "Append", sbType, Float64),
	StringBuilderAppendSingle:  instanceMethod(StringBuilderClass, "Append", sbType, Float32),
	StringBuilderAppendObject:  instanceMethod(StringBuilderClass, "Append", sbType, Object),
	StringBuilderToString:      virtualMethod(StringBuilderClass, "ToString", String),
	StringBuilderGetLength:     instanceMethod(StringBuilderClass, "get_Length", Int32),
	StringBuilderClear:         instanceMethod(StringBuilderClass, "Clear", sbType),
	StringBuilderGetChars:      instanceMethod(StringBuilderClass, "get_Chars", Char, Int32),
	StringBuilderSetLength:     instanceMethod(StringBuilderClass, "set_Length", Void, Int32),
	Int32ToString:              instanceMethod(Int32Class, "ToString", String),
	Int64ToString:              instanceMethod(Int64Class, "ToString", String),
	UInt32ToString:             instanceMethod(UInt32Class, "ToString", String),
	UInt64ToString:             instanceMethod(UInt64Class, "ToString", String),
	DoubleToString:             instanceMethod(DoubleClass, "ToString", String),
	SingleToString:             instanceMethod(SingleClass, "ToString", String),
	BooleanToString:            instanceMethod(BooleanClass, "ToString", String),
	CharToString:               instanceMethod(CharClass, "ToString", String),

	ObjectEquals:                   virtualMethod(ObjectClass, "Equals", Bool, Object),
	ObjectReferenceEquals:          staticMethod(ObjectClass, "ReferenceEquals", Bool, Object, Object),
	StringOpInequality:             staticMethod(StringClass, "op_Inequality", Bool, String, String),
	StringConcatObjectObjectObject: staticMethod(StringClass, "Concat", String, Object, Object, Object),
	StringConcatObjectArray:        staticMethod(StringClass, "Concat", String, ArrayOf(Object)),
	StringIndexOfCharInt32:         instanceMethod(StringClass, "IndexOf", Int32, Char, Int32),
	StringIndexOfStringInt32:       instanceMethod(StringClass, "IndexOf", Int32, String, Int32),
	StringLastIndexOfChar:          instanceMethod(StringClass, "LastIndexOf", Int32, Char),
	StringContains:                 instanceMethod(StringClass, "Contains", Bool, String),
	StringStartsWith:               instanceMethod(StringClass, "StartsWith", Bool, String),
	StringEndsWith:                 instanceMethod(StringClass, "EndsWith", Bool, String),
	StringEqualsObject:             virtualMethod(StringClass, "Equals", Bool, Object),
}

// PrimitiveToString returns the primitive type whose ToString k is (nil
// for other kinds): the type of the value its this points to.
func (k BuiltinKind) PrimitiveToString() *Type {
	if k < Int32ToString || k > CharToString {
		return nil
	}
	return primitiveOfClass[builtinDecls[k].class]
}

// sbType is the builder class type that Append and Clear return, a
// template like excType.
var sbType = ClassType(StringBuilderClass)

// excType is the parameter and result type class System.Exception in
// builtinDecls: a template that newBaseLibrary copies for each module
// (with the module's class), never resolved itself.
var excType = ClassType(ExceptionClass)

// BuiltinKinds returns every base library method kind (BuiltinNone
// excluded), in order.
func BuiltinKinds() []BuiltinKind {
	ks := make([]BuiltinKind, 0, numBuiltinKinds-1)
	for k := BuiltinNone + 1; k < numBuiltinKinds; k++ {
		ks = append(ks, k)
	}
	return ks
}

// String returns the method a kind stands for in the form stack traces
// use, Class.Name(parameter types): "String.Concat(string,string)",
// "Exception..ctor()"; "none" for BuiltinNone.
func (k BuiltinKind) String() string {
	if k == BuiltinNone {
		return "none"
	}
	if k >= numBuiltinKinds {
		return fmt.Sprintf("BuiltinKind(%d)", uint16(k))
	}
	d := &builtinDecls[k]
	var b strings.Builder
	b.WriteString(strings.TrimPrefix(d.class, "System."))
	b.WriteByte('.')
	b.WriteString(d.name)
	b.WriteByte('(')
	for i, p := range d.params {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.String())
	}
	b.WriteByte(')')
	return b.String()
}

// IsExceptionCtor reports whether k is a constructor of System.Exception
// or of one of the base library's exception classes.
func (k BuiltinKind) IsExceptionCtor() bool {
	return k < numBuiltinKinds && builtinDecls[k].excCtor
}

// NumParams returns the number of parameters (this excluded) of the
// method of kind k (0 for an unknown kind).
func (k BuiltinKind) NumParams() int {
	if k >= numBuiltinKinds {
		return 0
	}
	return len(builtinDecls[k].params)
}

// BuiltinMethods returns the module's base library methods indexed by
// kind (nil at BuiltinNone).
func (m *Module) BuiltinMethods() []*Method {
	ms := make([]*Method, numBuiltinKinds)
	for k := BuiltinNone + 1; k < numBuiltinKinds; k++ {
		ms[k] = m.BuiltinMethod(k)
	}
	return ms
}

// BuiltinMethod returns the module's base library method of kind k (nil
// for BuiltinNone, an unknown kind, or a module that was not resolved).
func (m *Module) BuiltinMethod(k BuiltinKind) *Method {
	if k == BuiltinNone || k >= numBuiltinKinds {
		return nil
	}
	c := m.classes[builtinDecls[k].class]
	if c == nil {
		return nil
	}
	for _, md := range c.Methods {
		if md.BuiltinKind == k {
			return md
		}
	}
	return nil
}

// newBaseLibrary returns fresh base library classes by full name, with
// the methods of builtinDecls, each with its BuiltinKind.
func newBaseLibrary() map[string]*Class {
	lib := map[string]*Class{}
	add := func(name string, base *Class) {
		c := &Class{Name: name, Base: base, Builtin: true, Attrs: []string{"public"}}
		if base != nil {
			c.Extends = base.Type()
		}
		lib[name] = c
	}
	add(ObjectClass, nil)
	add(ValueTypeClass, lib[ObjectClass])
	lib[ValueTypeClass].Attrs = []string{"public", "abstract"}
	add(StringClass, lib[ObjectClass])
	add(ConsoleClass, lib[ObjectClass])
	add(ExceptionClass, lib[ObjectClass])
	exc := lib[ExceptionClass]
	exc.Fields = []*Field{
		{Name: MessageField, Type: String, Owner: exc, Attrs: []string{"private"}},
		{Name: InnerExceptionField, Type: exc.Type(), Owner: exc, Attrs: []string{"private"}},
	}
	for _, e := range exceptionClasses {
		add(e.name, lib[e.base])
		if sealedExceptions[e.name] {
			lib[e.name].Attrs = append(lib[e.name].Attrs, "sealed")
		}
	}
	// The module's own copy of a class type in a signature.
	typ := func(t *Type) *Type {
		if t.Kind == KClass {
			return lib[t.Name].Type()
		}
		return t
	}
	add(StringBuilderClass, lib[ObjectClass])
	sb := lib[StringBuilderClass]
	sb.Attrs = append(sb.Attrs, "sealed")
	sb.Fields = []*Field{
		{Name: StringBuilderCharsField, Type: ArrayOf(Char), Owner: sb, Attrs: []string{"private"}},
		{Name: StringBuilderLengthField, Type: Int32, Owner: sb, Attrs: []string{"private"}},
	}
	for _, name := range staticClasses {
		add(name, lib[ObjectClass])
		lib[name].Attrs = []string{"public", "abstract", "sealed"}
	}
	for _, f := range builtinStaticFields {
		c := lib[f.class]
		c.Fields = append(c.Fields, &Field{Name: f.name, Type: f.typ, Static: true, Owner: c,
			Attrs: []string{"public", "static", "initonly"}, Builtin: true, Init: f.value})
	}
	for k := BuiltinNone + 1; k < numBuiltinKinds; k++ {
		d := &builtinDecls[k]
		c := lib[d.class]
		m := &Method{Name: d.name, Owner: c, Static: d.call == callStatic, Virtual: d.call == callVirtual,
			Ret: typ(d.ret), Builtin: true, BuiltinKind: k, Slot: -1}
		m.Attrs = []string{"public"}
		if m.Static {
			m.Attrs = append(m.Attrs, "static")
		}
		if m.Virtual {
			m.Attrs = append(m.Attrs, "virtual")
		}
		for _, p := range d.params {
			m.Params = append(m.Params, &Param{Type: typ(p)})
		}
		if c.Name == StringClass && m.Name == ".ctor" {
			m.NewobjCall = &Method{Name: "Ctor", Owner: c, Static: true, Ret: String, Params: m.Params,
				Builtin: true, BuiltinKind: k, Slot: -1, Attrs: []string{"private", "static"}}
		}
		c.Methods = append(c.Methods, m)
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

// MaxInnerExceptions is the longest chain of inner exceptions that
// Exception.ToString follows, on both engines: ToString of an exception
// with a longer chain (or a cycle, which a constructor can make) is a
// stack overflow, as the recursion through ToString is on CoreCLR. The
// report of an unhandled exception lists at most this many.
const MaxInnerExceptions = MaxCallbackDepth

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
	case KValue:
		return 8 * t.Words()
	}
	return 8
}

// BoxSizeOf returns the heap size of a box of a value of type t.
func BoxSizeOf(t *Type) int64 {
	if t.Kind == KValue {
		return 8 + 8*int64(t.Words())
	}
	return BoxSize
}

func align8(n int64) int64 { return (n + 7) &^ 7 }
