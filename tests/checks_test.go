package tests

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"miniil"
	"miniil/amd64"
	"miniil/ehclauses"
	"miniil/funclet"
	"miniil/fuzz"
	"miniil/il"
	"miniil/ir"
	"miniil/opt"
	"miniil/reader"
)

// validation counts what validated compiles saw, so that a test can tell
// that its checks had something to check.
type validation struct {
	methods, blocks, removed, regions, homed, clauses int
}

// compileValidated compiles m as the JIT does, with every check of the
// validation switch after each stage: ir.Check after the reader and
// after each pass, funclet.Check after layout, amd64.CheckAlloc on the
// homes, ehclauses.Validate on the clause table. Generate lays f out
// again (as it does today), so the layout and homes it used are checked
// too, and Allocate must agree with the homes Generate used.
func compileValidated(mod *il.Module, m *il.Method, asm *amd64.Assembler, st *validation) error {
	f, err := reader.Import(mod, m)
	if err != nil {
		return err
	}
	checkIR := func(phase string) error {
		if err := ir.Check(f); err != nil {
			return fmt.Errorf("after %s: %w", phase, err)
		}
		return nil
	}
	if err := checkIR("import"); err != nil {
		return err
	}
	opt.NullChecks(f)
	if err := checkIR("nullchecks"); err != nil {
		return err
	}
	st.removed += opt.Unreachable(f)
	if err := checkIR("unreachable"); err != nil {
		return err
	}
	lay, err := funclet.Build(f)
	if err != nil {
		return err
	}
	if err := checkIR("layout"); err != nil {
		return err
	}
	if err := funclet.Check(f, lay); err != nil {
		return err
	}
	alloc, err := amd64.Allocate(f, lay)
	if err != nil {
		return err
	}
	if err := amd64.CheckAlloc(f, lay, alloc); err != nil {
		return err
	}
	code, err := amd64.Generate(f, stubEnv{}, asm)
	if err != nil {
		return err
	}
	if err := checkIR("code generation"); err != nil {
		return err
	}
	if err := funclet.Check(f, code.Layout); err != nil {
		return fmt.Errorf("Generate's layout: %w", err)
	}
	alloc, err = amd64.Allocate(f, code.Layout)
	if err != nil {
		return err
	}
	if !slices.Equal(alloc.Homes, code.Homes) {
		return fmt.Errorf("%s: Allocate and Generate chose different homes", m.FullName())
	}
	if err := amd64.CheckAlloc(f, code.Layout, alloc); err != nil {
		return fmt.Errorf("Generate's homes: %w", err)
	}
	if err := ehclauses.Build(m, f, code); err != nil {
		return err
	}
	table := ehclauses.Of(&code.Method)
	if err := ehclauses.Validate(m, f, code, table); err != nil {
		return err
	}
	st.methods++
	st.blocks += len(f.Blocks)
	st.regions += len(f.Regions)
	st.clauses += len(table.Clauses)
	for _, h := range code.Homes {
		if h != amd64.NoReg {
			st.homed++
		}
	}
	return nil
}

// validateSource compiles every method of a program with validation.
func validateSource(t *testing.T, name string, src []byte, asm *amd64.Assembler, st *validation) {
	t.Helper()
	mod, err := il.Load(name, src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, m := range mod.AllMethods() {
		if m.Builtin || m.Abstract {
			continue
		}
		if err := compileValidated(mod, m, asm, st); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestValidationPrograms compiles every method of the corpus, the
// benchmarks, the examples and the programs that found fuzz bugs with
// every check on: each must pass.
func TestValidationPrograms(t *testing.T) {
	var files []string
	for _, glob := range []string{"corpus/*.il", "bench/*.il", "../examples/*.il", "../fuzz/testdata/bugs/*.il"} {
		fs, err := filepath.Glob(glob)
		if err != nil || len(fs) == 0 {
			t.Fatalf("no programs in %s (%v)", glob, err)
		}
		files = append(files, fs...)
	}
	asm := amd64.NewAssembler()
	var st validation
	for _, file := range files {
		validateSource(t, file, mustRead(t, file), asm, &st)
	}
	t.Logf("%d methods, %d blocks (%d unreachable ones removed), %d regions, %d native clauses, %d values in registers",
		st.methods, st.blocks, st.removed, st.regions, st.clauses, st.homed)
	if st.removed == 0 || st.regions == 0 || st.clauses == 0 || st.homed == 0 {
		t.Errorf("the programs exercised too little: %+v", st)
	}
}

// TestValidationFuzz compiles programs of miniil fuzz's generator, of
// each size, with every check on.
func TestValidationFuzz(t *testing.T) {
	n := uint64(60)
	if testing.Short() {
		n = 10
	}
	asm := amd64.NewAssembler()
	for _, size := range []string{"small", "medium", "large"} {
		t.Run(size, func(t *testing.T) {
			opts, err := fuzz.SizeOptions(size)
			if err != nil {
				t.Fatal(err)
			}
			var st validation
			for seed := range n {
				validateSource(t, fmt.Sprintf("%s-%d.il", size, seed), []byte(fuzz.Generate(seed, opts).IL()), asm, &st)
			}
			if st.regions == 0 || st.homed == 0 {
				t.Errorf("the programs exercised too little: %+v", st)
			}
		})
	}
}

// unreachableTry has a try/catch that no path enters (its handler is
// still compiled, as the runtime enters handlers) and null checks that
// NullChecks removes, orphaning their throw blocks, inside trys and a
// handler.
const unreachableTry = `.assembly extern mscorlib {}
.assembly u {}
.class public Box extends [mscorlib]System.Object
{
  .field public int32 a
  .method public specialname rtspecialname instance void .ctor() cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ret
  }
}
.method public static int32 main() cil managed
{
  .entrypoint
  .maxstack 3
  .locals init (int32 r, class Box b)
  br.s AFTER
  .try
  {
    ldc.i4.1
    stloc r
    leave.s AFTER
  }
  catch [mscorlib]System.Exception
  {
    pop
    newobj instance void Box::.ctor()
    ldfld int32 Box::a
    stloc r
    leave.s AFTER
  }
AFTER:
  .try
  {
    newobj instance void Box::.ctor()
    stloc b
    ldloc b
    ldc.i4.7
    stfld int32 Box::a
    ldloc b
    ldfld int32 Box::a
    ldloc r
    add
    stloc r
    ldnull
    ldfld int32 Box::a
    pop
    leave.s END
  }
  catch [mscorlib]System.NullReferenceException
  {
    pop
    ldstr "caught"
    call void [mscorlib]System.Console::WriteLine(string)
    leave.s END
  }
END:
  ldloc r
  call void [mscorlib]System.Console::WriteLine(int32)
  ldloc r
  ret
}
`

// TestUnreachableProgram checks that removing unreachable blocks keeps a
// method with an unreachable try and orphaned throw blocks valid at
// every stage, and that both engines run it alike.
func TestUnreachableProgram(t *testing.T) {
	var st validation
	validateSource(t, "unreachable.il", []byte(unreachableTry), amd64.NewAssembler(), &st)
	if st.removed == 0 {
		t.Errorf("no unreachable block removed: the test checks nothing")
	}
	for _, eng := range engines {
		p, err := miniil.Load("unreachable.il", []byte(unreachableTry))
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		code, err := p.Run(t.Context(), miniil.Config{Engine: eng, Stdout: &out})
		if err != nil || code != 7 || out.String() != "caught\n7\n" {
			t.Errorf("%s: exit %d, output %q, error %v; want exit 7 and \"caught\\n7\\n\"", eng, code, out.String(), err)
		}
	}
}
