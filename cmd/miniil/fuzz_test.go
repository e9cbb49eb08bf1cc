package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestFuzzFlags checks the options of miniil fuzz for the collector:
// -alloc makes every program allocate heavily, -gcstress and -nursery
// are checked (the runs that use them are fuzz.Runner's, tested there);
// and -shapes, the share of programs with the shapes the JIT optimizes.
func TestFuzzFlags(t *testing.T) {
	// Where a failing campaign would write its mismatches: not the
	// source tree.
	out := filepath.Join(t.TempDir(), "mismatches")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring expected in stdout
		stderr string // substring expected in stderr
	}{
		{"alloc program", []string{"fuzz", "-alloc", "-print", "-seed", "5", "-size", "small"}, 0, ".class public auto ansi beforefieldinit Node", ""},
		{"alloc header", []string{"fuzz", "-alloc", "-print", "-seed", "5", "-size", "small"}, 0, "opts=3,14,3,2,400,0,100,70\n", ""},
		{"default header", []string{"fuzz", "-print", "-seed", "5", "-size", "large"}, 0, "opts=10,60,5,4,10000,0,60,70\n", ""},
		{"no shapes header", []string{"fuzz", "-shapes", "0", "-print", "-seed", "5", "-size", "large"}, 0, "opts=10,60,5,4,10000,0,60\n", ""},
		{"shapes header", []string{"fuzz", "-shapes", "100", "-print", "-seed", "5", "-size", "small"}, 0, "opts=3,14,3,2,400,0,25,100\n", ""},
		{"shapes program", []string{"fuzz", "-shapes", "100", "-print", "-seed", "5", "-size", "small"}, 0, "ldlen", ""},
		{"help shapes", []string{"fuzz", "-h"}, 0, "-shapes int", ""},
		{"bad shapes", []string{"fuzz", "-shapes=101"}, 2, "", "-shapes must be a percentage"},
		{"help", []string{"fuzz", "-h"}, 0, "-alloc", ""},
		{"help nursery", []string{"fuzz", "-h"}, 0, "-nursery size", ""},
		{"help gcstress", []string{"fuzz", "-h"}, 0, "-gcstress int", ""},
		{"negative gcstress", []string{"fuzz", "-gcstress=-1"}, 2, "", "-gcstress must not be negative"},
		{"bad nursery", []string{"fuzz", "-nursery=lots"}, 2, "", "invalid size"},
		{"in process under GC stress", []string{"fuzz", "-inprocess", "-gcstress=1", "-nursery=16KiB", "-alloc", "-shapes", "0", "-size", "small", "-n", "2", "-seed", "1", "-out", out}, 0, "2 programs, 0 mismatches", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tt.args, &out, &errb); code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, errb.String())
			}
			if !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("stdout %q does not contain %q", out.String(), tt.stdout)
			}
			if !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("stderr %q does not contain %q", errb.String(), tt.stderr)
			}
		})
	}
}
