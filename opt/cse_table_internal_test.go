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
	spread := func(r *rand.Rand) cseKey {
		return cseKey{op: ir.Op(r.IntN(8)), kind: ir.Kind(r.IntN(3)), aux: r.Int64N(4),
			a: r.Int32N(40), b: r.Int32N(40), epoch: r.Int32N(3), unsigned: r.IntN(2) == 0}
	}
	// Keys whose hashes agree in their low 12 bits land on two home
	// slots at every table size up to 4,096 (the test stays under it):
	// long probe runs, which a removal or a growth that broke them
	// would cut.
	fields := make([]il.Field, 64)
	var colliding []cseKey
	for r := rand.New(rand.NewPCG(3, 4)); len(colliding) < 3000; {
		k := spread(r)
		k.aux = r.Int64N(1 << 20)
		k.field = &fields[r.IntN(len(fields))]
		if h := k.hash() & 4095; h == 5 || h == 6 {
			colliding = append(colliding, k)
		}
	}
	tests := []struct {
		name string
		key  func(r *rand.Rand) cseKey
	}{
		{"spread", spread},
		{"colliding", func(r *rand.Rand) cseKey { return colliding[r.IntN(len(colliding))] }},
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
					if _, _, ok := tab.lookup(&k); ok {
						t.Fatalf("step %d: %+v is still found after its removal", step, k)
					}
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
					i, _, ok := tab.lookup(&k)
					if ok {
						t.Fatalf("step %d: lookup(%+v) found an entry the table should not have", step, k)
					}
					tab.addAt(i, &k, e)
					want[k] = e
					stack = append(stack, k)
				}
				if tab.n != len(want) {
					t.Fatalf("step %d: table has %d entries, want %d", step, tab.n, len(want))
				}
				probe := tt.key(r)
				_, got, ok := tab.lookup(&probe)
				if w, wok := want[probe]; ok != wok || got != w {
					t.Fatalf("step %d: lookup(%+v) = %+v, %v; want %+v, %v", step, probe, got, ok, w, wok)
				}
				for _, k := range stack[max(0, len(stack)-4):] {
					if _, got, ok := tab.lookup(&k); !ok || got != want[k] {
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
	i, _, _ := tab.lookup(&k)
	tab.addAt(i, &k, cseEntry{holder: 3, vn: 4})
	tab.reset()
	if _, _, ok := tab.lookup(&k); ok || tab.n != 0 {
		t.Fatalf("reset kept an entry (n=%d)", tab.n)
	}
	tab.slots = make([]availSlot, 2*maxKeptAvailSlots)
	tab.reset()
	if len(tab.slots) != minAvailSlots {
		t.Fatalf("reset kept %d slots, want %d", len(tab.slots), minAvailSlots)
	}
}

// TestAvailHashSpreadsFields checks that loads differing only by their
// field or type (an object's fields, statics, in one memory epoch) get
// different home slots instead of one probe run.
func TestAvailHashSpreadsFields(t *testing.T) {
	fields := make([]il.Field, 64)
	types := make([]il.Type, 64)
	tests := []struct {
		name string
		key  func(i int) cseKey
	}{
		{"field", func(i int) cseKey { return cseKey{op: ir.OpLdField, kind: ir.I32, a: 3, epoch: 7, field: &fields[i]} }},
		{"static", func(i int) cseKey { return cseKey{op: ir.OpLdStatic, kind: ir.I32, epoch: 7, field: &fields[i]} }},
		{"type", func(i int) cseKey { return cseKey{op: ir.OpIsInst, kind: ir.I32, a: 3, typ: &types[i]} }},
	}
	for _, tt := range tests {
		homes := map[uint64]bool{}
		for i := range 64 {
			k := tt.key(i)
			homes[k.hash()&127] = true
		}
		if len(homes) < 32 {
			t.Errorf("%s: 64 keys have %d home slots of 128; want at least 32", tt.name, len(homes))
		}
	}
}
