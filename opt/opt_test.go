package opt_test

import (
	"testing"

	"miniil/il"
	"miniil/ir"
	"miniil/opt"
	"miniil/reader"
)

// importMethod loads src and reads method name into IR.
func importMethod(t *testing.T, src, name string) *ir.Func {
	t.Helper()
	const head = ".assembly extern mscorlib {}\n.assembly t {}\n" +
		".method public static void main() cil managed\n{\n  .entrypoint\n  ret\n}\n"
	mod, err := il.Load("test.il", []byte(head+src))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mod.AllMethods() {
		if m.Abstract {
			continue // no body
		}
		if m.Name == name && !m.Builtin {
			f, err := reader.Import(mod, m)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no method %s", name)
	return nil
}

// nullChecks counts the blocks ending in a null check.
func nullChecks(f *ir.Func) int {
	n := 0
	for _, b := range f.Blocks {
		if b.Term.Op == ir.OpIf && len(b.Succs) == 2 && b.Succs[1].Term.Op == ir.OpThrowHelper &&
			b.Succs[1].Term.Aux.Class().Name == "System.NullReferenceException" {
			n++
		}
	}
	return n
}

const box = `
.class public Box extends [mscorlib]System.Object
{
  .field public int32 a
  .field public int32 b
  .field public class Box next
  .method public specialname rtspecialname instance void .ctor() cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ret
  }
}
`

func TestNullChecks(t *testing.T) {
	tests := []struct {
		name        string
		src         string
		before, out int // null checks before and after the pass
	}{
		{"argument checked once", box + `
.method public static int32 f(class Box x) cil managed
{
  ldarg.0
  ldfld int32 Box::a
  ldarg.0
  ldfld int32 Box::b
  add
  ret
}`, 2, 1},
		{"argument stored to is not trusted", box + `
.method public static int32 f(class Box x) cil managed
{
  ldarg.0
  ldfld int32 Box::a
  ldarg.0
  ldfld class Box Box::next
  starg.s x
  ldarg.0
  ldfld int32 Box::b
  add
  ret
}`, 3, 2},
		{"new object needs no check", box + `
.method public static int32 f() cil managed
{
  .locals init (class Box p)
  newobj instance void Box::.ctor()
  stloc p
  ldloc p
  ldfld int32 Box::a
  ret
}`, 1, 0},
		{"pointer to a local needs no check", `
.method public static int32 f() cil managed
{
  .locals init (int32 x, int32& p)
  ldloca.s x
  stloc.1
  ldloc.1
  ldind.i4
  ret
}`, 1, 0},
		{"pointer argument checked once", `
.method public static int32 f(int32& p) cil managed
{
  ldarg.0
  ldind.i4
  ldarg.0
  ldind.i4
  add
  ret
}`, 2, 1},
		{"local redefined in a loop is checked again each iteration", box + `
.method public static int32 f(class Box x) cil managed
{
  .locals init (class Box p, int32 s)
  ldarg.0
  stloc p
LOOP:
  ldloc p
  brfalse.s END
  ldloc s
  ldloc p
  ldfld int32 Box::a
  add
  stloc s
  ldloc p
  ldfld class Box Box::next
  stloc p
  br.s LOOP
END:
  ldloc s
  ret
}`, 2, 1},
		{"check on one path only is kept at the merge", box + `
.method public static int32 f(class Box x, int32 c) cil managed
{
  ldarg.1
  brfalse.s SKIP
  ldarg.0
  ldfld int32 Box::a
  pop
SKIP:
  ldarg.0
  ldfld int32 Box::b
  ret
}`, 2, 2},
		{"a handler does not inherit facts from its try", box + `
.method public static int32 f(class Box x) cil managed
{
  .locals init (int32 r)
  .try
  {
    ldarg.0
    ldfld int32 Box::a
    stloc r
    leave.s OUT
  }
  catch [mscorlib]System.Exception
  {
    pop
    ldarg.0
    ldfld int32 Box::b
    stloc r
    leave.s OUT
  }
OUT:
  ldloc r
  ret
}`, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := importMethod(t, tt.src, "f")
			if got := nullChecks(f); got != tt.before {
				t.Fatalf("reader made %d null checks, want %d:\n%s", got, tt.before, f)
			}
			if err := opt.Run(f); err != nil {
				t.Fatal(err)
			}
			if got := nullChecks(f); got != tt.out {
				t.Errorf("%d null checks left, want %d:\n%s", got, tt.out, f)
			}
		})
	}
}
