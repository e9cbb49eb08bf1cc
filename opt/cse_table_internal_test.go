package opt

import (
	"math/rand/v2"
	"testing"

	"miniil/il"
	"miniil/ir"
)

// TestAvailTableStack drives the table as CSE's walk does (entries added
// and removed last in, first out, through several growths) and checks
// every lookup against a map, for key sets that spread and key sets that
// share their hashes.
func TestAvailTableStack(t *testing.T) {
	types := []*il.Type{nil, {}, {}, {}}
	tests := []struct {
		name string
		key  func(r *rand.Rand) cseKey
	}{
		{"spread", func(r *rand.Rand) cseKey {
			return cseKey{op: ir.Op(r.IntN(8)), kind: ir.Kind(r.IntN(3)), aux: r.Int64N(4),
				a: r.Int32N(40), b: r.Int32N(40), epoch: r.Int32N(3), unsigned: r.IntN(2) == 0}
		}},
		// Keys that differ only by their type hash alike: every
		// lookup probes past the others.
		{"colliding", func(r *rand.Rand) cseKey {
			return cseKey{op: ir.OpIsInst, a: 7, typ: types[r.IntN(len(types))], aux: r.Int64N(40)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var tab availTable
			tab.reset()
			want := map[cseKey]cseEntry{}
			var stack []cseKey
			order := func(yield func(*cseKey) bool) {
				for i := range stack {
					if !yield(&stack[i]) {
						return
					}
				}
			}
			grown := 0
			for step := 0; step < 20000; step++ {
				if len(stack) > 0 && r.IntN(100) < 45 {
					k := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					tab.remove(&k)
					delete(want, k)
				} else {
					k := tt.key(r)
					if _, ok := want[k]; ok {
						continue
					}
					if tab.full() {
						tab.grow(order)
						grown++
					}
					e := cseEntry{holder: ir.Value(step), vn: int32(step + 1)}
					tab.add(&k, e)
					want[k] = e
					stack = append(stack, k)
				}
				if tab.n != len(want) {
					t.Fatalf("step %d: table has %d entries, want %d", step, tab.n, len(want))
				}
				probe := tt.key(r)
				got, ok := tab.lookup(&probe)
				if w, wok := want[probe]; ok != wok || got != w {
					t.Fatalf("step %d: lookup(%+v) = %+v, %v; want %+v, %v", step, probe, got, ok, w, wok)
				}
				for _, k := range stack[max(0, len(stack)-4):] {
					if got, ok := tab.lookup(&k); !ok || got != want[k] {
						t.Fatalf("step %d: lookup of present %+v = %+v, %v; want %+v", step, k, got, ok, want[k])
					}
				}
			}
			if grown == 0 {
				t.Fatalf("the table never grew: the test does not cover growth")
			}
			for len(stack) > 0 {
				k := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				tab.remove(&k)
			}
			if tab.n != 0 {
				t.Fatalf("table has %d entries after every removal", tab.n)
			}
			for i, s := range tab.slots {
				if s.e.vn != 0 {
					t.Fatalf("slot %d still holds %+v after every removal", i, s)
				}
			}
		})
	}
}

// TestAvailTableReset checks that a table a failed compile left full is
// emptied, and that an outsized one is not kept.
func TestAvailTableReset(t *testing.T) {
	var tab availTable
	tab.reset()
	k := cseKey{op: ir.OpAdd, a: 1, b: 2}
	tab.add(&k, cseEntry{holder: 3, vn: 4})
	tab.reset()
	if _, ok := tab.lookup(&k); ok || tab.n != 0 {
		t.Fatalf("reset kept an entry (n=%d)", tab.n)
	}
	tab.slots = make([]availSlot, 2*maxKeptAvailSlots)
	tab.reset()
	if len(tab.slots) != minAvailSlots {
		t.Fatalf("reset kept %d slots, want %d", len(tab.slots), minAvailSlots)
	}
}
