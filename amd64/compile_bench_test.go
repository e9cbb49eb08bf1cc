package amd64_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"miniil/amd64"
	"miniil/il"
	"miniil/opt"
	"miniil/reader"
)

// stubEnv answers every runtime question with a fixed address, enough for
// code generation (the code is never run).
type stubEnv struct{}

func (stubEnv) CellAddr(*il.Method) uintptr  { return 0x7f0000001000 }
func (stubEnv) ClassMT(*il.Class) uintptr    { return 0x7f0000002000 }
func (stubEnv) TypeMT(*il.Type) uintptr      { return 0x7f0000003000 }
func (stubEnv) StaticAddr(*il.Field) uintptr { return 0x7f0000004000 }
func (stubEnv) StringAddr(string) uintptr    { return 0x7f0000005000 }

// compileOne runs the JIT pipeline on one method, as the runtime does.
func compileOne(mod *il.Module, m *il.Method, a *amd64.Assembler) (*amd64.Code, error) {
	f, err := reader.Import(mod, m)
	if err != nil {
		return nil, err
	}
	if err := opt.Run(f); err != nil {
		return nil, err
	}
	return amd64.Generate(f, stubEnv{}, a)
}

// BenchmarkCompileCorpus measures the JIT's compile time (reader.Import,
// opt.Run and amd64.Generate, one reused Assembler) over every method of
// the golden corpus. One op compiles every method once.
func BenchmarkCompileCorpus(b *testing.B) {
	files, err := filepath.Glob(filepath.Join("..", "tests", "corpus", "*.il"))
	if err != nil {
		b.Fatal(err)
	}
	if len(files) == 0 {
		b.Fatal("no programs in ../tests/corpus")
	}
	type job struct {
		mod *il.Module
		m   *il.Method
	}
	var jobs []job
	ilBytes := 0
	a := amd64.NewAssembler()
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		mod, err := il.Load(file, src)
		if err != nil {
			b.Fatalf("%s: %v", file, err)
		}
		for _, m := range mod.AllMethods() {
			if m.Builtin || m.Abstract {
				continue
			}
			if _, err := compileOne(mod, m, a); err != nil {
				b.Fatalf("%s: %v", filepath.Base(file), err)
			}
			jobs = append(jobs, job{mod, m})
			ilBytes += m.CodeSize
		}
	}
	if len(jobs) == 0 {
		b.Fatal("no compilable method in the corpus")
	}

	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		for _, j := range jobs {
			if _, err := compileOne(j.mod, j.m, a); err != nil {
				b.Fatal(err)
			}
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(elapsed.Seconds()*1e6/(n*float64(len(jobs))), "us/method")
	b.ReportMetric(n*float64(ilBytes)/elapsed.Seconds(), "ILbytes/s")
	b.ReportMetric(float64(len(jobs)), "methods")
	if b.N == 1 { // the first round: say what is measured, once
		b.Logf("%d files, %d methods compiled (%d IL bytes)", len(files), len(jobs), ilBytes)
	}
}
