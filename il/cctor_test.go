package il_test

import (
	"testing"

	"miniil/il"
)

const cctorProgram = `
.assembly extern mscorlib {}
.assembly cctors {}
.field static int32 g
.method private hidebysig specialname rtspecialname static void .cctor() cil managed
{
  ldc.i4.1
  stsfld int32 g
  ret
}
.class public auto ansi Precise extends [mscorlib]System.Object
{
  .field public static int32 n
  .method private hidebysig specialname rtspecialname static void .cctor() cil managed
  {
    ldsfld int32 Lazy::n
    stsfld int32 Precise::n
    ret
  }
  .method public hidebysig specialname rtspecialname instance void .ctor() cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Object::.ctor()
    ret
  }
  .method public static int32 Get() cil managed
  {
    ldsfld int32 Precise::n
    ret
  }
  .method public instance int32 Read() cil managed
  {
    ldsflda int32 Precise::n
    ldind.i4
    ret
  }
}
.class public auto ansi Derived extends Precise
{
  .method public hidebysig specialname rtspecialname instance void .ctor() cil managed
  {
    ldarg.0
    call instance void Precise::.ctor()
    ret
  }
}
.class public auto ansi beforefieldinit Lazy extends [mscorlib]System.Object
{
  .field public static int32 n
  .method private hidebysig specialname rtspecialname static void .cctor() cil managed
  {
    ret
  }
  .method public static int32 Get() cil managed
  {
    ldsfld int32 Lazy::n
    ret
  }
}
.method public static void main() cil managed
{
  .entrypoint
  ldsfld int32 g
  ldsfld int32 Precise::n
  stsfld int32 Lazy::n
  call int32 Precise::Get()
  add
  newobj instance void Derived::.ctor()
  callvirt instance int32 Precise::Read()
  add
  stsfld int32 Precise::n
  ret
}
`

// TestInitTriggered checks, site by site, which type initializer
// il.InitTriggered says must have run: the entry of static methods and
// constructors of a precise class; static field accesses, but not inside
// a method whose entry already triggers the same class nor inside the
// static constructor; never globals, whose module initializer runs first.
func TestInitTriggered(t *testing.T) {
	m, err := il.Load("cctors.il", []byte(cctorProgram))
	if err != nil {
		t.Fatal(err)
	}
	if m.Init == nil || m.Init.Name() != "<Module>" || len(m.TypeInits) != 3 {
		t.Fatalf("module initializer %v, %d type initializers; want <Module>'s and 3", m.Init, len(m.TypeInits))
	}
	tests := []struct {
		method string
		entry  string   // the class the entry triggers ("": none)
		sites  []string // per instruction
	}{
		{"main", "", []string{"", "Precise", "Lazy", "", "", "", "", "", "Precise", ""}},
		{"Precise::.cctor", "", []string{"Lazy", "", ""}},
		{"Precise::.ctor", "Precise", []string{"", "", ""}},
		{"Precise::Get", "Precise", []string{"", ""}},
		{"Precise::Read", "", []string{"Precise", "", ""}}, // ldsflda
		{"Derived::.ctor", "", []string{"", "", ""}},
		{"Lazy::Get", "", []string{"Lazy", ""}},
		{"Lazy::.cctor", "", []string{""}},
	}
	name := func(ti *il.TypeInit) string {
		if ti == nil {
			return ""
		}
		return ti.Name()
	}
	for _, tt := range tests {
		var md *il.Method
		for _, x := range m.AllMethods() {
			if x.FullName() == tt.method {
				md = x
			}
		}
		if md == nil {
			t.Fatalf("no method %s", tt.method)
		}
		if got := name(il.InitTriggered(md, nil)); got != tt.entry {
			t.Errorf("%s: entry triggers %q, want %q", tt.method, got, tt.entry)
		}
		if len(md.Code) != len(tt.sites) {
			t.Fatalf("%s has %d instructions, the test lists %d", tt.method, len(md.Code), len(tt.sites))
		}
		for i, in := range md.Code {
			if got := name(il.InitTriggered(md, in)); got != tt.sites[i] {
				t.Errorf("%s: instruction %d (%s) triggers %q, want %q", tt.method, i, in.Op, got, tt.sites[i])
			}
		}
	}
	// The hidden members: numbered after the declared ones, and the Run
	// methods (verified with the module) trigger nothing themselves.
	all, words := m.AllMethods(), 0
	for _, f := range m.StaticFields() {
		words += f.Type.Words()
	}
	if m.StaticWords != words+2*len(m.TypeInits) {
		t.Errorf("%d words of statics, want %d declared and 2 per type initializer", m.StaticWords, words)
	}
	for i, ti := range m.TypeInits {
		if ti.Run.Index != len(all)+i || !ti.Run.Hidden || ti.State.Slot != words+2*i || ti.Error.Slot != ti.State.Slot+1 {
			t.Errorf("%s: Run index %d, state slot %d, error slot %d", ti, ti.Run.Index, ti.State.Slot, ti.Error.Slot)
		}
		for _, in := range ti.Run.Code {
			if got := il.InitTriggered(ti.Run, in); got != nil {
				t.Errorf("%s: Run's %s triggers %s", ti, in.Op, got)
			}
		}
	}
	if n := len(m.CodeMethods()); n != len(all)+3 {
		t.Errorf("CodeMethods has %d methods, want %d", n, len(all)+3)
	}
}
