package reader

import (
	"miniil/il"
	"miniil/ir"
)

// Value types and managed pointers.
//
// A managed pointer is a Ptr: an address the GC information reports as
// an interior pointer. A value of a value type is handled
// through the address of its words: a value-type local lives in a frame
// block (ir.Func.Slots), a value-type argument is the address of the
// caller's copy (the callee owns it), and a value on the evaluation stack
// is the address of a frame block of its own, a temporary that the
// instruction producing it fills (a copy) and that only that stack entry
// refers to. A method returning a value type stores it through its
// return buffer (ir.Func.RetBuf), a block of the caller's frame.
//
// Two shortcuts avoid copies: a load of a value-type variable whose
// address the method never takes pushes a view of the variable's own
// block, copied only if the variable is stored to while the view is on
// the stack, or when the view is passed to a call or crosses a block
// boundary; and a field of a value on the stack is a view of its words.
//
// A primitive or reference variable whose address the method takes
// (ldloca, ldarga) lives in a one-word frame block instead of a virtual
// register: every load and store goes through memory, and an exposed
// argument is copied there on entry.

// prepareVars finds the variables kept in memory and gives them frame
// blocks. It returns the block that copies exposed arguments to theirs,
// created first so that it is the method's entry (nil if none).
func (r *reader) prepareVars() *ir.Block {
	m, f := r.m, r.f
	r.varSlot = ir.Emptied(&r.maps.varSlot)
	r.exposed = ir.Emptied(&r.maps.exposed)
	r.structOf = ir.Emptied(&r.maps.structOf)
	r.view = ir.Emptied(&r.maps.view)
	r.nonNull = ir.Emptied(&r.maps.nonNull)
	r.structSpills = ir.Emptied(&r.maps.structSpills)
	for _, in := range m.Code {
		switch in.Op.Canon() {
		case il.LdargaS, il.Ldarga:
			r.exposed[ir.Value(in.Int)] = true
		case il.LdlocaS, il.Ldloca:
			r.exposed[ir.Value(f.NumArgs+int(in.Int))] = true
		}
	}
	needCopy := false
	for i := 0; i < m.NumArgs(); i++ {
		v := ir.Value(i)
		if r.exposed[v] && m.ArgType(i).Kind != il.KValue {
			r.varSlot[v] = f.NewSlot(m.ArgType(i))
			needCopy = true
		}
	}
	for i, l := range m.Locals {
		v := ir.Value(f.NumArgs + i)
		switch {
		case l.Type.Kind == il.KValue, r.exposed[v]:
			r.varSlot[v] = f.NewSlot(l.Type)
		default:
			continue
		}
		f.ZeroSlots = append(f.ZeroSlots, r.varSlot[v])
	}
	if !needCopy {
		return nil
	}
	b := f.NewBlock(0)
	r.markDone(b)
	return b
}

// copyExposedArgs stores the exposed primitive and reference arguments
// in their frame blocks (in the entry block prepareVars made).
func (r *reader) copyExposedArgs() {
	for i := 0; i < r.m.NumArgs(); i++ {
		v := ir.Value(i)
		if slot, ok := r.varSlot[v]; ok {
			t := r.m.ArgType(i)
			r.emit(ir.OpStore, ir.KindOf(t), ir.NoValue, []ir.Value{r.slotAddr(slot), v}, ir.Aux{Type: memType(t)})
		}
	}
}

// memType is the type a load or store of a variable of type t accesses:
// t itself, or object for any reference type (one word either way).
func memType(t *il.Type) *il.Type {
	if t.IsRef() {
		return il.Object
	}
	return t
}

// varType returns the type of argument or local variable v.
func (r *reader) varType(v ir.Value) *il.Type {
	if int(v) < r.m.NumArgs() {
		return r.m.ArgType(int(v))
	}
	return r.m.Locals[int(v)-r.f.NumArgs].Type
}

// inMemory reports whether variable v is kept in memory: a value type
// (its block, or for an argument the caller's copy) or an exposed one.
func (r *reader) inMemory(v ir.Value) bool {
	_, ok := r.varSlot[v]
	return ok || r.varType(v).Kind == il.KValue
}

// slotAddr emits the address of frame block slot.
func (r *reader) slotAddr(slot int) ir.Value {
	a := r.value(ir.OpSlotAddr, ir.Ptr, ir.Aux{Int: int64(slot)})
	r.nonNull[a] = true
	return a
}

// varAddr emits the address of variable v (kept in memory).
func (r *reader) varAddr(v ir.Value) ir.Value {
	if slot, ok := r.varSlot[v]; ok {
		return r.slotAddr(slot)
	}
	return v // a value-type argument: the address of its copy
}

// temp returns a new temporary of value type t: a fresh frame block,
// pushed by nobody yet.
func (r *reader) temp(t *il.Type) ir.Value {
	a := r.slotAddr(r.f.NewSlot(t))
	r.structOf[a] = t
	return a
}

// copyStruct copies a value of value type t from address src to dst.
func (r *reader) copyStruct(dst, src ir.Value, t *il.Type) {
	if dst == src {
		return
	}
	r.emit(ir.OpCopyBlk, 0, ir.NoValue, []ir.Value{dst, src}, ir.Aux{Int: int64(t.Words()), Type: t})
}

// copyOf returns a new temporary holding a copy of the value at src.
func (r *reader) copyOf(src ir.Value, t *il.Type) ir.Value {
	tmp := r.temp(t)
	r.copyStruct(tmp, src, t)
	return tmp
}

// lea emits base + off, a non-null address (base is a checked reference
// or address).
func (r *reader) lea(base ir.Value, off int) ir.Value {
	a := r.value(ir.OpLea, ir.Ptr, ir.Aux{Int: int64(off)}, base)
	r.nonNull[a] = true
	return a
}

// load emits a load of a value of type t (no value type) at addr + off.
func (r *reader) load(addr ir.Value, off int, t *il.Type) ir.Value {
	return r.value(ir.OpLoad, ir.KindOf(t), ir.Aux{Int: int64(off), Type: memType(t)}, addr)
}

// storeAt emits a store of v, converted for type t, at addr + off.
func (r *reader) storeAt(addr ir.Value, off int, v ir.Value, t *il.Type) {
	v = r.coerce(v, t)
	r.emit(ir.OpStore, ir.KindOf(t), ir.NoValue, []ir.Value{addr, v}, ir.Aux{Int: int64(off), Type: memType(t)})
}

// ptrCheck throws NullReferenceException when managed pointer p is null
// (an uninitialized pointer variable), unless p is known non-null.
func (r *reader) ptrCheck(p ir.Value) {
	if !r.nonNull[p] {
		r.nullCheck(p)
	}
}

// materialize returns a stack value that no variable can change: a view
// is copied to a temporary, anything else is itself.
func (r *reader) materialize(v ir.Value) ir.Value {
	if _, ok := r.view[v]; !ok {
		return v
	}
	return r.copyOf(v, r.structOf[v])
}

// protectViews copies the views of variable v on the stack before v is
// stored to.
func (r *reader) protectViews(v ir.Value) {
	for i, s := range r.stack {
		if w, ok := r.view[s]; ok && w == v {
			r.stack[i] = r.materialize(s)
		}
	}
}

// materializeAll copies every view on the stack (at a block boundary).
func (r *reader) materializeAll() {
	for i, s := range r.stack {
		r.stack[i] = r.materialize(s)
	}
}

// loadVar imports ldarg and ldloc of a variable kept in memory.
func (r *reader) loadVar(v ir.Value) {
	t := r.varType(v)
	addr := r.varAddr(v)
	if t.Kind != il.KValue {
		r.push(r.load(addr, 0, t))
		return
	}
	if r.exposed[v] && !r.consumedNext() {
		r.push(r.copyOf(addr, t))
		return
	}
	// A value-type argument's view is the argument itself (its
	// address), which no instruction redefines.
	r.structOf[addr] = t
	r.view[addr] = v
	r.push(addr)
}

// consumedNext reports whether the value the current instruction pushes
// is consumed by the next one, in the same block, by an instruction that
// reads it before anything can write through a pointer: ldfld, ret, or a
// store to a variable. A view of an exposed variable is then safe.
func (r *reader) consumedNext() bool {
	i := r.idx + 1
	if i >= len(r.m.Code) {
		return false
	}
	if r.blockAt[i] != nil {
		return false
	}
	switch r.m.Code[i].Op.Canon() {
	case il.Ldfld, il.Ret, il.Stloc0, il.Stloc1, il.Stloc2, il.Stloc3, il.StlocS, il.Stloc, il.StargS, il.Starg:
		return true
	}
	return false
}

// storeVar imports starg and stloc into a variable kept in memory.
func (r *reader) storeVar(v ir.Value) {
	t := r.varType(v)
	x := r.pop()
	if t.Kind != il.KValue {
		r.storeAt(r.varAddr(v), 0, x, t)
		return
	}
	r.protectViews(v)
	r.copyStruct(r.varAddr(v), x, t)
}

// addrOfVar imports ldloca and ldarga.
func (r *reader) addrOfVar(v ir.Value) {
	addr := r.varAddr(v)
	if addr == v {
		addr = r.value(ir.OpCopy, ir.Ptr, ir.Aux{}, v)
		r.nonNull[addr] = true
	}
	r.push(addr)
}

// fieldAddr emits the address of instance field f of obj: an object
// (checked non-null), or the address of a value-type value.
func (r *reader) fieldAddr(obj ir.Value, f *il.Field) ir.Value {
	if r.kind(obj) == ir.Ref {
		a := r.value(ir.OpFieldAddr, ir.Ptr, ir.Aux{Ref: f}, obj)
		r.nonNull[a] = true
		return a
	}
	return r.lea(obj, 8*f.Slot)
}

// isView reports whether stack value v is a view of a variable.
func (r *reader) isView(v ir.Value) bool {
	_, ok := r.view[v]
	return ok
}

// structSpill returns the spill temporary for a value of value type t at
// stack depth d: one per depth and type, so that it is known as a value
// of t in every block it enters.
func (r *reader) structSpill(d int, t *il.Type) ir.Value {
	key := structSpillKey{d, t.Name}
	v, ok := r.structSpills[key]
	if !ok {
		v = r.f.NewValue(ir.Ptr)
		r.structSpills[key] = v
		r.structOf[v] = t
	}
	return v
}

type structSpillKey struct {
	depth int
	name  string
}

// isStruct reports whether stack value v is a value of a value type.
func (r *reader) isStruct(v ir.Value) bool { return r.structOf[v] != nil }

// ldfld imports ldfld from an object, a managed pointer or a value.
func (r *reader) ldfld(f *il.Field) {
	obj := r.pop()
	off := 8 * f.Slot // in a value
	switch {
	case r.isStruct(obj):
		if f.Type.Kind == il.KValue {
			a := r.lea(obj, off)
			r.structOf[a] = f.Type
			if w, ok := r.view[obj]; ok {
				if r.exposed[w] {
					// Only safe until the next instruction: copy.
					r.push(r.copyOf(a, f.Type))
					return
				}
				r.view[a] = w
			}
			r.push(a)
			return
		}
		r.push(r.load(obj, off, f.Type))
		return
	case r.kind(obj) == ir.Ptr: // a managed pointer
		r.ptrCheck(obj)
	default:
		r.nullCheck(obj)
		if f.Type.Kind != il.KValue {
			r.push(r.value(ir.OpLdField, ir.KindOf(f.Type), ir.Aux{Ref: f}, obj))
			return
		}
	}
	if f.Type.Kind == il.KValue {
		r.push(r.copyOf(r.fieldAddr(obj, f), f.Type))
		return
	}
	r.push(r.load(obj, off, f.Type))
}

// stfld imports stfld into an object or through a managed pointer.
func (r *reader) stfld(f *il.Field) {
	v := r.pop()
	obj := r.pop()
	if r.kind(obj) == ir.Ptr {
		r.ptrCheck(obj)
	} else {
		r.nullCheck(obj)
		if f.Type.Kind != il.KValue {
			v = r.coerce(v, f.Type)
			r.emit(ir.OpStField, ir.KindOf(f.Type), ir.NoValue, []ir.Value{obj, v}, ir.Aux{Ref: f})
			return
		}
	}
	if f.Type.Kind == il.KValue {
		r.copyStruct(r.fieldAddr(obj, f), v, f.Type)
		return
	}
	r.storeAt(obj, 8*f.Slot, v, f.Type)
}

// ldflda imports ldflda.
func (r *reader) ldflda(f *il.Field) {
	obj := r.pop()
	if r.kind(obj) == ir.Ptr {
		r.ptrCheck(obj)
	} else {
		r.nullCheck(obj)
	}
	r.push(r.fieldAddr(obj, f))
}

// staticAddr emits the address of static field f.
func (r *reader) staticAddr(f *il.Field) ir.Value {
	a := r.value(ir.OpStaticAddr, ir.Ptr, ir.Aux{Ref: f})
	r.nonNull[a] = true
	return a
}

// ldobj imports ldobj and the ldind forms: a load through a pointer.
func (r *reader) ldobj(t *il.Type) {
	p := r.pop()
	r.ptrCheck(p)
	if t.Kind == il.KValue {
		r.push(r.copyOf(p, t))
		return
	}
	r.push(r.load(p, 0, t))
}

// stobj imports stobj and the stind forms: a store through a pointer.
func (r *reader) stobj(t *il.Type) {
	v := r.pop()
	p := r.pop()
	r.ptrCheck(p)
	if t.Kind == il.KValue {
		r.copyStruct(p, v, t)
		return
	}
	r.storeAt(p, 0, v, t)
}

// cpobj imports cpobj.
func (r *reader) cpobj(t *il.Type) {
	src := r.pop()
	dst := r.pop()
	r.ptrCheck(dst)
	r.ptrCheck(src)
	if t.Kind == il.KValue {
		r.copyStruct(dst, src, t)
		return
	}
	r.storeAt(dst, 0, r.load(src, 0, t), t)
}

// initobj imports initobj.
func (r *reader) initobj(t *il.Type) {
	p := r.pop()
	r.ptrCheck(p)
	if t.Kind == il.KValue {
		r.emit(ir.OpZeroBlk, 0, ir.NoValue, []ir.Value{p}, ir.Aux{Int: int64(t.Words())})
		return
	}
	var zero ir.Value
	switch k := ir.KindOf(t); k {
	case ir.Ref:
		zero = r.value(ir.OpConst, ir.Ref, ir.Aux{})
	case ir.F32:
		zero = r.constF32(0)
	case ir.F64:
		zero = r.constF64(0)
	default:
		zero = r.zero(k)
	}
	r.storeAt(p, 0, zero, t)
}

// indTypes are the types ldind and stind forms access.
var indTypes = makeOpTable(map[il.Op]*il.Type{
	il.LdindI1: il.Int8, il.LdindU1: il.UInt8, il.LdindI2: il.Int16, il.LdindU2: il.UInt16,
	il.LdindI4: il.Int32, il.LdindU4: il.UInt32, il.LdindI8: il.Int64, il.LdindI: il.NatInt,
	il.LdindR4: il.Float32, il.LdindR8: il.Float64, il.LdindRef: il.Object,
	il.StindI1: il.Int8, il.StindI2: il.Int16, il.StindI4: il.Int32, il.StindI8: il.Int64,
	il.StindI: il.NatInt, il.StindR4: il.Float32, il.StindR8: il.Float64, il.StindRef: il.Object,
})

// sizeOf is what sizeof pushes for type t: CoreCLR's size of a value
// type, the natural size of a primitive, 8 for a reference.
func sizeOf(t *il.Type) int64 {
	if t.Kind == il.KValue {
		return int64(t.Class.Size)
	}
	return int64(il.ElemSize(t))
}

// boxStruct imports box of a value type: an object of the value type's
// class holding a copy of the value's words.
func (r *reader) boxStruct(t *il.Type) {
	v := r.pop()
	obj := r.value(ir.OpAlloc, ir.Ref, ir.Aux{Ref: t.Class})
	r.copyStruct(r.boxData(obj), v, t)
	r.push(obj)
}

// boxData emits the address of the value in box obj.
func (r *reader) boxData(obj ir.Value) ir.Value {
	a := r.value(ir.OpBoxData, ir.Ptr, ir.Aux{}, obj)
	r.nonNull[a] = true
	return a
}

// unboxCheck checks that obj is a non-null box of exactly t.
func (r *reader) unboxCheck(obj ir.Value, t *il.Type) {
	r.nullCheck(obj)
	ok := r.value(ir.OpTypeIs, ir.I32, ir.Aux{Type: t}, obj)
	r.branchOut(r.cmp(ir.Eq, ok, r.constI32(0)), r.castFailBlock(obj, t))
}

// unbox imports unbox: the address of the value in the box.
func (r *reader) unbox(t *il.Type) {
	obj := r.pop()
	r.unboxCheck(obj, t)
	r.push(r.boxData(obj))
}

// elemAddr pops an index and an array and returns the checked address
// of the element, of type t.
func (r *reader) elemAddr(t *il.Type) ir.Value {
	arr, idx := r.arrayAccess()
	a := r.value(ir.OpElemAddr, ir.Ptr, ir.Aux{Type: t}, arr, idx)
	r.nonNull[a] = true
	return a
}

// ldelema imports ldelema: for an array of references, the array's own
// element type must be t exactly (ArrayTypeMismatchException), as a
// pointer typed t& could otherwise store a t into an array of a subtype.
func (r *reader) ldelema(t *il.Type) {
	if t.IsRef() {
		arr := r.stack[len(r.stack)-2]
		r.nullCheck(arr)
		ok := r.value(ir.OpTypeIs, ir.I32, ir.Aux{Type: il.ArrayOf(t)}, arr)
		r.check(r.cmp(ir.Eq, ok, r.constI32(0)), "System.ArrayTypeMismatchException")
	}
	r.push(r.elemAddr(t))
}

// constrainedCall imports `constrained. T callvirt M`, whose this is a
// pointer to a T: for a reference type, the object it points to is the
// this of an ordinary callvirt; a value type's own implementation of M is
// called on the pointer; otherwise the value is boxed and M called
// virtually on the box.
func (r *reader) constrainedCall(callee *il.Method, k *il.Constrained) {
	args := r.popN(len(callee.Params))
	p := r.pop()
	r.ptrCheck(p)
	t := k.Type
	switch {
	case t.IsRef():
		r.push(r.load(p, 0, t))
	case k.Direct != nil:
		r.push(p)
		r.push(args...)
		r.call(il.Call, k.Direct)
		return
	case t.Kind == il.KValue:
		obj := r.value(ir.OpAlloc, ir.Ref, ir.Aux{Ref: t.Class})
		r.copyStruct(r.boxData(obj), p, t)
		r.push(obj)
	default:
		r.push(r.value(ir.OpBox, ir.Ref, ir.Aux{Type: t}, r.load(p, 0, t)))
	}
	r.push(args...)
	r.call(il.Callvirt, callee)
}
