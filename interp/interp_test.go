package interp

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

const prologue = ".assembly extern mscorlib {}\n.assembly t {}\n"

func TestUnhandledReport(t *testing.T) {
	src := prologue + `
.method public static void c() cil managed
{
  .maxstack 1
  ldstr "bad state"
  newobj instance void [mscorlib]System.InvalidOperationException::.ctor(string)
  throw
}
.method public static void b(int32 x, string name) cil managed
{
  .maxstack 1
  .try
  {
    call void c()
    leave.s E
  }
  finally
  {
    ldstr "finally must not run"
    call void [mscorlib]System.Console::WriteLine(string)
    endfinally
  }
E:
  ret
}
.method public static int32 main() cil managed
{
  .entrypoint
  .maxstack 2
  ldstr "start"
  call void [mscorlib]System.Console::WriteLine(string)
  ldc.i4.1
  ldnull
  call void b(int32, string)
  ldc.i4.0
  ret
}`
	out, code, err := runSource(t, "u.il", src, Options{})
	if out != "start\n" || code != ExitUnhandled {
		t.Fatalf("got %q exit %d", out, code)
	}
	var u *UnhandledException
	if !errors.As(err, &u) {
		t.Fatalf("err = %v, want *UnhandledException", err)
	}
	want := "Unhandled exception. System.InvalidOperationException: bad state\n" +
		"   at <Module>.c()\n   at <Module>.b(Int32 x, String name)\n   at <Module>.main()"
	if err.Error() != want {
		t.Errorf("report:\n%s\nwant:\n%s", err.Error(), want)
	}
}

func TestUnhandledTraces(t *testing.T) {
	src := prologue + `
.class public auto ansi E extends [mscorlib]System.Exception
{
  .method public specialname rtspecialname instance void .ctor() cil managed
  {
    .maxstack 1
    ldarg.0
    call instance void [mscorlib]System.Exception::.ctor()
    ret
  }
  .method public hidebysig virtual instance string get_Message() cil managed
  {
    .maxstack 1
    ldstr "computed"
    ret
  }
}
.method public static void thrower() cil managed
{
  .maxstack 1
  newobj instance void E::.ctor()
  throw
}
.method public static void rethrower() cil managed
{
  .maxstack 1
  .try
  {
    call void thrower()
    leave.s X
  }
  catch [mscorlib]System.Object
  {
    pop
    rethrow
  }
X:
  ret
}
.method public static void rethrowerNew() cil managed
{
  .maxstack 1
  .try
  {
    call void thrower()
    leave.s X
  }
  catch [mscorlib]System.Object
  {
    throw
  }
X:
  ret
}
.method public static void nullref() cil managed
{
  .maxstack 1
  ldnull
  ldfld int32 E::nothing
  pop
  ret
}
.method public static void main() cil managed
{
  .entrypoint
  .maxstack 1
  call void MAIN()
  ret
}
.method public static void MAIN() cil managed
{
  .maxstack 1
  ret
}`
	cases := []struct{ call, want string }{
		{"rethrower", "Unhandled exception. E: computed\n   at <Module>.thrower()\n   at <Module>.rethrower()\n   at <Module>.main()"},
		{"rethrowerNew", "Unhandled exception. E: computed\n   at <Module>.rethrowerNew()\n   at <Module>.main()"},
	}
	for _, tc := range cases {
		s := strings.Replace(src, "call void MAIN()", "call void "+tc.call+"()", 1)
		s = strings.Replace(s, "ldfld int32 E::nothing", "ldlen", 1)
		_, code, err := runSource(t, "t.il", s, Options{})
		if code != ExitUnhandled || err == nil || err.Error() != tc.want {
			t.Errorf("%s: exit %d, report:\n%v\nwant:\n%s", tc.call, code, err, tc.want)
		}
	}
	s := strings.Replace(src, "call void MAIN()", "call void nullref()", 1)
	s = strings.Replace(s, "ldfld int32 E::nothing", "ldlen", 1)
	_, _, err := runSource(t, "t.il", s, Options{})
	want := "Unhandled exception. System.NullReferenceException: Object reference not set to an instance of an object.\n   at <Module>.nullref()\n   at <Module>.main()"
	if err == nil || err.Error() != want {
		t.Errorf("nullref report:\n%v\nwant:\n%s", err, want)
	}
}

const recursive = prologue + `
.method public static int32 down(int32 n) cil managed
{
  .maxstack 2
  ldarg.0
  brtrue.s REC
  ldc.i4.0
  ret
REC:
  ldarg.0
  ldc.i4.1
  sub
  call int32 down(int32)
  ldc.i4.1
  add
  ret
}
.method public static int32 main() cil managed
{
  .entrypoint
  .maxstack 2
  ldc.i4 DEPTH
  call int32 down(int32)
  ldc.i4 1000
  rem
  ret
}`

func TestStackOverflow(t *testing.T) {
	src := strings.Replace(recursive, "DEPTH", "100000000", 1)
	_, code, err := runSource(t, "so.il", src, Options{})
	var so *StackOverflowError
	if code != ExitUnhandled || !errors.As(err, &so) || err.Error() != "Stack overflow." {
		t.Fatalf("exit %d, err %v", code, err)
	}
	// A small limit, and a deep recursion within the default one.
	src = strings.Replace(recursive, "DEPTH", "100000", 1)
	if _, code, err = runSource(t, "so.il", src, Options{MaxCallDepth: 1000}); !errors.As(err, &so) {
		t.Fatalf("exit %d, err %v, want stack overflow", code, err)
	}
	src = strings.Replace(recursive, "DEPTH", "50000", 1)
	if _, code, err = runSource(t, "deep.il", src, Options{}); err != nil || code != 0 {
		t.Fatalf("depth 50000: exit %d, err %v", code, err)
	}
}

func TestCancellation(t *testing.T) {
	src := prologue + `
.method public static void main() cil managed
{
  .entrypoint
  .maxstack 1
L:
  br.s L
}`
	m := mustLoad(t, src)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, m, Options{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestConvert(t *testing.T) {
	nan := fbits(math.NaN())
	tests := []struct {
		name         string
		target, mode int
		src          styp
		in           int64
		want         int64
		ok           bool
	}{
		{"i1 wrap", cvI1, cmPlain, sI4, 200, -56, true},
		{"u1 wrap", cvU1, cmPlain, sI4, -1, 255, true},
		{"u2 wrap", cvU2, cmPlain, sI4, -1, 65535, true},
		{"i4 of i8", cvI4, cmPlain, sI8, 1 << 32, 0, true},
		{"u8 of i4 zero-extends", cvU8, cmPlain, sI4, -1, 0xFFFFFFFF, true},
		{"i8 of i4 sign-extends", cvI8, cmPlain, sI4, -1, -1, true},
		{"r.un of i4", cvRUn, cmPlain, sI4, -1, fbits(4294967295), true},
		{"r.un of i8", cvRUn, cmPlain, sI8, -1, fbits(18446744073709551615.0), true},
		{"i4 of NaN", cvI4, cmPlain, sR8, nan, math.MinInt32, true},
		{"i4 of 3e9", cvI4, cmPlain, sR8, fbits(3e9), math.MinInt32, true},
		{"i4 of -2.9", cvI4, cmPlain, sR8, fbits(-2.9), -2, true},
		{"i8 of 1e30", cvI8, cmPlain, sR8, fbits(1e30), math.MinInt64, true},
		{"u4 of -1.5", cvU4, cmPlain, sR8, fbits(-1.5), -1, true},
		{"u4 of 5e9", cvU4, cmPlain, sR8, fbits(5e9), 705032704, true},
		{"u8 of 1e19", cvU8, cmPlain, sR8, fbits(1e19), u1e19, true},
		{"u8 of -1", cvU8, cmPlain, sR8, fbits(-1), -1, true},
		{"u8 of 1e30", cvU8, cmPlain, sR8, fbits(1e30), 0, true},
		{"u8 of NaN", cvU8, cmPlain, sR8, nan, 0, true},
		{"u1 of 300.7", cvU1, cmPlain, sR8, fbits(300.7), 44, true},
		{"r4 rounds", cvR4, cmPlain, sR8, fbits(0.1), fbits(float64(float32(0.1))), true},
		{"ovf i1 127", cvI1, cmOvf, sI4, 127, 127, true},
		{"ovf i1 128", cvI1, cmOvf, sI4, 128, 0, false},
		{"ovf u4 -1", cvU4, cmOvf, sI4, -1, 0, false},
		{"ovf u4 big i8", cvU4, cmOvf, sI8, 4294967295, -1, true},
		{"ovf u8 -1", cvU8, cmOvf, sI8, -1, 0, false},
		{"ovf.un i4 of -1", cvI4, cmOvfUn, sI4, -1, 0, false},
		{"ovf.un u4 of -1", cvU4, cmOvfUn, sI4, -1, -1, true},
		{"ovf.un i8 of -1 (i8)", cvI8, cmOvfUn, sI8, -1, 0, false},
		{"ovf.un u8 of -1 (i4)", cvU8, cmOvfUn, sI4, -1, 0xFFFFFFFF, true},
		{"ovf i4 of -2147483648.9", cvI4, cmOvf, sR8, fbits(-2147483648.9), math.MinInt32, true},
		{"ovf i4 of 2147483648", cvI4, cmOvf, sR8, fbits(2147483648), 0, false},
		{"ovf u4 of -0.5", cvU4, cmOvf, sR8, fbits(-0.5), 0, true},
		{"ovf u4 of -1", cvU4, cmOvf, sR8, fbits(-1), 0, false},
		{"ovf i8 of NaN", cvI8, cmOvf, sR8, nan, 0, false},
		{"ovf u8 of 1e19", cvU8, cmOvf, sR8, fbits(1e19), u1e19, true},
		{"ovf u (native) of 1e19", cvUN, cmOvf, sR8, fbits(1e19), 0, false},
		{"ovf i8 of -2^63", cvI8, cmOvf, sR8, fbits(-9223372036854775808.0), math.MinInt64, true},
		{"ovf i8 of 2^63", cvI8, cmOvf, sR8, fbits(9223372036854775808.0), 0, false},
	}
	for _, tc := range tests {
		got, ok := convert(tc.target, tc.mode, tc.src, tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s: got (%d, %v), want (%d, %v)", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestArith(t *testing.T) {
	type fn func(a, b int64) (int64, bool)
	tests := []struct {
		name string
		f    fn
		a, b int64
		want int64
		ok   bool
	}{
		{"add32 max+1", addOvf32, math.MaxInt32, 1, 0, false},
		{"add32 -1+1", addOvf32, -1, 1, 0, true},
		{"addun32 0xFFFFFFFF+1", addOvfUn32, -1, 1, 0, false},
		{"addun32 0x7FFFFFFF+1", addOvfUn32, math.MaxInt32, 1, math.MinInt32, true},
		{"sub32 min-1", subOvf32, math.MinInt32, 1, 0, false},
		{"subun32 0-1", subOvfUn32, 0, 1, 0, false},
		{"subun32 -1 - 1", subOvfUn32, -1, 1, -2, true},
		{"mul32 65536^2", mulOvf32, 65536, 65536, 0, false},
		{"mul32 -65536*32768", mulOvf32, -65536, 32768, math.MinInt32, true},
		{"mulun32 65536*65535", mulOvfUn32, 65536, 65535, int64(int32(-65536)), true},
		{"add64 max+1", addOvf64, math.MaxInt64, 1, 0, false},
		{"add64 min+-1", addOvf64, math.MinInt64, -1, 0, false},
		{"add64 min+max", addOvf64, math.MinInt64, math.MaxInt64, -1, true},
		{"addun64", addOvfUn64, -1, 1, 0, false},
		{"sub64 min-1", subOvf64, math.MinInt64, 1, 0, false},
		{"sub64 0-min", subOvf64, 0, math.MinInt64, 0, false},
		{"sub64 -1-min", subOvf64, -1, math.MinInt64, math.MaxInt64, true},
		{"subun64", subOvfUn64, 1, 2, 0, false},
		{"mul64 min*-1", mulOvf64, math.MinInt64, -1, 0, false},
		{"mul64 2^32*2^31", mulOvf64, 1 << 32, 1 << 31, 0, false},
		{"mul64 -2^32*2^31", mulOvf64, -(1 << 32), 1 << 31, math.MinInt64, true},
		{"mulun64 2^32*2^32", mulOvfUn64, 1 << 32, 1 << 32, 0, false},
	}
	for _, tc := range tests {
		got, ok := tc.f(tc.a, tc.b)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s: got (%d, %v), want (%d, %v)", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	divs := []struct {
		name string
		f    func(a, b int64) (int64, int)
		a, b int64
		want int64
		st   int
	}{
		{"div32 min/-1", div32, math.MinInt32, -1, 0, arOverflow},
		{"rem32 min%-1", rem32, math.MinInt32, -1, 0, arOverflow},
		{"div32 /0", div32, 1, 0, 0, arDivZero},
		{"div32 -7/2", div32, -7, 2, -3, arOK},
		{"rem32 -7%2", rem32, -7, 2, -1, arOK},
		{"divun32 -1/2", divUn32, -1, 2, math.MaxInt32, arOK},
		{"remun32 -1%10", remUn32, -1, 10, 5, arOK},
		{"div64 min/-1", div64, math.MinInt64, -1, 0, arOverflow},
		{"rem64 min%-1", rem64, math.MinInt64, -1, 0, arOverflow},
		{"divun64 -1/2", divUn64, -1, 2, math.MaxInt64, arOK},
		{"remun64 /0", remUn64, 1, 0, 0, arDivZero},
	}
	for _, tc := range divs {
		got, st := tc.f(tc.a, tc.b)
		if st != tc.st || (st == arOK && got != tc.want) {
			t.Errorf("%s: got (%d, %d), want (%d, %d)", tc.name, got, st, tc.want, tc.st)
		}
	}
}

var u1e19 = func() int64 { u := uint64(10000000000000000000); return int64(u) }()
