package fuzz

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// divisorShape classifies the divisor b of a division of type t as the
// code generator's lowering of constant divisors sees it (amd64
// divconst.go), or "variable".
func divisorShape(b Expr, t Type) string {
	c, ok := b.(*Const)
	if !ok {
		return "variable"
	}
	v := c.V
	min, max := int64(math.MinInt64), int64(math.MaxInt64)
	if t == I4 {
		v = int64(int32(v))
		min, max = math.MinInt32, math.MaxInt32
	}
	abs := uint64(v)
	if v < 0 {
		abs = -abs
	}
	switch {
	case v == 0:
		return "0"
	case v == 1 || v == -1:
		return fmt.Sprint(v)
	case v == min:
		return "MinValue"
	case v == max:
		return "MaxValue"
	case t == I8 && v != int64(int32(v)):
		return "wide"
	case abs&(abs-1) == 0 && v < 0:
		return "-2^k"
	case abs&(abs-1) == 0:
		return "2^k"
	case v < 0:
		return "negative"
	}
	return "positive"
}

// TestConstantDivisorShapes checks that generated programs divide by
// constants of every shape the code generator lowers differently: each
// division operator of each operand type by positive and negative
// powers of two and other divisors (and int64 ones that fit no int32),
// each type by 0, 1, -1, MinValue and MaxValue, and int64 by every one
// of int64Divisors.
func TestConstantDivisorShapes(t *testing.T) {
	seen := map[string]int{}
	o, _ := SizeOptions("medium")
	for seed := uint64(1); seed <= 400; seed++ {
		for _, x := range binaries(Generate(seed, o)) {
			if slices.Contains(divOps, x.op) {
				shape := divisorShape(x.b, x.t)
				seen[fmt.Sprintf("%s %s %s", x.op, x.t.il(), shape)]++
				seen[fmt.Sprintf("%s %s", x.t.il(), shape)]++
				if c, ok := x.b.(*Const); ok && x.t == I8 {
					seen[fmt.Sprintf("int64 by %d", c.V)]++
				}
			}
		}
	}
	for _, ty := range []Type{I4, I8} {
		for _, op := range divOps {
			shapes := []string{"2^k", "-2^k", "positive", "negative", "variable"}
			if ty == I8 {
				shapes = append(shapes, "wide")
			}
			for _, shape := range shapes {
				if k := fmt.Sprintf("%s %s %s", op, ty.il(), shape); seen[k] == 0 {
					t.Errorf("%s: no division", k)
				}
			}
		}
		for _, shape := range []string{"0", "1", "-1", "MinValue", "MaxValue"} {
			if k := fmt.Sprintf("%s %s", ty.il(), shape); seen[k] == 0 {
				t.Errorf("%s: no division", k)
			}
		}
	}
	for _, d := range int64Divisors {
		if k := fmt.Sprintf("int64 by %d", d); seen[k] == 0 {
			t.Errorf("%s: no division", k)
		}
	}
}
