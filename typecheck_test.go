package miniil_test

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"testing"

	"miniil"
)

// typeChecks exercises every type test the code generator compiles
// inline: isinst and castclass to classes (through a three-level
// hierarchy), to an interface, to string, to a value type and to boxed
// primitives; unbox.any; box of every primitive kind (the bits the box
// holds are seen through unbox.any and ToString); and array stores of an
// object of the element type, of a subclass, and of anything into an
// object[]. The rest (covariant arrays, failing casts) stays correct
// through the helpers.
const typeChecks = `
.assembly extern mscorlib {}
.assembly typechecks {}
.class interface public abstract auto ansi IVal
{
  .method public hidebysig newslot abstract virtual instance int32 Val() cil managed {}
}
.class public auto ansi beforefieldinit Base extends [mscorlib]System.Object
{
  .field public int32 v
  .method public hidebysig specialname rtspecialname instance void .ctor(int32 v) cil managed
  { ldarg.0 call instance void [mscorlib]System.Object::.ctor() ldarg.0 ldarg.1 stfld int32 Base::v ret }
}
.class public auto ansi beforefieldinit Mid extends Base implements IVal
{
  .method public hidebysig specialname rtspecialname instance void .ctor(int32 v) cil managed
  { ldarg.0 ldarg.1 call instance void Base::.ctor(int32) ret }
  .method public hidebysig newslot virtual instance int32 Val() cil managed { ldarg.0 ldfld int32 Base::v ret }
}
.class public auto ansi beforefieldinit Leaf extends Mid
{
  .method public hidebysig specialname rtspecialname instance void .ctor(int32 v) cil managed
  { ldarg.0 ldarg.1 call instance void Mid::.ctor(int32) ret }
}
.class public sequential ansi sealed beforefieldinit Pt extends [mscorlib]System.ValueType
{
  .field public int32 x
}
.class public auto ansi beforefieldinit P extends [mscorlib]System.Object
{
  .method public static int32 Kinds(object o) cil managed
  {
    .locals init (int32 k)
    ldarg.0 isinst Base brfalse.s A ldloc k ldc.i4 1 or stloc k
  A: ldarg.0 isinst Mid brfalse.s B ldloc k ldc.i4 2 or stloc k
  B: ldarg.0 isinst Leaf brfalse.s C ldloc k ldc.i4 4 or stloc k
  C: ldarg.0 isinst IVal brfalse.s D ldloc k ldc.i4 8 or stloc k
  D: ldarg.0 isinst [mscorlib]System.String brfalse.s E ldloc k ldc.i4 16 or stloc k
  E: ldarg.0 isinst [mscorlib]System.Int32 brfalse.s F ldloc k ldc.i4 32 or stloc k
  F: ldarg.0 isinst Pt brfalse.s G ldloc k ldc.i4 64 or stloc k
  G: ldarg.0 isinst [mscorlib]System.Object brfalse.s H ldloc k ldc.i4 128 or stloc k
  H: ldarg.0 isinst [mscorlib]System.ValueType brfalse.s I ldloc k ldc.i4 256 or stloc k
  I: ldarg.0 isinst [mscorlib]System.Int64 brfalse.s J ldloc k ldc.i4 512 or stloc k
  J: ldloc k ret
  }
  .method public static int32 Main() cil managed
  {
    .entrypoint
    .maxstack 8
    .locals init (object[] objs, int32 i, int64 acc, object[] sink, class Base[] bases, valuetype Pt pt)
    ldc.i4 9 newarr [mscorlib]System.Object stloc objs
    ldloc objs ldc.i4 0 ldc.i4 1 newobj instance void Base::.ctor(int32) stelem.ref
    ldloc objs ldc.i4 1 ldc.i4 2 newobj instance void Mid::.ctor(int32) stelem.ref
    ldloc objs ldc.i4 2 ldc.i4 3 newobj instance void Leaf::.ctor(int32) stelem.ref
    ldloc objs ldc.i4 3 ldc.i4 -4 box [mscorlib]System.Int32 stelem.ref
    ldloc objs ldc.i4 4 ldstr "five" stelem.ref
    ldloca pt ldc.i4 6 stfld int32 Pt::x
    ldloc objs ldc.i4 5 ldloc pt box Pt stelem.ref
    ldloc objs ldc.i4 6 newobj instance void [mscorlib]System.Object::.ctor() stelem.ref
    ldloc objs ldc.i4 7 ldc.i8 -8 box [mscorlib]System.Int64 stelem.ref
    ldc.i4 4 newarr [mscorlib]System.Object stloc sink
    ldc.i4 4 newarr Base stloc bases
  L: ldloc i ldc.i4 9 bge DONE
    ldloc objs ldloc i ldelem.ref call int32 P::Kinds(object) call void [mscorlib]System.Console::WriteLine(int32)
    ldloc i ldc.i4 1 add stloc i br L
  DONE:
    // stores that pass inline: exact, subclass, anything into object[]
    ldc.i4 0 stloc i
  S: ldloc i ldc.i4 3000 bge SD
    ldloc bases ldloc i ldc.i4 3 and ldloc objs ldloc i ldc.i4 3 rem ldelem.ref castclass Base stelem.ref
    ldloc sink ldloc i ldc.i4 3 and ldloc objs ldloc i ldc.i4 9 rem ldelem.ref stelem.ref
    ldloc acc ldloc bases ldloc i ldc.i4 3 and ldelem.ref ldfld int32 Base::v conv.i8 add stloc acc
    ldloc objs ldc.i4 3 ldelem.ref unbox.any [mscorlib]System.Int32 ldloc i add box [mscorlib]System.Int32
    unbox.any [mscorlib]System.Int32 conv.i8 ldloc acc add stloc acc
    ldloc i ldc.i4 1 add stloc i br S
  SD:
    ldloc acc call void [mscorlib]System.Console::WriteLine(int64)
    // boxes of every primitive kind
    ldc.i4 -1 conv.i1 box [mscorlib]System.SByte call void [mscorlib]System.Console::WriteLine(object)
    ldc.i4 200 conv.u1 box [mscorlib]System.Byte call void [mscorlib]System.Console::WriteLine(object)
    ldc.i4 -300 conv.i2 box [mscorlib]System.Int16 call void [mscorlib]System.Console::WriteLine(object)
    ldc.i4 65535 conv.u2 box [mscorlib]System.UInt16 call void [mscorlib]System.Console::WriteLine(object)
    ldc.i4 65 conv.u2 box [mscorlib]System.Char call void [mscorlib]System.Console::WriteLine(object)
    ldc.i4 1 box [mscorlib]System.Boolean call void [mscorlib]System.Console::WriteLine(object)
    ldc.i4 -5 box [mscorlib]System.Int32 call void [mscorlib]System.Console::WriteLine(object)
    ldc.i4 -5 box [mscorlib]System.UInt32 call void [mscorlib]System.Console::WriteLine(object)
    ldc.i8 -6 box [mscorlib]System.Int64 call void [mscorlib]System.Console::WriteLine(object)
    ldc.i8 -6 box [mscorlib]System.UInt64 call void [mscorlib]System.Console::WriteLine(object)
    ldc.r8 2.5 conv.r4 box [mscorlib]System.Single call void [mscorlib]System.Console::WriteLine(object)
    ldc.r8 -0.25 box [mscorlib]System.Double call void [mscorlib]System.Console::WriteLine(object)
    ldc.i4 -300 conv.i2 box [mscorlib]System.Int16 unbox.any [mscorlib]System.Int16 call void [mscorlib]System.Console::WriteLine(int32)
    ldc.i4 -1 conv.i1 box [mscorlib]System.SByte ldc.i4 -1 conv.i1 box [mscorlib]System.SByte call instance bool [mscorlib]System.Object::Equals(object) call void [mscorlib]System.Console::WriteLine(bool)
    // covariance and failures, through the helpers
    ldc.i4 2 newarr [mscorlib]System.String isinst object[] ldnull cgt.un call void [mscorlib]System.Console::WriteLine(int32)
    .try {
      ldloc bases ldc.i4 0 newobj instance void [mscorlib]System.Object::.ctor() stelem.ref
      leave.s X
    } catch [mscorlib]System.ArrayTypeMismatchException { pop ldstr "mismatch" call void [mscorlib]System.Console::WriteLine(string) leave.s X }
  X: .try {
      ldstr "s" castclass Base pop
      leave.s Y
    } catch [mscorlib]System.InvalidCastException { pop ldstr "cast" call void [mscorlib]System.Console::WriteLine(string) leave.s Y }
  Y: ldc.i4 0 ret
  }
}
`

// TestTypeChecksStayNative runs typeChecks on both engines: the outputs
// must agree, and the JIT's type tests, boxes and array store checks of
// the inline kinds must not have left native code. The exits it counts
// are the helpers' cases only: isinst System.ValueType of the eight
// objects (the ninth is null) and the covariant array test (9 IsInst),
// and the failing array store (1 CanStore); the failing cast throws
// without a type test exit.
func TestTypeChecksStayNative(t *testing.T) {
	prog, err := miniil.Load("typechecks.il", []byte(typeChecks))
	if err != nil {
		t.Fatal(err)
	}
	run := func(eng miniil.Engine, stats *bytes.Buffer) string {
		var out bytes.Buffer
		cfg := miniil.Config{Engine: eng, Stdout: &out}
		if stats != nil {
			cfg.JITStats = stats
		}
		if code, err := prog.Run(context.Background(), cfg); err != nil || code != 0 {
			t.Fatalf("%v: exit %d, %v\n%s", eng, code, err, out.String())
		}
		return out.String()
	}
	var stats bytes.Buffer
	jit := run(miniil.JIT, &stats)
	if in := run(miniil.Interp, nil); jit != in {
		t.Fatalf("the engines disagree:\njit:\n%s\ninterpreter:\n%s", jit, in)
	}
	exits := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^\s+(\d+)  (.+)$`).FindAllStringSubmatch(stats.String(), -1) {
		n, _ := strconv.Atoi(m[1])
		exits[m[2]] = n
	}
	if len(exits) == 0 {
		t.Fatalf("no exit counts in the JIT's statistics:\n%s", stats.String())
	}
	for name, want := range map[string]int{"IsInst": 9, "TypeIs": 0, "CanStore": 1, "Box": 0} {
		if exits[name] != want {
			t.Errorf("%s exits: %d, want %d (all exits: %v)", name, exits[name], want, exits)
		}
	}
}
