package interp

import (
	"bytes"
	"context"
	"testing"

	"miniil/il"
)

// runSource loads and runs a program, returning stdout and the exit code.
func runSource(t *testing.T, name, src string, opts Options) (string, int, error) {
	t.Helper()
	m := mustLoad(t, src)
	var out bytes.Buffer
	opts.Stdout = &out
	code, err := Run(context.Background(), m, opts)
	return out.String(), code, err
}

// mustLoad parses and verifies a program or fails the test.
func mustLoad(t *testing.T, src string) *il.Module {
	t.Helper()
	m, err := il.Load("test.il", []byte(src))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return m
}
