// Package jit is miniil's compile driver: one table of named phases that
// takes a method from IL to the machine code and EH clause table the
// runtime installs. Running a program and dumping its compilation use the
// same driver, so what `miniil dump` shows is what runs. Every phase can
// be timed (Stats), printed after it runs (Config.After), and checked
// (Config.Validate, on in tests). It is internal to miniil: no
// compatibility promise.
//
// The phases, in order, and what each hands to the next:
//
//	import       reader.Import: IL to IR (*ir.Func), explicit checks, EH regions
//	inline       opt.Inline: calls of small methods replaced by their bodies
//	untracked    opt.MarkUntracked: the GC values shared with handlers, which
//	             the GC information keeps untracked whatever later passes do
//	clonefinally opt.CloneFinally: the normal path runs a copy of each finally
//	typechecks   opt.TypeChecks: type tests of values known to be of the type
//	nullchecks   opt.NullChecks: redundant null checks removed
//	unreachable  opt.Unreachable: blocks no path reaches (such as the throw
//	             blocks of removed null checks) are dropped
//	writethru    opt.WriteThru: variables shared with handlers get a register
//	             copy in the main body, written through to their slot
//	coalesce     opt.Coalesce: results computed straight into the variables
//	             they are stored to
//	bce          opt.BoundsChecks: bounds checks of a[i] in counting loops
//	             over a.Length removed
//	loophoist    opt.HoistLoops: invariant null checks, array lengths and
//	             arithmetic of innermost loops moved to their preheaders
//	fold         opt.FoldAddresses: a load or store at a managed pointer's
//	             lea reads the pointer and the summed offset
//	cse          opt.CSE: repeated computations along extended basic blocks
//	             replaced by copies, repeated bounds checks removed
//	layout       funclet.Build: main body and funclets, block order (*funclet.Layout)
//	regalloc     amd64.Allocate: peephole plan and register homes (*amd64.Alloc)
//	emit         amd64.Emit: machine code, sites, funclet ranges, GC information (*amd64.Code)
//	ehclauses    ehclauses.Build: the clause table and funclet chains (in the code)
//
// Under validation the IR is checked (ir.Check) after every IR phase, the
// layout (funclet.Check) after layout, the allocation (amd64.CheckAlloc)
// after regalloc, the GC information (amd64.CheckGC) after emit and the
// clause table (ehclauses.Validate) after ehclauses; a failed check is an
// error that names the phase.
package jit

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"miniil/abi"
	"miniil/amd64"
	"miniil/ehclauses"
	"miniil/funclet"
	"miniil/il"
	"miniil/ir"
	"miniil/opt"
	"miniil/reader"
)

// Method is one method going through the pipeline: each phase reads what
// earlier phases left and adds its own. Everything it holds comes from
// the Compiler's ir.Cache or its assembler (the machine code) and is
// valid only until the Compiler's next Compile (see Compiled).
type Method struct {
	Module *il.Module
	IL     *il.Method
	Func   *ir.Func        // import, and the IR passes after it
	Layout *funclet.Layout // layout
	Alloc  *amd64.Alloc    // regalloc
	Code   *amd64.Code     // emit; ehclauses adds the clause table
	Env    amd64.Env       // the addresses emit used
}

// Compiled returns what the runtime installs: a copy of the code's
// abi.Method with its own machine code and lists: it stays valid after
// later compiles, and keeping it keeps none of the compile's memory. A
// caller that installs the method before the next Compile, copying what
// it keeps, can take &m.Code.Method instead (as the runtime does).
func (m *Method) Compiled() *abi.Method {
	c := m.Code.Method
	c.Code = slices.Clone(c.Code)
	c.Sites = slices.Clone(c.Sites)
	c.CellRefs = slices.Clone(c.CellRefs)
	c.Funclets = slices.Clone(c.Funclets)
	c.Clauses = slices.Clone(c.Clauses)
	c.Inlines = slices.Clone(c.Inlines)
	c.GC.Safepoints = slices.Clone(c.GC.Safepoints)
	c.GC.Locs = slices.Clone(c.GC.Locs)
	c.GC.Untracked = slices.Clone(c.GC.Untracked)
	c.GC.Saves = slices.Clone(c.GC.Saves)
	return &c
}

// Phase is one step of the pipeline.
type Phase struct {
	Name string
	Doc  string
	// IR is true for phases that work on the IR alone (ir.Check runs
	// after them under validation).
	IR bool
	// Optional phases only optimize: Config.Skip may leave them out.
	Optional bool
	run      func(c *Compiler, m *Method) error
	check    func(m *Method) error
	print    func(w io.Writer, m *Method) error
}

// Phase names.
const (
	Import      = "import"
	Inline      = "inline"
	Untracked   = "untracked"
	Clone       = "clonefinally"
	WriteThru   = "writethru"
	Coalesce    = "coalesce"
	BCE         = "bce"
	LoopHoist   = "loophoist"
	Fold        = "fold"
	CSE         = "cse"
	TypeChecks  = "typechecks"
	NullChecks  = "nullchecks"
	Unreachable = "unreachable"
	Layout      = "layout"
	Regalloc    = "regalloc"
	Emit        = "emit"
	EHClauses   = "ehclauses"
)

// phases is the pipeline, in order.
var phases = []Phase{
	{Name: Import, Doc: "IL to IR: explicit checks, EH regions and terminators", IR: true,
		run: func(c *Compiler, m *Method) (err error) {
			m.Func, err = reader.ImportWith(m.Module, m.IL, reader.Options{Initialized: c.cfg.Initialized, Cache: c.cache})
			return err
		}},
	{Name: Inline, Optional: true, Doc: "replace calls of small methods by a copy of their code", IR: true,
		run: func(c *Compiler, m *Method) error {
			opt.Inline(m.Func, c.importer)
			return nil
		}},
	{Name: Untracked, Doc: "record the GC values shared with handlers, which later passes keep untracked", IR: true,
		run: func(c *Compiler, m *Method) error { opt.MarkUntracked(m.Func); return nil }},
	{Name: Clone, Optional: true, Doc: "run a copy of each finally on the normal path instead of calling it", IR: true,
		run: func(c *Compiler, m *Method) error { opt.CloneFinally(m.Func); return nil }},
	{Name: TypeChecks, Optional: true, Doc: "remove type tests of values known to be of the type", IR: true,
		run: func(c *Compiler, m *Method) error { opt.TypeChecks(m.Func); return nil }},
	{Name: NullChecks, Optional: true, Doc: "remove null checks of values known to be non-null", IR: true,
		run: func(c *Compiler, m *Method) error { opt.NullChecks(m.Func); return nil }},
	{Name: Unreachable, Doc: "drop the blocks that no path from the entry or a handler reaches", IR: true,
		run: func(c *Compiler, m *Method) error { opt.Unreachable(m.Func); return nil }},
	{Name: WriteThru, Optional: true, Doc: "variables shared with handlers: a register copy in the main body, written through to the slot", IR: true,
		run: func(c *Compiler, m *Method) error { opt.WriteThru(m.Func); return nil }},
	{Name: Coalesce, Optional: true, Doc: "compute results straight into the variables they are stored to", IR: true,
		run: func(c *Compiler, m *Method) error { opt.Coalesce(m.Func); return nil }},
	{Name: BCE, Optional: true, Doc: "remove the bounds checks of a[i] in loops for (i = 0; i < a.Length; i++)", IR: true,
		run: func(c *Compiler, m *Method) error { opt.BoundsChecks(m.Func); return nil }},
	{Name: LoopHoist, Optional: true, Doc: "move invariant null checks, array lengths and arithmetic out of innermost loops", IR: true,
		run: func(c *Compiler, m *Method) error { opt.HoistLoops(m.Func); return nil }},
	{Name: Fold, Optional: true, Doc: "fold the address arithmetic of managed pointers into the loads and stores that use it", IR: true,
		run: func(c *Compiler, m *Method) error { opt.FoldAddresses(m.Func); return nil }},
	{Name: CSE, Optional: true, Doc: "replace repeated computations of extended basic blocks by copies; drop repeated bounds checks", IR: true,
		run: func(c *Compiler, m *Method) error { opt.CSE(m.Func); return nil }},
	{Name: Layout, Doc: "main body and one funclet per handler, block order",
		run: func(c *Compiler, m *Method) (err error) {
			m.Layout, err = funclet.Build(m.Func)
			return err
		},
		check: func(m *Method) error { return funclet.Check(m.Func, m.Layout) },
		print: func(w io.Writer, m *Method) error {
			if err := ir.Fprint(w, m.Func); err != nil {
				return err
			}
			funclet.Fprint(w, m.Func, m.Layout)
			return nil
		}},
	{Name: Regalloc, Doc: "peephole plan and register homes",
		run: func(c *Compiler, m *Method) (err error) {
			m.Alloc, err = amd64.Allocate(m.Func, m.Layout)
			return err
		},
		check: func(m *Method) error { return amd64.CheckAlloc(m.Func, m.Layout, m.Alloc) },
		print: func(w io.Writer, m *Method) error {
			fmt.Fprintf(w, "register homes of %s: %s\n", m.IL.Signature(), homeList(m.Alloc.Homes))
			return nil
		}},
	{Name: Emit, Doc: "machine code, call sites and funclet ranges",
		run: func(c *Compiler, m *Method) (err error) {
			if c.cfg.Env == nil {
				return fmt.Errorf("no addresses to generate code with (Config.Env)")
			}
			m.Code, err = amd64.Emit(m.Func, m.Layout, m.Alloc, c.cfg.Env, c.asm)
			return err
		},
		check: func(m *Method) error { return amd64.CheckGC(m.Func, m.Layout, m.Alloc, m.Code) },
		print: func(w io.Writer, m *Method) error { return FprintCode(w, m) }},
	{Name: EHClauses, Doc: "native EH clause table and funclet chains",
		run:   func(c *Compiler, m *Method) error { return ehclauses.Build(m.IL, m.Func, m.Code) },
		check: func(m *Method) error { return ehclauses.Validate(m.IL, m.Func, m.Code, nil) },
		print: func(w io.Writer, m *Method) error {
			ehclauses.Fprint(w, m.IL, ehclauses.Of(&m.Code.Method))
			return nil
		}},
}

// Phases returns the pipeline's phases, in order.
func Phases() []Phase { return append([]Phase(nil), phases...) }

// PhaseIndex returns the position of the named phase, or -1.
func PhaseIndex(name string) int {
	for i, p := range phases {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// Config configures a Compiler.
type Config struct {
	// Env gives the code generator the run's addresses (cells, method
	// tables, statics, strings). Phases up to regalloc need none.
	Env amd64.Env
	// Validate checks every phase's output.
	Validate bool
	// After maps phase names to the writers that receive each method's
	// state after that phase.
	After map[string]io.Writer
	// Stats, when set, accumulates time and counts per phase.
	Stats *Stats
	// Skip names optimizing phases to leave out (Optional ones: the
	// method is correct without them), for comparisons and for tests
	// that relate the code to the IL.
	Skip map[string]bool
	// Initialized reports whether a type initializer has run: its sites
	// need no check in the methods compiled from then on (nil: none has,
	// as in a dump).
	Initialized func(*il.TypeInit) bool
}

// Compiler runs the pipeline. It is not safe for concurrent use (it owns
// an assembler).
type Compiler struct {
	cfg Config
	asm *amd64.Assembler
	// cache is the memory each compile's IR and scratch arrays are made
	// in, reused by the next compile: a Method's Func is valid until
	// the Compiler's next Compile.
	cache *ir.Cache
	// module is the module of the method being compiled, and importer
	// the inliner's importer of its callees, made once (a closure made
	// per compile was an allocation per method).
	module   *il.Module
	importer opt.Importer
	// skip and after are cfg.Skip and cfg.After by phase index, looked
	// up once here instead of twice a phase per compile.
	skip  []bool
	after []io.Writer
}

// New returns a Compiler.
func New(cfg Config) *Compiler {
	for name := range cfg.After {
		if PhaseIndex(name) < 0 {
			panic("jit: no phase named " + name)
		}
	}
	for name := range cfg.Skip {
		if i := PhaseIndex(name); i < 0 || !phases[i].Optional {
			panic("jit: no optional phase named " + name)
		}
	}
	c := &Compiler{cfg: cfg, asm: amd64.NewAssembler(), cache: new(ir.Cache),
		skip: make([]bool, len(phases)), after: make([]io.Writer, len(phases))}
	for i, p := range phases {
		c.skip[i], c.after[i] = cfg.Skip[p.Name], cfg.After[p.Name]
	}
	c.importer = func(callee *il.Method) (*ir.Func, error) {
		return reader.ImportWith(c.module, callee, reader.Options{Initialized: c.cfg.Initialized, Cache: c.cache})
	}
	return c
}

// Compile runs the pipeline for method m of mod, through phase last (""
// for every phase), and returns the method's state. The state (its
// Code's machine code and lists included) is made in memory the
// Compiler reuses and is valid until the next Compile: Compiled copies
// what must outlive it.
func (c *Compiler) Compile(mod *il.Module, m *il.Method, last string) (st *Method, err error) {
	stop := len(phases) - 1
	if last != "" {
		if stop = PhaseIndex(last); stop < 0 {
			return nil, fmt.Errorf("jit: no phase named %q", last)
		}
	}
	// A panic in a phase (a compiler bug) is that phase's error, with
	// its name: one recover for the compile, not one per phase.
	phase := 0
	defer func() {
		if r := recover(); r != nil {
			st, err = nil, fmt.Errorf("%s: phase %s failed: %v", m.FullName(), phases[phase].Name, r)
		}
	}()
	c.cache.Reset()
	c.module = mod
	st = ir.New[Method](c.cache)
	*st = Method{Module: mod, IL: m, Env: c.cfg.Env}
	for phase = 0; phase <= stop; phase++ {
		if err := c.runPhase(phase, st); err != nil {
			return nil, err
		}
	}
	phase = stop
	if s := c.cfg.Stats; s != nil {
		s.Methods++
		s.ILBytes += m.CodeSize
		if st.Code != nil {
			s.CodeBytes += len(st.Code.Code)
		}
	}
	return st, nil
}

// runPhase runs one phase on m, then its check and printer.
func (c *Compiler) runPhase(i int, m *Method) (err error) {
	p := &phases[i]
	var start time.Time
	if c.cfg.Stats != nil { // reading the clock costs too, 34 times a compile
		start = time.Now()
	}
	if !c.skip[i] {
		err = p.run(c, m)
	}
	if s := c.cfg.Stats; s != nil {
		s.add(p.Name, time.Since(start))
	}
	if err != nil {
		return fmt.Errorf("phase %s: %w", p.Name, err)
	}
	if c.cfg.Validate {
		if p.IR {
			err = ir.Check(m.Func)
		} else if p.check != nil {
			err = p.check(m)
		}
		if err != nil {
			return fmt.Errorf("%s: after phase %s: %w", m.IL.FullName(), p.Name, err)
		}
	}
	if w := c.after[i]; w != nil {
		print := p.print
		if print == nil {
			print = func(w io.Writer, m *Method) error { return ir.Fprint(w, m.Func) }
		}
		if err := print(w, m); err != nil {
			return err
		}
	}
	return nil
}

// homeList lists the values that live in registers, as "v0=rbx v3=x8".
func homeList(homes []amd64.Reg) string {
	var b strings.Builder
	for v, r := range homes {
		if r != amd64.NoReg {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "v%d=%s", v, strings.ToLower(r.String()))
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// Stats is the time each phase took and what was compiled.
type Stats struct {
	Methods   int
	ILBytes   int
	CodeBytes int
	phaseTime map[string]time.Duration
}

func (s *Stats) add(phase string, d time.Duration) {
	if s.phaseTime == nil {
		s.phaseTime = map[string]time.Duration{}
	}
	s.phaseTime[phase] += d
}

// Time returns the total time spent in a phase.
func (s *Stats) Time(phase string) time.Duration { return s.phaseTime[phase] }

// Fprint prints the statistics: methods, bytes, and a line per phase.
func (s *Stats) Fprint(w io.Writer) {
	var total time.Duration
	for _, d := range s.phaseTime {
		total += d
	}
	fmt.Fprintf(w, "jit: %d methods, %d IL bytes, %d bytes of code, compiled in %v", s.Methods, s.ILBytes, s.CodeBytes, total.Round(time.Microsecond))
	if s.Methods > 0 {
		fmt.Fprintf(w, " (%v per method)", (total / time.Duration(s.Methods)).Round(100*time.Nanosecond))
	}
	fmt.Fprintln(w)
	for _, p := range phases {
		d := s.phaseTime[p.Name]
		share := 0.0
		if total > 0 {
			share = 100 * float64(d) / float64(total)
		}
		fmt.Fprintf(w, "  %-12s %10v %5.1f%%\n", p.Name, d.Round(time.Microsecond), share)
	}
}
