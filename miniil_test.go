package miniil_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"miniil"
	"miniil/il"
)

const throwing = `.assembly t {}
.method public static void main() cil managed {
  .entrypoint
  .maxstack 1
  ldstr "boom"
  newobj instance void [mscorlib]System.InvalidOperationException::.ctor(string)
  throw
}`

var engines = []miniil.Engine{miniil.Interp, miniil.JIT}

// forEngines runs f as a subtest on every engine.
func forEngines(t *testing.T, f func(t *testing.T, eng miniil.Engine)) {
	for _, eng := range engines {
		t.Run(eng.String(), func(t *testing.T) { f(t, eng) })
	}
}

func TestManagedExceptionError(t *testing.T) { forEngines(t, testManagedExceptionError) }

func testManagedExceptionError(t *testing.T, eng miniil.Engine) {
	p, err := miniil.Load("t.il", []byte(throwing))
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Run(context.Background(), miniil.Config{Engine: eng})
	var me *miniil.ManagedException
	if !errors.As(err, &me) {
		t.Fatalf("error %T %v is not a *ManagedException", err, err)
	}
	if code != 134 || me.Type != "System.InvalidOperationException" || me.Message != "boom" {
		t.Errorf("got code %d, %+v", code, me)
	}
	if len(me.StackTrace) != 1 || me.StackTrace[0] != "<Module>.main()" {
		t.Errorf("stack trace %q", me.StackTrace)
	}
	if !strings.HasPrefix(err.Error(), "Unhandled exception. System.InvalidOperationException: boom\n   at <Module>.main()") {
		t.Errorf("report %q", err.Error())
	}
}

func TestLoadErrorHasPosition(t *testing.T) {
	_, err := miniil.Load("bad.il", []byte(".assembly t {}\n.method public static void main() cil managed {\n .entrypoint\n  bogus\n  ret\n}\n"))
	var e *il.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v has no position", err, err)
	}
	if e.Pos.File != "bad.il" || e.Pos.Line != 4 || e.Pos.Col != 3 {
		t.Errorf("position %s, want bad.il:4:3", e.Pos)
	}
}

const spin = `.assembly t {}
.method public static void main() cil managed {
  .entrypoint
  .maxstack 1
L: br L
}`

// TestCancellation runs an infinite loop under a 200 ms deadline: Run must
// return a cancellation error within a second while another goroutine
// keeps making progress.
func TestCancellation(t *testing.T) { forEngines(t, testCancellation) }

func testCancellation(t *testing.T, eng miniil.Engine) {
	p, err := miniil.Load("spin.il", []byte(spin))
	if err != nil {
		t.Fatal(err)
	}
	var ticks atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				ticks.Add(1)
				time.Sleep(time.Millisecond)
			}
		}
	}()
	defer close(stop)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = p.Run(ctx, miniil.Config{Engine: eng})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v does not wrap context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Run returned after %v", d)
	}
	if ticks.Load() < 10 {
		t.Errorf("the other goroutine made only %d steps", ticks.Load())
	}
}

const recurse = `.assembly t {}
.method public static int32 f(int32 n) cil managed {
  .maxstack 2
  ldarg.0
  ldc.i4.1
  add
  call int32 f(int32)
  ret
}
.method public static void main() cil managed {
  .entrypoint
  .maxstack 1
  ldc.i4.0
  call int32 f(int32)
  pop
  ret
}`

func TestStackOverflow(t *testing.T) { forEngines(t, testStackOverflow) }

func testStackOverflow(t *testing.T, eng miniil.Engine) {
	p, err := miniil.Load("rec.il", []byte(recurse))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code, err := p.Run(context.Background(), miniil.Config{Engine: eng, Stdout: &out})
	var so *miniil.StackOverflowError
	if !errors.As(err, &so) || code != 134 {
		t.Fatalf("got code %d, error %v; want 134 and a StackOverflowError", code, err)
	}
}
