package opt_test

import (
	"testing"

	"miniil/ir"
	"miniil/opt"
)

const writeThruSrc = `
// s is used by the loop and by the catch; t only by the main body; u is
// written by a filter.
.method public static int32 Loop(int32 n) cil managed {
  .maxstack 2
  .locals init (int32 s, int32 t, int32 u)
L:
  .try {
    ldloc s ldarg.0 add stloc s
    ldloc t ldc.i4.1 add stloc t
    ldloc u ldc.i4.1 add stloc u
    ldloc s ldc.i4 1000 bgt.s T
    leave.s N
  T: newobj instance void [mscorlib]System.Exception::.ctor() throw
  } filter {
    pop ldc.i4.3 stloc u ldc.i4.1 endfilter
  } {
    pop ldloc s ldc.i4.2 div stloc s
    leave.s N
  }
N: ldloc t ldc.i4.5 blt.s L
  ldloc s ldloc u add ret
}
`

func TestWriteThru(t *testing.T) {
	f := importMethod(t, writeThruSrc, "Loop")
	s, u := ir.Value(f.NumArgs), ir.Value(f.NumArgs+2)
	if n := opt.WriteThru(f); n != 1 {
		t.Fatalf("%d variables split, want 1 (s):\n%s", n, f)
	}
	if err := ir.Check(f); err != nil {
		t.Fatalf("%v\n%s", err, f)
	}
	// In the main body s is only written by its write-thru stores, each
	// right after a definition of its copy, and read only to load the
	// copy (at the entry and where the catch resumes).
	var cp ir.Value = ir.NoValue
	stores, loads, uReads := 0, 0, 0
	for _, b := range f.Blocks {
		if b.Region.Funclet() != nil {
			continue
		}
		for i, in := range b.Instrs {
			switch {
			case in.Dst == s:
				stores++
				if in.Op != ir.OpCopy || i == 0 || b.Instrs[i-1].Dst != in.Args[0] {
					t.Errorf("s is written by %s, not right after its copy's definition", f.Format(in, b))
				}
				cp = in.Args[0]
			case in.Op == ir.OpCopy && len(in.Args) == 1 && in.Args[0] == s:
				loads++
			default:
				for _, a := range in.Args {
					if a == s {
						t.Errorf("the main body reads s: %s", f.Format(in, b))
					}
					if a == u {
						uReads++
					}
				}
			}
		}
	}
	if stores != 1 || loads != 2 || cp == ir.NoValue {
		t.Errorf("%d write-thru stores (want 1), %d loads (want 2: entry, catch):\n%s", stores, loads, f)
	}
	if uReads == 0 {
		t.Errorf("u, which the filter writes, was split:\n%s", f)
	}
}
