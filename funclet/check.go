package funclet

import (
	"fmt"

	"miniil/abi"
	"miniil/ir"
)

// Check validates lay, a layout of f after Build (which renumbers
// f.Blocks in layout order), and returns the first violation it finds:
//
//   - Funcs[0] is the main body (no region, kind abi.Main, clause -1);
//     every other funclet is the code of one handler or filter region of
//     f, with that region's kind and clause, starting at its entry, and
//     every handler and filter region has exactly one funclet;
//   - a filter's funclet comes right before its handler's;
//   - f.Blocks is the funclets' blocks in order, each block exactly once,
//     with IDs equal to positions;
//   - each funclet holds exactly the blocks whose innermost handler or
//     filter region is its region (none for the main body);
//   - within its funclet, the blocks of each try region (its own and
//     those of the regions it contains) are contiguous.
//
// It takes time linear in f's blocks and regions.
func Check(f *ir.Func, lay *Layout) error {
	name := f.Method.FullName()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: layout: %s", name, fmt.Sprintf(format, args...))
	}
	if lay == nil || len(lay.Funcs) == 0 {
		return bad("no funclets")
	}
	if m := lay.Funcs[0]; m.Region != nil || m.Kind != abi.Main || m.Clause != -1 {
		return bad("funclet 0 is not the main body")
	}
	isRegion := func(r *ir.Region) bool { return r.ID >= 0 && r.ID < len(f.Regions) && f.Regions[r.ID] == r }
	funcletOf := make(map[*ir.Region]int, len(lay.Funcs))
	pos := 0
	for k, fn := range lay.Funcs {
		if len(fn.Blocks) == 0 {
			return bad("funclet %d has no blocks", k)
		}
		if k > 0 {
			r := fn.Region
			switch {
			case r == nil || !r.IsHandler() || !isRegion(r):
				return bad("funclet %d is not the code of a handler or filter region of the function", k)
			case fn.Kind != kinds[r.Kind] || fn.Clause != r.Clause:
				return bad("funclet %d is a %s funclet of clause %d, its region %d a %s of clause %d", k, fn.Kind, fn.Clause, r.ID, r.Kind, r.Clause)
			case fn.Blocks[0] != r.Entry:
				return bad("funclet %d starts at b%d, not at the entry of its region %d", k, fn.Blocks[0].ID, r.ID)
			}
			if o, ok := funcletOf[r]; ok {
				return bad("funclets %d and %d are both the code of region %d", o, k, r.ID)
			}
			funcletOf[r] = k
			if r.Kind == ir.RegionFilter {
				if k+1 >= len(lay.Funcs) || lay.Funcs[k+1].Region == nil ||
					lay.Funcs[k+1].Region.Kind != ir.RegionFilterHandler || lay.Funcs[k+1].Clause != r.Clause {
					return bad("the filter funclet %d of clause %d is not followed by its handler's", k, r.Clause)
				}
			}
		}
		for _, b := range fn.Blocks {
			if pos >= len(f.Blocks) || f.Blocks[pos] != b {
				return bad("block %d of funclet %d is not f.Blocks[%d]", pos, k, pos)
			}
			if b.ID != pos {
				return bad("b%d is at position %d", b.ID, pos)
			}
			if fr := b.Region.Funclet(); fr != fn.Region {
				return bad("b%d, of the %s, is in funclet %d", b.ID, describe(fr), k)
			}
			pos++
		}
		if err := contiguous(fn.Region, fn.Blocks); err != nil {
			return bad("funclet %d: %v", k, err)
		}
	}
	if pos != len(f.Blocks) {
		return bad("the funclets hold %d of %d blocks", pos, len(f.Blocks))
	}
	for _, r := range f.Regions {
		if _, ok := funcletOf[r]; r.IsHandler() && !ok {
			return bad("%s region %d has no funclet", r.Kind, r.ID)
		}
	}
	return nil
}

// describe names a funclet region for messages.
func describe(r *ir.Region) string {
	if r == nil {
		return "main body"
	}
	return fmt.Sprintf("%s region %d", r.Kind, r.ID)
}

// contiguous checks that in the blocks of a funclet (of region top), the
// blocks of every region inside top (its own and those of the regions
// it holds) are consecutive: going from block to block, a region left is
// never entered again. Between two blocks it walks only the regions left
// and entered, so a valid layout costs time linear in its blocks and
// regions.
func contiguous(top *ir.Region, blocks []*ir.Block) error {
	left := map[*ir.Region]bool{}
	depth := func(r *ir.Region) int {
		if r == nil {
			return -1
		}
		return r.Depth
	}
	prev := top
	for _, b := range blocks {
		a, c := prev, b.Region
		for a != c {
			if depth(a) >= depth(c) {
				left[a] = true
				a = a.Parent
			} else {
				if left[c] {
					return fmt.Errorf("%s region %d is entered again at b%d", c.Kind, c.ID, b.ID)
				}
				c = c.Parent
			}
		}
		prev = b.Region
	}
	return nil
}
