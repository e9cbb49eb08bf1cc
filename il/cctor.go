package il

import "fmt"

// Static constructors (type initializers), as CoreCLR runs them.
//
// For every class with a .cctor, and for a global .cctor (the module
// initializer), resolution synthesizes a TypeInit: two hidden static
// fields (the initialization state and the exception of a failed run) and
// a hidden static method, Run, that runs the .cctor once and turns an
// exception escaping it into a TypeInitializationException, kept and
// thrown again at every later use of the type. Both engines call Run where
// InitTriggered says a site needs the class initialized and the state is
// not InitDone; they differ only in how cheaply they skip the check.
//
// Run is written in IL so that the engines' exception handling applies
// as is (a cctor's own handlers, filters and finallys run in their usual
// order; an exception escaping it is caught by Run's catch-all, which
// throws the TypeInitializationException at the triggering site):
//
//	    ldsfld  int32 C::<cctor-state>
//	    brtrue  AGAIN                    // failed, running or done
//	    ldc.i4  2                        // InitRunning
//	    stsfld  int32 C::<cctor-state>
//	    .try {
//	      call  void C::.cctor()
//	      leave DONE
//	    } catch object {
//	      stloc.0
//	      ldstr "C"
//	      ldloc.0
//	      isinst System.Exception        // a thrown non-exception: no inner exception
//	      newobj instance void System.TypeInitializationException::.ctor(string, class System.Exception)
//	      stsfld class System.TypeInitializationException C::<cctor-error>
//	      ldc.i4  1                      // InitFailed
//	      stsfld  int32 C::<cctor-state>
//	      ldsfld  class System.TypeInitializationException C::<cctor-error>
//	      throw
//	    }
//	DONE:
//	    ldc.i4  3                        // InitDone
//	    stsfld  int32 C::<cctor-state>
//	    ret
//	AGAIN:
//	    ldsfld  int32 C::<cctor-state>
//	    ldc.i4  1                        // InitFailed
//	    bne.un  RET                      // running (on this thread) or done
//	    ldsfld  class System.TypeInitializationException C::<cctor-error>
//	    throw                            // the same object every time, as CoreCLR
//	RET:
//	    ret
//
// The hidden members are in no list the program declares (Class.Fields,
// Class.Methods, Module.AllMethods, Module.StaticFields): the printer
// never prints them and embedders do not see them. Engines find the
// methods through Module.CodeMethods, which continues the numbering of
// Method.Index; the statics take the last words of the static storage
// (Module.StaticWords).

// TypeInit is the type initializer of a class with a static constructor,
// or of the module (a global .cctor, CoreCLR's module initializer, which
// runs before the entry point or any other method).
type TypeInit struct {
	Class *Class  // nil: the module initializer
	Cctor *Method // the static constructor the program declares
	// Precise is true for a class without beforefieldinit: the first call
	// of its static methods and constructors triggers it as well as the
	// first access to its static fields (InitTriggered).
	Precise bool
	Run     *Method // hidden: runs Cctor once (see above)
	State   *Field  // hidden static int32: InitNotStarted ... InitFailed
	Error   *Field  // hidden static: the TypeInitializationException of a failed run
}

// The values of TypeInit.State. Statics start at zero: InitNotStarted.
// A site must call Run exactly when the state is below InitRunning: one
// compare, whether the class is done or being initialized (by this
// thread: a use from inside the .cctor proceeds without a call).
const (
	InitNotStarted = 0
	InitFailed     = 1 // Error holds the exception every use throws
	InitRunning    = 2 // Cctor is running
	InitDone       = 3
)

// Names of the hidden members, which no program can spell.
const (
	cctorName      = ".cctor"
	initRunName    = "<cctor>"
	initStateName  = "<cctor-state>"
	initErrorName  = "<cctor-error>"
	moduleTypeName = "<Module>"
)

// Name returns the type's name as TypeInitializationException's message
// gives it: the class's full name, or <Module>.
func (ti *TypeInit) Name() string {
	if ti.Class == nil {
		return moduleTypeName
	}
	return ti.Class.Name
}

// InitTriggered returns the type initializer that must have run, or be
// running on this thread, before a site runs; nil when the site triggers
// none. The site is instruction in of method m, or the entry of m (before
// its first instruction) when in is nil. This is the one place that
// decides it, for both engines:
//
//   - ldsfld, stsfld and ldsflda of a static field of a class with a
//     static constructor trigger it, precise or beforefieldinit (CoreCLR
//     2.0 runs a beforefieldinit cctor lazily, at the first static field
//     access);
//   - the entry of a static method or an instance constructor of a
//     precise class triggers it (CoreCLR checks in the callee's prolog,
//     so the trace of a failure starts in that method), the entry point
//     included;
//   - a field access inside a method whose own entry triggers the same
//     class, or inside the static constructor itself, needs no check;
//   - globals never do: the module initializer runs before everything.
//
// Instance methods other than constructors and virtual calls trigger
// nothing, and neither does a derived class's initialization for its base
// class. Value types, whose static constructors are refused for now, will
// add their own rules here (CoreCLR does not run them at their
// constructors).
func InitTriggered(m *Method, in *Instr) *TypeInit {
	if in == nil {
		c := m.Owner
		if c == nil || c.Init == nil || !c.Init.Precise || m.Builtin || m.Hidden || m == c.Init.Cctor {
			return nil
		}
		// A value type's instance methods trigger it too (ECMA-335
		// II.10.5.3.1; CoreCLR 2.0 runs it at the first call of one, not
		// at a box or a default value).
		if m.Static || m.Name == ".ctor" || c.ValueType {
			return c.Init
		}
		return nil
	}
	switch in.Op.Canon() {
	case Ldsfld, Stsfld, Ldsflda:
		ref := in.Field()
		if ref == nil || ref.Field == nil || ref.Field.Owner == nil {
			return nil
		}
		ti := ref.Field.Owner.Init
		if ti == nil || ref.Field == ti.State || ref.Field == ti.Error {
			return nil
		}
		if m == ti.Cctor || m.Owner == ti.Class && InitTriggered(m, nil) == ti {
			return nil
		}
		return ti
	}
	return nil
}

// CodeMethods returns every method the engines may run: AllMethods, then
// each type initializer's hidden Run method (in TypeInits order), whose
// Index continues AllMethods' numbering.
func (m *Module) CodeMethods() []*Method {
	all := m.AllMethods()
	for _, ti := range m.TypeInits {
		all = append(all, ti.Run)
	}
	return all
}

// typeInits checks the static constructors the program declares and
// synthesizes the type initializer of each (after members: it numbers
// the hidden methods and statics after the declared ones).
func (r *resolver) typeInits() {
	m := r.m
	m.Init = r.typeInit(nil, m.Methods)
	for _, c := range m.Classes {
		c.Init = r.typeInit(c, c.Methods)
	}
	if len(m.TypeInits) == 0 {
		return
	}
	nm := len(m.AllMethods())
	for i, ti := range m.TypeInits {
		ti.Run.Index = nm + i
		ti.State.Slot = m.StaticWords
		ti.Error.Slot = m.StaticWords + 1
		m.StaticWords += 2
	}
}

// typeInit checks the .cctor methods among methods (those of class c, or
// the global ones for c nil) and returns the type initializer of the
// first valid one (nil: none). A second valid one has the same signature,
// which members reports.
func (r *resolver) typeInit(c *Class, methods []*Method) *TypeInit {
	var cctor *Method
	for _, md := range methods {
		if md.Name != cctorName {
			continue
		}
		switch {
		case !md.Static:
			r.errorf(md.Pos, "static constructor %s must be static", md.FullName())
		case md.Ret.Kind != KVoid || len(md.Params) > 0:
			r.errorf(md.Pos, "static constructor %s must return void and take no parameters: static void .cctor()", md.FullName())
		case md.IsEntry:
			r.errorf(md.EntryPos, "static constructor %s cannot be the entry point", md.FullName())
		case cctor == nil:
			cctor = md
		}
	}
	if cctor == nil {
		return nil
	}
	ti := &TypeInit{Class: c, Cctor: cctor, Precise: c == nil || !hasAttr(c.Attrs, "beforefieldinit")}
	ti.State = &Field{Name: initStateName, Type: Int32, Static: true, Owner: c, Pos: cctor.Pos}
	tie := r.m.classes[TypeInitializationClass]
	ti.Error = &Field{Name: initErrorName, Type: tie.Type(), Static: true, Owner: c, Pos: cctor.Pos}
	ti.Run = r.initRun(ti, tie)
	r.m.TypeInits = append(r.m.TypeInits, ti)
	return ti
}

// initRun synthesizes the Run method of ti (see the package's comment on
// type initializers above): its code, clause and IL offsets as ilasm would
// encode them, every operand already resolved.
func (r *resolver) initRun(ti *TypeInit, tie *Class) *Method {
	at := ti.Cctor.Pos
	run := &Method{Name: initRunName, Owner: ti.Class, Attrs: []string{"private", "hidebysig", "static"},
		Impl: []string{"cil", "managed"}, Static: true, Ret: Void, Locals: []*Local{{Type: Object}},
		InitLocals: true, MaxStack: 2, HasMaxStack: true, Pos: at, EndPos: at, Slot: -1, Hidden: true}
	var tieCtor *Method
	for _, md := range tie.Methods {
		if md.Name == ".ctor" && len(md.Params) == 2 {
			tieCtor = md
		}
	}
	if tieCtor == nil {
		panic("il: the base library lacks TypeInitializationException::.ctor(string, Exception)")
	}
	excType := r.m.classes[ExceptionClass].Type()
	owner := func() *Type {
		if ti.Class == nil {
			return nil
		}
		return ti.Class.Type()
	}
	field := func(f *Field) *FieldRef { return &FieldRef{Type: f.Type, Class: owner(), Name: f.Name, Field: f} }
	state, errf := field(ti.State), field(ti.Error)
	const (
		again = 19 // instruction indices of the labels
		done  = 16
		ret   = 24
	)
	code := []*Instr{
		{Op: Ldsfld, operand: state},
		{Op: Brtrue, operand: &branch{targets: []int{again}, names: []string{"AGAIN"}}},
		{Op: LdcI4, Int: InitRunning},
		{Op: Stsfld, operand: state},
		// try
		{Op: Call, operand: &MethodRef{Ret: Void, Class: owner(), Name: cctorName, Method: ti.Cctor}},
		{Op: Leave, operand: &branch{targets: []int{done}, names: []string{"DONE"}}},
		// catch object
		{Op: Stloc0, Int: 0},
		{Op: Ldstr, operand: ti.Name()},
		{Op: Ldloc0, Int: 0},
		{Op: Isinst, operand: excType},
		{Op: Newobj, operand: &MethodRef{Instance: true, Ret: Void, Class: tie.Type(), Name: ".ctor",
			Params: []*Type{String, excType}, Method: tieCtor}},
		{Op: Stsfld, operand: errf},
		{Op: LdcI4, Int: InitFailed},
		{Op: Stsfld, operand: state},
		{Op: Ldsfld, operand: errf},
		{Op: Throw},
		// DONE
		{Op: LdcI4, Int: InitDone},
		{Op: Stsfld, operand: state},
		{Op: Ret},
		// AGAIN
		{Op: Ldsfld, operand: state},
		{Op: LdcI4, Int: InitFailed},
		{Op: BneUn, operand: &branch{targets: []int{ret}, names: []string{"RET"}}},
		{Op: Ldsfld, operand: errf},
		{Op: Throw},
		// RET
		{Op: Ret},
	}
	if code[again].Op != Ldsfld || code[done].Op != LdcI4 || code[ret].Op != Ret {
		panic("il: the labels of the type initializer's code are misplaced")
	}
	off := 0
	for _, in := range code {
		in.Line, in.Col = int32(at.Line), int32(at.Col)
		in.Offset = int32(off)
		off += in.Size()
	}
	run.Code = code
	run.CodeSize = off
	run.Labels = []Label{{Name: "DONE", Instr: done}, {Name: "AGAIN", Instr: again}, {Name: "RET", Instr: ret}}
	run.EH = []*EHClause{{Kind: EHCatch, CatchType: Object, Pos: at, TryPos: at,
		TryStart: 4, TryEnd: 6, HandlerStart: 6, HandlerEnd: done,
		TryOffset: int(code[4].Offset), TryLength: int(code[6].Offset - code[4].Offset),
		HandlerOffset: int(code[6].Offset), HandlerLength: int(code[done].Offset - code[6].Offset)}}
	return run
}

// String describes the type initializer, for dumps and tests.
func (ti *TypeInit) String() string {
	kind := "precise"
	if !ti.Precise {
		kind = "beforefieldinit"
	}
	return fmt.Sprintf("type initializer of %s (%s)", ti.Name(), kind)
}
