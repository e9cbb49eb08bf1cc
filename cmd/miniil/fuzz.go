package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"miniil/fuzz"
)

// cmdFuzz is the differential fuzzer:
//
//	miniil fuzz -n N [-seed S] [-mono] [-nointerp] [-out DIR] [-size small|medium|large] [-alloc] [-shapes P] [-gcstress=N] [-nursery=SIZE]
//	miniil fuzz -reduce FILE [-o OUT] [-mono] [-nointerp]
//
// A campaign generates N programs (seeds S, S+1, ...), runs each on the
// JIT and the interpreter (and with -mono under ilasm+mono), saves every
// mismatch under DIR/seed-S and ends with one line "N programs, M
// mismatches" on stdout (exit 1 when M > 0). With -mono the generator
// makes filters that cannot throw: Mono lets an exception escape a
// filter, a deliberate difference (MINIIL.md); programs never print
// floats or exception messages, the other differences. -nointerp leaves
// the interpreter out (the JIT alone, or against Mono). Some programs of
// every size allocate heavily (more of the large ones); -alloc makes
// every program do so. -shapes P makes P percent of the programs (70
// by default; 0: none, the generator as it was before them) contain the
// code shapes the JIT optimizes: loops over arrays, small callees,
// divisions by constants, trys in loop bodies, repeated addresses, type
// tests. -gcstress and -nursery are passed to the JIT's runs (miniil
// run's collector options).
func cmdFuzz(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("fuzz", "fuzz -n N [-seed S] [-mono] [-nointerp] [-out DIR] [-size small|medium|large] [-alloc] [-shapes P] [-gcstress=N] [-nursery=SIZE] | fuzz -reduce FILE [-o OUT]", stdout)
	n := fs.Int("n", 100, "number of programs to generate and compare")
	seed := fs.Uint64("seed", 1, "seed of the first program (programs use S, S+1, ...)")
	mono := fs.Bool("mono", false, "also compare against ilasm + mono (filters then never throw)")
	outDir := fs.String("out", "fuzz-mismatches", "directory for mismatching programs and outputs")
	size := fs.String("size", "medium", "program size: small, medium or large")
	timeout := fs.Duration("timeout", 10*time.Second, "time limit per program and engine")
	workers := fs.Int("workers", 0, "programs run in parallel (0: one per CPU)")
	reduce := fs.String("reduce", "", "shrink the mismatching program FILE instead of running a campaign")
	out := fs.String("o", "", "with -reduce: where to write the reduced program (default FILE.reduced.il)")
	print := fs.Bool("print", false, "print the program for -seed and exit")
	safeFilters := fs.Bool("safefilters", false, "generate filters that cannot throw (as -mono does) without running Mono")
	inProcess := fs.Bool("inprocess", false, "run the engines in this process (faster; an engine crash ends the campaign)")
	perturb := fs.String("perturb", "", "testing aid: append a line to the JIT's output when it contains this text")
	noInterp := fs.Bool("nointerp", false, "leave the interpreter out (the JIT alone, or against Mono with -mono)")
	verifyGC := fs.Bool("verify-gc", false, "run the JIT with its GC information checked at every exit (run -verify-gc)")
	alloc := fs.Bool("alloc", false, "generate only allocation-heavy programs (by default some programs of every size are)")
	shapes := fs.Int("shapes", fuzz.DefaultShapes, "percent of the programs with the code shapes the JIT optimizes (loops over arrays, small callees, division by constants, ...; 0: none)")
	gcStress := fs.Int("gcstress", 0, "run the JIT with a collection at every Nth GC safepoint (run -gcstress=N; 0: off)")
	var nursery byteSize
	fs.Var(&nursery, "nursery", "run the JIT with a young generation of this `size` (run -nursery=SIZE; 0: the default), e.g. 64KiB")
	if code := parseFlags(fs, args, stderr); code >= 0 {
		return code
	}
	if *shapes < 0 || *shapes > 100 {
		fmt.Fprintln(stderr, "miniil fuzz: -shapes must be a percentage, 0 to 100")
		return 2
	}
	if *gcStress < 0 {
		fmt.Fprintln(stderr, "miniil fuzz: -gcstress must not be negative")
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "miniil fuzz: unexpected argument %q (see miniil fuzz -h)\n", fs.Arg(0))
		return 2
	}
	opts, err := fuzz.SizeOptions(*size)
	if err != nil {
		fmt.Fprintf(stderr, "miniil fuzz: %v\n", err)
		return 2
	}
	opts.MonoSafe = *mono || *safeFilters
	if *alloc {
		opts.Alloc = 100
	}
	opts.Shapes = *shapes
	if *print {
		fmt.Fprint(stdout, fuzz.GenerateIL(*seed, opts))
		return 0
	}
	runner := &fuzz.Runner{Timeout: *timeout, Mono: *mono, NoInterp: *noInterp, VerifyGC: *verifyGC,
		GCStress: *gcStress, Nursery: int64(nursery)}
	if !*inProcess {
		// Engines run in a child process: a crash in generated code is
		// then a reported mismatch, not the end of the campaign.
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "miniil fuzz: %v\n", err)
			return 1
		}
		runner.Exec = exe
	}
	if *perturb != "" {
		runner.Perturb = fuzz.PerturbToken("jit", *perturb)
	}
	if *reduce != "" {
		return fuzzReduce(*reduce, *out, runner, stdout, stderr)
	}
	if *n < 0 {
		fmt.Fprintln(stderr, "miniil fuzz: -n must not be negative")
		return 2
	}
	c := &fuzz.Campaign{N: *n, Seed: *seed, Opts: opts, Runner: runner, OutDir: *outDir, Workers: *workers, Progress: stderr}
	sum := c.Run()
	fmt.Fprintf(stderr, "wall %v, cpu %v\n", sum.Wall.Round(time.Millisecond), sum.CPU.Round(time.Millisecond))
	fmt.Fprintf(stdout, "%d programs, %d mismatches\n", sum.Programs, sum.Mismatches)
	if sum.Mismatches > 0 {
		return 1
	}
	return 0
}

func fuzzReduce(path, out string, runner *fuzz.Runner, stdout, stderr io.Writer) int {
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "miniil fuzz: %v\n", unwrapPathError(err))
		return 2
	}
	if out == "" {
		out = strings.TrimSuffix(path, filepath.Ext(path)) + ".reduced.il"
	}
	red := &fuzz.Reducer{Runner: runner, Log: stderr}
	res, err := red.Reduce(string(src))
	if err != nil {
		fmt.Fprintf(stderr, "miniil fuzz: %s: %v\n", path, err)
		return 1
	}
	if err := os.WriteFile(out, []byte(res), 0o644); err != nil {
		fmt.Fprintf(stderr, "miniil fuzz: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "reduced %s from %d to %d lines: %s\n", path, strings.Count(string(src), "\n"), strings.Count(res, "\n"), out)
	return 0
}
