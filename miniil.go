// Package miniil embeds the miniil runtime: it loads a mini MSIL program
// (ilasm syntax, see docs/LANGUAGE.md), verifies it, and runs its entry
// point on an engine, writing the program's output to a configurable
// writer. It is the supported API for embedders: everything this package
// exports, together with the parts of package il that its results expose
// (error and position types, and the declarations of a loaded program, to
// read; see package il). Every other package of the module is internal to
// miniil: no compatibility promise.
//
// What is supported is the Go API and the behavior documented on it. The
// text of Program.Dump and DumpAfter, of Config.JITStats and of error
// messages is for people and may change (match errors with errors.As and
// errors.Is, and read their fields); ManagedException's report follows
// CoreCLR's format.
//
// Errors are typed. Loading fails with an il.ErrorList whose entries are
// *il.Error values carrying file:line:col. Running fails with
// *ManagedException for an unhandled exception, *StackOverflowError for
// runaway recursion, an error wrapping the context's error on
// cancellation, and *InternalError if miniil itself has a bug; ExitCode
// maps every error to a process exit code.
//
// A run's memory is bounded: the managed heap by Config.MaxHeap (heap
// exhaustion throws System.OutOfMemoryException into the program, on both
// engines), and everything a run maps is released when it ends, also when
// mapping fails part way.
package miniil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"golang.org/x/sys/unix"

	"miniil/il"
	"miniil/interp"
	"miniil/jit"
	"miniil/jitrt"
)

// Engine selects how a program runs.
type Engine int

const (
	// JIT compiles each method to amd64 code on first call and runs it
	// natively (the default).
	JIT Engine = iota
	// Interp is the reference interpreter.
	Interp
)

// DefaultEngine is the engine used when Config.Engine is left zero.
const DefaultEngine = JIT

func (e Engine) String() string {
	switch e {
	case Interp:
		return "interp"
	case JIT:
		return "jit"
	}
	return fmt.Sprintf("Engine(%d)", int(e))
}

// ParseEngine returns the engine with the given name ("interp", "jit").
func ParseEngine(name string) (Engine, error) {
	switch name {
	case "interp":
		return Interp, nil
	case "jit":
		return JIT, nil
	}
	return 0, fmt.Errorf("unknown engine %q (want interp or jit)", name)
}

// Program is a loaded and verified program. It may be run any number of
// times, also concurrently.
type Program struct {
	mod *il.Module
}

// Module returns the program's verified module (the output of the front
// end), for tools that print or inspect it.
func (p *Program) Module() *il.Module { return p.mod }

// Config controls a run.
type Config struct {
	Engine Engine    // which engine runs the program
	Stdout io.Writer // program output; nil discards it
	// MaxCallDepth bounds the nesting of method calls; a deeper call ends
	// the run with *StackOverflowError, on both engines at the same depth.
	// The entry point is at depth 1 and each call one deeper; a handler or
	// filter runs at its method's depth, a base library method at its
	// caller's. Zero means DefaultMaxCallDepth. The JIT's native stack
	// holds jitrt.StackBytesPerCall bytes per call of the limit (at least
	// 8 MiB, at most 1 GiB), so recursion through larger frames may run
	// out of it first, and then overflows as well.
	MaxCallDepth int
	// MaxHeap bounds the managed heap: the bytes of the live objects,
	// arrays, strings and boxes of a run. An allocation of n bytes throws
	// System.OutOfMemoryException into the program when the objects
	// reachable at that moment (after a full collection, on the JIT) and
	// n take more than MaxHeap; sizes are the JIT's object layout
	// (il.ObjectSize, il.ArraySize, il.StringSize, il.BoxSize), on both
	// engines. The JIT's nursery (NurseryBytes) is not counted. The JIT
	// reserves twice MaxHeap of address space for its old generation
	// (committed only as used, and given back after collections; its
	// other reservations are sized from the program: see
	// jitrt.Reservations). Zero means DefaultMaxHeap; at most MaxMaxHeap.
	MaxHeap int64
	// NurseryBytes is the size of the JIT's young generation, where
	// native code allocates inline and objects die cheaply. Zero means
	// jitrt.DefaultNurseryBytes (4 MiB); at least jitrt.MinNurseryBytes.
	// Small nurseries make collections frequent (for testing). The
	// interpreter, which uses Go's collector, ignores it.
	NurseryBytes int64
	// GCStress makes the JIT collect at every GCStress-th safepoint (1:
	// every one), where every allocation is then a safepoint; every
	// fourth of these collections is a full one, freed memory is
	// poisoned and the heap is verified after each (see VerifyHeap). As
	// CoreCLR's GCStress, for testing miniil. The interpreter ignores it.
	GCStress int
	// VerifyHeap makes the JIT check every reference in the heap and in
	// the roots after each collection; a failure ends the run with an
	// *InternalError. On under GCStress. The interpreter ignores it.
	VerifyHeap bool
	// GCStats, when set, receives one line of the JIT's collection
	// statistics when a run ends (see cmd/miniil's -gc-stats).
	GCStats io.Writer
	// FlushLines writes output through to Stdout at the end of every line.
	// Otherwise output is buffered (64 KiB) and flushed when the buffer
	// fills and when the run ends, however it ends. Lines are flushed
	// anyway when Stdout is an *os.File open on a terminal.
	FlushLines bool
	// NoInline turns the JIT's inliner off: every call stays a call (for
	// comparisons and debugging; the program's behavior is the same).
	NoInline bool
	// SkipPhases names optimizing phases of the JIT to leave out, as
	// OptionalPhases lists them (the program behaves the same without
	// them), for comparisons and for
	// finding which phase a wrong answer comes from. Naming a phase that
	// does not exist or is not optional is an error.
	SkipPhases []string
	// Validate makes the JIT check its own work after every phase of
	// every method it compiles (the IR, the layout, the register
	// allocation, the EH clause table), failing the run with an
	// *InternalError on the first inconsistency: slower compilation, for
	// debugging miniil. Always on in tests (testing.Testing).
	Validate bool
	// VerifyGC makes the JIT runtime check the GC information its code
	// generator records at every exit of native code (helper calls,
	// base library calls, polls, stack checks, compilation): it walks the
	// managed frames as a precise collector would and checks that every
	// location reported as a reference holds null or an object, and
	// every one reported as an interior pointer null or an address in an
	// object, the native stack or the statics; it also poisons the free
	// stack, so that an uninitialized slot cannot pass. The first failure
	// ends the run with an *InternalError. Much slower; for testing
	// miniil. The interpreter ignores it.
	VerifyGC bool
	// JITStats, when set, receives the JIT's statistics when a run ends:
	// methods and bytes compiled and the time of each compile phase.
	JITStats io.Writer
	// PerfMap, when set, receives a line "ADDR SIZE NAME" for every
	// method, funclet and stub the JIT installs: the format of Linux
	// perf's /tmp/perf-PID.map, with which `perf report` names JIT code
	// instead of showing it as unknown.
	PerfMap io.Writer

	jitStats *jit.Stats // what JITStats reports, made by prepare
}

// DefaultMaxCallDepth is the call depth limit when Config.MaxCallDepth is
// zero (a million calls, more than CoreCLR's and Mono's default stacks
// hold for small frames).
const DefaultMaxCallDepth = il.DefaultMaxCallDepth

// DefaultMaxHeap is the heap limit when Config.MaxHeap is zero.
const DefaultMaxHeap = 1 << 30

// MinNursery and MaxNursery bound Config.NurseryBytes.
const (
	MinNursery = jitrt.MinNurseryBytes
	MaxNursery = jitrt.MaxNurseryBytes
)

// MaxMaxHeap is the largest heap limit a run accepts.
const MaxMaxHeap = jitrt.MaxHeapBytes

// Process exit codes, as the miniil command uses them. A run that ends
// normally exits with the entry point's result instead (0 for void), which
// may of course be any of these numbers too.
const (
	ExitFailure     = 1   // an error outside the program: output or resources (mmap) failing, bad settings
	ExitUsage       = 2   // a bad command line, or a file that cannot be read
	ExitLoad        = 3   // the program does not load: a syntax, resolution or verification error, or a source too large
	ExitInternal    = 70  // a bug in miniil (EX_SOFTWARE)
	ExitTimeout     = 124 // the time limit (the context's deadline) passed, as timeout(1)
	ExitInterrupted = 130 // cancelled: SIGINT (128+2)
	ExitUnhandled   = 134 // an unhandled exception or a stack overflow (SIGABRT, as CoreCLR)
	ExitTerminated  = 143 // SIGTERM (128+15)
)

// ManagedException is an exception that no handler caught. Its Error
// text is CoreCLR's report: "Unhandled exception. TYPE: MESSAGE" (just
// TYPE for an empty message), for an inner exception "\n ---> " and its
// own text then "\n   --- End of inner exception stack trace ---", and
// one "   at METHOD" line per frame, innermost first.
type ManagedException struct {
	Type       string   // full class name, e.g. System.InvalidOperationException
	Message    string   // the exception's Message
	StackTrace []string // methods from the throw point outward
	// ILOffsets gives, for each StackTrace entry, the IL offset of the
	// frame's throw or call site, as the JIT records it (-1: unknown; nil
	// from the interpreter, which records methods only).
	ILOffsets []int
	// InnerException is the exception's InnerException (nil: none),
	// with its Type, Message and own InnerException. Its StackTrace is
	// not recorded (nil), but for the inner exception of a
	// TypeInitializationException made in the handler that caught it, as
	// the runtime makes one for a failed static constructor: the frames
	// from its throw to the static constructor, as CoreCLR reports them.
	InnerException *ManagedException
}

func (e *ManagedException) Error() string {
	var b strings.Builder
	b.WriteString("Unhandled exception. ")
	e.write(&b)
	return b.String()
}

// write writes what Exception.ToString returns.
func (e *ManagedException) write(b *strings.Builder) {
	var inner func(*strings.Builder)
	if e.InnerException != nil {
		inner = e.InnerException.write
	}
	il.WriteException(b, e.Type, e.Message, e.StackTrace, inner)
}

// StackOverflowError reports recursion deeper than the configured limit.
type StackOverflowError struct{}

func (*StackOverflowError) Error() string { return "Stack overflow." }

// InternalError is a bug in miniil caught at the API boundary: a
// recovered panic, or an engine failure that is neither the program's
// doing nor the host's (a method the JIT cannot compile, say).
type InternalError struct {
	Op    string // what was being done: load, run
	Value any    // the recovered panic value, or the engine's error
	Stack string // the Go stack where it happened (panics only)
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("miniil internal error during %s: %v (please report this with the program)", e.Op, e.Value)
}

// Unwrap returns the engine's error, if Value is one.
func (e *InternalError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

func recoverInternal(op string, err *error) {
	if r := recover(); r != nil {
		*err = &InternalError{Op: op, Value: r, Stack: string(debug.Stack())}
	}
}

// ExitCode returns the process exit code that corresponds to an error from
// Load, Run or Call: ExitUnhandled for an unhandled exception or a stack
// overflow, ExitTimeout when the context's deadline passed, ExitInterrupted
// when it was cancelled, ExitLoad for an invalid program, ExitInternal for
// an *InternalError, ExitFailure for anything else, and 0 for nil.
func ExitCode(err error) int {
	var me *ManagedException
	var so *StackOverflowError
	var ie *InternalError
	var le il.ErrorList
	var e *il.Error
	switch {
	case err == nil:
		return 0
	case errors.As(err, &me), errors.As(err, &so):
		return ExitUnhandled
	case errors.As(err, &ie):
		return ExitInternal
	case errors.Is(err, context.DeadlineExceeded):
		return ExitTimeout
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &le), errors.As(err, &e):
		return ExitLoad
	}
	return ExitFailure
}

// Run runs the program's entry point and returns its exit code: the
// entry point's int32 result (0 for void), or with an error the code
// ExitCode gives for it (134 with a *ManagedException or
// *StackOverflowError). Cancelling ctx stops the program promptly with an
// error wrapping ctx.Err(); a ctx that is already done stops it before it
// starts (no output). A nil ctx means context.Background(). Output is
// flushed before Run returns, however the run ends.
func (p *Program) Run(ctx context.Context, cfg Config) (code int, err error) {
	defer func() {
		if err != nil {
			code = ExitCode(err)
		}
	}()
	defer recoverInternal("run", &err)
	ctx, out, err := prepare(ctx, &cfg)
	if err != nil {
		return 0, err
	}
	switch cfg.Engine {
	case Interp:
		code, err = interp.Run(ctx, p.mod, interpOptions(cfg, out))
	case JIT:
		code, err = runJIT(ctx, p.mod, cfg, out)
	default:
		return 0, fmt.Errorf("unknown engine %v", cfg.Engine)
	}
	return code, classify("run", err, out)
}

// prepare checks a run's settings and context and returns the context to
// use and the output writer (which records write errors).
func prepare(ctx context.Context, cfg *Config) (context.Context, *outputWriter, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("miniil: run not started: %w", err)
	}
	if cfg.MaxHeap == 0 {
		cfg.MaxHeap = DefaultMaxHeap
	}
	if cfg.MaxHeap < 0 || cfg.MaxHeap > MaxMaxHeap {
		return nil, nil, fmt.Errorf("miniil: heap limit %d out of range [1, %d]", cfg.MaxHeap, int64(MaxMaxHeap))
	}
	if cfg.NurseryBytes != 0 && (cfg.NurseryBytes < MinNursery || cfg.NurseryBytes > MaxNursery) {
		return nil, nil, fmt.Errorf("miniil: nursery size %d out of range [%d, %d]", cfg.NurseryBytes, MinNursery, MaxNursery)
	}
	if cfg.GCStress < 0 {
		return nil, nil, fmt.Errorf("miniil: GC stress interval %d is negative", cfg.GCStress)
	}
	for _, name := range cfg.SkipPhases {
		if i := jit.PhaseIndex(name); i < 0 || !jit.Phases()[i].Optional {
			return nil, nil, fmt.Errorf("miniil: cannot skip phase %q: the phases that may be skipped are %s", name, strings.Join(OptionalPhases(), ", "))
		}
	}
	w := cfg.Stdout
	if w == nil {
		w = io.Discard
	}
	if isTerminal(w) {
		cfg.FlushLines = true
	}
	if cfg.JITStats != nil {
		cfg.jitStats = &jit.Stats{}
	}
	return ctx, &outputWriter{w: w}, nil
}

func interpOptions(cfg Config, out io.Writer) interp.Options {
	return interp.Options{Stdout: out, MaxCallDepth: cfg.MaxCallDepth, HeapBytes: cfg.MaxHeap, FlushLines: cfg.FlushLines}
}

// startError is a failure to set up a run (the JIT's memory could not be
// mapped): the host's resources, not a bug.
type startError struct{ err error }

func (e *startError) Error() string { return "starting the JIT runtime: " + e.err.Error() }

func (e *startError) Unwrap() error { return e.err }

// isTerminal reports whether w is an *os.File open on a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// outputWriter passes the program's output on and remembers the first
// write error, so that an error from the engine can be told apart as an
// output failure.
type outputWriter struct {
	w   io.Writer
	err error
}

func (o *outputWriter) Write(b []byte) (int, error) {
	n, err := o.w.Write(b)
	if err != nil && o.err == nil {
		o.err = err
	}
	return n, err
}

// classify maps an engine's error to the API's error types: the program's
// outcome (*ManagedException, *StackOverflowError), cancellation (the
// wrapped context error), an output error (wrapped, "writing output:"), or
// else an *InternalError.
func classify(op string, err error, out *outputWriter) error {
	err = convertError(err)
	var me *ManagedException
	var so *StackOverflowError
	var ie *InternalError
	switch {
	case err == nil, errors.As(err, &me), errors.As(err, &so), errors.As(err, &ie),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled), errors.As(err, new(*startError)):
		return err
	case out.err != nil && errors.Is(err, out.err):
		return fmt.Errorf("writing output: %w", out.err)
	}
	return &InternalError{Op: op, Value: err}
}

// convertError maps engine errors to the API's error types.
func convertError(err error) error {
	var ue *interp.UnhandledException
	var so *interp.StackOverflowError
	var jue *jitrt.UnhandledException
	var jso *jitrt.StackOverflowError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		me := &ManagedException{Type: ue.Type, Message: ue.Message, StackTrace: ue.Trace}
		for at, in := me, ue.Inner; in != nil; at, in = at.InnerException, in.Inner {
			at.InnerException = &ManagedException{Type: in.Type, Message: in.Message, StackTrace: in.Trace}
		}
		return me
	case errors.As(err, &jue):
		me := &ManagedException{Type: jue.Type, Message: jue.Message, StackTrace: jue.Trace, ILOffsets: jue.ILOffsets}
		for at, in := me, jue.Inner; in != nil; at, in = at.InnerException, in.Inner {
			at.InnerException = &ManagedException{Type: in.Type, Message: in.Message, StackTrace: in.Trace, ILOffsets: in.ILOffsets}
		}
		return me
	case errors.As(err, &so), errors.As(err, &jso):
		return &StackOverflowError{}
	}
	return err
}
