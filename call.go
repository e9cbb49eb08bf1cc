package miniil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf16"

	"miniil/ehclauses"
	"miniil/il"
	"miniil/interp"
	"miniil/ir"
	"miniil/jit"
	"miniil/jitrt"
)

// FindMethod returns the method named name: Class::Method, or Method alone
// for a global method or when only one class declares that name.
func (p *Program) FindMethod(name string) (*il.Method, error) {
	var found []*il.Method
	for _, m := range p.mod.AllMethods() {
		if m.FullName() == name || m.Name == name {
			found = append(found, m)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no method named %s", name)
	case 1:
		return found[0], nil
	}
	var names []string
	for _, m := range found {
		names = append(names, m.Signature())
	}
	return nil, fmt.Errorf("method name %s is ambiguous: %s", name, strings.Join(names, ", "))
}

// Call runs the static method name with Go arguments and returns its
// result as a Go value. Arguments must match the parameters: int32 (or
// int, if it fits), int64, uint32, uint64, int8, int16, uint8, uint16,
// bool, float32, float64, string, or nil for an object parameter. The
// result has the Go type of the return type (int32, int64, bool, float64,
// string, ...), or is nil for void or a null reference. Methods returning
// other objects give an error. The context and cfg work as for Run; the
// string arguments are the run's first allocations.
func (p *Program) Call(ctx context.Context, cfg Config, name string, args ...any) (result any, err error) {
	defer recoverInternal("call", &err)
	m, err := p.FindMethod(name)
	if err != nil {
		return nil, err
	}
	if !m.Static {
		return nil, fmt.Errorf("%s is an instance method; only static methods can be called from Go", m.FullName())
	}
	if m.Name == ".cctor" {
		return nil, fmt.Errorf("%s is a static constructor: the runtime runs it, it cannot be called", m.FullName())
	}
	if len(args) != len(m.Params) {
		return nil, fmt.Errorf("%s takes %d argument(s), got %d", m.Signature(), len(m.Params), len(args))
	}
	if k := m.Ret.Kind; k == il.KValue {
		return nil, fmt.Errorf("%s returns value type %s; only primitives, strings and objects can be returned to Go", m.FullName(), m.Ret.CLRName())
	}
	for i, p := range m.Params {
		if k := p.Type.Kind; k == il.KValue || k == il.KByRef {
			return nil, fmt.Errorf("argument %d of %s has type %s; Go can pass only primitives, strings and null", i+1, m.FullName(), p.Type)
		}
	}
	norm := make([]any, len(args))
	for i, a := range args {
		if norm[i], err = normalizeArg(a, m.Params[i].Type); err != nil {
			return nil, fmt.Errorf("argument %d of %s: %w", i+1, m.FullName(), err)
		}
	}
	ctx, out, err := prepare(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	// String arguments are the first allocations of the run.
	var argBytes int64
	for _, a := range norm {
		if s, ok := a.(string); ok {
			argBytes += il.StringSize(len(utf16.Encode([]rune(s))))
		}
	}
	if argBytes > cfg.MaxHeap {
		return nil, fmt.Errorf("the string arguments take %d bytes, more than the heap limit of %d", argBytes, cfg.MaxHeap)
	}
	var res any
	switch cfg.Engine {
	case Interp:
		res, err = interp.Call(ctx, p.mod, m, norm, interpOptions(cfg, out))
	case JIT:
		var rt *jitrt.Runtime
		if rt, err = newRuntime(p.mod, cfg, out); err != nil {
			return nil, err
		}
		defer rt.Close()
		res, err = rt.Call(ctx, m, norm)
	default:
		return nil, fmt.Errorf("unknown engine %v", cfg.Engine)
	}
	if err != nil {
		return nil, classify("call", err, out)
	}
	return goResult(res, m.Ret), nil
}

// normalizeArg converts a Go argument to the engines' normalized form
// (int64, float64, string or nil), checking it against parameter type t.
func normalizeArg(a any, t *il.Type) (any, error) {
	var n int64
	var isInt bool
	switch x := a.(type) {
	case int:
		n, isInt = int64(x), true
	case int8:
		n, isInt = int64(x), true
	case int16:
		n, isInt = int64(x), true
	case int32:
		n, isInt = int64(x), true
	case int64:
		n, isInt = x, true
	case uint8:
		n, isInt = int64(x), true
	case uint16:
		n, isInt = int64(x), true
	case uint32:
		n, isInt = int64(x), true
	case uint64:
		if t.Kind != il.KU8 && t.Kind != il.KU && x > math.MaxInt64 {
			return nil, fmt.Errorf("%d does not fit in %s", x, t)
		}
		n, isInt = int64(x), true
	case bool:
		if t.Kind != il.KBool {
			return nil, fmt.Errorf("a bool cannot be passed as %s", t)
		}
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case float32:
		if t.Kind != il.KR4 && t.Kind != il.KR8 {
			return nil, fmt.Errorf("a float32 cannot be passed as %s", t)
		}
		return float64(x), nil
	case float64:
		if t.Kind != il.KR4 && t.Kind != il.KR8 {
			return nil, fmt.Errorf("a float64 cannot be passed as %s", t)
		}
		return x, nil
	case string:
		if t.Kind != il.KString && t.Kind != il.KObject {
			return nil, fmt.Errorf("a string cannot be passed as %s", t)
		}
		return x, nil
	case nil:
		if !t.IsRef() {
			return nil, fmt.Errorf("nil cannot be passed as %s", t)
		}
		return nil, nil
	default:
		return nil, fmt.Errorf("Go type %T is not supported (use integers, bool, floats or string)", a)
	}
	if !isInt {
		return nil, errors.New("unreachable")
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch t.Kind {
	case il.KI1:
		lo, hi = math.MinInt8, math.MaxInt8
	case il.KU1:
		lo, hi = 0, math.MaxUint8
	case il.KI2:
		lo, hi = math.MinInt16, math.MaxInt16
	case il.KU2, il.KChar:
		lo, hi = 0, math.MaxUint16
	case il.KI4:
		lo, hi = math.MinInt32, math.MaxInt32
	case il.KU4:
		lo, hi = 0, math.MaxUint32
	case il.KI8, il.KI, il.KU8, il.KU:
	default:
		return nil, fmt.Errorf("an integer cannot be passed as %s", t)
	}
	if (t.Kind != il.KU8 && t.Kind != il.KU) && (n < lo || n > hi) {
		return nil, fmt.Errorf("%d does not fit in %s", n, t)
	}
	return n, nil
}

// goResult converts a normalized result to the Go type of t.
func goResult(v any, t *il.Type) any {
	n, isInt := v.(int64)
	f, isFloat := v.(float64)
	switch {
	case t.Kind == il.KBool && isInt:
		return n != 0
	case t.Kind == il.KI1 && isInt:
		return int8(n)
	case t.Kind == il.KU1 && isInt:
		return uint8(n)
	case t.Kind == il.KI2 && isInt:
		return int16(n)
	case (t.Kind == il.KU2 || t.Kind == il.KChar) && isInt:
		return uint16(n)
	case t.Kind == il.KI4 && isInt:
		return int32(n)
	case t.Kind == il.KU4 && isInt:
		return uint32(n)
	case (t.Kind == il.KU8 || t.Kind == il.KU) && isInt:
		return uint64(n)
	case t.Kind == il.KR4 && isFloat:
		return float32(f)
	}
	return v
}

// Stage names a compilation stage for Dump.
type Stage int

// Stages that Dump prints.
const (
	StageIL       Stage = iota // the parsed module with IL offsets and EH clauses
	StageIR                    // the IR of each method after the IR passes, in code order
	StageFunclets              // the funclet layout and native code ranges
	StageEH                    // the native EH clause table
	StageAsm                   // IR, then machine code with native offsets
	StageGC                    // the GC information at each safepoint
)

// Dump prints a stage's output for every method, or for the method named
// method (see FindMethod) when it is not empty. Methods the JIT cannot
// compile are listed with the reason. The methods go through the same
// compile driver as a run (validated), so the dump shows what runs.
func (p *Program) Dump(w io.Writer, stage Stage, method string) error {
	switch stage {
	case StageIL:
		return il.Fprint(w, p.mod, il.PrintOptions{Offsets: true})
	case StageIR:
		return p.dump(w, method, jit.Layout, func(w io.Writer, m *jit.Method) error { return ir.Fprint(w, m.Func) })
	case StageFunclets:
		return p.dump(w, method, jit.Emit, func(w io.Writer, m *jit.Method) error { jit.FprintFunclets(w, m); return nil })
	case StageEH:
		return p.dump(w, method, jit.EHClauses, func(w io.Writer, m *jit.Method) error {
			ehclauses.Fprint(w, m.IL, ehclauses.Of(m.Compiled()))
			return nil
		})
	case StageAsm:
		return p.dump(w, method, jit.Emit, func(w io.Writer, m *jit.Method) error {
			if err := ir.Fprint(w, m.Func); err != nil {
				return err
			}
			return jit.FprintCode(w, m)
		})
	case StageGC:
		return p.dump(w, method, jit.Emit, func(w io.Writer, m *jit.Method) error { jit.FprintGC(w, m); return nil })
	}
	return fmt.Errorf("unknown stage %d", stage)
}

// DumpAfter prints, for every method or the one named method, its state
// after the named compile phase: the IR after the IR phases, the funclets
// after layout, the register homes after regalloc, the machine code after
// emit, the clause table after ehclauses. Phases lists the phase names.
func (p *Program) DumpAfter(w io.Writer, phase string, method string) error {
	i := jit.PhaseIndex(phase)
	if i < 0 {
		return fmt.Errorf("no compile phase named %q (phases: %s)", phase, strings.Join(Phases(), ", "))
	}
	return p.dump(w, method, phase, nil)
}

// Phases returns the names of the JIT's compile phases, in order.
func Phases() []string {
	var names []string
	for _, ph := range jit.Phases() {
		names = append(names, ph.Name)
	}
	return names
}

// OptionalPhases returns the names of the compile phases that only
// optimize, which Config.SkipPhases may leave out, in pipeline order.
func OptionalPhases() []string {
	var names []string
	for _, ph := range jit.Phases() {
		if ph.Optional {
			names = append(names, ph.Name)
		}
	}
	return names
}

// dump compiles the methods through phase last and prints each with
// print (nil: the phase's own printer).
func (p *Program) dump(w io.Writer, method, last string, print func(io.Writer, *jit.Method) error) (err error) {
	defer recoverInternal("dump", &err)
	methods := p.mod.CodeMethods() // with the hidden type initializers' Run methods
	if method != "" {
		m, err := p.FindMethod(method)
		if err != nil {
			return err
		}
		methods = []*il.Method{m}
	}
	cfg := jit.Config{Validate: true}
	if print == nil {
		cfg.After = map[string]io.Writer{last: w}
	}
	// Made-up addresses, named in the disassembly and the same from run
	// to run; as large as real ones, so the code is what a run gets.
	cfg.Env = jit.NewDumpEnv()
	c := jit.New(cfg)
	for i, m := range methods {
		if m.Builtin || m.Abstract && method == "" {
			continue
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		st, err := c.Compile(p.mod, m, last)
		if err != nil {
			fmt.Fprintf(w, "; %s: %v\n", m.FullName(), err)
			continue
		}
		if print != nil {
			if err := print(w, st); err != nil {
				return err
			}
		}
	}
	return nil
}
