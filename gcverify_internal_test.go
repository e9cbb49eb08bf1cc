package miniil

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"miniil/abi"
	"miniil/amd64"
	"miniil/il"
	"miniil/ir"
	"miniil/jit"
	"miniil/jitrt"
)

// runVerified runs mod's entry point on the JIT with the GC information
// verifier on, compiling with mutate applied to each compiled method
// (nil: none; with mutate, calls are not inlined: the mutations are of
// call sites), and returns the output, the exit code, the error and the
// verifier's counts.
func runVerified(t *testing.T, mod *il.Module, mutate func(st *jit.Method)) (string, int, error, jitrt.GCVerifyStats) {
	t.Helper()
	var out bytes.Buffer
	var c *jit.Compiler
	compile := func(rt *jitrt.Runtime, m *il.Method) (*abi.Method, error) {
		if c == nil {
			cfg := jit.Config{Env: rt, Initialized: rt.Initialized, Validate: true}
			if mutate != nil {
				cfg.Skip = map[string]bool{jit.Inline: true}
			}
			c = jit.New(cfg)
		}
		st, err := c.Compile(mod, m, "")
		if err != nil {
			return nil, err
		}
		if mutate != nil {
			mutate(st)
		}
		return st.Compiled(), nil
	}
	rt, err := jitrt.NewRuntime(mod, jitrt.Options{Stdout: &out, Compile: compile, VerifyGC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	code, err := rt.Run(context.Background())
	return out.String(), code, err, rt.GCVerifyStats()
}

// TestVerifyGCCorpus runs every corpus program with the GC information
// verifier on: each must still give its golden output and exit code,
// and the verifier must have checked locations, references, interior
// pointers and untracked slots among them.
func TestVerifyGCCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("tests", "corpus", "*.il"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus programs: %v", err)
	}
	var total jitrt.GCVerifyStats
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(strings.TrimSuffix(path, ".il") + ".out")
		if err != nil {
			t.Fatal(err)
		}
		mod, err := il.Load(path, src)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out, code, err, st := runVerified(t, mod, nil)
		if err != nil && !isProgramOutcome(err) {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if err != nil {
			code = ExitUnhandled
		}
		// The golden records the process exit status: the low 8 bits of
		// the entry point's result.
		if got := out + "exit=" + strconv.Itoa(code&0xFF) + "\n"; got != string(want) {
			t.Errorf("%s: got\n%s\nwant\n%s", path, got, want)
		}
		sum(&total, st)
	}
	t.Logf("%d programs: %+v", len(files), total)
	// Every kind of location and every path of the walk must have been
	// checked, or the corpus does not test what it seems to.
	for _, c := range []struct {
		what string
		n    int
	}{
		{"exits walked", total.Exits}, {"locations checked", total.Roots}, {"references", total.Refs},
		{"interior pointers", total.Interior}, {"untracked slots", total.Untracked}, {"registers", total.Registers},
		{"arguments at prestubs", total.Arguments}, {"frames", total.Frames}, {"funclet frames", total.Funclets},
		{"frames reached through a dispatch", total.Dispatched}, {"frames under a running filter", total.Filtering},
		{"nested runtime calls", total.Nested}, {"registers in save slots", total.SavedRegs},
	} {
		if c.n < 10 {
			t.Errorf("only %d %s over the corpus", c.n, c.what)
		}
	}
}

// sum adds the counts of st to total.
func sum(total *jitrt.GCVerifyStats, st jitrt.GCVerifyStats) {
	total.Exits += st.Exits
	total.Roots += st.Roots
	total.Refs += st.Refs
	total.Interior += st.Interior
	total.Untracked += st.Untracked
	total.Registers += st.Registers
	total.Arguments += st.Arguments
	total.Frames += st.Frames
	total.Funclets += st.Funclets
	total.Dispatched += st.Dispatched
	total.Filtering += st.Filtering
	total.Nested += st.Nested
	total.Prestubs += st.Prestubs
	total.SavedRegs += st.SavedRegs
}

// isProgramOutcome reports whether err is how a program ends by itself
// (an unhandled exception or a stack overflow), not a failure of miniil.
func isProgramOutcome(err error) bool {
	switch convertError(err).(type) {
	case *ManagedException, *StackOverflowError:
		return true
	}
	return false
}

// corruptSrc has an integer, a reference and an interior pointer live
// across calls, and references defined after the call to Nop (eight
// objects live at once across calls: some of them in frame slots).
const corruptSrc = `
.assembly t {}
.class public Box extends [mscorlib]System.Object {
  .field public int32 v
  .method public specialname rtspecialname instance void .ctor() cil managed {
    ldarg.0 call instance void [mscorlib]System.Object::.ctor() ret
  }
}
.method public static void Use(object o) cil managed { .maxstack 1 ret }
.method public static void Use8(object a, object b, object c, object d, object e, object f, object g, object h) cil managed {
  .maxstack 1 ret
}
.method public static void Nop() cil managed { .maxstack 1 ret }
.method public static int32 Work(int32 n) cil managed {
  .maxstack 8
  .locals init (int32 i, class Box b, int32& p)
  newobj instance void Box::.ctor() stloc b
  ldloc b ldflda int32 Box::v stloc p
  ldc.i4 0x12345 stloc i
L: call void Nop()
  newobj instance void Box::.ctor()
  newobj instance void Box::.ctor()
  newobj instance void Box::.ctor()
  newobj instance void Box::.ctor()
  newobj instance void Box::.ctor()
  newobj instance void Box::.ctor()
  newobj instance void Box::.ctor()
  newobj instance void Box::.ctor()
  call void Use8(object, object, object, object, object, object, object, object)
  ldloc b call void Use(object)
  ldloc p ldloc i stind.i4
  ldloc i ldc.i4.1 sub stloc i
  ldloc i ldc.i4 0x12340 bgt L
  ldloc i ret
}
.method public static int32 main() cil managed {
  .entrypoint .maxstack 1
  ldc.i4.0 call int32 Work(int32) pop
  ldc.i4.0 ret
}`

// TestVerifyGCCatchesCorruption checks that the verifier fails the run
// when the GC information of Work is wrong in each of the ways below,
// and passes it when it is right.
func TestVerifyGCCatchesCorruption(t *testing.T) {
	mod, err := il.Load("corrupt.il", []byte(corruptSrc))
	if err != nil {
		t.Fatal(err)
	}
	// nop returns the safepoint of Work's call to Nop.
	nop := func(t *testing.T, st *jit.Method) *abi.Safepoint {
		callIL := -1
		for _, b := range st.Func.Blocks {
			for _, in := range b.Instrs {
				if in.Op == ir.OpCall && in.Aux.Method().Name == "Nop" {
					callIL = int(in.ILOffset)
				}
			}
		}
		gi := &st.Code.GC
		for i := range gi.Safepoints {
			if s := &gi.Safepoints[i]; int(s.ILOffset) == callIL && s.Flags&abi.SPCall != 0 {
				return s
			}
		}
		t.Fatalf("Work has no call of Nop:\n%s", st.Func)
		return nil
	}
	// loc returns the location of value v.
	loc := func(t *testing.T, st *jit.Method, v ir.Value, interior bool) abi.GCLoc {
		if r := st.Code.Homes[v]; r != amd64.NoReg {
			return abi.RegLoc(regNumber(t, r), interior)
		}
		if st.Code.Slots[v] == 0 {
			t.Fatalf("%s has no location", v)
		}
		return abi.FrameLoc(st.Code.Slots[v], interior)
	}
	local := func(st *jit.Method, i int) ir.Value { return ir.Value(st.Func.NumArgs + i) }
	add := func(gi *abi.GCInfo, s *abi.Safepoint, l abi.GCLoc) {
		live := append(append([]abi.GCLoc(nil), gi.LiveAt(s)...), l)
		s.Live, s.NLive = uint32(len(gi.Locs)), uint32(len(live))
		gi.Locs = append(gi.Locs, live...)
	}
	for _, tt := range []struct {
		name   string
		mutate func(t *testing.T, st *jit.Method)
		want   string // "": the run must pass
	}{
		{"intact", func(t *testing.T, st *jit.Method) {}, ""},
		{"an integer reported as a reference", func(t *testing.T, st *jit.Method) {
			add(&st.Code.GC, nop(t, st), loc(t, st, local(st, 0), false))
		}, "holds 0x12345, which is neither null nor an object"},
		{"an integer reported as an interior pointer", func(t *testing.T, st *jit.Method) {
			add(&st.Code.GC, nop(t, st), loc(t, st, local(st, 0), true))
		}, "holds 0x12345, which points into no object"},
		{"an interior pointer reported as a reference", func(t *testing.T, st *jit.Method) {
			add(&st.Code.GC, nop(t, st), loc(t, st, local(st, 2), false))
		}, "which is neither null nor an object"},
		{"a slot reported before it is written", func(t *testing.T, st *jit.Method) {
			// An object allocated after the call to Nop, in a frame slot:
			// when Nop is first called, the slot holds what the free stack
			// was filled with.
			for _, b := range st.Func.Blocks {
				for _, in := range b.Instrs {
					if in.Op == ir.OpAlloc && st.Code.Slots[in.Dst] != 0 && int(in.ILOffset) > int(nop(t, st).ILOffset) {
						add(&st.Code.GC, nop(t, st), loc(t, st, in.Dst, false))
						return
					}
				}
			}
			t.Fatalf("no object allocated after the call to Nop lives in a frame slot:\n%s", st.Func)
		}, "holds 0xbad0bad0bad0bad8"},
		{"a caller-saved register at a call", func(t *testing.T, st *jit.Method) {
			add(&st.Code.GC, nop(t, st), abi.RegLoc(abi.RegR10, false))
		}, "nowhere the walk can find it"},
		{"a safepoint left out", func(t *testing.T, st *jit.Method) {
			s := nop(t, st)
			gi := &st.Code.GC
			var keep []abi.Safepoint
			for i := range gi.Safepoints {
				if &gi.Safepoints[i] != s {
					keep = append(keep, gi.Safepoints[i])
				}
			}
			gi.Safepoints = keep
		}, "no GC information at return address"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mutated := false
			_, code, err, st := runVerified(t, mod, func(s *jit.Method) {
				if s.IL.Name == "Work" {
					tt.mutate(t, s)
					mutated = true
				}
			})
			if !mutated {
				t.Fatal("Work was not compiled")
			}
			if tt.want == "" {
				if err != nil || code != 0 {
					t.Fatalf("exit %d, %v", code, err)
				}
				if st.Roots == 0 {
					t.Fatal("the verifier checked nothing")
				}
				return
			}
			if err == nil {
				t.Fatalf("the run passed (%d exits walked, %d locations checked)", st.Exits, st.Roots)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "GC information check failed") {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// regNumber maps a register home to its abi number.
func regNumber(t *testing.T, r amd64.Reg) int {
	for n, want := range []amd64.Reg{amd64.RAX, amd64.RBX, amd64.RCX, amd64.RDX, amd64.RSI, amd64.RDI,
		amd64.R8, amd64.R9, amd64.R10, amd64.R11, amd64.R12, amd64.R13, amd64.R14} {
		if r == want {
			return n
		}
	}
	t.Fatalf("no GC register number for %s", r)
	return -1
}
