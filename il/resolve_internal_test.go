package il

import (
	"slices"
	"testing"
)

// TestGroupByName: each name's methods in declaration order, overloads
// together, nothing for a name no method has, and a group that grows by
// append does not write over the next one (they share one array).
func TestGroupByName(t *testing.T) {
	mk := func(names ...string) []*Method {
		var ms []*Method
		for i, n := range names {
			ms = append(ms, &Method{Name: n, Index: i})
		}
		return ms
	}
	indexes := func(ms []*Method) []int {
		var out []int
		for _, m := range ms {
			out = append(out, m.Index)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		methods []string
		want    map[string][]int
	}{
		{"none", nil, map[string][]int{"f": nil}},
		{"one", []string{"f"}, map[string][]int{"f": {0}, "g": nil}},
		{"overloads apart", []string{"f", "g", "f", "h", "f"}, map[string][]int{"f": {0, 2, 4}, "g": {1}, "h": {3}}},
		{"all the same", []string{"m", "m", "m"}, map[string][]int{"m": {0, 1, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := groupByName(mk(tc.methods...))
			for name, want := range tc.want {
				if got := indexes(g.named(name)); !slices.Equal(got, want) {
					t.Errorf("named(%q) = %v, want %v", name, got, want)
				}
			}
			for name := range g.index {
				l := g.named(name)
				_ = append(l, &Method{Name: "x"}) // must not land in another group
			}
			for name, want := range tc.want {
				if got := indexes(g.named(name)); !slices.Equal(got, want) {
					t.Errorf("after appends, named(%q) = %v, want %v", name, got, want)
				}
			}
		})
	}
}
