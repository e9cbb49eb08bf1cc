package opt

import "miniil/ir"

// Coalesce computes results straight into the variables they are stored
// to: the reader turns `stloc v` (and starg, and the stores that leave
// and value copies make) into `v = copy t` right after the instruction
// that made t, so `t = op a, b; v = copy t` with t used by that copy
// alone becomes `v = op a, b`. The code generator can then compute in
// v's register (`imul r14, r13`) instead of in RAX and moving the result
// there. Only a copy that directly follows the definition is merged,
// so nothing can read v in between; t then has no definition left and
// is not live anywhere, and v holds what it held after the copy: the GC
// information sees the same objects.
//
// It returns the number of copies removed.
func Coalesce(f *ir.Func) int {
	uses := ir.Make[int32](f.Cache, len(f.Kinds))
	for _, b := range f.Blocks {
		for in := range b.Each {
			for _, a := range in.Args {
				uses[a]++
			}
		}
	}
	vars := ir.Value(f.NumArgs + f.NumLocals)
	n := 0
	for _, b := range f.Blocks {
		out := b.Instrs[:0]
		for i, in := range b.Instrs {
			if in.Op == ir.OpCopy && len(out) > 0 {
				prev := out[len(out)-1]
				t := in.Args[0]
				if prev.Dst == t && t >= vars && uses[t] == 1 && prev.Dst2 == ir.NoValue &&
					f.Kinds[t] == f.Kinds[in.Dst] && prev.Op != ir.OpCatchArg {
					prev.Dst = in.Dst
					n++
					continue
				}
			}
			out = append(out, b.Instrs[i])
		}
		b.Instrs = out
	}
	return n
}
