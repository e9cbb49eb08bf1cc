package opt_test

import (
	"strings"
	"testing"

	"miniil/il"
	"miniil/ir"
	"miniil/opt"
	"miniil/reader"
)

// inlineSrc holds callees of every kind the inliner takes or refuses, and
// one caller per case.
const inlineSrc = `
.class public Cell extends [mscorlib]System.Object {
  .field public int32 v
  .method public specialname rtspecialname instance void .ctor() cil managed {
    ldarg.0 call instance void [mscorlib]System.Object::.ctor() ret
  }
  .method public instance int32 Get() cil managed { ldarg.0 ldfld int32 Cell::v ret }
  .method public virtual instance int32 Virt() cil managed { ldc.i4.1 ret }
  .method public virtual final instance int32 Fin() cil managed { ldc.i4.2 ret }
}
.class public sealed Sealed extends [mscorlib]System.Object {
  .method public virtual instance int32 Virt() cil managed { ldc.i4.3 ret }
}
.method public static int32 Add(int32 a, int32 b) cil managed { ldarg.0 ldarg.1 add ret }
// Bump writes its argument: the copy gets a temporary of its own.
.method public static int32 Bump(int32 a) cil managed { ldarg.0 ldc.i4.1 add starg.s a ldarg.0 ret }
// Acc reads its local before writing it: each copy zeroes it.
.method public static int32 Acc(int32 a) cil managed {
  .locals init (int32 s)
  ldarg.0 brfalse.s Z
  ldloc s ldarg.0 add stloc s
Z: ldloc s ret
}
.method public static int32 Twice(int32 a) cil managed { ldarg.0 ldarg.0 call int32 Add(int32, int32) ret }
.method public static int32 Rec(int32 n) cil managed {
  ldarg.0 brfalse.s Z ldarg.0 ldc.i4.1 sub call int32 Rec(int32) ret
Z: ldc.i4.0 ret
}
.method public static int32 Guarded(int32 a) cil managed {
  .try { leave.s D } finally { endfinally }
D: ldarg.0 ret
}
.method public static int32 Loop(int32 n) cil managed {
  .locals init (int32 i)
L: ldloc i ldc.i4.1 add stloc i ldloc i ldarg.0 blt.s L
  ldloc i ret
}
.method public static void Print(object o) cil managed { ldarg.0 call void [mscorlib]System.Console::WriteLine(object) ret }
.method public static void PrintS(string s) cil managed { ldarg.0 call void [mscorlib]System.Console::WriteLine(string) ret }
.method public static void Throws() cil managed { newobj instance void [mscorlib]System.Exception::.ctor() throw }

.method public static int32 cAdd() cil managed { ldc.i4.1 ldc.i4.2 call int32 Add(int32, int32) ret }
.method public static int32 cBump(int32 x) cil managed { ldarg.0 call int32 Bump(int32) ldarg.0 add ret }
.method public static int32 cAcc() cil managed { ldc.i4.1 call int32 Acc(int32) ldc.i4.2 call int32 Acc(int32) add ret }
.method public static int32 cTwice() cil managed { ldc.i4.2 call int32 Twice(int32) ret }
.method public static int32 cRec() cil managed { ldc.i4.3 call int32 Rec(int32) ret }
.method public static int32 cGuarded() cil managed { ldc.i4.3 call int32 Guarded(int32) ret }
.method public static int32 cLoop() cil managed { ldc.i4.3 call int32 Loop(int32) ret }
.method public static void cPrint() cil managed { ldnull call void Print(object) ret }
.method public static void cPrintS() cil managed { ldnull call void PrintS(string) ret }
.method public static void cThrows() cil managed { call void Throws() ret }
.method public static int32 cGet(class Cell c) cil managed { ldarg.0 callvirt instance int32 Cell::Get() ret }
.method public static int32 cVirt(class Cell c) cil managed { ldarg.0 callvirt instance int32 Cell::Virt() ret }
.method public static int32 cFin(class Cell c) cil managed { ldarg.0 callvirt instance int32 Cell::Fin() ret }
.method public static int32 cSealed(class Sealed c) cil managed { ldarg.0 callvirt instance int32 Sealed::Virt() ret }
.method public static object cNew() cil managed { newobj instance void Cell::.ctor() ret }
`

// inlineInto imports method name of inlineSrc, runs the inliner on it
// and returns its IR and the number of calls inlined.
func inlineInto(t *testing.T, name string) (*ir.Func, int) {
	t.Helper()
	return inlineFrom(t, inlineSrc, name)
}

// inlineFrom imports method name of src, runs the inliner on it and
// returns its IR and the number of calls inlined.
func inlineFrom(t *testing.T, src, name string) (*ir.Func, int) {
	t.Helper()
	const head = ".assembly extern mscorlib {}\n.assembly t {}\n" +
		".method public static void main() cil managed\n{\n  .entrypoint\n  ret\n}\n"
	mod, err := il.Load("test.il", []byte(head+src))
	if err != nil {
		t.Fatal(err)
	}
	var m *il.Method
	for _, x := range mod.AllMethods() {
		if x.Name == name && !x.Builtin {
			m = x
		}
	}
	if m == nil {
		t.Fatalf("no method %s", name)
	}
	f, err := reader.Import(mod, m)
	if err != nil {
		t.Fatal(err)
	}
	n := opt.Inline(f, func(c *il.Method) (*ir.Func, error) { return reader.Import(mod, c) })
	if err := ir.Check(f); err != nil {
		t.Fatalf("after inlining: %v\n%s", err, f)
	}
	return f, n
}

// calls lists the managed methods f still calls.
func calls(f *ir.Func) []string {
	var out []string
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if (in.Op == ir.OpCall || in.Op == ir.OpCallVirt) && !in.Aux.Method().Builtin {
				out = append(out, in.Aux.Method().FullName())
			}
		}
	}
	return out
}

func TestInline(t *testing.T) {
	for _, tc := range []struct {
		caller  string
		inlined int      // calls inlined
		left    []string // managed calls left
		depth   int      // the deepest inlined call (0: none)
	}{
		{"cAdd", 1, nil, 1},
		{"cBump", 1, nil, 1},
		{"cAcc", 2, nil, 1},
		{"cTwice", 1, nil, 2},                   // Add inlined into Twice, Twice into cTwice
		{"cRec", 0, []string{"Rec"}, 0},         // Rec calls itself: not a leaf
		{"cGuarded", 0, []string{"Guarded"}, 0}, // handlers
		{"cLoop", 0, []string{"Loop"}, 0},       // a loop
		{"cPrint", 0, []string{"Print"}, 0},     // WriteLine(object) may call ToString
		{"cPrintS", 1, nil, 1},
		{"cThrows", 0, []string{"Throws"}, 0}, // never returns
		{"cGet", 1, nil, 1},
		{"cVirt", 0, []string{"Cell::Virt"}, 0}, // may be overridden
		{"cFin", 1, nil, 1},
		{"cSealed", 1, nil, 1},
		{"cNew", 1, nil, 1}, // the constructor: Object's does nothing
	} {
		t.Run(tc.caller, func(t *testing.T) {
			f, n := inlineInto(t, tc.caller)
			if n != tc.inlined {
				t.Errorf("%d calls inlined, want %d:\n%s", n, tc.inlined, f)
			}
			if got := calls(f); strings.Join(got, ",") != strings.Join(tc.left, ",") {
				t.Errorf("calls left %q, want %q", got, tc.left)
			}
			deepest := 0
			for _, b := range f.Blocks {
				for _, in := range b.Code() {
					d := f.InlineDepth(in.Inline)
					deepest = max(deepest, d)
					if in.Op == ir.OpDepthCheck && in.Aux.Int != int64(d) {
						t.Errorf("depth check of depth %d in code %d deep", in.Aux.Int, d)
					}
				}
			}
			if deepest != tc.depth {
				t.Errorf("inlined %d deep, want %d", deepest, tc.depth)
			}
		})
	}
}

// TestInlineCopies checks what a copy of a callee does besides its code:
// a written argument is copied first, a local read before it is written
// is zeroed by each copy, every copy starts with its depth check, and
// each return sets the call's result.
func TestInlineCopies(t *testing.T) {
	count := func(f *ir.Func, pred func(*ir.Instr) bool) int {
		n := 0
		for _, b := range f.Blocks {
			for _, in := range b.Code() {
				if pred(in) {
					n++
				}
			}
		}
		return n
	}
	f, _ := inlineInto(t, "cBump")
	x := ir.Value(0)
	if n := count(f, func(in *ir.Instr) bool {
		return in.Op == ir.OpCopy && len(in.Args) == 1 && in.Args[0] == x && in.Inline == 1
	}); n != 1 {
		t.Errorf("Bump's argument is copied %d times, want 1 (it writes it):\n%s", n, f)
	}
	if n := count(f, func(in *ir.Instr) bool { return in.Dst == x }); n != 0 {
		t.Errorf("the caller's argument is written by the inlined code:\n%s", f)
	}
	f, _ = inlineInto(t, "cAcc")
	if n := count(f, func(in *ir.Instr) bool { return in.Op == ir.OpConst && in.Inline > 0 && in.ILOffset == 0 }); n != 2 {
		t.Errorf("%d zeroed locals, want one per copy (2):\n%s", n, f)
	}
	if n := count(f, func(in *ir.Instr) bool { return in.Op == ir.OpDepthCheck }); n != 2 {
		t.Errorf("%d depth checks, want 2:\n%s", n, f)
	}
	f, _ = inlineInto(t, "cAdd")
	var result ir.Value = ir.NoValue
	for _, b := range f.Blocks {
		if b.Term.Op == ir.OpRet {
			result = b.Term.Args[0]
		}
	}
	if n := count(f, func(in *ir.Instr) bool { return in.Dst == result && in.Op == ir.OpCopy && in.Inline == 1 }); n != 1 {
		t.Errorf("the result is set %d times by the copy, want 1:\n%s", n, f)
	}
}
