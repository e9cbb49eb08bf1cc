package jitrt

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"miniil/abi"
	"miniil/amd64"

	"miniil/il"
	"miniil/internal/slab"
)

// CompileFunc compiles a method for a runtime (the runtime passes itself
// to the code generator as the source of addresses). The runtime installs
// what it returns before it calls the CompileFunc again, copying the
// machine code and the lists it keeps while the code is installed: what
// it returns need stay valid only until then.
type CompileFunc func(rt *Runtime, m *il.Method) (*abi.Method, error)

// Options configures a Runtime.
type Options struct {
	Stdout  io.Writer
	Compile CompileFunc
	// HeapBytes bounds the managed heap: an allocation of n bytes throws
	// System.OutOfMemoryException when, after a full collection, the
	// bytes of the live objects plus n exceed it (object sizes are
	// il.ObjectSize and its siblings; the nursery is not counted). The
	// heap reserves twice this much address space, plus the nursery;
	// pages are committed as used and given back after collections.
	// Default DefaultHeapBytes, at most MaxHeapBytes.
	HeapBytes int
	// NurseryBytes is the size of the young generation, where native
	// code allocates inline. Default DefaultNurseryBytes, at least
	// MinNurseryBytes.
	NurseryBytes int
	// GCStress collects at every GCStress-th safepoint (0: never; 1:
	// every one), where under stress every allocation is a safepoint,
	// every fourth stress collection is a full one, and freed memory is
	// poisoned. For testing miniil, as CoreCLR's GCStress.
	GCStress int
	// VerifyHeap checks every reference of the heap and of the roots
	// after each collection (see gcverifyheap.go). Slow; for testing.
	VerifyHeap bool
	// StackBytes is the native stack size. Default StackBytesPerCall
	// bytes per call of MaxCallDepth, at least 8 MiB and at most 1 GiB.
	StackBytes int
	// MaxCallDepth bounds the nesting of method calls (see depth.go);
	// deeper calls end the run with a *StackOverflowError. Default
	// DefaultMaxCallDepth.
	MaxCallDepth int
	// FlushLines makes the output writer flush to Stdout at the end of
	// every line written (for a terminal); otherwise output is
	// block-buffered and flushed when the run ends.
	FlushLines bool
	// PerfMap, when set, receives a line "ADDR SIZE NAME" (hex address
	// and size) for the runtime's stubs and for every funclet and cold
	// section of every method installed: the format of Linux perf's
	// /tmp/perf-PID.map, with which `perf report` names JIT code.
	PerfMap io.Writer
	// VerifyGC checks the JIT's GC information at every exit of native
	// code: it walks the managed frames as a collector would and checks
	// every location they report (see gcverify.go). A failed check ends
	// the run with an error. Slow; for testing miniil.
	VerifyGC bool
}

// DefaultHeapBytes is the managed heap limit when Options.HeapBytes is 0.
const DefaultHeapBytes = 1 << 30

// MaxHeapBytes is the largest managed heap limit a runtime accepts.
const MaxHeapBytes = 1 << 40

// UnhandledException is a managed exception no handler caught.
type UnhandledException struct {
	Type, Message string
	Trace         []string // methods from the throw point outward
	ILOffsets     []int    // IL offset of each frame's throw or call site (-1: unknown)
	// Inner is the InnerException (nil: none), with no Trace but for the
	// inner exception of a TypeInitializationException made in the catch
	// handler of that exception (the frames of a failed static
	// constructor, as CoreCLR reports them).
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

// typeKind says what a runtime type describes.
type typeKind uint8

const (
	tkClass  typeKind = iota // an instance of a class (base library ones too)
	tkString                 // System.String
	tkArray                  // a single-dimension array
	tkBox                    // a boxed primitive
)

// rtType is the Go-side description of a method table.
type rtType struct {
	id       int
	kind     typeKind
	class    *il.Class // tkClass, tkString
	elem     *il.Type  // tkArray
	prim     il.Kind   // tkBox
	name     string    // CLR name
	mt       uintptr
	elemSize int // tkArray
	// For the collector (layoutType): the size of a class instance or
	// box, and the offsets of the reference words of an instance, or of
	// an array element.
	size uintptr
	refs []uintptr
}

// arena is a bump allocator over an mmap'd region outside the Go heap.
// top points at the address of the next allocation: for the managed heap
// it is the context slot CtxHeapTop, shared with native code, which
// allocates inline.
type arena struct {
	mem   []byte
	base  uintptr
	top   *uint64
	limit uintptr
	own   uint64 // top's storage when no context holds it
	full  error  // what alloc returns when the arena is full
}

// newArena maps an arena that can hand out exactly size bytes (the first
// allocation starts 8 bytes into the mapping, so no object is at the
// mapping's base); what names the arena in errors.
func newArena(size int, what string, full error) (*arena, error) {
	mapped := roundUp(size+8, pageSize)
	mem, err := unix.Mmap(-1, 0, mapped, unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("jitrt: mapping %s for %s: %w", formatBytes(size), what, err)
	}
	// Bump allocation touches fresh memory all the time: transparent huge
	// pages cut the page faults (advice only; ignored where unsupported).
	_ = unix.Madvise(mem, unix.MADV_HUGEPAGE)
	a := &arena{mem: mem, base: uintptr(unsafe.Pointer(&mem[0])), full: full}
	a.own = uint64(a.base) + 8
	a.top = &a.own
	a.limit = a.base + 8 + uintptr(size)
	return a, nil
}

// formatBytes formats a size for messages: "1 GiB", "64 MiB", "12 KiB",
// "100 bytes".
func formatBytes(n int) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift {
			if n%(1<<u.shift) == 0 {
				return fmt.Sprintf("%d %s", n>>u.shift, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(int(1)<<u.shift), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// ErrHeapExhausted reports that the managed heap limit is reached. Inside
// a run it never escapes: the runtime throws System.OutOfMemoryException
// into the program instead.
var ErrHeapExhausted = errors.New("jitrt: managed heap limit reached")

// errMetaExhausted reports that the type metadata arena, sized from the
// module, is full: a bug in the estimate.
var errMetaExhausted = errors.New("jitrt: type metadata arena exhausted")

// alloc allocates size bytes (rounded up to 8), or fails with the arena's
// error when they do not fit.
func (a *arena) alloc(size int64) (uintptr, error) {
	n := uintptr((size + 7) &^ 7)
	p := uintptr(*a.top)
	if size < 0 || n > a.limit-p {
		return 0, a.full
	}
	*a.top = uint64(p + n)
	return p, nil
}

func (a *arena) contains(p uintptr, n int) bool {
	return p >= a.base && p+uintptr(n) <= uintptr(*a.top)
}

// used returns the bytes allocated so far.
func (a *arena) used() int { return int(uintptr(*a.top) - a.base - 8) }

func (a *arena) unmap() error {
	if a == nil {
		return nil
	}
	return unix.Munmap(a.mem)
}

// Runtime runs one module's JIT-compiled code.
type Runtime struct {
	mod     *il.Module
	opts    Options
	out     *outWriter
	code    *CodeHeap
	mach    *Machine
	cells   *Cells
	gc      *gcHeap // objects, strings, arrays, boxes
	meta    *arena  // method tables, statics
	methods []*il.Method
	types   []*rtType
	classMT map[*il.Class]*rtType
	typeMT  map[string]*rtType // arrays and boxes by type text
	strs    map[string]uintptr
	statics uintptr
	// vtableRefs lists the vtable slots that point at a method's prestub,
	// patched when the method is compiled.
	vtableRefs map[*il.Method][]uintptr
	builtins   []*il.Method           // base library methods by il.BuiltinKind
	stubs      map[*il.Method]uintptr // exit stubs of base library virtual methods
	// codeMap lists the installed methods, sorted by start. A codeRange
	// never changes or moves once installed, and installing code adds
	// addresses no cache has seen, so the caches that hold codeRange
	// pointers (pcCache, the dispatch cache) stay valid.
	codeMap    []*codeRange
	installed  installedMem
	pcCache    [pcCacheSize]pcInfo // frameInfo's cache
	ctx        context.Context
	toString   int // vtable slots of Object.ToString and Exception.get_Message
	getMessage int
	charArray  *rtType // char[], the StringBuilder buffers' type (made on first use)
	stringT    *rtType // System.String
	// Exception dispatch (eh.go).
	trackers      []*tracker
	freeTrackers  []*tracker
	funcletReturn uintptr // the stub funclets invoked by the dispatcher return to
	// The plan stub (ehplan.go): its start, the return address of its
	// funclet calls and its end.
	planStub, planRet, planEnd uintptr
	// The dispatch cache (ehcache.go) and the throws that took a
	// remembered search.
	dispatchCache [dispatchSets]dispatchSet
	dispatchHits  int
	oom           uintptr // the preallocated OutOfMemoryException (in meta)
	// Call depth (depth.go).
	maxDepth       int
	checkpoints    []checkpoint // oldest (highest address) first
	checkpointStub uintptr
	// Static constructors (cctor.go).
	innerTraces map[uintptr]innerTrace // traces of inner exceptions of TypeInitializationExceptions
	// gcv checks the GC information at every exit (Options.VerifyGC).
	gcv *gcVerifier
	// staticRefs are the addresses of the statics' reference words, roots
	// of every collection.
	staticRefs []uintptr
	// gcVerifyHeap checks the heap after every collection.
	gcVerifyHeap bool
	// curExit is the code of the exit being served (the state a stack
	// walk starts from).
	curExit uint64
	// exits counts the exits served, by code, and builtinCalls the calls
	// of base library methods, by il.BuiltinKind (ExitCounts).
	exits        [exitCodes]int
	builtinCalls []int
}

// codeRange is one installed method's code.
type codeRange struct {
	start, end uintptr
	method     *il.Method
	sites      []abi.Site
	inlines    []abi.InlineSite // the inlined calls (abi.Method.Inlines)
	clauses    []abi.EHClause
	catchRT    []*rtType     // per clause: the catch type's runtime type
	funclets   []abi.Funclet // sorted by Start
	gc         abi.GCInfo
	// innermost maps code offsets to the first clause whose try covers
	// them: segment k covers [innermost[k].start, innermost[k+1].start).
	innermost []segment
}

// segment is a run of code offsets whose first covering clause is clause
// (-1: none).
type segment struct{ start, clause int }

// funcletAt returns the index of the funclet containing code offset off
// (0: the main body).
func (r *codeRange) funcletAt(off int) int {
	k := sort.Search(len(r.funclets), func(k int) bool { return r.funclets[k].End > off })
	if k < len(r.funclets) && r.funclets[k].Start <= off {
		return k
	}
	return 0
}

// firstClause returns the first clause an exception raised at code
// offset off is offered to: the innermost clause whose try covers off,
// else the first one enclosing the funclet off lies in (-1: none).
func (r *codeRange) firstClause(off int) int {
	k := sort.Search(len(r.innermost), func(k int) bool { return r.innermost[k].start > off }) - 1
	if k >= 0 && r.innermost[k].clause >= 0 {
		return r.innermost[k].clause
	}
	return r.funclets[r.funcletAt(off)].Enclosing
}

// noClauses is the innermost index of every method without clauses
// (shared: an index is never written once built).
var noClauses = []segment{{0, -1}}

// installedMem holds what the runtime keeps of every installed method,
// as long as the runtime lives: its code range and copies of the lists
// the compile returned (the compile's own are valid only until the
// next). They come from slabs, chunks of many made resident at once,
// instead of an allocation (and page faults) per list per method.
type installedMem struct {
	ranges     slab.Slab[codeRange]
	sites      slab.Slab[abi.Site]
	inlines    slab.Slab[abi.InlineSite]
	clauses    slab.Slab[abi.EHClause]
	funclets   slab.Slab[abi.Funclet]
	safepoints slab.Slab[abi.Safepoint]
	locs       slab.Slab[abi.GCLoc]
	saves      slab.Slab[abi.CalleeSave]
	catchRT    slab.Slab[*rtType]
}

// keep returns the code range of method m, compiled as c and installed
// at addr, with its lists copied into k's slabs.
func (k *installedMem) keep(c *abi.Method, addr uintptr, m *il.Method, catchRT []*rtType) *codeRange {
	r := k.ranges.One()
	clauses := k.clauses.Clone(c.Clauses)
	*r = codeRange{start: addr, end: addr + uintptr(len(c.Code)), method: m,
		sites: k.sites.Clone(c.Sites), inlines: k.inlines.Clone(c.Inlines), clauses: clauses,
		funclets: k.funclets.Clone(c.Funclets),
		gc: abi.GCInfo{Safepoints: k.safepoints.Clone(c.GC.Safepoints), Locs: k.locs.Clone(c.GC.Locs),
			Untracked: k.locs.Clone(c.GC.Untracked), Saves: k.saves.Clone(c.GC.Saves)},
		catchRT: catchRT, innermost: innermostIndex(clauses)}
	return r
}

// innermostIndex builds codeRange.innermost from a clause table whose try
// ranges nest (inner clauses, and among clauses of one try the first, have
// the lowest indexes).
func innermostIndex(cs []abi.EHClause) []segment {
	if len(cs) == 0 {
		return noClauses
	}
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	// Outer ranges first; of equal ranges the highest index first, so
	// the lowest ends on top of the stack.
	sort.Slice(order, func(a, b int) bool {
		x, y := &cs[order[a]], &cs[order[b]]
		if x.TryStart != y.TryStart {
			return x.TryStart < y.TryStart
		}
		if x.TryEnd != y.TryEnd {
			return x.TryEnd > y.TryEnd
		}
		return order[a] > order[b]
	})
	segs := []segment{{0, -1}}
	var open []int
	mark := func(pos int) {
		top := -1
		if len(open) > 0 {
			top = open[len(open)-1]
		}
		last := &segs[len(segs)-1]
		switch {
		case last.start == pos:
			last.clause = top
		case last.clause != top:
			segs = append(segs, segment{pos, top})
		}
	}
	closeTo := func(pos int) {
		for len(open) > 0 && cs[open[len(open)-1]].TryEnd <= pos {
			end := cs[open[len(open)-1]].TryEnd
			open = open[:len(open)-1]
			mark(end)
		}
	}
	for _, i := range order {
		closeTo(cs[i].TryStart)
		open = append(open, i)
		mark(cs[i].TryStart)
	}
	closeTo(math.MaxInt)
	return segs
}

// NewRuntime prepares a module for JIT execution: it maps the managed heap
// and the native stack, lays out method tables and statics, and creates a
// call cell with a prestub for every method. Every mapping is sized from
// the options and the module (see Reservations). On failure everything
// mapped so far is released.
func NewRuntime(mod *il.Module, opts Options) (*Runtime, error) {
	if opts.Compile == nil {
		return nil, errors.New("jitrt: Options.Compile is required")
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.HeapBytes == 0 {
		opts.HeapBytes = DefaultHeapBytes
	}
	if opts.HeapBytes < 0 || opts.HeapBytes > MaxHeapBytes {
		return nil, fmt.Errorf("jitrt: heap limit %d out of range [1, %d]", opts.HeapBytes, MaxHeapBytes)
	}
	if opts.NurseryBytes == 0 {
		opts.NurseryBytes = DefaultNurseryBytes
	}
	if opts.NurseryBytes < MinNurseryBytes || opts.NurseryBytes > MaxNurseryBytes {
		return nil, fmt.Errorf("jitrt: nursery size %d out of range [%d, %d]", opts.NurseryBytes, MinNurseryBytes, MaxNurseryBytes)
	}
	if opts.GCStress < 0 {
		return nil, fmt.Errorf("jitrt: GC stress interval %d is negative", opts.GCStress)
	}
	if opts.MaxCallDepth <= 0 {
		opts.MaxCallDepth = DefaultMaxCallDepth
	}
	if opts.StackBytes == 0 {
		opts.StackBytes = stackBytesFor(opts.MaxCallDepth)
	}
	rt := &Runtime{
		mod: mod, opts: opts, out: newOutWriter(opts.Stdout, opts.FlushLines), maxDepth: opts.MaxCallDepth,
		classMT: map[*il.Class]*rtType{}, typeMT: map[string]*rtType{}, strs: map[string]uintptr{},
		vtableRefs: map[*il.Method][]uintptr{}, builtins: mod.BuiltinMethods(), stubs: map[*il.Method]uintptr{},
	}
	for k, m := range rt.builtins {
		if m != nil && m.NewobjCall != nil {
			rt.builtins[k] = m.NewobjCall // what newobj calls: its arguments, no this
		}
	}
	if err := rt.init(); err != nil {
		rt.Close()
		return nil, err
	}
	rt.gcVerifyHeap = opts.VerifyHeap || opts.GCStress > 0
	if opts.VerifyGC {
		rt.gcv = newGCVerifier(rt)
	}
	if opts.VerifyGC || opts.GCStress > 0 {
		rt.mach.SetExitHook(rt.exitHook)
	}
	return rt, nil
}

// Reservations returns the address space a runtime for mod reserves
// besides the managed heap and the native stack: the code heap (code,
// cells, prestubs and stubs) and the type metadata arena (method tables,
// statics, interned strings). Both are estimated from the module with
// room to spare; pages are only committed as they are used.
func Reservations(mod *il.Module) (code, meta int) {
	return codeReserve(mod), metaReserve(mod)
}

// codeReserve sizes the code heap: every method compiled (in whole
// pages, as the heap's single-mapping fallback installs them), its cell
// and prestub, and the stubs, allowing 128
// bytes of machine code per IL instruction, more than twice the densest
// code measured on the corpus (about 55 bytes per instruction in
// throw-heavy methods, 14 on average). Everything in one code heap is
// within rel32 reach, so the reservation stays at most 1 GiB.
func codeReserve(mod *il.Module) int {
	methods := mod.CodeMethods()
	n := 0
	for _, m := range methods {
		size := 512 + 128*len(m.Code) + 256*len(m.EH)
		for _, in := range m.Code {
			size += 16 * len(in.Targets())
		}
		n += roundUp(size, pageSize)
	}
	n += roundUp(8*len(methods), pageSize) + roundUp(prestubSize*len(methods), pageSize)
	// The shared stubs, the StringBuilder routines, the funclet return
	// and checkpoint stubs and one exit stub per virtual base library
	// method, a page each; a staging chunk.
	stubs := 4
	for _, name := range il.BaseLibraryClasses() {
		if c := mod.Class(name); c != nil {
			stubs += len(c.Methods)
		}
	}
	n += stubs*pageSize + 64<<10
	return min(max(n, 1<<20), 1<<30)
}

// metaReserve sizes the type metadata arena: the method tables of the
// classes and of the array and box types instructions name, the statics,
// and the interned strings (literals, type names, default messages),
// doubled, up to 1 GiB.
func metaReserve(mod *il.Module) int {
	n := 8 * (mod.StaticWords + 1)
	for _, name := range il.BaseLibraryClasses() {
		if c := mod.Class(name); c != nil {
			n += metaClass(c, mod.NumInterfaces)
		}
	}
	for _, c := range mod.Classes {
		n += metaClass(c, mod.NumInterfaces)
	}
	// Each distinct array or box type: a method table per array nesting
	// level (arrays of arrays get their element's too) and its name.
	types := map[string]bool{}
	typeCost := func(t *il.Type) int {
		key := t.String()
		if types[key] {
			return 0
		}
		types[key] = true
		levels := strings.Count(key, "[]") + 1
		return levels * (abi.MTVTable + abi.MTSlotSize*4 + int(il.StringSize(len(key)+16)))
	}
	for _, m := range mod.CodeMethods() {
		for _, in := range m.Code {
			if s := in.Str(); s != "" {
				n += int(il.StringSize(len(s)))
			}
			if t := in.Type(); t != nil {
				n += typeCost(t)
			}
		}
		for _, c := range m.EH {
			if c.CatchType != nil {
				n += typeCost(c.CatchType)
			}
		}
	}
	// The names of every level of a deeply nested array type grow with
	// the square of its depth, though a program interns only the names
	// it prints: like the code heap, the arena stays at most 1 GiB.
	return min(roundUp(2*n+64<<10, pageSize), 1<<30)
}

// metaClass is what a class costs in the metadata arena: its method table,
// its interface table (ifaces words and a block per interface), its name
// and the default message naming it.
func metaClass(c *il.Class, ifaces int) int {
	n := abi.MTVTable + abi.MTSlotSize*len(c.VTable) + 2*int(il.StringSize(len(c.Name)+48)) + 2*int(il.ObjectSize(c.NumFields))
	if len(c.IMap) > 0 {
		n += abi.MTSlotSize * ifaces
		for _, impl := range c.IMap {
			n += abi.MTSlotSize * len(impl)
		}
	}
	return n
}

// init maps the runtime's memory and lays out its types.
func (rt *Runtime) init() error {
	mod, opts := rt.mod, rt.opts
	codeBytes, metaBytes := Reservations(mod)
	var err error
	if rt.code, err = NewCodeHeap(CodeHeapConfig{ReserveBytes: codeBytes}); err != nil {
		return err
	}
	if rt.mach, err = NewMachine(MachineConfig{Heap: rt.code, StackBytes: opts.StackBytes}); err != nil {
		return err
	}
	rt.code.setSBRoutines(rt.mach)
	if rt.gc, err = newGCHeap(rt, opts.HeapBytes, opts.NurseryBytes, opts.GCStress); err != nil {
		return err
	}
	rt.gc.attach(rt.mach)
	if rt.meta, err = newArena(metaBytes, "type metadata", errMetaExhausted); err != nil {
		return err
	}
	rt.methods = mod.CodeMethods()
	if rt.cells, err = rt.code.NewCells(len(rt.methods)); err != nil {
		return err
	}
	if rt.statics, err = rt.meta.alloc(8 * int64(mod.StaticWords+1)); err != nil {
		return err
	}
	for _, f := range mod.StaticFields() {
		if f.Builtin {
			rt.setU64(rt.StaticAddr(f), uint64(f.Init)) // String.Empty: below
		}
		switch {
		case f.Type.IsRef():
			rt.staticRefs = append(rt.staticRefs, rt.StaticAddr(f))
		case f.Type.Kind == il.KValue:
			for _, w := range f.Type.Class.RefWords {
				rt.staticRefs = append(rt.staticRefs, rt.StaticAddr(f)+uintptr(8*w))
			}
		}
	}
	// The hidden statics of type initializers keep the exception of a
	// failed one (il.TypeInit.Error).
	inits := []*il.TypeInit{mod.Init}
	for _, c := range mod.Classes {
		inits = append(inits, c.Init)
	}
	for _, ti := range inits {
		if ti != nil {
			rt.staticRefs = append(rt.staticRefs, rt.StaticAddr(ti.Error))
		}
	}
	// Funclets the dispatcher invokes return here; the dispatcher never
	// resumes the stub itself (UD2).
	if rt.funcletReturn, err = rt.code.InstallStub(func(a *amd64.Assembler) {
		emitExitStub(a, abi.ExitFuncletReturn, 0, false, amd64.UD2)
	}); err != nil {
		return err
	}
	if err = rt.installPlanStub(); err != nil {
		return err
	}
	// Call depth checkpoints: resumed at the real return address.
	if rt.checkpointStub, err = rt.code.InstallStub(func(a *amd64.Assembler) {
		emitExitStub(a, abi.ExitCheckpoint, 0, false, amd64.UD2)
	}); err != nil {
		return err
	}
	if w := rt.opts.PerfMap; w != nil {
		h := rt.code
		for _, st := range []struct {
			addr, end uintptr
			name      string
		}{{h.exitStub, h.pollStub, "exit stub"}, {h.pollStub, h.overflowStub, "poll stub"},
			{h.overflowStub, h.returnStub, "stack overflow stub"}, {h.returnStub, h.strEquals, "return stub"},
			{h.strEquals, h.strConcat, "string equality"}, {h.strConcat, h.strConcatEnd, "string concatenation"},
			{rt.cells.Prestub(0), rt.cells.Prestub(0) + uintptr(prestubSize*rt.cells.Len()), "prestubs"},
			{rt.funcletReturn, rt.funcletReturn + 16, "funclet return stub"}, {rt.planStub, rt.planEnd, "exception dispatch plan stub"}, {rt.checkpointStub, rt.checkpointStub + 16, "checkpoint stub"}} {
			fmt.Fprintf(w, "%x %x miniil %s\n", st.addr, st.end-st.addr, st.name)
		}
		for _, st := range h.sbRoutineRanges() {
			fmt.Fprintf(w, "%x %x miniil %s\n", st.addr, st.end-st.addr, st.name)
		}
	}
	obj := mod.Class(il.ObjectClass)
	rt.toString = methodSlot(obj, "ToString")
	rt.getMessage = methodSlot(mod.Class(il.ExceptionClass), "get_Message")
	// Method tables for every class, bases first.
	var classes []*il.Class
	seen := map[*il.Class]bool{}
	var add func(c *il.Class)
	add = func(c *il.Class) {
		if c == nil || seen[c] {
			return
		}
		add(c.Base)
		seen[c] = true
		classes = append(classes, c)
	}
	for _, name := range il.BaseLibraryClasses() {
		add(mod.Class(name))
	}
	for _, c := range mod.Classes {
		add(c)
	}
	for _, c := range classes {
		kind := tkClass
		if c.Name == il.StringClass {
			kind = tkString
		}
		if _, err := rt.newType(&rtType{kind: kind, class: c, name: c.Name}, c.VTable, c.Base); err != nil {
			return err
		}
	}
	// CoreCLR preallocates an OutOfMemoryException to throw when not even
	// a new one fits; it has no message.
	oom := mod.Class(il.OutOfMemoryClass)
	if rt.oom, err = rt.meta.alloc(il.ObjectSize(oom.NumFields)); err != nil {
		return err
	}
	rt.setU64(rt.oom+abi.ObjMT, uint64(rt.classMT[oom].mt))
	// Builtin string fields (String.Empty) hold the literal "", once
	// String has its method table.
	for _, f := range mod.StaticFields() {
		if f.Builtin && f.Type.Kind == il.KString {
			rt.setU64(rt.StaticAddr(f), uint64(rt.StringAddr("")))
		}
	}
	return nil
}

func methodSlot(c *il.Class, name string) int {
	for i, m := range c.VTable {
		if m.Name == name {
			return i
		}
	}
	return -1
}

// newType allocates a method table with the given vtable and registers t.
func (rt *Runtime) newType(t *rtType, vtable []*il.Method, base *il.Class) (*rtType, error) {
	mt, err := rt.meta.alloc(int64(abi.MTVTable + abi.MTSlotSize*len(vtable)))
	if err != nil {
		return nil, err
	}
	t.id, t.mt = len(rt.types), mt
	layoutType(t)
	rt.types = append(rt.types, t)
	if base != nil {
		rt.setU64(mt+abi.MTBase, uint64(rt.classMT[base].mt))
	}
	rt.setU64(mt+abi.MTTypeID, uint64(t.id))
	for i, m := range vtable {
		slot := mt + abi.MTVTable + uintptr(abi.MTSlotSize*i)
		addr, err := rt.entryPoint(m)
		if err != nil {
			return nil, err
		}
		rt.setU64(slot, uint64(addr))
		if !m.Builtin {
			rt.vtableRefs[m] = append(rt.vtableRefs[m], slot)
		}
	}
	if t.kind == tkClass && len(t.class.IMap) > 0 {
		if err := rt.newITab(mt, t.class); err != nil {
			return nil, err
		}
	}
	if t.kind == tkClass || t.kind == tkString {
		rt.classMT[t.class] = t
	}
	if t.kind == tkString {
		rt.stringT = t
	}
	return t, nil
}

// newITab allocates and fills class c's interface table, whose address
// goes in the method table at mt. Its code addresses are patched, as
// vtable slots are, when a method is compiled.
func (rt *Runtime) newITab(mt uintptr, c *il.Class) error {
	itab, err := rt.meta.alloc(int64(abi.MTSlotSize * rt.mod.NumInterfaces))
	if err != nil {
		return err
	}
	rt.setU64(mt+abi.MTITab, uint64(itab))
	for iface, impl := range c.IMap {
		block, err := rt.meta.alloc(int64(abi.MTSlotSize * len(impl)))
		if err != nil {
			return err
		}
		rt.setU64(itab+uintptr(abi.MTSlotSize*iface.IfaceIndex), uint64(block))
		for k, m := range impl {
			if m == nil {
				continue // an abstract class's empty slot: never called
			}
			slot := block + uintptr(abi.MTSlotSize*k)
			addr, err := rt.entryPoint(m)
			if err != nil {
				return err
			}
			rt.setU64(slot, uint64(addr))
			if !m.Builtin {
				rt.vtableRefs[m] = append(rt.vtableRefs[m], slot)
			}
		}
	}
	return nil
}

// entryPoint returns the current code address of a method: its compiled
// code, its prestub, or for a base library virtual method an exit stub.
func (rt *Runtime) entryPoint(m *il.Method) (uintptr, error) {
	if !m.Builtin {
		return rt.cells.Get(m.Index), nil
	}
	if s, ok := rt.stubs[m]; ok {
		return s, nil
	}
	addr, err := rt.code.InstallStub(func(a *amd64.Assembler) {
		rt.emitStubFastPath(a, m.BuiltinKind) // sbnative.go
		emitExitStub(a, abi.ExitStubBuiltin, int64(m.BuiltinKind), true, amd64.RET)
	})
	if err != nil {
		return 0, err
	}
	rt.stubs[m] = addr
	return addr, nil
}

// Close releases the runtime's memory. It may be called more than once,
// and on a nil Runtime.
func (rt *Runtime) Close() error {
	if rt == nil {
		return nil
	}
	var errs []error
	if rt.mach != nil {
		errs = append(errs, rt.mach.Close())
	}
	if rt.code != nil {
		errs = append(errs, rt.code.Close())
	}
	errs = append(errs, rt.gc.unmap(), rt.meta.unmap())
	rt.mach, rt.code, rt.gc, rt.meta = nil, nil, nil, nil
	return errors.Join(errs...)
}

// Memory access to managed memory. Addresses outside the arenas are a bug
// in the runtime or the code generator (a panic, recovered at the API).
func (rt *Runtime) bytes(p uintptr, n int) []byte {
	if h := rt.gc; h.contains(p, n) {
		off := int(p - h.base)
		return h.mem[off : off+n : off+n]
	}
	if a := rt.meta; a.contains(p, n) {
		off := int(p - a.base)
		return a.mem[off : off+n : off+n]
	}
	panic(fmt.Sprintf("jitrt: access to %#x (%d bytes) outside managed memory", p, n))
}

func (rt *Runtime) u64(p uintptr) uint64 {
	return *(*uint64)(unsafe.Pointer(&rt.bytes(p, 8)[0]))
}

func (rt *Runtime) setU64(p uintptr, v uint64) {
	*(*uint64)(unsafe.Pointer(&rt.bytes(p, 8)[0])) = v
}

// mtType returns the runtime type of method table mt (in the metadata
// arena: read without the checks of u64, for the collector's loops).
func (rt *Runtime) mtType(mt uintptr) *rtType {
	m := rt.meta
	return rt.types[*(*uint64)(unsafe.Pointer(&m.mem[mt-m.base+abi.MTTypeID]))]
}

// typeOf returns the runtime type of a non-null object.
func (rt *Runtime) typeOf(obj uintptr) *rtType {
	return rt.types[rt.u64(uintptr(rt.u64(obj+abi.ObjMT))+abi.MTTypeID)]
}

// CellAddr implements the code generator's Env.
func (rt *Runtime) CellAddr(m *il.Method) uintptr { return rt.cells.CellAddr(m.Index) }

// ClassMT returns the method table of a class.
func (rt *Runtime) ClassMT(c *il.Class) uintptr { return rt.classMT[c].mt }

// TypeMT returns the method table of a class, array or boxed primitive
// type, creating array and box tables on first use.
func (rt *Runtime) TypeMT(t *il.Type) uintptr {
	rtt, err := rt.typeFor(t)
	if err != nil {
		panic(err)
	}
	return rtt.mt
}

func (rt *Runtime) typeFor(t *il.Type) (*rtType, error) {
	switch t.Kind {
	case il.KObject:
		return rt.classMT[rt.mod.Class(il.ObjectClass)], nil
	case il.KString:
		return rt.stringT, nil
	case il.KClass, il.KValue:
		return rt.classMT[t.Class], nil
	}
	key := t.String()
	if rtt, ok := rt.typeMT[key]; ok {
		return rtt, nil
	}
	obj := rt.mod.Class(il.ObjectClass)
	var rtt *rtType
	if t.Kind == il.KArray {
		rtt = &rtType{kind: tkArray, elem: t.Elem, name: t.CLRName(), elemSize: ElemSize(t.Elem)}
	} else {
		rtt = &rtType{kind: tkBox, prim: t.Kind, name: t.CLRName()}
	}
	rtt, err := rt.newType(rtt, obj.VTable, obj)
	if err != nil {
		return nil, err
	}
	rt.typeMT[key] = rtt
	if t.Kind == il.KArray && t.Elem.IsRef() {
		// The store check's fast path (abi.MTElem): an element type that
		// is an array type only if it exists already, so that a deep
		// jagged array type does not make every type of its rows.
		var et *rtType
		if t.Elem.Kind != il.KArray {
			if et, err = rt.typeFor(t.Elem); err != nil {
				return nil, err
			}
		} else {
			et = rt.typeMT[t.Elem.String()]
		}
		if et != nil {
			rt.setU64(rtt.mt+abi.MTElem, uint64(et.mt))
		}
	}
	return rtt, nil
}

// ElemSize returns the size in bytes of an array element of type t
// (il.ElemSize).
func ElemSize(t *il.Type) int { return il.ElemSize(t) }

// StaticAddr returns the address of a static field's slot.
func (rt *Runtime) StaticAddr(f *il.Field) uintptr { return rt.statics + uintptr(8*f.Slot) }

// StringAddr returns the interned string object for s. Interned strings
// live in the metadata arena, as CoreCLR's frozen string literals: they
// are not charged to the heap limit.
func (rt *Runtime) StringAddr(s string) uintptr {
	if p, ok := rt.strs[s]; ok {
		return p
	}
	p, err := rt.newStringIn(rt.meta, utf16Of(s))
	if err != nil {
		panic(err)
	}
	rt.strs[s] = p
	return p
}

// alloc allocates a zeroed object of type t and size bytes (header
// included) in the managed heap, where Go code may hold object addresses
// (no collection runs); ErrHeapExhausted if it does not fit.
func (rt *Runtime) alloc(t *rtType, size int64) (uintptr, error) {
	p, err := rt.gc.allocNoGC(uintptr((size + 7) &^ 7))
	if err != nil {
		return 0, err
	}
	rt.setU64(p+abi.ObjMT, uint64(t.mt))
	return p, nil
}

// allocAt allocates like alloc at a safepoint, the exit with the given
// code, where a collection may run first.
func (rt *Runtime) allocAt(m *Machine, code uint64, t *rtType, size int64) (uintptr, error) {
	p, err := rt.gcAlloc(m, code, uintptr((size+7)&^7))
	if err != nil {
		return 0, err
	}
	rt.setU64(p+abi.ObjMT, uint64(t.mt))
	return p, nil
}

func (rt *Runtime) allocIn(a *arena, t *rtType, size int64) (uintptr, error) {
	p, err := a.alloc(size)
	if err != nil {
		return 0, err
	}
	rt.setU64(p+abi.ObjMT, uint64(t.mt))
	return p, nil
}

func (rt *Runtime) newObject(c *il.Class) (uintptr, error) {
	return rt.alloc(rt.classMT[c], il.ObjectSize(c.NumFields))
}

func (rt *Runtime) newString(u []uint16) (uintptr, error) {
	return rt.newStringIn(nil, u)
}

// newStringIn makes a string in arena a, or in the heap for a nil a.
func (rt *Runtime) newStringIn(a *arena, u []uint16) (uintptr, error) {
	t, size := rt.stringT, il.StringSize(len(u))
	var p uintptr
	var err error
	if a == nil {
		p, err = rt.alloc(t, size)
	} else {
		p, err = rt.allocIn(a, t, size)
	}
	if err != nil {
		return 0, err
	}
	rt.setU64(p+abi.StrLen, uint64(len(u)))
	if len(u) > 0 {
		copy(unsafe.Slice((*uint16)(unsafe.Pointer(&rt.bytes(p+abi.StrData, 2*len(u))[0])), len(u)), u)
	}
	return p, nil
}

// outOfMemory returns the exception to throw when the heap limit is
// reached: a new OutOfMemoryException if one still fits, else the
// preallocated one (CoreCLR's GetBestOutOfMemoryException). Neither has a
// message, so Message is "Exception of type
// 'System.OutOfMemoryException' was thrown.", as on CoreCLR.
func (rt *Runtime) outOfMemory() uintptr {
	if exc, err := rt.newObject(rt.mod.Class(il.OutOfMemoryClass)); err == nil {
		return exc
	}
	return rt.oom
}

// oomAt passes err on, except that ErrHeapExhausted (an allocation at
// the current exit did not fit) becomes a throw of
// System.OutOfMemoryException at the exit.
func (rt *Runtime) oomAt(m *Machine, err error) error {
	if err == ErrHeapExhausted {
		return rt.throw(m, rt.outOfMemory())
	}
	return err
}

// throwNew throws a new base library exception of the named class with
// message msg (interned) at the current exit.
func (rt *Runtime) throwNew(m *Machine, class, msg string) error {
	exc, err := rt.newObject(rt.mod.Class(class))
	if err != nil {
		return err
	}
	rt.gc.writeRef(exc+abi.ObjFields, uint64(rt.StringAddr(msg)))
	return rt.throw(m, exc)
}

// str returns the UTF-16 units of a string object (nil for null).
func (rt *Runtime) str(p uintptr) []uint16 {
	if p == 0 {
		return nil
	}
	n := int(rt.u64(p + abi.StrLen))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&rt.bytes(p+abi.StrData, 2*n)[0])), n)
}

// Run runs the entry point and returns its exit code. A nil ctx means
// context.Background(); a ctx that is already done stops the run before it
// starts. Output is flushed before Run returns, however the run ends.
func (rt *Runtime) Run(ctx context.Context) (code int, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	rt.ctx = ctx
	defer func() {
		if ferr := rt.out.finish(); err == nil && ferr != nil {
			err = ferr
		}
	}()
	entry := rt.mod.Entry
	if err := rt.runModuleInit(); err != nil {
		return 1, err
	}
	rt.startDepth()
	ret, err := rt.mach.Call(ctx, rt.cells.Get(entry.Index), nil, rt.handle)
	rt.syncPlans() // plans whose catch returned last: no exit followed
	if err != nil {
		return 1, err
	}
	if entry.Ret.Kind == il.KI4 {
		return int(int32(ret)), nil
	}
	return 0, nil
}

// handle services exits from native code. An exit whose allocation does
// not fit in the heap limit throws System.OutOfMemoryException there
// (see oomAt).
func (rt *Runtime) handle(m *Machine, code uint64) error {
	rt.exits[min(code, exitCodes-1)]++
	rt.syncPlans()
	prev := rt.curExit
	rt.curExit = code
	err := rt.serve(m, code)
	rt.curExit = prev
	return err
}

// serve services one exit for handle.
func (rt *Runtime) serve(m *Machine, code uint64) error {
	switch code {
	case abi.ExitCompile:
		if err := rt.safepoint(m, code); err != nil {
			return err
		}
		return rt.compile(int(m.ExitArg()))
	case abi.HelperAlloc:
		t := rt.types[rt.u64(uintptr(m.Reg(abi.CtxRDI))+abi.MTTypeID)]
		return rt.oomAt(m, rt.result(rt.allocAt(m, code, t, il.ObjectSize(t.class.NumFields))))
	case abi.HelperNewArr:
		t := rt.types[rt.u64(uintptr(m.Reg(abi.CtxRDI))+abi.MTTypeID)]
		n := int64(m.Reg(abi.CtxRSI)) // >= 0: native code checked
		switch {
		case n > math.MaxInt32:
			// A native int length: CoreCLR's array lengths are 32-bit.
			return rt.oomAt(m, rt.throwNew(m, "System.OverflowException", il.ArrayTooLongMessage))
		case n > il.MaxArrayLength:
			return rt.oomAt(m, rt.throwNew(m, il.OutOfMemoryClass, il.ArrayTooLongMessage))
		}
		p, err := rt.allocAt(m, code, t, il.ArraySize(t.elem, n))
		if err == nil {
			rt.setU64(p+abi.ArrLen, uint64(n))
		}
		return rt.oomAt(m, rt.result(p, err))
	case abi.HelperBox:
		t := rt.types[rt.u64(uintptr(m.Reg(abi.CtxRDI))+abi.MTTypeID)]
		p, err := rt.allocAt(m, code, t, il.BoxSize)
		if err == nil {
			rt.setU64(p+abi.BoxValue, boxBits(t.prim, m.Reg(abi.CtxRSI)))
		}
		return rt.oomAt(m, rt.result(p, err))
	case abi.HelperIsInst:
		obj := uintptr(m.Reg(abi.CtxRDI))
		t := rt.types[rt.u64(uintptr(m.Reg(abi.CtxRSI))+abi.MTTypeID)]
		if obj != 0 && rt.isInstance(obj, t) {
			return rt.result(obj, nil)
		}
		return rt.result(0, nil)
	case abi.HelperTypeIs:
		obj := rt.typeOf(uintptr(m.Reg(abi.CtxRDI)))
		t := rt.types[rt.u64(uintptr(m.Reg(abi.CtxRSI))+abi.MTTypeID)]
		return rt.result(b2u(sameType(obj, t)), nil)
	case abi.HelperCanStore:
		arr := rt.typeOf(uintptr(m.Reg(abi.CtxRDI)))
		et, err := rt.typeFor(arr.elem)
		if err != nil {
			return err
		}
		return rt.result(b2u(rt.isInstance(uintptr(m.Reg(abi.CtxRSI)), et)), nil)
	case abi.HelperThrow:
		return rt.throw(m, uintptr(m.Reg(abi.CtxRDI)))
	case abi.HelperThrowNew:
		exc, err := rt.newException(m)
		if err != nil {
			return rt.oomAt(m, err)
		}
		return rt.throw(m, exc)
	case abi.HelperRethrow:
		return rt.rethrow(m, int(m.ExitArg()))
	case abi.ExitFuncletReturn:
		return rt.funcletReturned(m)
	case abi.ExitStackLimit:
		return rt.stackLimit(m)
	case abi.ExitCheckpoint:
		return rt.checkpointReturned(m)
	case abi.ExitStubBuiltin:
		// The stub's only remaining instruction is RET: return now, so
		// that the method runs in its managed caller's frame and an
		// exception it throws starts there (a stub is no managed frame).
		sp := m.SP()
		m.SetPC(uintptr(m.ReadStack(sp)))
		m.SetSP(sp + 8)
		rt.curExit = abi.HelperBuiltin // the stub is gone: the caller is at its call
		return rt.callBuiltin(m)
	case abi.HelperBuiltin:
		return rt.callBuiltin(m)
	case abi.HelperFRem:
		a := math.Float64frombits(m.Reg(abi.CtxXMM0))
		b := math.Float64frombits(m.Reg(abi.CtxXMM1))
		m.SetReg(abi.CtxXMM0, math.Float64bits(math.Mod(a, b)))
		return nil
	case abi.HelperF2U8:
		m.SetReg(abi.CtxRAX, f2u64(math.Float64frombits(m.Reg(abi.CtxXMM0))))
		return nil
	}
	return fmt.Errorf("jitrt: unknown exit code %d at %#x", code, m.PC())
}

// result stores a helper's pointer result in RAX.
func (rt *Runtime) result(p uintptr, err error) error {
	if err != nil {
		return err
	}
	rt.mach.SetReg(abi.CtxRAX, uint64(p))
	return nil
}

func b2u(b bool) uintptr {
	if b {
		return 1
	}
	return 0
}

// boxBits normalizes a value for a box of primitive kind k.
func boxBits(k il.Kind, v uint64) uint64 {
	switch k {
	case il.KBool, il.KU1:
		return uint64(uint8(v))
	case il.KI1:
		return uint64(int64(int8(v)))
	case il.KI2:
		return uint64(int64(int16(v)))
	case il.KU2, il.KChar:
		return uint64(uint16(v))
	case il.KI4:
		return uint64(int64(int32(v)))
	case il.KU4, il.KR4:
		return uint64(uint32(v))
	}
	return v
}

// f2u64 is CoreCLR's x64 unchecked float to uint64 conversion: values
// below 2^63 convert through int64, larger ones are offset by 2^63; NaN and
// values of 2^64 and more give 0.
func f2u64(f float64) uint64 {
	const two63 = 9223372036854775808.0
	f2i64 := func(f float64) int64 {
		if f != f || f < -two63 || f >= two63 {
			return math.MinInt64
		}
		return int64(f)
	}
	if f < two63 {
		return uint64(f2i64(f))
	}
	return uint64(f2i64(f-two63)) + 1<<63
}

// isInstance reports whether non-null obj is an instance of type t.
func (rt *Runtime) isInstance(obj uintptr, t *rtType) bool {
	o := rt.typeOf(obj)
	switch t.kind {
	case tkString:
		return o.kind == tkString
	case tkClass:
		if t.class.Name == il.ObjectClass {
			return true
		}
		if t.class.Interface {
			return o.kind == tkClass && o.class.ImplementsIface(t.class)
		}
		if t.class.Name == il.ValueTypeClass && o.kind == tkBox {
			return true // a boxed primitive is a System.ValueType
		}
		return o.kind == tkClass && o.class.IsSubclassOf(t.class)
	case tkArray:
		return o.kind == tkArray && arrayElemAssignable(o.elem, t.elem)
	}
	return o.kind == tkBox && o.prim == t.prim
}

// sameType reports whether an object of runtime type obj is exactly of
// type t: a box of the same primitive (unbox.any), a box of the same
// value type (unbox), an array of the same element type (ldelema).
func sameType(obj, t *rtType) bool {
	switch t.kind {
	case tkBox:
		return obj.kind == tkBox && obj.prim == t.prim
	case tkArray:
		return obj.kind == tkArray && obj.elem.Equal(t.elem)
	}
	return obj == t
}

// arrayElemAssignable reports whether an array of from may be used as an
// array of to: reference covariance, and integer types of the same size
// and signedness-insensitive kind (int32[] as uint32[]), as the CLR allows.
// The element types of jagged arrays are compared level by level, in a
// loop.
func arrayElemAssignable(from, to *il.Type) bool {
	for from.Kind == il.KArray && to.Kind == il.KArray {
		from, to = from.Elem, to.Elem
	}
	if from.IsRef() && to.IsRef() {
		switch to.Kind {
		case il.KObject:
			return true
		case il.KString:
			return from.Kind == il.KString
		case il.KClass:
			if to.Class.Interface {
				return from.Kind == il.KClass && from.Class.ImplementsIface(to.Class)
			}
			return from.Kind == il.KClass && from.Class.IsSubclassOf(to.Class)
		}
		return false // to is an array, from is not
	}
	if from.IsRef() || to.IsRef() {
		return false
	}
	if from.Kind == il.KValue || to.Kind == il.KValue {
		return from.Equal(to)
	}
	return signless(from.Kind) == signless(to.Kind)
}

func signless(k il.Kind) il.Kind {
	switch k {
	case il.KU1:
		return il.KI1
	case il.KU2:
		return il.KI2
	case il.KU4:
		return il.KI4
	case il.KU8:
		return il.KI8
	case il.KU:
		return il.KI
	}
	return k
}

// compile compiles method i, installs it and patches its cell and vtable
// slots; the prestub then jumps to the new code.
func (rt *Runtime) compile(i int) error {
	m := rt.methods[i]
	c, err := rt.opts.Compile(rt, m)
	if err != nil {
		return err
	}
	addr, err := rt.code.InstallFunc(len(c.Code), func(addr uintptr, buf []byte) error {
		copy(buf, c.Code)
		for _, r := range c.CellRefs {
			// A call to one already compiled, or to the method itself
			// (which amd64's code generator emits as a direct call
			// already), becomes a direct call: NOP; CALL rel32 (same
			// length, so the return address does not move). Others go
			// through the cell.
			j := rt.cellIndex(r.Cell)
			target, compiled := rt.cells.Get(j), rt.cells.Get(j) != rt.cells.Prestub(j)
			if j == i {
				target, compiled = addr, true
			}
			if compiled && r.Offset >= 2 && buf[r.Offset-2] == 0xFF && buf[r.Offset-1] == 0x15 {
				disp := int64(target) - int64(addr+uintptr(r.Offset)+4)
				if disp == int64(int32(disp)) {
					buf[r.Offset-2], buf[r.Offset-1] = 0x90, 0xE8
					binary.LittleEndian.PutUint32(buf[r.Offset:], uint32(int32(disp)))
					continue
				}
			}
			disp := int64(r.Cell) - int64(addr+uintptr(r.Offset)+4)
			if disp != int64(int32(disp)) {
				return fmt.Errorf("jitrt: call cell %#x out of reach of code at %#x", r.Cell, addr)
			}
			binary.LittleEndian.PutUint32(buf[r.Offset:], uint32(int32(disp)))
		}
		return nil
	})
	if err != nil {
		return err
	}
	rt.cells.Set(i, addr)
	for _, slot := range rt.vtableRefs[m] {
		rt.setU64(slot, uint64(addr))
	}
	catchRT := rt.installed.catchRT.Take(len(c.Clauses))
	for k, cl := range c.Clauses {
		if cl.Kind == il.EHCatch {
			if catchRT[k], err = rt.typeFor(cl.CatchType); err != nil {
				return err
			}
		}
	}
	rt.perfMap(addr, c, m)
	r := rt.installed.keep(c, addr, m, catchRT)
	// Code is mostly installed at rising addresses: appending needs no
	// search (whose probes each read a range, a cache miss apiece).
	if n := len(rt.codeMap); n == 0 || rt.codeMap[n-1].start < addr {
		rt.codeMap = append(rt.codeMap, r)
		return nil
	}
	k := sort.Search(len(rt.codeMap), func(j int) bool { return rt.codeMap[j].start > addr })
	rt.codeMap = slices.Insert(rt.codeMap, k, r)
	return nil
}

// perfMap writes the perf map lines of a method installed at addr: one
// per funclet, one for the cold section.
func (rt *Runtime) perfMap(addr uintptr, c *abi.Method, m *il.Method) {
	w := rt.opts.PerfMap
	if w == nil {
		return
	}
	for k, f := range c.Funclets {
		name := m.FullName()
		if k > 0 {
			name = fmt.Sprintf("%s [%s of IL clause %d]", name, f.Kind, f.Clause)
		}
		fmt.Fprintf(w, "%x %x %s\n", addr+uintptr(f.Start), f.End-f.Start, name)
	}
	if c.ColdStart < len(c.Code) {
		fmt.Fprintf(w, "%x %x %s [cold]\n", addr+uintptr(c.ColdStart), len(c.Code)-c.ColdStart, m.FullName())
	}
}

// cellIndex returns the method index of a call cell address.
func (rt *Runtime) cellIndex(cell uintptr) int {
	return int((cell - rt.cells.CellAddr(0)) / 8)
}

// methodAt returns the compiled method containing pc.
func (rt *Runtime) methodAt(pc uintptr) *codeRange {
	k := sort.Search(len(rt.codeMap), func(j int) bool { return rt.codeMap[j].end > pc })
	if k < len(rt.codeMap) && rt.codeMap[k].start <= pc {
		return rt.codeMap[k]
	}
	return nil
}

// message returns an exception's Message, calling a managed get_Message
// override if the class has one.
func (rt *Runtime) message(exc uintptr) (string, error) {
	t := rt.typeOf(exc)
	if t.kind != tkClass || !t.class.IsSubclassOf(rt.mod.Class(il.ExceptionClass)) {
		return "", nil
	}
	if impl := t.class.VTable[rt.getMessage]; !impl.Builtin {
		s, err := rt.callVirtual(exc, rt.getMessage)
		return goString(rt.str(s)), err
	}
	s, err := rt.excMessage(exc)
	return goString(rt.str(s)), err
}

// newException creates the exception a HelperThrowNew asks for.
func (rt *Runtime) newException(m *Machine) (uintptr, error) {
	t := rt.types[rt.u64(uintptr(m.Reg(abi.CtxRDI))+abi.MTTypeID)]
	exc, err := rt.newObject(t.class)
	if err != nil {
		return 0, err
	}
	msg, _ := il.DefaultMessage(t.class.Name)
	s := rt.StringAddr(msg) // default messages are interned
	if t.class.Name == "System.InvalidCastException" && m.Reg(abi.CtxRDX) != 0 {
		from := rt.typeOf(uintptr(m.Reg(abi.CtxRSI)))
		to := rt.types[rt.u64(uintptr(m.Reg(abi.CtxRDX))+abi.MTTypeID)]
		msg = fmt.Sprintf("Unable to cast object of type '%s' to type '%s'.", from.name, to.name)
		defer rt.hold(exc)()
		if s, err = rt.newString(utf16Of(msg)); err != nil {
			return 0, err
		}
	}
	rt.gc.writeRef(exc+abi.ObjFields, uint64(s))
	return exc, nil
}

// callVirtual calls virtual slot of obj from Go (a nested native call)
// and returns RAX.
func (rt *Runtime) callVirtual(obj uintptr, slot int) (uintptr, error) {
	if rt.mach.depth > il.MaxCallbackDepth {
		return 0, &StackOverflowError{PC: rt.mach.PC(), SP: rt.mach.SP()}
	}
	target := uintptr(rt.u64(uintptr(rt.u64(obj+abi.ObjMT)) + abi.MTVTable + uintptr(abi.MTSlotSize*slot)))
	ret, err := rt.heldAcross(func() (uint64, error) {
		return rt.mach.Call(rt.ctx, target, []uint64{uint64(obj)}, rt.handle)
	})
	return uintptr(ret), err
}

// Call runs static method meth and returns its result, with arguments and
// result in the normalized Go form of interp.Call: int64 for integer and
// bool types, float64 for float types, string, nil for null or void.
func (rt *Runtime) Call(ctx context.Context, meth *il.Method, args []any) (result any, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	rt.ctx = ctx
	defer func() {
		if ferr := rt.out.finish(); err == nil && ferr != nil {
			err = ferr
		}
	}()
	if !meth.Static || meth.Builtin {
		return nil, fmt.Errorf("jitrt: %s is not a static method of the program", meth.FullName())
	}
	if len(args) != len(meth.Params) {
		return nil, fmt.Errorf("jitrt: %s takes %d argument(s), got %d", meth.FullName(), len(meth.Params), len(args))
	}
	var ints, floats []uint64
	for i, a := range args {
		t := meth.Params[i].Type
		switch x := a.(type) {
		case int64:
			ints = append(ints, boxBits(t.Kind, uint64(x)))
		case float64:
			if t.Kind == il.KR4 {
				floats = append(floats, uint64(math.Float32bits(float32(x))))
			} else {
				floats = append(floats, math.Float64bits(x))
			}
		case string:
			p, err := rt.newString(utf16Of(x))
			if err != nil {
				return nil, fmt.Errorf("jitrt: argument %d: %w", i+1, err)
			}
			defer rt.hold(p)()
			ints = append(ints, uint64(p))
		case nil:
			ints = append(ints, 0)
		default:
			return nil, fmt.Errorf("jitrt: argument %d has unsupported type %T", i+1, a)
		}
	}
	if err := rt.runModuleInit(); err != nil {
		return nil, err
	}
	rt.startDepth()
	ret, err := rt.mach.CallArgs(ctx, rt.cells.Get(meth.Index), ints, floats, rt.handle)
	rt.syncPlans() // plans whose catch returned last: no exit followed
	if err != nil {
		return nil, err
	}
	switch k := meth.Ret.Kind; k {
	case il.KVoid:
		return nil, nil
	case il.KR8:
		return math.Float64frombits(rt.mach.ResultXMM0()), nil
	case il.KR4:
		return float64(math.Float32frombits(uint32(rt.mach.ResultXMM0()))), nil
	case il.KString:
		if ret == 0 {
			return nil, nil
		}
		return goString(rt.str(uintptr(ret))), nil
	default:
		if meth.Ret.IsRef() {
			if ret == 0 {
				return nil, nil
			}
			return nil, fmt.Errorf("jitrt: %s returns an object of type %s; only primitives and strings can be returned to Go", meth.FullName(), rt.typeOf(uintptr(ret)).name)
		}
		v := boxBits(k, ret)
		switch k {
		case il.KI1, il.KI2, il.KI4:
			return int64(int32(uint32(v))), nil
		case il.KU4:
			return int64(uint32(v)), nil
		}
		return int64(v), nil
	}
}

// Stats reports the runtime's resource use.
type Stats struct {
	HeapBytes int // managed heap in use: the old generation and the nursery
	MetaBytes int // type metadata arena in use (method tables, statics, interned strings)
	CodeBytes int // code heap pages in use (code, stubs, cells)
	Trackers  int // exception dispatches in progress
	Methods   int // compiled methods
	// DispatchHits counts the exceptions whose handler the dispatcher
	// found with a search it remembered from an earlier throw at the same
	// place (ehcache.go).
	DispatchHits int
}

// exitCodes bounds the exit codes counted one by one (abi's codes are
// below it; the last entry counts any other).
const exitCodes = 48

// ExitCounts returns how many exits from native code the runtime served,
// by kind (abi.ExitName: "IsInst", "Builtin", ...), and the calls of
// each base library method (Builtin exits and virtual calls of base
// library methods) by the method's name ("call String.Concat(string,string)").
func (rt *Runtime) ExitCounts() map[string]int {
	counts := map[string]int{}
	for code, n := range rt.exits {
		if n > 0 {
			counts[abi.ExitName(code)] += n
		}
	}
	for k, n := range rt.builtinCalls {
		if n > 0 {
			counts["call "+il.BuiltinKind(k).String()] += n
		}
	}
	return counts
}

// Stats returns the runtime's current resource use.
func (rt *Runtime) Stats() Stats {
	cs := rt.code.Stats()
	return Stats{
		HeapBytes: rt.gc.used(), MetaBytes: rt.meta.used(), CodeBytes: cs.SealedBytes + cs.CellBytes,
		Trackers: len(rt.trackers), Methods: len(rt.codeMap), DispatchHits: rt.dispatchHits,
	}
}
