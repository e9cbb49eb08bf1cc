package tests

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// adjustedMarker starts the comment that explains why a golden differs
// from Mono's output (one of the differences MINIIL.md lists).
const adjustedMarker = "// golden adjusted:"

// monoTools returns the paths of ilasm and mono, or skips the test.
func monoTools(t *testing.T) (ilasm, mono string) {
	t.Helper()
	ilasm, err1 := exec.LookPath("ilasm")
	mono, err2 := exec.LookPath("mono")
	if err1 != nil || err2 != nil {
		t.Skip("SKIP: ilasm and mono are not installed (apt-get install -y mono-runtime mono-devel); goldens not re-derived")
	}
	return ilasm, mono
}

// runMono assembles src with ilasm and runs it under mono, returning its
// standard output and exit code.
func runMono(t *testing.T, ilasm, mono, src string) (string, int) {
	t.Helper()
	dir := t.TempDir()
	exe := filepath.Join(dir, "prog.exe")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	asm := exec.CommandContext(ctx, ilasm, src, "-output:"+exe)
	if out, err := asm.CombinedOutput(); err != nil {
		t.Fatalf("ilasm rejects the program: %v\n%s", err, out)
	}
	var stdout bytes.Buffer
	cmd := exec.CommandContext(ctx, mono, exe)
	cmd.Stdout = &stdout
	cmd.Stderr = &bytes.Buffer{}
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("mono: %v", err)
	}
	return stdout.String(), code
}

// TestMonoGoldens re-derives every golden with ilasm and mono. A program
// whose golden differs from Mono must say why with a "// golden adjusted:"
// comment; a program with that comment must actually differ (otherwise the
// comment is stale).
func TestMonoGoldens(t *testing.T) {
	ilasm, mono := monoTools(t)
	for _, f := range corpus(t) {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			adjusted := strings.Contains(string(src), adjustedMarker)
			want := readGolden(t, strings.TrimSuffix(f, ".il")+".out")
			got, code := runMono(t, ilasm, mono, f)
			same := got == want.stdout && code == want.exit
			switch {
			case !same && !adjusted:
				t.Errorf("Mono disagrees with the golden and the program does not explain it with %q\n--- mono (exit=%d)\n%s--- golden (exit=%d)\n%s",
					adjustedMarker, code, got, want.exit, want.stdout)
			case same && adjusted:
				t.Errorf("the program says %q but Mono agrees with the golden: remove the stale comment", adjustedMarker)
			}
		})
	}
}
