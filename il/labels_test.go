package il

import (
	"fmt"
	"strings"
	"testing"
)

// labelsBody returns a method whose body defines n labels L0..L(n-1),
// each on a nop, and then branches to every one of them, last first;
// with dup >= 0, label L<dup> is defined a second time at the end.
func labelsBody(n, dup int) string {
	var b strings.Builder
	b.WriteString(".method public static void main() cil managed\n{\n  .entrypoint\n")
	for i := range n {
		fmt.Fprintf(&b, "L%d: nop\n", i)
	}
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "  br L%d\n", i)
	}
	if dup >= 0 {
		fmt.Fprintf(&b, "L%d: nop\n", dup)
	}
	b.WriteString("  ret\n}\n")
	return b.String()
}

// TestLabels resolves branches in bodies with few labels (found by a
// scan) and many (indexed by a map once there are labelMapMin), and
// reports a label defined twice in both.
func TestLabels(t *testing.T) {
	for _, n := range []int{1, 3, labelMapMin - 1, labelMapMin, labelMapMin + 1, 3 * labelMapMin} {
		t.Run(fmt.Sprintf("%d labels", n), func(t *testing.T) {
			m, err := ParseString("labels.il", labelsBody(n, -1))
			if err != nil {
				t.Fatal(err)
			}
			md := m.Methods[0]
			if len(md.Labels) != n {
				t.Fatalf("%d labels, want %d", len(md.Labels), n)
			}
			for k := range n {
				in := md.Code[n+k] // br L(n-1-k)
				if want := n - 1 - k; in.Target() != want || in.TargetNames()[0] != fmt.Sprintf("L%d", want) {
					t.Errorf("branch %d: target %d (%s), want %d", k, in.Target(), in.TargetNames()[0], want)
				}
			}
			for _, dup := range []int{0, n - 1} {
				_, err := ParseString("labels.il", labelsBody(n, dup))
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("label L%d is defined twice", dup)) {
					t.Errorf("L%d defined twice: error %v", dup, err)
				}
			}
		})
	}
}
