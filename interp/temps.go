package interp

import "miniil/il"

// The JIT's temporaries of value types. The JIT keeps a value of a value
// type that is on the evaluation stack in a frame block of its own, one
// per place its reader makes one (reader/value.go): each instruction
// that produces a value (ldfld of a value-type field of an object, ldelem,
// ldobj, ldsfld, unbox.any, newobj of a value type, a call returning one,
// dup of one that is no view, ldloc of an exposed variable not read at
// once), and each copy of a view of a variable (a load of a value-type
// variable pushes its own block, copied when it is passed to a call, when
// the variable is stored to while the view is on the stack, and when it
// crosses into the next basic block). Frame blocks are untracked: the
// collector counts what they hold at every safepoint of the method, so a
// temporary keeps the last value copied into it until the frame returns,
// and so does the interpreter: frame.tbase holds one slot per such block
// (planTemps numbers them), which the instructions that fill the block
// set to the value they copy (keepTemp, and oTemps for the copies of
// views, made before the instruction that needs them runs).

// tempRec says that before an instruction runs, the value at a depth of
// its frame's evaluation stack (a view) is copied into temporary site.
type tempRec struct{ site, depth int32 }

// planTemps numbers the temporaries of dm, whose stack types the decoder
// d inferred, and marks the instructions that fill them:
// dm.resultTemp for the value an instruction pushes, oTemps wrappers for
// the views copied before one runs.
func (s *state) planTemps(dm *dmethod, d *decoder) {
	m := dm.il
	n := len(m.Code)
	hasValue := false
	for _, st := range d.states {
		for _, t := range st {
			hasValue = hasValue || t == sV
		}
	}
	for i := 0; i < n && !hasValue; i++ {
		if d.states[i] != nil && pushesValue(m, m.Code[i]) {
			hasValue = true
		}
	}
	if !hasValue {
		return
	}
	nargs := dm.nargs
	exposed := make([]bool, dm.nvars)
	for _, in := range m.Code {
		switch in.Op.Canon() {
		case il.LdargaS, il.Ldarga:
			exposed[in.Int] = true
		case il.LdlocaS, il.Ldloca:
			exposed[nargs+int(in.Int)] = true
		}
	}
	leader := leaders(m, dm.eh)
	varType := func(v int) *il.Type {
		if v < nargs {
			return m.ArgType(v)
		}
		return m.Locals[v-nargs].Type
	}
	// consumedNext is the reader's: the next instruction, in the same
	// block, reads the value at once.
	consumedNext := func(i int) bool {
		if i+1 >= n || leader[i+1] {
			return false
		}
		switch m.Code[i+1].Op.Canon() {
		case il.Ldfld, il.Ret, il.Stloc0, il.Stloc1, il.Stloc2, il.Stloc3, il.StlocS, il.Stloc, il.StargS, il.Starg:
			return true
		}
		return false
	}
	result := make([]int32, n)
	pre := make([][]tempRec, n)
	sites := int32(0)
	site := func() int32 {
		sites++
		return sites - 1
	}
	// The stack: per entry, the variable it is a view of (-1: none).
	var stk []int32
	for i, in := range m.Code {
		result[i] = -1
		st := d.states[i]
		if st == nil {
			continue
		}
		depth := len(st)
		if leader[i] {
			stk = stk[:0] // no view crosses a block boundary
		}
		for len(stk) < depth {
			stk = append(stk, -1)
		}
		stk = stk[:depth]
		out, err := d.step(i, false)
		if err != nil {
			return // cannot happen: the method decoded
		}
		pops := d.pops
		op := in.Op.Canon()
		if sb, ok := shortBranch[op]; ok {
			op = sb
		}
		if op == il.Dup {
			pops = 0 // the entry stays, a second one is pushed
		}
		produced := int32(-1) // what i pushes: a view of a variable, or -1
		fresh := false        // i copies the value it pushes into a temporary
		switch op {
		case il.Ldarg0, il.Ldarg1, il.Ldarg2, il.Ldarg3, il.LdargS, il.Ldarg,
			il.Ldloc0, il.Ldloc1, il.Ldloc2, il.Ldloc3, il.LdlocS, il.Ldloc:
			v := varIndex(op, in)
			if op == il.Ldloc0 || op == il.Ldloc1 || op == il.Ldloc2 || op == il.Ldloc3 || op == il.LdlocS || op == il.Ldloc {
				v += nargs
			}
			if varType(v).Kind == il.KValue {
				if exposed[v] && !consumedNext(i) {
					fresh = true
				} else {
					produced = int32(v)
				}
			}
		case il.StargS, il.Starg, il.Stloc0, il.Stloc1, il.Stloc2, il.Stloc3, il.StlocS, il.Stloc:
			v := varIndex(op, in)
			if op != il.StargS && op != il.Starg {
				v += nargs
			}
			if varType(v).Kind == il.KValue {
				for k := range depth - 1 {
					if stk[k] == int32(v) {
						pre[i] = append(pre[i], tempRec{site(), int32(k)})
						stk[k] = -1
					}
				}
			}
		case il.Dup:
			if st[depth-1] == sV {
				if w := stk[depth-1]; w >= 0 {
					produced = w
				} else {
					fresh = true
				}
			}
		case il.Ldfld:
			if f := in.Field().Field; f != nil && f.Type.Kind == il.KValue {
				if st[depth-1] != sV {
					fresh = true // from an object or through a pointer
				} else if w := stk[depth-1]; w >= 0 {
					if exposed[w] {
						fresh = true
					} else {
						produced = w
					}
				}
			}
		case il.Call, il.Callvirt, il.Newobj:
			callee := in.Method().Method
			if op == il.Newobj && callee.NewobjCall != nil {
				callee = callee.NewobjCall
			}
			np := len(callee.Params)
			for k, p := range callee.Params {
				if d := depth - np + k; p.Type.Kind == il.KValue && stk[d] >= 0 {
					pre[i] = append(pre[i], tempRec{site(), int32(d)})
					stk[d] = -1
				}
			}
			fresh = callee.Ret.Kind == il.KValue || op == il.Newobj && callee.Owner.ValueType && callee.NewobjCall == nil
		default:
			fresh = pushesValue(m, in)
		}
		stk = stk[:depth-pops]
		for len(stk) < len(out) {
			stk = append(stk, -1)
		}
		if len(out) > depth-pops {
			stk[len(out)-1] = produced
		}
		if fresh {
			result[i] = site()
		}
		// A block's end copies the views left on the stack.
		if in.Op.IsBranch() && op != il.Leave || i+1 < n && leader[i+1] && !endsBlock(in.Op) {
			for k, w := range stk {
				if w < 0 {
					continue
				}
				if k >= depth-pops {
					result[i] = site() // pushed by i
				} else {
					pre[i] = append(pre[i], tempRec{site(), int32(k)})
				}
			}
		}
	}
	if sites == 0 {
		return
	}
	dm.ntemps = int(sites)
	dm.resultTemp = result
	for i, recs := range pre {
		if len(recs) > 0 {
			dm.tempRecs = append(dm.tempRecs, recs)
			dm.tempOrig = append(dm.tempOrig, dm.code[i])
			dm.code[i] = inst{op: oTemps, a: int32(len(dm.tempRecs) - 1)}
		}
	}
}

// pushesValue reports whether in pushes a new value of a value type (a
// copy) that is no load of a variable, a field or a call.
func pushesValue(m *il.Method, in *il.Instr) bool {
	switch in.Op.Canon() {
	case il.Ldsfld:
		f := in.Field().Field
		return f != nil && f.Type.Kind == il.KValue
	case il.Ldobj, il.UnboxAny, il.Ldelem:
		return canonType(in.Type()).Kind == il.KValue
	case il.Newobj:
		c := in.Method().Method
		return c != nil && c.Owner != nil && c.Owner.ValueType && c.NewobjCall == nil
	case il.Call, il.Callvirt:
		c := in.Method().Method
		return c != nil && c.Ret.Kind == il.KValue
	}
	return false
}

// keepTemp records v, the value the instruction at pc of fr pushed, in
// the temporary the JIT copies it into, if any.
func (s *state) keepTemp(fr *frame, m *dmethod, pc int, v value) {
	if t := m.resultTemp; t != nil {
		if k := t[pc]; k >= 0 {
			s.keep(fr.tbase+int(k), v)
		}
	}
}

// keep stores v, a value of a value type, in the temporary at vals[at].
func (s *state) keep(at int, v value) {
	if sv, ok := v.r.(*svalue); ok {
		sv.kept = true
	}
	s.vals[at] = v
}

// leaders marks the instructions that start a basic block of the JIT's
// reader: the first, the bounds of every clause's regions, branch
// targets, and those after a branch or an instruction that ends a block.
func leaders(m *il.Method, eh []clause) []bool {
	n := len(m.Code)
	leader := make([]bool, n+1)
	leader[0] = true
	for _, c := range eh {
		leader[c.tryStart], leader[c.tryEnd], leader[c.hStart], leader[c.hEnd] = true, true, true, true
		if c.kind == il.EHFilter {
			leader[c.fStart] = true
		}
	}
	for i, in := range m.Code {
		for _, t := range in.Targets() {
			leader[t] = true
		}
		if in.Op.IsBranch() || endsBlock(in.Op) {
			leader[i+1] = true
		}
	}
	return leader
}
