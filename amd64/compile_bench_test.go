package amd64_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"miniil/amd64"
	"miniil/il"
	"miniil/internal/bigprog"
	"miniil/jit"
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

// compileOne runs the reader, the null-check passes and the code
// generator on one method (no inlining).
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

type compileJob struct {
	mod *il.Module
	m   *il.Method
}

// loadJobs loads the programs and returns every method with a body.
func loadJobs(b *testing.B, srcs map[string][]byte) (jobs []compileJob, ilBytes int) {
	for name, src := range srcs {
		mod, err := il.Load(name, src)
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		for _, m := range mod.AllMethods() {
			if m.Builtin || m.Abstract {
				continue
			}
			jobs = append(jobs, compileJob{mod, m})
			ilBytes += m.CodeSize
		}
	}
	if len(jobs) == 0 {
		b.Fatal("no compilable method")
	}
	return jobs, ilBytes
}

// benchCompile compiles every job once per op through the jit driver, as
// a run does (every phase, inlining included, no validation), and
// reports the time per method and per IL byte.
func benchCompile(b *testing.B, jobs []compileJob, ilBytes int) {
	c := jit.New(jit.Config{Env: stubEnv{}})
	for _, j := range jobs { // once before timing: errors, warm caches
		if _, err := c.Compile(j.mod, j.m, ""); err != nil {
			b.Fatalf("%s: %v", j.m.FullName(), err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		for _, j := range jobs {
			if _, err := c.Compile(j.mod, j.m, ""); err != nil {
				b.Fatal(err)
			}
		}
	}
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(elapsed.Seconds()*1e6/(n*float64(len(jobs))), "us/method")
	b.ReportMetric(elapsed.Seconds()*1e9/(n*float64(ilBytes)), "ns/ILbyte")
	b.ReportMetric(cpu.Seconds()*1e6/(n*float64(len(jobs))), "cpu-us/method")
	b.ReportMetric(cpu.Seconds()*1e9/(n*float64(ilBytes)), "cpu-ns/ILbyte")
	b.ReportMetric(float64(len(jobs)), "methods")
	b.ReportMetric(float64(ilBytes), "ILbytes")
}

// cpuTime returns the process's CPU time (user and system, every thread:
// the collector's work included). On a loaded machine it is the steadier
// figure: wall time also counts the time other processes held the CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCompileCorpus measures the JIT's compile time over every
// method of the golden corpus. One op compiles every method once.
func BenchmarkCompileCorpus(b *testing.B) {
	files, err := filepath.Glob(filepath.Join("..", "tests", "corpus", "*.il"))
	if err != nil {
		b.Fatal(err)
	}
	srcs := map[string][]byte{}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		srcs[file] = src
	}
	jobs, ilBytes := loadJobs(b, srcs)
	benchCompile(b, jobs, ilBytes)
}

// BenchmarkCompileMany measures issue 14's first compile-throughput
// program: 2,000 small methods (about 57 IL bytes each, a loop and a
// branch). One op compiles each once.
func BenchmarkCompileMany(b *testing.B) {
	jobs, ilBytes := loadJobs(b, map[string][]byte{"many.il": bigprog.ManyMethods(2000)})
	benchCompile(b, jobs, ilBytes)
}

// BenchmarkCompileTrivial measures the fixed cost of a compile: 2,000
// methods of one instruction and ret (what every method pays, whatever
// its size: the phases' set-up, the cache, the frame and the tables).
func BenchmarkCompileTrivial(b *testing.B) {
	jobs, ilBytes := loadJobs(b, map[string][]byte{"trivial.il": bigprog.TrivialMethods(2000)})
	benchCompile(b, jobs, ilBytes)
}

// BenchmarkCompileBig measures issue 14's second program: one method of
// about 100 KB of IL (straight-line arithmetic, a branch every 43 bytes).
// One op compiles it (and main) once.
func BenchmarkCompileBig(b *testing.B) {
	jobs, ilBytes := loadJobs(b, map[string][]byte{"big.il": bigprog.BigMethod(100000)})
	benchCompile(b, jobs, ilBytes)
}

// TestCompileAllocations bounds the allocations of compiling a small
// method (a loop, a branch and a call, issue 14's compile-throughput
// shape) once the compiler's cache is warm: the passes' scratch arrays,
// maps and per-compile structures come from the cache, so what remains
// is mostly the compiled method itself (code, sites, GC information,
// funclet layout) and a few structures per pass. It was 105 before the
// passes took their scratch from the cache, 51 after, 34 once the
// function, the code generator's output and the passes' value sets came
// from it too, 14 once the layout, the passes' own structures and the
// allocator's lists did (and the notes made no strings), 3 once the
// reader kept its stack across handlers and imports and the plan its
// lists in the cache, none once the null-check and type-test analyses
// made their structures only for methods with checks or tests and the
// loop hoister its chains in the cache. In a run, an allocation per
// compile is fresh memory for every method (the collector rarely runs
// while a program starts): a page fault every few hundred methods, each
// some 10 µs on this project's VMs. The test fails at the first one.
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
	c := jit.New(jit.Config{Env: stubEnv{}})
	if _, err := c.Compile(mod, m, ""); err != nil { // warm the cache
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := c.Compile(mod, m, ""); err != nil {
			t.Fatal(err)
		}
	})
	const bound = 0
	t.Logf("%s: %.0f allocations per compile", m.FullName(), allocs)
	if allocs > bound {
		t.Errorf("compiling %s allocates %.0f times, more than %d", m.FullName(), allocs, bound)
	}
}
