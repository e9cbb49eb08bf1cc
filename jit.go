package miniil

import (
	"context"
	"fmt"
	"io"

	"miniil/amd64"
	"miniil/il"
	"miniil/jitrt"
	"miniil/reader"
)

// compileMethod is the JIT pipeline for one method: IL to IR, IR to
// machine code.
func compileMethod(mod *il.Module, asm *amd64.Assembler) jitrt.CompileFunc {
	return func(rt *jitrt.Runtime, m *il.Method) (*jitrt.Compiled, error) {
		f, err := reader.Import(mod, m)
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
		for _, s := range code.Sites {
			c.Sites = append(c.Sites, jitrt.Site{Offset: s.Offset, ILOffset: s.ILOffset})
		}
		return c, nil
	}
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
