package jit_test

import (
	"testing"

	"miniil/il"
	"miniil/internal/bigprog"
	"miniil/jit"
)

// allocEnv answers the compiler's runtime questions with fixed addresses
// (the code is never run).
type allocEnv struct{}

func (allocEnv) CellAddr(*il.Method) uintptr  { return 0x7f0000001000 }
func (allocEnv) ClassMT(*il.Class) uintptr    { return 0x7f0000002000 }
func (allocEnv) TypeMT(*il.Type) uintptr      { return 0x7f0000003000 }
func (allocEnv) StaticAddr(*il.Field) uintptr { return 0x7f0000004000 }
func (allocEnv) StringAddr(string) uintptr    { return 0x7f0000005000 }

// TestCompileAllocations bounds the allocations of compiling a small
// method (a loop, a branch and a call, issue 14's compile-throughput
// shape) once the compiler's cache is warm: the passes' scratch arrays,
// maps and per-compile structures come from the cache, so what remains
// is mostly the compiled method itself (code, sites, GC information,
// funclet layout) and a few structures per pass. It was 105 before the
// passes took their scratch from the cache, 51 after; the bound leaves
// room for small changes but fails if passes go back to allocating per
// compile.
func TestCompileAllocations(t *testing.T) {
	mod, err := il.Load("many.il", bigprog.ManyMethods(20))
	if err != nil {
		t.Fatal(err)
	}
	var m *il.Method
	for _, x := range mod.AllMethods() {
		if x.Name == "f3" {
			m = x
		}
	}
	if m == nil {
		t.Fatal("no method f3")
	}
	c := jit.New(jit.Config{Env: allocEnv{}})
	if _, err := c.Compile(mod, m, ""); err != nil { // warm the cache
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := c.Compile(mod, m, ""); err != nil {
			t.Fatal(err)
		}
	})
	const bound = 64
	t.Logf("%s: %.0f allocations per compile", m.FullName(), allocs)
	if allocs > bound {
		t.Errorf("compiling %s allocates %.0f times, more than %d", m.FullName(), allocs, bound)
	}
}
