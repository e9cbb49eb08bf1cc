package miniil_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"miniil"
)

const tiny = `.assembly t {}
.method public static void main() cil managed {
  .entrypoint
  ret
}
`

// endless is a reader that never ends, counting what it hands out.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	e.n += int64(len(p))
	return len(p), nil
}

func TestSourceSizeLimit(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.il")
	if err := os.WriteFile(file, []byte(tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	size := int64(len(tiny))
	tests := []struct {
		name     string
		limit    int64
		load     func(miniil.LoadConfig) (*miniil.Program, error)
		wantSize int64 // in the error; 0: loading succeeds
	}{
		{"file at the limit", size, func(c miniil.LoadConfig) (*miniil.Program, error) { return c.LoadFile(file) }, 0},
		{"file over the limit", size - 1, func(c miniil.LoadConfig) (*miniil.Program, error) { return c.LoadFile(file) }, size},
		{"bytes at the limit", size, func(c miniil.LoadConfig) (*miniil.Program, error) { return c.Load("tiny.il", []byte(tiny)) }, 0},
		{"bytes over the limit", size - 1, func(c miniil.LoadConfig) (*miniil.Program, error) { return c.Load("tiny.il", []byte(tiny)) }, size},
		{"reader at the limit", size, func(c miniil.LoadConfig) (*miniil.Program, error) {
			return c.LoadReader("tiny.il", strings.NewReader(tiny))
		}, 0},
		{"reader over the limit", size - 1, func(c miniil.LoadConfig) (*miniil.Program, error) {
			return c.LoadReader("tiny.il", strings.NewReader(tiny))
		}, -1},
		{"no limit", -1, func(c miniil.LoadConfig) (*miniil.Program, error) { return c.LoadFile(file) }, 0},
		{"default limit", 0, func(c miniil.LoadConfig) (*miniil.Program, error) { return c.LoadFile(file) }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.load(miniil.LoadConfig{MaxSourceBytes: tt.limit})
			if tt.wantSize == 0 {
				if err != nil || p == nil {
					t.Fatalf("load failed: %v", err)
				}
				return
			}
			var big *miniil.SourceTooLargeError
			if !errors.As(err, &big) {
				t.Fatalf("got %v, want a *SourceTooLargeError", err)
			}
			if big.Size != tt.wantSize || big.Limit != tt.limit || !strings.HasSuffix(big.Name, "tiny.il") {
				t.Errorf("error %+v, want size %d and limit %d", big, tt.wantSize, tt.limit)
			}
			if msg := err.Error(); !strings.Contains(msg, "tiny.il") || !strings.Contains(msg, "MaxSourceBytes") {
				t.Errorf("message %q does not name the file and how to raise the limit", msg)
			}
		})
	}
}

// TestEndlessSource checks that an input that never ends is refused after
// reading just past the limit.
func TestEndlessSource(t *testing.T) {
	const limit = 1 << 20
	r := &endless{}
	_, err := miniil.LoadConfig{MaxSourceBytes: limit}.LoadReader("endless", r)
	var big *miniil.SourceTooLargeError
	if !errors.As(err, &big) || big.Size != -1 || big.Limit != limit {
		t.Fatalf("got %v, want a *SourceTooLargeError of unknown size", err)
	}
	if r.n > limit+1 {
		t.Errorf("read %d bytes, more than the limit + 1", r.n)
	}
	if !strings.Contains(err.Error(), "more than 1 MiB") {
		t.Errorf("message %q does not give the limit", err)
	}
}

// TestDevZero loads /dev/zero with the default limit: refused, having
// read no more than the limit + 1.
func TestDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := miniil.LoadFile("/dev/zero")
	var big *miniil.SourceTooLargeError
	if !errors.As(err, &big) || big.Limit != miniil.DefaultMaxSourceBytes {
		t.Fatalf("got %v, want a *SourceTooLargeError at the default limit", err)
	}
}
