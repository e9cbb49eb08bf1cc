package amd64_test

import (
	"fmt"
	"math"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestDivisionByConstantCode compiles div, rem, div.un and rem.un of
// int32, int64 and native int dividends by constant divisors, with the
// result returned (in RAX), kept in a register home, and inside a try
// block (the dividend in memory), and checks that the code divides with
// no DIV or IDIV instruction, nor a compare of the divisor: only a
// divisor of 0, which the reader's check throws for before the
// division, keeps one (it never runs). A variable divisor is divided by
// IDIV or DIV, once.
func TestDivisionByConstantCode(t *testing.T) {
	divisors := []int64{1, -1, 2, -2, 3, 7, -7, 10, 16, -16, 641, 1000, 0x55555555, math.MaxInt32, math.MinInt32,
		math.MinInt32 + 1, 1 << 32, 10000000000, math.MaxInt64, math.MinInt64, -0x5555555555555555, 0}
	types := []struct{ il, ldc string }{{"int32", "ldc.i4"}, {"int64", "ldc.i8"}, {"native int", "ldc.i4"}}
	shapes := []struct{ name, body string }{
		{"returned", "ldarg.0\n  %[1]s\n  %[2]s\n  ret"},
		{"home", "ldarg.0\n  %[1]s\n  %[2]s\n  dup\n  add\n  ret"},
		{"try", ".locals init (%[3]s r)\n  .try {\n    ldarg.0\n    %[1]s\n    %[2]s\n    stloc.0\n    leave.s done\n  } catch [mscorlib]System.Exception {\n    pop\n    leave.s done\n  }\ndone:\n  ldloc.0\n  ret"},
		{"variable", "ldarg.0\n  ldarg.1\n  %[2]s\n  ret"},
	}
	for _, typ := range types {
		for _, op := range []string{"div", "rem", "div.un", "rem.un"} {
			for _, sh := range shapes {
				for _, d := range divisors {
					if typ.ldc == "ldc.i4" && d != int64(int32(d)) {
						continue
					}
					if sh.name == "variable" && d != 0 {
						continue
					}
					ldd := fmt.Sprintf("%s %d", typ.ldc, d)
					src := fmt.Sprintf(".method public static %[1]s f(%[1]s x, %[1]s y) cil managed\n{\n  .maxstack 2\n  %[2]s\n}\n",
						typ.il, fmt.Sprintf(sh.body, ldd, op, typ.il))
					name := fmt.Sprintf("%s %s by %d, %s", op, typ.il, d, sh.name)
					if sh.name == "variable" {
						name = fmt.Sprintf("%s %s by a variable", op, typ.il)
					}
					t.Run(name, func(t *testing.T) {
						_, code := compileNamed(t, src, "f")
						var divs, cmps []x86asm.Inst
						for _, in := range decodeCode(t, code.Code) {
							switch in.Op {
							case x86asm.DIV, x86asm.IDIV:
								divs = append(divs, in)
							case x86asm.CMP:
								_, reg := in.Args[0].(x86asm.Reg)
								if imm, ok := in.Args[1].(x86asm.Imm); ok && reg && (imm == 0 || imm == -1) {
									cmps = append(cmps, in)
								}
							}
						}
						want := 0
						if d == 0 || sh.name == "variable" {
							want = 1
						}
						if len(divs) != want {
							t.Errorf("want %d DIV or IDIV, got %v", want, divs)
						}
						if d != 0 && d != -1 && sh.name != "variable" && len(cmps) > 0 {
							t.Errorf("the divisor is compared with 0 or -1: %v", cmps)
						}
					})
				}
			}
		}
	}
}
