package jit_test

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"miniil/amd64"
	"miniil/il"
	"miniil/jit"
)

const src = `
.assembly extern mscorlib {}
.assembly t {}
.class public auto ansi C extends [mscorlib]System.Object {
  .method public static int32 F(int32 x) cil managed {
    .maxstack 2
    .locals init (int32 r)
    .try {
      ldarg.0
      ldc.i4.3
      div
      stloc.0
      leave.s done
    } catch [mscorlib]System.DivideByZeroException {
      pop
      ldc.i4.m1
      stloc.0
      leave.s done
    }
  done:
    ldloc.0
    ret
  }
  .method public static void Main() cil managed {
    .entrypoint
    ldc.i4.s 9
    call int32 C::F(int32)
    pop
    ret
  }
}
`

func method(t *testing.T) (*il.Module, *il.Method) {
	t.Helper()
	mod, err := il.Load("t.il", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mod.AllMethods() {
		if m.Abstract {
			continue // no body
		}
		if m.Name == "F" {
			return mod, m
		}
	}
	t.Fatal("no method F")
	return nil, nil
}

// TestStopAfter runs the pipeline through each phase in turn and checks
// that the method carries what that phase hands on and nothing later.
func TestStopAfter(t *testing.T) {
	mod, m := method(t)
	for i, p := range jit.Phases() {
		t.Run(p.Name, func(t *testing.T) {
			st, err := jit.New(jit.Config{Env: jit.NewDumpEnv(), Validate: true}).Compile(mod, m, p.Name)
			if err != nil {
				t.Fatal(err)
			}
			has := []bool{st.Func != nil, st.Layout != nil, st.Alloc != nil, st.Code != nil,
				st.Code != nil && len(st.Code.Clauses) > 0}
			want := []bool{true, i >= jit.PhaseIndex(jit.Layout), i >= jit.PhaseIndex(jit.Regalloc),
				i >= jit.PhaseIndex(jit.Emit), i >= jit.PhaseIndex(jit.EHClauses)}
			for k := range has {
				if has[k] != want[k] {
					t.Errorf("state %d after %s: have %v, want %v", k, p.Name, has[k], want[k])
				}
			}
		})
	}
}

// TestAfterPrints checks that every phase prints something that names
// the method, and that a run with printers makes the same code as one
// without.
func TestAfterPrints(t *testing.T) {
	mod, m := method(t)
	bufs := map[string]*bytes.Buffer{}
	after := map[string]io.Writer{}
	for _, p := range jit.Phases() {
		bufs[p.Name] = new(bytes.Buffer)
		after[p.Name] = bufs[p.Name]
	}
	var stats jit.Stats
	st, err := jit.New(jit.Config{Env: jit.NewDumpEnv(), Validate: true, After: after, Stats: &stats}).Compile(mod, m, "")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := jit.New(jit.Config{Env: jit.NewDumpEnv()}).Compile(mod, m, "")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(st.Code.Code, plain.Code.Code) {
		t.Error("printing and validating changed the code")
	}
	for name, b := range bufs {
		if !strings.Contains(b.String(), "F") || b.Len() < 20 {
			t.Errorf("after %s printed %q", name, b.String())
		}
	}
	if !strings.Contains(bufs[jit.EHClauses].String(), "DivideByZeroException") {
		t.Errorf("clause table does not name the catch's class:\n%s", bufs[jit.EHClauses])
	}
	if stats.Methods != 1 || stats.CodeBytes != len(st.Code.Code) {
		t.Errorf("stats: %d methods, %d code bytes; want 1, %d", stats.Methods, stats.CodeBytes, len(st.Code.Code))
	}
}

// panicWriter panics when a phase prints to it: a stand-in for a bug
// in a phase.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("printer bug") }

// TestPhasePanicIsError: a panic in a phase is an error that names the
// method and the phase, and the Compiler's next compile runs as if
// nothing happened.
func TestPhasePanicIsError(t *testing.T) {
	mod, m := method(t)
	for _, name := range []string{jit.Import, jit.Layout, jit.EHClauses} {
		c := jit.New(jit.Config{Env: jit.NewDumpEnv(), After: map[string]io.Writer{name: panicWriter{}}})
		st, err := c.Compile(mod, m, "")
		if err == nil || st != nil || !strings.Contains(err.Error(), "phase "+name+" failed: printer bug") || !strings.Contains(err.Error(), m.FullName()) {
			t.Errorf("after %s panics: %v, %v; want an error naming %s and the phase", name, st, err, m.FullName())
		}
		if name == jit.EHClauses { // a compile that stops before it
			if _, err := c.Compile(mod, m, jit.Layout); err != nil {
				t.Errorf("the compile after the panic: %v", err)
			}
		}
	}
}

func TestUnknownPhase(t *testing.T) {
	mod, m := method(t)
	_, err := jit.New(jit.Config{}).Compile(mod, m, "nosuch")
	if err == nil || !strings.Contains(err.Error(), `"nosuch"`) {
		t.Errorf("err = %v, want one naming the phase", err)
	}
}

// TestNoEnv checks that emitting without addresses is an error naming
// the phase, not a crash.
func TestNoEnv(t *testing.T) {
	mod, m := method(t)
	if _, err := jit.New(jit.Config{}).Compile(mod, m, jit.Regalloc); err != nil {
		t.Fatalf("through regalloc without an Env: %v", err)
	}
	_, err := jit.New(jit.Config{}).Compile(mod, m, "")
	if err == nil || !strings.Contains(err.Error(), "phase emit") {
		t.Errorf("err = %v, want one naming phase emit", err)
	}
}

// TestCompiledKeepsNoIR checks that what the runtime keeps of a compiled
// method (Compiled, for as long as the code is installed) does not keep
// the code generator's output, and through its layout the IR, alive.
func TestCompiledKeepsNoIR(t *testing.T) {
	mod, m := method(t)
	st, err := jit.New(jit.Config{Env: jit.NewDumpEnv()}).Compile(mod, m, "")
	if err != nil {
		t.Fatal(err)
	}
	compiled := st.Compiled()
	freed := make(chan struct{})
	runtime.SetFinalizer(st.Code, func(*amd64.Code) { close(freed) })
	st = nil
	for range 10 {
		runtime.GC()
		select {
		case <-freed:
			if len(compiled.Code) == 0 {
				t.Error("the compiled method has no code")
			}
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Errorf("the code generator's output (%d bytes of code) is still reachable from Compiled()", len(compiled.Code))
}
