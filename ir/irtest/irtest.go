// Package irtest builds IR functions for the tests of the code that
// consumes the IR (opt, funclet, the register allocator): a function of a
// few blocks, values, instructions, terminators and EH regions in a few
// lines, checked by ir.Check when it is finished. It is internal to
// miniil's tests.
//
// A Builder appends to its current block; a terminator ends the block,
// and At makes another block current:
//
//	b := irtest.New(t, ir.Ref) // func f(object), in block b0
//	x := b.Arg(0)
//	b.NullCheck(x)                 // b0: if x -> b1, else throw
//	a := b.LdField(x, b.Field("a")) // b1
//	b.Ret(a)
//	f := b.Func()
//
// The function's classes, fields and callees come from a small module
// (Box with fields a, x and next; static methods Callee and FCallee),
// and the builder's throw blocks throw that module's base library
// exceptions, so the IR looks like the reader's.
package irtest

import (
	"fmt"
	"sync"
	"testing"

	"miniil/il"
	"miniil/ir"
)

const moduleSource = `.assembly extern mscorlib {}
.assembly irtest {}
.class public Box extends [mscorlib]System.Object
{
  .field public int32 a
  .field public float64 x
  .field public class Box next
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
}
.method public static void main() cil managed
{
  .entrypoint
  ret
}
.method public static int32 Callee(int32 a) cil managed
{
  ldarg.0
  ret
}
.method public static float64 FCallee(float64 a) cil managed
{
  ldarg.0
  ret
}
`

var (
	loadOnce sync.Once
	module   *il.Module
	loadErr  error
)

// Module returns the module the builders' classes, fields and methods
// come from (loaded once, shared, never modified).
func Module() (*il.Module, error) {
	loadOnce.Do(func() { module, loadErr = il.Load("irtest.il", []byte(moduleSource)) })
	return module, loadErr
}

// Builder builds one ir.Func.
type Builder struct {
	t      testing.TB
	f      *ir.Func
	mod    *il.Module
	cur    *ir.Block
	region *ir.Region // region of the blocks made next
	throws map[throwKey]*ir.Block
	done   bool
}

type throwKey struct {
	class  string
	region *ir.Region
}

// New starts a static method f with arguments of the given kinds; its
// entry block b0 is the current block. The return type is inferred from
// the function's returns when it is finished.
func New(t testing.TB, args ...ir.Kind) *Builder {
	t.Helper()
	mod, err := Module()
	if err != nil {
		t.Fatalf("irtest: loading the builder's module: %v", err)
	}
	m := &il.Method{Name: "f", Static: true, Ret: il.Void, Slot: -1}
	f := &ir.Func{Method: m, NumArgs: len(args)}
	for _, k := range args {
		m.Params = append(m.Params, &il.Param{Type: TypeOf(k)})
		f.Kinds = append(f.Kinds, k)
	}
	b := &Builder{t: t, f: f, mod: mod, throws: map[throwKey]*ir.Block{}}
	b.cur = b.Block()
	return b
}

// TypeOf returns the il type a value of kind k stands for.
func TypeOf(k ir.Kind) *il.Type {
	switch k {
	case ir.I32:
		return il.Int32
	case ir.I64:
		return il.Int64
	case ir.F32:
		return il.Float32
	case ir.F64:
		return il.Float64
	case ir.Ptr:
		return il.ByRefOf(il.Int64)
	}
	return il.Object
}

// Locals declares the method's locals (before any temporary is made) and
// returns their values.
func (b *Builder) Locals(kinds ...ir.Kind) []ir.Value {
	b.t.Helper()
	f := b.f
	if len(f.Kinds) != f.NumArgs+f.NumLocals {
		b.t.Fatalf("irtest: Locals after temporaries were made")
	}
	var vs []ir.Value
	for _, k := range kinds {
		f.Method.Locals = append(f.Method.Locals, &il.Local{Type: TypeOf(k)})
		f.Kinds = append(f.Kinds, k)
		vs = append(vs, ir.Value(len(f.Kinds)-1))
		f.NumLocals++
	}
	return vs
}

// Arg returns argument i.
func (b *Builder) Arg(i int) ir.Value {
	b.t.Helper()
	if i < 0 || i >= b.f.NumArgs {
		b.t.Fatalf("irtest: no argument %d", i)
	}
	return ir.Value(i)
}

// Temp returns a new temporary of kind k.
func (b *Builder) Temp(k ir.Kind) ir.Value { return b.f.NewValue(k) }

// Field returns a field of class Box: a (int32), x (float64) or next
// (Box).
func (b *Builder) Field(name string) *il.Field {
	b.t.Helper()
	for _, fl := range b.mod.Class("Box").Fields {
		if fl.Name == name {
			return fl
		}
	}
	b.t.Fatalf("irtest: Box has no field %s", name)
	return nil
}

// Method returns a method of the module or of the base library, by
// its full name (Callee, Box::Get, System.Object::ToString: the first
// overload) or its signature as ir.Fprint prints it (void
// System.Console::WriteLine(int32)).
func (b *Builder) Method(name string) *il.Method {
	b.t.Helper()
	var all []*il.Method
	all = append(all, b.mod.AllMethods()...)
	for _, c := range []string{"System.Console", "System.Object", "System.Exception", "System.String"} {
		all = append(all, b.mod.Class(c).Methods...)
	}
	for _, m := range all {
		if m.FullName() == name || m.Signature() == name {
			return m
		}
	}
	b.t.Fatalf("irtest: no method %s", name)
	return nil
}

// Class returns a class of the module or of the base library.
func (b *Builder) Class(name string) *il.Class {
	b.t.Helper()
	c := b.mod.Class(name)
	if c == nil {
		b.t.Fatalf("irtest: no class %s", name)
	}
	return c
}

// Block makes a new empty block in the current region (the entry block's
// region when none was chosen); the current block stays current.
func (b *Builder) Block() *ir.Block {
	blk := b.f.NewBlock(-1)
	blk.Region = b.region
	return blk
}

// Blocks makes n new blocks (see Block).
func (b *Builder) Blocks(n int) []*ir.Block {
	bs := make([]*ir.Block, n)
	for i := range bs {
		bs[i] = b.Block()
	}
	return bs
}

// At makes blk the current block; blocks made next go to its region.
func (b *Builder) At(blk *ir.Block) *Builder {
	b.t.Helper()
	if blk.Term != nil {
		b.t.Fatalf("irtest: b%d is already terminated", blk.ID)
	}
	b.cur, b.region = blk, blk.Region
	return b
}

// Current returns the current block (nil after a terminator).
func (b *Builder) Current() *ir.Block { return b.cur }

// In makes r the region of the blocks made next (nil: no region).
func (b *Builder) In(r *ir.Region) *Builder {
	b.region = r
	return b
}

// Try makes a try region of IL clause clause inside parent (nil: none).
func (b *Builder) Try(parent *ir.Region, clause int) *ir.Region {
	r := &ir.Region{ID: len(b.f.Regions), Kind: ir.RegionTry, Parent: parent, Clause: clause}
	b.f.Regions = append(b.f.Regions, r)
	return r
}

// Handler makes a handler or filter region of kind k for IL clause
// clause inside parent (nil: none), with its (empty) entry block. Catch,
// filter and filter-handler entries receive the exception: see CatchArg.
func (b *Builder) Handler(k ir.RegionKind, parent *ir.Region, clause int) *ir.Region {
	b.t.Helper()
	if k == ir.RegionTry {
		b.t.Fatalf("irtest: Handler of kind try")
	}
	r := &ir.Region{ID: len(b.f.Regions), Kind: k, Parent: parent, Clause: clause}
	b.f.Regions = append(b.f.Regions, r)
	saved := b.region
	r.Entry = b.In(r).Block()
	b.region = saved
	return r
}

// emit appends an instruction to the current block.
func (b *Builder) emit(op ir.Op, k ir.Kind, dst ir.Value, aux ir.Aux, args ...ir.Value) *ir.Instr {
	b.t.Helper()
	if b.cur == nil {
		b.t.Fatalf("irtest: %s after a terminator (no current block: use At)", op)
	}
	in := &ir.Instr{Op: op, Kind: k, Dst: dst, Dst2: ir.NoValue, Args: args, Aux: aux, ILOffset: -1}
	b.cur.Instrs = append(b.cur.Instrs, in)
	return in
}

// Emit appends an instruction with a new result of kind k (op's
// operation kind too) and returns the result. Any op can be made this
// way; the methods below spell out the common ones.
func (b *Builder) Emit(op ir.Op, k ir.Kind, aux ir.Aux, args ...ir.Value) ir.Value {
	b.t.Helper()
	d := b.f.NewValue(k)
	b.emit(op, k, d, aux, args...)
	return d
}

// EmitTo appends an instruction that writes its result into an existing
// value dst (a local, argument or temporary defined more than once).
func (b *Builder) EmitTo(dst ir.Value, op ir.Op, aux ir.Aux, args ...ir.Value) *ir.Instr {
	b.t.Helper()
	return b.emit(op, b.f.Kinds[dst], dst, aux, args...)
}

// Const returns a new constant of kind k: x for integers, x as a float
// for F32 and F64, null for Ref.
func (b *Builder) Const(k ir.Kind, x int64) ir.Value {
	b.t.Helper()
	aux := ir.Aux{Int: x}
	if k.IsFloat() {
		aux = ir.FloatAux(float64(x))
	}
	if k == ir.Ref {
		aux = ir.Aux{}
	}
	return b.Emit(ir.OpConst, k, aux)
}

// Str returns a new string object.
func (b *Builder) Str(s string) ir.Value {
	b.t.Helper()
	return b.Emit(ir.OpStr, ir.Ref, ir.StrAux(nil, s))
}

// Copy assigns src to dst.
func (b *Builder) Copy(dst, src ir.Value) {
	b.t.Helper()
	b.EmitTo(dst, ir.OpCopy, ir.Aux{}, src)
}

// Bin returns op(x, y) in the kind of x (arithmetic, logic, shifts).
func (b *Builder) Bin(op ir.Op, x, y ir.Value) ir.Value {
	b.t.Helper()
	return b.Emit(op, b.f.Kinds[x], ir.Aux{}, x, y)
}

// Cmp returns x c y (0 or 1, I32).
func (b *Builder) Cmp(c ir.Cond, x, y ir.Value) ir.Value {
	b.t.Helper()
	d := b.f.NewValue(ir.I32)
	b.emit(ir.OpCmp, b.f.Kinds[x], d, ir.Aux{Cond: c}, x, y)
	return d
}

// Alloc returns a new object of class Box.
func (b *Builder) Alloc() ir.Value {
	b.t.Helper()
	return b.Emit(ir.OpAlloc, ir.Ref, ir.Aux{Ref: b.mod.Class("Box")})
}

// LdField returns obj.fl (obj is not checked: see NullCheck).
func (b *Builder) LdField(obj ir.Value, fl *il.Field) ir.Value {
	b.t.Helper()
	return b.Emit(ir.OpLdField, ir.KindOf(fl.Type), ir.Aux{Ref: fl}, obj)
}

// StField stores v into obj.fl.
func (b *Builder) StField(obj ir.Value, fl *il.Field, v ir.Value) {
	b.t.Helper()
	b.emit(ir.OpStField, ir.KindOf(fl.Type), ir.NoValue, ir.Aux{Ref: fl}, obj, v)
}

// Call calls m with args and returns its result (NoValue for void).
func (b *Builder) Call(m *il.Method, args ...ir.Value) ir.Value {
	b.t.Helper()
	return b.call(ir.OpCall, m, args)
}

// CallVirt calls virtual method m through the vtable of args[0].
func (b *Builder) CallVirt(m *il.Method, args ...ir.Value) ir.Value {
	b.t.Helper()
	return b.call(ir.OpCallVirt, m, args)
}

func (b *Builder) call(op ir.Op, m *il.Method, args []ir.Value) ir.Value {
	b.t.Helper()
	if want := m.NumArgs(); len(args) != want {
		b.t.Fatalf("irtest: %s takes %d arguments, got %d", m.FullName(), want, len(args))
	}
	dst := ir.NoValue
	if m.Ret.Kind != il.KVoid {
		dst = b.f.NewValue(ir.KindOf(m.Ret))
	}
	b.emit(op, 0, dst, ir.Aux{Ref: m}, args...)
	return dst
}

// CatchArg returns the exception a catch or filter funclet receives (the
// first instruction of its entry block).
func (b *Builder) CatchArg() ir.Value {
	b.t.Helper()
	return b.Emit(ir.OpCatchArg, ir.Ref, ir.Aux{})
}

// terminate ends the current block.
func (b *Builder) terminate(op ir.Op, aux ir.Aux, args []ir.Value, succs ...*ir.Block) {
	b.t.Helper()
	if b.cur == nil {
		b.t.Fatalf("irtest: %s after a terminator (no current block: use At)", op)
	}
	b.cur.Term = &ir.Instr{Op: op, Dst: ir.NoValue, Dst2: ir.NoValue, Args: args, Aux: aux, ILOffset: -1}
	b.cur.Succs = succs
	b.cur = nil
}

// Jump ends the current block with a jump to to.
func (b *Builder) Jump(to *ir.Block) {
	b.t.Helper()
	b.terminate(ir.OpJump, ir.Aux{}, nil, to)
}

// If ends the current block with "if cond goto then else els".
func (b *Builder) If(cond ir.Value, then, els *ir.Block) {
	b.t.Helper()
	b.terminate(ir.OpIf, ir.Aux{}, []ir.Value{cond}, then, els)
}

// Switch ends the current block with a switch on v over targets, the last
// one the default.
func (b *Builder) Switch(v ir.Value, targets ...*ir.Block) {
	b.t.Helper()
	b.terminate(ir.OpSwitch, ir.Aux{}, []ir.Value{v}, targets...)
}

// Ret ends the current block with a return (of v, if given).
func (b *Builder) Ret(v ...ir.Value) {
	b.t.Helper()
	b.terminate(ir.OpRet, ir.Aux{}, v)
}

// Throw ends the current block with a throw of v.
func (b *Builder) Throw(v ir.Value) {
	b.t.Helper()
	b.terminate(ir.OpThrow, ir.Aux{}, []ir.Value{v})
}

// CallFinally ends the current block with a call to the finally funclet
// of IL clause clause, continuing in next.
func (b *Builder) CallFinally(clause int, next *ir.Block) {
	b.t.Helper()
	b.terminate(ir.OpCallFinally, ir.Aux{Int: int64(clause)}, nil, next)
}

// CatchRet ends the current (catch funclet) block, resuming at cont.
func (b *Builder) CatchRet(cont *ir.Block) {
	b.t.Helper()
	b.terminate(ir.OpCatchRet, ir.Aux{}, nil, cont)
}

// EndFinally ends the current finally or fault funclet block.
func (b *Builder) EndFinally() {
	b.t.Helper()
	b.terminate(ir.OpEndFinally, ir.Aux{}, nil)
}

// EndFilter ends the current filter funclet block with verdict v.
func (b *Builder) EndFilter(v ir.Value) {
	b.t.Helper()
	b.terminate(ir.OpEndFilter, ir.Aux{}, []ir.Value{v})
}

// Rethrow ends the current block with a rethrow.
func (b *Builder) Rethrow() {
	b.t.Helper()
	b.terminate(ir.OpRethrow, ir.Aux{}, nil)
}

// ThrowBlock returns the cold block of the current region that throws a
// new base library exception of the named class, as the reader makes
// them (one per class and region).
func (b *Builder) ThrowBlock(class string) *ir.Block {
	b.t.Helper()
	k := throwKey{class, b.region}
	if blk := b.throws[k]; blk != nil {
		return blk
	}
	c := b.Class(class)
	blk := b.Block()
	blk.Cold = true
	blk.Term = &ir.Instr{Op: ir.OpThrowHelper, Dst: ir.NoValue, Dst2: ir.NoValue, Aux: ir.Aux{Ref: c}, ILOffset: -1}
	b.throws[k] = blk
	return blk
}

// NullCheck ends the current block with the reader's null check of ref
// (if ref goto the continuation, else throw NullReferenceException) and
// makes the continuation, a new block of the same region, current. It
// returns the checking block.
func (b *Builder) NullCheck(ref ir.Value) *ir.Block {
	b.t.Helper()
	chk := b.cur
	if chk == nil {
		b.t.Fatalf("irtest: NullCheck after a terminator (no current block: use At)")
	}
	b.region = chk.Region
	next := b.Block()
	b.If(ref, next, b.ThrowBlock("System.NullReferenceException"))
	b.cur = next
	return chk
}

// Func finishes the function: it sets the predecessor lists and the
// method's return type, indexes the regions and checks the result with
// ir.Check (and that every block is terminated and every handler has its
// entry block), failing the test if anything is wrong. The builder must
// not be used afterwards.
func (b *Builder) Func() *ir.Func {
	b.t.Helper()
	if b.done {
		b.t.Fatalf("irtest: Func called twice")
	}
	b.done = true
	f := b.f
	for _, blk := range f.Blocks {
		blk.Preds = nil
	}
	for _, blk := range f.Blocks {
		if blk.Term == nil {
			b.t.Fatalf("irtest: b%d has no terminator:\n%s", blk.ID, f)
		}
		for _, s := range blk.Succs {
			s.Preds = append(s.Preds, blk)
		}
		if blk.Term.Op == ir.OpRet && len(blk.Term.Args) == 1 {
			f.Method.Ret = TypeOf(f.Kinds[blk.Term.Args[0]])
		}
	}
	for _, r := range f.Regions {
		if r.IsHandler() && (r.Entry == nil || r.Entry.Region != r) {
			b.t.Fatalf("irtest: %s region %d has no entry block of its own", r.Kind, r.ID)
		}
	}
	if err := f.IndexRegions(); err != nil {
		b.t.Fatalf("irtest: %v", err)
	}
	if err := ir.Check(f); err != nil {
		b.t.Fatalf("irtest: %v\n%s", err, f)
	}
	return f
}

// String returns the function built so far in ir.Fprint's form.
func (b *Builder) String() string { return fmt.Sprint(b.f) }
