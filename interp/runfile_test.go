package interp

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"miniil/il"
)

// TestRunFile is a development aid: INTERP_RUN=path/to/prog.il go test
// ./interp -run TestRunFile -v runs one program and logs its output, exit
// code, error and run time. Without INTERP_RUN it is skipped.
func TestRunFile(t *testing.T) {
	f := os.Getenv("INTERP_RUN")
	if f == "" {
		t.Skip("INTERP_RUN not set")
	}
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	m, err := il.Load(f, src)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	start := time.Now()
	code, err := Run(context.Background(), m, Options{Stdout: &out})
	t.Logf("\n%sexit=%d err=%v (%v)", out.String(), code, err, time.Since(start))
}
