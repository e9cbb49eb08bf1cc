package amd64

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"miniil/funclet"
	"miniil/il"
	"miniil/internal/corpustest"
	"miniil/ir"
	"miniil/ir/irtest"
	"miniil/opt"
	"miniil/reader"
)

// allocateBuilt lays out f and allocates its homes as Generate does,
// failing the test if the result breaks the allocator's contract.
func allocateBuilt(t *testing.T, f *ir.Func, skip ir.ValueSet) []Reg {
	t.Helper()
	if skip == nil {
		skip = ir.NewValueSet(len(f.Kinds))
	}
	lay, err := funclet.Build(f)
	if err != nil {
		t.Fatal(err)
	}
	homes, _ := allocate(f, lay, skip)
	if errs := verifyHomes(f, lay, homes, skip); len(errs) > 0 {
		t.Errorf("homes break the contract:\n  %s\nhomes:%s\n%s", strings.Join(errs, "\n  "), homeList(homes), f)
	}
	return homes
}

// counted emits "for i = 0; i < n; i++ { body() }" from the current
// block and continues after the loop. The loop body is the head's
// not-taken side, so the layout places it right after the head and the
// loop's code is contiguous.
func counted(b *irtest.Builder, i, n ir.Value, body func()) {
	head, loop, exit := b.Block(), b.Block(), b.Block()
	b.Copy(i, b.Const(ir.I32, 0))
	b.Jump(head)
	b.At(head)
	b.If(b.Cmp(ir.Ge, i, n), exit, loop)
	b.At(loop)
	body()
	b.Copy(i, b.Bin(ir.OpAdd, i, b.Const(ir.I32, 1)))
	b.Jump(head)
	b.At(exit)
}

// sum returns the sum of vs (at least one).
func sum(b *irtest.Builder, vs ...ir.Value) ir.Value {
	s := vs[0]
	for _, v := range vs[1:] {
		s = b.Bin(ir.OpAdd, s, v)
	}
	return s
}

// TestHomesUnderPressure keeps more values live through a loop than there
// are home registers: every register is used, none twice at once. (RSI
// and RDI cannot hold the values defined in the entry block, where the
// arguments are still read from their registers; the loop's temporaries
// need only one of them.)
func TestHomesUnderPressure(t *testing.T) {
	for _, k := range []ir.Kind{ir.I32, ir.F64} {
		t.Run(k.String(), func(t *testing.T) {
			b := irtest.New(t, ir.I32)
			n := b.Arg(0)
			i := b.Locals(ir.I32)[0]
			count := 10 // more than the homes, with acc, i and n
			if k.IsFloat() {
				count = 14
			}
			vs := b.Locals(slices.Repeat([]ir.Kind{k}, count)...)
			acc := b.Locals(k)[0]
			for j, v := range vs {
				b.Copy(v, b.Const(k, int64(j)))
			}
			counted(b, i, n, func() {
				b.Copy(acc, b.Bin(ir.OpAdd, acc, sum(b, vs...)))
			})
			b.Ret(sum(b, append(vs, acc)...))
			f := b.Func()
			homes := allocateBuilt(t, f, nil)
			want := homeGPRs
			if k.IsFloat() {
				want = homeXMMs
			}
			var used []Reg
			for _, r := range homes {
				if slices.Contains(want, r) && !slices.Contains(used, r) {
					used = append(used, r)
				}
			}
			if !k.IsFloat() && !slices.Contains(used, RDI) && slices.Contains(used, RSI) {
				used = append(used, RDI) // one of the pair is enough
			}
			if len(used) != len(want) {
				t.Errorf("homes use %v, want all of %v (more values than registers are live in the loop):%s", used, want, homeList(homes))
			}
		})
	}
}

// TestFloatArgRegsNotHomes keeps many floats live through a loop in a
// method whose four float arguments arrive in XMM0-3: the values take
// XMM4-15 but never XMM2 or XMM3, which the prolog reads the arguments
// from.
func TestFloatArgRegsNotHomes(t *testing.T) {
	b := irtest.New(t, ir.F64, ir.F64, ir.F64, ir.F64, ir.I32)
	n := b.Arg(4)
	i := b.Locals(ir.I32)[0]
	vs := b.Locals(slices.Repeat([]ir.Kind{ir.F64}, 14)...)
	acc := b.Locals(ir.F64)[0]
	for j, v := range vs {
		b.Copy(v, b.Const(ir.F64, int64(j)))
	}
	counted(b, i, n, func() {
		b.Copy(acc, b.Bin(ir.OpAdd, acc, sum(b, append(vs, b.Arg(0), b.Arg(3))...)))
	})
	b.Ret(b.Bin(ir.OpAdd, acc, b.Arg(2)))
	homes := allocateBuilt(t, b.Func(), nil)
	used := map[Reg]bool{}
	for _, r := range homes {
		used[r] = true
	}
	if used[X2] || used[X3] {
		t.Errorf("a home in XMM2 or XMM3, where arguments arrive:%s", homeList(homes))
	}
	if !used[X4] || !used[X7] {
		t.Errorf("XMM4 and XMM7 unused under pressure:%s", homeList(homes))
	}
}

// TestHomesPreferCallerSaved computes a chain of short-lived values, more
// of them than there are registers but never more than two live at once,
// in a method without calls: they all fit in caller-saved registers, so
// the method saves no callee-saved one (each would cost a store and a
// load on every call).
func TestHomesPreferCallerSaved(t *testing.T) {
	b := irtest.New(t, ir.I32)
	n := b.Arg(0)
	i := b.Locals(ir.I32)[0]
	acc := b.Locals(ir.I32)[0]
	b.Copy(acc, b.Const(ir.I32, 1))
	counted(b, i, n, func() {
		v := acc
		for k := range 3 * len(homeGPRs) {
			v = b.Bin(ir.OpXor, b.Bin(ir.OpAdd, v, b.Const(ir.I32, int64(k))), i)
		}
		b.Copy(acc, v)
	})
	b.Ret(acc)
	f := b.Func()
	homes := allocateBuilt(t, f, nil)
	inRegs := 0
	for v, r := range homes {
		if isCalleeSaved(r) {
			t.Errorf("v%d is in callee-saved %v:%s", v, r, homeList(homes))
		}
		if r != NoReg {
			inRegs++
		}
	}
	if inRegs < 3*len(homeGPRs) {
		t.Errorf("only %d values in registers:%s", inRegs, homeList(homes))
	}
}

// TestHomesAcrossCalls checks where values live across a managed call go:
// a hot integer to a callee-saved register, a float or a cold integer to
// the frame; across a base library call (an exit, which saves every
// register) anything goes.
func TestHomesAcrossCalls(t *testing.T) {
	tests := []struct {
		name   string
		kind   ir.Kind
		callee string
		inLoop bool
		want   func(Reg) bool
		what   string
	}{
		{"hot int across a managed call", ir.I32, "Callee", true, func(r Reg) bool { return slices.Contains(calleeSavedGPRs, r) }, "a callee-saved register"},
		{"cold int across a managed call", ir.I32, "Callee", false, func(r Reg) bool { return r == NoReg }, "the frame"},
		{"hot float across a managed call", ir.F64, "Callee", true, func(r Reg) bool { return r == NoReg }, "the frame"},
		{"hot int across a base library call", ir.I32, "void System.Console::WriteLine(int32)", true, func(r Reg) bool { return r != NoReg }, "a register"},
		{"hot float across a base library call", ir.F64, "void System.Console::WriteLine(int32)", true, func(r Reg) bool { return r == X8 }, "X8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := irtest.New(t, ir.I32)
			n := b.Arg(0)
			ls := b.Locals(ir.I32, tt.kind)
			i, v := ls[0], ls[1]
			b.Copy(v, b.Const(tt.kind, 7))
			call := func() {
				b.Call(b.Method(tt.callee), i)
				b.Copy(v, b.Bin(ir.OpAdd, v, v))
			}
			if tt.inLoop {
				counted(b, i, n, call)
			} else {
				call()
			}
			b.Ret(v)
			homes := allocateBuilt(t, b.Func(), nil)
			if !tt.want(homes[v]) {
				t.Errorf("v%d (live across the call) is in %s, want %s; homes:%s", v, homes[v], tt.what, homeList(homes))
			}
		})
	}
}

// TestHomesAroundHandlers checks that values a funclet reaches through
// the frame, and values live across an EH edge, keep their slot, while in
// the same function without that use or edge (the control) the value has
// a register.
func TestHomesAroundHandlers(t *testing.T) {
	// hot makes v worth a register: a loop squaring it n times.
	hot := func(b *irtest.Builder, v ir.Value) {
		n, i := b.Arg(0), v+1
		counted(b, i, n, func() { b.Copy(v, b.Bin(ir.OpMul, v, v)) })
	}
	tests := []struct {
		name string
		// build makes the function around local v (v+1 is the loop
		// counter of hot); with eh false it
		// leaves out the use or edge the test is about.
		build func(b *irtest.Builder, v ir.Value, eh bool)
	}{
		{"written by a catch", func(b *irtest.Builder, v ir.Value, eh bool) {
			hot(b, v)
			try := b.Try(nil, 0)
			catch := b.Handler(ir.RegionCatch, nil, 0)
			body := b.In(try).Block()
			out := b.In(nil).Block()
			b.Jump(body)
			b.At(body)
			b.Call(b.Method("Callee"), b.Const(ir.I32, 1))
			b.Jump(out)
			b.At(catch.Entry)
			b.CatchArg()
			if eh {
				b.Copy(v, b.Const(ir.I32, -1))
			}
			b.CatchRet(out)
			b.At(out)
			b.Ret(b.Const(ir.I32, 0))
		}},
		{"read by a finally", func(b *irtest.Builder, v ir.Value, eh bool) {
			hot(b, v)
			try := b.Try(nil, 0)
			fin := b.Handler(ir.RegionFinally, nil, 0)
			body := b.In(try).Block()
			step, out := b.In(nil).Block(), b.Block()
			b.Jump(body)
			b.At(body)
			b.Jump(step)
			b.At(step)
			b.CallFinally(0, out)
			b.At(fin.Entry)
			if eh {
				b.Call(b.Method("void System.Console::WriteLine(int32)"), v)
			}
			b.EndFinally()
			b.At(out)
			b.Ret(b.Const(ir.I32, 0))
		}},
		{"read by a filter", func(b *irtest.Builder, v ir.Value, eh bool) {
			hot(b, v)
			try := b.Try(nil, 0)
			filter := b.Handler(ir.RegionFilter, nil, 0)
			catch := b.Handler(ir.RegionFilterHandler, nil, 0)
			body := b.In(try).Block()
			out := b.In(nil).Block()
			b.Jump(body)
			b.At(body)
			b.Call(b.Method("Callee"), b.Const(ir.I32, 1))
			b.Jump(out)
			b.At(filter.Entry)
			b.CatchArg()
			verdict := b.Const(ir.I32, 1)
			if eh {
				verdict = v
			}
			b.EndFilter(verdict)
			b.At(catch.Entry)
			b.CatchArg()
			b.CatchRet(out)
			b.At(out)
			b.Ret(b.Const(ir.I32, 0))
		}},
		{"live across the call of a finally holding a try", func(b *irtest.Builder, v ir.Value, eh bool) {
			// Clause 0: the try/catch inside the finally of clause 1.
			try := b.Try(nil, 1)
			fin := b.Handler(ir.RegionFinally, nil, 1)
			inner := b.Try(fin, 0)
			catch := b.Handler(ir.RegionCatch, fin, 0)
			body := b.In(try).Block()
			step, out := b.In(nil).Block(), b.Block()
			ibody := b.In(inner).Block()
			fend := b.In(fin).Block()
			b.In(nil)
			b.Jump(body)
			b.At(body)
			b.Jump(step)
			b.At(step)
			if eh {
				b.CallFinally(1, out)
			} else {
				b.Jump(out)
			}
			b.At(fin.Entry)
			b.Jump(ibody)
			b.At(ibody)
			b.Call(b.Method("Callee"), b.Const(ir.I32, 1))
			b.Jump(fend)
			b.At(catch.Entry)
			b.CatchArg()
			b.CatchRet(fend)
			b.At(fend)
			b.EndFinally()
			b.At(out)
			hot(b, v)
			b.Ret(v)
		}},
		{"live into a catch's continuation", func(b *irtest.Builder, v ir.Value, eh bool) {
			try := b.Try(nil, 0)
			catch := b.Handler(ir.RegionCatch, nil, 0)
			body := b.In(try).Block()
			out := b.In(nil).Block()
			b.Jump(body)
			b.At(body)
			b.Call(b.Method("Callee"), b.Const(ir.I32, 1))
			b.Jump(out)
			b.At(catch.Entry)
			b.CatchArg()
			if eh {
				b.CatchRet(out)
			} else {
				b.Rethrow()
			}
			b.At(out)
			hot(b, v)
			b.Ret(v)
		}},
	}
	for _, tt := range tests {
		for _, eh := range []bool{false, true} {
			name := tt.name
			if !eh {
				name = "control: not " + name
			}
			t.Run(name, func(t *testing.T) {
				b := irtest.New(t, ir.I32)
				v := b.Locals(ir.I32, ir.I32)[0]
				b.Copy(v, b.Const(ir.I32, 3))
				tt.build(b, v, eh)
				homes := allocateBuilt(t, b.Func(), nil)
				if framed := homes[v] == NoReg; framed != eh {
					t.Errorf("v%d is in %s; want it in the frame: %v; homes:%s", v, homes[v], eh, homeList(homes))
				}
			})
		}
	}
}

// TestHomesEvictLightValues makes nine integer values that live from the
// entry block compete for the eight registers they may have (RDI and RSI
// are not homes there) through a loop (n, i, six loop variables, one
// value used only after the loop; the loop's temporaries take RDI and
// RSI): the one used only outside the loop loses, although its interval
// starts first.
func TestHomesEvictLightValues(t *testing.T) {
	b := irtest.New(t, ir.I32)
	n := b.Arg(0)
	ls := b.Locals(ir.I32, ir.I32, ir.I32, ir.I32, ir.I32, ir.I32, ir.I32, ir.I32)
	cold, i, hot := ls[0], ls[1], ls[2:]
	b.Copy(cold, b.Const(ir.I32, 9))
	counted(b, i, n, func() {
		for _, v := range hot {
			b.Copy(v, b.Bin(ir.OpAdd, v, i))
		}
	})
	b.Ret(sum(b, append([]ir.Value{cold}, hot...)...))
	homes := allocateBuilt(t, b.Func(), nil)
	if homes[cold] != NoReg {
		t.Errorf("v%d, used once outside the loop, is in %s; want it evicted to the frame; homes:%s", cold, homes[cold], homeList(homes))
	}
	for _, v := range append([]ir.Value{n, i}, hot...) {
		if homes[v] == NoReg {
			t.Errorf("v%d, used in the loop, is in the frame; homes:%s", v, homeList(homes))
		}
	}
}

// TestHomesSkip checks that the values the code generator needs no
// location for get none.
func TestHomesSkip(t *testing.T) {
	b := irtest.New(t, ir.I32)
	n := b.Arg(0)
	i := b.Locals(ir.I32)[0]
	var c ir.Value
	counted(b, i, n, func() { c = b.Const(ir.I32, 5); b.Copy(i, b.Bin(ir.OpAdd, i, c)) })
	b.Ret(i)
	f := b.Func()
	skip := ir.NewValueSet(len(f.Kinds))
	skip.Add(c)
	if homes := allocateBuilt(t, f, skip); homes[c] != NoReg || homes[i] == NoReg {
		t.Errorf("skipped v%d is in %s, loop variable v%d in %s; want none and a register", c, homes[c], i, homes[i])
	}
}

// TestHomesRandom allocates homes for random functions (loops, calls of
// both kinds, all value kinds, try/catch and try/finally) and checks the
// allocator's contract on each.
func TestHomesRandom(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 50
	}
	for seed := range uint64(n) {
		var f *ir.Func
		ok := t.Run("", func(t *testing.T) {
			f = randomFunc(t, rand.New(rand.NewPCG(seed, 1)))
			allocateBuilt(t, f, nil)
		})
		if !ok {
			t.Fatalf("seed %d fails", seed)
		}
	}
}

// randomFunc builds a random function: locals of every kind, blocks of
// random arithmetic, copies, calls and field loads over them, random
// (also backward) branches, and a try region with a catch or a finally
// that touches some locals.
func randomFunc(t *testing.T, rnd *rand.Rand) *ir.Func {
	kinds := []ir.Kind{ir.I32, ir.I64, ir.F64, ir.Ref}
	b := irtest.New(t, ir.I32, ir.Ref)
	var locals []ir.Kind
	for range 3 + rnd.IntN(12) {
		locals = append(locals, kinds[rnd.IntN(len(kinds))])
	}
	vars := append([]ir.Value{b.Arg(0), b.Arg(1)}, b.Locals(locals...)...)
	kindOf := map[ir.Value]ir.Kind{b.Arg(0): ir.I32, b.Arg(1): ir.Ref}
	for j, v := range vars[2:] {
		kindOf[v] = locals[j]
	}
	// pick returns a variable of kind k (one is made if none exists).
	pick := func(k ir.Kind, pool []ir.Value) ir.Value {
		var cands []ir.Value
		for _, v := range pool {
			if kindOf[v] == k {
				cands = append(cands, v)
			}
		}
		if len(cands) == 0 {
			v := b.Const(k, 1)
			kindOf[v] = k
			return v
		}
		return cands[rnd.IntN(len(cands))]
	}
	fill := func() {
		temps := slices.Clone(vars)
		for range rnd.IntN(8) {
			k := kinds[rnd.IntN(3)]
			var v ir.Value
			switch rnd.IntN(7) {
			case 0, 1:
				v = b.Bin([]ir.Op{ir.OpAdd, ir.OpSub, ir.OpMul}[rnd.IntN(3)], pick(k, temps), pick(k, temps))
			case 2:
				v = b.Call(b.Method("Callee"), pick(ir.I32, temps))
				k = ir.I32
			case 3:
				v = b.Call(b.Method("FCallee"), pick(ir.F64, temps))
				k = ir.F64
			case 4:
				b.Call(b.Method("void System.Console::WriteLine(int32)"), pick(ir.I32, temps))
				continue
			case 5:
				k = ir.Ref
				v = b.LdField(pick(ir.Ref, temps), b.Field("next"))
			case 6:
				v = b.Const(k, int64(rnd.IntN(100)))
			}
			kindOf[v] = k
			temps = append(temps, v)
			if rnd.IntN(2) == 0 {
				b.Copy(pick(k, vars), v)
			}
		}
	}
	blocks := b.Blocks(3 + rnd.IntN(8))
	b.Jump(blocks[0])
	try := b.Try(nil, 0)
	var handler *ir.Region
	if rnd.IntN(2) == 0 {
		handler = b.Handler(ir.RegionCatch, nil, 0)
	} else {
		handler = b.Handler(ir.RegionFinally, nil, 0)
	}
	tryBody := b.In(try).Block()
	b.In(nil)
	for j, blk := range blocks {
		b.At(blk)
		fill()
		target := func() *ir.Block { return blocks[rnd.IntN(len(blocks))] }
		switch {
		case j == len(blocks)-1:
			b.Ret(pick(ir.I32, vars))
		case j == len(blocks)/2:
			b.Jump(tryBody)
			b.At(tryBody)
			fill()
			if handler.Kind == ir.RegionFinally {
				step := b.In(nil).Block()
				b.Jump(step)
				b.At(step)
				b.CallFinally(0, blocks[j+1])
			} else {
				b.Jump(blocks[j+1])
			}
		case rnd.IntN(3) == 0:
			b.Jump(target())
		default:
			b.If(b.Cmp(ir.Lt, pick(ir.I32, vars), pick(ir.I32, vars)), target(), blocks[j+1])
		}
	}
	b.At(handler.Entry)
	if handler.Kind == ir.RegionCatch {
		b.CatchArg()
	}
	fill()
	if handler.Kind == ir.RegionCatch {
		b.CatchRet(blocks[len(blocks)/2+1])
	} else {
		b.EndFinally()
	}
	return b.Func()
}

// fixedEnv gives the code generator fixed addresses; nothing runs.
type fixedEnv struct{}

func (fixedEnv) CellAddr(*il.Method) uintptr  { return 0x10000 }
func (fixedEnv) ClassMT(*il.Class) uintptr    { return 0x20000 }
func (fixedEnv) TypeMT(*il.Type) uintptr      { return 0x30000 }
func (fixedEnv) StaticAddr(*il.Field) uintptr { return 0x40000 }
func (fixedEnv) StringAddr(string) uintptr    { return 0x50000 }
func (fixedEnv) BuiltinID(*il.Method) uint64  { return 1 }

// TestHomesCorpus compiles every method of the golden corpus as the JIT
// does and checks the homes Generate chose against the allocator's
// contract.
func TestHomesCorpus(t *testing.T) {
	progs := corpustest.Load(t, "corpus")
	a := NewAssembler()
	methods, homed := 0, 0
	for _, prog := range progs {
		file, mod := prog.File, prog.Mod
		for _, m := range mod.AllMethods() {
			if m.Abstract {
				continue // no IL
			}
			f, err := reader.Import(mod, m)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if err := opt.Run(f); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			code, err := Generate(f, fixedEnv{}, a)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if errs := verifyHomes(f, code.Layout, code.Homes, nil); len(errs) > 0 {
				t.Errorf("%s: %s: homes break the contract:\n  %s\nhomes:%s\n%s", filepath.Base(file), m.FullName(), strings.Join(errs, "\n  "), homeList(code.Homes), f)
			}
			methods++
			for _, r := range code.Homes {
				if r != NoReg {
					homed++
				}
			}
		}
	}
	if homed == 0 {
		t.Errorf("no value of %d methods has a register: the test checks nothing", methods)
	}
	t.Logf("%d methods, %d values in registers", methods, homed)
}
