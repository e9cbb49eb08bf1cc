package fuzz

import (
	"fmt"
	"strings"
	"testing"

	"miniil"
)

// visitNodes calls f for every node of p (statements, int, value-type
// and Node expressions, locations) with where the node is: "method", "try",
// "catch", "filter" (a filter block or condition), "filterhandler",
// "finally" or "fault" (the innermost region or handler).
func visitNodes(p *Program, f func(m *Method, n any, where string)) {
	for _, m := range p.Methods {
		var block func(ss []Stmt, where string)
		var walkParts func(ps parts, where string)
		walkParts = func(ps parts, where string) {
			for _, x := range ps.exprs {
				f(m, *x, where)
				walkParts(exprParts(*x), where)
			}
			for _, x := range ps.sexprs {
				f(m, *x, where)
				walkParts(sexprParts(*x), where)
			}
			for _, L := range ps.locs {
				f(m, L, where)
				walkParts(locParts(L), where)
			}
			for _, x := range ps.rexprs {
				f(m, *x, where)
				walkParts(rexprParts(*x), where)
			}
			for _, L := range ps.rlocs {
				f(m, L, where)
				walkParts(rlocParts(L), where)
			}
			for _, Q := range ps.qlocs {
				f(m, Q, where)
				walkParts(qlocParts(Q), where)
			}
		}
		block = func(ss []Stmt, where string) {
			for _, s := range ss {
				f(m, s, where)
				if t, ok := s.(*Try); ok {
					block(t.Body, "try")
					for _, h := range t.Handlers {
						kind := map[HandlerKind]string{Catch: "catch", Filter: "filterhandler", Finally: "finally", Fault: "fault"}[h.Kind]
						block(h.FilterBody, "filter")
						if h.FilterCond != nil {
							f(m, h.FilterCond, "filter")
							walkParts(exprParts(h.FilterCond), "filter")
						}
						block(h.Body, kind)
					}
					continue
				}
				walkParts(stmtParts(s), where)
				for _, c := range children(s) {
					block(c, where)
				}
			}
		}
		block(m.Body, "method")
		if m.RetExpr != nil {
			f(m, m.RetExpr, "method")
			walkParts(exprParts(m.RetExpr), "method")
		}
		if m.RetSExpr != nil {
			f(m, m.RetSExpr, "method")
			walkParts(sexprParts(m.RetSExpr), "method")
		}
	}
}

var rootNames = [...]string{RVar: "var", RSLocal: "struct local", RSArg: "struct arg", RSStatic: "struct static",
	RHeld: "field of a class", RSElem: "struct array element", RArr: "int32[] element", RJag: "jagged row element",
	RObj: "object static", RPtr: "pointer local", RRef: "byref parameter"}

// TestValueTypeRates checks that generated programs declare every shape
// of value type (large, three words, nested), use value-type and byref
// parameters of every kind, value-type results, every kind of location,
// every ldind width, the box and unbox forms, conditional values, and
// value types and pointers inside every kind of handler, at sensible
// rates.
func TestValueTypeRates(t *testing.T) {
	const programs = 300
	o, _ := SizeOptions("medium")
	n := map[string]int{}
	progs := map[string]int{}
	for seed := uint64(1); seed <= programs; seed++ {
		p := Generate(seed, o)
		seen := map[string]bool{}
		count := func(k string) {
			n[k]++
			if !seen[k] {
				seen[k] = true
				progs[k]++
			}
		}
		for s, sd := range p.Structs {
			switch w := p.words(s); {
			case w > 16:
				count("large value type")
			case w == 3:
				count("three-word value type")
			}
			for _, f := range sd.Fields {
				if f.K == FStruct {
					count("nested value type")
				}
			}
		}
		for _, m := range p.Methods {
			if len(m.SParams) > 0 {
				count("value-type parameter")
			}
			if m.RetS > 0 {
				count("value-type result")
			}
			for _, rt := range m.RParams {
				k := rt.K
				if rt.small() {
					k = FI1
				}
				count(fmt.Sprintf("byref parameter kind %d", k))
			}
		}
		visitNodes(p, func(m *Method, x any, where string) {
			inHandler := where != "method" && where != "try"
			switch x := x.(type) {
			case *Loc:
				count("location " + rootNames[x.Root])
				if x.Root == RSElem && !x.Safe {
					count("struct array index out of range")
				}
			case *LocLoad:
				ft := p.locType(m, x.L)
				if x.A == AInd && ft.small() {
					count("ldind." + ft.ind(true, x.Flip))
				}
				if x.L.Root == RPtr && where == "try" {
					count("pointer local read in a try")
				}
				if where == "filter" && len(x.L.Path) > 0 {
					count("filter reads a value-type field")
				}
			case *LocStore:
				if ft := p.locType(m, x.L); ft.small() && (x.A == AInd || isPtrRoot(x.L.Root) && len(x.L.Path) == 0) {
					count("stind." + ft.ind(false, false))
				}
			case *SStore:
				if inHandler {
					count("value-type store in a handler")
				}
			case *SHash:
				if inHandler {
					count("value-type hash in a " + where)
				}
			case *SUnbox:
				count(fmt.Sprintf("unbox addr=%v", x.Addr))
			case *BoxStruct:
				count("box")
			case *IsBoxed:
				count("isinst")
			case *SInit:
				count(fmt.Sprintf("init zero=%v", x.Zero))
			case *SCopy:
				count("cpobj")
			case *SCall:
				count("call returning a value type")
			case *SCond:
				count("conditional value")
			case *CallStmt:
				if len(x.RArgs) > 0 && where == "try" {
					count("byref call in a try")
				}
			}
		})
	}
	t.Logf("counts: %v", n)
	t.Logf("programs: %v", progs)
	for _, k := range []string{"large value type", "three-word value type", "nested value type", "value-type parameter", "value-type result"} {
		if progs[k] < programs/5 {
			t.Errorf("%s: in %d programs of %d, want at least a fifth", k, progs[k], programs)
		}
	}
	var want []string
	for _, k := range []FKind{FI4, FI8, FR8, FRef, FStruct, FI1} {
		want = append(want, fmt.Sprintf("byref parameter kind %d", k))
	}
	for _, r := range rootNames {
		want = append(want, "location "+r)
	}
	for _, ind := range []string{"i1", "u1", "i2", "u2"} {
		want = append(want, "ldind."+ind)
	}
	want = append(want, "stind.i1", "stind.i2", "struct array index out of range", "pointer local read in a try",
		"filter reads a value-type field", "value-type store in a handler", "value-type hash in a catch",
		"value-type hash in a filterhandler", "value-type hash in a finally", "value-type hash in a fault",
		"unbox addr=true", "unbox addr=false", "box", "isinst", "init zero=true", "init zero=false", "cpobj",
		"call returning a value type", "byref call in a try", "conditional value")
	for _, k := range want {
		if progs[k] < programs/30 {
			t.Errorf("%s: in %d programs of %d, want at least %d", k, progs[k], programs, programs/30)
		}
	}
}

// TestValueTypeMonoSafe checks that with MonoSafe nothing over value
// types in a filter can throw (no pointer local, row of jag, unmasked
// index or unbox), that sizeof only takes value types without
// references (Mono lays those out differently), that no value type
// holding references is reached through a pointer local and no byref
// argument comes from one, and reads through one take field addresses
// rather than nested values (Mono crashes on such a value at a null
// address), and that a field of what a pointer local points to is only
// read (Mono does not null-check its ldflda).
func TestValueTypeMonoSafe(t *testing.T) {
	o, _ := SizeOptions("large")
	o.MonoSafe = true
	sizeofs := 0
	for seed := uint64(1); seed <= 200; seed++ {
		p := Generate(seed, o)
		fieldOfNull := func(L *Loc) {
			if L.Root == RPtr && len(L.Path) > 0 {
				t.Errorf("seed %d: MonoSafe ldflda through a pointer local outside a load", seed)
			}
		}
		nullArgs := func(args []*Loc) {
			for _, L := range args {
				if L.Root == RPtr {
					t.Errorf("seed %d: MonoSafe byref argument reached through a pointer local", seed)
				}
			}
		}
		visitNodes(p, func(m *Method, x any, where string) {
			switch x := x.(type) {
			case *SizeOf:
				sizeofs++
				if p.hasRefs(x.S) {
					t.Errorf("seed %d: MonoSafe sizeof of V%d, which holds references", seed, x.S)
				}
			case *Loc:
				if where == "filter" && (x.Root == RPtr || x.Root == RJag || (x.Root == RSElem || x.Root == RArr) && !x.Safe) {
					t.Errorf("seed %d: MonoSafe filter reaches a location that may throw (%s)", seed, rootNames[x.Root])
				}
				if ft := p.locType(m, x); x.Root == RPtr && ft.K == FStruct && p.hasRefs(ft.S) {
					t.Errorf("seed %d: MonoSafe V%d, which holds references, reached through a pointer local", seed, ft.S)
				}
			case *SUnbox:
				if where == "filter" {
					t.Errorf("seed %d: MonoSafe filter unboxes", seed)
				}
			case *LocLoad:
				if x.L.Root == RPtr && len(x.L.Path) > 0 && (x.A == ADirect || x.A == AFld) {
					t.Errorf("seed %d: MonoSafe ldfld down a path through a pointer local", seed)
				}
			case *SLoad:
				if x.L.Root == RPtr && len(x.L.Path) > 0 && (x.A == ADirect || x.A == AFld) {
					t.Errorf("seed %d: MonoSafe ldfld down a path through a pointer local", seed)
				}
			case *LocStore:
				fieldOfNull(x.L)
			case *SStep:
				fieldOfNull(x.L)
			case *SInit:
				fieldOfNull(x.L)
			case *PSet:
				fieldOfNull(x.L)
			case *SStore:
				fieldOfNull(x.L)
			case *SCopy:
				fieldOfNull(x.Dst)
				fieldOfNull(x.Src)
			case *CallExpr:
				nullArgs(x.RArgs)
			case *CallStmt:
				nullArgs(x.RArgs)
			case *SCall:
				nullArgs(x.RArgs)
			}
		})
	}
	if sizeofs == 0 {
		t.Error("no sizeof in 200 programs")
	}
}

// TestValueLowering runs value-type and pointer statements on both
// engines and checks what they print: value semantics of copies,
// writes through byref parameters seen by the caller's handler, sign
// and zero extension, a null pointer local, and an index out of range.
func TestValueLowering(t *testing.T) {
	c := func(v int64) Expr { return &Const{T: I4, V: v} }
	print := func(e Expr) Stmt { return &Mix{E: e, Print: true} }
	local := func(n int, path ...int) *Loc { return &Loc{Root: RSLocal, N: n, Path: path} }
	structs := []*StructDef{
		{Fields: []FType{{K: FI4}, {K: FI1}, {K: FU2}}, Init: 3},
		{Fields: []FType{{K: FStruct, S: 0}, {K: FI8}}, Init: 2},
	}
	catchAll := func(body ...Stmt) Stmt {
		return &Try{ID: 90, Body: body, Handlers: []*Handler{{Kind: Catch, ID: 91, Class: "System.Exception"}}}
	}
	tests := []struct {
		name    string
		methods []*Method
		want    []string // printed lines, handler entries as "h ID TYPE"
	}{
		{"copy then mutate the copy", []*Method{{SLocals: []int{0, 0}, Body: []Stmt{
			&SInit{L: local(0), Arg: c(5)},
			&SStore{L: local(1), A: ADirect, Src: &SLoad{L: local(0), A: ADirect}},
			&Mix{E: &SStep{L: local(1), Arg: c(1)}},
			print(&LocLoad{L: local(0, 0), A: AFld, T: I4}),
			print(&LocLoad{L: local(1, 0), A: AInd, T: I4}),
		}}}, []string{"5", "16"}},
		{"sign and zero extension", []*Method{{SLocals: []int{0}, Body: []Stmt{
			&LocStore{L: local(0, 1), A: AInd, E: c(-5)},
			print(&LocLoad{L: local(0, 1), A: AInd, T: I4}),
			print(&LocLoad{L: local(0, 1), A: AInd, Flip: true, T: I4}),
			&LocStore{L: local(0, 2), A: AFld, E: c(-1)},
			print(&LocLoad{L: local(0, 2), A: ADirect, T: I4}),
			print(&LocLoad{L: local(0, 2), A: AInd, Flip: true, T: I4}),
		}}}, []string{"-5", "251", "65535", "-1"}},
		{"nested field through a pointer local", []*Method{{SLocals: []int{1}, PLocals: []FType{{K: FStruct, S: 0}}, Body: []Stmt{
			&PSet{N: 0, L: local(0, 0)},
			&LocStore{L: &Loc{Root: RPtr, N: 0, Path: []int{0}}, A: AInd, E: c(42)},
			print(&LocLoad{L: local(0, 0, 0), A: ADirect, T: I4}),
		}}}, []string{"42"}},
		{"null pointer local", []*Method{{PLocals: []FType{{K: FI4}}, Body: []Stmt{
			catchAll(print(&LocLoad{L: &Loc{Root: RPtr, N: 0}, A: AInd, T: I4})),
		}}}, []string{"h 91 System.NullReferenceException"}},
		{"struct array index out of range", []*Method{{Body: []Stmt{
			catchAll(&SInit{L: &Loc{Root: RSElem, N: 0, Idx: c(5)}, Zero: true}),
		}}}, []string{"h 91 System.IndexOutOfRangeException"}},
		{"byref write seen by the caller's handler", []*Method{
			{NI4: 1, SLocals: []int{0}, Body: []Stmt{
				catchAll(&CallStmt{Callee: 1, RArgs: []*Loc{{Root: RVar, Var: Var{Kind: Local, T: I4}}, local(0)}}),
				print(&Load{V: Var{Kind: Local, T: I4}}),
				print(&LocLoad{L: local(0, 0), A: ADirect, T: I4}),
			}},
			{RParams: []FType{{K: FI4}, {K: FStruct, S: 0}}, Body: []Stmt{
				&LocStore{L: &Loc{Root: RRef, N: 0}, A: AInd, E: c(7)},
				&SStore{L: &Loc{Root: RRef, N: 1}, A: AObj, Src: &SNew{S: 0, Arg: c(9)}},
				&Throw{Class: "System.FormatException"},
			}},
		}, []string{"h 91 System.FormatException", "7", "9"}},
		{"value-type parameter is a copy", []*Method{
			{SLocals: []int{0}, Body: []Stmt{
				&SInit{L: local(0), Arg: c(3)},
				&CallStmt{Callee: 1, SArgs: []SExpr{&SLoad{L: local(0), A: ADirect}}},
				print(&LocLoad{L: local(0, 0), A: ADirect, T: I4}),
			}},
			{SParams: []int{0}, Body: []Stmt{
				&LocStore{L: &Loc{Root: RSArg, N: 0, Path: []int{0}}, A: AFld, E: c(100)},
				print(&LocLoad{L: &Loc{Root: RSArg, N: 0, Path: []int{0}}, A: AInd, T: I4}),
			}},
		}, []string{"100", "3"}},
		{"conditional value", []*Method{{SLocals: []int{0}, Body: []Stmt{
			&SInit{L: local(0), Arg: c(8)},
			print(&SField{Src: &SCond{C: Cond{A: c(1)}, A: &SLoad{L: local(0), A: AInd, S: 0}, B: &SNew{S: 0, Arg: c(2)}}, Path: []int{0}, T: I4}),
			print(&SField{Src: &SCond{C: Cond{Op: "blt", A: c(1), B: c(0)}, A: &SLoad{L: local(0), A: AInd, S: 0}, B: &SNew{S: 0, Arg: c(2)}}, Path: []int{0}, T: I4}),
		}}}, []string{"8", "2"}},
		{"unbox of another value type", []*Method{{Body: []Stmt{
			&BoxStruct{Src: &SNew{S: 1, Arg: c(4)}},
			print(&IsBoxed{S: 1}),
			print(&IsBoxed{S: 0}),
			catchAll(print(&SHash{Src: &SUnbox{S: 0}})),
		}}}, []string{"1", "0", "h 91 System.InvalidCastException"}},
	}
	r := &Runner{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Program{Structs: structs, Methods: tt.methods, NoValueHash: true}
			for _, m := range p.Methods {
				m.NI4 = max(m.NI4, 1)
			}
			src := p.IL()
			outs, err := r.Run(src)
			if err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			for _, o := range outs {
				var got []string
				for _, line := range strings.Split(o.Stdout, "\n") {
					f := strings.Fields(line)
					switch {
					case len(f) == 1:
						got = append(got, f[0])
					case len(f) >= 3 && strings.HasPrefix(f[0], "h"):
						got = append(got, "h "+strings.TrimPrefix(f[0], "h")+" "+f[1])
					}
				}
				if strings.Join(got, "|") != strings.Join(tt.want, "|") || o.Err != "" {
					t.Errorf("%s: got %q (%s), want %q\n%s", o.Engine, got, o.Err, tt.want, src)
				}
			}
		})
	}
}

// TestValueEditsLoad applies reducer edits to generated programs and
// checks that every edited program still lowers to a program that loads:
// the edits of value-type nodes, parameters and inlining keep locations
// typed.
func TestValueEditsLoad(t *testing.T) {
	o, _ := SizeOptions("medium")
	seeds := uint64(40)
	if testing.Short() {
		seeds = 8
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		p := Generate(seed, o)
		n := countEdits(p)
		step := max(1, n/60)
		for k := 0; k < n; k += step {
			c := p.Clone()
			applyEdit(c, k)
			src := c.IL()
			if _, err := miniil.Load("edit.il", []byte(src)); err != nil {
				t.Fatalf("seed %d, edit %d of %d: %v", seed, k, n, err)
			}
		}
		// the parameter removals and the first statements' edits
		for k := 0; k < min(n, 40); k++ {
			c := p.Clone()
			applyEdit(c, k)
			if _, err := miniil.Load("edit.il", []byte(c.IL())); err != nil {
				t.Fatalf("seed %d, edit %d of %d: %v", seed, k, n, err)
			}
		}
	}
}
