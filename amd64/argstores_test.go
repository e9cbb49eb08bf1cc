package amd64_test

import (
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestLeafStoresNoArgs checks that a method of one block that reads its
// arguments only from their registers and returns leaves them unstored:
// the prolog copied every argument to its home (mov r8, rdi; mov r9d,
// esi) even when the body read none of the copies, in every call of a
// small virtual method.
func TestLeafStoresNoArgs(t *testing.T) {
	const src = `
.method public static int32 Add(int32 a, int32 b) cil managed {
  ldarg.1 ldc.i4 12345 add ret
}
.class public C extends [mscorlib]System.Object {
  .method public virtual instance int32 Sides() cil managed { ldc.i4.4 ret }
}
`
	for _, tc := range []struct {
		method string
		instrs int // up to the ret: push, mov rbp, stack check (2), body, leave, ret
	}{
		{"Add", 8},
		{"Sides", 7},
	} {
		t.Run(tc.method, func(t *testing.T) {
			_, code := compileNamed(t, src, tc.method)
			n := 0
			for _, in := range decodeCode(t, code.Code[:code.ColdStart]) {
				n++
				for _, a := range in.Args {
					if r, ok := a.(x86asm.Reg); ok && a == in.Args[0] && (r == x86asm.R8 || r == x86asm.R8L ||
						r == x86asm.R9 || r == x86asm.R9L || r == x86asm.R8W || r == x86asm.R9W) {
						t.Errorf("%v writes an argument home", in)
					}
				}
				if in.Op == x86asm.RET {
					break
				}
			}
			if n != tc.instrs {
				t.Errorf("%d instructions up to the ret, want %d", n, tc.instrs)
			}
		})
	}
}
