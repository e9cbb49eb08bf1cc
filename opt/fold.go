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
	defer d.release()
	n := 0
	var folded []*ir.Instr // the leas folded somewhere
	// Where each value was last defined in the block being walked
	// (position+1, stamped with the block's ID+1), so that "p is not
	// written between the lea and the use" costs no search back.
	defPos := make([]int32, len(f.Kinds))
	defIn := make([]int32, len(f.Kinds))
	lastDef := func(b *ir.Block, v ir.Value) int {
		if defIn[v] == int32(b.ID+1) {
			return int(defPos[v]) - 1
		}
		return -1
	}
	for _, b := range f.Blocks {
		fl := b.Region.Funclet()
		for i, in := range b.Instrs {
			if in.Op == ir.OpLoad || in.Op == ir.OpStore {
				if lea, at := d.single(in.Args[0]); lea != nil && lea.Op == ir.OpLea && at == b && isTemp(f, in.Args[0]) {
					p := lea.Args[0]
					off := lea.Aux.Int + in.Aux.Int
					if f.Kinds[p] == ir.Ptr && d.undisturbed(p, fl) && off >= math.MinInt32 && off <= math.MaxInt32 &&
						lastDef(b, p) < lastDef(b, in.Args[0]) {
						in.Args = slices.Clone(in.Args)
						in.Args[0] = p
						in.Aux.Int = off
						folded = append(folded, lea)
						n++
					}
				}
			}
			for _, v := range [2]ir.Value{in.Dst, in.Dst2} {
				if v != ir.NoValue {
					defPos[v], defIn[v] = int32(i+1), int32(b.ID+1)
				}
			}
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
	read := ir.MakeValueSet(f.Cache, len(f.Kinds))
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
