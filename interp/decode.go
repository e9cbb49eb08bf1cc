package interp

import (
	"fmt"
	"sort"

	"miniil/il"
)

// styp is a static evaluation-stack type (ECMA-335 III.1.1), with F split
// into float32-typed and float64-typed values the way CoreCLR's JIT types
// them (float32 op float32 is computed in single precision).
type styp uint8

const (
	sNone styp = iota
	sI4
	sI8
	sI
	sR4
	sR8
	sO
	sP // a managed pointer
	sV // a value of a value type (a *svalue)
)

func (t styp) isInt() bool { return t == sI4 || t == sI8 || t == sI }
func (t styp) isF() bool   { return t == sR4 || t == sR8 }

// inst is one decoded instruction.
type inst struct {
	op opcode
	n  uint8
	a  int32
	b  int32
	k  int64
}

// clause is a decoded exception clause (instruction-index ranges).
type clause struct {
	kind                                   il.EHKind
	tryStart, tryEnd, hStart, hEnd, fStart int
	catchType                              *il.Type
}

func (c *clause) covers(pc int) bool    { return pc >= c.tryStart && pc < c.tryEnd }
func (c *clause) inHandler(pc int) bool { return pc >= c.hStart && pc < c.hEnd }

// leaveInfo is a leave's target and the finally clauses it runs, inner
// first.
type leaveInfo struct {
	from, target int // the leave instruction and its target
	finallys     []int
}

// argNorm says that argument off (counting this) must be normalized to k.
type argNorm struct {
	off int
	k   il.Kind
}

// dmethod is a method prepared for execution.
type dmethod struct {
	il    *il.Method
	idx   int
	bi    il.BuiltinKind // BuiltinNone but for base library methods
	bkind il.Kind        // Console.Write parameter kind
	bnl   bool           // Console.WriteLine
	bmsg  *managedString // exception .ctor(): the default message

	code      []inst
	eh        []clause
	switches  [][]int32
	leaves    []leaveInfo
	argNorms  [][]argNorm
	nargs     int // including this
	nvars     int // arguments and locals
	maxStack  int
	frameSize int
	hasRet    bool
	decoded   bool
	owner     *rtClass // for constructors: the class newobj allocates
	trace     string
	// structLocals are the locals of a value type, which every frame
	// gets a fresh zero value of.
	structLocals []structLocal
	init         *typeInit // the type initializer the method's entry triggers (cctor.go)
	initRun      bool      // il.TypeInit.Run: its return runs the triggering site again
	initSites    []inst    // the instructions of the sites oInit checks
	live         *liveInfo // the liveness of its variables, once a live count needs it
	// The JIT's temporaries of value types (temps.go): how many, the one
	// each instruction's result is copied into (-1: none; nil: no
	// temporary at all), the copies of views that oTemps instructions
	// make before the instructions kept aside in tempOrig.
	ntemps     int
	resultTemp []int32
	tempRecs   [][]tempRec
	tempOrig   []inst
}

func (dm *dmethod) traceName() string {
	if dm.trace == "" {
		dm.trace = dm.il.TraceName()
	}
	return dm.trace
}

func kindStyp(t *il.Type) styp {
	switch t.Kind {
	case il.KBool, il.KChar, il.KI1, il.KU1, il.KI2, il.KU2, il.KI4, il.KU4:
		return sI4
	case il.KI8, il.KU8:
		return sI8
	case il.KI, il.KU:
		return sI
	case il.KR4:
		return sR4
	case il.KR8:
		return sR8
	case il.KVoid:
		return sNone
	case il.KByRef:
		return sP
	case il.KValue:
		return sV
	}
	if c := canonType(t); c != t && !c.IsRef() {
		return kindStyp(c)
	}
	return sO
}

// normFor returns the normalization a store of a src-typed value to a
// location of kind k needs (KVoid: none).
func normFor(k il.Kind, src styp) il.Kind {
	switch k {
	case il.KBool, il.KU1, il.KI1, il.KI2, il.KU2, il.KChar:
		return k
	case il.KI4, il.KU4:
		if src != sI4 {
			return il.KI4
		}
	case il.KR4:
		if src != sR4 {
			return il.KR4
		}
	}
	return il.KVoid
}

func join(a, b styp) (styp, bool) {
	switch {
	case a == b:
		return a, true
	case a.isF() && b.isF():
		return sR8, true
	case a.isInt() && b.isInt():
		if a == sI8 || b == sI8 {
			return sI8, true
		}
		return sI, true
	}
	return sNone, false
}

type decoder struct {
	s      *state
	dm     *dmethod
	m      *il.Method
	states [][]styp
	work   []int
	max    int
	stk    []styp
	pops   int // the values the last step popped
	// tries and handlers index the clauses by nesting (built on first
	// use), so that leave and rethrow find their clauses in time linear
	// in what they cross, however deep the nest.
	tries, handlers *nesting
}

// nesting indexes ranges of instructions that nest or are disjoint, in
// the clause table's order (inner ranges first).
type nesting struct {
	first []int32 // per instruction: the first range covering it, -1: none
	next  []int32 // per range: the next range covering all it covers, -1: none
}

// nest builds the index of the ranges span(k) of n instructions (k in
// 0..count-1; an empty range covers nothing).
func nest(n, count int, span func(k int) (start, end int)) *nesting {
	x := &nesting{first: make([]int32, n), next: make([]int32, count)}
	order := make([]int, count)
	for k := range order {
		order[k] = k
	}
	// Outer ranges first; of equal ranges the later one first, so the
	// earliest ends on top of the stack.
	sort.Slice(order, func(a, b int) bool {
		sa, ea := span(order[a])
		sb, eb := span(order[b])
		if sa != sb {
			return sa < sb
		}
		if ea != eb {
			return ea > eb
		}
		return order[a] > order[b]
	})
	var open []int
	j := 0
	for pc := range n {
		for len(open) > 0 {
			if _, e := span(open[len(open)-1]); e > pc {
				break
			}
			open = open[:len(open)-1]
		}
		for ; j < count; j++ {
			k := order[j]
			if st, e := span(k); st > pc {
				break
			} else if e <= st {
				x.next[k] = -1
				continue
			}
			x.next[k] = -1
			if len(open) > 0 {
				x.next[k] = int32(open[len(open)-1])
			}
			open = append(open, k)
		}
		x.first[pc] = -1
		if len(open) > 0 {
			x.first[pc] = int32(open[len(open)-1])
		}
	}
	for ; j < count; j++ {
		x.next[order[j]] = -1
	}
	return x
}

func (s *state) decode(dm *dmethod) error {
	m := dm.il
	d := &decoder{s: s, dm: dm, m: m}
	n := len(m.Code)
	dm.code = make([]inst, n)
	for _, c := range m.EH {
		dm.eh = append(dm.eh, clause{kind: c.Kind, tryStart: c.TryStart, tryEnd: c.TryEnd,
			hStart: c.HandlerStart, hEnd: c.HandlerEnd, fStart: c.FilterStart, catchType: canonType(c.CatchType)})
	}
	if n == 0 {
		return fmt.Errorf("%s: method %s has no body", m.Pos, m.FullName())
	}
	if err := d.infer(); err != nil {
		return err
	}
	for i := range m.Code {
		if d.states[i] == nil {
			dm.code[i] = inst{op: oUnreachable}
			continue
		}
		if _, err := d.step(i, true); err != nil {
			return err
		}
	}
	dm.maxStack = d.max
	s.planTemps(dm, d)
	s.markTriggers(dm) // a type initializer runs before the copies oTemps makes
	dm.frameSize = dm.nvars + dm.ntemps + d.max + 2
	dm.decoded = true
	return nil
}

// infer computes the stack types before each instruction (d.states; nil
// for unreachable instructions) and the stack's maximum depth.
func (d *decoder) infer() error {
	dm := d.dm
	d.states = make([][]styp, len(d.m.Code))
	if err := d.merge(0, nil); err != nil {
		return err
	}
	for _, c := range dm.eh {
		switch c.kind {
		case il.EHCatch:
			err := d.merge(c.hStart, []styp{sO})
			if err != nil {
				return err
			}
		case il.EHFilter:
			if err := d.merge(c.fStart, []styp{sO}); err != nil {
				return err
			}
			if err := d.merge(c.hStart, []styp{sO}); err != nil {
				return err
			}
		default:
			if err := d.merge(c.hStart, []styp{}); err != nil {
				return err
			}
		}
	}
	for len(d.work) > 0 {
		i := d.work[len(d.work)-1]
		d.work = d.work[:len(d.work)-1]
		out, err := d.step(i, false)
		if err != nil {
			return err
		}
		if err := d.successors(i, out); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) errf(i int, format string, args ...any) error {
	in := d.m.Code[i]
	return fmt.Errorf("%s: %s: %s (in %s)", in.Pos(d.m.Pos.File), in.Op, fmt.Sprintf(format, args...), d.m.FullName())
}

func (d *decoder) merge(j int, st []styp) error {
	if j < 0 || j >= len(d.states) {
		return fmt.Errorf("%s: branch target %d out of range in %s", d.m.Pos, j, d.m.FullName())
	}
	old := d.states[j]
	if old == nil {
		d.states[j] = append(make([]styp, 0, len(st)), st...)
		d.work = append(d.work, j)
		return nil
	}
	if len(old) != len(st) {
		return d.errf(j, "stack depth mismatch at merge (%d vs %d)", len(old), len(st))
	}
	changed := false
	for k := range old {
		t, ok := join(old[k], st[k])
		if !ok {
			return d.errf(j, "stack type mismatch at merge")
		}
		if t != old[k] {
			old[k] = t
			changed = true
		}
	}
	if changed {
		d.work = append(d.work, j)
	}
	return nil
}

func (d *decoder) successors(i int, out []styp) error {
	in := d.m.Code[i]
	switch in.Op.Canon() {
	case il.Br, il.BrS:
		return d.merge(in.Target(), out)
	case il.Leave, il.LeaveS:
		return d.merge(in.Target(), nil)
	case il.Ret, il.Throw, il.Rethrow, il.Endfinally, il.Endfilter:
		return nil
	}
	for _, t := range in.Targets() {
		if err := d.merge(t, out); err != nil {
			return err
		}
	}
	if i+1 >= len(d.m.Code) {
		return d.errf(i, "control falls off the end of the method")
	}
	return d.merge(i+1, out)
}

// Arithmetic opcode families: int32, 64-bit int, float64, float32 forms.
var arith = map[il.Op][4]opcode{
	il.Add:   {oAddI4, oAddI8, oAddF, oAddR4},
	il.Sub:   {oSubI4, oSubI8, oSubF, oSubR4},
	il.Mul:   {oMulI4, oMulI8, oMulF, oMulR4},
	il.Div:   {oDivI4, oDivI8, oDivF, oDivR4},
	il.Rem:   {oRemI4, oRemI8, oRemF, oRemR4},
	il.DivUn: {oDivUnI4, oDivUnI8},
	il.RemUn: {oRemUnI4, oRemUnI8},
	il.And:   {oAnd, oAnd},
	il.Or:    {oOr, oOr},
	il.Xor:   {oXor, oXor},

	il.AddOvf:   {oAddOvfI4, oAddOvfI8},
	il.AddOvfUn: {oAddOvfUnI4, oAddOvfUnI8},
	il.SubOvf:   {oSubOvfI4, oSubOvfI8},
	il.SubOvfUn: {oSubOvfUnI4, oSubOvfUnI8},
	il.MulOvf:   {oMulOvfI4, oMulOvfI8},
	il.MulOvfUn: {oMulOvfUnI4, oMulOvfUnI8},
}

type convSpec struct {
	target, mode int
	res          styp
}

var convs = map[il.Op]convSpec{
	il.ConvI1: {cvI1, cmPlain, sI4}, il.ConvI2: {cvI2, cmPlain, sI4}, il.ConvI4: {cvI4, cmPlain, sI4},
	il.ConvI8: {cvI8, cmPlain, sI8}, il.ConvU1: {cvU1, cmPlain, sI4}, il.ConvU2: {cvU2, cmPlain, sI4},
	il.ConvU4: {cvU4, cmPlain, sI4}, il.ConvU8: {cvU8, cmPlain, sI8}, il.ConvI: {cvI8, cmPlain, sI},
	il.ConvU: {cvU8, cmPlain, sI}, il.ConvR4: {cvR4, cmPlain, sR4}, il.ConvR8: {cvR8, cmPlain, sR8},
	il.ConvRUn: {cvRUn, cmPlain, sR8},

	il.ConvOvfI1: {cvI1, cmOvf, sI4}, il.ConvOvfI2: {cvI2, cmOvf, sI4}, il.ConvOvfI4: {cvI4, cmOvf, sI4},
	il.ConvOvfI8: {cvI8, cmOvf, sI8}, il.ConvOvfU1: {cvU1, cmOvf, sI4}, il.ConvOvfU2: {cvU2, cmOvf, sI4},
	il.ConvOvfU4: {cvU4, cmOvf, sI4}, il.ConvOvfU8: {cvU8, cmOvf, sI8}, il.ConvOvfI: {cvI8, cmOvf, sI},
	il.ConvOvfU: {cvUN, cmOvf, sI},

	il.ConvOvfI1Un: {cvI1, cmOvfUn, sI4}, il.ConvOvfI2Un: {cvI2, cmOvfUn, sI4}, il.ConvOvfI4Un: {cvI4, cmOvfUn, sI4},
	il.ConvOvfI8Un: {cvI8, cmOvfUn, sI8}, il.ConvOvfU1Un: {cvU1, cmOvfUn, sI4}, il.ConvOvfU2Un: {cvU2, cmOvfUn, sI4},
	il.ConvOvfU4Un: {cvU4, cmOvfUn, sI4}, il.ConvOvfU8Un: {cvU8, cmOvfUn, sI8}, il.ConvOvfIUn: {cvI8, cmOvfUn, sI},
	il.ConvOvfUUn: {cvUN, cmOvfUn, sI},
}

// Compare-and-branch families: signed int, float ordered, object,
// unsigned int32, unsigned 64-bit, float unordered.
type brFam struct{ i, f, o, u32, u64, fu opcode }

var branches = map[il.Op]brFam{
	il.Beq:   {i: oBeqI, f: oBeqF, o: oBeqO},
	il.BneUn: {i: oBneI, f: oBneF, o: oBneO, u32: oBneI, u64: oBneI, fu: oBneF},
	il.Bge:   {i: oBgeI, f: oBgeF},
	il.Bgt:   {i: oBgtI, f: oBgtF},
	il.Ble:   {i: oBleI, f: oBleF},
	il.Blt:   {i: oBltI, f: oBltF},
	il.BgeUn: {u32: oBgeU32, u64: oBgeU64, fu: oBgeUnF},
	il.BgtUn: {u32: oBgtU32, u64: oBgtU64, fu: oBgtUnF},
	il.BleUn: {u32: oBleU32, u64: oBleU64, fu: oBleUnF},
	il.BltUn: {u32: oBltU32, u64: oBltU64, fu: oBltUnF},
}

var shortBranch = map[il.Op]il.Op{
	il.BrS: il.Br, il.BrfalseS: il.Brfalse, il.BrtrueS: il.Brtrue, il.BeqS: il.Beq,
	il.BgeS: il.Bge, il.BgtS: il.Bgt, il.BleS: il.Ble, il.BltS: il.Blt, il.BneUnS: il.BneUn,
	il.BgeUnS: il.BgeUn, il.BgtUnS: il.BgtUn, il.BleUnS: il.BleUn, il.BltUnS: il.BltUn,
	il.LeaveS: il.Leave,
}

// ldelemKinds gives the element kind loaded or stored by the typed
// ldelem/stelem forms.
var ldelemKinds = map[il.Op]il.Kind{
	il.LdelemI1: il.KI1, il.LdelemU1: il.KU1, il.LdelemI2: il.KI2, il.LdelemU2: il.KU2,
	il.LdelemI4: il.KI4, il.LdelemU4: il.KU4, il.LdelemI8: il.KI8, il.LdelemI: il.KI,
	il.LdelemR4: il.KR4, il.LdelemR8: il.KR8,
}

var stelemKinds = map[il.Op]il.Kind{
	il.StelemI1: il.KI1, il.StelemI2: il.KI2, il.StelemI4: il.KI4, il.StelemI8: il.KI8,
	il.StelemI: il.KI, il.StelemR4: il.KR4, il.StelemR8: il.KR8,
}

// step computes the stack after instruction i from the stack before it
// and, when emit is set, writes the decoded instruction.
func (d *decoder) step(i int, emit bool) ([]styp, error) {
	in := d.m.Code[i]
	dm := d.dm
	d.stk = append(d.stk[:0], d.states[i]...)
	underflow := false
	d.pops = 0
	pop := func() styp {
		d.pops++
		if len(d.stk) == 0 {
			underflow = true
			return sNone
		}
		t := d.stk[len(d.stk)-1]
		d.stk = d.stk[:len(d.stk)-1]
		return t
	}
	push := func(t styp) {
		d.stk = append(d.stk, t)
		if len(d.stk) > d.max {
			d.max = len(d.stk)
		}
	}
	var e inst
	op := in.Op.Canon()
	if l, ok := shortBranch[op]; ok {
		op = l
	}
	nargs := d.m.NumArgs()
	argIdx := func(fixed int) int {
		if fixed >= 0 {
			return fixed
		}
		return int(in.Int)
	}

	switch op {
	case il.Nop:
		e.op = oNop
	case il.Ldarg0, il.Ldarg1, il.Ldarg2, il.Ldarg3, il.LdargS, il.Ldarg:
		idx := argIdx(map[il.Op]int{il.Ldarg0: 0, il.Ldarg1: 1, il.Ldarg2: 2, il.Ldarg3: 3, il.LdargS: -1, il.Ldarg: -1}[op])
		if idx < 0 || idx >= nargs {
			return nil, d.errf(i, "argument %d out of range", idx)
		}
		push(kindStyp(d.m.ArgType(idx)))
		e = loadVar(idx, d.m.ArgType(idx))
	case il.Ldloc0, il.Ldloc1, il.Ldloc2, il.Ldloc3, il.LdlocS, il.Ldloc:
		idx := argIdx(map[il.Op]int{il.Ldloc0: 0, il.Ldloc1: 1, il.Ldloc2: 2, il.Ldloc3: 3, il.LdlocS: -1, il.Ldloc: -1}[op])
		if idx < 0 || idx >= len(d.m.Locals) {
			return nil, d.errf(i, "local %d out of range", idx)
		}
		push(kindStyp(d.m.Locals[idx].Type))
		e = loadVar(nargs+idx, d.m.Locals[idx].Type)
	case il.StargS, il.Starg:
		idx := int(in.Int)
		if idx < 0 || idx >= nargs {
			return nil, d.errf(i, "argument %d out of range", idx)
		}
		t := pop()
		e = storeVar(idx, d.m.ArgType(idx), t)
	case il.Stloc0, il.Stloc1, il.Stloc2, il.Stloc3, il.StlocS, il.Stloc:
		idx := argIdx(map[il.Op]int{il.Stloc0: 0, il.Stloc1: 1, il.Stloc2: 2, il.Stloc3: 3, il.StlocS: -1, il.Stloc: -1}[op])
		if idx < 0 || idx >= len(d.m.Locals) {
			return nil, d.errf(i, "local %d out of range", idx)
		}
		t := pop()
		e = storeVar(nargs+idx, d.m.Locals[idx].Type, t)
	case il.Ldnull:
		push(sO)
		e.op = oLdnull
	case il.LdcI4M1, il.LdcI40, il.LdcI41, il.LdcI42, il.LdcI43, il.LdcI44, il.LdcI45, il.LdcI46, il.LdcI47, il.LdcI48:
		push(sI4)
		e = inst{op: oLdi, k: int64(op) - int64(il.LdcI40)}
		if op == il.LdcI4M1 {
			e.k = -1
		}
	case il.LdcI4S:
		push(sI4)
		e = inst{op: oLdi, k: int64(int8(in.Int))}
	case il.LdcI4:
		push(sI4)
		e = inst{op: oLdi, k: int64(int32(in.Int))}
	case il.LdcI8:
		push(sI8)
		e = inst{op: oLdi, k: in.Int}
	case il.LdcR4:
		push(sR4)
		e = inst{op: oLdf, k: fbits(r4(in.Float()))}
	case il.LdcR8:
		push(sR8)
		e = inst{op: oLdf, k: fbits(in.Float())}
	case il.Dup:
		t := pop()
		push(t)
		push(t)
		e.op = oDup
		if t == sV {
			e.op = oDupV
		}
	case il.Pop:
		pop()
		e.op = oPop
	case il.Ldstr:
		push(sO)
		e = inst{op: oLdstr, a: int32(d.s.intern(in.Str()))}

	case il.Add, il.Sub, il.Mul, il.Div, il.Rem, il.DivUn, il.RemUn, il.And, il.Or, il.Xor,
		il.AddOvf, il.AddOvfUn, il.SubOvf, il.SubOvfUn, il.MulOvf, il.MulOvfUn:
		b, a := pop(), pop()
		fam := arith[op]
		var res styp
		var o opcode
		switch {
		case a == sI4 && b == sI4:
			res, o = sI4, fam[0]
		case a.isInt() && b.isInt():
			res, o = sI, fam[1]
			if a == sI8 || b == sI8 {
				res = sI8
			}
		case a == sR4 && b == sR4:
			res, o = sR4, fam[3]
		case a.isF() && b.isF():
			res, o = sR8, fam[2]
		}
		if o == 0 {
			return nil, d.errf(i, "bad operand types")
		}
		push(res)
		e.op = o
	case il.Shl, il.Shr, il.ShrUn:
		pop()
		a := pop()
		if !a.isInt() {
			return nil, d.errf(i, "bad operand types")
		}
		push(a)
		fam := map[il.Op][2]opcode{il.Shl: {oShlI4, oShlI8}, il.Shr: {oShrI4, oShrI8}, il.ShrUn: {oShrUnI4, oShrUnI8}}[op]
		e.op = fam[1]
		if a == sI4 {
			e.op = fam[0]
		}
	case il.Neg:
		a := pop()
		push(a)
		switch {
		case a == sI4:
			e.op = oNegI4
		case a.isInt():
			e.op = oNegI8
		case a.isF():
			e.op = oNegF
		default:
			return nil, d.errf(i, "bad operand type")
		}
	case il.Not:
		a := pop()
		if !a.isInt() {
			return nil, d.errf(i, "bad operand type")
		}
		push(a)
		e.op = oNot
	case il.ConvI1, il.ConvI2, il.ConvI4, il.ConvI8, il.ConvU1, il.ConvU2, il.ConvU4, il.ConvU8,
		il.ConvI, il.ConvU, il.ConvR4, il.ConvR8, il.ConvRUn,
		il.ConvOvfI1, il.ConvOvfI2, il.ConvOvfI4, il.ConvOvfI8, il.ConvOvfU1, il.ConvOvfU2,
		il.ConvOvfU4, il.ConvOvfU8, il.ConvOvfI, il.ConvOvfU,
		il.ConvOvfI1Un, il.ConvOvfI2Un, il.ConvOvfI4Un, il.ConvOvfI8Un, il.ConvOvfU1Un,
		il.ConvOvfU2Un, il.ConvOvfU4Un, il.ConvOvfU8Un, il.ConvOvfIUn, il.ConvOvfUUn:
		a := pop()
		if !a.isInt() && !a.isF() {
			return nil, d.errf(i, "bad operand type")
		}
		cv := convs[op]
		push(cv.res)
		e = inst{op: oConv, a: int32(cv.target), b: int32(cv.mode), n: uint8(a)}
	case il.Ckfinite:
		a := pop()
		if !a.isF() {
			return nil, d.errf(i, "bad operand type")
		}
		push(a)
		e.op = oCkfinite

	case il.Ceq, il.Cgt, il.CgtUn, il.Clt, il.CltUn:
		b, a := pop(), pop()
		push(sI4)
		var o opcode
		switch {
		case a.isInt() && b.isInt():
			u32 := a == sI4 && b == sI4
			switch op {
			case il.Ceq:
				o = oCeqI
			case il.Cgt:
				o = oCgtI
			case il.Clt:
				o = oCltI
			case il.CgtUn:
				o = oCgtU64
				if u32 {
					o = oCgtU32
				}
			case il.CltUn:
				o = oCltU64
				if u32 {
					o = oCltU32
				}
			}
		case a.isF() && b.isF():
			o = map[il.Op]opcode{il.Ceq: oCeqF, il.Cgt: oCgtF, il.Clt: oCltF, il.CgtUn: oCgtUnF, il.CltUn: oCltUnF}[op]
		case a == sO && b == sO:
			o = map[il.Op]opcode{il.Ceq: oCeqO, il.CgtUn: oCgtUnO, il.CltUn: oCltUnO}[op]
		}
		if o == 0 {
			return nil, d.errf(i, "bad operand types")
		}
		e.op = o

	case il.Br:
		e = inst{op: oBr, a: int32(in.Target())}
	case il.Brtrue, il.Brfalse:
		a := pop()
		switch {
		case a.isInt():
			e.op = oBrtrueI
			if op == il.Brfalse {
				e.op = oBrfalseI
			}
		case a == sO:
			e.op = oBrtrueO
			if op == il.Brfalse {
				e.op = oBrfalseO
			}
		default:
			return nil, d.errf(i, "bad operand type")
		}
		e.a = int32(in.Target())
	case il.Beq, il.BneUn, il.Bge, il.Bgt, il.Ble, il.Blt, il.BgeUn, il.BgtUn, il.BleUn, il.BltUn:
		b, a := pop(), pop()
		fam := branches[op]
		var o opcode
		unsigned := op == il.BgeUn || op == il.BgtUn || op == il.BleUn || op == il.BltUn
		switch {
		case a.isInt() && b.isInt():
			switch {
			case !unsigned:
				o = fam.i
			case a == sI4 && b == sI4:
				o = fam.u32
			default:
				o = fam.u64
			}
		case a.isF() && b.isF():
			o = fam.f
			if unsigned {
				o = fam.fu
			}
		case a == sO && b == sO:
			o = fam.o
		}
		if o == 0 {
			return nil, d.errf(i, "bad operand types")
		}
		e = inst{op: o, a: int32(in.Target())}
	case il.Switch:
		a := pop()
		if !a.isInt() {
			return nil, d.errf(i, "bad operand type")
		}
		e = inst{op: oSwitch, a: int32(len(dm.switches))}
		if emit {
			ts := make([]int32, len(in.Targets()))
			for k, t := range in.Targets() {
				ts[k] = int32(t)
			}
			dm.switches = append(dm.switches, ts)
		}

	case il.Call, il.Callvirt, il.Newobj:
		if in.Method() == nil || in.Method().Method == nil {
			return nil, d.errf(i, "unresolved method")
		}
		callee := in.Method().Method
		if op == il.Newobj && callee.NewobjCall != nil {
			// A string's constructor: a static call that returns the string.
			callee, op = callee.NewobjCall, il.Call
		}
		cdm := d.s.method(callee)
		np := len(callee.Params)
		types := make([]styp, np)
		for k := np - 1; k >= 0; k-- {
			types[k] = pop()
		}
		off := 0
		if !callee.Static && op != il.Newobj {
			pop()
			off = 1
		}
		var norms []argNorm
		for k, p := range callee.Params {
			if nk := normFor(p.Type.Kind, types[k]); nk != il.KVoid {
				norms = append(norms, argNorm{off: k + off, k: nk})
			}
		}
		e = inst{a: int32(cdm.idx), b: -1}
		if norms != nil && emit {
			e.b = int32(len(dm.argNorms))
			dm.argNorms = append(dm.argNorms, norms)
		}
		switch {
		case op == il.Newobj:
			if callee.Static || callee.Name != ".ctor" {
				return nil, d.errf(i, "newobj needs an instance constructor")
			}
			e.op = oNewobj // inserts this below the arguments: frameSize has room
			if callee.Owner.ValueType {
				e.op = oNewobjV
				push(sV)
			} else {
				push(sO)
			}
		case op == il.Callvirt && in.Constrained() != nil:
			k := in.Constrained()
			e.op, e.k = oConstrained, int64(d.s.typeIndex(k.Type))
			switch {
			case k.Type.IsRef():
				e.n = consRef
			case k.Direct != nil:
				// The value type's own method, on the pointer.
				e = inst{op: oCall, a: int32(d.s.method(k.Direct).idx), b: e.b}
			case k.Type.Kind == il.KValue:
				e.n = consBoxV
			default:
				e.n = consBoxP
			}
		case op == il.Callvirt && callee.Virtual:
			e.op = oCallvirt
		case op == il.Callvirt && !callee.Static:
			e.op = oCallnv
		default:
			e.op = oCall
		}
		if op != il.Newobj && callee.Ret.Kind != il.KVoid {
			push(kindStyp(callee.Ret))
		}
	case il.Ret:
		if d.m.Ret.Kind != il.KVoid {
			t := pop()
			e = inst{op: oRetV, n: uint8(normFor(d.m.Ret.Kind, t))}
		} else {
			e.op = oRet
		}
		if len(d.stk) != 0 && !underflow {
			return nil, d.errf(i, "stack not empty at ret")
		}

	case il.Ldfld, il.Ldsfld, il.Stfld, il.Stsfld:
		if in.Field() == nil || in.Field().Field == nil {
			return nil, d.errf(i, "unresolved field")
		}
		f := in.Field().Field
		vt := f.Type.Kind == il.KValue
		var ti int32
		if vt {
			ti = int32(d.s.typeIndex(f.Type))
		}
		switch op {
		case il.Ldfld:
			obj := pop()
			switch {
			case f.Static:
				return nil, d.errf(i, "ldfld of a static field")
			case obj == sO:
				e = inst{op: oLdfld, a: int32(f.Slot)}
				if vt {
					e = inst{op: oLdfldOV, a: int32(f.Slot), b: ti}
				}
			case obj == sP:
				e = inst{op: oLdfldP, a: int32(f.Slot), n: uint8(f.Type.Kind)}
				if vt {
					e = inst{op: oLdfldPV, a: int32(f.Slot), b: ti}
				}
			case obj == sV:
				e = inst{op: oLdfldV, a: int32(f.Slot)}
				if vt {
					e = inst{op: oLdfldVV, a: int32(f.Slot), b: ti}
				}
			default:
				return nil, d.errf(i, "bad operand type")
			}
			push(kindStyp(f.Type))
		case il.Ldsfld:
			e = inst{op: oLdsfld, a: int32(f.Slot)}
			if vt {
				e = inst{op: oLdsfldV, a: int32(f.Slot), b: ti}
			}
			push(kindStyp(f.Type))
		case il.Stfld:
			t := pop()
			obj := pop()
			switch {
			case f.Static:
				return nil, d.errf(i, "stfld of a static field")
			case obj == sO:
				e = inst{op: oStfld, a: int32(f.Slot), n: uint8(normFor(f.Type.Kind, t))}
				if vt {
					e = inst{op: oStfldOV, a: int32(f.Slot), b: ti}
				}
			case obj == sP:
				e = inst{op: oStfldP, a: int32(f.Slot), n: uint8(f.Type.Kind)}
				if vt {
					e = inst{op: oStfldPV, a: int32(f.Slot), b: ti}
				}
			default:
				return nil, d.errf(i, "bad operand type")
			}
		case il.Stsfld:
			t := pop()
			e = inst{op: oStsfld, a: int32(f.Slot), n: uint8(normFor(f.Type.Kind, t))}
			if vt {
				e = inst{op: oStsfldV, a: int32(f.Slot), b: ti}
			}
		}
	case il.Ldflda, il.Ldsflda:
		if in.Field() == nil || in.Field().Field == nil {
			return nil, d.errf(i, "unresolved field")
		}
		f := in.Field().Field
		k := uint8(f.Type.Kind)
		if op == il.Ldsflda {
			e = inst{op: oLdsflda, a: int32(f.Slot), n: k}
		} else {
			switch obj := pop(); {
			case f.Static:
				return nil, d.errf(i, "ldflda of a static field")
			case obj == sO:
				e = inst{op: oLdfldaO, a: int32(f.Slot), n: k}
			case obj == sP:
				e = inst{op: oLdfldaP, a: int32(f.Slot), n: k}
			default:
				return nil, d.errf(i, "bad operand type")
			}
		}
		push(sP)
	case il.LdargaS, il.Ldarga, il.LdlocaS, il.Ldloca:
		idx, t := int(in.Int), (*il.Type)(nil)
		if op == il.LdargaS || op == il.Ldarga {
			if idx < 0 || idx >= nargs {
				return nil, d.errf(i, "argument %d out of range", idx)
			}
			t = d.m.ArgType(idx)
		} else {
			if idx < 0 || idx >= len(d.m.Locals) {
				return nil, d.errf(i, "local %d out of range", idx)
			}
			t = d.m.Locals[idx].Type
			idx += nargs
		}
		e = inst{op: oLdva, a: int32(idx), n: uint8(t.Kind)}
		if t.Kind == il.KValue {
			e.op = oLdvaV
		}
		push(sP)
	case il.LdindI1, il.LdindU1, il.LdindI2, il.LdindU2, il.LdindI4, il.LdindU4, il.LdindI8,
		il.LdindI, il.LdindR4, il.LdindR8, il.LdindRef:
		if pop() != sP {
			return nil, d.errf(i, "bad operand type")
		}
		if op == il.LdindRef {
			e.op = oLdindRef
			push(sO)
		} else {
			k := ldindKinds[op]
			e = inst{op: oLdind, n: uint8(k)}
			push(kindStyp(il.PrimitiveType(k)))
		}
	case il.StindI1, il.StindI2, il.StindI4, il.StindI8, il.StindI, il.StindR4, il.StindR8, il.StindRef:
		pop()
		if pop() != sP {
			return nil, d.errf(i, "bad operand type")
		}
		e.op = oStind
	case il.Ldobj, il.Stobj, il.Cpobj, il.Initobj:
		t := canonType(in.Type())
		if op == il.Stobj || op == il.Cpobj {
			pop()
		}
		if pop() != sP {
			return nil, d.errf(i, "bad operand type")
		}
		vt := t.Kind == il.KValue
		switch {
		case op == il.Ldobj && vt:
			e = inst{op: oLdobjV, a: int32(d.s.typeIndex(t))}
		case op == il.Ldobj && t.IsRef():
			e.op = oLdindRef
		case op == il.Ldobj:
			e = inst{op: oLdind, n: uint8(t.Kind)}
		case op == il.Stobj && vt:
			e = inst{op: oStobjV, a: int32(t.Words())}
		case op == il.Stobj:
			e.op = oStind
		case op == il.Cpobj:
			e = inst{op: oCpobj, a: int32(t.Words()), n: uint8(b2i(vt))}
		default:
			e = inst{op: oInitobj, a: int32(t.Words()), n: uint8(b2i(vt))}
		}
		if op == il.Ldobj {
			push(kindStyp(t))
		}
	case il.Sizeof:
		push(sI4)
		e = inst{op: oLdi, k: int64(sizeOf(canonType(in.Type())))}
	case il.Unbox:
		pop()
		push(sP)
		e = inst{op: oUnboxP, a: int32(d.s.typeIndex(in.Type()))}
	case il.Ldelema:
		pop()
		pop()
		push(sP)
		e = inst{op: oLdelema, a: int32(d.s.typeIndex(in.Type()))}

	case il.Isinst, il.Castclass:
		pop()
		push(sO)
		e = inst{op: oIsinst, a: int32(d.s.typeIndex(in.Type()))}
		if op == il.Castclass {
			e.op = oCastclass
		}
	case il.Box:
		pop()
		push(sO)
		t := canonType(in.Type())
		switch {
		case t.IsRef():
			e.op = oNop
		case t.Kind == il.KValue:
			e = inst{op: oBoxV, a: int32(d.s.typeIndex(t))}
		default:
			e = inst{op: oBox, n: uint8(t.Kind)}
		}
	case il.UnboxAny:
		pop()
		t := canonType(in.Type())
		switch {
		case t.IsRef():
			push(sO)
			e = inst{op: oCastclass, a: int32(d.s.typeIndex(t))}
		case t.Kind == il.KValue:
			push(sV)
			e = inst{op: oUnboxV, a: int32(d.s.typeIndex(t))}
		default:
			push(kindStyp(t))
			e = inst{op: oUnbox, a: int32(d.s.typeIndex(t))}
		}
	case il.Newarr:
		pop()
		push(sO)
		e = inst{op: oNewarr, a: int32(d.s.typeIndex(in.Type()))}
	case il.Ldlen:
		pop()
		push(sI)
		e.op = oLdlen
	case il.LdelemI1, il.LdelemU1, il.LdelemI2, il.LdelemU2, il.LdelemI4, il.LdelemU4, il.LdelemI8,
		il.LdelemI, il.LdelemR4, il.LdelemR8, il.LdelemRef, il.Ldelem:
		pop()
		pop()
		k := il.KObject
		if op == il.Ldelem {
			k = canonType(in.Type()).Kind
		} else if op != il.LdelemRef {
			k = ldelemKinds[op]
		}
		t := il.PrimitiveType(k)
		if k == il.KValue {
			push(sV)
			e = inst{op: oLdelemV, a: int32(d.s.typeIndex(in.Type()))}
		} else if t == nil || t.IsRef() {
			push(sO)
			e.op = oLdelemRef
		} else {
			push(kindStyp(t))
			e = inst{op: oLdelem, n: uint8(k)}
		}
	case il.StelemI, il.StelemI1, il.StelemI2, il.StelemI4, il.StelemI8, il.StelemR4, il.StelemR8,
		il.StelemRef, il.Stelem:
		pop()
		pop()
		pop()
		k := il.KObject
		if op == il.Stelem {
			k = canonType(in.Type()).Kind
		} else if op != il.StelemRef {
			k = stelemKinds[op]
		}
		if k == il.KValue {
			e.op = oStelemV
		} else if t := il.PrimitiveType(k); t == nil || t.IsRef() {
			e.op = oStelemRef
		} else {
			e = inst{op: oStelem, n: uint8(k)}
		}

	case il.Throw:
		pop()
		e.op = oThrow
	case il.Rethrow:
		e = inst{op: oRethrow, a: -1}
		if d.handlers == nil {
			d.handlers = nest(len(dm.code), len(dm.eh), func(k int) (int, int) { return dm.eh[k].hStart, dm.eh[k].hEnd })
		}
		for ci := d.handlers.first[i]; ci >= 0; ci = d.handlers.next[ci] {
			if c := dm.eh[ci]; c.kind == il.EHCatch || c.kind == il.EHFilter {
				e.a = ci
				break
			}
		}
		if e.a < 0 {
			return nil, d.errf(i, "rethrow outside a catch handler")
		}
	case il.Leave:
		d.stk = d.stk[:0]
		e = inst{op: oLeave, a: int32(len(dm.leaves))}
		if emit {
			li := leaveInfo{from: i, target: in.Target()}
			if d.tries == nil {
				d.tries = nest(len(dm.code), len(dm.eh), func(k int) (int, int) { return dm.eh[k].tryStart, dm.eh[k].tryEnd })
			}
			// The trys covering the leave, inner first, up to the first
			// that covers the target too (the ones around it do as well).
			for ci := d.tries.first[i]; ci >= 0 && !dm.eh[ci].covers(li.target); ci = d.tries.next[ci] {
				if dm.eh[ci].kind == il.EHFinally {
					li.finallys = append(li.finallys, int(ci))
				}
			}
			dm.leaves = append(dm.leaves, li)
		}
	case il.Endfinally:
		d.stk = d.stk[:0]
		e.op = oEndfinally
	case il.Endfilter:
		pop()
		e.op = oEndfilter
	default:
		return nil, d.errf(i, "instruction not supported by the interpreter")
	}
	if underflow {
		return nil, d.errf(i, "stack underflow")
	}
	if emit {
		dm.code[i] = e
	}
	return d.stk, nil
}

// loadVar is ldarg or ldloc of variable idx of type t.
func loadVar(idx int, t *il.Type) inst {
	if t.Kind == il.KValue {
		return inst{op: oLdvV, a: int32(idx)}
	}
	return inst{op: oLdv, a: int32(idx)}
}

// storeVar is starg or stloc of a src-typed value into variable idx of
// type t.
func storeVar(idx int, t *il.Type, src styp) inst {
	if t.Kind == il.KValue {
		return inst{op: oStvV, a: int32(idx)}
	}
	k := normFor(t.Kind, src)
	if k == il.KVoid {
		return inst{op: oStv, a: int32(idx)}
	}
	return inst{op: oStvN, a: int32(idx), n: uint8(k)}
}

// ldindKinds gives the kind of location the typed ldind forms read.
var ldindKinds = map[il.Op]il.Kind{
	il.LdindI1: il.KI1, il.LdindU1: il.KU1, il.LdindI2: il.KI2, il.LdindU2: il.KU2,
	il.LdindI4: il.KI4, il.LdindU4: il.KU4, il.LdindI8: il.KI8, il.LdindI: il.KI,
	il.LdindR4: il.KR4, il.LdindR8: il.KR8,
}

// sizeOf is what sizeof pushes for type t: CoreCLR's size of a value
// type, the natural size of a primitive, 8 for a reference.
func sizeOf(t *il.Type) int {
	if t.Kind == il.KValue {
		return t.Class.Size
	}
	return il.ElemSize(t)
}
