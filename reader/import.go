package reader

import (
	"math"
	"slices"

	"miniil/il"
	"miniil/ir"
)

// importBlock imports the IL block starting at instruction index start.
func (r *reader) importBlock(start int, b *ir.Block) {
	m := r.m
	r.cur = b
	r.region = b.Region
	entry, _ := r.entryOf(b)
	r.stack = append(r.stack[:0], entry...) // entry stacks are never r.stack itself
	for i := start; i < len(m.Code); i++ {
		in := m.Code[i]
		if i > start {
			if r.blockAt[i] != nil {
				r.ilOff = in.Offset
				r.jumpTo(r.target(i))
				return
			}
		}
		r.ilOff = in.Offset
		r.idx = i
		if r.instr(i, in) {
			return
		}
	}
}

// target returns the block of IL instruction index i, scheduling its
// import.
func (r *reader) target(i int) *ir.Block {
	b := r.blockAt[i]
	if !r.isDone(b) {
		r.work = append(r.work, i)
	}
	return b
}

// spillTemp returns the spill temporary for stack depth d and kind k.
func (r *reader) spillTemp(d int, k ir.Kind) ir.Value {
	key := [2]int{d, int(k)}
	t, ok := r.spills[key]
	if !ok {
		t = r.f.NewValue(k)
		r.spills[key] = t
	}
	return t
}

// spillTo makes the current stack the entry stack of the successors:
// every live value is copied into the successor's spill temporary for its
// depth (fixed by whichever predecessor reached it first). Stack values
// that are themselves spill temporaries are first copied aside, so the
// copies cannot clobber each other.
func (r *reader) spillTo(succs ...*ir.Block) {
	r.materializeAll()
	if len(r.stack) == 0 {
		for _, s := range succs {
			if _, ok := r.entryOf(s); !ok {
				r.setEntry(s, nil)
			}
		}
		return
	}
	// The spill temporaries (a few: one per depth and kind), searched
	// in a list rather than put in a map at every branch.
	spillVals := r.maps.spillVals[:0]
	for _, t := range r.spills {
		spillVals = append(spillVals, t)
	}
	for _, t := range r.structSpills {
		spillVals = append(spillVals, t)
	}
	r.maps.spillVals = spillVals
	for d, v := range r.stack {
		if slices.Contains(spillVals, v) {
			c := r.value(ir.OpCopy, r.kind(v), ir.Aux{}, v)
			if t := r.structOf[v]; t != nil {
				r.structOf[c] = t
			}
			r.stack[d] = c
		}
	}
	assigned := r.maps.assigned[:0] // temporaries already copied to (a few)
	defer func() { r.maps.assigned = assigned[:0] }()
	for _, s := range succs {
		temps, ok := r.entryOf(s)
		if !ok {
			temps = ir.Make[ir.Value](r.opts.Cache, len(r.stack))
			for d, v := range r.stack {
				if t := r.structOf[v]; t != nil {
					temps[d] = r.structSpill(d, t)
					continue
				}
				k := r.kind(v)
				if k == ir.F32 && r.forceF64[[2]int{r.leaderOf(s), d}] {
					k = ir.F64
				}
				temps[d] = r.spillTemp(d, k)
			}
			r.setEntry(s, temps)
		}
		for d, v := range r.stack {
			t := temps[d]
			if slices.Contains(assigned, t) {
				continue
			}
			assigned = append(assigned, t)
			switch kv, kt := r.kind(v), r.kind(t); {
			case kv == kt:
				r.emit(ir.OpCopy, kt, t, []ir.Value{v}, ir.Aux{})
			case kv == ir.F32 && kt == ir.F64:
				r.emit(ir.OpConv, kt, t, []ir.Value{v}, ir.Aux{Type: il.Float64})
			default: // a float64 into a float32 entry: import again
				if r.forceF64 == nil {
					r.forceF64 = map[[2]int]bool{}
				}
				r.forceF64[[2]int{r.leaderOf(s), d}] = true
				r.restart = true
			}
		}
	}
}

func (r *reader) jumpTo(b *ir.Block) {
	r.spillTo(b)
	r.terminate(ir.OpJump, nil, ir.Aux{}, b)
}

var ldelemTypes = makeOpTable(map[il.Op]*il.Type{
	il.LdelemI1: il.Int8, il.LdelemU1: il.UInt8, il.LdelemI2: il.Int16, il.LdelemU2: il.UInt16,
	il.LdelemI4: il.Int32, il.LdelemU4: il.UInt32, il.LdelemI8: il.Int64, il.LdelemI: il.NatInt,
	il.LdelemR4: il.Float32, il.LdelemR8: il.Float64, il.LdelemRef: il.Object,
	il.StelemI1: il.Int8, il.StelemI2: il.Int16, il.StelemI4: il.Int32, il.StelemI8: il.Int64,
	il.StelemI: il.NatInt, il.StelemR4: il.Float32, il.StelemR8: il.Float64, il.StelemRef: il.Object,
})

var binops = makeOpTable(map[il.Op]ir.Op{
	il.Add: ir.OpAdd, il.Sub: ir.OpSub, il.Mul: ir.OpMul, il.Div: ir.OpDiv, il.DivUn: ir.OpDivUn,
	il.Rem: ir.OpRem, il.RemUn: ir.OpRemUn, il.And: ir.OpAnd, il.Or: ir.OpOr, il.Xor: ir.OpXor,
})

var ovfops = makeOpTable(map[il.Op]struct {
	op       ir.Op
	unsigned bool
}{
	il.AddOvf: {ir.OpAddOvf, false}, il.AddOvfUn: {ir.OpAddOvf, true},
	il.SubOvf: {ir.OpSubOvf, false}, il.SubOvfUn: {ir.OpSubOvf, true},
	il.MulOvf: {ir.OpMulOvf, false}, il.MulOvfUn: {ir.OpMulOvf, true},
})

// Branch conditions: the IL opcode's comparison.
var branchConds = makeOpTable(map[il.Op]ir.Cond{
	il.Beq: ir.Eq, il.BeqS: ir.Eq, il.BneUn: ir.Ne, il.BneUnS: ir.Ne,
	il.Bge: ir.Ge, il.BgeS: ir.Ge, il.Bgt: ir.Gt, il.BgtS: ir.Gt,
	il.Ble: ir.Le, il.BleS: ir.Le, il.Blt: ir.Lt, il.BltS: ir.Lt,
	il.BgeUn: ir.GeUn, il.BgeUnS: ir.GeUn, il.BgtUn: ir.GtUn, il.BgtUnS: ir.GtUn,
	il.BleUn: ir.LeUn, il.BleUnS: ir.LeUn, il.BltUn: ir.LtUn, il.BltUnS: ir.LtUn,
})

var cmpConds = makeOpTable(map[il.Op]ir.Cond{il.Ceq: ir.Eq, il.Cgt: ir.Gt, il.CgtUn: ir.GtUn, il.Clt: ir.Lt, il.CltUn: ir.LtUn})

// Conversion targets.
var convTypes = makeOpTable(map[il.Op]*il.Type{
	il.ConvI1: il.Int8, il.ConvI2: il.Int16, il.ConvI4: il.Int32, il.ConvI8: il.Int64,
	il.ConvU1: il.UInt8, il.ConvU2: il.UInt16, il.ConvU4: il.UInt32, il.ConvU8: il.UInt64,
	il.ConvI: il.NatInt, il.ConvU: il.NatUInt, il.ConvR4: il.Float32, il.ConvR8: il.Float64,
})

var ovfConvTypes = makeOpTable(map[il.Op]struct {
	t  *il.Type
	un bool
}{
	il.ConvOvfI1: {il.Int8, false}, il.ConvOvfI2: {il.Int16, false}, il.ConvOvfI4: {il.Int32, false},
	il.ConvOvfI8: {il.Int64, false}, il.ConvOvfU1: {il.UInt8, false}, il.ConvOvfU2: {il.UInt16, false},
	il.ConvOvfU4: {il.UInt32, false}, il.ConvOvfU8: {il.UInt64, false}, il.ConvOvfI: {il.NatInt, false},
	il.ConvOvfU:    {il.NatUInt, false},
	il.ConvOvfI1Un: {il.Int8, true}, il.ConvOvfI2Un: {il.Int16, true}, il.ConvOvfI4Un: {il.Int32, true},
	il.ConvOvfI8Un: {il.Int64, true}, il.ConvOvfU1Un: {il.UInt8, true}, il.ConvOvfU2Un: {il.UInt16, true},
	il.ConvOvfU4Un: {il.UInt32, true}, il.ConvOvfU8Un: {il.UInt64, true}, il.ConvOvfIUn: {il.NatInt, true},
	il.ConvOvfUUn: {il.NatUInt, true},
})

// instr imports one instruction; it reports whether the block ended.
func (r *reader) instr(idx int, in *il.Instr) bool {
	m := r.m
	c := in.Op.Canon()
	switch c {
	case il.Nop:
	case il.Ldarg0, il.Ldarg1, il.Ldarg2, il.Ldarg3, il.LdargS, il.Ldarg:
		if v := ir.Value(in.Int); r.inMemory(v) {
			r.loadVar(v)
		} else {
			r.push(v)
		}
	case il.Ldloc0, il.Ldloc1, il.Ldloc2, il.Ldloc3, il.LdlocS, il.Ldloc:
		if v := ir.Value(r.f.NumArgs + int(in.Int)); r.inMemory(v) {
			r.loadVar(v)
		} else {
			r.push(v)
		}
	case il.StargS, il.Starg:
		if v := ir.Value(in.Int); r.inMemory(v) {
			r.storeVar(v)
		} else {
			r.store(v, r.pop(), m.ArgType(int(in.Int)))
		}
	case il.Stloc0, il.Stloc1, il.Stloc2, il.Stloc3, il.StlocS, il.Stloc:
		if v := ir.Value(r.f.NumArgs + int(in.Int)); r.inMemory(v) {
			r.storeVar(v)
		} else {
			r.store(v, r.pop(), m.Locals[in.Int].Type)
		}
	case il.LdargaS, il.Ldarga:
		r.addrOfVar(ir.Value(in.Int))
	case il.LdlocaS, il.Ldloca:
		r.addrOfVar(ir.Value(r.f.NumArgs + int(in.Int)))
	case il.Ldnull:
		r.push(r.value(ir.OpConst, ir.Ref, ir.Aux{}))
	case il.LdcI4M1, il.LdcI40, il.LdcI41, il.LdcI42, il.LdcI43, il.LdcI44, il.LdcI45, il.LdcI46,
		il.LdcI47, il.LdcI48, il.LdcI4S, il.LdcI4:
		r.push(r.constI32(in.Int))
	case il.LdcI8:
		r.push(r.constI64(in.Int))
	case il.LdcR4:
		r.push(r.constF32(in.Float()))
	case il.LdcR8:
		r.push(r.constF64(in.Float()))
	case il.Ldstr:
		r.push(r.value(ir.OpStr, ir.Ref, ir.StrAux(r.opts.Cache, in.Str())))
	case il.Dup:
		top := r.stack[len(r.stack)-1]
		if t := r.structOf[top]; t != nil && !r.isView(top) {
			top = r.copyOf(top, t) // each stack entry owns its temporary
		}
		r.push(top)
	case il.Pop:
		r.pop()

	case il.Add, il.Sub, il.Mul, il.And, il.Or, il.Xor:
		b, a := r.pop(), r.pop()
		a, b, k := r.widen(a, b)
		r.push(r.value(binops.at(c), k, ir.Aux{}, a, b))
	case il.Div, il.DivUn, il.Rem, il.RemUn:
		b, a := r.pop(), r.pop()
		a, b, k := r.widen(a, b)
		if !k.IsFloat() {
			// A constant divisor needs only the checks it can fail: none
			// unless it is 0 (always throws) or, for a signed operation,
			// -1 (throws for MinValue only).
			d, isConst := r.constant(b)
			if !isConst || d == 0 {
				zero := r.zero(k)
				r.check(r.cmp(ir.Eq, b, zero), "System.DivideByZeroException")
			}
			if (c == il.Div || c == il.Rem) && (!isConst || d == -1) {
				// MinValue / -1 overflows (and so does MinValue % -1 on x64).
				var slow, next *ir.Block
				if !isConst {
					isM1 := r.cmp(ir.Eq, b, r.minusOne(k))
					slow, next = r.newBlock(), r.newBlock()
					r.terminate(ir.OpIf, []ir.Value{isM1}, ir.Aux{}, slow, next)
					r.cur = slow
				}
				var mv ir.Value
				if k == ir.I64 {
					mv = r.constI64(math.MinInt64)
				} else {
					mv = r.constI32(math.MinInt32)
				}
				r.check(r.cmp(ir.Eq, a, mv), "System.OverflowException")
				if !isConst {
					r.terminate(ir.OpJump, nil, ir.Aux{}, next)
					r.cur = next
				}
			}
		}
		r.push(r.value(binops.at(c), k, ir.Aux{}, a, b))
	case il.AddOvf, il.AddOvfUn, il.SubOvf, il.SubOvfUn, il.MulOvf, il.MulOvfUn:
		b, a := r.pop(), r.pop()
		a, b, k := r.widen(a, b)
		o := ovfops.at(c)
		d, flag := r.f.NewValue(k), r.f.NewValue(ir.I32)
		ins := r.emit(o.op, k, d, []ir.Value{a, b}, ir.Aux{Unsigned: o.unsigned})
		ins.Dst2 = flag
		r.check(flag, "System.OverflowException")
		r.push(d)
	case il.Shl, il.Shr, il.ShrUn:
		amt, v := r.pop(), r.pop()
		if r.kind(amt) == ir.I64 {
			amt = r.value(ir.OpConv, ir.I32, ir.Aux{Type: il.Int32}, amt)
		}
		op := ir.OpShl
		switch c {
		case il.Shr:
			op = ir.OpShr
		case il.ShrUn:
			op = ir.OpShrUn
		}
		r.push(r.value(op, r.kind(v), ir.Aux{}, v, amt))
	case il.Neg:
		v := r.pop()
		r.push(r.value(ir.OpNeg, r.kind(v), ir.Aux{}, v))
	case il.Not:
		v := r.pop()
		r.push(r.value(ir.OpNot, r.kind(v), ir.Aux{}, v))

	case il.ConvI1, il.ConvI2, il.ConvI4, il.ConvI8, il.ConvU1, il.ConvU2, il.ConvU4, il.ConvU8,
		il.ConvI, il.ConvU, il.ConvR4, il.ConvR8:
		t := convTypes.at(c)
		r.push(r.value(ir.OpConv, ir.KindOf(t), ir.Aux{Type: t}, r.pop()))
	case il.ConvRUn:
		r.push(r.value(ir.OpConv, ir.F64, ir.Aux{Type: il.Float64, Unsigned: true}, r.pop()))
	case il.Ckfinite:
		v := r.pop()
		// NaN compares unequal to itself; infinities equal themselves.
		r.check(r.cmp(ir.Ne, v, v), "System.OverflowException")
		r.check(r.cmp(ir.Eq, v, r.constF64(math.Inf(1))), "System.OverflowException")
		r.check(r.cmp(ir.Eq, v, r.constF64(math.Inf(-1))), "System.OverflowException")
		r.push(v)
	default:
		if o, ok := ovfConvTypes.get(c); ok {
			v := r.pop()
			r.ovfCheck(v, o.t, o.un)
			r.push(r.value(ir.OpConv, ir.KindOf(o.t), ir.Aux{Type: o.t, Unsigned: o.un && !r.kind(v).IsFloat()}, v))
			break
		}
		if cond, ok := cmpConds.get(c); ok {
			b, a := r.pop(), r.pop()
			r.push(r.cmp(cond, a, b))
			break
		}
		if cond, ok := branchConds.get(c); ok {
			b, a := r.pop(), r.pop()
			t := r.cmp(cond, a, b)
			return r.condBranch(idx, in, t)
		}
		if et, ok := ldelemTypes.get(c); ok {
			if c >= il.LdelemI1 && c <= il.LdelemRef {
				r.ldelem(et)
			} else {
				r.stelem(et)
			}
			break
		}
		return r.instr2(idx, in)
	}
	return false
}

// zero and minusOne return constants of integer kind k.
func (r *reader) zero(k ir.Kind) ir.Value {
	if k == ir.I64 {
		return r.constI64(0)
	}
	return r.constI32(0)
}

func (r *reader) minusOne(k ir.Kind) ir.Value {
	if k == ir.I64 {
		return r.constI64(-1)
	}
	return r.constI32(-1)
}

// condBranch ends the block with "if t goto target else fall through".
func (r *reader) condBranch(idx int, in *il.Instr, t ir.Value) bool {
	taken := r.target(in.Target())
	fall := r.target(idx + 1)
	r.spillTo(taken, fall)
	r.terminate(ir.OpIf, []ir.Value{t}, ir.Aux{}, taken, fall)
	return true
}

// ovfCheck throws OverflowException unless v fits in t; un treats an
// integer v as unsigned.
func (r *reader) ovfCheck(v ir.Value, t *il.Type, un bool) {
	lo, hi := intRange(t)
	if r.kind(v) == ir.F32 {
		v = r.toF64(v)
	}
	k := r.kind(v)
	ovf := "System.OverflowException"
	if k == ir.F64 {
		if t.Kind == il.KU {
			// conv.ovf.u of a float is limited to the int64 range, as in
			// Mono, the golden outputs' reference (CoreCLR would allow 2^64).
			hi = math.MaxInt64
		}
		// In range iff lo-1 < v < hi+1 (both false for NaN).
		var okLo ir.Value
		if lo == math.MinInt64 {
			okLo = r.cmp(ir.Ge, v, r.constF64(-9223372036854775808.0))
		} else {
			okLo = r.cmp(ir.Gt, v, r.constF64(float64(lo)-1))
		}
		r.check(r.cmp(ir.Eq, okLo, r.constI32(0)), ovf)
		hiF := float64(hi) + 1
		if hi == math.MaxUint64 {
			hiF = 18446744073709551616.0
		} else if hi == math.MaxInt64 {
			hiF = 9223372036854775808.0
		}
		okHi := r.cmp(ir.Lt, v, r.constF64(hiF))
		r.check(r.cmp(ir.Eq, okHi, r.constI32(0)), ovf)
		return
	}
	konst := func(x int64) ir.Value {
		if k == ir.I64 {
			return r.constI64(x)
		}
		return r.constI32(x)
	}
	srcMax := uint64(math.MaxInt32)
	srcMin := int64(math.MinInt32)
	if k == ir.I64 {
		srcMax, srcMin = math.MaxInt64, math.MinInt64
	}
	if un {
		// v is unsigned: only the upper bound can fail.
		umax := uint64(math.MaxUint32)
		if k == ir.I64 {
			umax = math.MaxUint64
		}
		if hi < umax {
			r.check(r.cmp(ir.GtUn, v, konst(int64(hi))), ovf)
		}
		return
	}
	if lo > srcMin {
		r.check(r.cmp(ir.Lt, v, konst(lo)), ovf)
	}
	if hi < srcMax {
		r.check(r.cmp(ir.Gt, v, konst(int64(hi))), ovf)
	}
}

// intRange returns the range of integer type t.
func intRange(t *il.Type) (int64, uint64) {
	switch t.Kind {
	case il.KI1:
		return math.MinInt8, math.MaxInt8
	case il.KU1:
		return 0, math.MaxUint8
	case il.KI2:
		return math.MinInt16, math.MaxInt16
	case il.KU2, il.KChar:
		return 0, math.MaxUint16
	case il.KI4:
		return math.MinInt32, math.MaxInt32
	case il.KU4:
		return 0, math.MaxUint32
	case il.KI8, il.KI:
		return math.MinInt64, math.MaxInt64
	}
	return 0, math.MaxUint64
}

// arrayAccess pops index and array, checks them and returns them with the
// index widened to native int.
func (r *reader) arrayAccess() (arr, idx ir.Value) {
	idx, arr = r.pop(), r.pop()
	r.nullCheck(arr)
	idx = r.toI64(idx)
	n := r.value(ir.OpArrLen, ir.I64, ir.Aux{}, arr)
	r.check(r.cmp(ir.GeUn, idx, n), "System.IndexOutOfRangeException")
	return arr, idx
}

func (r *reader) ldelem(et *il.Type) {
	if et.Kind == il.KValue {
		r.push(r.copyOf(r.elemAddr(et), et))
		return
	}
	arr, idx := r.arrayAccess()
	r.push(r.value(ir.OpLdElem, ir.KindOf(et), ir.Aux{Type: et}, arr, idx))
}

func (r *reader) stelem(et *il.Type) {
	v := r.pop()
	if et.Kind == il.KValue {
		r.copyStruct(r.elemAddr(et), v, et)
		return
	}
	arr, idx := r.arrayAccess()
	if et.IsRef() {
		// Store check, skipped for null.
		skip := r.newBlock()
		chk := r.newBlock()
		r.terminate(ir.OpIf, []ir.Value{v}, ir.Aux{}, chk, skip)
		r.cur = chk
		ok := r.value(ir.OpCanStore, ir.I32, ir.Aux{}, arr, v)
		r.check(r.cmp(ir.Eq, ok, r.constI32(0)), "System.ArrayTypeMismatchException")
		r.terminate(ir.OpJump, nil, ir.Aux{}, skip)
		r.cur = skip
	} else if ir.KindOf(et) != r.kind(v) {
		v = r.coerce(v, et)
	}
	r.emit(ir.OpStElem, ir.KindOf(et), ir.NoValue, []ir.Value{arr, idx, v}, ir.Aux{Type: et})
}
