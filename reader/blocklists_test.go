package reader_test

import (
	"path/filepath"
	"testing"

	"miniil/ir"
	"miniil/reader"
)

// TestBlockListsExact checks that the reader makes each block's
// instruction list at its exact size (it collects a block's instructions
// in a buffer kept from import to import and copies them out once):
// appending to the blocks' own lists, which grow by doubling, left a
// large method's lists with up to twice the memory they use.
func TestBlockListsExact(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "tests", "corpus", "*.il"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus programs (%v)", err)
	}
	cache := new(ir.Cache)
	blocks := 0
	for _, file := range files[:min(len(files), 40)] {
		mod := loadFile(t, file)
		for _, m := range mod.CodeMethods() {
			if m.Abstract {
				continue
			}
			for _, c := range []*ir.Cache{nil, cache} {
				cache.Reset()
				f, err := reader.ImportWith(mod, m, reader.Options{Cache: c})
				if err != nil {
					t.Fatalf("%s: %v", m.FullName(), err)
				}
				if err := ir.Check(f); err != nil {
					t.Fatalf("%s: %v", m.FullName(), err)
				}
				for _, b := range f.Blocks {
					if len(b.Instrs) != cap(b.Instrs) {
						t.Fatalf("%s: block b%d holds %d instructions in a list of capacity %d", m.FullName(), b.ID, len(b.Instrs), cap(b.Instrs))
					}
					blocks++
				}
			}
		}
	}
	if blocks == 0 {
		t.Fatal("no blocks imported")
	}
}
