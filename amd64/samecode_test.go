package amd64_test

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"miniil/internal/corpustest"
	"miniil/jit"
)

// codeHashes names a file of per-method code hashes: TestSameCode compares
// the code generated now with it, or writes it with -codehashes.write.
// It guards refactorings of the code generator that must not change the
// code: record the hashes before, compare after every step.
//
//	go test ./amd64 -run TestSameCode -codehashes=/tmp/before.txt -codehashes.write
//	(change the code generator)
//	go test ./amd64 -run TestSameCode -codehashes=/tmp/before.txt
var (
	codeHashes      = flag.String("codehashes", "", "compare each corpus and benchmark method's code with the hashes in `file`")
	codeHashesWrite = flag.Bool("codehashes.write", false, "write the hashes to the -codehashes file instead of comparing")
)

// methodHash is the hash of one method's compiled form: its code and
// everything the runtime and dumps read about it.
type methodHash struct {
	name string // file: method signature
	hash string
}

// hashPrograms compiles every method of the golden corpus and the
// benchmarks through the jit driver, with validation and a fresh DumpEnv
// per method (so each method's addresses depend on it alone), and hashes
// each result.
func hashPrograms(t *testing.T) []methodHash {
	t.Helper()
	var out []methodHash
	for _, prog := range corpustest.Load(t, "corpus", "bench") {
		mod := prog.Mod
		rel := prog.Dir + "/" + filepath.Base(prog.File)
		for _, m := range mod.AllMethods() {
			if m.Builtin || m.Abstract {
				continue
			}
			c := jit.New(jit.Config{Env: jit.NewDumpEnv(), Validate: true})
			st, err := c.Compile(mod, m, "")
			h := sha256.New()
			if err != nil {
				fmt.Fprintf(h, "error: %v", err)
			} else {
				code := st.Code
				// The notes as their texts, printed as the Note of
				// {Offset, Text} was (the hashes of -codehashes files
				// written before stay valid).
				notes := make([]struct {
					Offset int
					Text   string
				}, len(code.Notes))
				for i, n := range code.Notes {
					notes[i].Offset, notes[i].Text = n.Offset, n.Text()
				}
				h.Write(code.Code)
				fmt.Fprintf(h, "\nsites %v\ncells %v\nfunclets %v\ncold %d\nclauses %+v\n",
					code.Sites, code.CellRefs, code.Funclets, code.ColdStart, code.Clauses)
				fmt.Fprintf(h, "blocks %v\nframe %d prolog %d psp %d\nnotes %v\nhomes %v\nsaves %v\n",
					code.BlockOffsets, code.FrameSize, code.PrologSize, code.PSPOffset, notes, code.Homes, code.Saves)
			}
			out = append(out, methodHash{rel + ": " + m.Signature(), fmt.Sprintf("%x", h.Sum(nil))})
		}
	}
	return out
}

// TestSameCode checks that code generation is deterministic (two
// compilations of every corpus and benchmark method give the same code
// and metadata) and, with -codehashes, that it is what it was when the
// file was written.
func TestSameCode(t *testing.T) {
	if testing.Short() && *codeHashes == "" {
		t.Skip("compiles every corpus method twice")
	}
	now := hashPrograms(t)
	if *codeHashes == "" {
		again := hashPrograms(t)
		for i := range now {
			if now[i] != again[i] {
				t.Errorf("%s: two compilations differ", now[i].name)
			}
		}
		t.Logf("%d methods compiled twice to the same code", len(now))
		return
	}
	if *codeHashesWrite {
		var b strings.Builder
		for _, mh := range now {
			fmt.Fprintf(&b, "%s\t%s\n", mh.hash, mh.name)
		}
		if err := os.WriteFile(*codeHashes, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote the hashes of %d methods to %s", len(now), *codeHashes)
		return
	}
	f, err := os.Open(*codeHashes)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var before []methodHash
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		hash, name, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("%s: malformed line %q", *codeHashes, sc.Text())
		}
		before = append(before, methodHash{name, hash})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(before) != len(now) {
		t.Fatalf("%d methods now, %d in %s", len(now), len(before), *codeHashes)
	}
	diffs := 0
	for i := range now {
		if now[i] != before[i] {
			diffs++
			t.Errorf("%s: code differs from %s (%s)", now[i].name, *codeHashes, before[i].name)
		}
	}
	t.Logf("%d methods compared, %d differ", len(now), diffs)
}
