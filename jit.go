package miniil

import (
	"context"
	"fmt"
	"io"

	"miniil/amd64"
	"miniil/ehclauses"
	"miniil/il"
	"miniil/ir"
	"miniil/jitrt"
	"miniil/opt"
	"miniil/reader"
)

// compileMethod is the JIT pipeline for one method: IL to IR, IR to
// machine code.
func compileMethod(mod *il.Module, asm *amd64.Assembler) jitrt.CompileFunc {
	return func(rt *jitrt.Runtime, m *il.Method) (*jitrt.Compiled, error) {
		f, err := importIR(mod, m)
		if err != nil {
			return nil, err
		}
		code, err := amd64.Generate(f, rt, asm)
		if err != nil {
			return nil, err
		}
		c := &jitrt.Compiled{Code: code.Code}
		for _, r := range code.CellRefs {
			c.CellRefs = append(c.CellRefs, jitrt.CellRef{Offset: r.Offset, Cell: r.Cell})
		}
		table, err := ehclauses.Build(m, f, code)
		if err != nil {
			return nil, err
		}
		for _, cl := range table.Clauses {
			c.Clauses = append(c.Clauses, jitrt.EHClause{
				Kind: cl.Kind, TryStart: cl.TryStart, TryEnd: cl.TryEnd,
				HandlerStart: cl.HandlerStart, HandlerEnd: cl.HandlerEnd, FilterStart: cl.FilterStart, CatchType: cl.CatchType,
				Next: cl.Next, TryFunclet: cl.TryFunclet,
			})
		}
		inFilter := filterRegions(f)
		for k, fc := range code.Funclets {
			c.Funclets = append(c.Funclets, jitrt.FuncletInfo{
				Start: fc.Start, End: fc.End, FrameSize: fc.FrameSize, InFilter: inFilter[code.Layout.Funcs[k].Region],
				Enclosing: table.Enclosing[k],
			})
		}
		for _, s := range code.Sites {
			c.Sites = append(c.Sites, jitrt.Site{Offset: s.Offset, ILOffset: s.ILOffset})
		}
		return c, nil
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

// filterRegions returns the regions that are filters or lie in one.
func filterRegions(f *ir.Func) map[*ir.Region]bool {
	in := map[*ir.Region]bool{}
	for _, r := range f.Regions { // parents first
		in[r] = r.Kind == ir.RegionFilter || r.Parent != nil && in[r.Parent]
	}
	return in
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
