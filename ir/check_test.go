package ir_test

import (
	"slices"
	"strings"
	"testing"

	"miniil/il"
	"miniil/ir"
	"miniil/opt"
	"miniil/reader"
)

// checkSrc has a method f with a bit of everything ir.Check looks at:
// arithmetic, checked arithmetic, fields, statics, boxing, calls, a
// switch, a try/finally left from inside an outer try, catches (one
// nested in another, with a leave and a rethrow), a filter and a fault.
const checkSrc = `
.assembly extern mscorlib {}
.assembly t {}
.class public Box extends [mscorlib]System.Object
{
  .field public int32 a
  .field public static int32 s
  .method public specialname rtspecialname instance void .ctor() cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ret
  }
  .method public virtual instance int32 Get() cil managed
  {
    ldarg.0
    ldfld int32 Box::a
    ret
  }
  .method public instance int32 Plain() cil managed
  {
    ldc.i4.1
    ret
  }
}
.method public static void main() cil managed
{
  .entrypoint
  ret
}
.method public static int32 f(int32 x, class Box b) cil managed
{
  .maxstack 4
  .locals init (int32 r, object o)
  ldarg.1
  ldfld int32 Box::a
  ldarg.0
  add.ovf
  stloc r
  ldsfld int32 Box::s
  ldloc r
  mul
  stloc r
  ldarg.0
  box [mscorlib]System.Int32
  stloc o
  ldloc o
  unbox.any [mscorlib]System.Int32
  pop
  ldarg.0
  conv.i8
  pop
  ldarg.0
  switch (L1, L2)
L1:
  ldarg.1
  callvirt instance int32 Box::Get()
  stloc r
L2:
  .try
  {
    .try
    {
      ldloc r
      ldc.i4.0
      ble.s SKIP
      ldstr "x"
      newobj instance void [mscorlib]System.Exception::.ctor(string)
      throw
SKIP:
      leave.s IN
    }
    finally
    {
      ldloc r
      ldc.i4.1
      add
      stloc r
      endfinally
    }
IN:
    leave.s OUT
  }
  catch [mscorlib]System.InvalidOperationException
  {
    pop
    .try
    {
      ldarg.1
      ldfld int32 Box::a
      pop
      leave.s C1
    }
    catch [mscorlib]System.Exception
    {
      pop
      ldarg.0
      brfalse.s RT
      leave.s C1
RT:
      rethrow
    }
C1:
    leave.s OUT
  }
  catch [mscorlib]System.Exception
  {
    pop
    leave.s OUT
  }
OUT:
  .try
  {
    ldarg.1
    callvirt instance int32 Box::Get()
    stloc r
    leave.s OUT2
  }
  filter
  {
    pop
    ldc.i4.1
    endfilter
  }
  {
    pop
    leave.s OUT2
  }
OUT2:
  .try
  {
    ldloc r
    call void [mscorlib]System.Console::WriteLine(int32)
    leave.s END
  }
  fault
  {
    ldloc o
    call void [mscorlib]System.Console::WriteLine(object)
    endfault
  }
END:
  ldloc r
  ret
}
.method public static void g() cil managed
{
  .try
  {
    leave.s A
  }
  filter
  {
    pop
    ldc.i4.1
    endfilter
  }
  {
    pop
    leave.s A
  }
A:
  .try
  {
    leave.s B
  }
  fault
  {
    endfault
  }
B:
  ret
}
`

// importF loads checkSrc and imports method name, optimized as the JIT
// does (the tests mutate the result).
func importF(t *testing.T, name string) (*il.Module, *ir.Func) {
	t.Helper()
	mod, err := il.Load("check.il", []byte(checkSrc))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mod.AllMethods() {
		if m.Abstract {
			continue // no body
		}
		if m.Name == name {
			f, err := reader.Import(mod, m)
			if err != nil {
				t.Fatal(err)
			}
			if err := opt.Run(f); err != nil {
				t.Fatal(err)
			}
			return mod, f
		}
	}
	t.Fatal("no method " + name)
	return nil, nil
}

// fx finds the parts of a function that the mutations below change,
// failing the test when one is missing (the test would check nothing).
type fx struct {
	t   *testing.T
	mod *il.Module
	f   *ir.Func
}

// block returns the first block that ok accepts.
func (x fx) block(what string, ok func(b *ir.Block) bool) *ir.Block {
	x.t.Helper()
	for _, b := range x.f.Blocks {
		if ok(b) {
			return b
		}
	}
	x.t.Fatalf("no block %s in\n%s", what, x.f)
	return nil
}

// term returns the first block ending in op.
func (x fx) term(op ir.Op) *ir.Block {
	x.t.Helper()
	return x.block("ending in "+op.String(), func(b *ir.Block) bool { return b.Term.Op == op })
}

// instr returns the first instruction op and its block.
func (x fx) instr(op ir.Op) (*ir.Block, *ir.Instr) {
	x.t.Helper()
	for _, b := range x.f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == op {
				return b, in
			}
		}
	}
	x.t.Fatalf("no %s in\n%s", op, x.f)
	return nil, nil
}

// region returns the n-th region of kind k.
func (x fx) region(k ir.RegionKind, n int) *ir.Region {
	x.t.Helper()
	for _, r := range x.f.Regions {
		if r.Kind == k {
			if n == 0 {
				return r
			}
			n--
		}
	}
	x.t.Fatalf("no %s region %d", k, n)
	return nil
}

// try returns the try region of the finally clause that a callfinally
// calls.
func (x fx) try() *ir.Region {
	x.t.Helper()
	cl := int(x.term(ir.OpCallFinally).Term.Aux.Int)
	for _, r := range x.f.Regions {
		if r.Kind == ir.RegionTry && r.Clause == cl {
			return r
		}
	}
	x.t.Fatalf("no try region of clause %d", cl)
	return nil
}

// in returns the first block whose region is r.
func (x fx) in(r *ir.Region) *ir.Block {
	x.t.Helper()
	return x.block("in region "+r.Kind.String(), func(b *ir.Block) bool { return b.Region == r && b != r.Entry })
}

// value returns a temporary of kind k.
func (x fx) value(k ir.Kind) ir.Value {
	x.t.Helper()
	for v := x.f.NumArgs + x.f.NumLocals; v < len(x.f.Kinds); v++ {
		if x.f.Kinds[v] == k {
			return ir.Value(v)
		}
	}
	x.t.Fatalf("no value of kind %s", k)
	return ir.NoValue
}

// removeRegion removes region r (which contains no other region) from
// f.Regions, renumbering and indexing the others. The blocks of r keep it.
func (x fx) removeRegion(r *ir.Region) {
	x.t.Helper()
	x.f.Regions = slices.Delete(x.f.Regions, r.ID, r.ID+1)
	for i, r := range x.f.Regions {
		r.ID = i
	}
	if err := x.f.IndexRegions(); err != nil {
		x.t.Fatal(err)
	}
}

// retarget makes successor i of b go to s and fixes the predecessors.
func (x fx) retarget(b *ir.Block, i int, s *ir.Block) {
	old := b.Succs[i]
	if k := slices.Index(old.Preds, b); k >= 0 {
		old.Preds = slices.Delete(old.Preds, k, k+1)
	}
	b.Succs[i] = s
	s.Preds = append(s.Preds, b)
}

// terminate replaces b's terminator (and successors).
func (x fx) terminate(b *ir.Block, op ir.Op, args []ir.Value, succs ...*ir.Block) {
	for _, s := range b.Succs {
		if k := slices.Index(s.Preds, b); k >= 0 {
			s.Preds = slices.Delete(s.Preds, k, k+1)
		}
	}
	b.Term = &ir.Instr{Op: op, Dst: ir.NoValue, Dst2: ir.NoValue, Args: args, ILOffset: -1}
	b.Succs = succs
	for _, s := range succs {
		s.Preds = append(s.Preds, b)
	}
}

// checkCases are the ways to break f's IR, each with (part of) the error
// ir.Check must report.
var checkCases = []struct {
	name   string
	break_ func(x fx)
	want   string
}{
	// The function.
	{"no method", func(x fx) { x.f.Method = nil }, "function without a method"},
	{"no blocks", func(x fx) { x.f.Blocks = nil }, "f: no blocks"},
	{"argument count", func(x fx) { x.f.NumArgs = 1 }, "1 arguments and 2 locals among"},
	{"method without a return type", func(x fx) { x.f.Method.Ret = nil }, "method f has no return type"},
	{"instance method without a class", func(x fx) { x.f.Method.Static = false }, "instance method f has no class"},
	{"parameter without a type", func(x fx) { x.f.Method.Params[0].Type = nil }, "parameter 0 of f has no type"},
	{"local without a type", func(x fx) { x.f.Method.Locals[1] = &il.Local{} }, "local 1 of f has no type"},
	{"callee without a return type", func(x fx) {
		_, in := x.instr(ir.OpCallVirt)
		m := *in.Aux.Method()
		m.Ret = nil
		in.Aux.Ref = &m
	}, "method Box::Get has no return type"},
	{"malformed field", func(x fx) {
		_, in := x.instr(ir.OpLdField)
		fl := *in.Aux.Field()
		fl.Type = nil
		in.Aux.Ref = &fl
	}, "f: malformed IR: "},
	{"nil block", func(x fx) { x.f.Blocks[3] = nil }, "block 3 is nil"},
	{"nil instruction", func(x fx) { x.f.Blocks[0].Instrs = append(x.f.Blocks[0].Instrs, nil) }, "instruction 0 is nil"},
	{"nil region", func(x fx) { x.f.Regions[2] = nil }, "region 2 is nil"},

	// Blocks and edges.
	{"block ID", func(x fx) { x.f.Blocks[2].ID = 7 }, "block ID 7 at index 2"},
	{"no terminator", func(x fx) { x.term(ir.OpRet).Term = nil }, "does not end with a terminator"},
	{"terminator inside", func(x fx) {
		b := x.term(ir.OpJump)
		b.Instrs = append(b.Instrs, b.Term)
	}, "jump in the middle of the block"},
	{"not a terminator", func(x fx) {
		b, in := x.instr(ir.OpAdd)
		b.Term = in
	}, "ends with add, not a terminator"},
	{"successor count", func(x fx) {
		b := x.term(ir.OpIf)
		x.retarget(b, 1, b.Succs[0])
		b.Succs[1].Preds = slices.DeleteFunc(b.Succs[1].Preds, func(p *ir.Block) bool { return p == b })
		b.Succs = b.Succs[:1]
	}, "if has 1 successors, want 2"},
	{"switch without default", func(x fx) { x.terminate(x.term(ir.OpSwitch), ir.OpSwitch, []ir.Value{0}) }, "switch without a default successor"},
	{"foreign successor", func(x fx) { x.term(ir.OpJump).Succs[0] = &ir.Block{ID: 1} }, "successor 0 is not a block of the function"},
	{"dropped predecessor", func(x fx) {
		s := x.term(ir.OpIf).Succs[0]
		s.Preds = s.Preds[:len(s.Preds)-1]
	}, "does not list b"},
	{"extra predecessor", func(x fx) {
		s := x.term(ir.OpIf).Succs[0]
		s.Preds = append(s.Preds, x.f.Blocks[len(x.f.Blocks)-1])
	}, "as a predecessor once more than"},
	{"foreign predecessor", func(x fx) {
		s := x.term(ir.OpIf).Succs[0]
		s.Preds = append(s.Preds, &ir.Block{ID: 3})
	}, "a predecessor is not a block of the function"},

	// Values and the opcode table.
	{"undefined register", func(x fx) { _, in := x.instr(ir.OpAdd); in.Args[1] = 9999 }, "not a value of the function"},
	{"argument kind", func(x fx) { x.f.Kinds[0] = ir.I64 }, "v0 has kind i64, want i32"},
	{"operand count", func(x fx) { _, in := x.instr(ir.OpMul); in.Args = in.Args[:1] }, "mul with 1 operands, want 2"},
	{"operand kind", func(x fx) { _, in := x.instr(ir.OpMul); in.Args[1] = 1 }, "mul: operand 1 v1 is ref, want i32"},
	{"missing operand", func(x fx) { _, in := x.instr(ir.OpMul); in.Args[0] = ir.NoValue }, "operand 0 is missing"},
	{"operation kind", func(x fx) { _, in := x.instr(ir.OpMul); in.Kind = ir.Ref }, "the kind of mul is ref, want i32|i64|f32|f64"},
	{"operation without a kind", func(x fx) { _, in := x.instr(ir.OpMul); in.Kind = 0 }, "the kind of mul is none, want i32|i64|f32|f64"},
	{"call of another kind than its result", func(x fx) { _, in := x.instr(ir.OpCallVirt); in.Kind = ir.F64 }, "the kind of callvirt is f64, not that of its result"},
	{"terminator with a kind", func(x fx) { x.term(ir.OpJump).Term.Kind = ir.I32 }, "the kind of jump is i32, want none"},
	{"no result", func(x fx) { _, in := x.instr(ir.OpMul); in.Dst = ir.NoValue }, "mul has no result"},
	{"result kind", func(x fx) { _, in := x.instr(ir.OpCmp); in.Dst = 1 }, "cmp: result v1 is ref, want i32"},
	{"store with a result", func(x fx) {
		_, in := x.instr(ir.OpCopy)
		in.Op, in.Aux.Ref = ir.OpStStatic, x.mod.Class("Box").Fields[1]
	}, "ststatic has a result"},
	{"missing aux", func(x fx) { _, in := x.instr(ir.OpLdField); in.Aux.Ref = nil }, "ldfield without Aux.Field"},
	{"extra aux", func(x fx) { _, in := x.instr(ir.OpMul); in.Aux.Ref = x.mod.Class("Box") }, "mul with Aux.Class set"},
	{"two extra aux fields", func(x fx) {
		_, in := x.instr(ir.OpMul)
		in.Aux.Type, in.Aux.Ref = il.Object, x.mod.Class("Box")
	}, "mul with Aux.Type, Aux.Class set"},
	{"reference operand of no known type", func(x fx) { _, in := x.instr(ir.OpLdField); in.Aux.Ref = 42 }, "ldfield without Aux.Field"},
	{"reference operand of no known type where none belongs", func(x fx) { _, in := x.instr(ir.OpMul); in.Aux.Ref = "s" }, "mul with Aux.Ref (not a *string, field, method or class) set"},
	{"unsigned add", func(x fx) { _, in := x.instr(ir.OpMul); in.Aux.Unsigned = true }, "mul with Aux.Unsigned set"},
	{"no overflow flag", func(x fx) { _, in := x.instr(ir.OpAddOvf); in.Dst2 = ir.NoValue }, "add.ovf has no overflow flag"},
	{"second result", func(x fx) { _, in := x.instr(ir.OpMul); in.Dst2 = in.Dst }, "mul has a second result"},
	{"overflow flag kind", func(x fx) { _, in := x.instr(ir.OpAddOvf); in.Dst2 = 1 }, "overflow flag v1 is ref"},
	{"field kind", func(x fx) { _, in := x.instr(ir.OpLdField); in.Kind = ir.I64 }, "the kind of ldfield is i64, want i32 (Aux.Field)"},
	{"static as instance field", func(x fx) { _, in := x.instr(ir.OpLdField); in.Aux.Ref = x.mod.Class("Box").Fields[1] }, "Box::s is a static field"},
	{"instance as static field", func(x fx) { _, in := x.instr(ir.OpLdStatic); in.Aux.Ref = x.mod.Class("Box").Fields[0] }, "Box::a is an instance field"},
	{"box of a reference type", func(x fx) { _, in := x.instr(ir.OpBox); in.Aux.Type = il.Object }, "box: operand 0 v0 is i32, want ref"},
	{"typeis of a reference type", func(x fx) { _, in := x.instr(ir.OpTypeIs); in.Aux.Type = il.Object }, "object is neither a value type nor an array type"},
	{"box of an object", func(x fx) {
		_, in := x.instr(ir.OpBox)
		in.Aux.Type, in.Args[0] = il.Object, 1
	}, "object is not a value type"},
	{"conversion to a reference", func(x fx) {
		_, in := x.instr(ir.OpConv)
		in.Aux.Type, in.Kind = il.Object, ir.Ref
	}, "the kind of conv is ref, as Aux.Type says, want i32|i64|f32|f64"},
	{"invalid operation", func(x fx) { _, in := x.instr(ir.OpMul); in.Op = ir.OpInvalid }, "invalid operation 0"},
	{"unknown operation", func(x fx) { _, in := x.instr(ir.OpMul); in.Op = 200 }, "op? in the middle of the block"},
	{"both results in one value", func(x fx) { _, in := x.instr(ir.OpAddOvf); in.Dst2 = x.value(ir.I32); in.Dst = in.Dst2 }, "writes both results to"},
	{"failed cast without the object", func(x fx) {
		b := x.term(ir.OpThrowHelper)
		b.Term.Aux.Type = il.Object
	}, "a failed cast to object needs the object as its one operand"},
	{"condition", func(x fx) { _, in := x.instr(ir.OpCmp); in.Aux.Cond = 42 }, "unknown condition 42"},
	{"call arity", func(x fx) { _, in := x.instr(ir.OpCallVirt); in.Args = append(in.Args, 0) }, "2 operands for"},
	{"call operand kind", func(x fx) { _, in := x.instr(ir.OpCallVirt); in.Args[0] = 0 }, "operand 0 is i32, parameter 0 of Box::Get is ref"},
	{"call without result", func(x fx) { _, in := x.instr(ir.OpCallVirt); in.Dst = ir.NoValue }, "no result from Box::Get"},
	{"void call with result", func(x fx) {
		_, in := x.instr(ir.OpCall) // the newobj's constructor call
		in.Dst = x.value(ir.I32)
	}, "a result from System.Exception::.ctor, which returns void"},
	{"call result kind", func(x fx) { _, in := x.instr(ir.OpCallVirt); in.Dst = 1 }, "result v1 is ref, Box::Get returns i32"},
	{"callvirt of a non-virtual method", func(x fx) {
		_, in := x.instr(ir.OpCallVirt)
		in.Aux.Ref = x.mod.Class("Box").Methods[2]
	}, "callvirt of Box::Plain, which is not a virtual instance method"},
	{"ret kind", func(x fx) { x.term(ir.OpRet).Term.Args[0] = 1 }, "returns ref from a method returning int32"},
	{"ret without value", func(x fx) { x.term(ir.OpRet).Term.Args = nil }, "returns 0 values, want one int32"},
	{"void ret with a value", func(x fx) {
		x.f.Method.Ret = il.Void
	}, "returns a value from a void method"},
	{"throwhelper operands", func(x fx) { x.term(ir.OpThrowHelper).Term.Args = []ir.Value{1} }, "1 operands without a target type"},
	{"if on a float", func(x fx) {
		b := x.term(ir.OpIf)
		v := x.f.NewValue(ir.F64)
		b.Term.Args[0] = v
	}, "if: operand 0 v"},

	// Regions.
	{"region ID", func(x fx) { x.f.Regions[1].ID = 0 }, "region ID 0 at index 1"},
	{"region kind", func(x fx) { x.f.Regions[1].Kind = 9 }, "region 1 has kind 9"},
	{"parent listed later", func(x fx) { x.f.Regions[0].Parent = x.f.Regions[len(x.f.Regions)-1] }, "region 0 is listed before its parent"},
	{"parent cycle", func(x fx) { r := x.f.Regions[1]; r.Parent = r }, "region 1 is listed before its parent 1"},
	{"foreign parent", func(x fx) { x.f.Regions[1].Parent = &ir.Region{} }, "the parent of region 1 is not a region of the function"},
	{"handler without entry", func(x fx) { x.region(ir.RegionFinally, 0).Entry = nil }, "finally region"},
	{"foreign entry", func(x fx) { x.region(ir.RegionFinally, 0).Entry = &ir.Block{} }, "is not a block of the function"},
	{"entry in another region", func(x fx) { x.region(ir.RegionFinally, 0).Entry = x.f.Blocks[0] }, "lies in another region"},
	{"try with an entry", func(x fx) { x.region(ir.RegionTry, 0).Entry = x.f.Blocks[0] }, "try region 0 has an entry block"},
	{"stale index", func(x fx) { x.try().Parent = nil }, "is not indexed as its parent links say"},
	{"foreign block region", func(x fx) { x.f.Blocks[0].Region = &ir.Region{Kind: ir.RegionTry} }, "b0: its region is not a region of the function"},
	{"two handlers of one clause", func(x fx) {
		x.region(ir.RegionFinally, 0).Clause = x.region(ir.RegionCatch, 0).Clause
	}, "are both the finally of clause"},
	{"clause out of range", func(x fx) { x.region(ir.RegionFault, 0).Clause = 99 }, "belongs to clause 99 of 6"},
	{"try carries a later clause", func(x fx) {
		// The try with two catches carries its first clause.
		for _, r := range x.f.Regions {
			if r.Kind == ir.RegionTry && x.f.Method.EH[r.Clause].Kind == il.EHCatch && r.Clause+1 < len(x.f.Method.EH) &&
				x.f.Method.EH[r.Clause+1].TryStart == x.f.Method.EH[r.Clause].TryStart {
				r.Clause++
				return
			}
		}
		x.t.Fatal("no try with two clauses")
	}, "not the first clause of its try"},
	{"handler of the wrong kind", func(x fx) { x.region(ir.RegionCatch, 0).Kind = ir.RegionFault }, "a catch clause"},
	{"clause without try", func(x fx) {
		x.f.Method.EH = append(x.f.Method.EH, &il.EHClause{Kind: il.EHFault, TryStart: 1, TryEnd: 2})
	}, "has no try region"},
	{"clause without handler", func(x fx) {
		c := *x.f.Method.EH[0]
		c.Kind = il.EHFault
		x.f.Method.EH = append(x.f.Method.EH, &c)
	}, "has no handler region"},
	{"filter clause without filter", func(x fx) {
		x.removeRegion(x.region(ir.RegionFilter, 0))
	}, "filter clause 4 has no filter region"},
	{"handler beside another try", func(x fx) {
		r := x.region(ir.RegionFinally, 0)
		r.Parent = nil
		if err := x.f.IndexRegions(); err != nil {
			x.t.Fatal(err)
		}
	}, "have different parents"},

	// Handler entries and EH edges.
	{"entry without catcharg", func(x fx) {
		e := x.region(ir.RegionCatch, 0).Entry
		e.Instrs = e.Instrs[1:]
	}, "does not start with catcharg"},
	{"catcharg inside a block", func(x fx) {
		b, in := x.instr(ir.OpCatchArg)
		b.Instrs = append(b.Instrs, in)
	}, "catcharg is not the first instruction of a catch or filter"},
	{"catcharg in a finally", func(x fx) {
		_, in := x.instr(ir.OpCatchArg)
		e := x.region(ir.RegionFinally, 0).Entry
		e.Instrs = append([]*ir.Instr{in}, e.Instrs...)
	}, "catcharg is not the first instruction of a catch or filter"},
	{"edge to a handler entry", func(x fx) {
		r := x.region(ir.RegionFinally, 0)
		x.retarget(x.block("jumping in the finally", func(b *ir.Block) bool {
			return b.Region == r && b.Term.Op == ir.OpJump
		}), 0, r.Entry)
	}, "is the successor of"},
	{"edge into a handler", func(x fx) {
		x.retarget(x.term(ir.OpJump), 0, x.in(x.region(ir.RegionCatch, 1)))
	}, "is in another funclet"},
	{"edge out of a handler", func(x fx) {
		r := x.region(ir.RegionCatch, 1)
		b := x.block("jumping in a catch", func(b *ir.Block) bool { return b.Region == r && b.Term.Op == ir.OpJump })
		x.retarget(b, 0, x.f.Blocks[0])
	}, "is in another funclet"},
	{"throw block of another region", func(x fx) {
		b := x.block("checking in a try", func(b *ir.Block) bool {
			return b.Term.Op == ir.OpIf && b.Region != nil && b.Region.Kind == ir.RegionTry && b.Succs[1].Cold
		})
		b.Succs[1].Region = b.Region.Parent
	}, "branches to throw block"},
	{"ret in a try", func(x fx) { x.term(ir.OpRet).Region = x.region(ir.RegionTry, 0) }, "ret inside try region 0"},
	{"endfinally in the main body", func(x fx) { x.terminate(x.term(ir.OpRet), ir.OpEndFinally, nil) }, "endfinally outside a finally or fault region"},
	{"endfilter in the main body", func(x fx) { x.terminate(x.term(ir.OpRet), ir.OpEndFilter, []ir.Value{0}) }, "endfilter outside a filter region"},
	{"endfilter in a finally", func(x fx) {
		x.terminate(x.term(ir.OpEndFinally), ir.OpEndFilter, []ir.Value{0})
	}, "endfilter outside a filter region"},
	{"rethrow in the main body", func(x fx) { x.terminate(x.term(ir.OpRet), ir.OpRethrow, nil) }, "rethrow is not inside the catch or filter handler"},
	{"catchret from the main body", func(x fx) {
		b := x.term(ir.OpJump)
		x.terminate(b, ir.OpCatchRet, nil, b.Succs[0])
	}, "catchret outside a catch or filter handler"},
	{"catchret into its catch", func(x fx) {
		b := x.term(ir.OpCatchRet)
		x.retarget(b, 0, x.in(b.Region.Funclet()))
	}, "catchret resumes inside the catch region"},
	{"catchret too far out", func(x fx) {
		// The nested catch resumes in the catch around it, not in the
		// main body.
		inner := x.region(ir.RegionCatch, 2)
		b := x.block("catchret of the nested catch", func(b *ir.Block) bool {
			return b.Term.Op == ir.OpCatchRet && b.Region.Funclet() == inner
		})
		x.retarget(b, 0, x.term(ir.OpRet))
	}, "outside the region around catch region"},
	{"callfinally of a catch", func(x fx) {
		x.term(ir.OpCallFinally).Term.Aux.Int = int64(x.region(ir.RegionCatch, 0).Clause)
	}, "has no finally region"},
	{"callfinally of no clause", func(x fx) { x.term(ir.OpCallFinally).Term.Aux.Int = 1 << 40 }, "has no finally region"},
	{"callfinally inside its try", func(x fx) { x.term(ir.OpCallFinally).Region = x.try() }, "inside the try region 8 of the finally it calls"},
	{"callfinally outside the region around its try", func(x fx) {
		x.term(ir.OpCallFinally).Region = nil
	}, "outside the region around try region 8"},
	{"callfinally back into its try", func(x fx) {
		x.retarget(x.term(ir.OpCallFinally), 0, x.in(x.try()))
	}, "inside the try region 8 it left"},
}

// checkCasesNoTable break IR without a clause table (as tests build it),
// where regions name their clauses by number alone.
var checkCasesNoTable = []struct {
	name   string
	break_ func(x fx)
	want   string
}{
	{"filter without handler", func(x fx) { x.region(ir.RegionFilter, 0).Clause = 77 }, "filter region 1 has no handler"},
	{"filter handler without filter", func(x fx) { x.removeRegion(x.region(ir.RegionFilter, 0)) }, "filter-handler region 1 has no filter"},
	{"filter with a catch", func(x fx) { x.region(ir.RegionFilterHandler, 0).Kind = ir.RegionCatch }, "filter region 1 has no handler"},
	{"handler without try", func(x fx) {
		x.region(ir.RegionFault, 0).Clause = 55
	}, "fault region 4 has no try region"},
}

// TestCheckAccepts checks that the test method's IR is valid before the
// mutations, after the reader and after opt.
func TestCheckAccepts(t *testing.T) {
	for _, name := range []string{"f", "g"} {
		_, f := importF(t, name)
		if err := ir.Check(f); err != nil {
			t.Fatalf("%v\n%s", err, f)
		}
		if len(f.Method.EH) > 0 && name == "g" {
			// Without a clause table, each try carries its one clause.
			f.Method.EH = nil
			if err := ir.Check(f); err != nil {
				t.Errorf("without a clause table: %v\n%s", err, f)
			}
		}
	}
}

// TestCheckRejects breaks the test method's IR in each way of checkCases
// and checks that ir.Check reports it.
func TestCheckRejects(t *testing.T) {
	for _, tt := range checkCases {
		t.Run(tt.name, func(t *testing.T) {
			mod, f := importF(t, "f")
			tt.break_(fx{t, mod, f})
			err := ir.Check(f)
			if err == nil {
				t.Fatalf("broken IR accepted:\n%s", f)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, want it to contain %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "f: ") && f.Method != nil {
				t.Errorf("error %q does not name the method", err)
			}
		})
	}
	for _, tt := range checkCasesNoTable {
		t.Run("no table/"+tt.name, func(t *testing.T) {
			mod, f := importF(t, "g")
			f.Method.EH = nil
			tt.break_(fx{t, mod, f})
			err := ir.Check(f)
			if err == nil {
				t.Fatalf("broken IR accepted:\n%s", f)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, want it to contain %q", err, tt.want)
			}
		})
	}
}
