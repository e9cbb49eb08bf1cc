package reader

import (
	"fmt"

	"miniil/il"
	"miniil/ir"
)

// instr2 imports control flow, calls, objects and arrays; it reports
// whether the block ended.
func (r *reader) instr2(idx int, in *il.Instr) bool {
	m := r.m
	c := in.Op.Canon()
	switch c {
	case il.Br, il.BrS:
		r.jumpTo(r.target(in.Target()))
		return true
	case il.Brtrue, il.BrtrueS, il.Brfalse, il.BrfalseS:
		v := r.pop()
		if c == il.Brfalse || c == il.BrfalseS {
			var zero ir.Value
			switch r.kind(v) {
			case ir.Ref:
				zero = r.value(ir.OpConst, ir.Ref, ir.Aux{})
			case ir.I64:
				zero = r.constI64(0)
			default:
				zero = r.constI32(0)
			}
			v = r.cmp(ir.Eq, v, zero)
		}
		return r.condBranch(idx, in, v)
	case il.Switch:
		v := r.pop()
		var succs []*ir.Block
		for _, t := range in.Targets() {
			succs = append(succs, r.target(t))
		}
		succs = append(succs, r.target(idx+1))
		r.spillTo(succs...)
		r.terminate(ir.OpSwitch, []ir.Value{v}, ir.Aux{}, succs...)
		return true
	case il.Ret:
		if m.Ret.Kind == il.KValue {
			r.copyStruct(r.f.RetBuf(), r.pop(), m.Ret)
			r.terminate(ir.OpRet, nil, ir.Aux{})
		} else if m.Ret.Kind == il.KVoid {
			r.terminate(ir.OpRet, nil, ir.Aux{})
		} else {
			r.terminate(ir.OpRet, []ir.Value{r.coerce(r.pop(), m.Ret)}, ir.Aux{})
		}
		return true
	case il.Throw:
		v := r.pop()
		r.nullCheck(v)
		r.terminate(ir.OpThrow, []ir.Value{v}, ir.Aux{})
		return true
	case il.Rethrow:
		// The exception rethrown is that of the innermost catch or filter
		// handler around the instruction, through any region nested in
		// it: the runtime finds that handler's dispatch by its clause.
		g := r.region
		for g != nil && g.Kind != ir.RegionCatch && g.Kind != ir.RegionFilterHandler {
			g = g.Parent
		}
		if g == nil {
			panic(fmt.Sprintf("reader: rethrow outside a catch at IL_%04x (the verifier allows it only inside one)", in.Offset))
		}
		r.terminate(ir.OpRethrow, nil, ir.Aux{Int: int64(g.Clause)})
		return true
	case il.Leave, il.LeaveS:
		r.leave(in.Target())
		return true
	case il.Endfinally:
		r.terminate(ir.OpEndFinally, nil, ir.Aux{})
		return true
	case il.Endfilter:
		r.terminate(ir.OpEndFilter, []ir.Value{r.pop()}, ir.Aux{})
		return true
	case il.Call, il.Callvirt, il.Newobj:
		if k := in.Constrained(); k != nil {
			r.constrainedCall(in.Method().Method, k)
			break
		}
		r.call(c, in.Method().Method)
	case il.Ldfld:
		r.ldfld(in.Field().Field)
	case il.Stfld:
		r.stfld(in.Field().Field)
	case il.Ldflda:
		r.ldflda(in.Field().Field)
	case il.Ldsfld:
		r.initCheck(il.InitTriggered(m, in), nil)
		f := in.Field().Field
		if f.Type.Kind == il.KValue {
			r.push(r.copyOf(r.staticAddr(f), f.Type))
			break
		}
		r.push(r.value(ir.OpLdStatic, ir.KindOf(f.Type), ir.Aux{Ref: f}))
	case il.Stsfld:
		r.initCheck(il.InitTriggered(m, in), nil)
		f := in.Field().Field
		if f.Type.Kind == il.KValue {
			r.copyStruct(r.staticAddr(f), r.pop(), f.Type)
			break
		}
		v := r.coerce(r.pop(), f.Type)
		r.emit(ir.OpStStatic, ir.KindOf(f.Type), ir.NoValue, []ir.Value{v}, ir.Aux{Ref: f})
	case il.Ldsflda:
		r.initCheck(il.InitTriggered(m, in), nil)
		r.push(r.staticAddr(in.Field().Field))
	case il.LdindI1, il.LdindU1, il.LdindI2, il.LdindU2, il.LdindI4, il.LdindU4, il.LdindI8, il.LdindI,
		il.LdindR4, il.LdindR8, il.LdindRef:
		r.ldobj(indTypes.at(c))
	case il.StindI1, il.StindI2, il.StindI4, il.StindI8, il.StindI, il.StindR4, il.StindR8, il.StindRef:
		r.stobj(indTypes.at(c))
	case il.Ldobj:
		r.ldobj(in.Type())
	case il.Stobj:
		r.stobj(in.Type())
	case il.Cpobj:
		r.cpobj(in.Type())
	case il.Initobj:
		r.initobj(in.Type())
	case il.Sizeof:
		r.push(r.constI32(sizeOf(in.Type())))
	case il.Unbox:
		r.unbox(in.Type())
	case il.Ldelema:
		r.ldelema(in.Type())
	case il.Isinst:
		obj := r.pop()
		r.push(r.value(ir.OpIsInst, ir.Ref, ir.Aux{Type: in.Type()}, obj))
	case il.Castclass:
		obj := r.pop()
		r.castCheck(obj, in.Type())
		r.push(obj)
	case il.Box:
		if in.Type().Kind == il.KValue {
			r.boxStruct(in.Type())
			break
		}
		v := r.pop()
		if in.Type().IsRef() {
			r.push(v)
			break
		}
		v = r.coerce(v, in.Type())
		r.push(r.value(ir.OpBox, ir.Ref, ir.Aux{Type: in.Type()}, v))
	case il.UnboxAny:
		obj := r.pop()
		if in.Type().IsRef() {
			r.castCheck(obj, in.Type())
			r.push(obj)
			break
		}
		r.unboxCheck(obj, in.Type())
		if t := in.Type(); t.Kind == il.KValue {
			r.push(r.copyOf(r.boxData(obj), t))
			break
		}
		r.push(r.value(ir.OpUnbox, ir.KindOf(in.Type()), ir.Aux{Type: in.Type()}, obj))
	case il.Newarr:
		n := r.toI64(r.pop())
		r.check(r.cmp(ir.Lt, n, r.constI64(0)), "System.OverflowException")
		r.push(r.value(ir.OpNewArr, ir.Ref, ir.Aux{Type: in.Type()}, n))
	case il.Ldlen:
		arr := r.pop()
		r.nullCheck(arr)
		r.push(r.value(ir.OpArrLen, ir.I64, ir.Aux{}, arr))
	case il.Ldelem:
		r.ldelem(in.Type())
	case il.Stelem:
		r.stelem(in.Type())
	default:
		// The verifier admits nothing else outside exception handlers.
		panic(fmt.Sprintf("reader: unexpected instruction %s at IL_%04x", in.Op, in.Offset))
	}
	return false
}

// castFailBlock returns a cold block throwing InvalidCastException for a
// failed cast of obj to t (the message names both types).
func (r *reader) castFailBlock(obj ir.Value, t *il.Type) *ir.Block {
	b := r.newBlock()
	b.Cold = true
	b.Term = &ir.Instr{Op: ir.OpThrowHelper, Dst: ir.NoValue, Dst2: ir.NoValue, Args: []ir.Value{obj},
		Aux: ir.Aux{Ref: r.mod.Class("System.InvalidCastException"), Type: t}, ILOffset: r.ilOff}
	return b
}

// castCheck throws InvalidCastException unless obj is null or an instance
// of t.
func (r *reader) castCheck(obj ir.Value, t *il.Type) {
	chk := r.newBlock()
	join := r.newBlock()
	r.terminate(ir.OpIf, []ir.Value{obj}, ir.Aux{}, chk, join)
	r.cur = chk
	res := r.value(ir.OpIsInst, ir.Ref, ir.Aux{Type: t}, obj)
	r.branchOut(r.cmp(ir.Eq, res, r.value(ir.OpConst, ir.Ref, ir.Aux{})), r.castFailBlock(obj, t))
	r.terminate(ir.OpJump, nil, ir.Aux{}, join)
	r.cur = join
}

// call imports call, callvirt and newobj of callee.
func (r *reader) call(c il.Op, callee *il.Method) {
	if r.stringCall(callee) {
		return
	}
	n := len(callee.Params)
	args := r.popN(n)
	for i, p := range callee.Params {
		if p.Type.Kind == il.KValue {
			// The callee owns its copy: not a variable's block.
			args[i] = r.materialize(args[i])
			continue
		}
		args[i] = r.coerce(args[i], p.Type)
	}
	if c == il.Newobj && callee.Owner.ValueType {
		t := callee.Owner.Type()
		tmp := r.temp(t)
		r.emit(ir.OpZeroBlk, 0, ir.NoValue, []ir.Value{tmp}, ir.Aux{Int: int64(t.Words())})
		r.emit(ir.OpCall, 0, ir.NoValue, append([]ir.Value{tmp}, args...), ir.Aux{Ref: callee})
		r.push(tmp)
		return
	}
	if c == il.Newobj && callee.NewobjCall != nil {
		// A string's constructor: a static call that returns the string.
		dst := r.f.NewValue(ir.Ref)
		r.emit(ir.OpCall, 0, dst, args, ir.Aux{Ref: callee.NewobjCall})
		r.push(dst)
		return
	}
	if c == il.Newobj {
		obj := r.value(ir.OpAlloc, ir.Ref, ir.Aux{Ref: callee.Owner})
		r.emit(ir.OpCall, 0, ir.NoValue, append([]ir.Value{obj}, args...), ir.Aux{Ref: callee})
		r.push(obj)
		return
	}
	op := ir.OpCall
	if callee.HasThis() {
		this := r.pop()
		if c == il.Callvirt {
			r.nullCheck(this)
			if callee.Virtual {
				op = ir.OpCallVirt
			}
		}
		args = append([]ir.Value{this}, args...)
	}
	if callee.Ret.Kind == il.KValue {
		buf := r.temp(callee.Ret)
		r.emit(op, 0, ir.NoValue, append(args, buf), ir.Aux{Ref: callee})
		r.push(buf)
		return
	}
	dst := ir.NoValue
	if callee.Ret.Kind != il.KVoid {
		dst = r.f.NewValue(ir.KindOf(callee.Ret))
	}
	r.emit(op, 0, dst, args, ir.Aux{Ref: callee})
	if dst != ir.NoValue {
		r.push(dst)
	}
}

// finish drops unreachable blocks, renumbers the rest (cold blocks last)
// and computes predecessors.
func (r *reader) finish() {
	f := r.f
	reach := make(map[*ir.Block]bool, len(f.Blocks))
	var work []*ir.Block // an explicit stack: block chains can be long
	visit := func(b *ir.Block) {
		if !reach[b] {
			reach[b] = true
			work = append(work, b)
		}
	}
	visit(f.Blocks[0])
	for _, b := range r.handlerRoot {
		visit(b)
	}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, s := range b.Succs {
			visit(s)
		}
	}
	hot := ir.Make[*ir.Block](f.Cache, len(f.Blocks))[:0]
	var cold []*ir.Block
	for _, b := range f.Blocks {
		if !reach[b] {
			continue
		}
		if b.Cold {
			cold = append(cold, b)
		} else {
			hot = append(hot, b)
		}
	}
	f.Blocks = append(hot, cold...)
	// Predecessor lists carved from one array, each with room for its
	// own (a pass that adds a predecessor reallocates that list alone).
	npreds := make([]int32, len(f.Blocks))
	edges := 0
	for i, b := range f.Blocks {
		b.ID = i
		b.Preds = nil
	}
	for _, b := range f.Blocks {
		for _, s := range b.Succs {
			if reach[s] {
				npreds[s.ID]++
				edges++
			}
		}
	}
	preds := ir.Make[*ir.Block](f.Cache, edges)
	for _, b := range f.Blocks {
		n := int(npreds[b.ID])
		b.Preds, preds = preds[:0:n], preds[n:]
	}
	for _, b := range f.Blocks {
		for _, s := range b.Succs {
			s.Preds = append(s.Preds, b)
		}
	}
}

// stringCall imports a call of String::get_Length, get_Chars or
// Equals(string) as simpler operations, and reports whether callee was
// one of them.
//
// get_Length and get_Chars become the loads they are: a string is laid
// out as a char array (abi.StrLen and abi.StrData are abi.ArrLen and
// abi.ArrData), so the array operations read it, and the checks are the
// ones a char array gets: a null string throws NullReferenceException,
// an index outside [0, Length) IndexOutOfRangeException, as the base
// library's methods do. Being ordinary IR, the checks are subject to the
// null-check analysis and the values to register allocation, and no
// helper exit is left.
//
// s.Equals(t) is op_Equality(s, t) once s is known non-null (both are
// true for the same reference, false for a null t, else compare the
// characters), and the code generator calls the runtime's native
// routine for op_Equality.
func (r *reader) stringCall(callee *il.Method) bool {
	switch callee.BuiltinKind {
	case il.StringGetLength:
		s := r.pop()
		r.nullCheck(s)
		n := r.value(ir.OpArrLen, ir.I64, ir.Aux{}, s)
		r.push(r.value(ir.OpConv, ir.I32, ir.Aux{Type: il.Int32}, n))
	case il.StringGetChars:
		idx := r.toI64(r.coerce(r.pop(), il.Int32))
		s := r.pop()
		r.nullCheck(s)
		n := r.value(ir.OpArrLen, ir.I64, ir.Aux{}, s)
		r.check(r.cmp(ir.GeUn, idx, n), "System.IndexOutOfRangeException")
		r.push(r.value(ir.OpLdElem, ir.I32, ir.Aux{Type: il.Char}, s, idx))
	case il.StringEqualsString:
		eq := r.mod.BuiltinMethod(il.StringOpEquality)
		if eq == nil {
			return false
		}
		t := r.pop()
		s := r.pop()
		r.nullCheck(s)
		dst := r.f.NewValue(ir.I32)
		r.emit(ir.OpCall, 0, dst, []ir.Value{s, t}, ir.Aux{Ref: eq})
		r.push(dst)
	default:
		return false
	}
	return true
}
