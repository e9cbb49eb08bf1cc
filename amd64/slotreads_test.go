package amd64

import (
	"fmt"
	"strings"
	"testing"

	"miniil/funclet"
	"miniil/il"
	"miniil/ir"
	"miniil/ir/irtest"
)

// opnd is an operand of a shape: an argument of its kind, or a constant
// temporary (integers only).
type opnd struct {
	kind  ir.Kind
	konst bool
}

var (
	i32, i64, f32, f64 = opnd{kind: ir.I32}, opnd{kind: ir.I64}, opnd{kind: ir.F32}, opnd{kind: ir.F64}
	c32, c64           = opnd{kind: ir.I32, konst: true}, opnd{kind: ir.I64, konst: true}
)

// slotShape is a function made of one instruction (or terminator) of
// interest, and how to place its values.
type slotShape struct {
	name string
	f    *ir.Func
	in   *ir.Instr
	// homes, if set, changes the allocator's homes before emission.
	homes func(in *ir.Instr, homes []Reg)
}

// newShape returns a function that evaluates op of kind on ops (arguments
// or constants) into a new value of kind dst (none if 0) and returns it.
func newShape(name string, op ir.Op, kind ir.Kind, aux ir.Aux, dst ir.Kind, ops ...opnd) slotShape {
	m := &il.Method{Name: name, Static: true, Ret: il.Void}
	f := &ir.Func{Method: m}
	for _, o := range ops {
		if !o.konst {
			f.Kinds = append(f.Kinds, o.kind)
			m.Params = append(m.Params, &il.Param{Type: irtest.TypeOf(o.kind)})
		}
	}
	if dst != 0 {
		m.Ret = irtest.TypeOf(dst)
	}
	f.NumArgs = len(f.Kinds)
	b := f.NewBlock(0)
	in := &ir.Instr{Op: op, Kind: kind, Aux: aux, Dst: ir.NoValue, Dst2: ir.NoValue}
	arg := 0
	for _, o := range ops {
		if o.konst {
			c := f.NewValue(o.kind)
			b.Instrs = append(b.Instrs, &ir.Instr{Op: ir.OpConst, Kind: o.kind, Dst: c, Dst2: ir.NoValue, Aux: ir.Aux{Int: 7}})
			in.Args = append(in.Args, c)
			continue
		}
		in.Args = append(in.Args, ir.Value(arg))
		arg++
	}
	ret := &ir.Instr{Op: ir.OpRet, Dst: ir.NoValue, Dst2: ir.NoValue}
	if dst != 0 {
		in.Dst = f.NewValue(dst)
		ret.Args = []ir.Value{in.Dst}
	}
	if op == ir.OpAddOvf || op == ir.OpSubOvf || op == ir.OpMulOvf {
		in.Dst2 = f.NewValue(ir.I32)
	}
	b.Instrs = append(b.Instrs, in)
	b.Term = ret
	return slotShape{name: name, f: f, in: in}
}

// newBranch returns a function whose entry block ends in terminator op
// (OpIf or OpSwitch) on operand o, each successor returning.
func newBranch(name string, op ir.Op, o opnd, succs int) slotShape {
	s := newShape(name, ir.OpCopy, o.kind, ir.Aux{}, o.kind, o)
	f := s.f
	entry := f.Blocks[0]
	v := entry.Instrs[len(entry.Instrs)-1].Args[0]
	entry.Instrs = entry.Instrs[:len(entry.Instrs)-1] // no copy: the terminator tests v
	t := &ir.Instr{Op: op, Args: []ir.Value{v}, Dst: ir.NoValue, Dst2: ir.NoValue}
	entry.Term = t
	f.Method.Ret = il.Void
	for range succs {
		b := f.NewBlock(0)
		b.Term = &ir.Instr{Op: ir.OpRet, Dst: ir.NoValue, Dst2: ir.NoValue}
		b.Preds = []*ir.Block{entry}
		entry.Succs = append(entry.Succs, b)
	}
	s.in = t
	return s
}

// swapHomes gives a binary operation's result and second operand one XMM
// home and its first operand a slot: the two-address form then swaps the
// operands of a commutative operation (h = y; h op= x from x's slot).
func swapHomes(in *ir.Instr, homes []Reg) {
	homes[in.Args[0]] = NoReg
	homes[in.Args[1]] = X8
	homes[in.Dst] = X8
}

// slotShapes returns instructions of every operation in slotReads, in
// every form that reads an operand from its slot.
func slotShapes() []slotShape {
	var shapes []slotShape
	add := func(s slotShape) { shapes = append(shapes, s) }
	add(newBranch("if i32", ir.OpIf, i32, 2))
	add(newBranch("if const", ir.OpIf, c32, 2))
	add(newBranch("switch", ir.OpSwitch, i32, 3))
	add(newBranch("switch const", ir.OpSwitch, c32, 3))
	for _, c := range []struct {
		src opnd
		to  *il.Type
		un  bool
	}{
		{i32, il.Int32, false}, {c32, il.Float64, false}, {c64, il.Int32, false}, {i64, il.Float64, true},
		{f64, il.Int32, false}, {f32, il.Int64, false}, {f64, il.Float32, false},
	} {
		add(newShape(fmt.Sprintf("conv %s to %s", c.src.kind, c.to), ir.OpConv, ir.KindOf(c.to),
			ir.Aux{Type: c.to, Unsigned: c.un}, ir.KindOf(c.to), c.src))
	}
	add(newShape("box const", ir.OpBox, ir.Ref, ir.Aux{Type: il.Int32}, ir.Ref, c32))
	add(newShape("box f64", ir.OpBox, ir.Ref, ir.Aux{Type: il.Float64}, ir.Ref, f64))
	for _, op := range []ir.Op{ir.OpAddOvf, ir.OpSubOvf, ir.OpMulOvf} {
		add(newShape(op.String()+" i32", op, ir.I32, ir.Aux{}, ir.I32, i32, c32))
		add(newShape(op.String()+" i64", op, ir.I64, ir.Aux{}, ir.I64, i64, c64))
	}
	// A constant divisor is read as a constant (divConst), a variable one
	// from its slot.
	for _, op := range []ir.Op{ir.OpDiv, ir.OpDivUn, ir.OpRem, ir.OpRemUn} {
		add(newShape(op.String()+" i32", op, ir.I32, ir.Aux{}, ir.I32, i32, i32))
		add(newShape(op.String()+" i64", op, ir.I64, ir.Aux{}, ir.I64, i64, i64))
		add(newShape(op.String()+" i32 by a constant", op, ir.I32, ir.Aux{}, ir.I32, i32, c32))
		add(newShape(op.String()+" i64 by a constant", op, ir.I64, ir.Aux{}, ir.I64, i64, c64))
	}
	for _, op := range []ir.Op{ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpDiv, ir.OpRem} {
		for _, k := range []opnd{f32, f64} {
			add(newShape(fmt.Sprintf("%s %s", op, k.kind), op, k.kind, ir.Aux{}, k.kind, k, k))
			s := newShape(fmt.Sprintf("%s %s swapped", op, k.kind), op, k.kind, ir.Aux{}, k.kind, k, k)
			s.homes = swapHomes
			add(s)
		}
	}
	for _, c := range []ir.Cond{ir.Eq, ir.Lt} {
		add(newShape("cmp f64 "+c.String(), ir.OpCmp, ir.F64, ir.Aux{Cond: c}, ir.I32, f64, f64))
	}
	add(newShape("neg f32", ir.OpNeg, ir.F32, ir.Aux{}, ir.F32, f32))
	add(newShape("neg f64", ir.OpNeg, ir.F64, ir.Aux{}, ir.F64, f64))
	return shapes
}

// compileShape compiles s as the JIT does, with s.homes applied.
func compileShape(s slotShape) error {
	lay, err := funclet.Build(s.f)
	if err != nil {
		return err
	}
	alloc, err := Allocate(s.f, lay)
	if err != nil {
		return err
	}
	if s.homes != nil {
		s.homes(s.in, alloc.Homes)
	}
	_, err = Emit(s.f, lay, alloc, fixedEnv{}, NewAssembler())
	return err
}

// TestSlotReads checks slotReads against the lowerings both ways: with
// the table as it is, every shape compiles (a lowering that read an
// operand from its slot without the table saying so would fail); and
// every operand the table declares is needed, since removing it from the
// table makes some shape of its operation fail.
func TestSlotReads(t *testing.T) {
	shapes := slotShapes()
	byOp := map[ir.Op][]slotShape{}
	for _, s := range shapes {
		if err := ir.Check(s.f); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if err := compileShape(s); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
		byOp[s.in.Op] = append(byOp[s.in.Op], s)
	}
	saved := slotReads
	defer func() { slotReads = saved }()
	for i, r := range saved {
		op := ir.Op(i)
		if r == (slotRead{}) {
			continue
		}
		for _, class := range []struct {
			name string
			set  *operands
		}{{"integer", &r.ints}, {"float", &r.floats}} {
			for k := range 8 {
				bit := operands(1 << k)
				if *class.set&bit == 0 {
					continue
				}
				t.Run(fmt.Sprintf("%s %s operand %d", op, class.name, k), func(t *testing.T) {
					slotReads = saved
					less := r
					if class.name == "integer" {
						less.ints &^= bit
					} else {
						less.floats &^= bit
					}
					slotReads[op] = less
					var failed []string
					for _, s := range byOp[op] {
						if err := compileShape(s); err != nil && strings.Contains(err.Error(), "slotReads does not declare") {
							failed = append(failed, s.name)
						}
					}
					if len(failed) == 0 {
						t.Errorf("no shape of %s reads its %s operand %d from its slot: the table declares more than the lowering does (or a shape is missing)",
							op, class.name, k)
					}
				})
			}
		}
	}
}
