package ehclauses_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"miniil/abi"
	"miniil/amd64"
	"miniil/ehclauses"
	"miniil/funclet"
	"miniil/il"
	"miniil/ir"
	"miniil/opt"
	"miniil/reader"
)

// stubEnv gives the code generator fixed addresses; nothing runs.
type stubEnv struct{}

func (stubEnv) CellAddr(*il.Method) uintptr  { return 0x10000 }
func (stubEnv) ClassMT(*il.Class) uintptr    { return 0x20000 }
func (stubEnv) TypeMT(*il.Type) uintptr      { return 0x30000 }
func (stubEnv) StaticAddr(*il.Field) uintptr { return 0x40000 }
func (stubEnv) StringAddr(string) uintptr    { return 0x50000 }
func (stubEnv) BuiltinID(*il.Method) uint64  { return 1 }

// method is a compiled method and its clause table.
type method struct {
	m     *il.Method
	f     *ir.Func
	code  *amd64.Code
	table *ehclauses.Table
}

// compile loads body (methods without the assembly headers; a main is
// added) and compiles method f as the JIT does, then builds and
// validates its clause table.
func compile(t *testing.T, body string) *method {
	t.Helper()
	src := ".assembly extern mscorlib {}\n.assembly t {}\n" +
		".method public static void say(string s) cil managed\n{\n  ldarg.0\n  call void [mscorlib]System.Console::WriteLine(string)\n  ret\n}\n" +
		".method public static void main() cil managed\n{\n  .entrypoint\n  ret\n}\n" + body
	mod, err := il.Load("test.il", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var m *il.Method
	for _, x := range mod.AllMethods() {
		if x.Abstract {
			continue // no body
		}
		if x.Name == "f" {
			m = x
		}
	}
	if m == nil {
		t.Fatal("no method f")
	}
	f, err := reader.Import(mod, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := opt.Run(f); err != nil {
		t.Fatal(err)
	}
	code, err := amd64.Generate(f, stubEnv{}, amd64.NewAssembler())
	if err != nil {
		t.Fatal(err)
	}
	if err := ehclauses.Build(m, f, code); err != nil {
		t.Fatal(err)
	}
	table := ehclauses.Of(&code.Method)
	c := &method{m, f, code, table}
	if err := ehclauses.Validate(m, f, code, table); err != nil {
		t.Fatalf("%v\n%s", err, c)
	}
	return c
}

func (c *method) String() string {
	var b strings.Builder
	ehclauses.Fprint(&b, c.m, c.table)
	funclet.Fprint(&b, c.f, c.code.Layout)
	for k, fn := range c.code.Funclets {
		fmt.Fprintf(&b, "  funclet #%d %s of clause %d [%04x, %04x)\n", k, fn.Kind, fn.Clause, fn.Start, fn.End)
	}
	return b.String()
}

// ilOrder returns the IL clause of each table entry, in table order.
func (c *method) ilOrder() []int {
	var out []int
	for _, cl := range c.table.Clauses {
		out = append(out, cl.ILClause)
	}
	return out
}

// clause returns the table index of IL clause ci, failing if it has none.
func (c *method) clause(t *testing.T, ci int) int {
	t.Helper()
	for i, cl := range c.table.Clauses {
		if cl.ILClause == ci {
			return i
		}
	}
	t.Fatalf("IL clause %d has no native clause\n%s", ci, c)
	return -1
}

// il returns the IL clause of table entry i (-1 for none).
func (c *method) il(i int) int {
	if i < 0 {
		return -1
	}
	return c.table.Clauses[i].ILClause
}

// next returns the IL clause the chain goes to after IL clause ci (-1:
// the chain ends).
func (c *method) next(t *testing.T, ci int) int {
	t.Helper()
	return c.il(c.table.Clauses[c.clause(t, ci)].Next)
}

// funclet returns the index of the funclet of kind k for IL clause ci.
func (c *method) funclet(t *testing.T, k abi.FuncletKind, ci int) int {
	t.Helper()
	for i, fn := range c.code.Funclets {
		if fn.Kind == k && fn.Clause == ci {
			return i
		}
	}
	t.Fatalf("no %s funclet for IL clause %d\n%s", k, ci, c)
	return -1
}

// enclosing returns the IL clause first offered an exception leaving
// funclet k (-1: none).
func (c *method) enclosing(k int) int { return c.il(c.table.Funclets[k].Enclosing) }

// chain returns the IL clauses offered an exception at native offset off.
func (c *method) chain(off int) []int {
	var out []int
	c.table.Chain(off, func(i int) bool {
		out = append(out, c.table.Clauses[i].ILClause)
		return true
	})
	return out
}

// tryStart returns the native start of IL clause ci's try range.
func (c *method) tryStart(t *testing.T, ci int) int {
	t.Helper()
	return c.table.Clauses[c.clause(t, ci)].TryStart
}

// funcletStart returns the native start of funclet k.
func (c *method) funcletStart(k int) int { return c.code.Funclets[k].Start }

// expect compares got with want, naming what it is.
func expect[T comparable](t *testing.T, c *method, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %v, want %v\n%s", what, got, want, c)
	}
}

func expectSlice(t *testing.T, c *method, what string, got, want []int) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %v, want %v\n%s", what, got, want, c)
	}
}

// TestClauseOrder checks the table order: inner before outer, then by
// address, which for a try inside a handler (laid out after the main
// body) is not the IL order.
func TestClauseOrder(t *testing.T) {
	c := compile(t, `
.method public static void f() cil managed
{
  .try
  {
    .try
    {
      call void main()
      leave.s A
    }
    catch [mscorlib]System.Exception
    {
      pop
      .try
      {
        call void main()
        leave.s B
      }
      catch [mscorlib]System.Exception
      {
        pop
        leave.s B
      }
B:
      leave.s A
    }
A:
    leave.s OUT
  }
  finally
  {
    endfinally
  }
OUT:
  .try
  {
    call void main()
    leave.s END
  }
  catch [mscorlib]System.Exception
  {
    pop
    leave.s END
  }
END:
  ret
}`)
	// IL order (inner first): 0 the try in the catch, 1 the try/catch
	// around it, 2 the try/finally, 3 the last try. Native order: the
	// main body's trys by address, inner first (1, 2, 3), then the try in
	// the catch funclet (0).
	expectSlice(t, c, "IL clauses in table order", c.ilOrder(), []int{1, 2, 3, 0})
	for i := 1; i < len(c.table.Clauses); i++ {
		a, b := c.table.Clauses[i-1], c.table.Clauses[i]
		inner := b.TryStart <= a.TryStart && a.TryEnd <= b.TryEnd
		if !inner && a.TryEnd > b.TryStart {
			t.Errorf("clause %d [%04x, %04x) is neither inside clause %d [%04x, %04x) nor before it\n%s", i-1, a.TryStart, a.TryEnd, i, b.TryStart, b.TryEnd, c)
		}
	}
}

// TestTryRangesInOneFunclet checks that every try range lies in the
// funclet that holds its code, a try in a handler in that handler's
// funclet.
func TestTryRangesInOneFunclet(t *testing.T) {
	c := compile(t, `
.method public static void f() cil managed
{
  .try
  {
    call void main()
    leave.s OUT
  }
  finally
  {
    .try
    {
      call void main()
      leave.s F
    }
    catch [mscorlib]System.Exception
    {
      pop
      .try
      {
        call void main()
        leave.s C
      }
      fault
      {
        endfault
      }
C:
      leave.s F
    }
F:
    endfinally
  }
OUT:
  ret
}`)
	// IL: 0 the try/fault in the catch, 1 the try/catch in the finally, 2
	// the try/finally.
	want := map[int]int{
		0: c.funclet(t, abi.CatchFunclet, 1),
		1: c.funclet(t, abi.FinallyFunclet, 2),
		2: 0,
	}
	for ci, k := range want {
		cl := c.table.Clauses[c.clause(t, ci)]
		fn := c.code.Funclets[k]
		if cl.TryStart < fn.Start || cl.TryEnd > fn.End || cl.TryFunclet != k {
			t.Errorf("IL clause %d: try [%04x, %04x) in funclet %d, want inside funclet %d [%04x, %04x)\n%s",
				ci, cl.TryStart, cl.TryEnd, cl.TryFunclet, k, fn.Start, fn.End, c)
		}
	}
}

// mutual is a try with three handlers (catch, filter, catch) inside a
// try/finally: IL clauses 0-2 share a try, 3 is the finally.
const mutual = `
.method public static int32 f(int32 k) cil managed
{
  .locals init (int32 r)
  .try
  {
    .try
    {
      ldc.i4.1
      ldarg.0
      div
      stloc r
      leave.s OUT
    }
    catch [mscorlib]System.DivideByZeroException
    {
      pop
      leave.s OUT
    }
    filter
    {
      pop
      ldarg.0
      endfilter
    }
    {
      pop
      leave.s OUT
    }
    catch [mscorlib]System.Exception
    {
      pop
      leave.s OUT
    }
  }
  finally
  {
    endfinally
  }
OUT:
  ldloc r
  ret
}`

// TestMutualProtect checks the clauses of one try with several handlers:
// the same try range, in IL order, each chained to the next, the last to
// the enclosing try; and every handler's exceptions go to the enclosing
// try, not to the other handlers of its own try.
func TestMutualProtect(t *testing.T) {
	c := compile(t, mutual)
	expectSlice(t, c, "IL clauses in table order", c.ilOrder(), []int{0, 1, 2, 3})
	first := c.table.Clauses[c.clause(t, 0)]
	for ci := 1; ci <= 2; ci++ {
		cl := c.table.Clauses[c.clause(t, ci)]
		if cl.TryStart != first.TryStart || cl.TryEnd != first.TryEnd {
			t.Errorf("IL clause %d: try [%04x, %04x), want the shared try [%04x, %04x)", ci, cl.TryStart, cl.TryEnd, first.TryStart, first.TryEnd)
		}
	}
	for ci, want := range []int{1, 2, 3, -1} {
		expect(t, c, fmt.Sprintf("next after IL clause %d", ci), c.next(t, ci), want)
	}
	expectSlice(t, c, "chain in the shared try", c.chain(c.tryStart(t, 0)), []int{0, 1, 2, 3})
	for _, h := range []struct {
		kind   abi.FuncletKind
		clause int
	}{{abi.CatchFunclet, 0}, {abi.FilterHandlerFunclet, 1}, {abi.CatchFunclet, 2}} {
		k := c.funclet(t, h.kind, h.clause)
		expect(t, c, fmt.Sprintf("enclosing clause of the %s of IL clause %d", h.kind, h.clause), c.enclosing(k), 3)
		expectSlice(t, c, fmt.Sprintf("chain in the %s of IL clause %d", h.kind, h.clause), c.chain(c.funcletStart(k)), []int{3})
	}
	expect(t, c, "enclosing clause of the filter", c.enclosing(c.funclet(t, abi.FilterFunclet, 1)), -1)
}

// TestNestedTryInHandler checks the chains around a try/catch inside a
// catch, itself inside a try/finally: the inner try goes on to the
// finally (through the catch, skipping the catch's own try), and so does
// the catch funclet; the CLR's table gets duplicates of the finally for
// the catch funclet and of both inner clauses for nothing else.
func TestNestedTryInHandler(t *testing.T) {
	c := compile(t, `
.method public static void f() cil managed
{
  .try
  {
    .try
    {
      call void main()
      leave.s OUT
    }
    catch [mscorlib]System.Exception
    {
      pop
      .try
      {
        call void main()
        leave.s C
      }
      catch [mscorlib]System.InvalidOperationException
      {
        pop
        leave.s C
      }
C:
      leave.s OUT
    }
  }
  finally
  {
    endfinally
  }
OUT:
  ret
}`)
	// IL: 0 the try/catch in the catch, 1 the try/catch, 2 the finally.
	expect(t, c, "next after the inner try's clause", c.next(t, 0), 2)
	expect(t, c, "next after the outer catch's clause", c.next(t, 1), 2)
	expect(t, c, "next after the finally's clause", c.next(t, 2), -1)
	outerCatch := c.funclet(t, abi.CatchFunclet, 1)
	expect(t, c, "enclosing clause of the outer catch", c.enclosing(outerCatch), 2)
	expect(t, c, "enclosing clause of the inner catch", c.enclosing(c.funclet(t, abi.CatchFunclet, 0)), 2)
	expect(t, c, "enclosing clause of the finally", c.enclosing(c.funclet(t, abi.FinallyFunclet, 2)), -1)
	expectSlice(t, c, "chain in the inner try", c.chain(c.tryStart(t, 0)), []int{0, 2})
	expectSlice(t, c, "chain in the outer catch, outside the inner try", c.chain(c.funcletStart(outerCatch)), []int{2})
	expectSlice(t, c, "chain in the outer try", c.chain(c.tryStart(t, 1)), []int{1, 2})

	var dups []int
	for _, d := range c.table.Expand() {
		if d.Duplicate {
			dups = append(dups, d.ILClause)
			fn := c.code.Funclets[abi.FuncletAt(c.table.Funclets, d.TryStart)]
			if d.TryStart != fn.Start || d.TryEnd != fn.End {
				t.Errorf("duplicate of IL clause %d: try [%04x, %04x), want a whole funclet\n%s", d.ILClause, d.TryStart, d.TryEnd, c)
			}
		}
	}
	slices.Sort(dups)
	// The finally (2) for each catch funclet.
	expectSlice(t, c, "IL clauses duplicated", dups, []int{2, 2})
}

// TestFilterChains checks that no chain leaves a filter: a try inside a
// filter chains to nothing, the filter funclet has no enclosing clause,
// while the filter's handler and the filter's try go on to the enclosing
// try.
func TestFilterChains(t *testing.T) {
	c := compile(t, `
.method public static void f(int32 d) cil managed
{
  .try
  {
    .try
    {
      call void main()
      leave.s OUT
    }
    filter
    {
      pop
      .try
      {
        ldc.i4.1
        ldarg.0
        div
        pop
        leave.s F
      }
      catch [mscorlib]System.DivideByZeroException
      {
        pop
        leave.s F
      }
F:
      ldc.i4.1
      endfilter
    }
    {
      pop
      leave.s OUT
    }
  }
  catch [mscorlib]System.Exception
  {
    pop
    leave.s OUT
  }
OUT:
  ret
}`)
	// IL: 0 the try/catch in the filter, 1 the filter, 2 the outer catch.
	expect(t, c, "next after the try in the filter", c.next(t, 0), -1)
	expect(t, c, "next after the filter's clause", c.next(t, 1), 2)
	filter := c.funclet(t, abi.FilterFunclet, 1)
	expect(t, c, "enclosing clause of the filter", c.enclosing(filter), -1)
	expect(t, c, "enclosing clause of the filter's handler", c.enclosing(c.funclet(t, abi.FilterHandlerFunclet, 1)), 2)
	expect(t, c, "enclosing clause of the catch in the filter", c.enclosing(c.funclet(t, abi.CatchFunclet, 0)), -1)
	expectSlice(t, c, "chain in the try in the filter", c.chain(c.tryStart(t, 0)), []int{0})
	expectSlice(t, c, "chain in the filter outside its try", c.chain(c.funcletStart(filter)), nil)
	fc := c.table.Clauses[c.clause(t, 1)]
	expect(t, c, "filter start of the filter clause", fc.FilterStart, c.funcletStart(filter))
}

// TestEmptyTryHasNoClause checks that a try whose body emits no code (a
// leave that falls into the step calling its finally) gets no clause,
// while its finally is still a funclet, enclosed by the trys around it.
func TestEmptyTryHasNoClause(t *testing.T) {
	c := compile(t, `
.method public static void f() cil managed
{
  .try
  {
    leave.s NEXT
  }
  finally
  {
    ldstr "finally"
    call void say(string)
    endfinally
  }
NEXT:
  .try
  {
    .try
    {
      leave.s IN
    }
    finally
    {
      call void main()
      endfinally
    }
IN:
    call void main()
    leave.s OUT
  }
  catch [mscorlib]System.Exception
  {
    pop
    leave.s OUT
  }
OUT:
  ret
}`)
	// IL: 0 the first try/finally, 1 the inner try/finally, 2 the
	// try/catch around it.
	expectSlice(t, c, "IL clauses in table order", c.ilOrder(), []int{2})
	expect(t, c, "enclosing clause of the first finally", c.enclosing(c.funclet(t, abi.FinallyFunclet, 0)), -1)
	expect(t, c, "enclosing clause of the inner finally", c.enclosing(c.funclet(t, abi.FinallyFunclet, 1)), 2)
}

// TestValidateRejectsTargeted breaks small tables in ways the corpus
// mutations (tests/ehclauses_test.go) do not reach: the order of the
// clauses of one try, chains between handlers of one try, chains out of
// filters, and the filter's place.
func TestValidateRejectsTargeted(t *testing.T) {
	filtered := `
.method public static void f(int32 d) cil managed
{
  .try
  {
    .try
    {
      call void main()
      leave.s OUT
    }
    filter
    {
      pop
      .try
      {
        call void main()
        leave.s F
      }
      catch [mscorlib]System.Exception
      {
        pop
        leave.s F
      }
F:
      ldc.i4.1
      endfilter
    }
    {
      pop
      leave.s OUT
    }
  }
  catch [mscorlib]System.Exception
  {
    pop
    leave.s OUT
  }
OUT:
  ret
}`
	type table = ehclauses.Table
	tests := []struct {
		name   string
		src    string
		mutate func(t *testing.T, c *method, tb *table)
		want   string // in the validator's complaint
	}{
		{"clauses of one try out of IL order", mutual, func(t *testing.T, c *method, tb *table) {
			i, j := c.clause(t, 0), c.clause(t, 1)
			tb.Clauses[i], tb.Clauses[j] = tb.Clauses[j], tb.Clauses[i]
			// Keep the chains pointing at the same clauses.
			for k := range tb.Clauses {
				switch tb.Clauses[k].Next {
				case i:
					tb.Clauses[k].Next = j
				case j:
					tb.Clauses[k].Next = i
				}
			}
		}, "out of order"},
		{"a handler of a shared try skipped", mutual, func(t *testing.T, c *method, tb *table) {
			tb.Clauses[c.clause(t, 0)].Next = c.clause(t, 2)
		}, "next clause is"},
		{"a shared try's last handler chained to its first", mutual, func(t *testing.T, c *method, tb *table) {
			tb.Clauses[c.clause(t, 2)].Next = c.clause(t, 0)
		}, "next clause is"},
		{"a handler chained to its own try", mutual, func(t *testing.T, c *method, tb *table) {
			tb.Funclets[c.funclet(t, abi.CatchFunclet, 0)].Enclosing = c.clause(t, 1)
		}, "enclosing clause is"},
		{"a chain out of a filter", filtered, func(t *testing.T, c *method, tb *table) {
			tb.Clauses[c.clause(t, 0)].Next = c.clause(t, 2)
		}, "next clause is"},
		{"a filter funclet with an enclosing clause", filtered, func(t *testing.T, c *method, tb *table) {
			tb.Funclets[c.funclet(t, abi.FilterFunclet, 1)].Enclosing = c.clause(t, 2)
		}, "enclosing clause is"},
		{"a filter's handler without its enclosing clause", filtered, func(t *testing.T, c *method, tb *table) {
			tb.Funclets[c.funclet(t, abi.FilterHandlerFunclet, 1)].Enclosing = -1
		}, "enclosing clause is"},
		{"the filter start not the filter funclet", filtered, func(t *testing.T, c *method, tb *table) {
			tb.Clauses[c.clause(t, 1)].FilterStart = tb.Clauses[c.clause(t, 1)].HandlerStart
		}, "filter funclet does not immediately precede"},
		{"a try in a filter said to lie in the main body", filtered, func(t *testing.T, c *method, tb *table) {
			tb.Clauses[c.clause(t, 0)].TryFunclet = 0
		}, "its try lies in funclet"},
		{"one IL clause twice", filtered, func(t *testing.T, c *method, tb *table) {
			tb.Clauses[c.clause(t, 0)].ILClause = 2
		}, "repeated IL clause"},
		{"a funclet missing from the table", filtered, func(t *testing.T, c *method, tb *table) {
			tb.Funclets = tb.Funclets[:len(tb.Funclets)-1]
		}, "funclets in the table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compile(t, tt.src)
			bad := &table{Clauses: slices.Clone(c.table.Clauses), Funclets: slices.Clone(c.table.Funclets)}
			tt.mutate(t, c, bad)
			err := ehclauses.Validate(c.m, c.f, c.code, bad)
			switch {
			case err == nil:
				t.Errorf("the validator accepted the broken table\n%s", c)
			case !strings.Contains(err.Error(), tt.want):
				t.Errorf("the validator rejected the broken table, but not for the broken rule (%q): %v", tt.want, err)
			}
		})
	}
}
