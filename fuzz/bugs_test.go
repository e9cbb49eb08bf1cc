package fuzz

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSavedBugs runs every program that ever made the engines disagree
// (fuzz/testdata/bugs, reduced and as found) on the JIT and the
// interpreter: they must agree now.
func TestSavedBugs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "bugs", "*.il"))
	raw, _ := filepath.Glob(filepath.Join("testdata", "bugs", "raw", "*.il"))
	files = append(files, raw...)
	if len(files) < 10 {
		t.Fatalf("only %d saved bug programs", len(files))
	}
	r := &Runner{Timeout: 20 * time.Second}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := r.Run(string(src))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if bad, why := Mismatch(outs); bad {
			t.Errorf("%s: %s", f, why)
		}
	}
}
