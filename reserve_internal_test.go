package miniil

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"miniil/jit"
	"miniil/jitrt"
)

// TestReservationsFitPrograms checks that the code heap and metadata
// arena reservations, estimated from the module, hold every method of the
// corpus, benchmark and example programs and of large generated programs
// compiled at once, and what running them adds. The code heap's need is
// what installing every method takes: whole pages per method. Set
// MINIIL_RESERVE_DIR to a directory of .il files to try more programs.
func TestReservationsFitPrograms(t *testing.T) {
	var files []string
	pats := []string{"tests/corpus/*.il", "tests/bench/*.il", "examples/*.il"}
	if dir := os.Getenv("MINIIL_RESERVE_DIR"); dir != "" {
		pats = append(pats, filepath.Join(dir, "*.il")) // more programs to try, e.g. from miniil fuzz
	}
	for _, pat := range pats {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	type prog struct {
		name string
		src  []byte
	}
	var progs []prog
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		progs = append(progs, prog{f, src})
	}
	worstCode, worstMeta := 0.0, 0.0
	for _, pr := range progs {
		p, err := Load(pr.name, pr.src)
		if err != nil {
			continue // the corpus's invalid programs live elsewhere; skip any that do not load
		}
		codeRes, metaRes := jitrt.Reservations(p.mod)
		rt, err := jitrt.NewRuntime(p.mod, jitrt.Options{Compile: compileMethod(p.mod, jit.Config{Validate: true}), HeapBytes: 64 << 20})
		if err != nil {
			t.Fatalf("%s: %v", pr.name, err)
		}
		compile := compileMethod(p.mod, jit.Config{Validate: true})
		need := rt.Stats().CodeBytes
		for _, m := range p.mod.AllMethods() {
			if m.Abstract {
				continue // no body
			}
			c, err := compile(rt, m)
			if err != nil {
				continue // not compilable: never installed either
			}
			need += (len(c.Code) + 4095) &^ 4095
		}
		rt.Run(context.Background()) // interns what running needs (output discarded)
		meta := rt.Stats().MetaBytes
		rt.Close()
		if need > codeRes || meta > metaRes {
			t.Errorf("%s: needs %d bytes of code heap (reserved %d), %d of metadata (reserved %d)", pr.name, need, codeRes, meta, metaRes)
		}
		worstCode = max(worstCode, float64(need)/float64(codeRes))
		worstMeta = max(worstMeta, float64(meta)/float64(metaRes))
	}
	t.Logf("%d programs; largest share of a reservation used: code heap %.0f%%, metadata %.0f%%", len(progs), 100*worstCode, 100*worstMeta)
}
