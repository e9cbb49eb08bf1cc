package amd64_test

import (
	"fmt"
	"math"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// shiftCounts are the counts every shift shape is compiled with: in range,
// at and past each operand width, negative, and large.
var shiftCounts = []int64{0, 1, 31, 32, 33, 63, 64, 65, 100, -1, -33, math.MinInt32, math.MaxInt32, 0x12345678}

// TestShiftCounts compiles shl, shr and shr.un of int32, int64 and native
// int operands by constant and variable counts, with the result in RAX
// (returned) and in a register home (used twice), and checks the one
// shift instruction in the code: its operation and operand width, and its
// count, which must be CL for a variable count and, for a constant one,
// the count masked to the operand width (& 31 or & 63), as CoreCLR does.
func TestShiftCounts(t *testing.T) {
	ops := []struct {
		il string
		op x86asm.Op
	}{{"shl", x86asm.SHL}, {"shr", x86asm.SAR}, {"shr.un", x86asm.SHR}}
	types := []struct {
		il   string
		bits int
	}{{"int32", 32}, {"int64", 64}, {"native int", 64}}
	// Where the result goes: RAX (the return value, computed there) or
	// a register home (a value used twice).
	uses := []struct {
		name, il string
		home     bool
	}{{"ret", "ret", false}, {"dup add", "dup\n  add\n  ret", true}}
	// How the count arrives: an ldc.i4 (an immediate), an int32 argument
	// or a native int argument (both in CL).
	type countKind struct {
		name, param string
		constant    bool
	}
	counts := []countKind{{"const", "int32", true}, {"int32 arg", "int32", false}, {"native int arg", "native int", false}}
	for _, op := range ops {
		for _, typ := range types {
			for _, use := range uses {
				for _, ck := range counts {
					cs := shiftCounts
					if !ck.constant {
						cs = cs[:1] // the count is not in the code
					}
					for _, c := range cs {
						name := fmt.Sprintf("%s %s by %s %d, %s", op.il, typ.il, ck.name, c, use.name)
						load := "ldarg.1"
						if ck.constant {
							load = fmt.Sprintf("ldc.i4 %d", c)
						}
						src := fmt.Sprintf(`
.method public static %[1]s f(%[1]s x, %[2]s n) cil managed
{
  .maxstack 2
  ldarg.0
  %[3]s
  %[4]s
  %[5]s
}`, typ.il, ck.param, load, op.il, use.il)
						t.Run(name, func(t *testing.T) {
							_, code := compileNamed(t, src, "f")
							var shifts []x86asm.Inst
							for _, in := range decodeCode(t, code.Code) {
								switch in.Op {
								case x86asm.SHL, x86asm.SAR, x86asm.SHR:
									shifts = append(shifts, in)
								}
							}
							if len(shifts) != 1 {
								t.Fatalf("want one shift instruction, got %v", shifts)
							}
							in := shifts[0]
							dst, ok := in.Args[0].(x86asm.Reg)
							if !ok {
								t.Fatalf("%v: the shifted operand is not a register", in)
							}
							if in.Op != op.op || regBits(dst) != typ.bits {
								t.Errorf("%v: want a %d-bit %v", in, typ.bits, op.op)
							}
							if inRAX := dst == x86asm.EAX || dst == x86asm.RAX; inRAX == use.home {
								t.Errorf("%v: want the result in RAX: %v", in, !use.home)
							}
							switch {
							case ck.constant:
								want := c & int64(typ.bits-1)
								if got, ok := in.Args[1].(x86asm.Imm); !ok || int64(got) != want {
									t.Errorf("%v: want the count %d masked to the operand width: %d", in, c, want)
								}
							case in.Args[1] != x86asm.CL:
								t.Errorf("%v: want a variable count in CL", in)
							}
						})
					}
				}
			}
		}
	}
}

// decodeCode decodes generated code; it fails the test on bytes that do
// not decode.
func decodeCode(t *testing.T, code []byte) []x86asm.Inst {
	t.Helper()
	var out []x86asm.Inst
	for off := 0; off < len(code); {
		in, err := x86asm.Decode(code[off:], 64)
		if err != nil || in.Len == 0 {
			t.Fatalf("decode at %#x: %v", off, err)
		}
		out = append(out, in)
		off += in.Len
	}
	return out
}

// regBits returns the width of general purpose register r.
func regBits(r x86asm.Reg) int {
	switch {
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return 32
	case r >= x86asm.RAX && r <= x86asm.R15:
		return 64
	}
	return 0
}
