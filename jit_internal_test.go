package miniil

import (
	"context"
	"io"
	"runtime"
	"testing"

	"miniil/il"
	"miniil/jit"
	"miniil/jitrt"
)

const catchLoop = `.assembly t {}
.method public static void thrower() cil managed {
  .maxstack 1
  newobj instance void [mscorlib]System.InvalidOperationException::.ctor()
  throw
}
.method public static int32 main(int32 n) cil managed {
  .maxstack 2
  .locals init (int32 i, int32 caught)
L: ldloc i ldarg n bge Done
  .try {
    .try { call void thrower() leave.s Next }
    finally { ldloc caught ldc.i4.0 add stloc caught endfinally }
  } catch [mscorlib]System.InvalidOperationException {
    pop ldloc caught ldc.i4.1 add stloc caught leave.s Next
  }
Next: ldloc i ldc.i4.1 add stloc i br L
Done: ldloc caught ret
}
.method public static void entry() cil managed { .entrypoint .maxstack 1 ret }`

// rethrowLoop rethrows (or throws anew) from a catch, caught by an outer
// catch of the same method: the continuation runs in the main body's frame.
const rethrowLoop = `.assembly t {}
.method public static int32 main(int32 n) cil managed {
  .maxstack 2
  .locals init (int32 i, int32 caught)
L: ldloc i ldarg n bge Done
  .try {
    .try {
      newobj instance void [mscorlib]System.InvalidOperationException::.ctor()
      throw
    } catch [mscorlib]System.InvalidOperationException {
      pop
      ldloc i ldc.i4.1 and brtrue.s New
      rethrow
    New:
      newobj instance void [mscorlib]System.ArgumentException::.ctor()
      throw
    }
  } catch [mscorlib]System.Exception {
    pop ldloc caught ldc.i4.1 add stloc caught leave.s Next
  }
Next: ldloc i ldc.i4.1 add stloc i br L
Done: ldloc caught ret
}
.method public static void entry() cil managed { .entrypoint .maxstack 1 ret }`

// TestCatchLoopMemory throws and catches 100,000 exceptions: every one
// must be caught, no dispatch may be left behind, the managed heap may grow
// at most by the exception objects themselves (what the collector has not
// reclaimed yet), and the Go heap must stay flat.
func TestCatchLoopMemory(t *testing.T) {
	for name, src := range map[string]string{"throw-finally-catch": catchLoop, "rethrow-and-throw-from-catch": rethrowLoop} {
		t.Run(name, func(t *testing.T) { testCatchLoopMemory(t, src) })
	}
}

func testCatchLoopMemory(t *testing.T, src string) {
	mod, rt := jitRuntimeOf(t, "loop.il", src)
	main := methodNamed(t, mod, "main")
	run := func(n int64) {
		got, err := rt.Call(context.Background(), main, []any{n})
		if err != nil || got != n {
			t.Fatalf("main(%d) = %v, %v; want %d", n, got, err, n)
		}
	}
	run(1000) // compile everything
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	heap0 := rt.Stats().HeapBytes
	const n = 100000
	run(n)
	runtime.GC()
	runtime.ReadMemStats(&after)
	st := rt.Stats()
	if st.Trackers != 0 {
		t.Errorf("%d exception dispatches left behind", st.Trackers)
	}
	perThrow := float64(st.HeapBytes-heap0) / n
	size := il.ObjectSize(mod.Class("System.InvalidOperationException").NumFields)
	if perThrow > float64(2*size) {
		t.Errorf("managed heap grew %.1f bytes per exception; an InvalidOperationException is %d", perThrow, size)
	}
	if growth := int64(after.HeapAlloc) - int64(before.HeapAlloc); growth > 1<<20 {
		t.Errorf("Go heap grew by %d bytes over %d exceptions", growth, n)
	}
	t.Logf("%d exceptions: managed heap +%.1f bytes each, Go heap %d -> %d bytes", n, perThrow, before.HeapAlloc, after.HeapAlloc)
}

// jitRuntimeOf loads src (as file name) and returns its module and a JIT
// runtime for it, compiling with validation and discarding the output;
// the runtime is closed when the test ends.
func jitRuntimeOf(t *testing.T, name, src string) (*il.Module, *jitrt.Runtime) {
	t.Helper()
	mod, err := il.Load(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := jitrt.NewRuntime(mod, jitrt.Options{Stdout: io.Discard, Compile: compileMethod(mod, jit.Config{Validate: true})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return mod, rt
}

// methodNamed returns mod's top-level method called name, failing the
// test if there is none.
func methodNamed(t *testing.T, mod *il.Module, name string) *il.Method {
	t.Helper()
	for _, x := range mod.Methods {
		if x.Name == name {
			return x
		}
	}
	t.Fatalf("no method %s", name)
	return nil
}
