package funclet_test

import (
	"slices"
	"strings"
	"testing"

	"miniil/abi"
	"miniil/funclet"
	"miniil/il"
	"miniil/ir"
	"miniil/opt"
	"miniil/reader"
)

// checkSrc has a method with a try in the main body, code before and
// after it, a catch with a try of its own, a filter and a finally.
const checkSrc = `.assembly extern mscorlib {}
.assembly t {}
.class public Box extends [mscorlib]System.Object
{
  .field public int32 a
}
.method public static void main() cil managed
{
  .entrypoint
  ret
}
.method public static int32 f(class Box b, int32 i) cil managed
{
  .locals init (int32 s)
  ldarg.1
  brfalse.s T
  ldarg.1
  stloc s
T:
  .try
  {
    ldarg.0
    ldfld int32 Box::a
    ldarg.1
    div
    stloc s
    leave.s OUT
  }
  catch [mscorlib]System.Exception
  {
    pop
    .try
    {
      ldarg.0
      ldfld int32 Box::a
      stloc s
      leave.s IN
    }
    finally
    {
      ldloc s
      ldc.i4.1
      add
      stloc s
      endfinally
    }
IN:
    leave.s OUT
  }
OUT:
  .try
  {
    ldloc s
    ldarg.1
    div
    stloc s
    leave.s END
  }
  filter
  {
    pop
    ldarg.1
    endfilter
  }
  {
    pop
    leave.s END
  }
END:
  ldloc s
  ret
}
`

// layout imports, optimizes and lays out method f of checkSrc.
func layout(t *testing.T) (*ir.Func, *funclet.Layout) {
	t.Helper()
	mod, err := il.Load("check.il", []byte(checkSrc))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mod.AllMethods() {
		if m.Abstract {
			continue // no body
		}
		if m.Name != "f" {
			continue
		}
		f, err := reader.Import(mod, m)
		if err != nil {
			t.Fatal(err)
		}
		if err := opt.Run(f); err != nil {
			t.Fatal(err)
		}
		lay, err := funclet.Build(f)
		if err != nil {
			t.Fatal(err)
		}
		return f, lay
	}
	t.Fatal("no method f")
	return nil, nil
}

// renumber makes f.Blocks the blocks of lay in order, as Build does.
func renumber(f *ir.Func, lay *funclet.Layout) {
	f.Blocks = f.Blocks[:0]
	for _, fn := range lay.Funcs {
		f.Blocks = append(f.Blocks, fn.Blocks...)
	}
	for i, b := range f.Blocks {
		b.ID = i
	}
}

// funcletOf returns the first funclet of kind k.
func funcletOf(t *testing.T, lay *funclet.Layout, k abi.FuncletKind) int {
	t.Helper()
	for i, fn := range lay.Funcs {
		if fn.Kind == k {
			return i
		}
	}
	t.Fatalf("no %s funclet", k)
	return -1
}

// TestCheckLayouts checks that Check accepts the layout Build makes and
// rejects it broken in each way the contract forbids.
func TestCheckLayouts(t *testing.T) {
	f, lay := layout(t)
	if err := funclet.Check(f, lay); err != nil {
		t.Fatalf("Build's layout rejected: %v", err)
	}
	if len(lay.Funcs) != 5 {
		t.Fatalf("%d funclets, want the main body, catch, finally, filter and filter handler", len(lay.Funcs))
	}
	tests := []struct {
		name   string
		break_ func(t *testing.T, f *ir.Func, lay *funclet.Layout)
		want   string
	}{
		{"no layout", func(t *testing.T, f *ir.Func, lay *funclet.Layout) { lay.Funcs = nil }, "no funclets"},
		{"main body not first", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			lay.Funcs[0], lay.Funcs[1] = lay.Funcs[1], lay.Funcs[0]
			renumber(f, lay)
		}, "funclet 0 is not the main body"},
		{"funclets swapped without renumbering", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			lay.Funcs[1], lay.Funcs[2] = lay.Funcs[2], lay.Funcs[1]
		}, "is not f.Blocks"},
		{"handler before its filter", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			k := funcletOf(t, lay, abi.FilterFunclet)
			lay.Funcs[k], lay.Funcs[k+1] = lay.Funcs[k+1], lay.Funcs[k]
			renumber(f, lay)
		}, "is not followed by its handler's"},
		{"filter last", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			k := funcletOf(t, lay, abi.FilterFunclet)
			fl := lay.Funcs[k]
			lay.Funcs = append(slices.Delete(lay.Funcs, k, k+1), fl)
			renumber(f, lay)
		}, "is not followed by its handler's"},
		{"try not contiguous", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			// Move the main body's last block (after the trys) between
			// the first try's first two blocks.
			main := lay.Funcs[0]
			i := slices.IndexFunc(main.Blocks, func(b *ir.Block) bool { return b.Region != nil })
			last := main.Blocks[len(main.Blocks)-1]
			if i < 0 || last.Region != nil {
				t.Fatal("no try in the main body, or code after it")
			}
			rest := slices.Insert(main.Blocks[:len(main.Blocks)-1], i+1, last)
			main.Blocks = rest
			renumber(f, lay)
		}, "is entered again at"},
		{"block in another funclet", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			c := lay.Funcs[funcletOf(t, lay, abi.CatchFunclet)]
			b := c.Blocks[len(c.Blocks)-1]
			c.Blocks = c.Blocks[:len(c.Blocks)-1]
			lay.Funcs[0].Blocks = append(lay.Funcs[0].Blocks, b)
			renumber(f, lay)
		}, "of the catch region"},
		{"main body block in a funclet", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			main := lay.Funcs[0]
			b := main.Blocks[len(main.Blocks)-1]
			main.Blocks = main.Blocks[:len(main.Blocks)-1]
			c := lay.Funcs[funcletOf(t, lay, abi.CatchFunclet)]
			c.Blocks = append(c.Blocks, b)
			renumber(f, lay)
		}, "of the main body, is in funclet"},
		{"block left out", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			last := lay.Funcs[len(lay.Funcs)-1]
			last.Blocks = last.Blocks[:len(last.Blocks)-1]
		}, "the funclets hold"},
		{"block twice", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			main := lay.Funcs[0]
			main.Blocks = append(main.Blocks, main.Blocks[1])
		}, "is not f.Blocks"},
		{"IDs not positions", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			f.Blocks[1].ID, f.Blocks[2].ID = 2, 1
		}, "b2 is at position 1"},
		{"wrong funclet kind", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			lay.Funcs[funcletOf(t, lay, abi.CatchFunclet)].Kind = abi.FaultFunclet
		}, "is a fault funclet of clause"},
		{"wrong clause", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			lay.Funcs[funcletOf(t, lay, abi.CatchFunclet)].Clause = 7
		}, "funclet of clause 7, its region"},
		{"not starting at the entry", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			c := lay.Funcs[funcletOf(t, lay, abi.CatchFunclet)]
			c.Blocks[0], c.Blocks[1] = c.Blocks[1], c.Blocks[0]
			renumber(f, lay)
		}, "not at the entry of its region"},
		{"handler without a funclet", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			k := funcletOf(t, lay, abi.FinallyFunclet)
			lay.Funcs = slices.Delete(lay.Funcs, k, k+1)
			renumber(f, lay)
		}, "finally region"},
		{"two funclets of one handler", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			k := funcletOf(t, lay, abi.FinallyFunclet)
			dup := *lay.Funcs[k]
			lay.Funcs = slices.Insert(lay.Funcs, k+1, &dup)
		}, "are both the code of region"},
		{"funclet without blocks", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			lay.Funcs = append(lay.Funcs, &funclet.Funclet{Kind: abi.FaultFunclet})
		}, "has no blocks"},
		{"funclet of a try", func(t *testing.T, f *ir.Func, lay *funclet.Layout) {
			fn := lay.Funcs[funcletOf(t, lay, abi.CatchFunclet)]
			i := slices.IndexFunc(fn.Blocks, func(b *ir.Block) bool { return b.Region.Kind == ir.RegionTry })
			if i < 0 {
				t.Fatal("no try in the catch")
			}
			fn.Region = fn.Blocks[i].Region
		}, "is not the code of a handler or filter region"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, lay := layout(t)
			tt.break_(t, f, lay)
			err := funclet.Check(f, lay)
			if err == nil {
				var b strings.Builder
				funclet.Fprint(&b, f, lay)
				t.Fatalf("broken layout accepted:\n%s", b.String())
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "f: layout: ") {
				t.Errorf("got %q, want it to contain %q", err, tt.want)
			}
		})
	}
}
