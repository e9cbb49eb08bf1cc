package amd64_test

import (
	"strings"
	"testing"

	"miniil/amd64"
	"miniil/funclet"
	"miniil/il"
	"miniil/ir"
	"miniil/opt"
	"miniil/reader"
)

// allocSrc has two methods whose values the allocator places in every
// way CheckAlloc looks at: f keeps four integers in callee-saved
// registers across a call in a loop, a float in the frame across it, and
// a call's result and an overflow flag in registers between; g has a
// value live into a catch's continuation, one live across the call of a
// finally holding a try and one that finally reads.
const allocSrc = `
.method public static int32 Callee(int32 x) cil managed
{
  ldarg.0
  ret
}
.method public static int32 f(int32 n) cil managed
{
  .maxstack 4
  .locals init (int32 i, int32 a, int32 b, float64 d)
  ldc.r8 1.5
  stloc d
L:
  ldloc i
  ldarg.0
  bge.s DONE
  ldloc i
  call int32 Callee(int32)
  dup
  ldloc a
  add
  stloc a
  ldloc b
  add.ovf
  stloc b
  ldloc d
  ldc.r8 1.5
  mul
  stloc d
  ldloc i
  ldc.i4.1
  add
  stloc i
  br.s L
DONE:
  ldloc a
  ldloc b
  add
  ldloc d
  conv.i4
  add
  ret
}
.method public static int32 g(int32 n) cil managed
{
  .maxstack 3
  .locals init (int32 i, int32 a, int32 k, int32 m)
L:
  ldloc i
  ldarg.0
  bge.s X
  ldloc a
  ldloc i
  add
  stloc a
  ldloc i
  ldc.i4.1
  add
  stloc i
  br.s L
X:
  .try
  {
    ldarg.0
    call int32 Callee(int32)
    pop
    leave.s A
  }
  catch [mscorlib]System.Exception
  {
    pop
    leave.s A
  }
A:
  ldarg.0
  ldc.i4.2
  mul
  stloc m
  .try
  {
    leave.s B
  }
  finally
  {
    .try
    {
      ldloc k
      ldc.i4.1
      add
      stloc k
      leave.s FE
    }
    catch [mscorlib]System.Exception
    {
      pop
      leave.s FE
    }
  FE:
    endfinally
  }
B:
  ldloc a
  ldloc m
  add
  ldloc k
  add
  ret
}
`

// allocated imports, optimizes, lays out and allocates method name of
// allocSrc.
func allocated(t *testing.T, name string) (*ir.Func, *funclet.Layout, *amd64.Alloc) {
	t.Helper()
	const head = ".assembly extern mscorlib {}\n.assembly t {}\n" +
		".method public static void main() cil managed\n{\n  .entrypoint\n  ret\n}\n"
	mod, err := il.Load("alloc.il", []byte(head+allocSrc))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mod.AllMethods() {
		if m.Abstract {
			continue // no body
		}
		if m.Name != name {
			continue
		}
		f, err := reader.Import(mod, m)
		if err != nil {
			t.Fatal(err)
		}
		if err := opt.Run(f); err != nil {
			t.Fatal(err)
		}
		lay, err := funclet.Build(f)
		if err != nil {
			t.Fatal(err)
		}
		alloc, err := amd64.Allocate(f, lay)
		if err != nil {
			t.Fatal(err)
		}
		return f, lay, alloc
	}
	t.Fatalf("no method %s", name)
	return nil, nil, nil
}

// allocFixture finds the values the mutations below change.
type allocFixture struct {
	t     *testing.T
	f     *ir.Func
	alloc *amd64.Alloc
}

// local returns local i.
func (x allocFixture) local(i int) ir.Value { return ir.Value(x.f.NumArgs + i) }

// result returns the result (or the overflow flag) of the first
// instruction op.
func (x allocFixture) result(op ir.Op, flag bool) ir.Value {
	x.t.Helper()
	for _, b := range x.f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == op {
				if flag {
					return in.Dst2
				}
				return in.Dst
			}
		}
	}
	x.t.Fatalf("no %s", op)
	return ir.NoValue
}

// move puts v in r, moving any other value there to the frame (a value
// in its slot is always allowed).
func (x allocFixture) move(v ir.Value, r amd64.Reg) {
	for w, h := range x.alloc.Homes {
		if h == r {
			x.alloc.Homes[w] = amd64.NoReg
		}
	}
	x.alloc.Homes[v] = r
}

// need fails the test unless v's home is as the allocator must have
// chosen it (so that the mutation breaks a real allocation).
func (x allocFixture) need(v ir.Value, ok bool, what string) {
	x.t.Helper()
	if !ok {
		x.t.Fatalf("%s is in %s, want %s; homes: %v", v, x.alloc.Homes[v], what, x.alloc.Homes)
	}
}

func (x allocFixture) homed(v ir.Value) bool { return x.alloc.Homes[v] != amd64.NoReg }

// TestCheckAllocRejects checks that CheckAlloc accepts the allocations of
// f and g, and rejects each of them broken in each way the contract
// forbids.
func TestCheckAllocRejects(t *testing.T) {
	tests := []struct {
		method string
		name   string
		break_ func(x allocFixture)
		want   string
	}{
		{"f", "no allocation", func(x allocFixture) { *x.alloc = amd64.Alloc{} }, "0 homes for"},
		{"f", "too few homes", func(x allocFixture) { x.alloc.Homes = x.alloc.Homes[1:] }, "homes for"},
		{"f", "RAX", func(x allocFixture) { x.move(x.local(1), amd64.RAX) }, "is in a scratch register of the code generator"},
		{"f", "XMM0", func(x allocFixture) { x.move(x.local(3), amd64.X0) }, "is in a scratch register of the code generator"},
		{"f", "RDI", func(x allocFixture) { x.move(x.local(1), amd64.RDI) }, "lives in a block where arguments may still be read"},
		{"f", "RCX", func(x allocFixture) { x.move(x.local(1), amd64.RCX) }, "is in a scratch register"},
		{"f", "XMM2", func(x allocFixture) { x.move(x.local(3), amd64.X2) }, "is live across a managed call in a register it may change"},
		{"f", "RSP", func(x allocFixture) { x.move(x.local(1), amd64.RSP) }, "is in the stack or frame pointer"},
		{"f", "R15", func(x allocFixture) { x.move(x.local(1), amd64.R15) }, "is in the context register"},
		{"f", "no register", func(x allocFixture) { x.move(x.local(1), amd64.Reg(40)) }, "is in an unknown register"},
		{"f", "integer in XMM8", func(x allocFixture) { x.move(x.local(1), amd64.X8) }, "in a register of the other class"},
		{"f", "float in R10", func(x allocFixture) { x.move(x.local(3), amd64.R10) }, "in a register of the other class"},
		{"f", "transient with a home", func(x allocFixture) {
			for v := range x.alloc.Homes {
				if x.alloc.Transient.Has(ir.Value(v)) {
					x.move(ir.Value(v), amd64.R10)
					return
				}
			}
			x.t.Fatal("no transient value")
		}, "needs no location but has one"},
		{"f", "two locals in one register", func(x allocFixture) {
			a, b := x.local(1), x.local(2)
			x.need(a, x.homed(a), "a register")
			x.alloc.Homes[b] = x.alloc.Homes[a]
		}, "the prolog writes"},
		{"f", "a call's result over a live local", func(x allocFixture) {
			r, a := x.result(ir.OpCall, false), x.local(1)
			x.need(r, x.homed(r) && !x.alloc.Transient.Has(r), "a register")
			x.need(a, x.homed(a), "a register")
			x.alloc.Homes[r] = x.alloc.Homes[a]
		}, "which is live"},
		{"f", "both results in one register", func(x allocFixture) {
			d, flag := x.result(ir.OpAddOvf, false), x.result(ir.OpAddOvf, true)
			x.need(flag, !x.alloc.Transient.Has(flag), "a location")
			x.move(d, amd64.R10)
			x.alloc.Homes[flag] = amd64.R10
		}, "both results in R10"},
		{"f", "a local across a call in a caller-saved register", func(x allocFixture) {
			a := x.local(1)
			x.need(a, x.homed(a), "a register")
			x.move(a, amd64.R11)
		}, "is live across a managed call in a register it may change"},
		{"f", "a float across a call", func(x allocFixture) {
			d := x.local(3)
			x.need(d, !x.homed(d), "the frame")
			x.move(d, amd64.X8)
		}, "is live across a managed call in a register it may change"},
		{"g", "live into a catch's continuation", func(x allocFixture) {
			a := x.local(1)
			x.need(a, !x.homed(a), "the frame")
			x.move(a, amd64.RBX)
		}, "where the catch ending in"},
		{"g", "live across a callfinally", func(x allocFixture) {
			m := x.local(3)
			x.need(m, !x.homed(m), "the frame")
			x.move(m, amd64.R12)
		}, "is live across the call of a finally"},
		{"g", "read by a finally", func(x allocFixture) {
			k := x.local(2)
			x.need(k, !x.homed(k), "the frame")
			x.move(k, amd64.R13)
		}, "is mentioned by the finally funclet"},
	}
	for _, name := range []string{"f", "g"} {
		f, lay, alloc := allocated(t, name)
		if err := amd64.CheckAlloc(f, lay, alloc); err != nil {
			t.Fatalf("the allocator's homes rejected: %v\n%s", err, f)
		}
		if err := amd64.CheckAlloc(f, nil, alloc); err == nil || !strings.Contains(err.Error(), "no layout") {
			t.Errorf("no layout: got %v", err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.method+"/"+tt.name, func(t *testing.T) {
			f, lay, alloc := allocated(t, tt.method)
			tt.break_(allocFixture{t, f, alloc})
			err := amd64.CheckAlloc(f, lay, alloc)
			if err == nil {
				t.Fatalf("broken homes accepted: %v\n%s", alloc.Homes, f)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), tt.method+": register homes: ") {
				t.Errorf("got %q, want it to contain %q", err, tt.want)
			}
		})
	}
}
