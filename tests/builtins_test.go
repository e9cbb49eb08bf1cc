package tests

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"miniil"
	"miniil/il"
)

// TestBuiltinCoverage checks that the corpus calls every base library
// method, so that each has a golden derived from Mono and runs on every
// engine in TestCorpus (builtins_direct.il calls them all once).
func TestBuiltinCoverage(t *testing.T) {
	called := map[il.BuiltinKind][]string{}
	for _, file := range corpus(t) {
		mod, err := il.Load(file, mustRead(t, file))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, m := range mod.AllMethods() {
			if m.Abstract {
				continue // no body
			}
			for _, in := range m.Code {
				if ref := in.Method(); ref != nil && ref.Method != nil && ref.Method.Builtin {
					k := ref.Method.BuiltinKind
					called[k] = append(called[k], file)
				}
			}
		}
	}
	if files := called[il.BuiltinNone]; len(files) > 0 {
		t.Errorf("base library methods without a kind are called in %v", files)
	}
	for _, k := range il.BuiltinKinds() {
		if len(called[k]) == 0 {
			t.Errorf("no corpus program calls %v", k)
		}
	}
}

// unknownBuiltinProgram calls a static base library method (an exit to
// the runtime on the JIT) and a virtual one through a vtable (an exit
// stub on the JIT).
const unknownBuiltinProgram = `
.assembly extern mscorlib {}
.assembly unknown_builtin {}
.method public static void main() cil managed
{
  .entrypoint
  .maxstack 1
  newobj instance void [mscorlib]System.Object::.ctor()
  callvirt instance string [mscorlib]System.Object::ToString()
  call void [mscorlib]System.Console::WriteLine(string)
  ret
}
`

// TestUnknownBuiltin gives a base library method a kind no engine knows
// (or none) and checks that every engine reports it as an internal error
// naming the method, instead of running something else or throwing an
// exception the program could catch.
func TestUnknownBuiltin(t *testing.T) {
	tests := []struct {
		name  string
		class string
		kind  il.BuiltinKind // the method's real kind, replaced
		bad   il.BuiltinKind
	}{
		{"static unknown", il.ConsoleClass, il.ConsoleWriteLineString, 0xFFF0},
		{"static none", il.ConsoleClass, il.ConsoleWriteLineString, il.BuiltinNone},
		{"virtual unknown", il.ObjectClass, il.ObjectToString, 0xFFF1},
	}
	for _, tt := range tests {
		for _, eng := range engines {
			t.Run(tt.name+"/"+eng.String(), func(t *testing.T) {
				prog, err := miniil.Load("unknown_builtin.il", []byte(unknownBuiltinProgram))
				if err != nil {
					t.Fatal(err)
				}
				m := prog.Module().BuiltinMethod(tt.kind)
				if m == nil || m.Owner.Name != tt.class {
					t.Fatalf("BuiltinMethod(%v) = %v", tt.kind, m)
				}
				m.BuiltinKind = tt.bad
				var out bytes.Buffer
				code, err := prog.Run(context.Background(), miniil.Config{Engine: eng, Stdout: &out})
				var ie *miniil.InternalError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), "not implemented") {
					t.Fatalf("exit %d, error %v; want an internal error saying the method is not implemented", code, err)
				}
				if out.Len() > 0 {
					t.Errorf("output %q", out.String())
				}
			})
		}
	}
}
