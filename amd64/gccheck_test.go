package amd64

import (
	"strings"
	"testing"

	"miniil/abi"
	"miniil/funclet"
	"miniil/il"
	"miniil/ir"
	"miniil/ir/irtest"
	"miniil/opt"
	"miniil/reader"
)

// gcSrc's method Run has references in registers and in the frame, an
// interior pointer, a value type holding a reference, an integer, and a
// catch whose exception is read after it resumes.
const gcSrc = `
.assembly t {}
.class public sequential sealed Pair extends [mscorlib]System.ValueType {
  .field public string s
  .field public int32 n
}
.class public Box extends [mscorlib]System.Object {
  .field public int32 v
  .method public specialname rtspecialname instance void .ctor() cil managed {
    ldarg.0 call instance void [mscorlib]System.Object::.ctor() ret
  }
}
.method public static void Use(object o) cil managed { .maxstack 1 ret }
.method public static int32 Run(int32 n) cil managed {
  .maxstack 3
  .locals init (class Box b, int32& p, valuetype Pair q, object e)
  newobj instance void Box::.ctor() stloc b
  ldloc b ldflda int32 Box::v stloc p
  ldloca q ldstr "x" stfld string Pair::s
L: ldloc b call void Use(object)
  ldloc p ldarg n stind.i4
  .try {
    ldloc b call void Use(object)
    leave.s Next
  } catch [mscorlib]System.Exception {
    stloc e leave.s Next
  }
Next:
  ldloc e call void Use(object)
  ldarg n ldc.i4.1 sub dup starg n
  brtrue L
  ldloc q ldfld string Pair::s call void Use(object)
  ldarg n ret
}
.method public static void main() cil managed { .entrypoint .maxstack 1 ret }`

// compileGC compiles method name of gcSrc and returns what CheckGC
// reads.
func compileGC(t *testing.T, name string) (*ir.Func, *funclet.Layout, *Alloc, *Code) {
	t.Helper()
	mod, err := il.Load("gc.il", []byte(gcSrc))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mod.AllMethods() {
		if m.Name != name {
			continue
		}
		f, err := reader.Import(mod, m)
		if err != nil {
			t.Fatal(err)
		}
		if err := opt.Run(f); err != nil {
			t.Fatal(err)
		}
		return emitGC(t, f)
	}
	t.Fatalf("no method %s", name)
	return nil, nil, nil, nil
}

// emitGC lays out, allocates and emits f.
func emitGC(t *testing.T, f *ir.Func) (*ir.Func, *funclet.Layout, *Alloc, *Code) {
	t.Helper()
	lay, err := funclet.Build(f)
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := Allocate(f, lay)
	if err != nil {
		t.Fatal(err)
	}
	code, err := Emit(f, lay, alloc, fixedEnv{}, NewAssembler())
	if err != nil {
		t.Fatal(err)
	}
	return f, lay, alloc, code
}

// TestCheckGCRejects checks that CheckGC accepts Run's GC information
// and rejects it after each mutation.
func TestCheckGCRejects(t *testing.T) {
	f, lay, alloc, code := compileGC(t, "Run")
	if err := CheckGC(f, lay, alloc, code); err != nil {
		t.Fatal(err)
	}
	gi := &code.GC
	var kinds = map[string]int{}
	for _, l := range append(append([]abi.GCLoc(nil), gi.Locs...), gi.Untracked...) {
		kinds[l.String()[:3]]++
		if l.IsReg() {
			kinds["reg"]++
		}
	}
	if kinds["ref"] == 0 || kinds["ptr"] == 0 || kinds["reg"] == 0 || len(gi.Untracked) < 2 {
		t.Fatalf("Run's GC information lacks references, interior pointers, registers or untracked slots: %v, %v", kinds, gi.Untracked)
	}
	// A safepoint of each kind, and the slot of an integer.
	callIdx, exitIdx := -1, -1
	for i, s := range gi.Safepoints {
		switch {
		case s.Flags == abi.SPCall && callIdx < 0:
			callIdx = i
		case s.Flags == 0 && exitIdx < 0:
			exitIdx = i
		}
	}
	intSlot := 0
	for v, off := range code.Slots {
		if off != 0 && f.Kinds[v] == ir.I32 {
			intSlot = off
		}
	}
	if callIdx < 0 || exitIdx < 0 || intSlot == 0 {
		t.Fatalf("Run has no call, exit or integer slot")
	}
	for _, tt := range []struct {
		name   string
		mutate func(gi *abi.GCInfo, call, exit *abi.Safepoint)
		want   string
	}{
		{"an integer's slot", func(gi *abi.GCInfo, call, exit *abi.Safepoint) { addLoc(gi, call, abi.FrameLoc(intSlot, false)) }, "no slot of a value of that kind"},
		{"a reference as an interior pointer", func(gi *abi.GCInfo, call, exit *abi.Safepoint) {
			for _, l := range gi.Untracked {
				if !l.Interior() {
					addLoc(gi, call, abi.FrameLoc(l.Offset(), true))
					return
				}
			}
		}, "no slot of a value of that kind"},
		{"a caller-saved register at a call", func(gi *abi.GCInfo, call, exit *abi.Safepoint) { addLoc(gi, call, abi.RegLoc(abi.RegR11, false)) }, "which the callee may change"},
		{"rax at a call site", func(gi *abi.GCInfo, call, exit *abi.Safepoint) { addLoc(gi, exit, abi.RegLoc(abi.RegRAX, false)) }, "which only a poll may"},
		{"a register that is no home", func(gi *abi.GCInfo, call, exit *abi.Safepoint) { addLoc(gi, exit, abi.RegLoc(abi.RegRCX, false)) }, "no home of a value"},
		{"a safepoint missing", func(gi *abi.GCInfo, call, exit *abi.Safepoint) { gi.Safepoints = gi.Safepoints[1:] }, "safepoints at them"},
		{"out of order", func(gi *abi.GCInfo, call, exit *abi.Safepoint) {
			gi.Safepoints[0], gi.Safepoints[1] = gi.Safepoints[1], gi.Safepoints[0]
		}, "out of order"},
		{"an untracked integer", func(gi *abi.GCInfo, call, exit *abi.Safepoint) {
			gi.Untracked = append(gi.Untracked, abi.FrameLoc(intSlot, false))
		}, "untracked"},
		{"a save slot moved", func(gi *abi.GCInfo, call, exit *abi.Safepoint) { gi.Saves[0].Offset -= 8 }, "the prolog stores"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, lay, alloc, code := compileGC(t, "Run")
			gi := &code.GC
			tt.mutate(gi, &gi.Safepoints[callIdx], &gi.Safepoints[exitIdx])
			err := CheckGC(f, lay, alloc, code)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// addLoc adds l to the live locations of s.
func addLoc(gi *abi.GCInfo, s *abi.Safepoint, l abi.GCLoc) {
	live := append(append([]abi.GCLoc(nil), gi.LiveAt(s)...), l)
	s.Live, s.NLive = uint32(len(gi.Locs)), uint32(len(live))
	gi.Locs = append(gi.Locs, live...)
}

// TestCheckGCUndefined builds IR the reader never makes: a reference
// defined on one path only and read after the paths join, so that it is
// live, but undefined, at a call on the other path. CheckGC must see it.
func TestCheckGCUndefined(t *testing.T) {
	b := irtest.New(t, ir.I32)
	thenB, elseB, join := b.Block(), b.Block(), b.Block()
	b.If(b.Arg(0), thenB, elseB)
	b.At(thenB)
	x := b.Alloc()
	b.Jump(join)
	b.At(elseB)
	b.Call(b.Method("Callee"), b.Arg(0))
	b.Jump(join)
	b.At(join)
	b.Ret(b.LdField(x, b.Field("a")))
	f, lay, alloc, code := emitGC(t, b.Func())
	err := CheckGC(f, lay, alloc, code)
	if err == nil || !strings.Contains(err.Error(), "may be undefined") {
		t.Errorf("got %v, want an error about %s, which may be undefined at the call", err, x)
	}
}
