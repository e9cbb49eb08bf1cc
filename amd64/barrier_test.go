package amd64_test

import (
	"testing"

	"miniil/il"
	"miniil/jit"
)

// TestBarrierElision compiles reference stores and counts the write
// barriers the code generator emitted and left out: a store of null
// (read as an immediate) and a store into a frame block need none; a
// store into an object does.
func TestBarrierElision(t *testing.T) {
	const classes = `
.assembly extern mscorlib {}
.assembly b {}
.class public auto ansi beforefieldinit N extends [mscorlib]System.Object
{
  .field public object o
  .method public hidebysig specialname rtspecialname instance void .ctor() cil managed
  { ldarg.0 call instance void [mscorlib]System.Object::.ctor() ret }
}
.class public sequential ansi sealed beforefieldinit S extends [mscorlib]System.ValueType
{
  .field public object o
}
.class public auto ansi beforefieldinit P extends [mscorlib]System.Object
{
  .method public static void main() cil managed { .entrypoint ret }
  .method public static void nop() cil managed { ret }
  .method public static void f(class N n, object x) cil managed
  {
    .locals init (valuetype S s)
`
	tests := []struct {
		name            string
		body            string
		barriers, elide int
	}{
		{"null", "ldarg.0 ldnull stfld object N::o", 0, 1},
		{"a struct local", "ldloca s ldarg.1 stfld object S::o", 0, 1},
		{"an argument's object", "ldarg.0 ldarg.1 stfld object N::o", 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := classes + tc.body + "\n    ret\n  }\n}\n"
			mod, err := il.Load("b.il", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			var f *il.Method
			for _, m := range mod.AllMethods() {
				if m.Name == "f" {
					f = m
				}
			}
			st, err := jit.New(jit.Config{Env: jit.NewDumpEnv(), Validate: true}).Compile(mod, f, "")
			if err != nil {
				t.Fatal(err)
			}
			if st.Code.Barriers != tc.barriers || st.Code.BarriersElided != tc.elide {
				t.Errorf("barriers %d, elided %d; want %d and %d", st.Code.Barriers, st.Code.BarriersElided, tc.barriers, tc.elide)
			}
		})
	}
}
