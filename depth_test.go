package miniil_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"miniil"
	"miniil/il"
)

// depthProgram recurses n calls deep in several ways; each method called
// from Go with n runs at depth 1 and its deepest frame is at depth n+1
// (mixed: n+2).
const depthProgram = `.assembly depth {}
.class public Node extends [mscorlib]System.Object {
  .field public int32 n
  .method public specialname rtspecialname instance void .ctor(int32 n) cil managed {
    .maxstack 2
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0
    ldarg.1
    stfld int32 Node::n
    ret
  }
  // ToString recurses through String.Concat(object, object), a base
  // library method that calls ToString back.
  .method public virtual instance string ToString() cil managed {
    .maxstack 3
    ldarg.0
    ldfld int32 Node::n
    brtrue.s R
    ldstr "."
    ret
  R:
    ldarg.0
    ldfld int32 Node::n
    ldc.i4.1
    sub
    newobj instance void Node::.ctor(int32)
    ldstr ""
    call string [mscorlib]System.String::Concat(object, object)
    ret
  }
}
// Node3 and NodeArr recurse as Node does, through String.Concat(object,
// object, object) and String.Concat(object[]).
.class public Node3 extends [mscorlib]System.Object {
  .field public int32 n
  .method public specialname rtspecialname instance void .ctor(int32 n) cil managed {
    .maxstack 2
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0
    ldarg.1
    stfld int32 Node3::n
    ret
  }
  .method public virtual instance string ToString() cil managed {
    .maxstack 3
    ldarg.0
    ldfld int32 Node3::n
    brtrue.s R
    ldstr "."
    ret
  R:
    ldnull
    ldarg.0
    ldfld int32 Node3::n
    ldc.i4.1
    sub
    newobj instance void Node3::.ctor(int32)
    ldstr ""
    call string [mscorlib]System.String::Concat(object, object, object)
    ret
  }
}
.class public NodeArr extends [mscorlib]System.Object {
  .field public int32 n
  .method public specialname rtspecialname instance void .ctor(int32 n) cil managed {
    .maxstack 2
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0
    ldarg.1
    stfld int32 NodeArr::n
    ret
  }
  .method public virtual instance string ToString() cil managed {
    .maxstack 5
    ldarg.0
    ldfld int32 NodeArr::n
    brtrue.s R
    ldstr "."
    ret
  R:
    ldc.i4.2
    newarr [mscorlib]System.Object
    dup
    ldc.i4.1
    ldarg.0
    ldfld int32 NodeArr::n
    ldc.i4.1
    sub
    newobj instance void NodeArr::.ctor(int32)
    stelem.ref
    call string [mscorlib]System.String::Concat(object[])
    ret
  }
}
// Holder is a value type whose ValueType.Equals calls its field's
// Equals; DeepEq's Equals compares two boxed Holders of smaller DeepEqs,
// so the recursion goes through the base library's Equals of a boxed
// value type.
.class public sequential sealed Holder extends [mscorlib]System.ValueType {
  .field public object f
}
.class public DeepEq extends [mscorlib]System.Object {
  .field public int32 n
  .method public specialname rtspecialname instance void .ctor(int32 n) cil managed {
    .maxstack 2
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ldarg.0
    ldarg.1
    stfld int32 DeepEq::n
    ret
  }
  .method public static object Wrap(int32 n) cil managed {
    .maxstack 3
    .locals init (valuetype Holder h)
    ldloca.s h
    ldarg.0
    newobj instance void DeepEq::.ctor(int32)
    stfld object Holder::f
    ldloc.0
    box Holder
    ret
  }
  .method public virtual instance bool Equals(object o) cil managed {
    .maxstack 3
    ldarg.0
    ldfld int32 DeepEq::n
    brtrue.s R
    ldc.i4.1
    ret
  R:
    ldarg.0
    ldfld int32 DeepEq::n
    ldc.i4.1
    sub
    call object DeepEq::Wrap(int32)
    ldarg.0
    ldfld int32 DeepEq::n
    ldc.i4.1
    sub
    call object DeepEq::Wrap(int32)
    callvirt instance bool [mscorlib]System.Object::Equals(object)
    ret
  }
}
.method public static int32 plain(int32 n) cil managed {
  .maxstack 3
  ldarg.0
  brtrue.s R
  ldc.i4.0
  ret
R:
  ldarg.0
  ldc.i4.1
  sub
  call int32 plain(int32)
  ldc.i4.1
  add
  ret
}
// big has a frame of about 40 slots.
.method public static int32 big(int32 n) cil managed {
  .maxstack 3
  .locals init (int64 a0, int64 a1, int64 a2, int64 a3, int64 a4, int64 a5, int64 a6, int64 a7, int64 a8, int64 a9,
    int64 b0, int64 b1, int64 b2, int64 b3, int64 b4, int64 b5, int64 b6, int64 b7, int64 b8, int64 b9,
    int64 c0, int64 c1, int64 c2, int64 c3, int64 c4, int64 c5, int64 c6, int64 c7, int64 c8, int64 c9,
    int64 d0, int64 d1, int64 d2, int64 d3, int64 d4, int64 d5, int64 d6, int64 d7, int64 d8, int64 d9)
  ldarg.0
  brtrue.s R
  ldc.i4.0
  ret
R:
  ldarg.0
  ldc.i4.1
  sub
  call int32 big(int32)
  ldloc a0
  conv.i4
  add
  ldloc d9
  conv.i4
  add
  ldc.i4.1
  add
  ret
}
// viaFinally recurses from a finally handler.
.method public static int32 viaFinally(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 r)
  ldarg.0
  brtrue.s R
  ldc.i4.0
  ret
R:
  .try {
    leave.s D
  } finally {
    ldarg.0
    ldc.i4.1
    sub
    call int32 viaFinally(int32)
    ldc.i4.1
    add
    stloc r
    endfinally
  }
D:
  ldloc r
  ret
}
// viaCatch recurses from a catch handler.
.method public static int32 viaCatch(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 r)
  ldarg.0
  brtrue.s R
  ldc.i4.0
  ret
R:
  .try {
    newobj instance void [mscorlib]System.Exception::.ctor()
    throw
  } catch [mscorlib]System.Exception {
    pop
    ldarg.0
    ldc.i4.1
    sub
    call int32 viaCatch(int32)
    ldc.i4.1
    add
    stloc r
    leave.s D
  }
D:
  ldloc r
  ret
}
// viaFilter recurses from a filter (first pass, frames below it intact).
.method public static int32 viaFilter(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 r)
  ldarg.0
  brtrue.s R
  ldc.i4.0
  ret
R:
  .try {
    newobj instance void [mscorlib]System.Exception::.ctor()
    throw
  } filter {
    pop
    ldarg.0
    ldc.i4.1
    sub
    call int32 viaFilter(int32)
    ldc.i4.1
    add
    stloc r
    ldc.i4.1
    endfilter
  } {
    pop
    leave.s D
  }
D:
  ldloc r
  ret
}
// viaToString recurses through the base library.
.method public static int32 viaToString(int32 n) cil managed {
  .maxstack 2
  ldarg.0
  newobj instance void Node::.ctor(int32)
  callvirt instance string [mscorlib]System.Object::ToString()
  callvirt instance int32 [mscorlib]System.String::get_Length()
  ret
}
.method public static int32 viaConcat3(int32 n) cil managed {
  .maxstack 2
  ldarg.0
  newobj instance void Node3::.ctor(int32)
  callvirt instance string [mscorlib]System.Object::ToString()
  callvirt instance int32 [mscorlib]System.String::get_Length()
  ret
}
.method public static int32 viaConcatArray(int32 n) cil managed {
  .maxstack 2
  ldarg.0
  newobj instance void NodeArr::.ctor(int32)
  callvirt instance string [mscorlib]System.Object::ToString()
  callvirt instance int32 [mscorlib]System.String::get_Length()
  ret
}
// viaValueEquals returns 1 when the recursion through ValueType.Equals
// n deep completes.
.method public static int32 viaValueEquals(int32 n) cil managed {
  .maxstack 2
  ldarg.0
  call object DeepEq::Wrap(int32)
  ldarg.0
  call object DeepEq::Wrap(int32)
  callvirt instance bool [mscorlib]System.Object::Equals(object)
  ret
}
// mixed goes n deep with large frames, returns, then n deep with small
// ones, then throws from n deep and catches at the top, then goes n deep
// again.
.method public static int32 mixed(int32 n) cil managed {
  .maxstack 2
  ldarg.0
  call int32 big(int32)
  pop
  ldarg.0
  call int32 plain(int32)
  pop
  .try {
    ldarg.0
    call int32 throwAt(int32)
    pop
    leave.s D
  } catch [mscorlib]System.Exception {
    pop
    leave.s D
  }
D:
  ldarg.0
  call int32 plain(int32)
  ret
}
.method public static int32 throwAt(int32 n) cil managed {
  .maxstack 3
  ldarg.0
  brtrue.s R
  newobj instance void [mscorlib]System.Exception::.ctor()
  throw
R:
  ldarg.0
  ldc.i4.1
  sub
  call int32 throwAt(int32)
  ret
}
// leaf1 and leaf2 are small enough for the JIT to inline (leaf2 with
// leaf1 inlined in it): an inlined call counts as a call all the same.
.method public static int32 leaf1(int32 x) cil managed {
  .maxstack 2
  ldarg.0
  ldc.i4.1
  add
  ret
}
.method public static int32 leaf2(int32 x) cil managed {
  .maxstack 2
  ldarg.0
  call int32 leaf1(int32)
  ldc.i4.1
  sub
  ret
}
// viaInline, viaInline2 and viaInlineFinally recurse n deep and call
// leaf1 or leaf2 at every level, the deepest included (viaInlineFinally
// there from a finally), several times in a loop.
.method public static int32 viaInline(int32 n) cil managed {
  .maxstack 3
  .locals init (int32 i, int32 s)
  ldarg.0
  brtrue.s R
L:
  ldloc s
  ldloc i
  call int32 leaf1(int32)
  add
  stloc s
  ldloc i
  ldc.i4.1
  add
  dup
  stloc i
  ldc.i4.3
  blt.s L
  ldloc s
  ret
R:
  ldarg.0
  ldc.i4.1
  sub
  call int32 viaInline(int32)
  call int32 leaf1(int32)
  ret
}
.method public static int32 viaInline2(int32 n) cil managed {
  .maxstack 2
  ldarg.0
  brtrue.s R
  ldc.i4.0
  call int32 leaf2(int32)
  ret
R:
  ldarg.0
  ldc.i4.1
  sub
  call int32 viaInline2(int32)
  call int32 leaf2(int32)
  ret
}
.method public static int32 viaInlineFinally(int32 n) cil managed {
  .maxstack 2
  .locals init (int32 r)
  ldarg.0
  brtrue.s R
  .try {
    leave.s D
  } finally {
    ldc.i4.0
    call int32 leaf1(int32)
    stloc r
    endfinally
  }
D:
  ldloc r
  ret
R:
  ldarg.0
  ldc.i4.1
  sub
  call int32 viaInlineFinally(int32)
  ret
}
.method public static void main() cil managed {
  .entrypoint
  .maxstack 1
  ret
}
`

// TestCallDepth checks that both engines allow exactly Config.MaxCallDepth
// nested calls, counted the same way: through handlers, filters and the
// base library, and after deep recursions with other frame sizes and
// exceptions have come and gone.
func TestCallDepth(t *testing.T) {
	p, err := miniil.Load("depth.il", []byte(depthProgram))
	if err != nil {
		t.Fatal(err)
	}
	shapes := []struct {
		method string
		extra  int // frames beyond n+1 at the deepest point
	}{
		{"plain", 0}, {"big", 0}, {"viaFinally", 0}, {"viaCatch", 0}, {"viaFilter", 0}, {"viaToString", 1}, {"mixed", 1},
		{"viaInline", 1}, {"viaInline2", 2}, {"viaInlineFinally", 1},
	}
	for _, limit := range []int{1000, 20000} {
		for _, s := range shapes {
			if s.method == "viaToString" && limit > il.MaxCallbackDepth {
				continue // TestCallbackDepth
			}
			// Deepest frame at depth n+1+extra: n = limit-1-extra fits.
			fit := limit - 1 - s.extra
			for _, n := range []int{fit - 1, fit, fit + 1} {
				for _, eng := range engines {
					t.Run(fmt.Sprintf("limit=%d/%s/n=%d/%s", limit, s.method, n, eng), func(t *testing.T) {
						res, err := p.Call(context.Background(), miniil.Config{Engine: eng, MaxCallDepth: limit}, s.method, int32(n))
						var so *miniil.StackOverflowError
						switch {
						case n <= fit && err != nil:
							t.Fatalf("%s(%d) within the limit failed: %v", s.method, n, err)
						case n > fit && !errors.As(err, &so):
							t.Fatalf("%s(%d) past the limit gave %v, %v; want a stack overflow", s.method, n, res, err)
						}
					})
				}
			}
		}
	}
}

// TestCallbackDepth checks the bound on base library methods that call
// managed code back (String.Concat of two or three objects, or of an
// object[], and Equals of a boxed value type), nested: the same on both
// engines.
func TestCallbackDepth(t *testing.T) {
	p, err := miniil.Load("depth.il", []byte(depthProgram))
	if err != nil {
		t.Fatal(err)
	}
	shapes := []struct {
		method string
		extra  int // nested callbacks beyond n
	}{
		{"viaToString", 0}, {"viaConcat3", 0}, {"viaConcatArray", 0},
		{"viaValueEquals", 1}, // the outermost Equals is the base library's
	}
	for _, sh := range shapes {
		fit := il.MaxCallbackDepth - sh.extra
		for _, n := range []int{fit, fit + 1} {
			for _, eng := range engines {
				t.Run(fmt.Sprintf("%s/%d/%s", sh.method, n, eng), func(t *testing.T) {
					res, err := p.Call(context.Background(), miniil.Config{Engine: eng}, sh.method, int32(n))
					var so *miniil.StackOverflowError
					if fits := n <= fit; fits != (err == nil) || !fits && !errors.As(err, &so) || fits && res != int32(1) {
						t.Fatalf("%s(%d) = %v, %v", sh.method, n, res, err)
					}
				})
			}
		}
	}
}

// TestDeepRecursion runs recursions deeper than the engines' old limits
// with the default limit on both engines (CoreCLR and Mono run them too).
func TestDeepRecursion(t *testing.T) {
	p, err := miniil.Load("depth.il", []byte(depthProgram))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{100_000, 500_000} {
		for _, eng := range engines {
			t.Run(fmt.Sprintf("%d/%s", n, eng), func(t *testing.T) {
				res, err := p.Call(context.Background(), miniil.Config{Engine: eng}, "plain", int32(n))
				if err != nil || res != int32(n) {
					t.Fatalf("plain(%d) = %v, %v", n, res, err)
				}
			})
		}
	}
}
