package opt_test

import (
	"testing"

	"miniil/ir"
	"miniil/opt"
)

// hoistSrc holds loops with invariant work HoistLoops moves, and loops
// where moving it would change what the program does.
const hoistSrc = `
// while (i < n) s += a[i] * x * y: a's check and length, and x * y.
.method public static int32 Sum(int32[] a, int32 n, int32 x, int32 y) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.1 bge.s D
  ldloc s ldarg.0 ldloc i ldelem.i4 ldarg.2 ldarg.3 mul mul add stloc s
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
// A call comes first: a's check stays (a null a must throw after the
// print), its length cannot be read before it.
.method public static int32 PrintFirst(int32[] a, int32 n) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.1 bge.s D
  ldloc i call void [mscorlib]System.Console::WriteLine(int32)
  ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
// a is replaced in the loop.
.method public static int32 Replaced(int32[] a, int32[] b, int32 n) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.2 bge.s D
  ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
  ldarg.1 starg.s a
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
// The division's operands are invariant, but it follows its checks.
.method public static int32 Divide(int32 n, int32 x, int32 y) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.0 bge.s D
  ldloc s ldarg.1 ldarg.2 div add stloc s
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
// The loop is inside a try: its check and length move, in the try.
.method public static int32 InTry(int32[] a, int32 n) cil managed {
  .locals init (int32 i, int32 s)
  .try {
L:  ldloc i ldarg.1 bge.s D
    ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
    ldloc i ldc.i4.1 add stloc i br.s L
D:  leave.s E
  } catch [mscorlib]System.Exception { pop leave.s E }
E: ldloc s ret
}
// In a try, s is written before a's check: the catch and the code
// after it see s, so the check stays after the write (a null a leaves
// s = 1, not 0) and the length with it.
.method public static int32 WriteInTry(int32[] a, int32 n) cil managed {
  .locals init (int32 i, int32 s)
  .try {
L:  ldloc i ldarg.1 bge.s D
    ldloc s ldc.i4.1 add stloc s
    ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
    ldloc i ldc.i4.1 add stloc i br.s L
D:  leave.s E
  } catch [mscorlib]System.NullReferenceException { pop leave.s E }
E: ldloc s ret
}
// The same loop outside a try: an exception ends the frame, which no
// one sees again, so the check and the length move.
.method public static int32 WriteNoTry(int32[] a, int32 n) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.1 bge.s D
  ldloc s ldc.i4.1 add stloc s
  ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
  ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
// A try inside the loop: nothing moves.
.method public static int32 TryInside(int32[] a, int32 n) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc i ldarg.1 bge.s D
  .try {
    ldloc s ldarg.0 ldloc i ldelem.i4 add stloc s
    leave.s N
  } finally { ldloc s ldc.i4.1 add stloc s endfinally }
N: ldloc i ldc.i4.1 add stloc i br.s L
D: ldloc s ret
}
// l is set to a constant once, in a filter that runs only if the loop
// throws: the loop reads l's initial zero, so x * l is no invariant (fuzz
// seed 31002019 found the constant taken for l's value).
.method public static int32 FilterConst(int32 n, int32 x) cil managed {
  .locals init (int32 i, int32 s, int32 l)
  .try {
L:  ldloc i ldarg.0 bge.s D
    ldloc s ldarg.1 ldloc l mul add stloc s
    ldloc i ldc.i4.1 add stloc i br.s L
D:  leave.s E
  } filter { pop ldc.i4.1 stloc l ldc.i4.1 endfilter } { pop leave.s E }
E: ldloc s ret
}
// A do-while: the check is the first thing the body does, no test
// copy is needed.
.class public HCell extends [mscorlib]System.Object { .field public int32 v }
.method public static int32 DoWhile(class HCell o, int32 n) cil managed {
  .locals init (int32 i, int32 s)
L: ldloc s ldarg.0 ldfld int32 HCell::v add stloc s
  ldloc i ldc.i4.1 add dup stloc i ldarg.1 blt.s L
  ldloc s ret
}
`

// inLoops counts, in the blocks of f's loops, the null checks and the
// instructions of the given operations.
func inLoops(f *ir.Func, ops ...ir.Op) (checks, instrs int) {
	l := opt.FindLoops(f)
	for _, lp := range l.All {
		for _, b := range lp.Blocks {
			if isNullCheck(b) {
				checks++
			}
			for _, in := range b.Instrs {
				for _, op := range ops {
					if in.Op == op {
						instrs++
					}
				}
			}
		}
	}
	return checks, instrs
}

// isNullCheck reports whether b ends in a null check.
func isNullCheck(b *ir.Block) bool {
	return b.Term.Op == ir.OpIf && len(b.Succs) == 2 && b.Succs[1].Term.Op == ir.OpThrowHelper &&
		b.Succs[1].Term.Aux.Class().Name == "System.NullReferenceException"
}

func TestHoistLoops(t *testing.T) {
	hoisted := []ir.Op{ir.OpArrLen, ir.OpMul, ir.OpDiv}
	for _, tc := range []struct {
		method                   string
		checks, instrs           int // in loops, before
		checksAfter, instrsAfter int
	}{
		{"Sum", 1, 3, 0, 1},        // the check, the length, x*y; a[i]*(x*y) stays
		{"PrintFirst", 1, 1, 1, 1}, // nothing
		{"Replaced", 1, 1, 1, 1},
		{"Divide", 0, 1, 0, 1},
		{"InTry", 1, 1, 0, 0},
		{"WriteInTry", 1, 1, 1, 1},
		{"WriteNoTry", 1, 1, 0, 0},
		{"TryInside", 1, 1, 1, 1},
		{"DoWhile", 1, 0, 0, 0},
		{"FilterConst", 0, 1, 0, 1},
	} {
		t.Run(tc.method, func(t *testing.T) {
			f := importMethod(t, hoistSrc, tc.method)
			prepare(f)
			if c, n := inLoops(f, hoisted...); c != tc.checks || n != tc.instrs {
				t.Fatalf("before: %d checks and %d instructions in loops, want %d and %d:\n%s", c, n, tc.checks, tc.instrs, f)
			}
			opt.HoistLoops(f)
			if err := ir.Check(f); err != nil {
				t.Fatalf("%v\n%s", err, f)
			}
			if c, n := inLoops(f, hoisted...); c != tc.checksAfter || n != tc.instrsAfter {
				t.Errorf("after: %d checks and %d instructions in loops, want %d and %d:\n%s", c, n, tc.checksAfter, tc.instrsAfter, f)
			}
		})
	}
}

const depthSrc = `
.field static int32 g
.method public static int32 Leaf(int32 x) cil managed { ldarg.0 ldc.i4.1 add ret }
// Sum calls Leaf first thing in its loop: the depth check of the
// inlined call leaves the loop.
.method public static int32 Sum(int32 n) cil managed {
  .locals init (int32 i, int32 s)
  br.s T
L:
  ldloc.1
  ldloc.0
  call int32 Leaf(int32)
  add
  stloc.1
  ldloc.0
  ldc.i4.1
  add
  stloc.0
T:
  ldloc.0
  ldarg.0
  blt.s L
  ldloc.1
  ret
}
// Two calls Leaf twice in its loop: one check before the loop stands
// for both.
.method public static int32 Two(int32 n) cil managed {
  .locals init (int32 i, int32 s)
  br.s T
L:
  ldloc.1
  ldloc.0
  call int32 Leaf(int32)
  call int32 Leaf(int32)
  add
  stloc.1
  ldloc.0
  ldc.i4.1
  add
  stloc.0
T:
  ldloc.0
  ldarg.0
  blt.s L
  ldloc.1
  ret
}
// AfterStore writes a static before the call: a stack overflow must
// come after the write, so the check stays.
.method public static int32 AfterStore(int32 n) cil managed {
  .locals init (int32 i, int32 s)
  br.s T
L:
  ldloc.0
  stsfld int32 g
  ldloc.1
  ldloc.0
  call int32 Leaf(int32)
  add
  stloc.1
  ldloc.0
  ldc.i4.1
  add
  stloc.0
T:
  ldloc.0
  ldarg.0
  blt.s L
  ldloc.1
  ret
}
`

// TestHoistDepthChecks checks that the call-depth check of a call inlined
// in a loop moves to the preheader when the loop surely runs it before
// any effect, and stays otherwise.
func TestHoistDepthChecks(t *testing.T) {
	for _, tc := range []struct {
		method        string
		calls         int // inlined
		before, after int // depth checks in loops
		total         int // depth checks in the method, after
	}{
		{"Sum", 1, 1, 0, 1},
		{"Two", 2, 2, 0, 1},
		{"AfterStore", 1, 1, 1, 1},
	} {
		t.Run(tc.method, func(t *testing.T) {
			f, n := inlineFrom(t, depthSrc, tc.method)
			if n != tc.calls {
				t.Fatalf("%d calls inlined, want %d:\n%s", n, tc.calls, f)
			}
			prepare(f)
			if _, c := inLoops(f, ir.OpDepthCheck); c != tc.before {
				t.Fatalf("before: %d depth checks in loops, want %d:\n%s", c, tc.before, f)
			}
			opt.HoistLoops(f)
			if err := ir.Check(f); err != nil {
				t.Fatalf("%v\n%s", err, f)
			}
			if _, c := inLoops(f, ir.OpDepthCheck); c != tc.after {
				t.Errorf("after: %d depth checks in loops, want %d:\n%s", c, tc.after, f)
			}
			total := 0
			for _, b := range f.Blocks {
				for _, in := range b.Instrs {
					if in.Op == ir.OpDepthCheck {
						total++
					}
				}
			}
			if total != tc.total {
				t.Errorf("%d depth checks in the method, want %d:\n%s", total, tc.total, f)
			}
		})
	}
}
