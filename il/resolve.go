package il

import (
	"fmt"
	"sort"
	"strings"
)

// resolve links names to declarations: base classes, class types, field
// and method references, argument and local names; it lays out fields and
// vtables and finds the entry point.
func resolve(m *Module) error {
	r := &resolver{m: m}
	m.classes = newBaseLibrary()
	for _, c := range m.Classes {
		if old, ok := m.classes[c.Name]; ok {
			if old.Builtin {
				r.errorf(c.Pos, "class %s is already defined by the base library", c.Name)
			} else {
				r.errorf(c.Pos, "class %s is defined twice (first at %s)", c.Name, old.Pos)
			}
			continue
		}
		m.classes[c.Name] = c
	}
	r.classes()
	if len(r.errs.list) > 0 {
		return r.errs.err()
	}
	r.members()
	r.typeInits()
	r.bodies()
	r.entry()
	return r.errs.err()
}

type resolver struct {
	m    *Module
	errs errorSink

	// Members by name, so resolving a reference does not scan every
	// declaration (made on first use).
	globalFields  map[string]*Field // the last declared of a name, as a scan finds it
	globalMethods *methodsByName
	classFields   map[*Class]map[string]*Field // the first declared in the class
	classMethods  map[*Class]*methodsByName
}

// methodsByName groups methods by name: the methods of a name, in
// declaration order, are lists[index[name]], all of them slices of one
// array (a list per name would be an allocation per name).
type methodsByName struct {
	index map[string]int32
	lists [][]*Method
}

// groupByName groups methods by name.
func groupByName(methods []*Method) *methodsByName {
	g := &methodsByName{index: make(map[string]int32, len(methods))}
	counts := make([]int32, 0, len(methods))
	for _, md := range methods {
		k, ok := g.index[md.Name]
		if !ok {
			k = int32(len(counts))
			g.index[md.Name] = k
			counts = append(counts, 0)
		}
		counts[k]++
	}
	all := make([]*Method, len(methods))
	g.lists = make([][]*Method, len(counts))
	start := 0
	for k, n := range counts {
		g.lists[k] = all[start : start : start+int(n)]
		start += int(n)
	}
	for _, md := range methods {
		k := g.index[md.Name]
		g.lists[k] = append(g.lists[k], md) // within its own part of all
	}
	return g
}

// named returns the methods named name, in declaration order.
func (g *methodsByName) named(name string) []*Method {
	if k, ok := g.index[name]; ok {
		return g.lists[k]
	}
	return nil
}

// globalField returns the global field named name (nil: none).
func (r *resolver) globalField(name string) *Field {
	if r.globalFields == nil {
		r.globalFields = make(map[string]*Field, len(r.m.Fields))
		for _, g := range r.m.Fields {
			r.globalFields[g.Name] = g
		}
	}
	return r.globalFields[name]
}

// methodsNamed returns the methods named name declared by class c (the
// global methods when c is nil), in declaration order.
func (r *resolver) methodsNamed(c *Class, name string) []*Method {
	if c == nil {
		if r.globalMethods == nil {
			r.globalMethods = groupByName(r.m.Methods)
		}
		return r.globalMethods.named(name)
	}
	if r.classMethods == nil {
		r.classMethods = map[*Class]*methodsByName{}
	}
	byName, ok := r.classMethods[c]
	if !ok {
		byName = groupByName(c.Methods)
		r.classMethods[c] = byName
	}
	return byName.named(name)
}

// fieldNamed returns the first field named name declared by class c.
func (r *resolver) fieldNamed(c *Class, name string) *Field {
	if r.classFields == nil {
		r.classFields = map[*Class]map[string]*Field{}
	}
	byName, ok := r.classFields[c]
	if !ok {
		byName = make(map[string]*Field, len(c.Fields))
		for _, f := range c.Fields {
			if _, dup := byName[f.Name]; !dup {
				byName[f.Name] = f
			}
		}
		r.classFields[c] = byName
	}
	return byName[name]
}

func (r *resolver) errorf(p Pos, format string, args ...any) {
	r.errs.add(p, fmt.Sprintf(format, args...))
}

// classes resolves base classes, rejects cycles and lays out fields and
// vtables, bases first.
func (r *resolver) classes() {
	m := r.m
	obj := m.classes[ObjectClass]
	for _, c := range m.Classes {
		if c.Interface {
			continue // no base class
		}
		if c.Extends == nil || c.Extends.Kind == KObject {
			c.Base = obj
			continue
		}
		b := m.classes[c.Extends.Name]
		switch {
		case c.Extends.Name == "System.Enum":
			r.errorf(c.Pos, "enum %s: enums are not supported in mini MSIL (use int32 constants)", c.Name)
		case b == nil:
			r.errorf(c.Pos, "class %s extends unknown class %s", c.Name, c.Extends.Name)
		case b.Name == ValueTypeClass:
			c.ValueType = true
			c.Base = b
			c.Extends.Class = b
			r.checkValueType(c)
		case b.ValueType:
			r.errorf(c.Pos, "class %s cannot extend value type %s (value types are sealed)", c.Name, b.Name)
		case b.Interface:
			r.errorf(c.Pos, "class %s cannot extend interface %s; list it after implements", c.Name, b.Name)
		case b.Name == StringClass || b.Name == ConsoleClass || hasAttr(b.Attrs, "sealed"):
			r.errorf(c.Pos, "class %s cannot extend sealed class %s", c.Name, b.Name)
		default:
			c.Base = b
			c.Extends.Class = b
		}
	}
	if len(r.errs.list) > 0 {
		return
	}
	// Cycle check and layout order.
	state := map[*Class]int{} // 1 visiting, 2 done
	var order []*Class
	var visit func(c *Class) bool
	visit = func(c *Class) bool {
		switch state[c] {
		case 1:
			return false
		case 2:
			return true
		}
		state[c] = 1
		if c.Base != nil && !visit(c.Base) {
			return false
		}
		state[c] = 2
		order = append(order, c)
		return true
	}
	// Base library first, in a fixed order.
	lib := []*Class{obj, m.classes[ValueTypeClass], m.classes[StringClass], m.classes[ConsoleClass], m.classes[ExceptionClass]}
	for _, e := range exceptionClasses {
		lib = append(lib, m.classes[e.name])
	}
	lib = append(lib, m.classes[StringBuilderClass])
	for _, c := range append(lib, m.Classes...) {
		if !visit(c) {
			r.errorf(c.Pos, "class %s inherits from itself", c.Name)
			return
		}
	}
	r.fieldTypes()
	if len(r.errs.list) > 0 {
		return
	}
	r.valueLayouts()
	if len(r.errs.list) > 0 {
		return
	}
	for _, c := range order {
		r.layout(c)
	}
	if len(r.errs.list) == 0 {
		r.interfaces(order)
	}
}

// checkValueType reports what a value type may not declare in mini MSIL.
func (r *resolver) checkValueType(c *Class) {
	if c.Interface {
		r.errorf(c.Pos, "interface %s cannot extend System.ValueType", c.Name)
	}
	if len(c.Implements) > 0 {
		r.errorf(c.Pos, "value type %s: value types implementing interfaces are not supported in mini MSIL", c.Name)
	}
	if hasAttr(c.Attrs, "abstract") {
		r.errorf(c.Pos, "value type %s cannot be abstract", c.Name)
	}
	for _, md := range c.Methods {
		if md.Virtual {
			r.errorf(md.Pos, "value type %s: virtual methods in value types are not supported in mini MSIL (%s)", c.Name, md.FullName())
		}
	}
}

// fieldTypes resolves the types of every field, which layout needs.
func (r *resolver) fieldTypes() {
	m := r.m
	check := func(f *Field) {
		if !r.resolveType(f.Type, f.Pos) {
			return
		}
		if f.Type.Kind == KByRef {
			r.errorf(f.Pos, "field %s cannot have type %s: a managed pointer cannot be stored in a field", f.FullName(), f.Type)
		}
	}
	for _, f := range m.Fields {
		check(f)
	}
	for _, c := range m.Classes {
		for _, f := range c.Fields {
			check(f)
		}
	}
}

// valueLayouts lays out every value type, the value types of its fields
// first, and rejects value types that contain themselves.
func (r *resolver) valueLayouts() {
	state := map[*Class]int{} // 1 visiting, 2 done
	var path []*Class
	var visit func(c *Class) bool
	visit = func(c *Class) bool {
		switch state[c] {
		case 1:
			chain := c.Name
			for k := len(path) - 1; k >= 0 && path[k] != c; k-- {
				chain = path[k].Name + " -> " + chain
			}
			r.errorf(c.Pos, "value type %s contains itself: %s -> %s (a value type cannot have a field of its own type)", c.Name, c.Name, chain)
			return false
		case 2:
			return true
		}
		state[c] = 1
		path = append(path, c)
		for _, f := range c.Fields {
			if !f.Static && f.Type.Kind == KValue && !visit(f.Type.Class) {
				return false
			}
		}
		path = path[:len(path)-1]
		r.layoutValue(c)
		state[c] = 2
		return true
	}
	for _, c := range r.m.Classes {
		if c.ValueType && !visit(c) {
			return
		}
	}
}

// layoutValue numbers a value type's fields in words and computes its
// CoreCLR size (Class.Size) and alignment.
func (r *resolver) layoutValue(c *Class) {
	n := 0
	seen := map[string]*Field{}
	type piece struct{ size, align int }
	var refs, others []piece
	c.RefWords = nil
	for _, f := range c.Fields {
		if old, ok := seen[f.Name]; ok {
			r.errorf(f.Pos, "field %s is defined twice in value type %s (first at %s)", f.Name, c.Name, old.Pos)
		}
		seen[f.Name] = f
		if f.Static {
			continue
		}
		f.Slot = n
		n += f.Type.Words()
		switch t := f.Type; {
		case t.IsRef():
			refs = append(refs, piece{8, 8})
			c.RefWords = append(c.RefWords, f.Slot)
		case t.Kind == KValue:
			for _, w := range t.Class.RefWords {
				c.RefWords = append(c.RefWords, f.Slot+w)
			}
			if t.Class.hasRefs {
				refs = append(refs, piece{t.Class.Size, t.Class.align})
			} else {
				others = append(others, piece{t.Class.Size, t.Class.align})
			}
		default:
			sz := ElemSize(t)
			others = append(others, piece{sz, sz})
		}
	}
	c.NumFields = max(n, 1) // an empty value type still takes a word
	c.hasRefs = len(refs) > 0
	// CoreCLR lays out a value type sequentially (natural alignment); one
	// that holds references gets the automatic layout: references first,
	// then the other fields from the largest alignment down.
	pieces := others
	if c.hasRefs {
		sort.SliceStable(others, func(i, j int) bool { return others[i].align > others[j].align })
		pieces = append(refs, others...)
	}
	off, align := 0, 1
	for _, p := range pieces {
		off = (off + p.align - 1) / p.align * p.align
		off += p.size
		align = max(align, p.align)
	}
	if off == 0 {
		off = 1 // an empty value type takes one byte
	}
	c.Size = (off + align - 1) / align * align
	c.align = align
}

// interfaces resolves what each class implements and each interface
// extends (transitively), numbers the interfaces and maps each class's
// interface slots to the methods that implement them.
func (r *resolver) interfaces(order []*Class) {
	m := r.m
	n := 0
	for _, c := range m.Classes {
		if c.Interface {
			c.IfaceIndex = n
			n++
		}
	}
	m.NumInterfaces = n
	// Interfaces first: what they extend, with a cycle check.
	state := map[*Class]int{}
	var path []*Class // the interfaces being extended, outermost first
	var extend func(c *Class) bool
	extend = func(c *Class) bool {
		switch state[c] {
		case 1:
			chain := c.Name
			for k := len(path) - 1; k >= 0 && path[k] != c; k-- {
				chain = path[k].Name + " -> " + chain
			}
			if len(chain) > len(c.Name) {
				r.errorf(c.Pos, "interface %s extends itself: %s -> %s", c.Name, c.Name, chain)
			} else {
				r.errorf(c.Pos, "interface %s extends itself", c.Name)
			}
			return false
		case 2:
			return true
		}
		state[c] = 1
		path = append(path, c)
		defer func() { path = path[:len(path)-1] }()
		ok := true
		c.Interfaces = nil
		for _, t := range c.Implements {
			i := r.iface(c, t)
			if i == nil {
				ok = false
				continue
			}
			if !extend(i) {
				return false
			}
			c.Interfaces = addIfaces(c.Interfaces, i)
		}
		state[c] = 2
		return ok
	}
	for _, c := range m.Classes {
		if c.Interface && !extend(c) {
			return
		}
	}
	for _, c := range order {
		if c.Interface || c.Builtin {
			continue
		}
		// direct: the interfaces written after implements, which c
		// (re-)implements with its own methods. Those they extend, and
		// those of the base class, keep the base's implementation unless
		// it has none, as CoreCLR does.
		var direct []*Class
		for _, t := range c.Implements {
			if i := r.iface(c, t); i != nil {
				direct = append(direct, i)
			}
		}
		c.Interfaces = append([]*Class(nil), c.Base.Interfaces...)
		for _, i := range direct {
			c.Interfaces = addIfaces(c.Interfaces, i)
		}
		c.IMap = make(map[*Class][]*Method, len(c.Interfaces))
		for _, i := range c.Interfaces {
			impl := make([]*Method, len(i.VTable))
			inherited := c.Base.IMap[i]
			for k, im := range i.VTable {
				if slicesContains(direct, i) {
					impl[k] = ownImplementation(c, im)
				}
				if impl[k] == nil && inherited != nil && inherited[k] != nil {
					// Through the base class's slot, so an override in c
					// still implements it.
					impl[k] = c.VTable[inherited[k].Slot]
				}
				if impl[k] == nil {
					impl[k] = implementation(c, im)
				}
				if impl[k] == nil && !c.IsAbstract() {
					r.errorf(c.Pos, "class %s does not implement interface method %s%s", c.Name, im.Signature(), notImplementing(c, im))
				}
			}
			c.IMap[i] = impl
		}
		if !c.IsAbstract() {
			for _, md := range c.VTable {
				if md.Abstract {
					r.errorf(c.Pos, "class %s must be declared abstract: it does not implement abstract method %s", c.Name, md.FullName())
					break
				}
			}
		}
	}
}

// iface returns the interface that c lists as t (nil, reported, if t is
// not an interface).
func (r *resolver) iface(c *Class, t *Type) *Class {
	i := r.m.classes[t.Name]
	switch {
	case t.Kind != KClass || i == nil:
		r.errorf(c.Pos, "%s implements unknown interface %s", c.Name, t.CLRName())
		return nil
	case !i.Interface:
		r.errorf(c.Pos, "%s cannot implement class %s: only interfaces follow implements", c.Name, i.Name)
		return nil
	}
	t.Class = i
	return i
}

// addIfaces adds interface i and those it extends to list, once each.
func addIfaces(list []*Class, i *Class) []*Class {
	for _, x := range append([]*Class{i}, i.Interfaces...) {
		if !slicesContains(list, x) {
			list = append(list, x)
		}
	}
	return list
}

func slicesContains(list []*Class, c *Class) bool {
	for _, x := range list {
		if x == c {
			return true
		}
	}
	return false
}

// implements reports whether method md can implement interface method im:
// a public virtual instance method with its name and signature.
func implements(md, im *Method) bool {
	return md.Name == im.Name && !md.Static && md.Virtual && hasAttr(md.Attrs, "public") && sameSig(md, im)
}

// ownImplementation returns the method declared in class c that implements
// interface method im, if any: for an interface c lists after implements,
// such a method takes the slot even from the base class's implementation
// (ECMA-335 II.12.2).
func ownImplementation(c *Class, im *Method) *Method {
	for _, md := range c.Methods {
		if implements(md, im) {
			return md
		}
	}
	return nil
}

// implementation returns the virtual method of class c that implements
// interface method im when neither c nor its base class provides one: the
// public virtual method with its name and signature in the most derived
// class that declares one.
func implementation(c *Class, im *Method) *Method {
	var best *Method
	for _, md := range c.VTable {
		if !implements(md, im) {
			continue
		}
		if best == nil || md.Owner.Depth > best.Owner.Depth || md.Owner.Depth == best.Owner.Depth && md.Slot > best.Slot {
			best = md
		}
	}
	return best
}

// notImplementing explains why a method of c (or of a base class) with
// the name and signature of interface method im does not implement it.
func notImplementing(c *Class, im *Method) string {
	for k := c; k != nil; k = k.Base {
		for _, md := range k.Methods {
			if md.Name != im.Name || !sameSig(md, im) {
				continue
			}
			switch {
			case md.Static:
				return fmt.Sprintf(" (%s is static; an implementation must be a public virtual instance method)", md.FullName())
			case !md.Virtual:
				return fmt.Sprintf(" (%s is not virtual; an implementation must be a public virtual instance method)", md.FullName())
			case !hasAttr(md.Attrs, "public"):
				return fmt.Sprintf(" (%s is not public; an implementation must be a public virtual instance method)", md.FullName())
			}
		}
	}
	return ""
}

func hasAttr(attrs []string, a string) bool {
	for _, x := range attrs {
		if x == a {
			return true
		}
	}
	return false
}

// layout assigns instance field slots, the class depth and the vtable.
func (r *resolver) layout(c *Class) {
	n := 0
	var vt []*Method
	if c.Base != nil {
		n = c.Base.NumFields
		vt = append(vt, c.Base.VTable...)
		c.Depth = c.Base.Depth + 1
	}
	if c.Interface {
		r.layoutInterface(c)
		return
	}
	if c.ValueType {
		c.VTable = vt
		return // laid out by valueLayouts
	}
	seen := map[string]*Field{}
	for _, f := range c.Fields {
		if old, ok := seen[f.Name]; ok {
			r.errorf(f.Pos, "field %s is defined twice in class %s (first at %s)", f.Name, c.Name, old.Pos)
		}
		seen[f.Name] = f
		if !f.Static {
			f.Slot = n
			n += f.Type.Words()
		}
	}
	c.NumFields = n
	var slots map[string][]int // vtable slots by method name, made on first use
	for _, md := range c.Methods {
		if md.Abstract && (!md.Virtual || md.Static) {
			r.errorf(md.Pos, "abstract method %s must be a virtual instance method", md.FullName())
			continue
		}
		if md.Abstract && !c.IsAbstract() {
			r.errorf(md.Pos, "abstract method %s is in class %s, which is not abstract", md.FullName(), c.Name)
		}
		if !md.Virtual {
			continue
		}
		if md.Static {
			r.errorf(md.Pos, "method %s cannot be both static and virtual", md.FullName())
			continue
		}
		if slots == nil {
			slots = map[string][]int{}
			for i, bm := range vt {
				slots[bm.Name] = append(slots[bm.Name], i)
			}
		}
		md.Slot = -1
		if !md.NewSlot {
			// Override the most derived matching slot: a newslot method in
			// an intermediate class hides the older slot of the same name.
			named := slots[md.Name]
			for k := len(named) - 1; k >= 0; k-- {
				if i := named[k]; sameSig(vt[i], md) {
					if hasAttr(vt[i].Attrs, "final") {
						// CoreCLR: TypeLoadException.
						r.errorf(md.Pos, "method %s cannot override %s, which is final (declare it newslot to start a new slot)", md.FullName(), vt[i].FullName())
					}
					md.Slot = i
					vt[i] = md
					break
				}
			}
		}
		if md.Slot < 0 {
			md.Slot = len(vt)
			vt = append(vt, md)
			slots[md.Name] = append(slots[md.Name], md.Slot)
		}
	}
	c.VTable = vt
}

// layoutInterface numbers an interface's methods: its slots, which the
// classes implementing it map to their own methods (Class.IMap).
func (r *resolver) layoutInterface(c *Class) {
	for _, f := range c.Fields {
		if !f.Static {
			r.errorf(f.Pos, "interface %s cannot have instance field %s", c.Name, f.Name)
		}
	}
	var vt []*Method
	for _, md := range c.Methods {
		switch {
		case md.Static:
			if md.Abstract {
				r.errorf(md.Pos, "static method %s cannot be abstract", md.FullName())
			}
			continue
		case md.Name == ".ctor":
			r.errorf(md.Pos, "interface %s cannot have a constructor", c.Name)
			continue
		case !md.Abstract || !md.Virtual:
			r.errorf(md.Pos, "interface method %s must be abstract virtual (default interface methods are not supported)", md.FullName())
			continue
		}
		md.Slot = len(vt)
		vt = append(vt, md)
	}
	c.VTable = vt
}

// sameSig reports whether two methods have the same parameter and return
// types (types compared by name; classes need not be resolved).
func sameSig(a, b *Method) bool {
	if !a.Ret.Equal(b.Ret) || len(a.Params) != len(b.Params) {
		return false
	}
	for i := range a.Params {
		if !a.Params[i].Type.Equal(b.Params[i].Type) {
			return false
		}
	}
	return true
}

// resolveType links class types inside t and reports unknown classes.
// Arrays are unwrapped in a loop: a jagged array type may nest as deep
// as the source's size allows.
func (r *resolver) resolveType(t *Type, p Pos) bool {
	if t.Kind == KByRef {
		t = t.Elem
	}
	for t.Kind == KArray {
		t = t.Elem
	}
	switch t.Kind {
	case KClass:
		c := r.m.classes[t.Name]
		if c == nil {
			r.errorf(p, "unknown class %s", t.Name)
			return false
		}
		if c.ValueType {
			if !t.bare {
				r.errorf(p, "%s is a value type: write valuetype %s", t.Name, t.Name)
				return false
			}
			t.Kind = KValue
		}
		t.Class = c
	case KValue:
		c := r.m.classes[t.Name]
		if c == nil {
			r.errorf(p, "unknown value type %s", t.Name)
			return false
		}
		if !c.ValueType {
			r.errorf(p, "%s is a class, not a value type: write class %s", t.Name, t.Name)
			return false
		}
		t.Class = c
	}
	return true
}

// resolveNoByRef resolves t as resolveType does and also rejects a
// managed pointer type, naming what has type t (what is called only
// then: most types are fine, and the name costs a string).
func (r *resolver) resolveNoByRef(t *Type, p Pos, what func() string) bool {
	if !r.resolveType(t, p) {
		return false
	}
	if t.Kind == KByRef {
		r.errorf(p, "%s cannot have type %s: managed pointers may only be locals, parameters and evaluation stack values", what(), t)
		return false
	}
	return true
}

// members resolves the types of fields and signatures, numbers methods and
// static fields, and rejects duplicate methods.
func (r *resolver) members() {
	m := r.m
	n := 0
	for _, f := range m.StaticFields() {
		f.Slot = n
		n += f.Type.Words()
	}
	m.StaticWords = n
	// Methods defined twice: only a name declared more than once in its
	// class (or globally) needs a signature key.
	var seen map[string]*Method
	for i, md := range m.AllMethods() {
		md.Index = i
		r.resolveNoByRef(md.Ret, md.Pos, func() string { return "the return value of " + md.FullName() })
		for _, p := range md.Params {
			r.resolveType(p.Type, md.Pos)
		}
		for _, l := range md.Locals {
			r.resolveType(l.Type, md.Pos)
		}
		if len(r.methodsNamed(md.Owner, md.Name)) > 1 {
			if seen == nil {
				seen = map[string]*Method{}
			}
			key := md.FullName() + "|" + sigKey(md)
			if old, ok := seen[key]; ok {
				r.errorf(md.Pos, "method %s is defined twice with the same signature (first at %s)", md.Signature(), old.Pos)
			}
			seen[key] = md
		}
		if md.Name == ".ctor" && (md.Static || md.Owner == nil) {
			r.errorf(md.Pos, "a constructor must be an instance method of a class")
		}
		if md.Name == ".ctor" && md.Ret.Kind != KVoid {
			r.errorf(md.Pos, "a constructor must return void")
		}
		r.duplicateParams(md)
	}
}

// duplicateParams reports parameters declared twice, once for each
// later declaration of a name.
func (r *resolver) duplicateParams(md *Method) {
	if len(md.Params) <= 16 {
		for i, p := range md.Params {
			for _, q := range md.Params[:i] {
				if p.Name != "" && p.Name == q.Name {
					r.errorf(md.Pos, "parameter %s is declared twice in %s", p.Name, md.FullName())
				}
			}
		}
		return
	}
	count := map[string]int{} // earlier declarations of each name
	for _, p := range md.Params {
		if p.Name == "" {
			continue
		}
		for range min(count[p.Name], maxErrors) { // the sink keeps no more
			r.errorf(md.Pos, "parameter %s is declared twice in %s", p.Name, md.FullName())
		}
		count[p.Name]++
	}
}

func sigKey(md *Method) string {
	var b strings.Builder
	b.WriteString(md.Ret.String())
	for _, p := range md.Params {
		b.WriteByte(',')
		b.WriteString(p.Type.String())
	}
	return b.String()
}

// bodies resolves instruction operands.
func (r *resolver) bodies() {
	for _, md := range r.m.AllMethods() {
		for _, in := range md.Code {
			r.operand(md, in)
		}
		for _, c := range md.EH {
			if c.CatchType != nil {
				if r.resolveType(c.CatchType, c.Pos) && !c.CatchType.IsRef() {
					r.errorf(c.Pos, "catch type %s is not a class", c.CatchType)
				}
			}
		}
	}
}

func (r *resolver) operand(md *Method, in *Instr) {
	switch in.Op.Info().Operand {
	case OpShortVar, OpVar:
		r.varOperand(md, in)
	case OpNone:
		c := in.Op.Canon()
		if c >= Ldarg0 && c <= Ldarg3 && int(in.Int) >= md.NumArgs() {
			r.errorf(in.Pos(r.m.File), "%s: method %s has only %d argument(s)", in.Op, md.FullName(), md.NumArgs())
		}
		if (c >= Ldloc0 && c <= Ldloc3 || c >= Stloc0 && c <= Stloc3) && int(in.Int) >= len(md.Locals) {
			r.errorf(in.Pos(r.m.File), "%s: method %s has only %d local(s)", in.Op, md.FullName(), len(md.Locals))
		}
	case OpType:
		r.resolveNoByRef(in.Type(), in.Pos(r.m.File), func() string { return "the operand of " + in.Op.String() })
		if in.Type().Kind == KVoid {
			r.errorf(in.Pos(r.m.File), "%s cannot take type void", in.Op)
		}
	case OpField:
		r.fieldRef(in)
	case OpMethod:
		r.methodRef(in)
		if c := in.Constrained(); c != nil {
			r.constrained(in, c)
		}
	}
}

// constrained resolves the type of a constrained. prefix and finds the
// method of a value type that implements the method called (Direct).
func (r *resolver) constrained(in *Instr, c *Constrained) {
	if !r.resolveNoByRef(c.Type, in.Pos(r.m.File), func() string { return "the operand of constrained." }) || c.Method.Method == nil {
		return
	}
	var cls *Class
	switch t := c.Type; {
	case t.Kind == KValue:
		cls = t.Class
	case !t.IsRef():
		cls = r.m.classes[t.CLRName()] // System.Int32, ...
	}
	if cls == nil {
		return
	}
	called := c.Method.Method
	for _, md := range cls.Methods {
		// An override (a base library primitive's methods are declared
		// as plain instance methods); a user value type's non-virtual
		// method of the same name hides nothing.
		if md.Name == called.Name && !md.Static && sameSig(md, called) && (md.Virtual || cls.Builtin) {
			c.Direct = md
			return
		}
	}
}

func isArgOp(op Op) bool {
	c := op.Canon()
	return c == LdargS || c == Ldarg || c == StargS || c == Starg || c == LdargaS || c == Ldarga
}

func (r *resolver) varOperand(md *Method, in *Instr) {
	if isArgOp(in.Op) {
		if in.Str() != "" {
			for i, p := range md.Params {
				if p.Name == in.Str() {
					in.Int = int64(i)
					if !md.Static {
						in.Int++
					}
					return
				}
			}
			r.errorf(in.Pos(r.m.File), "%s %s: method %s has no parameter named %s", in.Op, in.Str(), md.FullName(), in.Str())
			return
		}
		if int(in.Int) >= md.NumArgs() {
			r.errorf(in.Pos(r.m.File), "%s %d: method %s has only %d argument(s)", in.Op, in.Int, md.FullName(), md.NumArgs())
		}
		return
	}
	if in.Str() != "" {
		for i, l := range md.Locals {
			if l.Name == in.Str() {
				in.Int = int64(i)
				return
			}
		}
		r.errorf(in.Pos(r.m.File), "%s %s: method %s has no local named %s", in.Op, in.Str(), md.FullName(), in.Str())
		return
	}
	if int(in.Int) >= len(md.Locals) {
		r.errorf(in.Pos(r.m.File), "%s %d: method %s has only %d local(s)", in.Op, in.Int, md.FullName(), len(md.Locals))
	}
}

func (r *resolver) fieldRef(in *Instr) {
	ref := in.Field()
	if !r.resolveType(ref.Type, in.Pos(r.m.File)) {
		return
	}
	var f *Field
	if ref.Class == nil {
		f = r.globalField(ref.Name)
		if f == nil {
			r.errorf(in.Pos(r.m.File), "unknown global field %s", ref.Name)
			return
		}
	} else {
		c := r.m.classes[ref.Class.Name]
		if c == nil {
			r.errorf(in.Pos(r.m.File), "unknown class %s", ref.Class.Name)
			return
		}
		ref.Class.Class = c
		for k := c; k != nil && f == nil; k = k.Base {
			f = r.fieldNamed(k, ref.Name)
		}
		if f == nil || f.Owner.Builtin && !f.Builtin { // the base library's hidden fields
			r.errorf(in.Pos(r.m.File), "class %s has no field %s", c.Name, ref.Name)
			return
		}
	}
	if !f.Type.Equal(ref.Type) {
		r.errorf(in.Pos(r.m.File), "field %s has type %s, not %s", f.FullName(), f.Type, ref.Type)
		return
	}
	ref.Field = f
}

func (r *resolver) methodRef(in *Instr) {
	ref := in.Method()
	ok := r.resolveType(ref.Ret, in.Pos(r.m.File))
	for _, p := range ref.Params {
		ok = r.resolveType(p, in.Pos(r.m.File)) && ok
	}
	if !ok {
		return
	}
	match := func(md *Method) bool {
		if md.Name != ref.Name || md.Static == ref.Instance || !md.Ret.Equal(ref.Ret) || len(md.Params) != len(ref.Params) {
			return false
		}
		for i, p := range md.Params {
			if !p.Type.Equal(ref.Params[i]) {
				return false
			}
		}
		return true
	}
	var cands []*Method // the methods named ref.Name where it is looked up
	if ref.Class == nil {
		cands = r.methodsNamed(nil, ref.Name)
	} else {
		c := r.m.classes[ref.Class.Name]
		if c == nil {
			r.errorf(in.Pos(r.m.File), "unknown class %s", ref.Class.Name)
			return
		}
		ref.Class.Class = c
		for k := c; k != nil; k = k.Base {
			for _, md := range r.methodsNamed(k, ref.Name) {
				if match(md) {
					ref.Method = md
					return
				}
			}
			if ref.Name == ".ctor" {
				break // constructors are not inherited
			}
		}
		cands = r.methodsNamed(c, ref.Name)
	}
	for _, md := range cands {
		if match(md) {
			ref.Method = md
			return
		}
	}
	where := "global method"
	if ref.Class != nil {
		where = "method " + ref.Class.Name + "::"
	} else {
		where += " "
	}
	msg := fmt.Sprintf("unknown %s%s with signature %s", where, ref.Name, refSig(ref))
	// Help with the usual mistakes: a missing 'instance', wrong types.
	var near []string
	for _, md := range cands {
		if md.Name == ref.Name {
			near = append(near, md.Signature())
		}
	}
	if len(near) > 0 {
		msg += "; candidates: " + strings.Join(near, ", ")
	}
	if ref.Class != nil && ref.Class.Class != nil && ref.Class.Class.Interface {
		c := ref.Class.Class
		if ref.Name == ".ctor" {
			msg += fmt.Sprintf(" (%s is an interface: create an object of a class that implements it)", c.Name)
		}
		for _, i := range c.Interfaces {
			for _, md := range r.methodsNamed(i, ref.Name) {
				if match(md) {
					msg += fmt.Sprintf(" (it is declared in %s, which %s extends: call %s::%s)", i.Name, c.Name, i.Name, md.Name)
				}
			}
		}
	}
	for _, md := range cands {
		if md.Name == ref.Name && md.Static == ref.Instance && sameRefSig(md, ref) {
			if ref.Instance {
				msg += " (the method is static: remove 'instance')"
			} else {
				msg += " (did you forget 'instance'?)"
			}
			break
		}
	}
	r.errorf(in.Pos(r.m.File), "%s", msg)
}

// sameRefSig reports whether md has the reference's return and parameter
// types.
func sameRefSig(md *Method, ref *MethodRef) bool {
	if !md.Ret.Equal(ref.Ret) || len(md.Params) != len(ref.Params) {
		return false
	}
	for i, p := range md.Params {
		if !p.Type.Equal(ref.Params[i]) {
			return false
		}
	}
	return true
}

func refSig(ref *MethodRef) string {
	var b strings.Builder
	if ref.Instance {
		b.WriteString("instance ")
	}
	b.WriteString(ref.Ret.String())
	b.WriteString(" (")
	for i, p := range ref.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.String())
	}
	b.WriteByte(')')
	return b.String()
}

func (r *resolver) entry() {
	var entries []*Method
	for _, md := range r.m.AllMethods() {
		if md.IsEntry {
			entries = append(entries, md)
		}
	}
	switch len(entries) {
	case 0:
		r.errorf(Pos{File: r.m.File, Line: 1, Col: 1}, "no method has .entrypoint")
		return
	case 1:
	default:
		for _, e := range entries[1:] {
			r.errorf(e.EntryPos, "second .entrypoint in %s (the first is in %s)", e.FullName(), entries[0].FullName())
		}
		return
	}
	e := entries[0]
	r.m.Entry = e
	if !e.Static {
		r.errorf(e.Pos, "entry point %s must be static", e.FullName())
	}
	if len(e.Params) != 0 {
		r.errorf(e.Pos, "entry point %s must take no arguments", e.FullName())
	}
	if e.Ret.Kind != KVoid && e.Ret.Kind != KI4 {
		r.errorf(e.Pos, "entry point %s must return void or int32, not %s", e.FullName(), e.Ret)
	}
}
