package fuzz

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"miniil"
)

// hasShapes reports whether the program has the shapes feature.
func hasShapes(p *Program) bool { return len(p.Fns) > 0 }

// Regular expressions over the lowered IL, with the indentation removed
// (see flatIL).
var (
	// a loop test of an index against a length read by ldlen
	ldlenLoopRE = regexp.MustCompile(`ldloc ix\d+\nldloc ar\d+\nldlen\n(conv\.i4\n)?(ldc\.i4 1\nsub\n)?(bge|blt|bgt|ble) L\d+\n`)
	// the index against a length loaded before the loop
	nLoopRE = regexp.MustCompile(`ldlen\nconv\.i4\nstloc nx(\d+)\n(.*\n)*?ldloc ix\d+\nldloc nx\d+\n(bge|blt) L\d+\n`)
	// a loop that counts from a start other than 0
	startRE = regexp.MustCompile(`ldc\.i4 [12]\nstloc ix\d+\n`)
	// a call of a small method, static or instance
	smallCallRE = regexp.MustCompile(`(call|callvirt) (instance )?(int32|int64|void) (Sm::)?f\d+\(`)
	// a call with a null this
	nullThisRE = regexp.MustCompile(`ldnull\n(.*\n){0,12}?(call|callvirt) instance (int32|int64|void) Sm::f\d+\(`)
	// a division or remainder by a constant (no guard in between)
	divConstRE = regexp.MustCompile(`ldc\.i[48] (-?\d+)\n(div|rem)(\.un)?\n`)
	// a division of int.MinValue by a constant
	minDivRE = regexp.MustCompile(`ldc\.i4 -2147483648\n(ldc\.i4 -?\d+)\n(div|rem)`)
	// castclass right after an isinst of the same class
	guardCastRE = regexp.MustCompile(`isinst (\S+)\nbrfalse L\d+\nldloc tc\d+\ncastclass (\S+)\n`)
)

// flatIL returns the program's IL without indentation.
func flatIL(src string) string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}

// shapeStats walks the AST of a program for the shapes that are easier
// to see there than in the IL.
type shapeStats struct {
	forArr, nested, tryInLoop, finallyInLoop, cse, chain, reassign, throwInLoop, idxAfter, empty, null bool
}

func statsOf(p *Program) shapeStats {
	var st shapeStats
	sameAddr := func(x Expr) bool {
		b, ok := x.(*Bin)
		if !ok {
			return false
		}
		switch a := b.A.(type) {
		case *AElem:
			y, ok := b.B.(*AElem)
			return ok && y.A == a.A && reflect.DeepEqual(y.Idx, a.Idx)
		case *BoxField:
			_, ok := b.B.(*BoxField)
			return ok
		case *SmField:
			_, ok := b.B.(*SmField)
			return ok
		}
		return false
	}
	var walkExpr func(x Expr)
	walkExpr = func(x Expr) {
		if x == nil {
			return
		}
		if sameAddr(x) {
			st.cse = true
		}
		if _, ok := x.(*TypeChain); ok {
			st.chain = true
		}
		for _, c := range subexprs(x) {
			walkExpr(*c)
		}
	}
	for _, m := range p.Methods {
		forEachStmt(&m.Body, func(ss *[]Stmt, i int) {
			s := (*ss)[i]
			for _, x := range stmtExprs(s) {
				walkExpr(*x)
			}
			switch s := s.(type) {
			case *ForArr:
				st.forArr = true
				if s.MixIdx {
					st.idxAfter = true
				}
				forEachStmt(&s.Body, func(ss *[]Stmt, i int) {
					switch x := (*ss)[i].(type) {
					case *ForArr:
						st.nested = true
					case *Try:
						st.tryInLoop = true
						if x.Handlers[0].Kind == Finally {
							st.finallyInLoop = true
						}
					case *ASet:
						st.reassign = true
					case *If:
						for _, y := range x.Then {
							if _, ok := y.(*Throw); ok {
								st.throwInLoop = true
							}
						}
					}
				})
			case *ASet:
				switch {
				case s.Src == ANull:
					st.null = true
				case s.Src == ANew && s.Len == 0:
					st.empty = true
				}
			}
		})
	}
	return st
}

// TestShapesAppear checks that the shapes the JIT optimizes appear in a
// large share of the generated programs of every size: loops bounded by
// ldlen and by a length read before, calls of small methods (also on a
// null this), divisions by constants (also of int.MinValue), trys in
// loop bodies, repeated addresses, type tests, and the loops' variants.
func TestShapesAppear(t *testing.T) {
	type check struct {
		name string
		// percent of the programs: of the small ones (whose budget
		// leaves little room for nested loops), of the others
		minSmall, min int
		has           func(p *Program, il string, st shapeStats) bool
	}
	checks := []check{
		{"the feature", 55, 55, func(p *Program, il string, st shapeStats) bool { return hasShapes(p) }},
		{"ldlen-bounded loop", 45, 50, func(p *Program, il string, st shapeStats) bool { return ldlenLoopRE.MatchString(il) }},
		{"loop to n = a.Length", 8, 15, func(p *Program, il string, st shapeStats) bool { return nLoopRE.MatchString(il) }},
		{"loop from 1 or 2", 12, 25, func(p *Program, il string, st shapeStats) bool { return startRE.MatchString(il) }},
		{"small call", 40, 50, func(p *Program, il string, st shapeStats) bool { return smallCallRE.MatchString(il) }},
		{"null this", 4, 12, func(p *Program, il string, st shapeStats) bool { return nullThisRE.MatchString(il) }},
		{"division by a constant", 60, 80, func(p *Program, il string, st shapeStats) bool { return divConstRE.MatchString(il) }},
		{"MinValue / constant", 5, 15, func(p *Program, il string, st shapeStats) bool { return minDivRE.MatchString(il) }},
		{"loop over an array", 55, 55, func(p *Program, il string, st shapeStats) bool { return st.forArr }},
		{"nested loops", 0, 12, func(p *Program, il string, st shapeStats) bool { return st.nested }},
		{"try in a loop body", 20, 40, func(p *Program, il string, st shapeStats) bool { return st.tryInLoop }},
		{"finally in a loop body", 8, 30, func(p *Program, il string, st shapeStats) bool { return st.finallyInLoop }},
		{"array replaced in the loop", 3, 10, func(p *Program, il string, st shapeStats) bool { return st.reassign }},
		{"throw in a loop body", 15, 35, func(p *Program, il string, st shapeStats) bool { return st.throwInLoop }},
		{"index read after the loop", 25, 40, func(p *Program, il string, st shapeStats) bool { return st.idxAfter }},
		{"empty array", 6, 15, func(p *Program, il string, st shapeStats) bool { return st.empty }},
		{"null array", 6, 15, func(p *Program, il string, st shapeStats) bool { return st.null }},
		{"same address twice", 15, 35, func(p *Program, il string, st shapeStats) bool { return st.cse }},
		{"type chain", 12, 35, func(p *Program, il string, st shapeStats) bool { return st.chain }},
		{"isinst then castclass", 2, 12, func(p *Program, il string, st shapeStats) bool {
			for _, m := range guardCastRE.FindAllStringSubmatch(il, -1) {
				if m[1] == m[2] {
					return true
				}
			}
			return false
		}},
	}
	const seeds = 80
	for _, size := range sizes {
		o, _ := SizeOptions(size)
		counts := make([]int, len(checks))
		none := o
		none.Shapes = 0
		for seed := uint64(1); seed <= seeds; seed++ {
			p := Generate(seed, o)
			il, st := flatIL(p.IL()), statsOf(p)
			for k, c := range checks {
				if c.has(p, il, st) {
					counts[k]++
				}
			}
			if seed <= 10 {
				// without the feature, none of them
				q := Generate(seed, none)
				if il := flatIL(q.IL()); hasShapes(q) || ldlenLoopRE.MatchString(il) || smallCallRE.MatchString(il) {
					t.Errorf("%s seed %d: shapes with Options.Shapes 0", size, seed)
				}
			}
		}
		for k, c := range checks {
			pct, want := 100*counts[k]/seeds, c.min
			if size == "small" {
				want = c.minSmall
			}
			if pct < want {
				t.Errorf("%s: %s in %d%% of the programs, want at least %d%%", size, c.name, pct, want)
			}
		}
	}
}

// TestShapesOwnStream checks that a program the shapes feature was not
// chosen for is the program of the generator without the feature (but
// for the header, which records Options.Shapes), and that Shapes 0
// writes the header of before the feature.
func TestShapesOwnStream(t *testing.T) {
	for _, size := range sizes {
		o, _ := SizeOptions(size)
		none := o
		none.Shapes = 0
		same, with := 0, 0
		for seed := uint64(1); seed <= 40; seed++ {
			p := Generate(seed, o)
			if hasShapes(p) {
				with++
				continue
			}
			_, a, _ := strings.Cut(p.IL(), "\n")
			_, b, _ := strings.Cut(GenerateIL(seed, none), "\n")
			if a != b {
				t.Fatalf("%s seed %d: without the feature, the program differs from the one of Shapes 0", size, seed)
			}
			same++
		}
		if same == 0 || with == 0 {
			t.Errorf("%s: %d programs with the feature, %d without: want some of both", size, with, same)
		}
	}
}

// TestShapesZeroUnchanged checks that Options.Shapes 0 gives the
// programs of the generator before the feature, byte for byte: the
// digests were taken with the generator of commit 4912c7f (update them
// only for a deliberate change of the generator's other features).
func TestShapesZeroUnchanged(t *testing.T) {
	tests := []struct {
		size   string
		seed   uint64
		alloc  bool
		digest string
	}{
		{"small", 1, false, shapesZeroDigests[0]},
		{"medium", 15400000, false, shapesZeroDigests[1]},
		{"large", 15700000, false, shapesZeroDigests[2]},
		{"medium", 15700000, true, shapesZeroDigests[3]},
	}
	for _, tt := range tests {
		o, _ := SizeOptions(tt.size)
		o.Shapes = 0
		if tt.alloc {
			o.Alloc = 100
		}
		src := GenerateIL(tt.seed, o)
		if got := fmt.Sprintf("%x", sha256.Sum256([]byte(src))); got != tt.digest {
			t.Errorf("%s seed %d alloc=%v: digest %s, want %s", tt.size, tt.seed, tt.alloc, got, tt.digest)
		}
	}
}

// shapesZeroDigests are the SHA-256 digests of the programs of
// TestShapesZeroUnchanged, as the generator before the shapes made them.
var shapesZeroDigests = [...]string{
	"74975d6ccc0801d1100dc4fd382babc1ebe15dd63281358778033129578c1e63",
	"b18c4fc5dbc6afc25b1fdfd05ba9c0b88bee8f30eef2a20932c1fe2fae7791b6",
	"f63816f8abbaa72a6b39db6f738d3ec22837cebe0f5849d3ba35ffc4fe04edf1",
	"88cba69b616fca76f2d1746fad7d16b785c5f0d2a92996b1c43107d44c516caf",
}

// TestShapesMonoSafe checks that with MonoSafe nothing of the shapes in
// a filter can throw: no array elements, no calls of methods that may
// throw or on an object that may be null, no casts, no unguarded
// division by -1.
func TestShapesMonoSafe(t *testing.T) {
	o, _ := SizeOptions("large")
	o.MonoSafe, o.Shapes = true, 100
	inFilters := 0
	for seed := uint64(1); seed <= 60; seed++ {
		p := Generate(seed, o)
		for _, m := range p.Methods {
			forEachStmt(&m.Body, func(ss *[]Stmt, i int) {
				tr, ok := (*ss)[i].(*Try)
				if !ok {
					return
				}
				for _, h := range tr.Handlers {
					if h.Kind != Filter {
						continue
					}
					check := func(x Expr) {
						(&walker{expr: func(x *Expr) {
							switch e := (*x).(type) {
							case *AElem, *ALen, *SmField:
								t.Errorf("seed %d: %T in a filter", seed, e)
							case *FnCall:
								inFilters++
								f := p.Fns[e.Fn]
								if len(f.may) > 0 || f.Inst && e.Obj != ONewSm {
									t.Errorf("seed %d: a call of f%d that may throw in a filter", seed, e.Fn)
								}
							case *TypeChain:
								inFilters++
								if e.End != TENonNull {
									t.Errorf("seed %d: a type chain that may throw in a filter", seed)
								}
								for _, s := range e.Steps {
									if s.Cast {
										t.Errorf("seed %d: castclass in a filter", seed)
									}
								}
							case *Bin:
								if e.Op == "div" || e.Op == "rem" {
									if c, ok := e.B.(*Const); ok && c.V == -1 && !e.Guard {
										t.Errorf("seed %d: division by -1 in a filter", seed)
									}
								}
							}
						}}).method(&Method{Body: []Stmt{&Mix{E: x}}})
					}
					body := h.FilterBody
					forEachStmt(&body, func(ss *[]Stmt, i int) {
						switch s := (*ss)[i].(type) {
						case *ForArr, *AStore, *Block:
							t.Errorf("seed %d: %T in a filter", seed, s)
						}
						for _, x := range stmtExprs((*ss)[i]) {
							check(*x)
						}
					})
					if h.FilterCond != nil {
						check(h.FilterCond)
					}
				}
			})
		}
	}
	if inFilters == 0 {
		t.Error("no small call or type chain in a filter")
	}
}

// TestShapesEditsLoad checks that the reducer's edits of programs with
// the shapes keep them valid.
func TestShapesEditsLoad(t *testing.T) {
	o, _ := SizeOptions("medium")
	o.Shapes = 100
	seeds := uint64(20)
	if testing.Short() {
		seeds = 5
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		p := Generate(seed, o)
		n := countEdits(p)
		step := max(1, n/50)
		for k := 0; k < n; k += step {
			c := p.Clone()
			applyEdit(c, k)
			if _, err := miniil.Load("edit.il", []byte(c.IL())); err != nil {
				t.Fatalf("seed %d, edit %d of %d: %v", seed, k, n, err)
			}
		}
	}
}

// TestShapesRun runs programs with the shapes on the JIT and the
// interpreter: they load, agree, and end quickly.
func TestShapesRun(t *testing.T) {
	r := &Runner{Timeout: 20 * time.Second}
	n := uint64(12)
	if testing.Short() {
		n = 4
	}
	for seed := uint64(1); seed <= n; seed++ {
		size := sizes[seed%3]
		o, _ := SizeOptions(size)
		o.Shapes = 100
		start := time.Now()
		outs, err := r.Run(GenerateIL(seed, o))
		if err != nil {
			t.Fatalf("%s seed %d: %v", size, seed, err)
		}
		if bad, why := Mismatch(outs); bad {
			t.Errorf("%s seed %d: %s", size, seed, why)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s seed %d: %v to run", size, seed, d)
		}
	}
}
