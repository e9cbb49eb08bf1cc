package fuzz

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"miniil/il"
)

// binary is one binary operator node of a generated program: a Bin, a Cmp
// or a compare-and-branch Cond.
type binary struct {
	op   string
	a, b Expr
	t    Type // operand type
}

// binaries returns every binary operator node of p.
func binaries(p *Program) []binary {
	var out []binary
	var expr func(e Expr)
	expr = func(e Expr) {
		switch e := e.(type) {
		case *Bin:
			out = append(out, binary{e.Op, e.A, e.B, e.T})
		case *Cmp:
			out = append(out, binary{e.Op, e.A, e.B, e.A.Type()})
		}
		if e != nil {
			for _, s := range subexprs(e) {
				expr(*s)
			}
		}
	}
	for _, m := range p.Methods {
		expr(m.RetExpr)
		forEachStmt(&m.Body, func(ss *[]Stmt, i int) {
			s := (*ss)[i]
			if c, ok := s.(*If); ok && c.C.Op != "" && !isMaybeIfCond(c.C) {
				out = append(out, binary{c.C.Op, c.C.A, c.C.B, c.C.A.Type()})
			}
			for _, x := range stmtExprs(s) {
				expr(*x)
			}
		})
	}
	return out
}

// isMaybeIfCond reports whether c is the fixed (x & 3) == 0 condition
// that maybeIf puts around jumps and throws (not a generated operator).
func isMaybeIfCond(c Cond) bool {
	a, ok := c.A.(*Bin)
	if !ok || c.Op != "beq" || a.Op != "and" {
		return false
	}
	m, ok1 := a.B.(*Const)
	z, ok2 := c.B.(*Const)
	return ok1 && ok2 && m.V == 3 && z.V == 0
}

// TestOperandConstants checks that every binary operator gets constant
// operands on either side, and both at once, at a rate comparable to
// the other operand shapes (a constant is one of about three shapes:
// constants, variables, nested expressions and calls).
func TestOperandConstants(t *testing.T) {
	type count struct{ n, a, b, both int }
	counts := map[string]*count{}
	for _, size := range []string{"medium", "large"} {
		o, _ := SizeOptions(size)
		// the base generator's rates: the shapes (shapes.go) add their
		// own operators (TestShapesAppear)
		o.Shapes = 0
		for seed := uint64(1); seed <= 400; seed++ {
			for _, x := range binaries(Generate(seed, o)) {
				c := counts[x.op]
				if c == nil {
					c = &count{}
					counts[x.op] = c
				}
				_, ca := x.a.(*Const)
				_, cb := x.b.(*Const)
				c.n++
				if ca {
					c.a++
				}
				if cb {
					c.b++
				}
				if ca && cb {
					c.both++
				}
			}
		}
	}
	ops := slices.Concat(arithOps, checkedOps, shiftOps, divOps, cmpOps, brOps)
	for _, op := range ops {
		c := counts[op]
		if c == nil || c.n < 100 {
			t.Errorf("%s: too few nodes to judge (%v)", op, c)
			continue
		}
		pa, pb := 100*c.a/c.n, 100*c.b/c.n
		hi := 60
		if op == "and" {
			hi = 90 // masks: of shift counts, switch values, indices
		}
		if pa < 15 || pa > hi || pb < 15 || pb > hi || c.both == 0 {
			t.Errorf("%s: %d nodes, constant first operand %d%%, second %d%%, both %d times: want 15-%d%% each, both some", op, c.n, pa, pb, c.both, hi)
		}
	}
}

// shiftCountShape classifies the count of a shift of a width-bit value.
func shiftCountShape(b Expr, width int64) string {
	switch b := b.(type) {
	case *Const:
		switch {
		case b.V < 0:
			return "negative"
		case b.V >= width:
			return "too large"
		}
		return "in range"
	case *Bin:
		if m, ok := b.B.(*Const); ok && b.Op == "and" {
			if m.V == width-1 {
				return "masked"
			}
			return "masked wider"
		}
	}
	return "unmasked"
}

// TestShiftCountShapes checks that every shift of either operand type
// gets counts of every shape: in range, negative and too large
// constants, masked to the width, masked wider and unmasked expressions;
// with MonoSafe an int32 shl or shr count stays in [0, 31], and an int32
// shr count is a literal (Mono 6.8 shifts a folded overflowing int32
// untruncated by a computed count).
func TestShiftCountShapes(t *testing.T) {
	shapes := []string{"in range", "negative", "too large", "masked", "masked wider", "unmasked"}
	for _, mono := range []bool{false, true} {
		seen := map[string]int{}
		o, _ := SizeOptions("medium")
		o.MonoSafe = mono
		for seed := uint64(1); seed <= 400; seed++ {
			for _, x := range binaries(Generate(seed, o)) {
				if !slices.Contains(shiftOps, x.op) {
					continue
				}
				width := int64(32)
				if x.t == I8 {
					width = 64
				}
				shape := shiftCountShape(x.b, width)
				seen[fmt.Sprintf("%s %s %s", x.op, x.t.il(), shape)]++
				if mono && x.t == I4 && x.op != "shr.un" && shape != "in range" && (shape != "masked" || x.op == "shr") {
					t.Fatalf("seed %d: MonoSafe %s int32 by a count %s", seed, x.op, shape)
				}
				if _, lit := x.b.(*Const); mono && x.t == I4 && x.op == "shr" && !lit {
					t.Fatalf("seed %d: MonoSafe shr int32 by a computed count", seed)
				}
			}
		}
		for _, op := range shiftOps {
			for _, ty := range []Type{I4, I8} {
				for _, shape := range shapes {
					k := fmt.Sprintf("%s %s %s", op, ty.il(), shape)
					want := !mono || ty == I8 || op == "shr.un" || shape == "in range" || shape == "masked" && op != "shr"
					if got := seen[k] > 0; got != want {
						t.Errorf("mono=%v: %s: %d counts, want some: %v", mono, k, seen[k], want)
					}
				}
			}
		}
	}
}

// TestGuardedDivisors lowers and runs guarded divisions by constants: a
// divisor that cannot throw stays a constant in the IL (the JIT sees a
// constant divisor); 0, and -1 of a signed operator, go through the guard
// (divisor 2..257). Both engines must print the quotient or remainder.
func TestGuardedDivisors(t *testing.T) {
	r := &Runner{}
	for _, op := range divOps {
		for _, ty := range []Type{I4, I8} {
			for _, d := range []int64{7, -7, 1, 0, -1, math.MinInt32, 0x55555555} {
				t.Run(fmt.Sprintf("%s %s by %d", op, ty.il(), d), func(t *testing.T) {
					x := int64(-1000000007)
					if ty == I8 {
						x = -100000000000007
					}
					e := &Bin{Op: op, A: &Const{T: ty, V: x}, B: &Const{T: ty, V: d}, T: ty, Guard: true}
					p := &Program{Methods: []*Method{{NI4: 1, Body: []Stmt{&Mix{E: e, Print: true}}}}}
					src := p.IL()
					unsigned := strings.HasSuffix(op, ".un")
					safe := d != 0 && (d != -1 || unsigned)
					div := d
					if !safe {
						div = d&255 + 2
					}
					if guarded := strings.Contains(src, " 255\n"); guarded == safe {
						t.Errorf("guard in the IL: %v, want %v:\n%s", guarded, !safe, src)
					}
					want := quotient(op, ty, x, div)
					outs, err := r.Run(src)
					if err != nil {
						t.Fatal(err)
					}
					for _, o := range outs {
						if got, _, _ := strings.Cut(o.Stdout, "\n"); got != want || o.Err != "" {
							t.Errorf("%s: got %q (%s), want %q", o.Engine, got, o.Err, want)
						}
					}
				})
			}
		}
	}
}

// quotient computes x op d as CoreCLR does for operands of type ty.
func quotient(op string, ty Type, x, d int64) string {
	if ty == I4 {
		a, b := int32(x), int32(d)
		switch op {
		case "div":
			return strconv.FormatInt(int64(a/b), 10)
		case "rem":
			return strconv.FormatInt(int64(a%b), 10)
		case "div.un":
			return strconv.FormatInt(int64(int32(uint32(a)/uint32(b))), 10)
		}
		return strconv.FormatInt(int64(int32(uint32(a)%uint32(b))), 10)
	}
	switch op {
	case "div":
		return strconv.FormatInt(x/d, 10)
	case "rem":
		return strconv.FormatInt(x%d, 10)
	case "div.un":
		return strconv.FormatInt(int64(uint64(x)/uint64(d)), 10)
	}
	return strconv.FormatInt(int64(uint64(x)%uint64(d)), 10)
}

// ehShapes counts the exception-handling shapes of issue 11 in generated
// programs: label-form trys (handlers before the body or after ret),
// catch and filter trys that resume in their body and the Resume
// statements of their handlers, and rethrows nested in a finally, fault
// or try inside a catch.
type ehShapes struct {
	trys, before, afterRet      int
	catchTrys, resuming, resume int
	rethrows, nestedRethrows    int
}

func countEHShapes(p *Program) ehShapes {
	var n ehShapes
	var walk func(ss []Stmt, frames []fkind)
	walk = func(ss []Stmt, frames []fkind) {
		for _, s := range ss {
			switch s := s.(type) {
			case *If:
				walk(s.Then, frames)
				walk(s.Else, frames)
			case *Loop:
				walk(s.Body, append(frames, fLoop))
			case *Switch:
				for _, c := range s.Cases {
					walk(c, frames)
				}
				walk(s.Default, frames)
			case *Rethrow:
				n.rethrows++
				if k := frames[len(frames)-1]; k != fCatch && k != fFilterHandler {
					n.nestedRethrows++
				}
			case *Resume:
				n.resume++
			case *Try:
				n.trys++
				switch s.Layout {
				case Before:
					n.before++
				case AfterRet:
					n.afterRet++
				}
				walk(s.Body, append(frames, fTry))
				for _, h := range s.Handlers {
					switch h.Kind {
					case Catch:
						walk(h.Body, append(frames, fCatch))
					case Filter:
						walk(h.FilterBody, append(frames, fFilter))
						walk(h.Body, append(frames, fFilterHandler))
					case Finally:
						walk(h.Body, append(frames, fFinally))
					case Fault:
						walk(h.Body, append(frames, fFault))
					}
				}
				if k := s.Handlers[0].Kind; k == Catch || k == Filter {
					n.catchTrys++
					if s.Retry > 0 {
						n.resuming++
					}
				}
			}
		}
	}
	for _, m := range p.Methods {
		walk(m.Body, []fkind{fMethod})
	}
	return n
}

// TestEHShapeRates checks that the generator makes the shapes of label-
// form clauses, resuming catches and nested rethrows as often as the
// other shapes, and that what it makes lowers to what it means (label
// directives, leaves back into a try) and loads.
func TestEHShapeRates(t *testing.T) {
	var n ehShapes
	labelPrograms, resumePrograms := 0, 0
	const programs = 300
	opts, err := SizeOptions("medium")
	if err != nil {
		t.Fatal(err)
	}
	opts.Shapes = 0 // the base generator's rates: the shapes add trys of their own
	for seed := uint64(1); seed <= programs; seed++ {
		p := Generate(seed, opts)
		s := countEHShapes(p)
		n.trys += s.trys
		n.before += s.before
		n.afterRet += s.afterRet
		n.catchTrys += s.catchTrys
		n.resuming += s.resuming
		n.resume += s.resume
		n.rethrows += s.rethrows
		n.nestedRethrows += s.nestedRethrows
		src := p.IL()
		if strings.Contains(src, ".try L") {
			labelPrograms++
		}
		if strings.Contains(src, "stloc rt") {
			resumePrograms++
		}
	}
	t.Logf("%+v; %d programs with label-form clauses, %d resuming", n, labelPrograms, resumePrograms)
	frac := func(a, b int) float64 { return float64(a) / float64(max(b, 1)) }
	checks := []struct {
		what   string
		got    float64
		lo, hi float64
	}{
		{"label-form trys among trys", frac(n.before+n.afterRet, n.trys), 0.2, 0.45},
		{"trys with handlers after ret among trys", frac(n.afterRet, n.trys), 0.02, 0.2},
		{"resuming trys among catch and filter trys", frac(n.resuming, n.catchTrys), 0.1, 0.4},
		{"resume statements per resuming try", frac(n.resume, n.resuming), 0.5, 100},
		{"nested rethrows among rethrows", frac(n.nestedRethrows, n.rethrows), 0.1, 0.9},
		{"programs with label-form clauses", frac(labelPrograms, programs), 0.3, 1},
		{"programs with resuming trys", frac(resumePrograms, programs), 0.1, 1},
	}
	for _, c := range checks {
		if c.got < c.lo || c.got > c.hi {
			t.Errorf("%s: %.3f, want within [%.2f, %.2f]", c.what, c.got, c.lo, c.hi)
		}
	}
}

// TestJaggedLowering lowers and runs statements over the jagged static
// jag on both engines: a new row is stored into and read back, its length
// read; a null row and row 3 throw; arr's row is the static arr itself;
// and the store check refuses a string row (what the catch-all prints
// names the exception).
func TestJaggedLowering(t *testing.T) {
	c := func(v int64) Expr { return &Const{T: I4, V: v} }
	print := func(e Expr) Stmt { return &Mix{E: e, Print: true} }
	tests := []struct {
		name string
		body []Stmt
		want string // the first line of output (the catch-all prints "caught TYPE")
	}{
		{"new row", []Stmt{&SetRow{Row: c(1), Val: RowNew, Len: 3}, &JagStore{Row: c(1), Col: c(2), E: c(42)},
			print(&JagLoad{Row: c(1), Col: c(2), Token: true})}, "42"},
		{"row length", []Stmt{&SetRow{Row: c(5), Val: RowNew, Len: 6}, print(&JagLen{Row: c(1)})}, "6"},
		{"initial rows", []Stmt{print(&JagLen{Row: c(0)})}, "4"},
		{"null row", []Stmt{print(&JagLoad{Row: c(1), Col: c(0)})}, "caught System.NullReferenceException"},
		{"row 3", []Stmt{&JagStore{Row: c(3), Col: c(0), E: c(1)}}, "caught System.IndexOutOfRangeException"},
		{"column out of range", []Stmt{&JagStore{Row: c(0), Col: c(4), E: c(1), Token: true}}, "caught System.IndexOutOfRangeException"},
		{"arr aliased", []Stmt{&StoreElem{Idx: c(1), E: c(7), Safe: true}, print(&JagLoad{Row: c(2), Col: c(1)})}, "7"},
		{"arr stored as a row", []Stmt{&SetRow{Row: c(0), Val: RowArr}, &JagStore{Row: c(0), Col: c(4), E: c(9)},
			print(&ArrLoad{Idx: c(4)})}, "9"},
		{"null stored as a row", []Stmt{&SetRow{Row: c(0), Val: RowNull}, print(&JagLen{Row: c(0)})}, "caught System.NullReferenceException"},
		{"store check", []Stmt{&SetRow{Row: c(2), Val: RowString}}, "caught System.ArrayTypeMismatchException"},
	}
	r := &Runner{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Program{Methods: []*Method{{NI4: 1, Body: tt.body}}}
			src := p.IL()
			outs, err := r.Run(src)
			if err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			for _, o := range outs {
				if firstLine(o.Stdout) != tt.want || o.Err != "" {
					t.Errorf("%s: got %q (%s), want the first line %q\n%s", o.Engine, o.Stdout, o.Err, tt.want, src)
				}
			}
		})
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestJaggedRates checks that generated programs use the jagged static in
// every shape (loads and stores in both instruction forms, lengths, each
// kind of row stored), also inside try bodies and handlers, and that
// what they make loads.
func TestJaggedRates(t *testing.T) {
	o, _ := SizeOptions("medium")
	o.Shapes = 0 // the base generator's rates: the shapes take a share of the budget
	n := map[string]int{}
	programs := 0
	for seed := uint64(1); seed <= 300; seed++ {
		p := Generate(seed, o)
		uses := false
		var expr func(e Expr, where string)
		expr = func(e Expr, where string) {
			switch e := e.(type) {
			case *JagLoad:
				n[fmt.Sprintf("load token=%v", e.Token)]++
				n["jag in "+where]++
			case *JagLen:
				n["len"]++
			}
			if e != nil {
				for _, s := range subexprs(e) {
					expr(*s, where)
				}
			}
		}
		var walk func(ss []Stmt, where string)
		walk = func(ss []Stmt, where string) {
			for _, s := range ss {
				switch s := s.(type) {
				case *JagStore:
					n[fmt.Sprintf("store token=%v", s.Token)]++
					n["jag in "+where]++
					uses = true
				case *SetRow:
					n[fmt.Sprintf("row %d", s.Val)]++
					uses = true
				case *Try:
					walk(s.Body, "try")
					for _, h := range s.Handlers {
						walk(h.FilterBody, "filter")
						walk(h.Body, "handler")
					}
					continue
				}
				for _, x := range stmtExprs(s) {
					expr(*x, where)
				}
				for _, c := range children(s) {
					walk(c, where)
				}
			}
		}
		for _, m := range p.Methods {
			walk(m.Body, "method")
			expr(m.RetExpr, "method")
		}
		if uses {
			programs++
			if _, err := il.Load("jag.il", []byte(p.IL())); err != nil {
				t.Fatalf("seed %d does not load: %v", seed, err)
			}
		}
	}
	t.Logf("%d programs of 300 store through jag; %v", programs, n)
	if programs < 150 {
		t.Errorf("%d programs of 300 store through the jagged static, want at least half", programs)
	}
	for _, k := range []string{"load token=false", "load token=true", "store token=false", "store token=true", "len",
		"row 0", "row 1", "row 2", "row 3", "jag in method", "jag in try", "jag in handler", "jag in filter"} {
		if n[k] < 5 {
			t.Errorf("%s: %d times in 300 programs, want at least 5", k, n[k])
		}
	}
}

// TestIfaceCallRates checks that generated programs call IOp::Apply at a
// modest rate, some on slots that may throw, and store into ops, and that
// MonoSafe filters only make calls that cannot throw.
func TestIfaceCallRates(t *testing.T) {
	const programs = 300
	for _, mono := range []bool{false, true} {
		o, _ := SizeOptions("medium")
		o.MonoSafe = mono
		withCalls, safe, unsafe, sets := 0, 0, 0, 0
		for seed := uint64(1); seed <= programs; seed++ {
			p := Generate(seed, o)
			calls := 0
			for _, m := range p.Methods {
				walkStmts(m.Body, false, func(s Stmt, inFilter bool) {
					if _, ok := s.(*SetOp); ok {
						sets++
					}
					var expr func(e Expr)
					expr = func(e Expr) {
						if c, ok := e.(*IfaceCall); ok {
							calls++
							if c.Safe {
								safe++
							} else {
								unsafe++
								if inFilter && mono {
									t.Errorf("seed %d: MonoSafe filter calls IOp::Apply on a slot that may throw", seed)
								}
							}
						}
						if e != nil {
							for _, x := range subexprs(e) {
								expr(*x)
							}
						}
					}
					for _, x := range stmtExprs(s) {
						expr(*x)
					}
				})
			}
			if calls > 0 {
				withCalls++
			}
		}
		t.Logf("mono=%v: %d/%d programs call IOp::Apply; %d safe calls, %d that may throw, %d SetOp", mono, withCalls, programs, safe, unsafe, sets)
		if withCalls < programs/3 || safe < programs || unsafe < programs/10 || sets < programs/10 {
			t.Errorf("mono=%v: too few interface calls or stores", mono)
		}
	}
}

// TestIfaceCalls runs interface calls on every slot of ops on both
// engines: the two classes of slots 0 and 1 (one implementing IOp through
// its base class), OpDiv dividing by zero in slot 2, null in slot 3, and
// objects SetOp stores.
func TestIfaceCalls(t *testing.T) {
	call := func(idx, arg int64, safe bool) Expr {
		return &IfaceCall{Idx: &Const{T: I4, V: idx}, Arg: &Const{T: I4, V: arg}, Safe: safe}
	}
	mix := func(e Expr) Stmt { return &Mix{E: e, Print: true} }
	catchAll := func(body ...Stmt) Stmt {
		return &Try{ID: 1, Body: body, Handlers: []*Handler{{Kind: Catch, ID: 2, Class: "System.Exception"}}}
	}
	p := &Program{Methods: []*Method{{NI4: 1, Body: []Stmt{
		mix(call(0, 10, true)), // 10 + 3
		mix(call(5, 10, true)), // slot 1: 10 * 5
		mix(call(2, 9, false)), // 1000 / (9 & 7)
		catchAll(mix(call(2, 8, false))),
		catchAll(mix(call(7, 8, false))),
		&SetOp{Slot: 3, Kind: OpMul, E: &Const{T: I4, V: -2}},
		mix(call(3, 21, false)),
		&SetOp{Slot: 2, Kind: OpNull},
		catchAll(mix(call(6, 1, false))),
		&SetOp{Slot: 2, Kind: OpAdd, E: call(1, 4, true)},
		mix(call(2, 1, false)), // 1 + 20
	}}}}
	src := p.IL()
	outs, err := (&Runner{}).Run(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"13", "50", "1000", "h2 System.DivideByZeroException", "h2 System.NullReferenceException", "-42", "h2 System.NullReferenceException", "21"}
	for _, o := range outs {
		var got []string
		for _, line := range strings.Split(o.Stdout, "\n") {
			if f := strings.Fields(line); len(f) == 1 || len(f) >= 2 && f[0] == "h2" {
				got = append(got, strings.Join(f[:min(len(f), 2)], " "))
			}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") || o.Err != "" {
			t.Errorf("%s: got %q (%s), want %q\n%s", o.Engine, got, o.Err, want, src)
		}
	}
}
