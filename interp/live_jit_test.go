package interp

import (
	"context"
	"strings"
	"testing"

	"miniil/abi"
	"miniil/amd64"
	"miniil/il"
	"miniil/internal/corpustest"
	"miniil/jit"
)

// TestLivenessMatchesJIT compiles every method of the corpus with the JIT
// and checks the interpreter's liveness (live.go, temps.go) against the
// JIT's GC information, which the heap limit's live count follows on both
// engines:
//
//   - an argument or local the JIT reports at every safepoint (untracked)
//     is one the interpreter always marks, and the other way round;
//   - at each call, and at each allocation of newobj, newarr and box, an
//     argument or local the JIT reports live is live for the interpreter
//     after the instruction (itself, or a stack entry that is the
//     variable's own value: the JIT pushes a variable's register), and
//     the other way round (operands included for an allocation, which
//     the rest of the instruction reads);
//   - the JIT has as many temporaries of value types (frame blocks that
//     are no variable's) as the interpreter keeps.
//
// Locations the JIT shares between values (a register) are compared one
// way only: that the interpreter's live variables are reported.
func TestLivenessMatchesJIT(t *testing.T) {
	checked := 0
	for _, prog := range corpustest.Load(t, "corpus") {
		file, mod := prog.File, prog.Mod
		s := newState(context.Background(), mod, Options{})
		if err := s.setup(); err != nil {
			t.Fatal(err)
		}
		// Without the passes that copy code (an inlined call's or a cloned
		// finally's safepoints belong to other IL than the method's own
		// here) or split variables: elsewhere the GC information is the
		// same with or without them (the copies' values are dead after
		// them; their live values at their safepoints are the caller's
		// live after the call or finally, plus the callee's or funclet's
		// own: what the interpreter's frames hold; a split variable's
		// register copy holds what its slot does, and the slot is
		// untracked as before, opt.MarkUntracked).
		c := jit.New(jit.Config{Env: jit.NewDumpEnv(), Skip: map[string]bool{jit.Inline: true, jit.Clone: true, jit.WriteThru: true}})
		for _, m := range mod.CodeMethods() {
			if m.Builtin || m.Abstract || len(m.Code) == 0 {
				continue
			}
			cm, err := c.Compile(mod, m, "")
			if err != nil {
				t.Fatalf("%s: %v", m.FullName(), err)
			}
			checked += compareLiveness(t, file, s.liveness(s.method(m)), s.method(m), cm)
		}
	}
	if checked < 1000 {
		t.Errorf("only %d safepoints compared", checked)
	}
}

// compareLiveness compares l, the liveness of dm, with the JIT's GC
// information of cm and returns the number of safepoints compared.
func compareLiveness(t *testing.T, file string, l *liveInfo, dm *dmethod, cm *jit.Method) int {
	t.Helper()
	m, f, code := dm.il, cm.Func, cm.Code
	gi := &code.GC
	errs := 0
	report := func(format string, args ...any) {
		if errs++; errs <= 5 {
			t.Errorf("%s: %s: "+format, append([]any{file, m.FullName()}, args...)...)
		}
	}
	irValue := func(v int) int { // the IR value of argument or local v
		if v < dm.nargs {
			return v
		}
		return f.NumArgs + v - dm.nargs
	}
	kind := func(v int) il.Kind {
		if v < dm.nargs {
			return m.ArgType(v).Kind
		}
		return m.Locals[v-dm.nargs].Type.Kind
	}
	place := func(v int) string {
		if r := code.Homes[v]; r != amd64.NoReg {
			return strings.ToLower(r.String())
		}
		if off := code.Slots[v]; off != 0 {
			return abi.FrameLoc(off, false).Place()
		}
		return "" // in a frame block, or never used
	}
	owners := map[string]int{}
	for v, k := range f.Kinds {
		if pl := place(v); k.IsGC() && pl != "" {
			owners[pl]++
		}
	}
	untracked := map[string]bool{}
	for _, u := range gi.Untracked {
		untracked[u.Place()] = true
	}
	// The variables to compare: references and managed pointers with a
	// location of their own. A value-type argument is a pointer to the
	// caller's copy for the JIT, always marked by the interpreter: the
	// caller's temporary holds the same.
	var vars []int
	exposed := map[int]bool{}
	for v := range dm.nvars {
		iv := irValue(v)
		if pl := place(iv); f.Kinds[iv].IsGC() && kind(v) != il.KValue && pl != "" {
			vars = append(vars, v)
			if untracked[pl] != l.always[v] && owners[pl] == 1 {
				report("variable %d (%s): untracked for the JIT %v, for the interpreter %v", v, pl, untracked[pl], l.always[v])
			}
		}
	}
	for _, in := range m.Code {
		switch in.Op.Canon() {
		case il.LdargaS, il.Ldarga:
			exposed[int(in.Int)] = true
		case il.LdlocaS, il.Ldloca:
			exposed[dm.nargs+int(in.Int)] = true
		}
	}
	blocks := len(f.Slots)
	for v := range dm.nvars {
		if v >= dm.nargs && kind(v) == il.KValue || exposed[v] && kind(v) != il.KValue {
			blocks-- // a variable's own
		}
	}
	if blocks != dm.ntemps {
		report("%d temporaries for the JIT, %d for the interpreter", blocks, dm.ntemps)
	}

	notes := map[int]string{}
	for _, n := range code.Notes {
		notes[n.Offset] = n.Text()
	}
	index := map[int]int{}
	for i, in := range m.Code {
		index[int(in.Offset)] = i
	}
	set := make([]uint64, l.nw)
	compared := 0
	for k := range gi.Safepoints {
		sp := &gi.Safepoints[k]
		i, ok := index[int(sp.ILOffset)]
		if sp.ILOffset < 0 || sp.Flags&abi.SPProlog != 0 || !ok {
			continue
		}
		note := notes[int(sp.Offset)]
		alloc := note == "helper Alloc" || note == "helper NewArr" || note == "helper Box"
		switch op := m.Code[i].Op.Canon(); {
		case strings.HasPrefix(note, "call") && (op == il.Call || op == il.Callvirt || op == il.Newobj):
		case alloc && (op == il.Newobj || op == il.Newarr || op == il.Box):
		default:
			continue
		}
		compared++
		live := map[string]bool{}
		for _, loc := range gi.LiveAt(sp) {
			live[loc.Place()] = true
		}
		l.after(i, set)
		if alloc {
			st := &l.steps[i]
			l.setRange(set, int(st.in-st.pops), int(st.in), true)
		}
		for _, v := range vars {
			pl := place(irValue(v))
			if untracked[pl] {
				continue
			}
			jit, interp := live[pl], has(set, v) || entryOf(l, m, i, v, set, alloc)
			if interp && !jit {
				report("IL_%04x %s: variable %d (%s) is live for the interpreter, not for the JIT", sp.ILOffset, note, v, pl)
			}
			if jit && !interp && owners[pl] == 1 {
				report("IL_%04x %s: variable %d (%s) is live for the JIT, not for the interpreter", sp.ILOffset, note, v, pl)
			}
		}
	}
	return compared
}

// entryOf reports whether a stack entry live in set after instruction i
// (before it, if before) is variable v's own value: pushed by a load of
// v in i's block, v not stored since (the JIT's reader pushes the
// variable's register itself, and castclass, and box and unbox.any of a
// reference type, push their operand again).
func entryOf(l *liveInfo, m *il.Method, i, v int, set []uint64, before bool) bool {
	b := l.block[i]
	start := 0
	if b > 0 {
		start = int(l.ends[b-1]) + 1
	}
	last := i
	if before {
		last = i - 1
	}
	var sym []int
	for j := start; j <= last; j++ {
		st := &l.steps[j]
		for len(sym) < int(st.in) {
			sym = append(sym, -1)
		}
		sym = sym[:st.in]
		in := m.Code[j]
		switch op := in.Op.Canon(); {
		case st.kind == lsLoad:
			sym = append(sym, int(st.v))
		case st.kind == lsStore:
			sym = sym[:len(sym)-1]
			for d := range sym {
				if sym[d] == int(st.v) {
					sym[d] = -1
				}
			}
		case st.kind == lsDup:
			sym = append(sym, sym[len(sym)-1])
		case op == il.Castclass, (op == il.Box || op == il.UnboxAny) && in.Type().IsRef():
		default:
			sym = sym[:st.in-st.pops]
			for len(sym) < int(st.out) {
				sym = append(sym, -1)
			}
		}
	}
	for d, x := range sym {
		if x == v && has(set, l.nvars+d) {
			return true
		}
	}
	return false
}
