package amd64

import (
	"fmt"

	"miniil/funclet"
	"miniil/ir"
)

// Alloc is the register allocation of a laid-out method: where each
// value lives, as the code generator will use it.
type Alloc struct {
	// Homes is each value's machine register for its whole life (NoReg:
	// its frame slot, or no location at all if it is transient).
	Homes []Reg
	// Transient marks the values that need no location: constants read
	// as immediates, compares fused into their branch, and results the
	// next instruction takes from RAX (or an argument register).
	Transient map[ir.Value]bool
}

// Allocate plans f's code (laid out as lay) and chooses its values'
// homes, as Generate does before it emits: the result is what Generate
// uses for the same function and layout.
func Allocate(f *ir.Func, lay *funclet.Layout) (alloc *Alloc, err error) {
	g := &gen{f: f, lay: lay, hold: ir.NoValue, avail: ir.NoValue, computed: ir.NoValue}
	defer func() {
		if r := recover(); r != nil {
			alloc, err = nil, fmt.Errorf("%s: register allocation failed: %v", f.Method.FullName(), r)
		}
	}()
	g.analyze()
	transient := g.transient()
	homes, _ := allocate(f, lay, transient)
	return &Alloc{Homes: homes, Transient: transient}, nil
}
