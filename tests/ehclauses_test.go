package tests

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"miniil/abi"

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

// TestEHClauseTables compiles every method of the corpus and checks its
// native EH clause table against the CLR's rules (ehclauses.Validate),
// and that the compact table's chains offer an exception at every native
// offset to exactly the clauses, in the same order, that the CLR's scan
// of the table with duplicate clauses (Table.Expand) would.
func TestEHClauseTables(t *testing.T) {
	asm := amd64.NewAssembler()
	methods, clauses, dups := 0, 0, 0
	for _, file := range corpus(t) {
		prog, err := il.Load(file, mustRead(t, file))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, m := range prog.AllMethods() {
			if m.Abstract {
				continue // no IL
			}
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
			if err := ehclauses.Build(m, f, code); err != nil {
				t.Errorf("%s: %v", filepath.Base(file), err)
				continue
			}
			table := ehclauses.Of(&code.Method)
			if err := ehclauses.Validate(m, f, code, table); err != nil {
				t.Errorf("%s: %v", filepath.Base(file), err)
				continue
			}
			expanded := table.Expand()
			if err := checkCLRTable(expanded); err != nil {
				t.Errorf("%s: %s: expanded table: %v", filepath.Base(file), m.FullName(), err)
			}
			for off := range len(code.Code) {
				var chain, scan []int
				table.Chain(off, func(i int) bool { chain = append(chain, table.Clauses[i].ILClause); return true })
				for _, c := range expanded {
					if c.Covers(off) {
						scan = append(scan, c.ILClause)
					}
				}
				if !slices.Equal(chain, scan) {
					t.Errorf("%s: %s: at %04x the chain offers IL clauses %v, the CLR table %v", filepath.Base(file), m.FullName(), off, chain, scan)
					break
				}
			}
			methods++
			clauses += len(table.Clauses)
			dups += len(expanded) - len(table.Clauses)
		}
	}
	if clauses == 0 || dups == 0 {
		t.Errorf("the corpus produced %d clauses and %d duplicates; the test checks nothing", clauses, dups)
	}
	t.Logf("validated %d methods: %d native clauses, %d implied duplicates", methods, clauses, dups)
}

// checkCLRTable checks a table with duplicates against the CLR's ordering
// rules: try ranges nested or disjoint, inner before outer, disjoint ones
// by address.
func checkCLRTable(cs []abi.EHClause) error {
	for i, c := range cs {
		for j := i + 1; j < len(cs); j++ {
			d := cs[j]
			nested := c.TryStart >= d.TryStart && c.TryEnd <= d.TryEnd || d.TryStart >= c.TryStart && d.TryEnd <= c.TryEnd
			disjoint := c.TryEnd <= d.TryStart || d.TryEnd <= c.TryStart
			switch {
			case !nested && !disjoint:
				return fmt.Errorf("clauses %d and %d overlap without nesting", i, j)
			case nested && d.TryStart >= c.TryStart && d.TryEnd <= c.TryEnd && (d.TryStart != c.TryStart || d.TryEnd != c.TryEnd):
				return fmt.Errorf("clause %d comes before clause %d, which it contains", i, j)
			case disjoint && d.TryStart < c.TryStart:
				return fmt.Errorf("clauses %d and %d are disjoint but not in address order", i, j)
			}
		}
	}
	return nil
}

// TestEHValidatorRejects breaks a real clause table in each way the rules
// forbid and checks that the validator notices.
func TestEHValidatorRejects(t *testing.T) {
	file := filepath.Join("corpus", "eh2_leave_5deep_finally.il")
	prog, err := il.Load(file, mustRead(t, file))
	if err != nil {
		t.Fatal(err)
	}
	var m *il.Method
	for _, x := range prog.AllMethods() {
		if len(x.EH) == 5 {
			m = x
		}
	}
	if m == nil {
		t.Fatal("no method with five clauses in " + file)
	}
	f, err := reader.Import(prog, m)
	if err != nil {
		t.Fatal(err)
	}
	code, err := amd64.Generate(f, stubEnv{}, amd64.NewAssembler())
	if err != nil {
		t.Fatal(err)
	}
	if err := ehclauses.Build(m, f, code); err != nil {
		t.Fatal(err)
	}
	good := ehclauses.Of(&code.Method)
	if err := ehclauses.Validate(m, f, code, good); err != nil {
		t.Fatalf("valid table rejected: %v", err)
	}
	nested := -1 // a funclet nested in a try
	for k, fn := range good.Funclets {
		if fn.Enclosing >= 0 {
			nested = k
		}
	}
	if nested < 0 || good.Clauses[0].Next < 0 {
		t.Fatalf("the table has no chains to break: %+v", good)
	}
	type table = ehclauses.Table
	mutations := map[string]func(t *table){
		"outer before inner":  func(t *table) { t.Clauses[0], t.Clauses[2] = t.Clauses[2], t.Clauses[0] },
		"chain cut":           func(t *table) { t.Clauses[0].Next = -1 },
		"chain skips":         func(t *table) { t.Clauses[0].Next = t.Clauses[t.Clauses[0].Next].Next },
		"chain out of range":  func(t *table) { t.Clauses[0].Next = len(t.Clauses) },
		"funclet chain lost":  func(t *table) { t.Funclets[nested].Enclosing = -1 },
		"main body chained":   func(t *table) { t.Funclets[0].Enclosing = 0 },
		"overlapping tries":   func(t *table) { t.Clauses[0].TryEnd = t.Clauses[len(t.Clauses)-1].TryEnd + 1 },
		"handler not funclet": func(t *table) { t.Clauses[0].HandlerStart++ },
		"try spans funclets":  func(t *table) { t.Clauses[0].TryEnd = t.Clauses[0].HandlerEnd },
		"empty try":           func(t *table) { t.Clauses[0].TryEnd = t.Clauses[0].TryStart },
		"wrong try funclet":   func(t *table) { t.Clauses[0].TryFunclet = nested },
		"duplicate in table": func(t *table) {
			d := t.Clauses[len(t.Clauses)-1]
			d.Duplicate = true
			t.Clauses = append(t.Clauses, d)
		},
	}
	for name, mutate := range mutations {
		bad := &table{Clauses: slices.Clone(good.Clauses), Funclets: slices.Clone(good.Funclets)}
		mutate(bad)
		if err := ehclauses.Validate(m, f, code, bad); err == nil {
			t.Errorf("%s: the validator accepted a broken table", name)
		}
	}
}
