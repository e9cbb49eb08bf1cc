package amd64_test

import (
	"strings"
	"testing"

	"miniil/amd64"
	"miniil/il"
)

// TestSelfCallIsDirect: a method's calls of itself are CALL rel32 to
// its entry, with no cell reference; its calls of other methods go
// through their cells.
func TestSelfCallIsDirect(t *testing.T) {
	const src = `
.assembly extern mscorlib {}
.assembly selfcall {}
.method public static int32 fib(int32 n) cil managed
{
  ldarg.0
  ldc.i4.2
  bge.s REC
  ldarg.0
  ret
REC:
  ldarg.0
  ldc.i4.1
  sub
  call int32 fib(int32)
  ldarg.0
  ldc.i4.2
  sub
  call int32 fib(int32)
  add
  ldarg.0
  call int32 other(int32)
  add
  ret
}
.method public static int32 other(int32 n) cil managed
{
  ldarg.0
  ldc.i4.3
  mul
  ldarg.0
  ldc.i4.7
  rem
  add
  ldarg.0
  ldc.i4.5
  div
  xor
  ret
}
.method public static void main() cil managed
{
  .entrypoint
  ldc.i4.s 20
  call int32 fib(int32)
  call void [mscorlib]System.Console::WriteLine(int32)
  ret
}
`
	mod, err := il.Load("selfcall.il", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var fib *il.Method
	for _, m := range mod.AllMethods() {
		if m.Name == "fib" {
			fib = m
		}
	}
	code, err := compileOne(mod, fib, amd64.NewAssembler())
	if err != nil {
		t.Fatal(err)
	}
	lines, err := amd64.Disassemble(code.Code, 0)
	if err != nil {
		t.Fatal(err)
	}
	var self, cell int
	for _, l := range lines {
		switch {
		case l.Text == "call 0x0":
			self++
			if l.Bytes[0] != 0xE8 {
				t.Errorf("%#x: the call of fib itself is % x, want E8 rel32", l.Offset, l.Bytes)
			}
		case strings.HasPrefix(l.Text, "call qword ptr [rip"):
			cell++
		}
	}
	if self != 2 || cell != 1 {
		t.Errorf("%d direct calls of fib itself and %d calls through cells, want 2 and 1 (other)", self, cell)
	}
	if len(code.CellRefs) != 1 {
		t.Errorf("%d cell references, want 1 (other)", len(code.CellRefs))
	}
}
