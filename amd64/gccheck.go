package amd64

import (
	"fmt"

	"miniil/abi"
	"miniil/funclet"
	"miniil/ir"
)

// CheckGC verifies the GC information of f's code (after emission) and
// returns the first violation it finds:
//
//   - there is one safepoint per call and exit site (Code.Sites) and one
//     per call of the cold section, sorted by offset, each in its
//     funclet's code (or the cold section);
//   - a frame slot listed is the slot of a value of a GC kind, or a
//     reference word of a frame block, with its kind (a Ptr value's slot
//     is an interior pointer, anything else a reference); a prolog's
//     are the incoming stack arguments of GC kinds instead;
//   - a register listed is the home of a value of a GC kind with its
//     kind (or RAX, at a poll only); at a managed call only callee-saved
//     registers (RBX, R12-R14); at a prolog, an argument register of a
//     GC argument, or RSI at a catch or filter funclet's;
//   - untracked locations are frame slots of the same kinds, and the
//     callee-saved registers' slots are those the prolog stores;
//   - every tracked value listed at a safepoint is defined on every path
//     from its funclet's entry to the safepoint (a forward must-analysis
//     per funclet, over the values listed; skipped for a funclet where
//     it would take more than 2^24 bits): a value that is live there but
//     may be undefined would make the frame report garbage.
func CheckGC(f *ir.Func, lay *funclet.Layout, alloc *Alloc, code *Code) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: GC information: %s", f.Method.FullName(), fmt.Sprintf(format, args...))
	}
	gi := &code.GC
	kindOf := map[abi.GCLoc]bool{} // frame slot -> interior, for the GC slots
	for v, off := range code.Slots {
		if off != 0 && f.Kinds[v].IsGC() {
			kindOf[abi.FrameLoc(off, false)] = f.Kinds[v] == ir.Ptr
		}
	}
	for i := range f.Slots {
		for _, w := range f.SlotRefWords(i) {
			kindOf[abi.FrameLoc(code.Blocks[i]+8*w, false)] = false
		}
	}
	regKind := map[int]map[bool]bool{} // register -> the kinds of GC values it is the home of
	for v, r := range code.Homes {
		if r != NoReg && f.Kinds[v].IsGC() {
			n, ok := gcRegNumber(r)
			if !ok {
				return bad("%s lives in %s", ir.Value(v), r)
			}
			if regKind[n] == nil {
				regKind[n] = map[bool]bool{}
			}
			regKind[n][f.Kinds[v] == ir.Ptr] = true
		}
	}
	slotOK := func(l abi.GCLoc) bool {
		interior, ok := kindOf[abi.FrameLoc(l.Offset(), false)]
		return ok && interior == l.Interior()
	}
	// Sites and safepoints.
	sites := map[int32]bool{}
	for _, s := range code.Sites {
		sites[int32(s.Offset)] = true
	}
	hot := 0
	for i := range gi.Safepoints {
		s := &gi.Safepoints[i]
		if i > 0 && gi.Safepoints[i-1].Offset >= s.Offset {
			return bad("safepoints at %#x and %#x out of order", gi.Safepoints[i-1].Offset, s.Offset)
		}
		if s.Funclet < 0 || int(s.Funclet) >= len(code.Funclets) {
			return bad("safepoint %#x in funclet %d of %d", s.Offset, s.Funclet, len(code.Funclets))
		}
		fc := code.Funclets[s.Funclet]
		switch off := int(s.Offset); {
		case sites[s.Offset]:
			hot++
			if off <= fc.Start || off > fc.End {
				return bad("safepoint %#x outside its funclet #%d [%#x, %#x)", off, s.Funclet, fc.Start, fc.End)
			}
		case off <= code.ColdStart || off > len(code.Code):
			return bad("safepoint %#x is no call site and not in the cold section", off)
		}
		if int(s.Live+s.NLive) > len(gi.Locs) {
			return bad("safepoint %#x lists locations beyond the pool", s.Offset)
		}
		prolog := s.Flags&abi.SPProlog != 0
		var args map[abi.GCLoc]bool
		if prolog {
			args = map[abi.GCLoc]bool{}
			if s.Funclet == 0 {
				locs, _ := classify(f.Cache, f.Kinds[:f.NumArgs])
				for v, l := range locs {
					if k := f.Kinds[v]; k.IsGC() && l.stack >= 0 {
						args[abi.FrameLoc(16+8*l.stack, k == ir.Ptr)] = true
					} else if k.IsGC() {
						args[abi.RegLoc(gcReg(l.reg), k == ir.Ptr)] = true
					}
				}
			} else if fc.Kind == abi.CatchFunclet || fc.Kind == abi.FilterFunclet || fc.Kind == abi.FilterHandlerFunclet {
				args[abi.RegLoc(abi.RegRSI, false)] = true
			}
		}
		for _, l := range gi.LiveAt(s) {
			switch {
			case prolog && !args[l]:
				return bad("prolog safepoint %#x lists %s, which is no GC argument", s.Offset, l)
			case prolog:
			case l.IsReg() && s.Flags&abi.SPCall != 0 && !calleeSavedNumber(l.Reg()):
				return bad("call at %#x lists %s, which the callee may change", s.Offset, l)
			case l.IsReg() && l.Reg() == abi.RegRAX:
				if sites[s.Offset] {
					return bad("safepoint %#x lists rax, which only a poll may", s.Offset)
				}
			case l.IsReg() && !regKind[l.Reg()][l.Interior()]:
				return bad("safepoint %#x lists %s, which is no home of a value of that kind", s.Offset, l)
			case !l.IsReg() && !slotOK(l):
				return bad("safepoint %#x lists %s, which is no slot of a value of that kind", s.Offset, l)
			}
		}
	}
	if hot != len(code.Sites) {
		return bad("%d call and exit sites, %d safepoints at them", len(code.Sites), hot)
	}
	for _, l := range gi.Untracked {
		if l.IsReg() || !slotOK(l) {
			return bad("untracked %s is no slot of a value or a frame block of that kind", l)
		}
	}
	if len(gi.Saves) != len(code.Saves) {
		return bad("%d callee-saved registers, %d stored by the prolog", len(gi.Saves), len(code.Saves))
	}
	for i, sv := range code.Saves {
		if gi.Saves[i] != (abi.CalleeSave{Reg: gcReg(sv.Reg), Offset: sv.Offset}) {
			return bad("callee-saved %v, the prolog stores %s at rbp%+d", gi.Saves[i], sv.Reg, sv.Offset)
		}
	}
	return checkDefined(f, lay, alloc.plan, alloc.gc, bad)
}

// calleeSavedNumber reports whether register number n (abi) is one a
// managed call preserves.
func calleeSavedNumber(n int) bool {
	return n == abi.RegRBX || n == abi.RegR12 || n == abi.RegR13 || n == abi.RegR14
}

// maxDefinedBits bounds the must-analysis of one funclet (blocks times
// values).
const maxDefinedBits = 1 << 24

// checkDefined checks that every tracked value listed at a safepoint is
// defined on every path from its funclet's entry (arguments and locals,
// which the prolog writes, are defined at the main body's entry; at a
// funclet's entry nothing is; a block reached from outside its funclet,
// a catch's continuation, starts with nothing either).
func checkDefined(f *ir.Func, lay *funclet.Layout, p *plan, gc *gcPlan, bad func(string, ...any) error) error {
	for k, fn := range lay.Funcs {
		inFunc := map[*ir.Block]int{}
		for i, b := range fn.Blocks {
			inFunc[b] = i
		}
		// The values listed at the funclet's safepoints, numbered.
		index := map[ir.Value]int{}
		var listed []ir.Value
		note := func(vs []ir.Value) {
			for _, v := range vs {
				if _, ok := index[v]; !ok {
					index[v] = len(listed)
					listed = append(listed, v)
				}
			}
		}
		after := make([][]vlist, len(fn.Blocks))
		poll := make([]vlist, len(fn.Blocks))
		for i, b := range fn.Blocks {
			after[i], poll[i] = gc.blockSafepoints(b, nil)
			for _, l := range after[i] {
				note(gc.list(l))
			}
			note(gc.list(poll[i]))
		}
		n := len(listed)
		if n == 0 || n*len(fn.Blocks) > maxDefinedBits {
			continue
		}
		words := (n + 63) / 64
		newSet := func(full bool) []uint64 {
			s := make([]uint64, words)
			if full {
				for i := range s {
					s[i] = ^uint64(0)
				}
			}
			return s
		}
		add := func(s []uint64, v ir.Value) {
			if i, ok := index[v]; ok {
				s[i/64] |= 1 << (i % 64)
			}
		}
		has := func(s []uint64, v ir.Value) bool { i := index[v]; return s[i/64]&(1<<(i%64)) != 0 }
		entry := newSet(false)
		if k == 0 {
			for v := range f.NumArgs + f.NumLocals {
				add(entry, ir.Value(v))
			}
		}
		out := make([][]uint64, len(fn.Blocks))
		for i := range out {
			out[i] = newSet(true)
		}
		in := make([][]uint64, len(fn.Blocks))
		defsOf := func(b *ir.Block, s []uint64) {
			for _, x := range b.Instrs {
				add(s, x.Dst)
				add(s, x.Dst2)
			}
		}
		for changed := true; changed; {
			changed = false
			for i, b := range fn.Blocks {
				s := newSet(true)
				switch {
				case i == 0:
					copy(s, entry)
				case len(b.Preds) == 0:
					s = newSet(false)
				}
				for _, pr := range b.Preds {
					j, ok := inFunc[pr]
					for w := range s {
						if ok {
							s[w] &= out[j][w]
						} else {
							s[w] = 0
						}
					}
				}
				in[i] = s
				o := append([]uint64(nil), s...)
				defsOf(b, o)
				for w := range o {
					if o[w] != out[i][w] {
						changed = true
					}
				}
				out[i] = o
			}
		}
		for i, b := range fn.Blocks {
			s := append([]uint64(nil), in[i]...)
			check := func(l vlist, where string) error {
				for _, v := range gc.list(l) {
					if !has(s, v) {
						return bad("%s is listed at %s in b%d but may be undefined there", v, where, b.ID)
					}
				}
				return nil
			}
			for j, x := range b.Instrs {
				if err := check(after[i][j], x.Op.String()); err != nil {
					return err
				}
				add(s, x.Dst)
				add(s, x.Dst2)
			}
			if err := check(poll[i], "the poll"); err != nil {
				return err
			}
			if err := check(after[i][len(b.Instrs)], b.Term.Op.String()); err != nil {
				return err
			}
		}
	}
	return nil
}
