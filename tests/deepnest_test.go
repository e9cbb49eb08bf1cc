package tests

import (
	"fmt"
	"testing"

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
	{"parse", // lex, parse and resolve
		func(b *testing.B, src []byte) any { return src },
		func(b *testing.B, in any) {
			if _, err := il.Parse("deepnest.il", in.([]byte)); err != nil {
				b.Fatal(err)
			}
		}},
	{"verify",
		func(b *testing.B, src []byte) any {
			mod, err := il.Parse("deepnest.il", src)
			if err != nil {
				b.Fatal(err)
			}
			return mod
		},
		func(b *testing.B, in any) {
			if err := il.Verify(in.(*il.Module)); err != nil {
				b.Fatal(err)
			}
		}},
	{"import", // reader and opt
		func(b *testing.B, src []byte) any { return loadNest(b, src) },
		func(b *testing.B, in any) { importNest(b, in.(nestInput)) }},
	{"layout", // funclet.Build
		func(b *testing.B, src []byte) any { return loadNest(b, src) },
		func(b *testing.B, in any) {
			b.StopTimer()
			f := importNest(b, in.(nestInput))
			b.StartTimer()
			if _, err := funclet.Build(f); err != nil {
				b.Fatal(err)
			}
		}},
	{"codegen", // amd64.Generate, funclet.Build included
		func(b *testing.B, src []byte) any { return loadNest(b, src) },
		func(b *testing.B, in any) {
			b.StopTimer()
			f := importNest(b, in.(nestInput))
			b.StartTimer()
			if _, err := amd64.Generate(f, stubEnv{}, amd64.NewAssembler()); err != nil {
				b.Fatal(err)
			}
		}},
	{"ehclauses",
		func(b *testing.B, src []byte) any { return loadNest(b, src) },
		func(b *testing.B, in any) {
			b.StopTimer()
			n := in.(nestInput)
			f := importNest(b, n)
			code, err := amd64.Generate(f, stubEnv{}, amd64.NewAssembler())
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := ehclauses.Build(n.m, f, code); err != nil {
				b.Fatal(err)
			}
		}},
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
