package jit_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"miniil/il"
	"miniil/ir"
	"miniil/jit"
)

var update = flag.Bool("update", false, "rewrite the goldens in testdata/gcinfo")

// TestGCInfoGolden compiles every method of the programs in
// testdata/gcinfo (a loop with objects, value types holding references,
// methods with funclets) and compares each one's IR and GC information
// (FprintGC) with the program's .golden file. -update rewrites them;
// review the diff.
func TestGCInfoGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "gcinfo", "*.il"))
	if err != nil || len(files) < 3 {
		t.Fatalf("too few programs in testdata/gcinfo (%v)", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".il")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			mod, err := il.Load(file, src)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			c := jit.New(jit.Config{Env: jit.NewDumpEnv(), Validate: true})
			for _, m := range mod.AllMethods() {
				if m.Builtin || m.Abstract {
					continue
				}
				st, err := c.Compile(mod, m, "")
				if err != nil {
					t.Fatal(err)
				}
				if err := ir.Fprint(&b, st.Func); err != nil {
					t.Fatal(err)
				}
				jit.FprintGC(&b, st)
				b.WriteString("\n")
			}
			golden := strings.TrimSuffix(file, ".il") + ".golden"
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./jit -run TestGCInfoGolden -update writes it)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				got, exp := strings.Split(b.String(), "\n"), strings.Split(string(want), "\n")
				for i := range min(len(got), len(exp)) {
					if got[i] != exp[i] {
						t.Fatalf("%s differs from the GC information made now, first at line %d:\n  now:    %s\n  golden: %s\n(go test ./jit -run TestGCInfoGolden -update rewrites it; review the diff)", golden, i+1, got[i], exp[i])
					}
				}
				t.Fatalf("%s differs in length from the GC information made now (%d lines, %d)", golden, len(got), len(exp))
			}
		})
	}
}
