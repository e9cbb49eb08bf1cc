package il

import (
	"fmt"
	"strings"
	"testing"
)

// TestVerifierKeepsJoinStates checks that the verifier stores entry
// stacks only at join points: a long straight-line body with values on
// the stack between instructions, and one branch, keeps two states (the
// entry's is empty and not stored; the branch target's holds one value),
// not one per instruction.
func TestVerifierKeepsJoinStates(t *testing.T) {
	var b strings.Builder
	b.WriteString(".method static void main() cil managed\n{\n  .entrypoint\n  ret\n}\n")
	b.WriteString(".method static int32 f(int32 x) cil managed\n{\n  .maxstack 4\n  ldarg.0\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "  ldc.i4 %d\n  add\n", i)
	}
	b.WriteString("  dup\n  brtrue.s L\n  ldc.i4.1\n  add\nL:\n  ldc.i4.2\n  pop\n  ret\n}\n")
	m, err := ParseString("t.il", b.String())
	if err != nil {
		t.Fatal(err)
	}
	f := m.Methods[1]
	v := &verifier{m: m, errs: &errorSink{}}
	v.reset(f)
	v.run()
	if err := v.errs.err(); err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, st := range v.states {
		if st != nil {
			kept++
		}
	}
	// States live in the arena: one per kept stack, each one value deep.
	if kept != 1 || len(v.arena) != 1 {
		t.Errorf("the verifier kept %d non-empty entry stacks (%d values) for %d instructions; want 1 (the branch target's)",
			kept, len(v.arena), len(f.Code))
	}
}
