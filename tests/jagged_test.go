package tests

import (
	"bytes"
	"context"
	"runtime/debug"
	"strings"
	"testing"

	"miniil"
)

// deepArrayProgram stores a row into an array of the array type nested
// depth deep (an int32 with depth "[]"), prints the array's type name and
// whether the row is an object[] nested depth-2 deep.
func deepArrayProgram(depth int) string {
	t := func(elem string, n int) string { return elem + strings.Repeat("[]", n) }
	return `.assembly deep {}
.method public static void main() cil managed
{
  .entrypoint
  .maxstack 4
  ldc.i4.1
  newarr ` + t("int32", depth-1) + `
  dup
  ldc.i4.0
  ldc.i4.2
  newarr ` + t("int32", depth-2) + `
  stelem.ref
  dup
  call void [mscorlib]System.Console::WriteLine(object)
  ldc.i4.0
  ldelem.ref
  isinst ` + t("object", depth-2) + `
  ldnull
  cgt.un
  call void [mscorlib]System.Console::WriteLine(bool)
  ret
}
`
}

// TestDeepArrayType loads and runs a jagged array type nested far deeper
// than any real program with Go stacks limited to 16 MiB: types are
// walked in loops, so nothing runs out of Go stack (resolution, the
// engines' array casts and the interpreter's type canonicalization
// recursed once per level, and a 5-million-deep type crashed miniil with
// Go's 1 GB stacks), and the JIT's type metadata estimate, quadratic in
// the depth (the names of every level), stays bounded.
func TestDeepArrayType(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	depth := 300_000
	src := deepArrayProgram(depth)
	prog, err := miniil.Load("deep.il", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := "System.Int32" + strings.Repeat("[]", depth) + "\nTrue\n"
	for _, eng := range engines {
		var out bytes.Buffer
		code, err := prog.Run(context.Background(), miniil.Config{Engine: eng, Stdout: &out, MaxHeap: 64 << 20})
		if err != nil || code != 0 {
			t.Fatalf("%s: exit %d, %v", eng, code, err)
		}
		if out.String() != want {
			t.Errorf("%s: got %d bytes of output (%.60q...), want %d", eng, out.Len(), out.String(), len(want))
		}
	}
}
