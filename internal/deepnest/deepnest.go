// Package deepnest generates mini MSIL programs whose entry point is a
// deep nest of protected regions, for the tests and benchmarks that check
// that loading, compiling and running grow linearly with nesting depth.
// It is internal to miniil: no compatibility promise.
package deepnest

import (
	"bytes"
	"fmt"
	"strings"
)

// Shape is the kind of nest a program holds.
type Shape int

// Shapes. In every shape level 1 is the outermost region and level d the
// innermost; the code after the outermost try prints "done" and returns.
const (
	// Finally is d nested try/finally regions. The innermost body prints
	// "inner" and leaves to the label right after its own try; after the
	// try of level i, a label and a leave to the label after level i-1.
	// Every finally handler is just endfinally.
	Finally Shape = iota
	// Catch is Finally with `catch System.Exception { pop leave L }`
	// handlers (never entered).
	Catch
	// ThrowCatch is d-1 nested try/finally regions inside an outermost
	// try/catch: the innermost body prints "inner" and throws an
	// InvalidOperationException that the outermost catch handles (after
	// the second pass ran every finally), printing "caught".
	ThrowCatch
	// ThrowUnhandled is Finally whose innermost body throws instead of
	// leaving: the exception is unhandled (exit 134, no finally runs).
	ThrowUnhandled
)

// Shapes lists every shape, for table-driven tests and benchmarks.
var Shapes = []Shape{Finally, Catch, ThrowCatch, ThrowUnhandled}

func (s Shape) String() string {
	switch s {
	case Finally:
		return "finally"
	case Catch:
		return "catch"
	case ThrowCatch:
		return "throw-catch"
	case ThrowUnhandled:
		return "throw-unhandled"
	}
	return fmt.Sprintf("Shape(%d)", int(s))
}

// Program returns the source of a program whose main method is a nest of
// the given shape and depth (at least 1).
func Program(s Shape, depth int) []byte {
	if depth < 1 {
		depth = 1
	}
	var b bytes.Buffer
	b.Grow(depth * 64)
	b.WriteString(".assembly extern mscorlib {}\n.assembly deepnest {}\n\n")
	fmt.Fprintf(&b, "// %s nest of depth %d\n", s, depth)
	b.WriteString(".method public static void main() cil managed\n{\n  .entrypoint\n  .maxstack 2\n")
	indent := func(level int) string { return strings.Repeat(" ", 2+2*min(level, 20)) }
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, "%s.try {\n", indent(i-1))
	}
	in := indent(depth)
	fmt.Fprintf(&b, "%sldstr \"inner\"\n%scall void [mscorlib]System.Console::WriteLine(string)\n", in, in)
	switch s {
	case ThrowCatch, ThrowUnhandled:
		fmt.Fprintf(&b, "%sldstr \"boom\"\n%snewobj instance void [mscorlib]System.InvalidOperationException::.ctor(string)\n%sthrow\n", in, in, in)
	default:
		fmt.Fprintf(&b, "%sleave L%d\n", in, depth)
	}
	for i := depth; i >= 1; i-- {
		in := indent(i - 1)
		switch {
		case s == Catch || s == ThrowCatch && i == 1:
			fmt.Fprintf(&b, "%s} catch [mscorlib]System.Exception {\n", in)
			if s == ThrowCatch {
				fmt.Fprintf(&b, "%s  pop\n%s  ldstr \"caught\"\n%s  call void [mscorlib]System.Console::WriteLine(string)\n", in, in, in)
			} else {
				fmt.Fprintf(&b, "%s  pop\n", in)
			}
			fmt.Fprintf(&b, "%s  leave L%d\n%s}\n", in, i, in)
		default:
			fmt.Fprintf(&b, "%s} finally {\n%s  endfinally\n%s}\n", in, in, in)
		}
		if i > 1 {
			fmt.Fprintf(&b, "%sL%d: leave L%d\n", in, i, i-1)
		} else {
			fmt.Fprintf(&b, "%sL1: ldstr \"done\"\n%scall void [mscorlib]System.Console::WriteLine(string)\n%sret\n", in, in, in)
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// Output returns what the program of a shape prints on standard output
// and its exit code.
func Output(s Shape) (stdout string, exit int) {
	switch s {
	case ThrowCatch:
		return "inner\ncaught\ndone\n", 0
	case ThrowUnhandled:
		return "inner\n", 134
	}
	return "inner\ndone\n", 0
}
