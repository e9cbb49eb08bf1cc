package miniil

import (
	"context"
	"fmt"
	"io"
	"sort"

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
		clauses, err := ehclauses.Build(m, f, code)
		if err != nil {
			return nil, err
		}
		for _, cl := range clauses {
			tf := funcletAt(code.Funclets, cl.OrigTryStart)
			c.Clauses = append(c.Clauses, jitrt.EHClause{
				Kind: cl.Kind, TryStart: cl.TryStart, TryEnd: cl.TryEnd,
				HandlerStart: cl.HandlerStart, HandlerEnd: cl.HandlerEnd, FilterStart: cl.FilterStart, CatchType: cl.CatchType,
				TryFunclet: tf,
			})
		}
		inFilter := filterRegions(f)
		for k, fc := range code.Funclets {
			c.Funclets = append(c.Funclets, jitrt.FuncletInfo{
				Start: fc.Start, End: fc.End, FrameSize: fc.FrameSize, InFilter: inFilter[code.Layout.Funcs[k].Region],
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

// funcletAt returns the index of the funclet whose code holds native
// offset pc (0, the main body, when none does). The funclets are
// disjoint and in code order.
func funcletAt(fcs []amd64.FuncletCode, pc int) int {
	k := sort.Search(len(fcs), func(k int) bool { return fcs[k].End > pc })
	if k < len(fcs) && fcs[k].Start <= pc {
		return k
	}
	return 0
}

// filterRegions returns the regions that are filters or lie in one
// (f.Regions lists parents first, so one pass finds them all).
func filterRegions(f *ir.Func) map[*ir.Region]bool {
	in := map[*ir.Region]bool{}
	for _, r := range f.Regions {
		if r.Kind == ir.RegionFilter || in[r.Parent] {
			in[r] = true
		}
	}
	return in
}

// runJIT runs the program's entry point on the JIT.
func runJIT(ctx context.Context, mod *il.Module, out io.Writer) (int, error) {
	rt, err := jitrt.NewRuntime(mod, jitrt.Options{Stdout: out, Compile: compileMethod(mod, amd64.NewAssembler())})
	if err != nil {
		return 1, fmt.Errorf("starting the JIT runtime: %w", err)
	}
	defer rt.Close()
	code, err := rt.Run(ctx)
	if err = convertError(err); err != nil && ExitCode(err) == 134 {
		code = 134
	}
	return code, err
}
