// Package miniil embeds the miniil runtime: it loads a mini MSIL program
// (ilasm syntax, see MINIIL.md), verifies it, and runs its entry point on
// an engine, writing the program's output to a configurable writer.
//
// Errors are typed. Loading fails with an il.ErrorList whose entries are
// *il.Error values carrying file:line:col. Running fails with
// *ManagedException for an unhandled exception, *StackOverflowError for
// runaway recursion, an error wrapping the context's error on
// cancellation, and *InternalError if miniil itself has a bug.
package miniil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"miniil/il"
	"miniil/interp"
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
	// MaxCallDepth bounds managed call nesting; deeper recursion ends the
	// run with *StackOverflowError. Zero means the engine's default.
	MaxCallDepth int
}

// ManagedException is an exception that no handler caught. Its Error
// text is CoreCLR's report: "Unhandled exception. TYPE: MESSAGE" and one
// "   at METHOD" line per frame, innermost first.
type ManagedException struct {
	Type       string   // full class name, e.g. System.InvalidOperationException
	Message    string   // the exception's Message
	StackTrace []string // methods from the throw point outward
	// ILOffsets gives, for each StackTrace entry, the IL offset of the
	// frame's throw or call site, as the JIT records it (-1: unknown; nil
	// from the interpreter, which records methods only).
	ILOffsets []int
}

func (e *ManagedException) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Unhandled exception. %s: %s", e.Type, e.Message)
	for _, f := range e.StackTrace {
		b.WriteString("\n   at ")
		b.WriteString(f)
	}
	return b.String()
}

// StackOverflowError reports recursion deeper than the configured limit.
type StackOverflowError struct{}

func (*StackOverflowError) Error() string { return "Stack overflow." }

// InternalError is a bug in miniil caught at the API boundary.
type InternalError struct {
	Op    string // what was being done: load, run
	Value any    // the recovered panic value
	Stack string // the Go stack where it happened
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("miniil internal error during %s: %v (please report this with the program)", e.Op, e.Value)
}

func recoverInternal(op string, err *error) {
	if r := recover(); r != nil {
		*err = &InternalError{Op: op, Value: r, Stack: string(debug.Stack())}
	}
}

// ExitCode returns the process exit code that corresponds to a run error:
// 134 for an unhandled exception or a stack overflow (CoreCLR aborts), 1
// for anything else, 0 for nil.
func ExitCode(err error) int {
	var me *ManagedException
	var so *StackOverflowError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &me), errors.As(err, &so):
		return 134
	}
	return 1
}

// Run runs the program's entry point and returns its exit code: the
// entry point's int32 result (0 for void), or 134 with a
// *ManagedException or *StackOverflowError. Cancelling ctx stops the
// program promptly with an error wrapping ctx.Err().
func (p *Program) Run(ctx context.Context, cfg Config) (code int, err error) {
	defer recoverInternal("run", &err)
	out := cfg.Stdout
	if out == nil {
		out = io.Discard
	}
	switch cfg.Engine {
	case Interp:
		code, err = interp.Run(ctx, p.mod, interp.Options{Stdout: out, MaxCallDepth: cfg.MaxCallDepth})
	case JIT:
		return runJIT(ctx, p.mod, out)
	default:
		return 1, fmt.Errorf("unknown engine %v", cfg.Engine)
	}
	return code, convertError(err)
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
		return &ManagedException{Type: ue.Type, Message: ue.Message, StackTrace: ue.Trace}
	case errors.As(err, &jue):
		return &ManagedException{Type: jue.Type, Message: jue.Message, StackTrace: jue.Trace, ILOffsets: jue.ILOffsets}
	case errors.As(err, &so), errors.As(err, &jso):
		return &StackOverflowError{}
	}
	return err
}
