// Package interp is miniil's reference interpreter: it runs a resolved
// il.Module directly, with Go objects for the managed heap and its own
// implementation of the CLR's two-pass exception handling. It shares no
// execution code with the JIT, so the two can be tested against each other.
// It is internal to miniil: no compatibility promise (embedders choose it
// with miniil.Config{Engine: miniil.Interp}).
//
// Methods are decoded once into a compact instruction array whose opcodes
// are specialized by the statically inferred stack types. Managed calls
// never recurse on the Go stack: frames live in an explicit frame stack and
// their arguments, locals and evaluation stacks in one value stack, where a
// callee's arguments are the top of its caller's evaluation stack.
package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"miniil/il"
)

// Options configures Run.
type Options struct {
	// Stdout receives the program's standard output (nil: discarded).
	Stdout io.Writer
	// MaxCallDepth is the call depth beyond which a call reports a stack
	// overflow; 0 means DefaultMaxCallDepth. The entry point is at depth
	// 1, a method at its caller's depth plus one; a filter runs at its
	// method's depth, a base library method at its caller's (the JIT
	// counts the same way).
	MaxCallDepth int
	// HeapBytes is the managed heap limit: an allocation of n bytes
	// throws System.OutOfMemoryException exactly when the bytes of the
	// objects reachable at that moment plus n exceed it, objects sized as
	// the JIT lays them out (il.ObjectSize and its siblings), the rule of
	// the JIT's collector; garbage does not count (heap.go). 0 means
	// DefaultHeapBytes.
	HeapBytes int64
	// FlushLines flushes the output at the end of every write that
	// contains a newline; otherwise it is block-buffered until the run
	// ends.
	FlushLines bool
}

// DefaultHeapBytes is the heap limit when Options.HeapBytes is 0.
const DefaultHeapBytes = 1 << 30

// DefaultMaxCallDepth is the call depth limit when Options.MaxCallDepth is
// 0.
const DefaultMaxCallDepth = il.DefaultMaxCallDepth

// ExitUnhandled is the exit code of a program that dies of an unhandled
// exception or a stack overflow (SIGABRT, like CoreCLR on Linux).
const ExitUnhandled = 134

// UnhandledException is the error Run returns when a managed exception is
// not handled. Error() renders CoreCLR's report.
type UnhandledException struct {
	Type    string   // CLR name of the exception's runtime type
	Message string   // its Message
	Trace   []string // frames as il.Method.TraceName prints them, innermost first
	// Inner is the InnerException (nil: none), with no Trace: the
	// interpreter records the frames of the unhandled exception only.
	Inner *UnhandledException
}

// Error renders CoreCLR's report: "Unhandled exception. " and what
// Exception.ToString returns, with the inner exceptions.
func (e *UnhandledException) Error() string {
	var b strings.Builder
	b.WriteString("Unhandled exception. ")
	e.write(&b)
	return b.String()
}

func (e *UnhandledException) write(b *strings.Builder) {
	var inner func(*strings.Builder)
	if e.Inner != nil {
		inner = e.Inner.write
	}
	il.WriteException(b, e.Type, e.Message, e.Trace, inner)
}

// StackOverflowError is the error Run returns when the call depth exceeds
// Options.MaxCallDepth.
type StackOverflowError struct{}

func (*StackOverflowError) Error() string { return "Stack overflow." }

// unhandledSignal travels up from the dispatcher when no handler exists.
type unhandledSignal struct{ exc any }

func (*unhandledSignal) Error() string { return "unhandled exception" }

type frameKind uint8

const (
	fkManaged frameKind = iota
	fkFilter            // a filter block running on behalf of an older frame
	fkNative            // a base library method waiting for managed calls
)

// frame is one activation. Arguments and locals are vals[lbase:lbase+nvars]
// and the evaluation stack starts at vals[sbase]. While a frame waits for a
// callee, pc is the index of the call instruction.
type frame struct {
	m                 *dmethod
	pc, sp            int
	lbase, sbase, end int
	tbase             int // the JIT's temporaries of value types (temps.go): vals[tbase:tbase+m.ntemps]
	kind              frameKind
	at                frameAt   // where it stands for a live count (live.go)
	fclause           int       // filter frames: the filter's clause
	newobj            any       // constructor frames of newobj: the new object
	depth             int       // call depth (Options.MaxCallDepth)
	callbacks         int       // native frames at or below this one (il.MaxCallbackDepth)
	disp              *dispatch // filter frames: the suspended first pass
	nat               *native   // native frames
}

type recKind uint8

const (
	recCatch    recKind = iota // a catch or filter handler is running (for rethrow)
	recLeave                   // a finally runs for a leave
	recDispatch                // a finally or fault runs in a second pass
)

// rec records a handler running in a frame; recs form a stack ordered by
// frame index.
type rec struct {
	frame  int
	kind   recKind
	clause int
	exc    any
	kept   []any // recCatch: the exceptions of the dispatches its exception abandoned (eh.go)
	leave  int
	step   int
	d      *dispatch
}

type state struct {
	ctx      context.Context
	mod      *il.Module
	out      *outWriter
	maxDepth int
	budget   int

	methods []*dmethod
	byIL    map[*il.Method]*dmethod
	classes map[*il.Class]*rtClass
	types   []*il.Type
	typeIdx map[*il.Type]int
	strs    []*managedString
	strIdx  map[string]int
	statics []value

	vals   []value
	frames []frame
	recs   []rec
	traces map[any][]*dmethod

	result    value
	hasResult bool
	pend      any   // exception raised by a builtin
	deferred  error // error raised by a builtin

	objClass, excClass    *il.Class
	toStringSlot, msgSlot int
	strVTable             []*dmethod // System.String's: callvirt on a string dispatches through it
	implicit              map[string]*rtClass
	empty                 *managedString

	// The heap limit (heap.go): the limit, a bound of the live bytes,
	// the preallocated OutOfMemoryException, the arguments of the base
	// library method running, the new objects it holds, a mark's state.
	heapLimit, heapUsed int64
	oom                 *managedObject
	args                []value
	held                []any
	mark                marker
	goArgs              []any       // the strings Call passes, held until it returns
	liveBufs            [2][]uint64 // scratch sets of a live count

	inits       []*typeInit            // type initializers (cctor.go), by the index sites carry
	initIdx     map[*il.TypeInit]int32 // their indices
	innerTraces map[any][]*dmethod     // traces of inner exceptions of TypeInitializationExceptions
}

const pollInterval = 10000

// Run executes the module's entry point and returns its exit code: the
// int32 result (0 for void), or 134 with an *UnhandledException or a
// *StackOverflowError. Cancellation of ctx stops the program promptly with
// an error wrapping ctx.Err() (exit code -1); a ctx already done stops it
// before it starts, and a nil ctx means context.Background(). Other errors
// (internal ones) also give -1. Output is flushed before Run returns.
func Run(ctx context.Context, m *il.Module, opts Options) (exitCode int, err error) {
	if m == nil || m.Entry == nil {
		return -1, errors.New("interp: module has no entry point")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return -1, fmt.Errorf("interp: run not started: %w", err)
	}
	s := newState(ctx, m, opts)
	defer func() {
		if r := recover(); r != nil {
			exitCode, err = -1, fmt.Errorf("interp: internal error: %v", r)
		}
		if ferr := s.out.finish(); ferr != nil && err == nil {
			err = fmt.Errorf("interp: writing output: %w", ferr)
		}
	}()
	if err := s.setup(); err != nil {
		return -1, err
	}
	if err := s.runModuleInit(); err != nil {
		return s.exit(err)
	}
	entry := s.method(m.Entry)
	if err := s.callFromGo(entry); err != nil {
		return s.exit(err)
	}
	if err := s.run(); err != nil {
		return s.exit(err)
	}
	if s.hasResult {
		return int(int32(s.result.n)), nil
	}
	return 0, nil
}

// newState prepares an interpreter state for module m.
func newState(ctx context.Context, m *il.Module, opts Options) *state {
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	s := &state{
		ctx:      ctx,
		mod:      m,
		out:      newOutWriter(opts.Stdout, opts.FlushLines),
		maxDepth: opts.MaxCallDepth,
		budget:   pollInterval,
		byIL:     map[*il.Method]*dmethod{},
		classes:  map[*il.Class]*rtClass{},
		typeIdx:  map[*il.Type]int{},
		strIdx:   map[string]int{},
		traces:   map[any][]*dmethod{},
		implicit: map[string]*rtClass{},
		empty:    &managedString{},
	}
	if s.maxDepth <= 0 {
		s.maxDepth = DefaultMaxCallDepth
	}
	s.heapLimit = opts.HeapBytes
	if s.heapLimit <= 0 {
		s.heapLimit = DefaultHeapBytes
	}
	return s
}

func (s *state) exit(err error) (int, error) {
	var u *unhandledSignal
	var so *StackOverflowError
	switch {
	case errors.As(err, &u):
		return ExitUnhandled, s.report(u.exc)
	case errors.As(err, &so):
		return ExitUnhandled, err
	}
	return -1, err
}

func (s *state) setup() error {
	m := s.mod
	s.objClass = m.Class(il.ObjectClass)
	s.excClass = m.Class(il.ExceptionClass)
	if s.objClass == nil || s.excClass == nil {
		return errors.New("interp: module lacks the base library")
	}
	s.toStringSlot, s.msgSlot = -1, -1
	for _, vm := range vtableOf(s.excClass) {
		switch vm.BuiltinKind {
		case il.ExceptionToString:
			s.toStringSlot = vm.Slot
		case il.ExceptionGetMessage:
			s.msgSlot = vm.Slot
		}
	}
	if s.toStringSlot < 0 || s.msgSlot < 0 {
		return errors.New("interp: base library vtables are missing")
	}
	s.empty = s.strs[s.intern("")] // String.Empty is the literal ""
	s.strVTable = s.rtc(m.Class(il.StringClass)).vtable
	oom := m.Class(il.OutOfMemoryClass)
	if oom == nil {
		return errors.New("interp: module lacks System.OutOfMemoryException")
	}
	// Preallocated, as CoreCLR does, not charged to the heap.
	s.oom = &managedObject{cls: s.rtc(oom), f: make([]value, s.rtc(oom).nf)}
	s.statics = make([]value, m.StaticWords)
	for _, f := range m.StaticFields() {
		if f.Builtin {
			s.statics[f.Slot] = value{n: f.Init}
			if f.Type.Kind == il.KString { // String.Empty
				s.statics[f.Slot] = value{r: s.empty}
			}
		}
	}
	for _, meth := range m.CodeMethods() {
		dm := s.method(meth)
		if dm.bi == il.BuiltinNone && !dm.decoded && !meth.Abstract {
			if err := s.decode(dm); err != nil {
				return fmt.Errorf("interp: %w", err)
			}
		}
	}
	return nil
}

// vtableOf returns a class's virtual slots (computed for base library
// classes should resolution have left them empty).
func vtableOf(c *il.Class) []*il.Method {
	if len(c.VTable) > 0 || !c.Builtin {
		return c.VTable
	}
	var vt []*il.Method
	if c.Base != nil {
		vt = append(vt, vtableOf(c.Base)...)
	}
	for _, m := range c.Methods {
		if !m.Virtual {
			continue
		}
		replaced := false
		for i := len(vt) - 1; i >= 0 && !m.NewSlot; i-- {
			if b := vt[i]; b.Name == m.Name && len(b.Params) == len(m.Params) {
				m.Slot = i
				vt[i] = m
				replaced = true
				break
			}
		}
		if !replaced {
			m.Slot = len(vt)
			vt = append(vt, m)
		}
	}
	c.VTable = vt
	return vt
}

// method returns the runtime method for an il.Method.
func (s *state) method(m *il.Method) *dmethod {
	if dm, ok := s.byIL[m]; ok {
		return dm
	}
	dm := &dmethod{il: m, idx: len(s.methods), nargs: m.NumArgs(), hasRet: m.Ret.Kind != il.KVoid}
	dm.nvars = dm.nargs + len(m.Locals)
	for i, l := range m.Locals {
		if l.Type.Kind == il.KValue {
			dm.structLocals = append(dm.structLocals, structLocal{idx: dm.nargs + i, cls: l.Type.Class})
		}
	}
	s.methods = append(s.methods, dm)
	s.byIL[m] = dm
	if m.Builtin {
		classifyBuiltin(dm)
	}
	if m.Name == ".ctor" && m.Owner != nil {
		dm.owner = s.rtc(m.Owner)
	}
	return dm
}

// rtc returns the runtime class of an il.Class.
func (s *state) rtc(c *il.Class) *rtClass {
	if rc, ok := s.classes[c]; ok {
		return rc
	}
	rc := &rtClass{c: c, name: c.Name, nf: c.NumFields}
	if rc.nf < 1 && c.IsSubclassOf(s.excClass) {
		rc.nf = 1
	}
	s.classes[c] = rc
	vt := vtableOf(c)
	rc.vtable = make([]*dmethod, len(vt))
	for i, vm := range vt {
		rc.vtable[i] = s.method(vm)
	}
	if len(c.IMap) > 0 {
		rc.itab = make([][]*dmethod, s.mod.NumInterfaces)
		for iface, impl := range c.IMap {
			ms := make([]*dmethod, len(impl))
			for k, im := range impl {
				if im != nil { // nil: an abstract class's empty slot
					ms[k] = s.method(im)
				}
			}
			rc.itab[iface.IfaceIndex] = ms
		}
	}
	return rc
}

func (s *state) intern(str string) int {
	if i, ok := s.strIdx[str]; ok {
		return i
	}
	s.strs = append(s.strs, newString(str))
	s.strIdx[str] = len(s.strs) - 1
	return len(s.strs) - 1
}

func (s *state) typeIndex(t *il.Type) int {
	t = canonType(t)
	if i, ok := s.typeIdx[t]; ok {
		return i
	}
	s.types = append(s.types, t)
	s.typeIdx[t] = len(s.types) - 1
	return len(s.types) - 1
}

// outOfMemory returns the exception to throw when the heap limit is
// reached: a new OutOfMemoryException if one still fits, else the
// preallocated one, both without a message (CoreCLR's
// GetBestOutOfMemoryException; the JIT does the same).
//
// The JIT allocates it once the Go code whose allocation failed has
// returned: what that code held (s.held) no longer counts then, the
// arguments of a base library method still do.
func (s *state) outOfMemory() *managedObject {
	held := s.held
	s.held = nil
	ok := s.charge(il.ObjectSize(s.oom.cls.c.NumFields))
	s.held = held
	if ok {
		return &managedObject{cls: s.oom.cls, f: make([]value, len(s.oom.f))}
	}
	return s.oom
}

// newExc creates an implicit exception of a base library class with its
// default message, or the OutOfMemoryException when it does not fit.
func (s *state) newExc(name string) *managedObject {
	o, ok := s.allocExc(name)
	if !ok {
		return s.outOfMemory()
	}
	if msg, ok := il.DefaultMessage(name); ok {
		o.f[0].r = newString(msg)
	}
	return o
}

// newExcMsg creates an exception of a base library class with message
// msg (not charged: CoreCLR's messages are literals), or the
// OutOfMemoryException when the exception does not fit.
func (s *state) newExcMsg(name, msg string) *managedObject {
	o, ok := s.allocExc(name)
	if !ok {
		return s.outOfMemory()
	}
	o.f[0].r = newString(msg)
	return o
}

// allocExc allocates an exception of a base library class, charging it to
// the heap; false when it does not fit.
func (s *state) allocExc(name string) (*managedObject, bool) {
	rc := s.implicit[name]
	if rc == nil {
		c := s.mod.Class(name)
		if c == nil {
			c = s.excClass
		}
		rc = s.rtc(c)
		s.implicit[name] = rc
	}
	if !s.charge(il.ObjectSize(rc.c.NumFields)) {
		return nil, false
	}
	return &managedObject{cls: rc, f: make([]value, rc.nf)}, true
}

// castExc creates the InvalidCastException of a cast of r to type to.
// Like every implicit exception it is allocated with the frame's
// untracked variables only (the JIT's throw blocks have nothing live),
// and r does not count either: the JIT's runtime does not hold it while
// it allocates the exception and its message, where CoreCLR's cast
// helper protects it.
func (s *state) castExc(r any, to *il.Type) *managedObject {
	o, ok := s.allocExc("System.InvalidCastException")
	if !ok {
		return s.outOfMemory()
	}
	return s.withMessage(o, newString("Unable to cast object of type '"+typeName(r)+"' to type '"+to.CLRName()+"'."))
}

// withMessage makes msg, a message built at run time, the message of o,
// a new exception referenced from nowhere yet, and charges it to the
// heap (o is live meanwhile, as the JIT holds it). It returns o, or the
// OutOfMemoryException to throw instead when msg does not fit.
func (s *state) withMessage(o *managedObject, msg *managedString) *managedObject {
	h := s.hold(o)
	ok := s.chargeStr(msg)
	s.release(h)
	if !ok {
		return s.outOfMemory()
	}
	o.f[0].r = msg
	return o
}

// withUnheldMessage is withMessage where the JIT's runtime does not hold
// the exception while it allocates the message (the messages of
// Int32.Parse's FormatException and of StringBuilder's
// ArgumentOutOfRangeExceptions): o does not count meanwhile.
func (s *state) withUnheldMessage(o *managedObject, msg *managedString) *managedObject {
	if !s.chargeStr(msg) {
		return s.outOfMemory()
	}
	o.f[0].r = msg
	return o
}

// tooLong is the exception for newarr with too many elements.
func (s *state) tooLong(class string) *managedObject {
	o, ok := s.allocExc(class)
	if !ok {
		return s.outOfMemory()
	}
	o.f[0].r = newString(il.ArrayTooLongMessage)
	return o
}

// concat concatenates strings into a new string charged to the heap, or
// returns the OutOfMemoryException to throw.
func (s *state) concat(ss ...*managedString) (*managedString, *managedObject) {
	str := concatStrings(ss...)
	if !s.chargeStr(str) {
		return nil, s.outOfMemory()
	}
	return str, nil
}

// poll checks for cancellation; it runs every pollInterval branches and
// calls.
func (s *state) poll() error {
	s.budget = pollInterval
	select {
	case <-s.ctx.Done():
		return fmt.Errorf("interp: %w", s.ctx.Err())
	default:
	}
	return nil
}

func (s *state) grow(need int) {
	n := 2 * len(s.vals)
	if n < 1024 {
		n = 1024
	}
	for n < need {
		n *= 2
	}
	nv := make([]value, n)
	copy(nv, s.vals)
	s.vals = nv
}

// pushFrame pushes a managed frame whose arguments are already at
// vals[lbase:].
func (s *state) pushFrame(dm *dmethod, lbase int) error {
	depth := s.topDepth() + 1
	if depth > s.maxDepth {
		return &StackOverflowError{}
	}
	if !dm.decoded {
		if err := s.decode(dm); err != nil {
			return fmt.Errorf("interp: %w", err)
		}
	}
	end := lbase + dm.frameSize
	if end > len(s.vals) {
		s.grow(end)
	}
	clear(s.vals[lbase+dm.nargs : lbase+dm.nvars])
	for _, l := range dm.structLocals {
		s.vals[lbase+l.idx] = value{r: newSvalue(l.cls)}
	}
	tbase := lbase + dm.nvars
	clear(s.vals[tbase : tbase+dm.ntemps])
	s.frames = append(s.frames, frame{m: dm, lbase: lbase, tbase: tbase, sbase: tbase + dm.ntemps, end: end, depth: depth, callbacks: s.topCallbacks()})
	return nil
}

// topCallbacks returns the number of native frames at or below the top
// frame.
func (s *state) topCallbacks() int {
	if n := len(s.frames); n > 0 {
		return s.frames[n-1].callbacks
	}
	return 0
}

// topDepth returns the call depth of the top frame (0: none).
func (s *state) topDepth() int {
	if n := len(s.frames); n > 0 {
		return s.frames[n-1].depth
	}
	return 0
}

// top returns the end of the value stack in use.
func (s *state) topEnd() int {
	if len(s.frames) == 0 {
		return 0
	}
	return s.frames[len(s.frames)-1].end
}

// callFromGo pushes a managed frame for a call made by the runtime.
func (s *state) callFromGo(dm *dmethod, args ...value) error {
	lbase := s.topEnd()
	if need := lbase + len(args); need > len(s.vals) {
		s.grow(need)
	}
	copy(s.vals[lbase:], args)
	if err := s.pushFrame(dm, lbase); err != nil {
		return err
	}
	return s.enterInit()
}

// leaveCatches ends, once a leave of frame fi has run its finallys, the
// catch handlers it exits: the running ones whose handler holds the leave
// but not its target. They stay running while those finallys run, so a
// rethrow in a finally nested in a catch finds the catch's exception.
func (s *state) leaveCatches(fi int, m *dmethod, li *leaveInfo) {
	for len(s.recs) > 0 {
		r := &s.recs[len(s.recs)-1]
		if r.frame != fi || r.kind != recCatch {
			return
		}
		c := &m.eh[r.clause]
		if !c.inHandler(li.from) || c.inHandler(li.target) {
			return
		}
		s.recs[len(s.recs)-1] = rec{}
		s.recs = s.recs[:len(s.recs)-1]
	}
}

func (s *state) popFrame() {
	n := len(s.frames) - 1
	for len(s.recs) > 0 && s.recs[len(s.recs)-1].frame >= n {
		s.recs[len(s.recs)-1] = rec{}
		s.recs = s.recs[:len(s.recs)-1]
	}
	s.frames[n] = frame{}
	s.frames = s.frames[:n]
}

// deliver hands a returning call's result to the frame below it.
func (s *state) deliver(v value, has bool) error {
	if len(s.frames) == 0 {
		s.result, s.hasResult = v, has
		return nil
	}
	fr := &s.frames[len(s.frames)-1]
	if fr.kind == fkNative {
		return s.natResume(v)
	}
	if has {
		s.vals[fr.sbase+fr.sp] = v
		s.keepTemp(fr, fr.m, fr.pc, v)
		fr.sp++
	}
	fr.pc++
	return nil
}

// Status of a base library call.
type bstatus uint8

const (
	stOK     bstatus = iota
	stThrow          // s.pend holds the exception
	stPushed         // frames were pushed; the result arrives through deliver
	stErr            // s.deferred holds a runtime error (stack overflow)
)

// run interprets until the frame stack is empty.
func (s *state) run() error {
	var exc any
	var excName string // the class of an implicit exception (throwNew)
	var rethrow bool
	var callee *dmethod
outer:
	for {
		if len(s.frames) == 0 {
			return nil
		}
		fi := len(s.frames) - 1
		fr := &s.frames[fi]
		if fr.kind == fkNative {
			return errors.New("interp: internal error: native frame resumed")
		}
		m := fr.m
		code := m.code
		pc := fr.pc
		sp := fr.sp
		vars := s.vals[fr.lbase : fr.lbase+m.nvars]
		stk := s.vals[fr.sbase : fr.sbase+m.maxStack+2]
		rethrow = false

		for {
			in := &code[pc]
			pc++
		dispatch:
			switch in.op {
			case oNop:
			case oLdv:
				stk[sp] = vars[in.a]
				sp++
			case oStv:
				sp--
				vars[in.a] = stk[sp]
			case oStvN:
				sp--
				v := stk[sp]
				v.n = normalize(il.Kind(in.n), v.n)
				vars[in.a] = v
			case oLdi, oLdf:
				// The whole value: a slot that held a reference must not
				// keep it (the heap limit's mark reads every r).
				stk[sp] = value{n: in.k}
				sp++
			case oLdnull:
				stk[sp].r = nil
				sp++
			case oLdstr:
				stk[sp].r = s.strs[in.a]
				sp++
			case oDup:
				stk[sp] = stk[sp-1]
				sp++
			case oPop:
				sp--

			case oAddI4:
				sp--
				stk[sp-1].n = int64(int32(stk[sp-1].n + stk[sp].n))
			case oAddI8:
				sp--
				stk[sp-1].n += stk[sp].n
			case oAddF:
				sp--
				stk[sp-1].n = fbits(f64(stk[sp-1].n) + f64(stk[sp].n))
			case oAddR4:
				sp--
				stk[sp-1].n = fbits(r4(f64(stk[sp-1].n) + f64(stk[sp].n)))
			case oSubI4:
				sp--
				stk[sp-1].n = int64(int32(stk[sp-1].n - stk[sp].n))
			case oSubI8:
				sp--
				stk[sp-1].n -= stk[sp].n
			case oSubF:
				sp--
				stk[sp-1].n = fbits(f64(stk[sp-1].n) - f64(stk[sp].n))
			case oSubR4:
				sp--
				stk[sp-1].n = fbits(r4(f64(stk[sp-1].n) - f64(stk[sp].n)))
			case oMulI4:
				sp--
				stk[sp-1].n = int64(int32(stk[sp-1].n) * int32(stk[sp].n))
			case oMulI8:
				sp--
				stk[sp-1].n *= stk[sp].n
			case oMulF:
				sp--
				stk[sp-1].n = fbits(f64(stk[sp-1].n) * f64(stk[sp].n))
			case oMulR4:
				sp--
				stk[sp-1].n = fbits(r4(f64(stk[sp-1].n) * f64(stk[sp].n)))
			case oDivF:
				sp--
				stk[sp-1].n = fbits(f64(stk[sp-1].n) / f64(stk[sp].n))
			case oDivR4:
				sp--
				stk[sp-1].n = fbits(r4(f64(stk[sp-1].n) / f64(stk[sp].n)))
			case oRemF:
				sp--
				stk[sp-1].n = fbits(math.Mod(f64(stk[sp-1].n), f64(stk[sp].n)))
			case oRemR4:
				sp--
				stk[sp-1].n = fbits(r4(math.Mod(f64(stk[sp-1].n), f64(stk[sp].n))))
			case oDivI4, oDivI8, oDivUnI4, oDivUnI8, oRemI4, oRemI8, oRemUnI4, oRemUnI8:
				sp--
				var r int64
				var st int
				a, b := stk[sp-1].n, stk[sp].n
				switch in.op {
				case oDivI4:
					r, st = div32(a, b)
				case oDivI8:
					r, st = div64(a, b)
				case oDivUnI4:
					r, st = divUn32(a, b)
				case oDivUnI8:
					r, st = divUn64(a, b)
				case oRemI4:
					r, st = rem32(a, b)
				case oRemI8:
					r, st = rem64(a, b)
				case oRemUnI4:
					r, st = remUn32(a, b)
				default:
					r, st = remUn64(a, b)
				}
				switch st {
				case arDivZero:
					excName = "System.DivideByZeroException"
					goto throwNew
				case arOverflow:
					excName = "System.OverflowException"
					goto throwNew
				}
				stk[sp-1].n = r
			case oAnd:
				sp--
				stk[sp-1].n &= stk[sp].n
			case oOr:
				sp--
				stk[sp-1].n |= stk[sp].n
			case oXor:
				sp--
				stk[sp-1].n ^= stk[sp].n
			case oShlI4:
				sp--
				stk[sp-1].n = int64(int32(stk[sp-1].n) << (uint64(stk[sp].n) & 31))
			case oShlI8:
				sp--
				stk[sp-1].n <<= uint64(stk[sp].n) & 63
			case oShrI4:
				sp--
				stk[sp-1].n = int64(int32(stk[sp-1].n) >> (uint64(stk[sp].n) & 31))
			case oShrI8:
				sp--
				stk[sp-1].n >>= uint64(stk[sp].n) & 63
			case oShrUnI4:
				sp--
				stk[sp-1].n = int64(int32(uint32(stk[sp-1].n) >> (uint64(stk[sp].n) & 31)))
			case oShrUnI8:
				sp--
				stk[sp-1].n = int64(uint64(stk[sp-1].n) >> (uint64(stk[sp].n) & 63))
			case oNegI4:
				stk[sp-1].n = int64(-int32(stk[sp-1].n))
			case oNegI8:
				stk[sp-1].n = -stk[sp-1].n
			case oNegF:
				stk[sp-1].n = fbits(-f64(stk[sp-1].n))
			case oNot:
				stk[sp-1].n = ^stk[sp-1].n
			case oAddOvfI4, oAddOvfI8, oAddOvfUnI4, oAddOvfUnI8, oSubOvfI4, oSubOvfI8, oSubOvfUnI4,
				oSubOvfUnI8, oMulOvfI4, oMulOvfI8, oMulOvfUnI4, oMulOvfUnI8:
				sp--
				var r int64
				var ok bool
				a, b := stk[sp-1].n, stk[sp].n
				switch in.op {
				case oAddOvfI4:
					r, ok = addOvf32(a, b)
				case oAddOvfI8:
					r, ok = addOvf64(a, b)
				case oAddOvfUnI4:
					r, ok = addOvfUn32(a, b)
				case oAddOvfUnI8:
					r, ok = addOvfUn64(a, b)
				case oSubOvfI4:
					r, ok = subOvf32(a, b)
				case oSubOvfI8:
					r, ok = subOvf64(a, b)
				case oSubOvfUnI4:
					r, ok = subOvfUn32(a, b)
				case oSubOvfUnI8:
					r, ok = subOvfUn64(a, b)
				case oMulOvfI4:
					r, ok = mulOvf32(a, b)
				case oMulOvfI8:
					r, ok = mulOvf64(a, b)
				case oMulOvfUnI4:
					r, ok = mulOvfUn32(a, b)
				default:
					r, ok = mulOvfUn64(a, b)
				}
				if !ok {
					excName = "System.OverflowException"
					goto throwNew
				}
				stk[sp-1].n = r
			case oConv:
				r, ok := convert(int(in.a), int(in.b), styp(in.n), stk[sp-1].n)
				if !ok {
					excName = "System.OverflowException"
					goto throwNew
				}
				stk[sp-1].n = r
			case oCkfinite:
				f := f64(stk[sp-1].n)
				if math.IsNaN(f) || math.IsInf(f, 0) {
					excName = "System.OverflowException"
					goto throwNew
				}

			case oCeqI:
				sp--
				stk[sp-1].n = b2i(stk[sp-1].n == stk[sp].n)
			case oCeqF:
				sp--
				stk[sp-1].n = b2i(f64(stk[sp-1].n) == f64(stk[sp].n))
			case oCeqO:
				sp--
				stk[sp-1] = value{n: b2i(stk[sp-1].r == stk[sp].r)}
			case oCgtI:
				sp--
				stk[sp-1].n = b2i(stk[sp-1].n > stk[sp].n)
			case oCgtU32:
				sp--
				stk[sp-1].n = b2i(uint32(stk[sp-1].n) > uint32(stk[sp].n))
			case oCgtU64:
				sp--
				stk[sp-1].n = b2i(uint64(stk[sp-1].n) > uint64(stk[sp].n))
			case oCgtF:
				sp--
				stk[sp-1].n = b2i(f64(stk[sp-1].n) > f64(stk[sp].n))
			case oCgtUnF:
				sp--
				stk[sp-1].n = b2i(!(f64(stk[sp-1].n) <= f64(stk[sp].n)))
			case oCgtUnO:
				sp--
				stk[sp-1] = value{n: b2i(stk[sp-1].r != nil && stk[sp].r == nil)}
			case oCltI:
				sp--
				stk[sp-1].n = b2i(stk[sp-1].n < stk[sp].n)
			case oCltU32:
				sp--
				stk[sp-1].n = b2i(uint32(stk[sp-1].n) < uint32(stk[sp].n))
			case oCltU64:
				sp--
				stk[sp-1].n = b2i(uint64(stk[sp-1].n) < uint64(stk[sp].n))
			case oCltF:
				sp--
				stk[sp-1].n = b2i(f64(stk[sp-1].n) < f64(stk[sp].n))
			case oCltUnF:
				sp--
				stk[sp-1].n = b2i(!(f64(stk[sp-1].n) >= f64(stk[sp].n)))
			case oCltUnO:
				sp--
				stk[sp-1] = value{n: b2i(stk[sp-1].r == nil && stk[sp].r != nil)}

			case oBr:
				pc = int(in.a)
				goto tick
			case oBrtrueI:
				sp--
				if stk[sp].n != 0 {
					pc = int(in.a)
					goto tick
				}
			case oBrfalseI:
				sp--
				if stk[sp].n == 0 {
					pc = int(in.a)
					goto tick
				}
			case oBrtrueO:
				sp--
				if stk[sp].r != nil {
					pc = int(in.a)
					goto tick
				}
			case oBrfalseO:
				sp--
				if stk[sp].r == nil {
					pc = int(in.a)
					goto tick
				}
			case oBeqI, oBneI, oBgeI, oBgtI, oBleI, oBltI:
				sp -= 2
				a, b := stk[sp].n, stk[sp+1].n
				var t bool
				switch in.op {
				case oBeqI:
					t = a == b
				case oBneI:
					t = a != b
				case oBgeI:
					t = a >= b
				case oBgtI:
					t = a > b
				case oBleI:
					t = a <= b
				default:
					t = a < b
				}
				if t {
					pc = int(in.a)
					goto tick
				}
			case oBgeU32, oBgtU32, oBleU32, oBltU32:
				sp -= 2
				a, b := uint32(stk[sp].n), uint32(stk[sp+1].n)
				var t bool
				switch in.op {
				case oBgeU32:
					t = a >= b
				case oBgtU32:
					t = a > b
				case oBleU32:
					t = a <= b
				default:
					t = a < b
				}
				if t {
					pc = int(in.a)
					goto tick
				}
			case oBgeU64, oBgtU64, oBleU64, oBltU64:
				sp -= 2
				a, b := uint64(stk[sp].n), uint64(stk[sp+1].n)
				var t bool
				switch in.op {
				case oBgeU64:
					t = a >= b
				case oBgtU64:
					t = a > b
				case oBleU64:
					t = a <= b
				default:
					t = a < b
				}
				if t {
					pc = int(in.a)
					goto tick
				}
			case oBeqF, oBneF, oBgeF, oBgtF, oBleF, oBltF, oBgeUnF, oBgtUnF, oBleUnF, oBltUnF:
				sp -= 2
				a, b := f64(stk[sp].n), f64(stk[sp+1].n)
				var t bool
				switch in.op {
				case oBeqF:
					t = a == b
				case oBneF:
					t = !(a == b)
				case oBgeF:
					t = a >= b
				case oBgtF:
					t = a > b
				case oBleF:
					t = a <= b
				case oBltF:
					t = a < b
				case oBgeUnF:
					t = !(a < b)
				case oBgtUnF:
					t = !(a <= b)
				case oBleUnF:
					t = !(a > b)
				default:
					t = !(a >= b)
				}
				if t {
					pc = int(in.a)
					goto tick
				}
			case oBeqO, oBneO:
				sp -= 2
				if (stk[sp].r == stk[sp+1].r) == (in.op == oBeqO) {
					pc = int(in.a)
					goto tick
				}
			case oSwitch:
				sp--
				ts := m.switches[in.a]
				if i := uint64(uint32(stk[sp].n)); i < uint64(len(ts)) {
					pc = int(ts[i])
					goto tick
				}

			case oCall, oCallnv:
				callee = s.methods[in.a]
				if in.op == oCallnv && stk[sp-callee.nargs].r == nil {
					excName = "System.NullReferenceException"
					goto throwNew
				}
				goto call
			case oConstrained:
				callee = s.methods[in.a]
				at := sp - callee.nargs
				switch in.n {
				case consRef:
					v, ok := s.ptrLoad(stk[at])
					if !ok {
						excName = "System.NullReferenceException"
						goto throwNew
					}
					stk[at] = v
				case consBoxV:
					v, ok := s.loadStruct(stk[at], s.types[in.k].Class)
					if !ok {
						excName = "System.NullReferenceException"
						goto throwNew
					}
					fr.pc, fr.sp, fr.at = pc-1, sp, atAlloc
					if !s.charge(il.BoxSizeOf(s.types[in.k])) {
						exc = s.outOfMemory()
						goto throw
					}
					v.r.(*svalue).boxed = true
					stk[at] = v
				case consBoxP:
					v, ok := s.ptrLoad(stk[at])
					if !ok {
						excName = "System.NullReferenceException"
						goto throwNew
					}
					fr.pc, fr.sp, fr.at = pc-1, sp, atAlloc
					if !s.charge(il.BoxSize) {
						exc = s.outOfMemory()
						goto throw
					}
					k := s.types[in.k].Kind
					stk[at] = value{r: &boxedValue{k: k, n: normalize(k, v.n)}}
				}
				switch this := stk[at].r.(type) {
				case nil:
					excName = "System.NullReferenceException"
					goto throwNew
				case *managedObject:
					if o := callee.il.Owner; o != nil && o.Interface {
						callee = this.cls.itab[o.IfaceIndex][callee.il.Slot]
					} else if callee.il.Virtual {
						callee = this.cls.vtable[callee.il.Slot]
					}
				}
				goto call
			case oCallvirt:
				callee = s.methods[in.a]
				switch this := stk[sp-callee.nargs].r.(type) {
				case nil:
					excName = "System.NullReferenceException"
					goto throwNew
				case *managedObject:
					if o := callee.il.Owner; o != nil && o.Interface {
						callee = this.cls.itab[o.IfaceIndex][callee.il.Slot]
					} else {
						callee = this.cls.vtable[callee.il.Slot]
					}
				case *managedString:
					// String's overrides (Equals); callvirt of a
					// non-virtual method (Slot -1) calls it as named.
					if slot := callee.il.Slot; slot >= 0 && !callee.il.Owner.Interface {
						callee = s.strVTable[slot]
					}
				}
				goto call
			case oNewobj:
				callee = s.methods[in.a]
				np := callee.nargs - 1
				if in.b >= 0 {
					normArgs(m.argNorms[in.b], stk[sp-np:sp])
				}
				fr.pc, fr.sp, fr.at = pc-1, sp, atAlloc
				if !s.charge(il.ObjectSize(callee.owner.c.NumFields)) {
					exc = s.outOfMemory()
					goto throw
				}
				obj := &managedObject{cls: callee.owner, f: make([]value, callee.owner.nf)}
				copy(stk[sp-np+1:sp+1], stk[sp-np:sp])
				stk[sp-np] = value{r: obj}
				if callee.bi != il.BuiltinNone {
					fr.pc, fr.sp, fr.at = pc-1, sp-np, atCall // the builtin holds obj and the arguments
					_, st := s.builtin(callee, stk[sp-np:sp+1])
					switch st {
					case stThrow:
						exc = s.pend
						goto throw
					case stErr:
						err := s.deferred
						s.deferred = nil
						return err
					}
					sp = sp - np + 1
					stk[sp-1] = value{r: obj}
					continue
				}
				fr.pc, fr.sp, fr.at = pc-1, sp-np, atCall
				if err := s.pushFrame(callee, fr.sbase+sp-np); err != nil {
					return err
				}
				s.frames[len(s.frames)-1].newobj = obj
				if callee.init != nil {
					if err := s.enterInit(); err != nil {
						return err
					}
				}
				goto tickOuter
			case oRet:
				if m.initRun {
					// A type initializer ran: the site that triggered it
					// runs again (it finds the class initialized now).
					s.popFrame()
					if n := len(s.frames); n > 0 && s.frames[n-1].pc < 0 {
						s.frames[n-1].pc = 0 // a method's entry (enterInit)
					}
					continue outer
				}
				nobj := fr.newobj
				s.popFrame()
				var err error
				if nobj != nil {
					err = s.deliver(value{r: nobj}, true)
				} else {
					err = s.deliver(value{}, false)
				}
				if err != nil {
					return err
				}
				continue outer
			case oRetV:
				v := stk[sp-1]
				if in.n != 0 {
					v.n = normalize(il.Kind(in.n), v.n)
				}
				s.popFrame()
				if err := s.deliver(v, true); err != nil {
					return err
				}
				continue outer

			case oLdfld:
				o, ok := stk[sp-1].r.(*managedObject)
				if !ok {
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.nullOrBad(stk[sp-1].r)
					goto throw
				}
				stk[sp-1] = o.f[in.a]
			case oStfld:
				sp -= 2
				o, ok := stk[sp].r.(*managedObject)
				if !ok {
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.nullOrBad(stk[sp].r)
					goto throw
				}
				v := stk[sp+1]
				if in.n != 0 {
					v.n = normalize(il.Kind(in.n), v.n)
				}
				o.f[in.a] = v
			case oLdsfld:
				stk[sp] = s.statics[in.a]
				sp++
			case oInit:
				// A site that triggers a type initializer (cctor.go).
				if t := s.inits[in.b]; s.mustInit(t) {
					fr.pc, fr.sp, fr.at = pc-1, sp, atBefore
					if err := s.runInit(t); err != nil {
						return err
					}
					goto tickOuter
				}
				in = &m.initSites[in.a]
				goto dispatch
			case oTemps:
				// Copies of views into the JIT's temporaries (temps.go).
				for _, t := range m.tempRecs[in.a] {
					s.keep(fr.tbase+int(t.site), stk[t.depth])
				}
				in = &m.tempOrig[in.a]
				goto dispatch
			case oStsfld:
				sp--
				v := stk[sp]
				if in.n != 0 {
					v.n = normalize(il.Kind(in.n), v.n)
				}
				s.statics[in.a] = v
			case oIsinst:
				if r := stk[sp-1].r; r != nil && !isInstance(r, s.types[in.a]) {
					stk[sp-1].r = nil
				}
			case oCastclass:
				if r := stk[sp-1].r; r != nil && !isInstance(r, s.types[in.a]) {
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.castExc(r, s.types[in.a])
					goto throw
				}
			case oBox:
				fr.pc, fr.sp, fr.at = pc-1, sp, atAlloc
				if !s.charge(il.BoxSize) {
					exc = s.outOfMemory()
					goto throw
				}
				k := il.Kind(in.n)
				stk[sp-1].r = &boxedValue{k: k, n: normalize(k, stk[sp-1].n)}
			case oUnbox:
				t := s.types[in.a]
				r := stk[sp-1].r
				b, ok := r.(*boxedValue)
				if !ok || b.k != t.Kind {
					if r == nil {
						excName = "System.NullReferenceException"
						goto throwNew
					}
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.castExc(r, t)
					goto throw
				}
				stk[sp-1] = value{n: b.n}
			case oNewarr:
				n := stk[sp-1].n
				t := s.types[in.a]
				fr.pc, fr.sp, fr.at = pc-1, sp, atAlloc
				switch {
				case n < 0:
					excName = "System.OverflowException"
					goto throwNew
				case n > math.MaxInt32:
					// A native int length: CoreCLR's array lengths are
					// 32-bit.
					exc = s.tooLong("System.OverflowException")
					goto throw
				case n > il.MaxArrayLength:
					exc = s.tooLong(il.OutOfMemoryClass)
					goto throw
				case !s.charge(il.ArraySize(t, n)):
					exc = s.outOfMemory()
					goto throw
				}
				a := &managedArray{elem: t}
				switch {
				case t.IsRef():
					a.r = make([]any, n)
				case t.Kind == il.KValue:
					a.ew = t.Words()
					a.w = make([]value, n*int64(a.ew))
				default:
					a.p = make([]int64, n)
				}
				stk[sp-1] = value{r: a}
			case oLdlen:
				a, ok := stk[sp-1].r.(*managedArray)
				if !ok {
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.nullOrBad(stk[sp-1].r)
					goto throw
				}
				stk[sp-1] = value{n: int64(a.length())}
			case oLdelem:
				sp--
				a, ok := stk[sp-1].r.(*managedArray)
				if !ok {
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.nullOrBad(stk[sp-1].r)
					goto throw
				}
				i := stk[sp].n
				if uint64(i) >= uint64(len(a.p)) {
					excName = "System.IndexOutOfRangeException"
					goto throwNew
				}
				stk[sp-1] = value{n: normalize(il.Kind(in.n), a.p[i])}
			case oLdelemRef:
				sp--
				a, ok := stk[sp-1].r.(*managedArray)
				if !ok {
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.nullOrBad(stk[sp-1].r)
					goto throw
				}
				i := stk[sp].n
				if uint64(i) >= uint64(len(a.r)) {
					excName = "System.IndexOutOfRangeException"
					goto throwNew
				}
				stk[sp-1] = value{r: a.r[i]}
			case oStelem:
				sp -= 3
				a, ok := stk[sp].r.(*managedArray)
				if !ok {
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.nullOrBad(stk[sp].r)
					goto throw
				}
				i := stk[sp+1].n
				if uint64(i) >= uint64(len(a.p)) {
					excName = "System.IndexOutOfRangeException"
					goto throwNew
				}
				a.p[i] = normalize(a.elem.Kind, stk[sp+2].n)
			case oStelemRef:
				sp -= 3
				a, ok := stk[sp].r.(*managedArray)
				if !ok {
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.nullOrBad(stk[sp].r)
					goto throw
				}
				i := stk[sp+1].n
				if uint64(i) >= uint64(len(a.r)) {
					excName = "System.IndexOutOfRangeException"
					goto throwNew
				}
				v := stk[sp+2].r
				if v != nil && a.elem.Kind != il.KObject && !isInstance(v, a.elem) {
					excName = "System.ArrayTypeMismatchException"
					goto throwNew
				}
				a.r[i] = v

			case oLdvV:
				sv := vars[in.a].r.(*svalue)
				stk[sp] = value{r: copySvalue(sv.cls, sv.w)}
				s.keepTemp(fr, m, pc-1, stk[sp])
				sp++
			case oStvV:
				sp--
				copy(wordsOf(vars[in.a]), wordsOf(stk[sp]))
			case oDupV:
				sv := stk[sp-1].r.(*svalue)
				stk[sp] = value{r: copySvalue(sv.cls, sv.w)}
				s.keepTemp(fr, m, pc-1, stk[sp])
				sp++
			case oNewobjV:
				callee = s.methods[in.a]
				np := callee.nargs - 1
				if in.b >= 0 {
					normArgs(m.argNorms[in.b], stk[sp-np:sp])
				}
				sv := newSvalue(callee.il.Owner)
				s.keepTemp(fr, m, pc-1, value{r: sv})
				copy(stk[sp-np+1:sp+1], stk[sp-np:sp])
				stk[sp-np] = mkPtr(sv, 0, il.KValue)
				fr.pc, fr.sp, fr.at = pc-1, sp-np, atCall
				if err := s.pushFrame(callee, fr.sbase+sp-np); err != nil {
					return err
				}
				s.frames[len(s.frames)-1].newobj = sv
				goto tickOuter
			case oLdfldOV:
				o, ok := stk[sp-1].r.(*managedObject)
				if !ok {
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.nullOrBad(stk[sp-1].r)
					goto throw
				}
				c := s.types[in.b].Class
				stk[sp-1] = value{r: copySvalue(c, o.f[in.a:int(in.a)+words(c)])}
				s.keepTemp(fr, m, pc-1, stk[sp-1])
			case oStfldOV:
				sp -= 2
				o, ok := stk[sp].r.(*managedObject)
				if !ok {
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.nullOrBad(stk[sp].r)
					goto throw
				}
				copy(o.f[in.a:], wordsOf(stk[sp+1]))
			case oLdfldP:
				v, ok := s.ptrLoad(ptrAdd(stk[sp-1], int(in.a), il.Kind(in.n)))
				if !ok {
					excName = "System.NullReferenceException"
					goto throwNew
				}
				stk[sp-1] = v
			case oStfldP:
				sp -= 2
				if !s.ptrStore(ptrAdd(stk[sp], int(in.a), il.Kind(in.n)), stk[sp+1]) {
					excName = "System.NullReferenceException"
					goto throwNew
				}
			case oLdfldPV:
				v, ok := s.loadStruct(ptrAdd(stk[sp-1], int(in.a), il.KValue), s.types[in.b].Class)
				if !ok {
					excName = "System.NullReferenceException"
					goto throwNew
				}
				stk[sp-1] = v
				s.keepTemp(fr, m, pc-1, v)
			case oStfldPV:
				sp -= 2
				if !s.storeStruct(ptrAdd(stk[sp], int(in.a), il.KValue), stk[sp+1]) {
					excName = "System.NullReferenceException"
					goto throwNew
				}
			case oLdfldV:
				stk[sp-1] = wordsOf(stk[sp-1])[in.a]
			case oLdfldVV:
				c := s.types[in.b].Class
				stk[sp-1] = value{r: copySvalue(c, wordsOf(stk[sp-1])[in.a:int(in.a)+words(c)])}
				s.keepTemp(fr, m, pc-1, stk[sp-1])
			case oLdsfldV:
				c := s.types[in.b].Class
				stk[sp] = value{r: copySvalue(c, s.statics[in.a:int(in.a)+words(c)])}
				s.keepTemp(fr, m, pc-1, stk[sp])
				sp++
			case oStsfldV:
				sp--
				copy(s.statics[in.a:], wordsOf(stk[sp]))
			case oLdfldaO:
				o, ok := stk[sp-1].r.(*managedObject)
				if !ok {
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.nullOrBad(stk[sp-1].r)
					goto throw
				}
				stk[sp-1] = mkPtr(o, int(in.a), il.Kind(in.n))
			case oLdfldaP:
				if stk[sp-1].r == nil {
					excName = "System.NullReferenceException"
					goto throwNew
				}
				stk[sp-1] = ptrAdd(stk[sp-1], int(in.a), il.Kind(in.n))
			case oLdsflda:
				stk[sp] = mkPtr(theStatics, int(in.a), il.Kind(in.n))
				sp++
			case oLdva:
				stk[sp] = mkPtr(theVars, fr.lbase+int(in.a), il.Kind(in.n))
				sp++
			case oLdvaV:
				stk[sp] = mkPtr(vars[in.a].r, 0, il.KValue)
				sp++
			case oLdind, oLdindRef:
				v, ok := s.ptrLoad(stk[sp-1])
				if !ok {
					excName = "System.NullReferenceException"
					goto throwNew
				}
				if in.op == oLdind {
					stk[sp-1] = value{n: normalize(il.Kind(in.n), v.n)}
				} else {
					stk[sp-1] = value{r: v.r}
				}
			case oStind:
				sp -= 2
				if !s.ptrStore(stk[sp], stk[sp+1]) {
					excName = "System.NullReferenceException"
					goto throwNew
				}
			case oLdobjV:
				v, ok := s.loadStruct(stk[sp-1], s.types[in.a].Class)
				if !ok {
					excName = "System.NullReferenceException"
					goto throwNew
				}
				stk[sp-1] = v
				s.keepTemp(fr, m, pc-1, v)
			case oStobjV:
				sp -= 2
				if !s.storeStruct(stk[sp], stk[sp+1]) {
					excName = "System.NullReferenceException"
					goto throwNew
				}
			case oCpobj:
				sp -= 2
				dst, src := stk[sp], stk[sp+1]
				if in.n != 0 {
					ws, wd := s.ptrWords(src, int(in.a)), s.ptrWords(dst, int(in.a))
					if ws == nil || wd == nil {
						excName = "System.NullReferenceException"
						goto throwNew
					}
					copy(wd, ws)
				} else if v, ok := s.ptrLoad(src); !ok || !s.ptrStore(dst, v) {
					excName = "System.NullReferenceException"
					goto throwNew
				}
			case oInitobj:
				sp--
				if in.n != 0 {
					w := s.ptrWords(stk[sp], int(in.a))
					if w == nil {
						excName = "System.NullReferenceException"
						goto throwNew
					}
					clear(w)
				} else if !s.ptrStore(stk[sp], value{}) {
					excName = "System.NullReferenceException"
					goto throwNew
				}
			case oBoxV:
				// The value on the stack is a copy no one else holds
				// (unless a temporary keeps it): it becomes the box.
				fr.pc, fr.sp, fr.at = pc-1, sp, atAlloc
				if !s.charge(il.BoxSizeOf(s.types[in.a])) {
					exc = s.outOfMemory()
					goto throw
				}
				sv := stk[sp-1].r.(*svalue)
				if sv.kept {
					sv = copySvalue(sv.cls, sv.w)
					stk[sp-1].r = sv
				}
				sv.boxed = true
			case oUnboxV, oUnboxP:
				t := s.types[in.a]
				r := stk[sp-1].r
				var p value
				switch b := r.(type) {
				case *svalue:
					if t.Kind == il.KValue && b.cls == t.Class {
						p = mkPtr(b, 0, il.KValue)
					}
				case *boxedValue:
					if b.k == t.Kind {
						p = mkPtr(b, 0, b.k)
					}
				}
				if p.r == nil {
					if r == nil {
						excName = "System.NullReferenceException"
						goto throwNew
					}
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.castExc(r, t)
					goto throw
				}
				if in.op == oUnboxV {
					b := r.(*svalue)
					p = value{r: copySvalue(b.cls, b.w)}
					s.keepTemp(fr, m, pc-1, p)
				}
				stk[sp-1] = p
			case oLdelemV, oStelemV, oLdelema:
				base := sp - 2
				if in.op == oStelemV {
					base = sp - 3
				}
				a, ok := stk[base].r.(*managedArray)
				if !ok {
					fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
					exc = s.nullOrBad(stk[base].r)
					goto throw
				}
				i := stk[base+1].n
				if uint64(i) >= uint64(a.length()) {
					excName = "System.IndexOutOfRangeException"
					goto throwNew
				}
				sp = base + 1
				switch in.op {
				case oLdelemV:
					ew := int64(a.ew)
					stk[base] = value{r: copySvalue(a.elem.Class, a.w[i*ew:(i+1)*ew])}
					s.keepTemp(fr, m, pc-1, stk[base])
				case oStelemV:
					sp = base
					copy(a.w[i*int64(a.ew):], wordsOf(stk[base+2]))
				default:
					switch {
					case a.w != nil:
						stk[base] = mkPtr(a, int(i)*a.ew, il.KValue)
					case a.r != nil && !a.elem.Equal(s.types[in.a]):
						excName = "System.ArrayTypeMismatchException"
						goto throwNew
					default:
						stk[base] = mkPtr(a, int(i), a.elem.Kind)
					}
				}

			case oThrow:
				sp--
				exc = stk[sp].r
				if exc == nil {
					excName = "System.NullReferenceException"
					goto throwNew
				}
				goto throw
			case oRethrow:
				exc = nil
				for k := len(s.recs) - 1; k >= 0 && s.recs[k].frame == fi; k-- {
					if s.recs[k].kind == recCatch && s.recs[k].clause == int(in.a) {
						exc = s.recs[k].exc
						break
					}
				}
				if exc == nil {
					return errors.New("interp: internal error: rethrow without a caught exception")
				}
				rethrow = true
				goto throw
			case oLeave:
				li := &m.leaves[in.a]
				sp = 0
				if len(li.finallys) == 0 {
					s.leaveCatches(fi, m, li)
					pc = li.target
					goto tick
				}
				s.recs = append(s.recs, rec{frame: fi, kind: recLeave, clause: li.finallys[0], leave: int(in.a)})
				pc = m.eh[li.finallys[0]].hStart
				goto tick
			case oEndfinally:
				if len(s.recs) == 0 || s.recs[len(s.recs)-1].frame != fi || s.recs[len(s.recs)-1].kind == recCatch {
					return errors.New("interp: internal error: endfinally without a running finally")
				}
				r := s.recs[len(s.recs)-1]
				s.recs[len(s.recs)-1] = rec{}
				s.recs = s.recs[:len(s.recs)-1]
				sp = 0
				if r.kind == recLeave {
					li := &m.leaves[r.leave]
					r.step++
					if r.step < len(li.finallys) {
						r.clause = li.finallys[r.step]
						s.recs = append(s.recs, r)
						pc = m.eh[r.clause].hStart
					} else {
						s.leaveCatches(fi, m, li)
						pc = li.target
					}
					goto tick
				}
				fr.pc, fr.sp = pc-1, 0
				if err := s.runDispatch(r.d); err != nil {
					return err
				}
				continue outer
			case oEndfilter:
				res := int32(stk[sp-1].n)
				d := fr.disp
				s.popFrame()
				if res != 0 {
					d.hf, d.hc, d.second = d.fi, d.ci, true
				} else {
					d.ci++
				}
				if err := s.runDispatch(d); err != nil {
					return err
				}
				continue outer
			case oUnreachable:
				return fmt.Errorf("interp: internal error: unreachable code executed in %s", m.il.FullName())
			default:
				return fmt.Errorf("interp: internal error: bad opcode %d", in.op)
			}
			continue

		tick:
			s.budget--
			if s.budget < 0 {
				if err := s.poll(); err != nil {
					return err
				}
			}
			continue

		call:
			{
				nargs := callee.nargs
				if in.b >= 0 {
					normArgs(m.argNorms[in.b], stk[sp-nargs:sp])
				}
				fr.pc, fr.sp, fr.at = pc-1, sp-nargs, atCall
				if callee.bi != il.BuiltinNone {
					res, st := s.builtin(callee, stk[sp-nargs:sp])
					switch st {
					case stOK:
						sp -= nargs
						if callee.hasRet {
							stk[sp] = res
							s.keepTemp(fr, m, pc-1, res)
							sp++
						}
						continue
					case stThrow:
						exc = s.pend
						goto throw
					case stErr:
						err := s.deferred
						s.deferred = nil
						return err
					}
					continue outer
				}
				if err := s.pushFrame(callee, fr.sbase+sp-nargs); err != nil {
					return err
				}
				if callee.init != nil {
					if err := s.enterInit(); err != nil {
						return err
					}
				}
			}
		tickOuter:
			s.budget--
			if s.budget < 0 {
				if err := s.poll(); err != nil {
					return err
				}
			}
			continue outer
		}

	throwNew:
		// An implicit exception of the instruction at pc-1, allocated with
		// the frame's evaluation stack as it stands (sp: its roots).
		fr.pc, fr.sp, fr.at = pc-1, sp, atThrow
		exc = s.newExc(excName)
	throw:
		fr.pc, fr.sp = pc-1, sp
		if err := s.throw(exc, rethrow); err != nil {
			return err
		}
	}
}

// words is the number of words a value of value type c takes.
func words(c *il.Class) int { return max(c.NumFields, 1) }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func normArgs(ns []argNorm, args []value) {
	for _, n := range ns {
		args[n.off].n = normalize(n.k, args[n.off].n)
	}
}

// nullOrBad returns the exception for an object access through r: a
// NullReferenceException for null (anything else is unverifiable code).
func (s *state) nullOrBad(r any) *managedObject {
	if r == nil {
		return s.newExc("System.NullReferenceException")
	}
	return s.newExcMsg("System.InvalidProgramException", "Common Language Runtime detected an invalid program.")
}
