package miniil_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"miniil"
	"miniil/il"
)

// TestContextBeforeRun checks both engines alike: a context that is
// already done stops the run before it starts (no output), and a nil
// context is context.Background().
func TestContextBeforeRun(t *testing.T) { forEngines(t, testContextBeforeRun) }

func testContextBeforeRun(t *testing.T, eng miniil.Engine) {
	p, err := miniil.Load("hello.il", []byte(hello))
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	for _, tt := range []struct {
		ctx  context.Context
		want error
		code int
	}{{cancelled, context.Canceled, 130}, {expired, context.DeadlineExceeded, 124}} {
		var out bytes.Buffer
		code, err := p.Run(tt.ctx, miniil.Config{Engine: eng, Stdout: &out})
		if !errors.Is(err, tt.want) || code != tt.code || out.Len() != 0 {
			t.Errorf("Run: code %d, error %v, output %q; want %d, an error wrapping %v, no output", code, err, out.String(), tt.code, tt.want)
		}
		out.Reset()
		if _, err := p.Call(tt.ctx, miniil.Config{Engine: eng, Stdout: &out}, "main"); !errors.Is(err, tt.want) || out.Len() != 0 {
			t.Errorf("Call: error %v, output %q", err, out.String())
		}
	}
	var out bytes.Buffer
	var nilCtx context.Context // documented to mean context.Background()
	if code, err := p.Run(nilCtx, miniil.Config{Engine: eng, Stdout: &out}); code != 0 || err != nil || out.String() != "hello\n" {
		t.Errorf("Run with a nil context: %d, %v, %q", code, err, out.String())
	}
}

const hello = `.assembly t {}
.method public static void main() cil managed {
  .entrypoint .maxstack 1
  ldstr "hello" call void [mscorlib]System.Console::WriteLine(string)
  ret
}`

// manualContext is a context whose end the test chooses: Done closes and
// Err becomes err when end is called.
type manualContext struct {
	context.Context
	done chan struct{}
	once sync.Once
	mu   sync.Mutex
	err  error
}

func newManualContext() *manualContext {
	return &manualContext{Context: context.Background(), done: make(chan struct{})}
}

func (c *manualContext) Done() <-chan struct{} { return c.done }

func (c *manualContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *manualContext) end(err error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		close(c.done)
	})
}

// signallingWriter collects output and reports its first write.
type signallingWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	first  chan struct{}
}

func (w *signallingWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.writes == 0 {
		close(w.first)
	}
	w.writes++
	return w.buf.Write(b)
}

// bigThenSpin writes more than the 64 KiB output buffer in one WriteLine
// (no safe point inside), then spins until stopped.
const bigThenSpin = `.assembly t {}
.method public static void main() cil managed {
  .entrypoint
  .maxstack 3
  .locals init (string s, int32 i)
  ldstr "x" stloc s
D: ldloc s ldloc s call string [mscorlib]System.String::Concat(string, string) stloc s
  ldloc i ldc.i4.1 add dup stloc i ldc.i4.s 17 blt D
  ldstr "first line\n" ldloc s ldstr "\nlast line"
  call string [mscorlib]System.String::Concat(string, string, string)
  call void [mscorlib]System.Console::WriteLine(string)
L: br L
}`

// TestStoppedRunsFlushOutput stops a run once it has written (the output
// buffer filled once, so the rest of the write sits in the buffer) by
// its deadline or by cancellation: everything written must reach Stdout,
// with the exit code for the reason.
func TestStoppedRunsFlushOutput(t *testing.T) { forEngines(t, testStoppedRunsFlushOutput) }

func testStoppedRunsFlushOutput(t *testing.T, eng miniil.Engine) {
	p, err := miniil.Load("big.il", []byte(bigThenSpin))
	if err != nil {
		t.Fatal(err)
	}
	want := "first line\n" + strings.Repeat("x", 1<<17) + "\nlast line\n"
	for _, tt := range []struct {
		err  error
		code int
	}{{context.DeadlineExceeded, 124}, {context.Canceled, 130}} {
		ctx := newManualContext()
		w := &signallingWriter{first: make(chan struct{})}
		go func() {
			<-w.first
			ctx.end(tt.err)
		}()
		code, err := p.Run(ctx, miniil.Config{Engine: eng, Stdout: w})
		if !errors.Is(err, tt.err) || code != tt.code {
			t.Errorf("code %d, error %v; want %d and %v", code, err, tt.code, tt.err)
		}
		if got := w.buf.String(); got != want {
			t.Errorf("%v: output %d bytes ending %q, want %d bytes", tt.err, len(got), got[max(0, len(got)-20):], len(want))
		}
	}
}

// TestOutputBuffering counts the writes reaching Stdout: one for a
// program's ten lines (block buffering), ten with FlushLines.
func TestOutputBuffering(t *testing.T) { forEngines(t, testOutputBuffering) }

func testOutputBuffering(t *testing.T, eng miniil.Engine) {
	p, err := miniil.Load("lines.il", []byte(`.assembly t {}
.method public static void main() cil managed {
  .entrypoint .maxstack 2 .locals init (int32 i)
L: ldloc i call void [mscorlib]System.Console::WriteLine(int32)
  ldloc i ldc.i4.1 add dup stloc i ldc.i4.s 10 blt L
  ret
}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, lines := range []bool{false, true} {
		w := &signallingWriter{first: make(chan struct{})}
		if _, err := p.Run(context.Background(), miniil.Config{Engine: eng, Stdout: w, FlushLines: lines}); err != nil {
			t.Fatal(err)
		}
		want := 1
		if lines {
			want = 10
		}
		if w.writes != want || w.buf.String() != "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n" {
			t.Errorf("FlushLines %v: %d writes of %q, want %d", lines, w.writes, w.buf.String(), want)
		}
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{&miniil.ManagedException{Type: "System.Exception"}, 134},
		{&miniil.StackOverflowError{}, 134},
		{&miniil.InternalError{Op: "run", Value: "bug"}, 70},
		{fmt.Errorf("jitrt: interrupted: %w", context.DeadlineExceeded), 124},
		{fmt.Errorf("interp: %w", context.Canceled), 130},
		{il.ErrorList{{Msg: "bad"}}, 3},
		{errors.New("writing output: broken pipe"), 1},
	}
	for _, tt := range tests {
		if got := miniil.ExitCode(tt.err); got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

// TestBadHeapLimit checks that an out-of-range heap limit is an error
// before anything runs, on both engines.
func TestBadHeapLimit(t *testing.T) { forEngines(t, testBadHeapLimit) }

func testBadHeapLimit(t *testing.T, eng miniil.Engine) {
	p, err := miniil.Load("hello.il", []byte(hello))
	if err != nil {
		t.Fatal(err)
	}
	for _, heap := range []int64{-1, miniil.MaxMaxHeap + 1} {
		var out bytes.Buffer
		code, err := p.Run(context.Background(), miniil.Config{Engine: eng, Stdout: &out, MaxHeap: heap})
		if err == nil || code != 1 || out.Len() != 0 {
			t.Errorf("heap limit %d: %d, %v, %q", heap, code, err, out.String())
		}
	}
}
