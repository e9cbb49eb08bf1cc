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
	// The JIT also gives the IL offset of the throw (IL_000a: ldstr is 5
	// bytes, newobj 5, then throw).
	if eng == miniil.JIT && (len(me.ILOffsets) != 1 || me.ILOffsets[0] != 0x0a) {
		t.Errorf("IL offsets %v, want [10]", me.ILOffsets)
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

const callable = `.assembly t {}
.method public static int32 Add(int32 a, int32 b) cil managed { .maxstack 2 ldarg.0 ldarg.1 add ret }
.method public static float64 Half(float64 x) cil managed { .maxstack 2 ldarg.0 ldc.r8 0.5 mul ret }
.method public static int64 Mix(int32 a, float32 f, int64 b, bool neg) cil managed {
  .maxstack 2
  ldarg.0 conv.i8 ldarg.1 conv.i8 add ldarg.2 add
  ldarg.3 brfalse.s P
  neg
P: ret
}
.method public static string Greet(string who) cil managed {
  .maxstack 2
  ldstr "hello, " ldarg.0 call string [mscorlib]System.String::Concat(string, string) ret
}
.method public static uint32 Big() cil managed { .maxstack 1 ldc.i4.m1 ret }
.method public static void Boom() cil managed { .maxstack 1 newobj instance void [mscorlib]System.NotImplementedException::.ctor() throw }
.class public sequential sealed P extends [mscorlib]System.ValueType { .field public int32 x }
.method public static valuetype P MakeP() cil managed { .maxstack 1 .locals init (valuetype P p) ldloc.0 ret }
.method public static int32 ReadP(valuetype P p) cil managed { .maxstack 1 ldarga.s p ldfld int32 P::x ret }
.method public static void Bump(int32& x) cil managed { .maxstack 3 ldarg.0 ldarg.0 ldind.i4 ldc.i4.1 add stind.i4 ret }
.method public static void main() cil managed { .entrypoint .maxstack 1 ret }`

func TestCall(t *testing.T) { forEngines(t, testCall) }

func testCall(t *testing.T, eng miniil.Engine) {
	p, err := miniil.Load("call.il", []byte(callable))
	if err != nil {
		t.Fatal(err)
	}
	cfg := miniil.Config{Engine: eng}
	tests := []struct {
		method string
		args   []any
		want   any
		err    string
	}{
		{"Add", []any{int32(2), 40}, int32(42), ""},
		{"Add", []any{int32(-2147483648), int32(-1)}, int32(2147483647), ""},
		{"Half", []any{5.0}, 2.5, ""},
		{"Mix", []any{3, float32(2.9), int64(10), true}, int64(-15), ""},
		{"Mix", []any{3, float32(2.9), int64(10), false}, int64(15), ""},
		{"Greet", []any{"world"}, "hello, world", ""},
		{"Big", nil, uint32(4294967295), ""},
		{"Boom", nil, nil, "System.NotImplementedException"},
		{"Add", []any{1}, nil, "takes 2 argument(s)"},
		{"Add", []any{int64(1) << 40, 1}, nil, "does not fit"},
		{"Add", []any{"x", 1}, nil, "cannot be passed"},
		{"Nope", nil, nil, "no method named Nope"},
		{"MakeP", nil, nil, "returns value type P"},
		{"ReadP", []any{1}, nil, "argument 1 of ReadP has type valuetype P"},
		{"Bump", []any{1}, nil, "argument 1 of Bump has type int32&"},
	}
	for _, tt := range tests {
		got, err := p.Call(context.Background(), cfg, tt.method, tt.args...)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s%v: error %v, want one containing %q", tt.method, tt.args, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s%v = %v (%T), %v; want %v (%T)", tt.method, tt.args, got, got, err, tt.want, tt.want)
		}
	}
}
