package tests

import (
	"path/filepath"
	"testing"

	"miniil/amd64"
	"miniil/ehclauses"
	"miniil/il"
	"miniil/reader"
)

// stubEnv gives the code generator fixed addresses; nothing runs.
type stubEnv struct{}

func (stubEnv) CellAddr(*il.Method) uintptr  { return 0x10000 }
func (stubEnv) ClassMT(*il.Class) uintptr    { return 0x20000 }
func (stubEnv) TypeMT(*il.Type) uintptr      { return 0x30000 }
func (stubEnv) StaticAddr(*il.Field) uintptr { return 0x40000 }
func (stubEnv) StringAddr(string) uintptr    { return 0x50000 }
func (stubEnv) BuiltinID(*il.Method) uint64  { return 1 }

// TestEHClauseTables compiles every method of the corpus and checks its
// native EH clause table against the CLR's rules (ehclauses.Validate).
func TestEHClauseTables(t *testing.T) {
	asm := amd64.NewAssembler()
	methods, clauses, dups := 0, 0, 0
	for _, file := range corpus(t) {
		prog, err := il.Load(file, mustRead(t, file))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, m := range prog.AllMethods() {
			f, err := reader.Import(prog, m)
			if err != nil {
				t.Errorf("%s: %s: %v", filepath.Base(file), m.FullName(), err)
				continue
			}
			code, err := amd64.Generate(f, stubEnv{}, asm)
			if err != nil {
				t.Errorf("%s: %v", filepath.Base(file), err)
				continue
			}
			cs, err := ehclauses.Build(m, f, code)
			if err != nil {
				t.Errorf("%s: %v", filepath.Base(file), err)
				continue
			}
			if err := ehclauses.Validate(m, f, code, cs); err != nil {
				t.Errorf("%s: %v", filepath.Base(file), err)
			}
			methods++
			clauses += len(cs)
			for _, c := range cs {
				if c.Duplicate {
					dups++
				}
			}
		}
	}
	if clauses == 0 || dups == 0 {
		t.Errorf("the corpus produced %d clauses and %d duplicates; the test checks nothing", clauses, dups)
	}
	t.Logf("validated %d methods: %d native clauses, %d duplicates", methods, clauses, dups)
}

// TestEHValidatorRejects breaks a real clause table in each way the rules
// forbid and checks that the validator notices.
func TestEHValidatorRejects(t *testing.T) {
	file := filepath.Join("corpus", "eh_leave_multi_finally.il")
	prog, err := il.Load(file, mustRead(t, file))
	if err != nil {
		t.Fatal(err)
	}
	var m *il.Method
	for _, x := range prog.AllMethods() {
		if len(x.EH) == 3 {
			m = x
		}
	}
	if m == nil {
		t.Fatal("no method with three clauses in " + file)
	}
	f, err := reader.Import(prog, m)
	if err != nil {
		t.Fatal(err)
	}
	code, err := amd64.Generate(f, stubEnv{}, amd64.NewAssembler())
	if err != nil {
		t.Fatal(err)
	}
	good, err := ehclauses.Build(m, f, code)
	if err != nil {
		t.Fatal(err)
	}
	if err := ehclauses.Validate(m, f, code, good); err != nil {
		t.Fatalf("valid table rejected: %v", err)
	}
	mutations := map[string]func([]ehclauses.Clause) []ehclauses.Clause{
		"outer before inner": func(cs []ehclauses.Clause) []ehclauses.Clause { cs[0], cs[2] = cs[2], cs[0]; return cs },
		"missing duplicate": func(cs []ehclauses.Clause) []ehclauses.Clause {
			for i, c := range cs {
				if c.Duplicate {
					return append(cs[:i], cs[i+1:]...)
				}
			}
			return cs
		},
		"overlapping tries":   func(cs []ehclauses.Clause) []ehclauses.Clause { cs[0].TryEnd = cs[len(cs)-1].TryStart + 1; return cs },
		"handler not funclet": func(cs []ehclauses.Clause) []ehclauses.Clause { cs[0].HandlerStart++; return cs },
		"try spans funclets":  func(cs []ehclauses.Clause) []ehclauses.Clause { cs[0].TryEnd = cs[0].HandlerEnd; return cs },
		"spurious duplicate": func(cs []ehclauses.Clause) []ehclauses.Clause {
			d := cs[0]
			d.Duplicate = true
			d.TryStart, d.TryEnd = 0, 1
			return append(cs, d)
		},
		"empty try": func(cs []ehclauses.Clause) []ehclauses.Clause { cs[0].TryEnd = cs[0].TryStart; return cs },
	}
	for name, mutate := range mutations {
		cs := mutate(append([]ehclauses.Clause(nil), good...))
		if err := ehclauses.Validate(m, f, code, cs); err == nil {
			t.Errorf("%s: the validator accepted a broken table", name)
		}
	}
}
