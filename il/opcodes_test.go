package il

import (
	"strings"
	"testing"
)

// TestLookupOp looks up every mnemonic, and names that are none: the
// open-addressing table must find each opcode by its own name and
// nothing else, whatever slot its hash gives.
func TestLookupOp(t *testing.T) {
	for op := Op(0); op < numOps; op++ {
		name := Ops[op].Name
		got, ok := LookupOp(name)
		if !ok || got != op {
			t.Errorf("LookupOp(%q) = %v, %v; want %v", name, got, ok, op)
		}
		// The same bytes with one more or one fewer, or another case,
		// name no opcode (unless they are another mnemonic).
		for _, other := range []string{name + ".", name[:len(name)-1], strings.ToUpper(name), name + "\x00"} {
			if got, ok := LookupOp(other); ok && Ops[got].Name != other {
				t.Errorf("LookupOp(%q) = %v, whose name is %q", other, got, Ops[got].Name)
			}
		}
	}
	for _, name := range []string{"", "x", "ldarg.0.0", "conv.ovf.i1.un.un", strings.Repeat("a", 40)} {
		if op, ok := LookupOp(name); ok {
			t.Errorf("LookupOp(%q) = %v, want no opcode", name, op)
		}
	}
}
