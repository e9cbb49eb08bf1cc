package miniil_test

import (
	"bytes"
	"context"
	"testing"

	"miniil"
)

// nestedFinallySrc throws from a finally that a finally, called on the
// normal path, calls on the normal path, to a catch around both: finding
// the frame of the catch's try climbs through two funclet frames that
// were not invoked by a dispatch (fuzz seeds 61000508 and 61003998 found
// a climb that compared a frame with itself there).
const nestedFinallySrc = `.assembly extern mscorlib {}
.assembly nf {}
.method public static void T(int32 n) cil managed {
  .maxstack 2
  .try {
    .try {
      leave.s L1
    } finally {
      .try {
        leave.s L2
      } finally {
        ldarg.0
        brfalse.s NO
        ldstr "inner"
        newobj instance void [mscorlib]System.Exception::.ctor(string)
        throw
      NO:
        endfinally
      }
    L2:
      endfinally
    }
  L1:
    leave.s END
  } catch [mscorlib]System.Exception {
    callvirt instance string [mscorlib]System.Exception::get_Message()
    call void [mscorlib]System.Console::WriteLine(string)
    leave.s END
  }
END:
  ret
}
.method public static void main() cil managed {
  .entrypoint
  .maxstack 2
  .locals init (int32 i)
LOOP:
  ldloc.0
  call void T(int32)
  ldloc.0
  ldc.i4.1
  add
  stloc.0
  ldloc.0
  ldc.i4.3
  blt.s LOOP
  ret
}
`

// TestNestedFinallyClimb runs nestedFinallySrc with and without finally
// cloning (which inlines the outer finally into the normal path, so only
// without it are both funclet frames there) on both engines.
func TestNestedFinallyClimb(t *testing.T) {
	p, err := miniil.Load("nested_finally.il", []byte(nestedFinallySrc))
	if err != nil {
		t.Fatal(err)
	}
	for _, skip := range [][]string{nil, {"clonefinally"}} {
		var outs [2]bytes.Buffer
		for i, eng := range []miniil.Engine{miniil.Interp, miniil.JIT} {
			if _, err := p.Run(context.Background(), miniil.Config{Engine: eng, Stdout: &outs[i], SkipPhases: skip}); err != nil {
				t.Fatalf("skip %v, %v: %v", skip, eng, err)
			}
		}
		if want := "inner\ninner\n"; outs[0].String() != want || outs[1].String() != want {
			t.Errorf("skip %v: interpreter printed %q, JIT %q; want %q", skip, outs[0].String(), outs[1].String(), want)
		}
	}
}
