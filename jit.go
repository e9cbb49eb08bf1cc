package miniil

import (
	"context"
	"fmt"
	"io"

	"miniil/abi"
	"miniil/amd64"
	"miniil/ehclauses"
	"miniil/il"
	"miniil/ir"
	"miniil/jitrt"
	"miniil/opt"
	"miniil/reader"
)

// compileMethod is the JIT pipeline for one method: IL to IR, IR to
// machine code, the EH clause table.
func compileMethod(mod *il.Module, asm *amd64.Assembler) jitrt.CompileFunc {
	return func(rt *jitrt.Runtime, m *il.Method) (*abi.Method, error) {
		f, err := importIR(mod, m)
		if err != nil {
			return nil, err
		}
		code, err := amd64.Generate(f, rt, asm)
		if err != nil {
			return nil, err
		}
		if err := ehclauses.Build(m, f, code); err != nil {
			return nil, err
		}
		return &code.Method, nil
	}
}

// importIR reads method m into IR and optimizes it: what the code
// generator compiles and what `miniil dump -ir` prints.
func importIR(mod *il.Module, m *il.Method) (*ir.Func, error) {
	f, err := reader.Import(mod, m)
	if err != nil {
		return nil, err
	}
	if err := opt.Run(f); err != nil {
		return nil, fmt.Errorf("%s: %w", m.FullName(), err)
	}
	return f, nil
}

// runJIT runs the program's entry point on the JIT.
func runJIT(ctx context.Context, mod *il.Module, cfg Config, out io.Writer) (int, error) {
	rt, err := newRuntime(mod, cfg, out)
	if err != nil {
		return 0, err
	}
	defer rt.Close()
	return rt.Run(ctx)
}

// newRuntime creates a JIT runtime for a run with cfg's settings (checked
// by prepare); a failure is a *startError.
func newRuntime(mod *il.Module, cfg Config, out io.Writer) (*jitrt.Runtime, error) {
	rt, err := jitrt.NewRuntime(mod, jitrt.Options{
		Stdout: out, Compile: compileMethod(mod, amd64.NewAssembler()),
		MaxCallDepth: cfg.MaxCallDepth, HeapBytes: int(cfg.MaxHeap), FlushLines: cfg.FlushLines,
	})
	if err != nil {
		return nil, &startError{err}
	}
	return rt, nil
}
