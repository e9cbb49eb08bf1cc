package bigprog

import (
	"fmt"
	"strings"
)

// The programs of the compile-throughput measurements (issue 14): many
// small methods each called once, and one large method called once. Both
// print a checksum, so every engine's run can be compared.

// ManyMethods returns a program of n small methods (about 60 IL bytes
// each, a loop and a branch: too large for miniil's or Mono's inliner
// outside a loop), each called once: main calls f0, and each fi calls
// f(i+1) before it returns, so main stays small. ManyMethods(0) is the
// start-up program: main alone, printing 0.
func ManyMethods(n int) []byte {
	var b strings.Builder
	b.Grow(n * 700)
	b.WriteString(".assembly extern mscorlib {}\n.assembly compilemany {}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `.method public static int32 f%d(int32 x) cil managed
{
  .maxstack 4
  .locals init (int32 s, int32 k)
  ldc.i4 %d
  stloc.0
  ldc.i4.0
  stloc.1
  br.s TEST
LOOP:
  ldloc.0
  ldloc.1
  ldc.i4 %d
  mul
  add
  ldloc.0
  ldc.i4.3
  shr
  xor
  stloc.0
  ldloc.1
  ldc.i4.1
  add
  stloc.1
TEST:
  ldloc.1
  ldarg.0
  blt.s LOOP
  ldloc.0
  ldc.i4 %d
  ble.s SKIP
  ldloc.0
  ldc.i4 %d
  sub
  stloc.0
SKIP:
  ldloc.0
`, i, i, 2*i+1, 1000+i, 999+i)
		if i+1 < n {
			fmt.Fprintf(&b, "  ldarg.0\n  call int32 f%d(int32)\n  xor\n", i+1)
		}
		b.WriteString("  ret\n}\n\n")
	}
	b.WriteString(".method public static void main() cil managed\n{\n  .entrypoint\n  .maxstack 1\n")
	if n > 0 {
		b.WriteString("  ldc.i4.3\n  call int32 f0(int32)\n")
	} else {
		b.WriteString("  ldc.i4.0\n") // the start-up program: prints too
	}
	b.WriteString("  call void [mscorlib]System.Console::WriteLine(int32)\n  ret\n}\n")
	return []byte(b.String())
}

// BigMethod returns a program whose main calls once a method of at
// least size IL bytes: straight-line integer arithmetic over eight
// locals, with a compare and forward branch every 43 bytes.
func BigMethod(size int) []byte {
	var b strings.Builder
	b.Grow(size * 12)
	b.WriteString(".assembly extern mscorlib {}\n.assembly compilebig {}\n\n")
	b.WriteString(".method public static int32 big(int32 x) cil managed\n{\n  .maxstack 4\n  .locals init (int32 a, int32 b, int32 c, int32 d, int32 e, int32 f, int32 g, int32 h)\n")
	b.WriteString("  ldarg.0\n  stloc.0\n  ldarg.0\n  ldc.i4.1\n  add\n  stloc.1\n")
	n := 6
	for i := 0; n < size; i++ {
		p, q, r := i%8, (i+3)%8, (i+5)%8
		// 10 bytes: a = (a + K) ^ b (locals 0-3 have short forms)
		fmt.Fprintf(&b, "  ldloc.s %d\n  ldc.i4 %d\n  add\n  ldloc.s %d\n  xor\n  stloc.s %d\n", p, 7*i+1, q, p)
		// 10 bytes: c = c + (a >> 3)
		fmt.Fprintf(&b, "  ldloc.s %d\n  ldloc.s %d\n  ldc.i4.3\n  shr\n  add\n  stloc.s %d\n", r, p, r)
		// 9 bytes with the branch: if (c < K) skip the next update
		fmt.Fprintf(&b, "  ldloc.s %d\n  ldc.i4 %d\n  blt L%d\n", r, 1000*i, i)
		// 10 bytes: b = b * 3 - a
		fmt.Fprintf(&b, "  ldloc.s %d\n  ldc.i4.3\n  mul\n  ldloc.s %d\n  sub\n  stloc.s %d\nL%d:\n", q, p, q, i)
		n += 13 + 9 + 12 + 9
	}
	b.WriteString("  ldloc.0\n  ldloc.1\n  xor\n  ldloc.2\n  xor\n  ldloc 7\n  xor\n  ret\n}\n\n")
	b.WriteString(".method public static void main() cil managed\n{\n  .entrypoint\n  .maxstack 1\n  ldc.i4.5\n  call int32 big(int32)\n  call void [mscorlib]System.Console::WriteLine(int32)\n  ret\n}\n")
	return []byte(b.String())
}

// TrivialMethods returns n methods that return their argument (ldarg.0;
// ret), and a main that calls none of them: for the fixed cost of a
// compile, what every method pays whatever its size.
func TrivialMethods(n int) []byte {
	var b strings.Builder
	b.WriteString(".assembly extern mscorlib {}\n.assembly compiletrivial {}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, ".method public static int32 t%d(int32 x) cil managed\n{\n  ldarg.0\n  ret\n}\n\n", i)
	}
	b.WriteString(".method public static void main() cil managed\n{\n  .entrypoint\n  ret\n}\n")
	return []byte(b.String())
}
