package tests

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"miniil"
	"miniil/amd64"
)

// divTypes are the operand types of the division tests: the width, and
// how a constant divisor of the type is pushed (a native int one as an
// int32 constant, which the operation widens).
var divTypes = []struct {
	il   string
	bits int
	ldc  string
}{
	{"int32", 32, "ldc.i4"},
	{"int64", 64, "ldc.i8"},
	{"native int", 64, "ldc.i4"},
}

// divisorsFor returns the constant divisors tested with operands of bits
// bits (with int32 constants only, int32 ones): 0, ±1, powers of two
// and their neighbors, MinValue and MaxValue and theirs, divisors whose
// magic multipliers take each shape (even, odd, with and without the
// correction of a 65-bit or negative multiplier), and random ones.
func divisorsFor(bits int, int32Only bool) []int64 {
	ds := []int64{0, 1, -1, 2, -2, 3, -3, 4, -4, 5, 6, 7, -7, 8, 9, 10, -10, 11, 12, 13, 14, 16, -16, 19, 25, 28,
		60, 100, 125, 641, 1000, -1000, 1024, 3600, 65535, 65536, 65537, 274177, 6700417, 0x55555555, -0x55555555,
		1 << 30, -(1 << 30), math.MaxInt32, math.MaxInt32 - 1, math.MinInt32, math.MinInt32 + 1, -0x7ffffff0}
	if bits == 64 && !int32Only {
		ds = append(ds, 1<<31, 1<<32, 1<<32+1, 1<<32-1, 3<<32, 10000000000, 1000000000000000000, -1000000000000000000,
			0x5555555555555555, -0x5555555555555555, 1<<62, -(1 << 62), 1<<62+1, math.MaxInt64, math.MaxInt64-1,
			math.MinInt64, math.MinInt64+1, -2147483649, 0x7fffffffffffff01)
	}
	r := rand.New(rand.NewPCG(uint64(bits), 14))
	for range 12 {
		var d int64
		switch {
		case bits == 32 || int32Only:
			d = int64(int32(r.Uint32()))
		default:
			d = int64(r.Uint64())
		}
		d >>= r.IntN(bits - 2) // small ones too
		ds = append(ds, d)
	}
	return ds
}

// dividendsFor returns the dividends tested with divisor d of an n-bit
// operation: 0, ±1, MinValue, MaxValue and their neighbors, the
// multiples of d nearest to small ones and to the extremes (signed and
// unsigned) and their neighbors, and random ones.
func dividendsFor(d int64, bits int, r *rand.Rand) []int64 {
	xs := []int64{0, 1, -1, 2, -2, 3, 7, -7, 100, -100}
	min, max := int64(math.MinInt64), int64(math.MaxInt64)
	if bits == 32 {
		min, max = math.MinInt32, math.MaxInt32
	}
	xs = append(xs, min, min+1, min+2, max, max-1, max-2)
	if d != 0 {
		for _, m := range []int64{d, 2 * d, 3 * d, -d, -2 * d, 10 * d, (max / d) * d, (min / d) * d, (max/d - 1) * d,
			(min/d + 1) * d, int64(math.MaxUint64 / uint64(d) * uint64(d)), int64(uint64(1<<(bits-1)) / uint64(d) * uint64(d))} {
			xs = append(xs, m-1, m, m+1)
		}
	}
	for range 16 {
		xs = append(xs, int64(r.Uint64())>>r.IntN(bits))
	}
	if bits == 32 {
		for i, x := range xs {
			xs[i] = int64(int32(x))
		}
	}
	slices.Sort(xs)
	return slices.Compact(xs)
}

// divRef is Go's result of x op d for an n-bit operation, the result
// sign-extended from n bits, or the exception the operation throws.
func divRef(op string, bits int, x, d int64) string {
	if bits == 32 {
		x, d = int64(int32(x)), int64(int32(d))
	}
	if d == 0 {
		return "DivideByZeroException"
	}
	min := int64(math.MinInt64)
	if bits == 32 {
		min = math.MinInt32
	}
	if x == min && d == -1 && (op == "div" || op == "rem") {
		return "OverflowException"
	}
	var r int64
	switch {
	case op == "div" && bits == 32:
		r = int64(int32(x) / int32(d))
	case op == "rem" && bits == 32:
		r = int64(int32(x) % int32(d))
	case op == "div.un" && bits == 32:
		r = int64(int32(uint32(x) / uint32(d)))
	case op == "rem.un" && bits == 32:
		r = int64(int32(uint32(x) % uint32(d)))
	case op == "div":
		r = x / d
	case op == "rem":
		r = x % d
	case op == "div.un":
		r = int64(uint64(x) / uint64(d))
	default:
		r = int64(uint64(x) % uint64(d))
	}
	return strconv.FormatInt(r, 10)
}

// TestDivisionByConstants runs div, rem, div.un and rem.un of int32,
// int64 and native int dividends by constant divisors (divisorsFor) on
// both engines and compares every result, or exception, with Go's
// (divRef), for the dividends of dividendsFor. Each division appears in
// three shapes, whose results the program prints in turn: returned
// straight from a method (computed in RAX), used twice (kept in a
// register home, printed doubled), and inside a try block, where the
// dividend is read from memory. Every method is also compiled with
// validation.
func TestDivisionByConstants(t *testing.T) {
	asm := amd64.NewAssembler()
	for _, typ := range divTypes {
		for _, op := range []string{"div", "rem", "div.un", "rem.un"} {
			t.Run(op+" "+typ.il, func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(typ.bits), uint64(len(op))))
				var src strings.Builder
				var want, what []string // what: the division each line shows
				fmt.Fprintf(&src, `.assembly extern mscorlib {}
.assembly divconst {}
.method public static void p(int64 v) cil managed
{
  ldarg.0
  call void [mscorlib]System.Console::WriteLine(int64)
  ret
}
`)
				var main strings.Builder
				ldx := "ldc.i8 %d"
				if typ.bits == 32 {
					ldx = "ldc.i4 %d"
				} else if typ.il == "native int" {
					ldx = "ldc.i8 %d\n  conv.i"
				}
				for i, d := range divisorsFor(typ.bits, typ.ldc == "ldc.i4") {
					ldd := fmt.Sprintf("%s %d", typ.ldc, d)
					fmt.Fprintf(&src, `
.method public static %[1]s f%[2]d(%[1]s x) cil managed
{
  ldarg.0
  %[3]s
  %[4]s
  ret
}
.method public static %[1]s g%[2]d(%[1]s x) cil managed
{
  ldarg.0
  %[3]s
  %[4]s
  dup
  add
  ret
}
.method public static void t%[2]d(%[1]s x) cil managed
{
  .try
  {
    ldarg.0
    call %[1]s f%[2]d(%[1]s)
    conv.i8
    call void p(int64)
    ldarg.0
    call %[1]s g%[2]d(%[1]s)
    conv.i8
    call void p(int64)
    ldarg.0
    %[3]s
    %[4]s
    conv.i8
    call void p(int64)
    leave.s done
  }
  catch [mscorlib]System.DivideByZeroException
  {
    pop
    ldstr "DivideByZeroException"
    call void [mscorlib]System.Console::WriteLine(string)
    leave.s done
  }
  catch [mscorlib]System.OverflowException
  {
    pop
    ldstr "OverflowException"
    call void [mscorlib]System.Console::WriteLine(string)
    leave.s done
  }
done:
  ret
}
.method public static void r%[2]d() cil managed
{
`, typ.il, i, ldd, op)
					fmt.Fprintf(&main, "  call void r%d()\n", i)
					for _, x := range dividendsFor(d, typ.bits, r) {
						fmt.Fprintf(&src, "  "+ldx+"\n  call void t%d(%s)\n", x, i, typ.il)
						res := divRef(op, typ.bits, x, d)
						at := fmt.Sprintf("%d %s %d", x, op, d)
						v, err := strconv.ParseInt(res, 10, 64)
						if err != nil {
							want, what = append(want, res), append(what, at)
							continue
						}
						twice := 2 * v
						if typ.bits == 32 {
							twice = int64(int32(twice))
						}
						want = append(want, res, strconv.FormatInt(twice, 10), res)
						what = append(what, at+" (returned)", at+" (in a register home, doubled)", at+" (in a try block)")
					}
					src.WriteString("  ret\n}\n")
				}
				fmt.Fprintf(&src, ".method public static void main() cil managed\n{\n  .entrypoint\n%s  ret\n}\n", main.String())
				prog := []byte(src.String())
				validateSource(t, "divconst.il", prog, asm, &validation{})
				for _, eng := range []miniil.Engine{miniil.JIT, miniil.Interp} {
					out, code, err := runProgram(t, "divconst.il", prog, eng)
					if err != nil || code != 0 {
						t.Fatalf("%s: exit %d: %v", eng, code, err)
					}
					got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
					if len(got) != len(want) {
						t.Fatalf("%s: %d lines, want %d", eng, len(got), len(want))
					}
					bad := 0
					for i := range want {
						if got[i] != want[i] && bad < 10 {
							bad++
							t.Errorf("%s: %s: got %s, want %s", eng, what[i], got[i], want[i])
						}
					}
				}
			})
		}
	}
}
