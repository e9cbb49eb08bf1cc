package opt

import (
	"math"
	"slices"

	"miniil/ir"
)

// FoldAddresses folds the address arithmetic of managed pointers into
// the loads and stores that use it (phase fold): a load or store at
// (lea p, +a) + b, in the block of the lea, becomes one at p + (a+b), as
// RyuJIT folds such an address into the instruction's addressing mode.
// ldflda then ldfld through a ref local (nbody_struct's bi.pos.x) thus
// costs one instruction, movsd xmm, [p+8], not two. The lea goes when
// nothing else reads it. It returns the number of loads and stores
// folded.
//
// Only a lea of a managed pointer folds (an object reference keeps its
// field address: the load's address is a pointer), and only when p is
// not written between the lea and the use, nor by another funclet.
func FoldAddresses(f *ir.Func) int {
	if !slices.ContainsFunc(f.Blocks, func(b *ir.Block) bool {
		return slices.ContainsFunc(b.Instrs, func(in *ir.Instr) bool { return in.Op == ir.OpLea })
	}) {
		return 0 // most methods: no definitions to scan
	}
	d := definitions(f)
	n := 0
	var folded []*ir.Instr // the leas folded somewhere
	for _, b := range f.Blocks {
		fl := b.Region.Funclet()
		for i, in := range b.Instrs {
			if in.Op != ir.OpLoad && in.Op != ir.OpStore {
				continue
			}
			lea, at := d.single(in.Args[0])
			if lea == nil || lea.Op != ir.OpLea || at != b || !isTemp(f, in.Args[0]) {
				continue
			}
			p := lea.Args[0]
			off := lea.Aux.Int + in.Aux.Int
			if f.Kinds[p] != ir.Ptr || !d.undisturbed(p, fl) || off < math.MinInt32 || off > math.MaxInt32 ||
				writtenBetween(b, lea, i, p) {
				continue
			}
			in.Args = slices.Clone(in.Args)
			in.Args[0] = p
			in.Aux.Int = off
			folded = append(folded, lea)
			n++
		}
	}
	if n > 0 {
		dropUnread(f, folded)
	}
	return n
}

// dropUnread removes the leas of list that nothing reads any more. (Not
// deadCode's job, which keeps every read of an address: here the folded
// loads and stores read the lea's pointer later, so its life is not
// shortened.)
func dropUnread(f *ir.Func, leas []*ir.Instr) {
	read := ir.NewValueSet(len(f.Kinds))
	for _, b := range f.Blocks {
		for in := range b.Each {
			for _, a := range in.Args {
				read.Add(a)
			}
		}
	}
	drop := map[*ir.Instr]bool{}
	for _, lea := range leas {
		if !read.Has(lea.Dst) {
			drop[lea] = true
		}
	}
	if len(drop) == 0 {
		return
	}
	for _, b := range f.Blocks {
		b.Instrs = slices.DeleteFunc(b.Instrs, func(in *ir.Instr) bool { return drop[in] })
	}
}

// writtenBetween reports whether an instruction of b after from and
// before b.Instrs[to] defines v (from not found before to: true).
func writtenBetween(b *ir.Block, from *ir.Instr, to int, v ir.Value) bool {
	k := slices.Index(b.Instrs[:to], from)
	if k < 0 {
		return true
	}
	for _, in := range b.Instrs[k+1 : to] {
		if in.Dst == v || in.Dst2 == v {
			return true
		}
	}
	return false
}
