package miniil

import (
	"context"
	"io"
	"testing"

	"miniil/il"
	"miniil/interp"
	"miniil/jit"
	"miniil/jitrt"
)

// ehShapes holds exception dispatches of several shapes, each a static
// method run(int32 n) that throws and catches n times and returns a
// checksum that depends on the order in which handlers ran.
const ehShapes = `.assembly t {}
.class public auto ansi E extends [mscorlib]System.Exception {
  .field public int32 code
  .method public specialname rtspecialname instance void .ctor(int32 c) cil managed {
    .maxstack 2
    ldarg.0 call instance void [mscorlib]System.Exception::.ctor() ldarg.0 ldarg.1 stfld int32 E::code ret
  }
}
.field public static int32 acc
.method public static void deep(int32 d, int32 v) cil managed {
  .maxstack 3
  .try {
    ldarg.0 ldc.i4.1 bgt.s DEEPER
    ldarg.1 newobj instance void E::.ctor(int32) throw
DEEPER:
    ldarg.0 ldc.i4.1 sub ldarg.1 call void deep(int32, int32) leave.s DONE
  } finally {
    // acc = acc * 3 + d: the order of the finallys shows
    ldsfld int32 acc ldc.i4.3 mul ldarg.0 add stsfld int32 acc endfinally
  }
DONE: ret
}
// finallys: a throw through 5 frames, each with a finally, caught by a
// catch that reads the exception.
.method public static int32 finallys(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i)
  ldc.i4.0 stsfld int32 acc
  br.s T
L: .try { ldc.i4.5 ldloc i call void deep(int32, int32) leave.s N }
  catch E { ldfld int32 E::code ldsfld int32 acc add stsfld int32 acc leave.s N }
N: ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg.0 blt.s L
  ldsfld int32 acc ret
}
// filters: a declining filter, then a catch; the filter runs before the
// finally between them.
.method public static void thrower(int32 v) cil managed {
  .maxstack 3
  .try { ldarg.0 newobj instance void E::.ctor(int32) throw }
  finally { ldsfld int32 acc ldc.i4.7 mul ldc.i4.1 add stsfld int32 acc endfinally }
}
.method public static int32 filters(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i)
  ldc.i4.0 stsfld int32 acc
  br.s T
L: .try {
    .try { ldloc i call void thrower(int32) leave.s N }
    filter { pop ldsfld int32 acc ldc.i4.5 mul ldc.i4.2 add stsfld int32 acc ldc.i4.0 endfilter }
    { pop leave.s N }
  } catch E { pop ldsfld int32 acc ldc.i4.3 add stsfld int32 acc leave.s N }
N: ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg.0 blt.s L
  ldsfld int32 acc ret
}
// nested: the finally of a dispatch throws an exception that a catch
// inside that finally handles, then the first dispatch goes on; the
// outer catch rethrows once, caught again.
.method public static void inner(int32 v) cil managed {
  .maxstack 3
  .try { ldarg.0 newobj instance void E::.ctor(int32) throw }
  finally {
    .try { ldc.i4 100 newobj instance void E::.ctor(int32) throw }
    catch E { ldfld int32 E::code ldsfld int32 acc add stsfld int32 acc leave.s F }
F:  endfinally
  }
}
.method public static int32 nested(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i)
  ldc.i4.0 stsfld int32 acc
  br.s T
L: .try {
    .try { ldloc i call void inner(int32) leave.s N }
    catch E { pop rethrow }
  } catch E { ldfld int32 E::code ldsfld int32 acc ldc.i4.3 mul add stsfld int32 acc leave.s N }
N: ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg.0 blt.s L
  ldsfld int32 acc ret
}
// garbage: the finallys allocate, so collections run while the
// dispatch holds the exception; the catch reads it.
.method public static void churn(int32 d, int32 v) cil managed {
  .maxstack 3
  .locals init (int32 k)
  .try {
    ldarg.0 ldc.i4.1 bgt.s DEEPER
    ldarg.1 newobj instance void E::.ctor(int32) throw
DEEPER:
    ldarg.0 ldc.i4.1 sub ldarg.1 call void churn(int32, int32) leave.s DONE
  } finally {
A:  ldc.i4.s 100 newarr [mscorlib]System.Int32 pop
    ldloc k ldc.i4.1 add stloc k ldloc k ldc.i4.s 50 blt.s A
    endfinally
  }
DONE: ret
}
.method public static int32 garbage(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i, int32 sum)
  br.s T
L: .try { ldc.i4.3 ldloc i call void churn(int32, int32) leave.s N }
  catch E { ldfld int32 E::code ldloc sum add stloc sum leave.s N }
N: ldloc i ldc.i4.1 add stloc i
T: ldloc i ldarg.0 blt.s L
  ldloc sum ret
}
.method public static void entry() cil managed { .entrypoint .maxstack 1 ret }`

// TestExceptionDispatchExits checks that a throw whose handler is a catch
// leaves native code once, however many finally blocks run before the
// catch (the dispatcher plans the second pass and the plan stub runs the
// funclets and resumes the continuation), that a declining filter does
// not return to Go once the search that ran it is remembered (the plan
// stub runs it; the warm-up call remembers it), and that the results,
// which depend on the order the handlers ran in, are the interpreter's.
func TestExceptionDispatchExits(t *testing.T) {
	mod, err := il.Load("eh.il", []byte(ehShapes))
	if err != nil {
		t.Fatal(err)
	}
	for _, stress := range []int{0, 1} {
		rt, err := jitrt.NewRuntime(mod, jitrt.Options{Stdout: io.Discard, Compile: compileMethod(mod, jit.Config{Validate: true}),
			GCStress: stress, NurseryBytes: jitrt.MinNurseryBytes})
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		const n = 200
		for _, tc := range []struct {
			method          string
			throws, returns int // exits for n iterations
		}{
			{"finallys", n, 0},
			{"filters", n, 0},
			{"nested", 3 * n, 0}, // two throws and a rethrow
			{"garbage", n, 0},
		} {
			var m *il.Method
			for _, x := range mod.Methods {
				if x.Name == tc.method {
					m = x
				}
			}
			want, err := interp.Call(context.Background(), mod, m, []any{int64(n)}, interp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rt.Call(context.Background(), m, []any{int64(5)}); err != nil {
				t.Fatal(err) // compiles
			}
			before := rt.ExitCounts()
			got, err := rt.Call(context.Background(), m, []any{int64(n)})
			if err != nil || got != want {
				t.Fatalf("gcstress %d: %s(%d) = %v, %v; want %v (the interpreter's)", stress, tc.method, n, got, err, want)
			}
			after := rt.ExitCounts()
			throws := after["Throw"] + after["Rethrow"] - before["Throw"] - before["Rethrow"]
			returns := after["funclet return"] - before["funclet return"]
			if throws != tc.throws || returns != tc.returns {
				t.Errorf("gcstress %d: %s: %d throw and %d funclet return exits; want %d and %d", stress, tc.method, throws, returns, tc.throws, tc.returns)
			}
		}
	}
}
