package amd64

import (
	"path/filepath"
	"slices"
	"testing"

	"miniil/funclet"
	"miniil/internal/corpustest"
	"miniil/ir"
	"miniil/opt"
	"miniil/reader"
)

// textbookLiveness is the round-robin backward dataflow over blocks
// (live-out: the union of the successors' live-in; live-in: the uses
// before any write, plus live-out minus the writes), iterated to its
// fixed point, with edges to blocks outside blocks ignored.
func textbookLiveness(f *ir.Func, blocks []*ir.Block) (in, out []ir.ValueSet) {
	n, nv := len(blocks), len(f.Kinds)
	index := map[*ir.Block]int{}
	for k, b := range blocks {
		index[b] = k
	}
	use, def := make([]ir.ValueSet, n), make([]ir.ValueSet, n)
	in, out = make([]ir.ValueSet, n), make([]ir.ValueSet, n)
	for k, b := range blocks {
		use[k], def[k], in[k], out[k] = ir.NewValueSet(nv), ir.NewValueSet(nv), ir.NewValueSet(nv), ir.NewValueSet(nv)
		for _, instr := range b.Code() {
			for _, a := range instr.Args {
				if !def[k].Has(a) {
					use[k].Add(a)
				}
			}
			for _, d := range []ir.Value{instr.Dst, instr.Dst2} {
				if d != ir.NoValue {
					def[k].Add(d)
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for k := n - 1; k >= 0; k-- {
			o := ir.NewValueSet(nv)
			for _, s := range blocks[k].Succs {
				if j, ok := index[s]; ok {
					o.Or(in[j])
				}
			}
			i := ir.NewValueSet(nv)
			o.Each(func(v ir.Value) {
				if !def[k].Has(v) {
					i.Add(v)
				}
			})
			i.Or(use[k])
			if !slices.Equal(i, in[k]) || !slices.Equal(o, out[k]) {
				in[k], out[k], changed = i, o, true
			}
		}
	}
	return in, out
}

// TestAllocCheckerLiveness checks CheckAlloc's value-by-value liveness
// against the textbook dataflow on the main body of every method of the
// corpus and the benchmarks.
func TestAllocCheckerLiveness(t *testing.T) {
	progs := corpustest.Load(t, "corpus", "bench")
	sets := 0
	for _, prog := range progs {
		file, mod := prog.File, prog.Mod
		for _, m := range mod.AllMethods() {
			if m.Abstract {
				continue // no IL
			}
			f, err := reader.Import(mod, m)
			if err != nil {
				t.Fatal(err)
			}
			if err := opt.Run(f); err != nil {
				t.Fatal(err)
			}
			lay, err := funclet.Build(f)
			if err != nil {
				t.Fatal(err)
			}
			c := &allocChecker{f: f, main: lay.Funcs[0].Blocks}
			c.liveness()
			in, out := textbookLiveness(f, c.main)
			for k, b := range c.main {
				for _, x := range []struct {
					what string
					got  []ir.Value
					want ir.ValueSet
				}{{"in", c.liveIn[k], in[k]}, {"out", c.liveOut[k], out[k]}} {
					var want []ir.Value
					x.want.Each(func(v ir.Value) { want = append(want, v) })
					got := slices.Sorted(slices.Values(x.got))
					if !slices.Equal(got, want) {
						t.Errorf("%s: %s: b%d: live %s %v, want %v", filepath.Base(file), m.FullName(), b.ID, x.what, got, want)
					}
					sets += len(want)
				}
			}
		}
	}
	if sets == 0 {
		t.Error("no value is live anywhere: the test compares nothing")
	}
}
