package fuzz

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"miniil"
)

// TestMain doubles as the child process of an isolated Runner: with
// MINIIL_FUZZ_CHILD=1 the test binary behaves like "miniil run", so a
// crash of an engine's generated code fails one program, not the tests.
func TestMain(m *testing.M) {
	if os.Getenv("MINIIL_FUZZ_CHILD") == "1" {
		os.Exit(childRun(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// childRun implements "run -validate -engine=E -timeout=D FILE" with the output
// conventions of cmd/miniil's run command.
func childRun(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "run" {
		fmt.Fprintln(stderr, "child: want run")
		return 2
	}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	engine := fs.String("engine", "jit", "")
	timeout := fs.Duration("timeout", 0, "")
	validate := fs.Bool("validate", false, "")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 {
		return 2
	}
	eng, err := miniil.ParseEngine(*engine)
	if err != nil {
		return 2
	}
	prog, err := miniil.LoadFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	ctx := context.Background()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	code, err := prog.Run(ctx, miniil.Config{Engine: eng, Stdout: stdout, Validate: *validate})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintf(stderr, "miniil run: program stopped after the %v time limit\n", *timeout)
		} else {
			fmt.Fprintln(stderr, err)
		}
		if code == 0 {
			code = miniil.ExitCode(err)
		}
	}
	return code
}

// isolatedRunner runs the engines in a child process (this test binary).
func isolatedRunner(t *testing.T) *Runner {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MINIIL_FUZZ_CHILD", "1")
	return &Runner{Timeout: 10 * time.Second, Exec: exe}
}

var sizes = []string{"small", "medium", "large"}

// TestGeneratedProgramsLoad checks that generated programs are valid:
// they load (parse and verify) for thousands of seeds of every size.
func TestGeneratedProgramsLoad(t *testing.T) {
	n := 2100
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		size := sizes[i%3]
		o, err := SizeOptions(size)
		if err != nil {
			t.Fatal(err)
		}
		o.MonoSafe = i%7 == 0
		seed := uint64(1000 + i)
		src := GenerateIL(seed, o)
		if _, err := miniil.Load("gen.il", []byte(src)); err != nil {
			t.Fatalf("seed %d size %s mono=%v does not load:\n%v\n%s", seed, size, o.MonoSafe, err, src)
		}
	}
}

func TestDeterministic(t *testing.T) {
	o, _ := SizeOptions("medium")
	seen := map[string]uint64{}
	for seed := uint64(1); seed <= 50; seed++ {
		a, b := GenerateIL(seed, o), GenerateIL(seed, o)
		if a != b {
			t.Fatalf("seed %d: two generations differ", seed)
		}
		if c := Generate(seed, o).Clone().IL(); c != a {
			t.Fatalf("seed %d: the clone of the AST lowers differently", seed)
		}
		if prev, ok := seen[a]; ok {
			t.Fatalf("seeds %d and %d give the same program", prev, seed)
		}
		seen[a] = seed
		s, o2, ok := ParseHeader(a)
		if !ok || s != seed || o2 != o {
			t.Fatalf("seed %d: header %q does not round-trip", seed, strings.SplitN(a, "\n", 2)[0])
		}
	}
}

// TestMonoSafeFilters checks that with MonoSafe nothing in a filter can
// throw: no throw statements, no risky expressions, no calls to methods
// that may throw.
func TestMonoSafeFilters(t *testing.T) {
	o, _ := SizeOptions("large")
	o.MonoSafe = true
	for seed := uint64(1); seed <= 200; seed++ {
		p := Generate(seed, o)
		g := &gen{p: p}
		_ = g
		for mi, m := range p.Methods {
			walkStmts(m.Body, false, func(s Stmt, inFilter bool) {
				if !inFilter {
					return
				}
				switch s.(type) {
				case *Throw, *ThrowNull, *Rethrow, *Try, *StoreField, *JagStore, *SetRow:
					t.Fatalf("seed %d m%d: %T in a filter", seed, mi, s)
				}
			})
		}
	}
}

// TestMonoSafeConvOvfU8 checks that with MonoSafe conv.ovf.u8 converts
// an int32 only from a variable or constant (Mono 6.8 zero-extends one
// computed by arithmetic), and that without it other operands occur.
func TestMonoSafeConvOvfU8(t *testing.T) {
	for _, mono := range []bool{false, true} {
		o, _ := SizeOptions("medium")
		o.MonoSafe = mono
		computed := 0
		for seed := uint64(1); seed <= 300; seed++ {
			visitNodes(Generate(seed, o), func(_ *Method, x any, _ string) {
				c, ok := x.(*Conv)
				if !ok || c.Op != "conv.ovf.u8" || c.A.Type() != I4 {
					return
				}
				switch c.A.(type) {
				case *Load, *Const:
				default:
					computed++
				}
			})
		}
		if mono && computed > 0 {
			t.Errorf("MonoSafe: %d conv.ovf.u8 of a computed int32", computed)
		}
		if !mono && computed == 0 {
			t.Error("no conv.ovf.u8 of a computed int32 without MonoSafe")
		}
	}
}

func walkStmts(ss []Stmt, inFilter bool, f func(Stmt, bool)) {
	for _, s := range ss {
		f(s, inFilter)
		if t, ok := s.(*Try); ok {
			walkStmts(t.Body, inFilter, f)
			for _, h := range t.Handlers {
				walkStmts(h.FilterBody, true, f)
				walkStmts(h.Body, inFilter, f)
			}
			continue
		}
		for _, c := range children(s) {
			walkStmts(c, inFilter, f)
		}
	}
}

// TestCampaign runs 50 programs on the JIT and the interpreter: they must
// agree on every one.
func TestCampaign(t *testing.T) {
	o, _ := SizeOptions("small")
	var progress bytes.Buffer
	c := &Campaign{N: 50, Seed: 1, Opts: o, Runner: isolatedRunner(t), OutDir: t.TempDir(), Progress: &progress}
	sum := c.Run()
	if sum.Programs != 50 {
		t.Fatalf("ran %d programs, want 50", sum.Programs)
	}
	if sum.Mismatches != 0 {
		t.Errorf("%d mismatches between the JIT and the interpreter:\n%s", sum.Mismatches, progress.String())
	}
	if !strings.Contains(progress.String(), "50/50 programs") {
		t.Errorf("no final progress line in:\n%s", progress.String())
	}
}

// TestReducePerturbed simulates a JIT bug (its output gets an extra line
// whenever it contains a token) and checks that the reducer brings a
// generated program showing it down to at most 30 lines.
func TestReducePerturbed(t *testing.T) {
	o, _ := SizeOptions("medium")
	const token = "System.FormatException"
	r := &Runner{Timeout: 10 * time.Second}
	var src string
	var seed uint64
	for seed = 1; seed < 500; seed++ {
		s := GenerateIL(seed, o)
		outs, err := r.Run(s)
		if err != nil {
			t.Fatal(err)
		}
		if bad, _ := Mismatch(outs); bad {
			continue // a real mismatch: not this test's business
		}
		if strings.Contains(outs[1].Stdout, token) && strings.Count(s, "\n") > 300 {
			src = s
			break
		}
	}
	if src == "" {
		t.Fatal("no generated program prints the token")
	}
	r.Perturb = PerturbToken("jit", token)
	red := &Reducer{Runner: r}
	out, err := red.Reduce(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := countLines(out)
	t.Logf("seed %d: %d lines reduced to %d lines in %d tests:\n%s", seed, countLines(src), lines, red.tests, out)
	if lines > 30 {
		t.Errorf("reduced program has %d lines, want at most 30", lines)
	}
	outs, err := r.Run(out)
	if err != nil {
		t.Fatalf("reduced program does not load: %v", err)
	}
	if bad, _ := Mismatch(outs); !bad {
		t.Errorf("reduced program no longer shows the mismatch")
	}
}

// TestRunArgs checks the command lines of the child runs: the collector
// options go to the JIT's run only.
func TestRunArgs(t *testing.T) {
	tests := []struct {
		r         Runner
		jit, intp string
	}{
		{Runner{}, "run -validate -engine=jit -timeout=10s p.il", "run -validate -engine=interp -timeout=10s p.il"},
		{Runner{VerifyGC: true}, "run -validate -engine=jit -timeout=10s -verify-gc p.il", "run -validate -engine=interp -timeout=10s -verify-gc p.il"},
		{Runner{GCStress: 3, Nursery: 65536}, "run -validate -engine=jit -timeout=10s -gcstress=3 -nursery=65536 p.il", "run -validate -engine=interp -timeout=10s p.il"},
		{Runner{GCStress: 1, VerifyGC: true, Timeout: time.Second}, "run -validate -engine=jit -timeout=1s -verify-gc -gcstress=1 p.il", "run -validate -engine=interp -timeout=1s -verify-gc p.il"},
		{Runner{Nursery: 4096}, "run -validate -engine=jit -timeout=10s -nursery=4096 p.il", "run -validate -engine=interp -timeout=10s p.il"},
	}
	for _, tt := range tests {
		if got := strings.Join(tt.r.runArgs("p.il", miniil.JIT), " "); got != tt.jit {
			t.Errorf("%+v: JIT runs %q, want %q", tt.r, got, tt.jit)
		}
		if got := strings.Join(tt.r.runArgs("p.il", miniil.Interp), " "); got != tt.intp {
			t.Errorf("%+v: interpreter runs %q, want %q", tt.r, got, tt.intp)
		}
	}
}
