package fuzz

import (
	"strings"
	"testing"

	"miniil/il"
)

// TestFitMaxStack checks that a generated program whose expressions run
// deeper than the .maxstack the lowering declares (seed 225006894,
// medium: 66 values in m0, which failed to load in a campaign) gets the
// depth it needs and loads, and that a program that fits keeps its text.
func TestFitMaxStack(t *testing.T) {
	o, _ := SizeOptions("medium")
	src := GenerateIL(225006894, o)
	if _, err := il.LoadString("deep.il", src); err != nil {
		t.Fatalf("the deep program does not load: %v", err)
	}
	if !strings.Contains(src, ".maxstack 66\n") {
		t.Error("m0's .maxstack was not raised to 66, the depth it reaches")
	}
	// The first lowering, unfitted, is what fitMaxStack fixes.
	raw := strings.Replace(src, ".maxstack 66\n", ".maxstack 64\n", 1)
	if _, err := il.LoadString("raw.il", raw); err == nil || !strings.Contains(err.Error(), "stack overflow") {
		t.Fatalf("with .maxstack 64 the program should overflow, got %v", err)
	}
	if got := fitMaxStack(raw); got != src {
		t.Error("fitMaxStack of the unfitted program is not the generated one")
	}
	small, _ := SizeOptions("small")
	for seed := uint64(1); seed <= 20; seed++ {
		fits := GenerateIL(seed, small)
		if fitMaxStack(fits) != fits {
			t.Fatalf("seed %d: a program that fits changed", seed)
		}
	}
}
