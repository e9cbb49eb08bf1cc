package amd64_test

import (
	"slices"
	"testing"

	"miniil/amd64"
	"miniil/il"
)

// compileNamed loads src (a module body without the assembly headers and
// entry point) and compiles method name through the whole pipeline.
func compileNamed(t *testing.T, src, name string) (*il.Method, *amd64.Code) {
	t.Helper()
	const head = ".assembly extern mscorlib {}\n.assembly t {}\n" +
		".method public static void main() cil managed\n{\n  .entrypoint\n  ret\n}\n"
	mod, err := il.Load("test.il", []byte(head+src))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mod.AllMethods() {
		if m.Abstract {
			continue // no body
		}
		if m.Name == name && !m.Builtin {
			code, err := compileOne(mod, m, amd64.NewAssembler())
			if err != nil {
				t.Fatal(err)
			}
			return m, code
		}
	}
	t.Fatalf("no method %s", name)
	return nil, nil
}

// want is where a local must live: in a general purpose register, in a
// callee-saved one, in an XMM register, or in the frame.
type want int

const (
	inGPR want = iota
	inCalleeSaved
	inXMM
	inFrame
)

func (w want) holds(r amd64.Reg) bool {
	switch w {
	case inGPR:
		return r.IsGPR()
	case inCalleeSaved:
		return slices.Contains(amd64.CalleeSaved, r)
	case inXMM:
		return r.IsXMM()
	}
	return r == amd64.NoReg
}

func (w want) String() string {
	return [...]string{"a GPR", "a callee-saved GPR", "an XMM register", "the frame"}[w]
}

func TestRegisterHomes(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		locals []want // where each local lives
		saves  int    // callee-saved registers the prolog stores (-1: any)
	}{
		{"loop variables in registers", `
.method public static int64 f(int32 n) cil managed
{
  .locals init (int32 i, int64 sum)
LOOP:
  ldloc i
  ldarg.0
  bge.s END
  ldloc sum
  ldloc i
  conv.i8
  add
  stloc sum
  ldloc i
  ldc.i4.1
  add
  stloc i
  br.s LOOP
END:
  ldloc sum
  ret
}`, []want{inGPR, inGPR}, -1},
		{"across the call of a finally: callee-saved", `
.method public static int32 f(int32 n) cil managed
{
  .locals init (int32 i, int32 s)
LOOP:
  ldloc i
  ldarg.0
  bge.s END
  .try {
    leave.s NEXT
  } finally {
    ldloc s
    ldc.i4.1
    add
    stloc s
    endfinally
  }
NEXT:
  ldloc i
  ldc.i4.1
  add
  stloc i
  br.s LOOP
END:
  ldloc s
  ret
}`, []want{inCalleeSaved, inFrame}, -1},
		{"across the call of a finally holding a try: the frame", `
.method public static int32 f(int32 n) cil managed
{
  .locals init (int32 i, int32 s)
LOOP:
  ldloc i
  ldarg.0
  bge.s END
  .try {
    leave.s NEXT
  } finally {
    .try {
      ldloc s
      ldc.i4.1
      add
      stloc s
      leave.s F
    } catch [mscorlib]System.Exception {
      pop
      leave.s F
    }
  F:
    endfinally
  }
NEXT:
  ldloc i
  ldc.i4.1
  add
  stloc i
  br.s LOOP
END:
  ldloc s
  ret
}`, []want{inFrame, inFrame}, -1},
		{"floats in XMM registers", `
.method public static float64 f(int32 n) cil managed
{
  .locals init (int32 i, float64 x, float64 acc)
LOOP:
  ldloc i
  ldarg.0
  bge.s END
  ldloc x
  ldc.r8 0.5
  add
  stloc x
  ldloc acc
  ldloc x
  ldloc x
  mul
  add
  stloc acc
  ldloc i
  ldc.i4.1
  add
  stloc i
  br.s LOOP
END:
  ldloc acc
  ret
}`, []want{inGPR, inXMM, inXMM}, -1},
		{"hot values across calls: callee-saved ints, framed floats", `
.method public static int32 g(int32 x) cil managed
{
  ldarg.0
  ret
}
.method public static float64 f(int32 n) cil managed
{
  .locals init (int32 i, float64 acc)
LOOP:
  ldloc i
  ldarg.0
  bge.s END
  ldloc i
  call int32 g(int32)
  pop
  ldloc acc
  ldc.r8 1.5
  add
  stloc acc
  ldloc i
  ldc.i4.1
  add
  stloc i
  br.s LOOP
END:
  ldloc acc
  ret
}`, []want{inCalleeSaved, inFrame}, 2}, // i and n
		{"values a handler sees stay in the frame; handlers save every callee-saved register", `
.method public static int32 f(int32 n) cil managed
{
  .locals init (int32 i, int32 seen, int32 k)
LOOP:
  ldloc k
  ldarg.0
  bge.s NEXT
  ldloc k
  ldc.i4.1
  add
  stloc k
  br.s LOOP
NEXT:
  .try
  {
    ldloc i
    ldc.i4.1
    add
    stloc i
    leave.s OUT
  }
  catch [mscorlib]System.Exception
  {
    pop
    ldloc seen
    ldc.i4.1
    add
    stloc seen
    leave.s OUT
  }
OUT:
  ldloc i
  ldloc seen
  add
  ret
}`, []want{inFrame, inFrame, inGPR}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, code := compileNamed(t, tt.src, "f")
			args := len(m.Params)
			for i, w := range tt.locals {
				if r := code.Homes[args+i]; !w.holds(r) {
					t.Errorf("local %d (%s) lives in %v, want %v; homes: %s", i, m.Locals[i].Name, r, w, code.HomeList())
				}
			}
			if tt.saves >= 0 && len(code.Saves) != tt.saves {
				t.Errorf("prolog saves %d callee-saved registers, want %d", len(code.Saves), tt.saves)
			}
		})
	}
}
