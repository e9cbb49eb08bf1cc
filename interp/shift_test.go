package interp

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// shiftRef is CoreCLR's shift: the count masked to the operand width
// (& 31 for int32, & 63 for int64 and native int).
func shiftRef(op string, bits int, x, count int64) int64 {
	s := uint64(count) & uint64(bits-1)
	if bits == 32 {
		v := int32(x)
		switch op {
		case "shl":
			return int64(v << s)
		case "shr":
			return int64(v >> s)
		}
		return int64(int32(uint32(v) >> s))
	}
	switch op {
	case "shl":
		return x << s
	case "shr":
		return x >> s
	}
	return int64(uint64(x) >> s)
}

// TestShiftCounts runs shl, shr and shr.un of int32, int64 and native int
// values by constant counts and by counts passed as int32 and native int
// arguments, and compares every result with shiftRef.
func TestShiftCounts(t *testing.T) {
	counts := []int64{0, 1, 31, 32, 33, 63, 64, 65, 100, -1, -33, math.MinInt32, math.MaxInt32, 0x12345678}
	types := []struct {
		il, ldc string
		bits    int
		x       int64
	}{
		{"int32", "ldc.i4 %d", 32, -0x7EDCBA99},
		{"int64", "ldc.i8 %d", 64, -0x7EDCBA9876543211},
		{"native int", "ldc.i8 %d\n  conv.i", 64, -0x7EDCBA9876543211},
	}
	for _, op := range []string{"shl", "shr", "shr.un"} {
		for _, typ := range types {
			t.Run(op+" "+typ.il, func(t *testing.T) {
				var b strings.Builder
				var want []string
				fmt.Fprintf(&b, `%s
.method public static void p(%[2]s v) cil managed
{
  .maxstack 1
  ldarg.0
  conv.i8
  call void [mscorlib]System.Console::WriteLine(int64)
  ret
}
.method public static %[2]s f(%[2]s x, int32 n) cil managed
{
  .maxstack 2
  ldarg.0
  ldarg.1
  %[3]s
  ret
}
.method public static %[2]s g(%[2]s x, native int n) cil managed
{
  .maxstack 2
  ldarg.0
  ldarg.1
  %[3]s
  ret
}
.method public static void main() cil managed
{
  .entrypoint
  .maxstack 2
`, prologue, typ.il, op)
				ldx := fmt.Sprintf(typ.ldc, typ.x)
				for _, c := range counts {
					r := strconv.FormatInt(shiftRef(op, typ.bits, typ.x, c), 10)
					want = append(want, r, r, r)
					fmt.Fprintf(&b, "  %s\n  ldc.i4 %d\n  %s\n  call void p(%s)\n", ldx, c, op, typ.il)
					fmt.Fprintf(&b, "  %s\n  ldc.i4 %d\n  call %[4]s f(%[4]s, int32)\n  call void p(%[4]s)\n", ldx, c, op, typ.il)
					fmt.Fprintf(&b, "  %s\n  ldc.i4 %d\n  conv.i\n  call %[4]s g(%[4]s, native int)\n  call void p(%[4]s)\n", ldx, c, op, typ.il)
				}
				b.WriteString("  ret\n}\n")
				out, code, err := runSource(t, "shift.il", b.String(), Options{})
				if err != nil || code != 0 {
					t.Fatalf("exit %d: %v", code, err)
				}
				got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				if len(got) != len(want) {
					t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), out)
				}
				forms := []string{"constant", "int32 argument", "native int argument"}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("%s %s by %s %d: got %s, want %s", op, typ.il, forms[i%3], counts[i/3], got[i], want[i])
					}
				}
			})
		}
	}
}
