package ir_test

import (
	"strings"
	"testing"

	"miniil/il"
	"miniil/ir"
	"miniil/opt"
	"miniil/reader"
)

// ptrSrc makes managed pointers of every origin: the address of a
// local, an argument, a field of an object and of a value, a static, an
// element, a box's value; a byref argument, a value-type argument and a
// return buffer.
const ptrSrc = `
.assembly extern mscorlib {}
.assembly t {}
.class public sequential sealed Pt extends [mscorlib]System.ValueType
{
  .field public int32 x
  .field public string s
}
.class public Box extends [mscorlib]System.Object
{
  .field public valuetype Pt p
  .field public static int32 st
  .method public specialname rtspecialname instance void .ctor() cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ret
  }
}
.method public static void main() cil managed
{
  .entrypoint
  ret
}
.method public static valuetype Pt f(int32& r, valuetype Pt v, class Box b, int32[] a, object o) cil managed
{
  .maxstack 4
  .locals init (valuetype Pt l, int32 i)
  ldloca l
  ldfld int32 Pt::x
  ldarga v
  ldfld int32 Pt::x
  add
  ldarg.2
  ldflda valuetype Pt Box::p
  ldflda int32 Pt::x
  ldind.i4
  add
  ldsflda int32 Box::st
  ldind.i4
  add
  ldarg.3
  ldc.i4.0
  ldelema int32
  ldind.i4
  add
  ldarg.s o
  unbox int32
  ldind.i4
  add
  ldarg.0
  ldind.i4
  add
  stloc i
  ldloca i
  ldind.i4
  pop
  ldarg.1
  ret
}
`

// TestPointerKinds checks that every address the reader makes is a Ptr,
// as are byref and value-type arguments and the return buffer, and that
// ir.Check refuses an address, or a pointer argument, of kind I64.
func TestPointerKinds(t *testing.T) {
	mod, err := il.Load("ptr.il", []byte(ptrSrc))
	if err != nil {
		t.Fatal(err)
	}
	var m *il.Method
	for _, x := range mod.AllMethods() {
		if x.Name == "f" {
			m = x
		}
	}
	load := func(t *testing.T) *ir.Func {
		f, err := reader.Import(mod, m)
		if err != nil {
			t.Fatal(err)
		}
		if err := opt.Run(f); err != nil {
			t.Fatal(err)
		}
		if err := ir.Check(f); err != nil {
			t.Fatalf("%v\n%s", err, f)
		}
		return f
	}
	f := load(t)
	for v, want := range []ir.Kind{ir.Ptr, ir.Ptr, ir.Ref, ir.Ref, ir.Ref, ir.Ptr} {
		if f.Kinds[v] != want {
			t.Errorf("argument v%d is %s, want %s", v, f.Kinds[v], want)
		}
	}
	seen := map[ir.Op]bool{}
	for _, b := range f.Blocks {
		for _, in := range b.Code() {
			switch in.Op {
			case ir.OpSlotAddr, ir.OpStaticAddr, ir.OpLea, ir.OpFieldAddr, ir.OpBoxData, ir.OpElemAddr:
				seen[in.Op] = true
				if f.Kinds[in.Dst] != ir.Ptr {
					t.Errorf("%s is %s, want ptr", f.Format(in, b), f.Kinds[in.Dst])
				}
			}
		}
	}
	for _, op := range []ir.Op{ir.OpSlotAddr, ir.OpStaticAddr, ir.OpLea, ir.OpFieldAddr, ir.OpBoxData, ir.OpElemAddr} {
		if !seen[op] {
			t.Errorf("the test method makes no %s", op)
		}
	}

	// Each mutation makes a pointer an I64: Check must refuse it.
	first := func(f *ir.Func, op ir.Op) *ir.Instr {
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				if in.Op == op {
					return in
				}
			}
		}
		t.Fatalf("no %s in\n%s", op, f)
		return nil
	}
	for _, tt := range []struct {
		name   string
		break_ func(f *ir.Func)
		want   string
	}{
		{"byref argument", func(f *ir.Func) { f.Kinds[0] = ir.I64 }, "v0 has kind i64, want ptr"},
		{"value-type argument", func(f *ir.Func) { f.Kinds[1] = ir.I64 }, "v1 has kind i64, want ptr"},
		{"return buffer", func(f *ir.Func) { f.Kinds[f.RetBuf()] = ir.I64 }, "want ptr"},
		{"slotaddr result", func(f *ir.Func) {
			in := first(f, ir.OpSlotAddr)
			in.Kind, f.Kinds[in.Dst] = ir.I64, ir.I64
		}, "the kind of slotaddr is i64, want ptr"},
		{"load through an integer", func(f *ir.Func) {
			in := first(f, ir.OpLoad)
			a := f.NewValue(ir.I64)
			in.Args[0] = a
		}, "is i64, want ptr"},
		{"compare pointers", func(f *ir.Func) {
			in := first(f, ir.OpSlotAddr)
			b := f.Blocks[0]
			b.Instrs = append(b.Instrs, &ir.Instr{Op: ir.OpCmp, Kind: ir.Ptr, Dst: f.NewValue(ir.I32), Dst2: ir.NoValue,
				Args: []ir.Value{in.Dst, in.Dst}})
		}, "the kind of cmp is ptr"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := load(t)
			tt.break_(f)
			err := ir.Check(f)
			if err == nil {
				t.Fatalf("broken IR accepted:\n%s", f)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, want it to contain %q", err, tt.want)
			}
		})
	}
}
