package interp

import (
	"math"

	"miniil/il"
)

// The base library members of il/library.go: Object.Equals and
// ReferenceEquals, String's !=, concatenations of objects and searches.

// libMember runs the base library method of kind k (one of
// il/library.go's) on args (this first).
func (s *state) libMember(k il.BuiltinKind, args []value) (value, bstatus) {
	switch k {
	case il.ObjectEquals:
		this, obj := args[0].r, args[1].r
		if x, ok := this.(*svalue); ok && this != obj {
			// ValueType.Equals: the fields, which may call Equals
			// overrides of objects they hold (then in a native frame).
			y, ok := obj.(*svalue)
			if !ok || y.cls != x.cls {
				return value{n: 0}, stOK
			}
			n := &native{op: natValueEquals, eq: []eqWork{{x: x.w, y: y.w, xv: x, yv: y, leaves: il.ValueLeaves(x.cls)}}}
			if eq, done := s.eqStep(n); done {
				return value{n: b2i(eq)}, stOK
			}
			return s.pushNative(n)
		}
		return value{n: b2i(s.objectEquals(this, obj))}, stOK
	case il.StringEqualsObject:
		// String.Equals(object): true for the same reference (a null
		// this too, reached with call), false for anything but a
		// string, then the comparison, which needs this.
		this, obj := args[0].r, args[1].r
		if this == obj {
			return value{n: 1}, stOK
		}
		if _, ok := obj.(*managedString); !ok {
			return value{n: 0}, stOK
		}
		if this == nil {
			return s.nre()
		}
		x, _ := this.(*managedString)
		return value{n: b2i(stringsEqual(x, obj.(*managedString)))}, stOK
	case il.ObjectReferenceEquals:
		return value{n: b2i(args[0].r == args[1].r)}, stOK
	case il.StringConcatObjectArray:
		arr, ok := args[0].r.(*managedArray)
		if !ok {
			return s.throwing(s.newExcMsg(il.ArgumentNullClass, il.ArgumentNullMessage("args")))
		}
		n := &native{op: natConcatArray, arr: arr, parts: make([]*managedString, len(arr.r)), n: len(arr.r)}
		defer s.release(s.hold(n)) // the strings made so far stay live
		for ; n.i < n.n; n.i++ {
			str, ok, exc := s.quickString(arr.r[n.i])
			if exc != nil {
				return s.throwing(exc)
			}
			if !ok {
				return s.pushNative(n)
			}
			n.parts[n.i] = str
		}
		return s.strResult(s.concatArrayOf(n.parts))
	case il.StringIndexOfCharInt32, il.StringIndexOfStringInt32, il.StringLastIndexOfChar,
		il.StringContains, il.StringStartsWith, il.StringEndsWith:
		return s.searchMethod(k, args)
	}
	return value{}, s.fail(s.method(s.mod.BuiltinMethod(k)))
}

// objectEquals is Object.Equals(object) of this and obj: a boxed
// primitive equals a box of its own type with an equal value
// (il.BoxEquals, as the primitive's override decides), any other object
// only itself (strings too: a callvirt on a string reaches String's
// override instead); null equals only null.
func (s *state) objectEquals(this, obj any) bool {
	if this == obj {
		return true
	}
	if x, ok := this.(*boxedValue); ok {
		y, ok := obj.(*boxedValue)
		return ok && x.k == y.k && il.BoxEquals(x.k, boxBits(x), boxBits(y))
	}
	return false
}

// boxBits is a box's value in the form il.BoxEquals takes.
func boxBits(b *boxedValue) uint64 { return wordBits(b.k, b.n) }

// wordBits is a value n of primitive kind k in the form il.BoxEquals
// takes: float32 as its 32 bits (the interpreter keeps it as float64
// bits).
func wordBits(k il.Kind, n int64) uint64 {
	if k == il.KR4 {
		return uint64(math.Float32bits(float32(f64(n))))
	}
	return uint64(n)
}

// eqWork is a comparison of two values of a value type in progress (in
// a natValueEquals frame): their words x and y, compared leaf by leaf
// from leaf i. xv and yv are the boxes (or values) the words are of,
// which the comparison keeps alive.
type eqWork struct {
	x, y   []value
	xv, yv *svalue
	leaves []il.ValueLeaf
	i      int
}

// eqStep goes on with ValueType.Equals of the comparisons in n.eq (the
// newest first: a field holding a boxed value type pushes its own): the
// leaves in order, primitives as il.BoxEquals does, references with the
// first one's virtual Equals (null equals only null), as current .NET
// compares fields, floats included. It returns done with the result, or
// not done with n.callee, n.vals[0] and n.vals[1] set to the Equals
// override to call and its arguments, whose result decides the leaf.
func (s *state) eqStep(n *native) (eq, done bool) {
	for len(n.eq) > 0 {
		w := &n.eq[len(n.eq)-1]
		if w.i == len(w.leaves) {
			n.eq = n.eq[:len(n.eq)-1]
			continue
		}
		l := w.leaves[w.i]
		w.i++
		x, y := w.x[l.Word], w.y[l.Word]
		if !l.Type.IsRef() {
			if !il.BoxEquals(l.Type.Kind, wordBits(l.Type.Kind, x.n), wordBits(l.Type.Kind, y.n)) {
				return false, true
			}
			continue
		}
		a, b := x.r, y.r
		switch av := a.(type) {
		case nil:
			if b != nil {
				return false, true
			}
		case *managedString:
			if bs, ok := b.(*managedString); !ok || !stringsEqual(av, bs) {
				return false, true
			}
		case *managedObject:
			if m := av.cls.vtable[s.equalsSlot()]; m.bi != il.ObjectEquals {
				n.callee, n.vals[0], n.vals[1] = m, a, b
				return false, false
			}
			if a != b {
				return false, true
			}
		case *svalue:
			bv, ok := b.(*svalue)
			if !ok || bv.cls != av.cls {
				return false, true
			}
			if a != b {
				n.eq = append(n.eq, eqWork{x: av.w, y: bv.w, xv: av, yv: bv, leaves: il.ValueLeaves(av.cls)})
			}
		default:
			if !s.objectEquals(a, b) {
				return false, true
			}
		}
	}
	return true, true
}

// natEquals runs the natValueEquals frame on top: the pending Equals
// override, or the comparison on to its end.
func (s *state) natEquals(n *native) error {
	if m := n.callee; m != nil {
		n.callee = nil
		return s.callFromGo(m, value{r: n.vals[0]}, value{r: n.vals[1]})
	}
	eq, done := s.eqStep(n)
	if !done {
		return s.natEquals(n)
	}
	s.popFrame()
	return s.deliver(value{n: b2i(eq)}, true)
}

// equalsSlot is the vtable slot of Object.Equals.
func (s *state) equalsSlot() int {
	for i, m := range vtableOf(s.objClass) {
		if m.BuiltinKind == il.ObjectEquals {
			return i
		}
	}
	return -1
}

// searchMethod runs String's IndexOf(char, int32), IndexOf(string,
// int32), LastIndexOf(char), Contains, StartsWith and EndsWith: a null
// this is a NullReferenceException, a null string argument an
// ArgumentNullException (parameter value), a start index outside 0 ..
// Length an ArgumentOutOfRangeException.
func (s *state) searchMethod(k il.BuiltinKind, args []value) (value, bstatus) {
	str, ok := args[0].r.(*managedString)
	if !ok {
		return s.nre()
	}
	u := str.u
	switch k {
	case il.StringIndexOfCharInt32:
		i, ok := il.IndexOfCharFrom(u, uint16(args[1].n), int32(args[2].n))
		if !ok {
			return s.throwing(s.newExcMsg(il.ArgumentOutOfRangeClass, il.StartIndexMessage()))
		}
		return value{n: int64(i)}, stOK
	case il.StringLastIndexOfChar:
		return value{n: int64(il.LastIndexOfChar(u, uint16(args[1].n)))}, stOK
	}
	v, ok := args[1].r.(*managedString)
	if !ok {
		return s.throwing(s.newExcMsg(il.ArgumentNullClass, il.ArgumentNullMessage("value")))
	}
	switch k {
	case il.StringIndexOfStringInt32:
		i, ok := il.IndexOfStringFrom(u, v.u, int32(args[2].n))
		if !ok {
			return s.throwing(s.newExcMsg(il.ArgumentOutOfRangeClass, il.StartIndexMessage()))
		}
		return value{n: int64(i)}, stOK
	case il.StringContains:
		return value{n: b2i(il.IndexOfString(u, v.u) >= 0)}, stOK
	case il.StringStartsWith:
		return value{n: b2i(il.StartsWith(u, v.u))}, stOK
	case il.StringEndsWith:
		return value{n: b2i(il.EndsWith(u, v.u))}, stOK
	}
	return value{}, s.fail(s.method(s.mod.BuiltinMethod(k)))
}

// concatArrayOf is String.Concat(object[]) once each element's ToString
// is known (nil: null, empty): String.Empty for no element, the string
// itself for one, else String.Empty when every string is empty or a new
// string charged to the heap (exc: the OutOfMemoryException to throw).
func (s *state) concatArrayOf(parts []*managedString) (*managedString, *managedObject) {
	switch len(parts) {
	case 0:
		return s.empty, nil
	case 1:
		if parts[0] != nil {
			return parts[0], nil
		}
		return s.empty, nil
	}
	n := 0
	for _, p := range parts {
		n += len(p.orEmpty())
	}
	if n == 0 {
		return s.empty, nil
	}
	return s.concat(parts...)
}
