// Command miniil runs, checks and dumps mini MSIL programs. Its command
// line is documented in README.md; as Go code it is internal to miniil:
// no compatibility promise (embedders use package miniil).
//
//	miniil run [-engine=jit|interp] [-timeout=D] [-max-heap=SIZE] [-max-call-depth=N] FILE  run a program
//	miniil check FILE...                                 parse and verify
//	miniil dump -il|-ir|-funclets|-eh|-asm [-method M] FILE  print a stage's output
//	miniil fuzz ...                                      differential fuzzing
//
// Exit codes, the same on both engines:
//
//	N    run: the program's own exit code (its entry point's int32 result, 0 for void)
//	0    check, dump: success
//	1    an error outside the program: writing the output, mapping memory, a profile file
//	2    usage: bad flags or arguments, a FILE that cannot be read
//	3    the program does not load: a syntax, resolution or verification error, or a source too large
//	70   an internal error in miniil (please report it)
//	124  run: the -timeout time limit passed
//	130  run: interrupted (SIGINT, Ctrl-C)
//	134  run: an unhandled exception or a stack overflow (as CoreCLR aborts)
//	143  run: terminated (SIGTERM)
//
// Output: run writes the program's output through to a terminal at the
// end of every line and block-buffers it (64 KiB) for files and pipes.
// Whichever way a run ends (normally, an unhandled exception or stack
// overflow, the time limit, SIGINT or SIGTERM) what the program wrote is
// flushed before miniil exits and before the exception report goes to
// stderr. After SIGINT or SIGTERM the program stops at its next safe point;
// a second signal exits at once, without flushing.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"

	"miniil"
)

const usage = `miniil runs mini MSIL programs (ilasm syntax).

Usage:
  miniil run [-engine=jit|interp] [-timeout=D] [-max-heap=SIZE] [-max-call-depth=N] FILE
                                                       run FILE's entry point (JIT by default)
  miniil check FILE...                                 parse and verify, print errors
  miniil dump -il|-ir|-funclets|-eh|-asm [-method NAME] FILE
                                                       print a compilation stage
  miniil fuzz -n N [-seed S] [-mono] [-out DIR] [-size small|medium|large] | -reduce FILE [-o OUT]
                                                       differential fuzzing: JIT vs interp (vs mono)

Exit codes: run exits with the program's exit code, or
  1 error outside the program (output, memory mapping)   2 usage error
  3 the program does not load (syntax, verification, size) 70 internal error
  124 time limit   130 SIGINT   134 unhandled exception or stack overflow   143 SIGTERM

Run 'miniil COMMAND -h' for a command's flags.
`

func main() {
	// Go samples an allocation every 512 KiB for the memory profile,
	// hashing its stack into a bucket: 1.6% of a large program's run.
	// The command writes that profile only for run -memprofile, which
	// turns sampling back on before loading.
	runtime.MemProfileRate = 0
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// defaultMemProfileRate is Go's sampling rate (runtime.MemProfileRate's
// initial value).
const defaultMemProfileRate = 512 << 10

// run executes the command line and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return miniil.ExitUsage
	}
	switch args[0] {
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "check":
		return cmdCheck(args[1:], stdout, stderr)
	case "dump":
		return cmdDump(args[1:], stdout, stderr)
	case "fuzz":
		return cmdFuzz(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "miniil: unknown command %q (want run, check or dump; see miniil -h)\n", args[0])
	return miniil.ExitUsage
}

// command is a subcommand's flag set with its synopsis.
type command struct {
	*flag.FlagSet
	synopsis string
	stdout   io.Writer
}

// newFlags returns a flag set that reports errors in one line (the flag
// package's own usage printing is silenced; -h prints it on purpose).
func newFlags(name, synopsis string, stdout io.Writer) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &command{FlagSet: fs, synopsis: synopsis, stdout: stdout}
}

func (c *command) printUsage() {
	fmt.Fprintf(c.stdout, "usage: miniil %s\n", c.synopsis)
	c.SetOutput(c.stdout)
	c.PrintDefaults()
	c.SetOutput(io.Discard)
}

// parseFlags parses args; it returns an exit code >= 0 when the command
// must stop (help shown, or a usage error reported).
func parseFlags(fs *command, args []string, stderr io.Writer) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.printUsage()
			return 0
		}
		fmt.Fprintf(stderr, "miniil %s: %v (see miniil %s -h)\n", fs.Name(), err, fs.Name())
		return miniil.ExitUsage
	}
	return -1
}

// loadHeapLimit is the heap size at which the collector runs while a
// program loads (see load).
const loadHeapLimit = 1 << 30

// resumeGC turns the collector back on after loading, at gcPercent, as
// if a collection had just found the heap live, as the module nearly all
// is. Before its first collection the Go runtime's goal is a fixed 4 MiB
// (scaled by GOGC) whatever the heap holds, so a program whose module was
// larger than that was collected right after loading, to mark again what
// was all alive: 9 ms of CPU, nearly all of the collection work of the
// 2,000-method program's run. Until the first collection, the percentage
// is raised so that the goal is the heap plus gcPercent of it; a
// finalizer restores gcPercent once a collection has run. (Should the
// runtime's first goal change, only when the first collection runs
// changes.)
func resumeGC(gcPercent int) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if gcPercent <= 0 || sample[0].Value.Kind() != metrics.KindUint64 {
		debug.SetGCPercent(gcPercent)
		return
	}
	const firstGoal = 4 << 20 // at GOGC=100
	raised := sample[0].Value.Uint64() * uint64(100+gcPercent) / firstGoal
	if raised <= uint64(gcPercent) {
		debug.SetGCPercent(gcPercent)
		return
	}
	resumed.mu.Lock()
	defer resumed.mu.Unlock()
	resumed.raised = int(min(raised, math.MaxInt32))
	debug.SetGCPercent(resumed.raised)
	resumed.gen++
	resumed.base, resumed.pending = gcPercent, true
	gen := resumed.gen
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		resumed.mu.Lock()
		defer resumed.mu.Unlock()
		// Only if the percentage is still the one resumeGC raised it to:
		// one set since stays.
		if resumed.pending && resumed.gen == gen {
			if old := debug.SetGCPercent(resumed.base); old != resumed.raised {
				debug.SetGCPercent(old)
			}
			resumed.pending = false
		}
	})
}

// pauseGC turns the collector off for a load and returns the percentage
// to resume at: the one a pending resumeGC would have restored, rather
// than its raised one, while that is still set (miniil check loads file
// after file).
func pauseGC() int {
	resumed.mu.Lock()
	defer resumed.mu.Unlock()
	p := debug.SetGCPercent(-1)
	if resumed.pending && p == resumed.raised {
		p = resumed.base
	}
	resumed.pending = false
	return p
}

// resumed is what resumeGC left pending: the percentage it set (raised)
// and the one its finalizer restores (base), if pending, for the latest
// resumeGC (gen; an earlier finalizer finds itself superseded). The
// process has one collector, so it has one of these.
var resumed struct {
	mu           sync.Mutex
	gen          int
	raised, base int
	pending      bool
}

// gcSentinel is an object whose finalizer runs after the first collection
// that finds it unreachable (it holds a pointer, so the tiny allocator,
// whose blocks a finalizer may wait on indefinitely, never makes it).
type gcSentinel struct{ _ *byte }

// load reads and loads a program; a missing file is a usage error, an
// invalid or too large program a load error.
//
// The Go collector is paused while the program loads, unless the heap
// nears loadHeapLimit: what the loader allocates is nearly all the
// module, alive until the command ends, so a collection during loading
// only marks it again (loading the 100 KB method of issue 14's benchmark
// ran two, and the run took 6% longer). The command owns its process's
// collector settings; the library leaves them alone.
func load(cmd, path string, cfg miniil.LoadConfig, stderr io.Writer) (*miniil.Program, int) {
	gcPercent := pauseGC()
	memLimit := debug.SetMemoryLimit(-1) // -1: read it (GOMEMLIMIT may have set a lower one)
	debug.SetMemoryLimit(min(memLimit, loadHeapLimit))
	p, err := cfg.LoadFile(path)
	debug.SetMemoryLimit(memLimit)
	resumeGC(gcPercent)
	var pe *os.PathError
	var big *miniil.SourceTooLargeError
	switch {
	case err == nil:
		return p, -1
	case errors.As(err, &big):
		fmt.Fprintf(stderr, "miniil %s: %s: the program is larger than the %s source size limit; raise it with -max-source=SIZE (0: no limit)\n",
			cmd, big.Name, (*byteSize)(&big.Limit))
		return nil, miniil.ExitLoad
	case errors.As(err, &pe):
		fmt.Fprintf(stderr, "miniil %s: %v\n", cmd, unwrapPathError(err))
		return nil, miniil.ExitUsage
	}
	fmt.Fprintln(stderr, err)
	return nil, miniil.ExitCode(err)
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

func oneFile(fs *command, stderr io.Writer) (string, int) {
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "miniil %s: want exactly one FILE, got %d (see miniil %s -h)\n", fs.Name(), fs.NArg(), fs.Name())
		return "", 2
	}
	return fs.Arg(0), -1
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", "run [-engine=jit|interp] [-timeout=D] [-max-heap=SIZE] [-nursery=SIZE] [-max-call-depth=N] [-jit-stats] [-gc-stats] [-validate] [-no-inline] [-skip=PHASE,...] [-verify-gc] [-verify-heap] [-gcstress=N] [-perfmap] [-cpuprofile=F] [-memprofile=F] FILE", stdout)
	engine := fs.String("engine", miniil.DefaultEngine.String(), "execution engine: jit (native code) or interp (reference interpreter)")
	timeout := fs.Duration("timeout", 0, "stop the program after this long, exit code 124 (0: no limit)")
	maxHeap := byteSize(miniil.DefaultMaxHeap)
	jitStats := fs.Bool("jit-stats", false, "print the JIT's statistics on stderr when the run ends: methods, bytes, time per compile phase, and the exits from native code by kind")
	validate := fs.Bool("validate", false, "check the JIT's work after every compile phase (slower; for debugging miniil)")
	noInline := fs.Bool("no-inline", false, "turn the JIT's inliner off (for comparisons; the program behaves the same)")
	skip := fs.String("skip", "", "leave out these optimizing `phases` of the JIT, comma-separated, for comparisons and for finding which phase a wrong answer comes from: "+strings.Join(miniil.OptionalPhases(), ", "))
	verifyGC := fs.Bool("verify-gc", false, "check the JIT's GC information at every exit of native code, walking the managed frames (much slower; for debugging miniil)")
	perfMap := fs.Bool("perfmap", false, "write /tmp/perf-PID.map naming the JIT's code, for perf report")
	maxDepth := fs.Int("max-call-depth", miniil.DefaultMaxCallDepth, "deepest nesting of method calls (the entry point is 1); deeper is a stack overflow, at the same depth on both engines")
	fs.Var(&maxHeap, "max-heap", "managed heap limit: the `size` of the objects live at once; an allocation past it (after a full collection) throws OutOfMemoryException; bytes, or with a unit: 64MiB, 1GiB (K, M, G mean KiB, MiB, GiB; KB, MB, GB powers of 1000)")
	nursery := byteSize(0)
	fs.Var(&nursery, "nursery", "`size` of the JIT's young generation (default 4MiB; small ones make collections frequent)")
	gcStats := fs.Bool("gc-stats", false, "print the JIT's collection statistics on stderr when the run ends: collections, pause times, bytes survived, peak heap")
	gcStress := fs.Int("gcstress", 0, "collect at every `N`th safepoint of JIT code (1: every one; every allocation is then one), poisoning freed memory and verifying the heap after each collection (slow; for debugging miniil)")
	verifyHeap := fs.Bool("verify-heap", false, "check every reference in the heap and the roots after each collection of the JIT (slower; for debugging miniil)")
	cpuprofile := fs.String("cpuprofile", "", "write a Go CPU profile of the run (runtime and helpers; JIT-compiled code shows as unknown) to `file`")
	memprofile := fs.String("memprofile", "", "write a Go allocation profile of the load and the run (the compiler's and runtime's Go allocations; not the managed heap) to `file` when the run ends")
	maxSource := maxSourceFlag(fs)
	if code := parseFlags(fs, args, stderr); code >= 0 {
		return code
	}
	eng, err := miniil.ParseEngine(*engine)
	if err != nil {
		fmt.Fprintf(stderr, "miniil run: %v\n", err)
		return miniil.ExitUsage
	}
	if maxHeap <= 0 || maxHeap > miniil.MaxMaxHeap {
		fmt.Fprintf(stderr, "miniil run: -max-heap=%s: want a heap limit from 1 byte to %s\n", &maxHeap, (*byteSize)(ptr(int64(miniil.MaxMaxHeap))))
		return miniil.ExitUsage
	}
	if *maxDepth <= 0 {
		fmt.Fprintf(stderr, "miniil run: -max-call-depth=%d: want a positive number of calls\n", *maxDepth)
		return miniil.ExitUsage
	}
	if nursery != 0 && (nursery < miniil.MinNursery || nursery > miniil.MaxNursery) {
		fmt.Fprintf(stderr, "miniil run: -nursery=%s: want a size from %s to %s\n", &nursery, (*byteSize)(ptr(int64(miniil.MinNursery))), (*byteSize)(ptr(int64(miniil.MaxNursery))))
		return miniil.ExitUsage
	}
	if *gcStress < 0 {
		fmt.Fprintf(stderr, "miniil run: -gcstress=%d: want 0 (off) or a positive interval\n", *gcStress)
		return miniil.ExitUsage
	}
	path, code := oneFile(fs, stderr)
	if code >= 0 {
		return code
	}
	if *memprofile != "" && runtime.MemProfileRate == 0 {
		runtime.MemProfileRate = defaultMemProfileRate
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "miniil run: %v\n", err)
			return miniil.ExitFailure
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "miniil run: %v\n", err)
			return miniil.ExitFailure
		}
		defer pprof.StopCPUProfile()
	}
	prog, code := load("run", path, loadConfig(maxSource), stderr)
	if code >= 0 {
		return code
	}
	ctx, stop := signalContext()
	defer stop()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	cfg := miniil.Config{Engine: eng, Stdout: stdout, MaxHeap: int64(maxHeap), MaxCallDepth: *maxDepth, Validate: *validate, NoInline: *noInline, VerifyGC: *verifyGC,
		NurseryBytes: int64(nursery), GCStress: *gcStress, VerifyHeap: *verifyHeap}
	if *skip != "" {
		cfg.SkipPhases = strings.Split(*skip, ",")
	}
	for _, name := range cfg.SkipPhases {
		if !slices.Contains(miniil.OptionalPhases(), name) {
			fmt.Fprintf(stderr, "miniil run: -skip=%s: %q is not a phase that may be skipped (%s)\n", *skip, name, strings.Join(miniil.OptionalPhases(), ", "))
			return miniil.ExitUsage
		}
	}
	if *gcStats {
		cfg.GCStats = stderr
	}
	if *jitStats {
		cfg.JITStats = stderr
	}
	if *perfMap {
		f, err := os.Create(fmt.Sprintf("/tmp/perf-%d.map", os.Getpid()))
		if err != nil {
			fmt.Fprintf(stderr, "miniil run: %v\n", err)
			return miniil.ExitFailure
		}
		defer f.Close()
		cfg.PerfMap = f
	}
	exit, err := prog.Run(ctx, cfg)
	if *memprofile != "" {
		if err := writeAllocProfile(*memprofile); err != nil {
			fmt.Fprintf(stderr, "miniil run: %v\n", err)
			return miniil.ExitFailure
		}
	}
	if err == nil {
		return exit
	}
	var sig signalError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(stderr, "miniil run: program stopped after the %v time limit\n", *timeout)
	case errors.Is(err, context.Canceled) && errors.As(context.Cause(ctx), &sig):
		fmt.Fprintf(stderr, "miniil run: program %v\n", sig)
		return sig.exitCode()
	default:
		fmt.Fprintln(stderr, err)
	}
	return exit
}

// writeAllocProfile writes the Go allocation profile so far to path.
func writeAllocProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// signalError is the cancellation cause of a run stopped by a signal.
type signalError struct{ sig os.Signal }

func (e signalError) Error() string {
	if e.sig == syscall.SIGTERM {
		return "terminated (SIGTERM)"
	}
	return "interrupted (SIGINT)"
}

// exitCode is 128 plus the signal number, as shells report it.
func (e signalError) exitCode() int {
	if e.sig == syscall.SIGTERM {
		return miniil.ExitTerminated
	}
	return miniil.ExitInterrupted
}

// signalContext returns a context cancelled (with a signalError cause) by
// the first SIGINT or SIGTERM, so that the program stops at its next safe
// point and its output is flushed; a second signal exits at once.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cancel(signalError{sig})
		case <-done:
			return
		}
		select {
		case sig := <-sigs:
			os.Exit(signalError{sig}.exitCode())
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("check", "check [-max-source=SIZE] FILE...", stdout)
	maxSource := maxSourceFlag(fs)
	if code := parseFlags(fs, args, stderr); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "miniil check: want at least one FILE (see miniil check -h)")
		return miniil.ExitUsage
	}
	status := 0
	for _, path := range fs.Args() {
		if _, code := load("check", path, loadConfig(maxSource), stderr); code > status {
			status = code
		}
	}
	return status
}

func cmdDump(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("dump", "dump -il|-ir|-funclets|-eh|-asm|-gcinfo|-after PHASE [-method NAME] FILE", stdout)
	ilFlag := fs.Bool("il", false, "print the parsed module with IL offsets and EH clause tables")
	irFlag := fs.Bool("ir", false, "print each method's IR, in code order")
	funcletsFlag := fs.Bool("funclets", false, "print each method's funclet layout and native code ranges")
	ehFlag := fs.Bool("eh", false, "print each method's native EH clause table (sorted, chained, and the CLR's duplicates)")
	asmFlag := fs.Bool("asm", false, "print each method's IR, then its machine code with native offsets")
	gcFlag := fs.Bool("gcinfo", false, "print each method's GC information: the live references and interior pointers at each safepoint")
	after := fs.String("after", "", "print each method's state after the compile `phase`: "+strings.Join(miniil.Phases(), ", "))
	method := fs.String("method", "", "only this method (Name or Class::Name)")
	maxSource := maxSourceFlag(fs)
	if code := parseFlags(fs, args, stderr); code >= 0 {
		return code
	}
	stage, n := miniil.StageIL, 0
	for _, f := range []struct {
		set   bool
		stage miniil.Stage
	}{{*ilFlag, miniil.StageIL}, {*irFlag, miniil.StageIR}, {*funcletsFlag, miniil.StageFunclets},
		{*ehFlag, miniil.StageEH}, {*asmFlag, miniil.StageAsm}, {*gcFlag, miniil.StageGC}, {*after != "", -1}} {
		if f.set {
			stage, n = f.stage, n+1
		}
	}
	if n != 1 {
		fmt.Fprintln(stderr, "miniil dump: choose one stage to print: -il, -ir, -funclets, -eh, -asm, -gcinfo or -after PHASE (see miniil dump -h)")
		return miniil.ExitUsage
	}
	if *after != "" && !slices.Contains(miniil.Phases(), *after) {
		fmt.Fprintf(stderr, "miniil dump: -after %s: no such phase (phases: %s)\n", *after, strings.Join(miniil.Phases(), ", "))
		return miniil.ExitUsage
	}
	path, code := oneFile(fs, stderr)
	if code >= 0 {
		return code
	}
	prog, code := load("dump", path, loadConfig(maxSource), stderr)
	if code >= 0 {
		return code
	}
	dump := func() error { return prog.Dump(stdout, stage, *method) }
	if *after != "" {
		dump = func() error { return prog.DumpAfter(stdout, *after, *method) }
	}
	if err := dump(); err != nil {
		fmt.Fprintf(stderr, "miniil dump: %v\n", err)
		return miniil.ExitCode(err)
	}
	return 0
}

func ptr[T any](v T) *T { return &v }
