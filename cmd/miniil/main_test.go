package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string // substring expected in stdout
		stderr     string // substring expected in stderr
		stderrLine bool   // stderr must be exactly one line
	}{
		{"run example", []string{"run", "../../examples/exceptions.il"}, 0, "Main: caught: order rejected", "", false},
		{"run shapes example", []string{"run", "../../examples/shapes.il"}, 0, "square: area 4\n  (no shape here)\nskipped 1", "", false},
		{"run exit code", []string{"run", "../../tests/corpus/consts_locals_args.il"}, 3, "", "", false},
		{"run unhandled", []string{"run", "../../tests/corpus/unhandled_user_exception.il"}, 134, "", "Unhandled exception.", false},
		{"run missing file", []string{"run", "nope.il"}, 2, "", "no such file", true},
		{"run bad flag", []string{"run", "-bogus", "x.il"}, 2, "", "flag provided but not defined: -bogus", true},
		{"run bad engine", []string{"run", "-engine=x", "a.il"}, 2, "", "unknown engine", true},
		{"run skipping phases", []string{"run", "-skip=inline,coalesce,writethru", "../../examples/exceptions.il"}, 0, "Main: caught: order rejected", "", false},
		{"run skipping a required phase", []string{"run", "-skip=layout", "../../examples/exceptions.il"}, 2, "", `"layout" is not a phase that may be skipped`, true},
		{"run two files", []string{"run", "a.il", "b.il"}, 2, "", "want exactly one FILE", true},
		{"run help", []string{"run", "-h"}, 0, "usage: miniil run", "", false},
		{"run invalid program", []string{"run", "../../tests/invalid/bad_instruction_line6.il"}, 3, "", "bad_instruction_line6.il:6:", false},
		{"check valid", []string{"check", "../../examples/fib.il"}, 0, "", "", false},
		{"check invalid", []string{"check", "../../tests/invalid/bad_instruction_line6.il"}, 3, "", "bad_instruction_line6.il:6:", true},
		{"check no file", []string{"check"}, 2, "", "want at least one FILE", true},
		{"dump il", []string{"dump", "-il", "../../examples/fib.il"}, 0, "/* IL_0002 */ bge.s Recurse", "", false},
		{"dump no stage", []string{"dump", "../../examples/fib.il"}, 2, "", "choose one stage", true},
		{"dump two stages", []string{"dump", "-il", "-ir", "../../examples/fib.il"}, 2, "", "choose one stage", true},
		{"dump ir", []string{"dump", "-ir", "-method", "Fib", "../../examples/fib.il"}, 0, "v2:i32 = cmp.ge.i32 v0, v1", "", false},
		{"dump asm", []string{"dump", "-asm", "-method", "Fib", "../../examples/fib.il"}, 0, "push rbp", "", false},
		{"dump asm handlers", []string{"dump", "-asm", "-method", "Inner", "../../examples/exceptions.il"}, 0, "lea rbp", "", false},
		{"dump funclets", []string{"dump", "-funclets", "-method", "Main", "../../examples/exceptions.il"}, 0, "filter funclet of clause 0", "", false},
		{"dump eh", []string{"dump", "-eh", "-method", "Inner", "../../examples/exceptions.il"}, 0, "FINALLY", "", false},
		{"dump unknown method", []string{"dump", "-ir", "-method", "Nope", "../../examples/fib.il"}, 1, "", "no method named Nope", true},
		{"unknown command", []string{"frob"}, 2, "", "unknown command", true},
		{"no command", nil, 2, "", "Usage:", false},
		{"help", []string{"-h"}, 0, "Usage:", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tt.args, &out, &errb)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, errb.String())
			}
			if !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("stdout %q does not contain %q", out.String(), tt.stdout)
			}
			if !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("stderr %q does not contain %q", errb.String(), tt.stderr)
			}
			if tt.stderrLine && strings.Count(strings.TrimSuffix(errb.String(), "\n"), "\n") != 0 {
				t.Errorf("stderr is not one line: %q", errb.String())
			}
			if strings.Contains(errb.String(), "goroutine ") || strings.Contains(errb.String(), "panic") {
				t.Errorf("stderr shows a Go panic: %q", errb.String())
			}
		})
	}
}
