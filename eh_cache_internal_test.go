package miniil

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"

	"miniil/il"
	"miniil/interp"
	"miniil/jit"
	"miniil/jitrt"
)

// ehCacheShapes holds throws that the dispatch cache must tell apart:
// one throw site raising two types that different catches take, one
// throw site reached through two callers with different handlers, a
// rethrow, and a filter whose verdict changes. Each is a static method
// run(int32 n) that throws n times and returns a checksum of the order
// in which the handlers ran.
const ehCacheShapes = `.assembly t {}
.class public auto ansi E1 extends [mscorlib]System.Exception {
  .method public specialname rtspecialname instance void .ctor() cil managed {
    .maxstack 1
    ldarg.0 call instance void [mscorlib]System.Exception::.ctor() ret
  }
}
.class public auto ansi E2 extends E1 {
  .method public specialname rtspecialname instance void .ctor() cil managed {
    .maxstack 1
    ldarg.0 call instance void E1::.ctor() ret
  }
}
.field public static int32 acc
.field public static int32 accept
.method public static void mix(int32 v) cil managed {
  .maxstack 2
  .locals init (class E1 e)
  newobj instance void E1::.ctor() stloc e
  ldarg.0 ldc.i4.1 and brfalse.s T
  newobj instance void E2::.ctor() stloc e
T: ldloc e throw
}
// types: one throw site, E1 and E2 in turn; a catch E2 inside a catch
// E1 takes only E2.
.method public static int32 types(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i)
  ldc.i4.0 stsfld int32 acc
  br.s C
L: .try {
    .try { ldloc i call void mix(int32) leave.s N }
    catch E2 { pop ldsfld int32 acc ldc.i4.s 31 mul ldc.i4.1 add stsfld int32 acc leave.s N }
  } catch E1 { pop ldsfld int32 acc ldc.i4.s 31 mul ldc.i4.2 add stsfld int32 acc leave.s N }
N: ldloc i ldc.i4.1 add stloc i
C: ldloc i ldarg.0 blt.s L
  ldsfld int32 acc ret
}
.method public static void one() cil managed {
  .maxstack 1
  newobj instance void E1::.ctor() throw
}
.method public static void viaA() cil managed {
  .maxstack 2
  .try { call void one() leave.s D }
  catch E1 { pop ldsfld int32 acc ldc.i4.s 31 mul ldc.i4.5 add stsfld int32 acc leave.s D }
D: ret
}
.method public static void viaB() cil managed {
  .maxstack 2
  .try { call void one() leave.s D }
  finally { ldsfld int32 acc ldc.i4.s 31 mul ldc.i4.7 add stsfld int32 acc endfinally }
D: ret
}
// chains: one throw site, one type, through viaA (which catches) and
// viaB (whose finally runs before the catch here) in turn, each run of
// them twice so that a remembered search is there to be taken or not.
.method public static int32 chains(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i)
  ldc.i4.0 stsfld int32 acc
  br.s C
L: .try {
    ldloc i ldc.i4.2 and brfalse.s B
    call void viaA() leave.s N
B:  call void viaB() leave.s N
  } catch E1 { pop ldsfld int32 acc ldc.i4.s 31 mul ldc.i4.s 11 add stsfld int32 acc leave.s N }
N: ldloc i ldc.i4.1 add stloc i
C: ldloc i ldarg.0 blt.s L
  ldsfld int32 acc ret
}
// rethrows: a catch rethrows to the catch around it.
.method public static int32 rethrows(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i)
  ldc.i4.0 stsfld int32 acc
  br.s C
L: .try {
    .try { call void viaB() leave.s N }
    catch E1 { pop ldsfld int32 acc ldc.i4.3 add stsfld int32 acc rethrow }
  } catch E1 { pop ldsfld int32 acc ldc.i4.s 31 mul ldc.i4.s 13 add stsfld int32 acc leave.s N }
N: ldloc i ldc.i4.1 add stloc i
C: ldloc i ldarg.0 blt.s L
  ldsfld int32 acc ret
}
// filters: a filter that accepts every third exception (accept counts
// modulo 3), else the catch around it takes it; the finally in viaB runs
// after the filter either way.
.method public static int32 filters(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i)
  ldc.i4.0 stsfld int32 acc
  ldc.i4.0 stsfld int32 accept
  br.s C
L: .try {
    .try { call void viaB() leave.s N }
    filter {
      pop ldsfld int32 acc ldc.i4.s 31 mul ldc.i4.s 17 add stsfld int32 acc
      ldsfld int32 accept ldc.i4.1 add ldc.i4.3 rem dup stsfld int32 accept
      ldc.i4.0 ceq endfilter
    } { pop ldsfld int32 acc ldc.i4.s 31 mul ldc.i4.s 19 add stsfld int32 acc leave.s N }
  } catch E1 { pop ldsfld int32 acc ldc.i4.s 31 mul ldc.i4.s 23 add stsfld int32 acc leave.s N }
N: ldloc i ldc.i4.1 add stloc i
C: ldloc i ldarg.0 blt.s L
  ldsfld int32 acc ret
}
// filterthrows: a filter whose exception escapes it every other time
// (it counts as declining), between the finally in viaB and a catch.
.method public static bool flaky() cil managed {
  .maxstack 2
  ldsfld int32 accept ldc.i4.1 add dup stsfld int32 accept
  ldc.i4.1 and brfalse.s OK
  newobj instance void E2::.ctor() throw
OK: ldc.i4.0 ret
}
.method public static int32 filterthrows(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i)
  ldc.i4.0 stsfld int32 acc
  ldc.i4.0 stsfld int32 accept
  br.s C
L: .try {
    .try { call void viaB() leave.s N }
    filter {
      pop ldsfld int32 acc ldc.i4.s 31 mul ldc.i4.s 29 add stsfld int32 acc
      call bool flaky() endfilter
    } { pop ldc.i4.0 stsfld int32 acc leave.s N }
  } catch E1 { pop ldsfld int32 acc ldc.i4.s 31 mul ldc.i4.s 37 add stsfld int32 acc leave.s N }
N: ldloc i ldc.i4.1 add stloc i
C: ldloc i ldarg.0 blt.s L
  ldsfld int32 acc ret
}
// traced: n throws caught by the catch that rethrows them to the
// filter around it, which takes all but the last: that one is
// unhandled, with the trace of the remembered search's frames.
.method public static void traced(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i)
  br.s C
L: .try {
    .try { call void viaB() leave.s N }
    catch E1 { pop rethrow }
  } filter { pop ldloc i ldc.i4.1 add ldarg.0 clt endfilter }
  { pop leave.s N }
N: ldloc i ldc.i4.1 add stloc i
C: ldloc i ldarg.0 blt.s L
  ret
}
// fresh calls a method compiled on its first call.
.method public static int32 fresh(int32 n) cil managed {
  .maxstack 1
  call int32 late() ret
}
.method public static int32 late() cil managed { .maxstack 1 ldc.i4.7 ret }
.method public static void entry() cil managed { .entrypoint .maxstack 1 ret }`

// TestDispatchCache checks that repeated throws take a remembered search
// (the count of hits), and that they take it only where the search would
// find the same handler and funclets: the checksums, which depend on
// which handlers ran in which order, must be the interpreter's when the
// type thrown, the callers of the throw site, or a filter's verdict
// change from one throw to the next, or a filter throws.
func TestDispatchCache(t *testing.T) {
	mod, err := il.Load("ehcache.il", []byte(ehCacheShapes))
	if err != nil {
		t.Fatal(err)
	}
	method := func(name string) *il.Method { return methodNamed(t, mod, name) }
	for _, stress := range []int{0, 1} {
		rt, err := jitrt.NewRuntime(mod, jitrt.Options{Stdout: io.Discard, Compile: compileMethod(mod, jit.Config{Validate: true}),
			GCStress: stress, NurseryBytes: jitrt.MinNurseryBytes})
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		const n = 60
		for _, tc := range []struct {
			method  string
			minHits int // for n throws
		}{
			{"types", n - 2},        // a miss per type
			{"chains", n/2 - 2},     // the same site and type through two chains in turn: the second of each pair hits
			{"rethrows", 2*n - 2},   // the throws and the rethrows
			{"filters", n - 2},      // run again each time; one that accepts ends the plan
			{"filterthrows", n - 2}, // one that throws ends the plan too
		} {
			m := method(tc.method)
			want, err := interp.Call(context.Background(), mod, m, []any{int64(n)}, interp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			before := rt.Stats().DispatchHits
			got, err := rt.Call(context.Background(), m, []any{int64(n)})
			if err != nil || got != want {
				t.Fatalf("gcstress %d: %s(%d) = %v, %v; want %v (the interpreter's)", stress, tc.method, n, got, err, want)
			}
			if hits := rt.Stats().DispatchHits - before; hits < tc.minHits {
				t.Errorf("gcstress %d: %s: %d throws took a remembered search; want at least %d", stress, tc.method, hits, tc.minHits)
			}
		}
		// Installing code keeps the cache: it adds addresses no search
		// went through, and installed code ranges never move. A throw
		// after it takes the search remembered before, and the answer
		// is still the interpreter's.
		if _, err := rt.Call(context.Background(), method("types"), []any{int64(4)}); err != nil {
			t.Fatal(err)
		}
		if _, err := rt.Call(context.Background(), method("fresh"), []any{int64(0)}); err != nil {
			t.Fatal(err)
		}
		want, err := interp.Call(context.Background(), mod, method("types"), []any{int64(1)}, interp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		before := rt.Stats().DispatchHits
		if got, err := rt.Call(context.Background(), method("types"), []any{int64(1)}); err != nil || got != want {
			t.Fatalf("gcstress %d: types(1) after installing code = %v, %v; want %v", stress, got, err, want)
		}
		if hits := rt.Stats().DispatchHits - before; hits == 0 {
			t.Errorf("gcstress %d: installing code made the cache forget its searches", stress)
		}
	}
}

// TestDispatchCacheTrace checks that an exception dispatched with a
// remembered search keeps the stack trace the search would have made:
// rethrown past the last handler after 19 throws from the same place,
// it reports the trace (methods and IL offsets) of the same exception
// thrown once, and the interpreter's methods.
func TestDispatchCacheTrace(t *testing.T) {
	p, err := Load("ehcache.il", []byte(ehCacheShapes))
	if err != nil {
		t.Fatal(err)
	}
	var got [3]*ManagedException
	for i, run := range []struct {
		cfg Config
		n   int32
	}{{Config{Engine: JIT}, 20}, {Config{Engine: JIT}, 1}, {Config{Engine: Interp}, 20}} {
		if _, err := p.Call(context.Background(), run.cfg, "traced", run.n); !errors.As(err, &got[i]) {
			t.Fatalf("traced(%d) on %+v: %v, want a managed exception", run.n, run.cfg, err)
		}
	}
	warm, cold, in := got[0], got[1], got[2]
	if warm.Type != cold.Type || !slices.Equal(warm.StackTrace, cold.StackTrace) || !slices.Equal(warm.ILOffsets, cold.ILOffsets) {
		t.Errorf("after 19 throws: %s at %q %v; thrown once: %s at %q %v", warm.Type, warm.StackTrace, warm.ILOffsets, cold.Type, cold.StackTrace, cold.ILOffsets)
	}
	if warm.Type != in.Type || !slices.Equal(warm.StackTrace, in.StackTrace) {
		t.Errorf("JIT: %s at %q; interpreter: %s at %q", warm.Type, warm.StackTrace, in.Type, in.StackTrace)
	}
	if len(warm.StackTrace) != 3 {
		t.Errorf("trace %q, want 3 frames (one, viaB, traced)", warm.StackTrace)
	}
}
