package tests

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"miniil"
	"miniil/amd64"
	"miniil/ehclauses"
	"miniil/funclet"
	"miniil/il"
	"miniil/internal/deepnest"
	"miniil/ir"
	"miniil/opt"
	"miniil/reader"
)

// nestDepths are the depths the deep-nest benchmark measures: doubling,
// so linear growth shows as ns/depth staying flat.
var nestDepths = []int{1000, 2000, 4000, 8000, 16000}

// nestStage is one step of loading and compiling a deep nest. prepare
// builds its input (untimed); run is what the benchmark times.
type nestStage struct {
	name    string
	prepare func(b *testing.B, src []byte) any
	run     func(b *testing.B, in any)
	// maxDepth, if set, skips deeper nests: the stage is not linear yet.
	maxDepth int
}

// nestInput is the entry method of a loaded nest and its module.
type nestInput struct {
	mod *il.Module
	m   *il.Method
}

// compiled is a method through code generation, for the EH clause stage.
type compiled struct {
	nestInput
	f    *ir.Func
	code *amd64.Code
}

func loadNest(b *testing.B, src []byte) nestInput {
	mod, err := il.Load("deepnest.il", src)
	if err != nil {
		b.Fatal(err)
	}
	return nestInput{mod, mod.Entry}
}

func importNest(b *testing.B, in nestInput) *ir.Func {
	f, err := reader.Import(in.mod, in.m)
	if err != nil {
		b.Fatal(err)
	}
	if err := opt.Run(f); err != nil {
		b.Fatal(err)
	}
	return f
}

var nestStages = []nestStage{
	{
		name:    "parse", // lex, parse and resolve
		prepare: func(b *testing.B, src []byte) any { return src },
		run: func(b *testing.B, in any) {
			if _, err := il.Parse("deepnest.il", in.([]byte)); err != nil {
				b.Fatal(err)
			}
		},
	},
	{
		name: "verify",
		prepare: func(b *testing.B, src []byte) any {
			mod, err := il.Parse("deepnest.il", src)
			if err != nil {
				b.Fatal(err)
			}
			return mod
		},
		run: func(b *testing.B, in any) {
			if err := il.Verify(in.(*il.Module)); err != nil {
				b.Fatal(err)
			}
		},
	},
	{
		name:    "import", // reader and opt
		prepare: func(b *testing.B, src []byte) any { return loadNest(b, src) },
		run:     func(b *testing.B, in any) { importNest(b, in.(nestInput)) },
	},
	{
		name:    "layout", // funclet.Build
		prepare: func(b *testing.B, src []byte) any { return loadNest(b, src) },
		run: func(b *testing.B, in any) {
			b.StopTimer()
			f := importNest(b, in.(nestInput))
			b.StartTimer()
			if _, err := funclet.Build(f); err != nil {
				b.Fatal(err)
			}
		},
	},
	{
		name:    "codegen", // amd64.Generate, funclet.Build included
		prepare: func(b *testing.B, src []byte) any { return loadNest(b, src) },
		run: func(b *testing.B, in any) {
			b.StopTimer()
			f := importNest(b, in.(nestInput))
			b.StartTimer()
			if _, err := amd64.Generate(f, stubEnv{}, amd64.NewAssembler()); err != nil {
				b.Fatal(err)
			}
		},
	},
	{
		name:    "ehclauses",
		prepare: func(b *testing.B, src []byte) any { return loadNest(b, src) },
		run: func(b *testing.B, in any) {
			b.StopTimer()
			n := in.(nestInput)
			f := importNest(b, n)
			code, err := amd64.Generate(f, stubEnv{}, amd64.NewAssembler())
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if err := ehclauses.Build(n.m, f, code); err != nil {
				b.Fatal(err)
			}
		},
	},
	{
		name:    "run-jit", // everything: load, compile, run on the JIT
		prepare: func(b *testing.B, src []byte) any { return src },
		run:     func(b *testing.B, in any) { runNest(b, in.([]byte), miniil.JIT) },
	},
	{
		name:    "run-interp", // load, run on the interpreter
		prepare: func(b *testing.B, src []byte) any { return src },
		run:     func(b *testing.B, in any) { runNest(b, in.([]byte), miniil.Interp) },
	},
}

// runNest loads and runs a nest program and returns its output and exit
// code.
func runNest(t testing.TB, src []byte, eng miniil.Engine) (string, int) {
	p, err := miniil.Load("deepnest.il", src)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	code, err := p.Run(context.Background(), miniil.Config{Engine: eng, Stdout: &out})
	var me *miniil.ManagedException
	if err != nil && !errors.As(err, &me) {
		t.Fatal(err)
	}
	return out.String(), code
}

// BenchmarkDeepNest measures each stage of loading and compiling the
// deep-nest programs (package deepnest) at depths 1,000 to 16,000. The
// ns/depth metric is the time of one op divided by the depth: it stays
// flat when a stage grows linearly. Select a stage or a shape with
// -bench, e.g. -bench 'DeepNest/finally/.*/verify'.
func BenchmarkDeepNest(b *testing.B) {
	for _, shape := range deepnest.Shapes {
		b.Run(shape.String(), func(b *testing.B) {
			for _, depth := range nestDepths {
				src := deepnest.Program(shape, depth)
				b.Run(fmt.Sprint(depth), func(b *testing.B) {
					for _, st := range nestStages {
						b.Run(st.name, func(b *testing.B) {
							if st.maxDepth > 0 && depth > st.maxDepth {
								b.Skipf("%s is measured up to depth %d", st.name, st.maxDepth)
							}
							in := st.prepare(b, src)
							b.ReportAllocs()
							b.ResetTimer()
							for range b.N {
								st.run(b, in)
							}
							b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*depth), "ns/depth")
						})
					}
				})
			}
		})
	}
}

// TestDeepNest loads and compiles 10,000-deep nests and checks what the
// front end and the JIT build from them: the region tree, the leave
// lowering, the funclets. A stage gone superlinear shows in
// TestDeepNestScales (or, as minutes, here).
func TestDeepNest(t *testing.T) {
	const depth = 10000
	for _, shape := range deepnest.Shapes {
		t.Run(shape.String(), func(t *testing.T) {
			mod, err := il.Load("deepnest.il", deepnest.Program(shape, depth))
			if err != nil {
				t.Fatal(err)
			}
			m := mod.Entry
			if len(m.EH) != depth {
				t.Fatalf("%d clauses, want %d", len(m.EH), depth)
			}
			f, err := reader.Import(mod, m)
			if err != nil {
				t.Fatal(err)
			}
			if err := opt.Run(f); err != nil {
				t.Fatal(err)
			}
			// Two regions per level; the try of level i (depth i-1) holds
			// the try and handler of level i+1.
			if len(f.Regions) != 2*depth {
				t.Fatalf("%d regions, want %d", len(f.Regions), 2*depth)
			}
			var tries []*ir.Region // by level
			for _, r := range f.Regions {
				if r.Kind == ir.RegionTry {
					tries = append(tries, r)
				}
			}
			if len(tries) != depth {
				t.Fatalf("%d try regions, want %d", len(tries), depth)
			}
			for i, r := range tries {
				if r.Depth != i || i > 0 && r.Parent != tries[i-1] {
					t.Fatalf("try %d: depth %d, parent %v; want depth %d inside try %d", i, r.Depth, r.Parent, i, i-1)
				}
				if !tries[0].Contains(r) || i > 0 && r.Contains(tries[i-1]) {
					t.Fatalf("try %d: containment is wrong", i)
				}
			}
			for _, r := range f.Regions {
				if !r.IsHandler() {
					continue
				}
				if r.Funclet() != r || r.Depth == 0 && r.Parent != nil || r.Depth > 0 && r.Parent != tries[r.Depth-1] {
					t.Fatalf("handler region %d at depth %d: funclet %v, parent %v", r.ID, r.Depth, r.Funclet(), r.Parent)
				}
			}
			// Each normal-path leave exits one region: a finally is called,
			// or a catch returns, once per level.
			counts := map[ir.Op]int{}
			for _, b := range f.Blocks {
				counts[b.Term.Op]++
			}
			want := map[deepnest.Shape][2]int{ // callfinally, catchret
				deepnest.Finally: {depth, 0}, deepnest.Catch: {0, depth},
				deepnest.ThrowCatch: {0, 1}, deepnest.ThrowUnhandled: {0, 0},
			}[shape]
			if got := [2]int{counts[ir.OpCallFinally], counts[ir.OpCatchRet]}; got != want {
				t.Errorf("callfinally, catchret = %v, want %v", got, want)
			}
			code, err := amd64.Generate(f, stubEnv{}, amd64.NewAssembler())
			if err != nil {
				t.Fatal(err)
			}
			if len(code.Funclets) != depth+1 {
				t.Errorf("%d funclets, want %d", len(code.Funclets), depth+1)
			}
			// The layout keeps every try region contiguous in its funclet
			// (and the rest of the layout's contract).
			if err := funclet.Check(f, code.Layout); err != nil {
				t.Error(err)
			}
			// The clause table: one clause per level, each chained to the
			// one around it, and each handler funclet to the try around it.
			if err := ehclauses.Build(m, f, code); err != nil {
				t.Fatal(err)
			}
			table := ehclauses.Of(&code.Method)
			if err := ehclauses.Validate(m, f, code, table); err != nil {
				t.Fatal(err)
			}
			if len(table.Clauses) != depth {
				t.Errorf("%d native clauses, want %d", len(table.Clauses), depth)
			}
			chain := 0
			table.Chain(table.Clauses[0].TryStart, func(int) bool { chain++; return true })
			if chain != depth {
				t.Errorf("the innermost try's chain has %d clauses, want %d", chain, depth)
			}
			// Both engines run it and print the same.
			wantOut := map[deepnest.Shape]string{
				deepnest.Finally: "inner\ndone\n", deepnest.Catch: "inner\ndone\n",
				deepnest.ThrowCatch: "inner\ncaught\ndone\n", deepnest.ThrowUnhandled: "inner\n",
			}[shape]
			for _, eng := range []miniil.Engine{miniil.JIT, miniil.Interp} {
				if out, code := runNest(t, deepnest.Program(shape, depth), eng); out != wantOut {
					t.Errorf("%s printed %q (exit %d), want %q", eng, out, code, wantOut)
				}
			}
		})
	}
}

// TestDeepNestScales checks that loading and compiling a deep nest
// allocates in proportion to its depth: memory allocated is a
// deterministic stand-in for work, and the quadratic structures this
// guards against (region lists per instruction, value sets per block,
// clause lists per region) made four times the depth cost sixteen times
// the bytes. No clock is read.
func TestDeepNestScales(t *testing.T) {
	const small, large = 2500, 10000
	for _, shape := range deepnest.Shapes {
		t.Run(shape.String(), func(t *testing.T) {
			a, b := compileBytes(t, shape, small), compileBytes(t, shape, large)
			ratio := float64(b) / float64(a)
			t.Logf("depth %d: %d bytes, depth %d: %d bytes (x%.2f)", small, a, large, b, ratio)
			if ratio > 5.5 {
				t.Errorf("4 times the depth allocated %.1f times the bytes; some stage is superlinear", ratio)
			}
		})
	}
}

// compileBytes returns the bytes allocated to load a nest and compile
// its entry method (reader, opt, layout and code generation).
func compileBytes(t *testing.T, shape deepnest.Shape, depth int) uint64 {
	src := deepnest.Program(shape, depth)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	mod, err := il.Load("deepnest.il", src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := reader.Import(mod, mod.Entry)
	if err != nil {
		t.Fatal(err)
	}
	if err := opt.Run(f); err != nil {
		t.Fatal(err)
	}
	if _, err := amd64.Generate(f, stubEnv{}, amd64.NewAssembler()); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
