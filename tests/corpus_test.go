// Package tests holds the golden corpus and the differential tests that run
// it on every engine and against Mono.
package tests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"miniil"
)

// golden is a program's expected behavior: standard output and exit code.
type golden struct {
	stdout string
	exit   int
}

// readGolden parses NAME.out: the expected stdout, then a last line
// "exit=N".
func readGolden(t testing.TB, path string) golden {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden: %v", err)
	}
	g, err := parseGolden(string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

func parseGolden(s string) (golden, error) {
	s = strings.TrimSuffix(s, "\n")
	i := strings.LastIndex(s, "\n")
	last := s[i+1:]
	if !strings.HasPrefix(last, "exit=") {
		return golden{}, &os.PathError{Op: "parse", Path: "golden", Err: os.ErrInvalid}
	}
	code, err := strconv.Atoi(strings.TrimPrefix(last, "exit="))
	if err != nil {
		return golden{}, err
	}
	out := ""
	if i >= 0 {
		out = s[:i+1]
	}
	return golden{stdout: out, exit: code}, nil
}

func corpus(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("corpus", "*.il"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus programs found: %v", err)
	}
	return files
}

// engines are the engines every corpus program must run on.
var engines = []miniil.Engine{miniil.Interp, miniil.JIT}

// TestCorpus runs every corpus program on every engine and compares
// standard output and exit code with the golden.
func TestCorpus(t *testing.T) {
	for _, f := range corpus(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".il")
		want := readGolden(t, strings.TrimSuffix(f, ".il")+".out")
		prog, err := miniil.LoadFile(f)
		if err != nil {
			t.Errorf("%s: load: %v", name, err)
			continue
		}
		for _, eng := range engines {
			t.Run(name+"/"+eng.String(), func(t *testing.T) {
				var out bytes.Buffer
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				code, err := prog.Run(ctx, miniil.Config{Engine: eng, Stdout: &out})
				if got := miniil.ExitCode(err); err != nil && got != code {
					t.Errorf("exit code %d does not match the error's %d", code, got)
				}
				if code != 134 && err != nil {
					t.Errorf("unexpected error: %v", err)
				}
				// The golden records a process exit status: the low 8 bits
				// of the entry point's int32 result.
				if out.String() != want.stdout || code&0xFF != want.exit {
					t.Errorf("got exit=%d, want exit=%d\n--- got stdout\n%s--- want stdout\n%s(error: %v)",
						code, want.exit, out.String(), want.stdout, err)
				}
			})
		}
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCorpusGCStress runs every corpus program on the JIT under GC
// stress: a collection at every safepoint (every allocation among them),
// every fourth one full, in a 16 KiB nursery, with freed memory poisoned
// and the heap verified after each collection. The output must still be
// the golden.
func TestCorpusGCStress(t *testing.T) {
	if testing.Short() {
		t.Skip("GC stress is slow; -short skips it")
	}
	for _, f := range corpus(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".il")
		want := readGolden(t, strings.TrimSuffix(f, ".il")+".out")
		prog, err := miniil.LoadFile(f)
		if err != nil {
			t.Errorf("%s: load: %v", name, err)
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			code, err := prog.Run(ctx, miniil.Config{Engine: miniil.JIT, Stdout: &out, GCStress: 1, NurseryBytes: 16 << 10})
			if code != 134 && err != nil {
				t.Errorf("unexpected error: %v", err)
			}
			if out.String() != want.stdout || code&0xFF != want.exit {
				t.Errorf("under GC stress: got exit=%d, want exit=%d\n--- got stdout\n%s--- want stdout\n%s(error: %v)",
					code, want.exit, out.String(), want.stdout, err)
			}
		})
	}
}
