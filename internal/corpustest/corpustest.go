// Package corpustest loads the programs of the repository's test
// directories (tests/corpus, tests/bench) for the tests of other
// packages, which walk them method by method. It is internal to miniil:
// no compatibility promise.
package corpustest

import (
	"os"
	"path/filepath"
	"testing"

	"miniil/il"
)

// Program is one loaded program of a test directory.
type Program struct {
	File string // the path of its source
	Dir  string // the test directory it is in ("corpus", "bench")
	Mod  *il.Module
}

// Load loads every .il file of the given directories of tests (by name,
// such as "corpus" and "bench"), in directory and then file order. It
// finds the repository from the test's working directory (the nearest
// directory with a go.mod), and fails t if a directory has no program or
// a program does not load.
func Load(t testing.TB, dirs ...string) []Program {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var progs []Program
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(root, "tests", dir, "*.il"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no programs in tests/%s (%v)", dir, err)
		}
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			mod, err := il.Load(file, src)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			progs = append(progs, Program{File: file, Dir: dir, Mod: mod})
		}
	}
	return progs
}

// repoRoot returns the nearest directory at or above the working
// directory that holds go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
