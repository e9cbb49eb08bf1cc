package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{"0", 0, false},
		{"4096", 4096, false},
		{"100B", 100, false},
		{"64KiB", 64 << 10, false},
		{"64MiB", 64 << 20, false},
		{"64mib", 64 << 20, false},
		{"64 MiB", 64 << 20, false},
		{"2GiB", 2 << 30, false},
		{"64KB", 64_000, false},
		{"64MB", 64_000_000, false},
		{"1.5MiB", 3 << 19, false},
		{"", 0, true},
		{"-1", 0, true},
		{"12x", 0, true},
		{"MiB", 0, true},
		{"99999999999TiB", 0, true},
	}
	for _, tt := range tests {
		got, err := parseByteSize(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("parseByteSize(%q) = %d, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

// TestMaxSourceFlag checks the -max-source flag of run, check and dump:
// a source over the limit gets one clear line and exit code 1, one at
// the limit loads, and /dev/zero is refused at once.
func TestMaxSourceFlag(t *testing.T) {
	src, err := os.ReadFile("../../examples/fib.il")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "fib.il")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	size := len(src)
	at, under := "-max-source="+itoa(size), "-max-source="+itoa(size-1)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"check at the limit", []string{"check", at, file}, 0, ""},
		{"check over the limit", []string{"check", under, file}, 3, "fib.il: the program is larger than the " + itoa(size-1) + " source size limit; raise it with -max-source"},
		{"run over the limit", []string{"run", under, file}, 3, "miniil run: "},
		{"dump over the limit", []string{"dump", "-il", under, file}, 3, "miniil dump: "},
		{"no limit", []string{"check", "-max-source=0", file}, 0, ""},
		{"unit", []string{"check", "-max-source=0.1KiB", file}, 3, "the 102B source size limit"},
		{"bad size", []string{"check", "-max-source=lots", file}, 2, "invalid size"},
		{"dev zero", []string{"run", "/dev/zero"}, 3, "/dev/zero: the program is larger than the 64MiB source size limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tt.args, &out, &errb)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, errb.String())
			}
			if !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("stderr %q does not contain %q", errb.String(), tt.stderr)
			}
			if tt.code != 0 && strings.Count(strings.TrimSuffix(errb.String(), "\n"), "\n") != 0 {
				t.Errorf("stderr is not one line: %q", errb.String())
			}
		})
	}
}

func itoa(n int) string { b := byteSize(n); return b.String() }
