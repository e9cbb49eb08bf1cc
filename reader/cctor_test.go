package reader_test

import (
	"os"
	"strings"
	"testing"

	"miniil/il"
	"miniil/ir"
	"miniil/reader"
)

// TestInitChecks checks which methods of testdata/cctor.il test a type
// initializer's state and call its Run method: those whose sites trigger
// one, unless Options.Initialized says it has run, and then none at all
// (code compiled after a class is initialized costs nothing).
func TestInitChecks(t *testing.T) {
	src, err := os.ReadFile("testdata/cctor.il")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := il.Load("cctor.il", src)
	if err != nil {
		t.Fatal(err)
	}
	initialized := func(*il.TypeInit) bool { return true }
	lazyOnly := func(ti *il.TypeInit) bool { return ti.Class.Name == "Precise" }
	tests := []struct {
		method string
		opts   reader.Options
		want   string // the Run methods called, in block order
	}{
		{"main", reader.Options{}, "Precise::<cctor> Lazy::<cctor>"},
		{"main", reader.Options{Initialized: lazyOnly}, "Lazy::<cctor>"},
		{"main", reader.Options{Initialized: initialized}, ""},
		{"Precise::.cctor", reader.Options{}, ""},
		{"Precise::.ctor", reader.Options{}, "Precise::<cctor>"},
		{"Precise::Get", reader.Options{}, "Precise::<cctor>"}, // at the entry only
		{"Precise::Get", reader.Options{Initialized: initialized}, ""},
		{"Precise::Twice", reader.Options{}, "Precise::<cctor>"},
		{"Lazy::Get", reader.Options{}, "Lazy::<cctor>"},
		{"Lazy::Get", reader.Options{Initialized: initialized}, ""},
	}
	for _, tt := range tests {
		var m *il.Method
		for _, x := range mod.AllMethods() {
			if x.FullName() == tt.method {
				m = x
			}
		}
		if m == nil {
			t.Fatalf("no method %s", tt.method)
		}
		f, err := reader.ImportWith(mod, m, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := ir.Check(f); err != nil {
			t.Fatalf("%s: %v", tt.method, err)
		}
		var runs []string
		states := 0
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				switch {
				case in.Op == ir.OpCall && in.Aux.Method().Hidden:
					if !b.Cold {
						t.Errorf("%s: the call of %s is in hot block b%d", tt.method, in.Aux.Method().FullName(), b.ID)
					}
					runs = append(runs, in.Aux.Method().FullName())
				case in.Op == ir.OpLdStatic && strings.HasPrefix(in.Aux.Field().Name, "<"):
					states++
				}
			}
		}
		if got := strings.Join(runs, " "); got != tt.want || states != len(runs) {
			t.Errorf("%s with Initialized %v: calls %q after %d state tests, want %q after as many", tt.method, tt.opts.Initialized != nil, got, states, tt.want)
		}
	}
}
