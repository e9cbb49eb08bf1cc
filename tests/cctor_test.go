package tests

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"miniil"
)

// TestCctorUnhandledReport checks the report of an unhandled
// TypeInitializationException on every engine against CoreCLR's (current
// .NET's shape; CoreCLR 2.0 prints the same frames): the trace of the
// exception starts where the class was used (for a static method call, in
// that method, as CoreCLR checks in its prolog), the inner exception
// lists the static constructor's frames, and the hidden method that runs
// it appears nowhere.
func TestCctorUnhandledReport(t *testing.T) {
	corpusProg := "corpus/cctor_unhandled.il"
	src, err := os.ReadFile(corpusProg)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		src        string
		report     string
		trace      []string // of the TypeInitializationException
		innerTrace []string
	}{
		{corpusProg, string(src),
			"Unhandled exception. System.TypeInitializationException: The type initializer for 'Config' threw an exception.\n" +
				" ---> System.InvalidOperationException: no port configured\n" +
				"   at Config.Load()\n" +
				"   at Config..cctor()\n" +
				"   --- End of inner exception stack trace ---\n" +
				"   at Config.Port()\n" +
				"   at <Module>.connect()\n" +
				"   at <Module>.main()",
			[]string{"Config.Port()", "<Module>.connect()", "<Module>.main()"},
			[]string{"Config.Load()", "Config..cctor()"}},
		// The module initializer runs before the entry point: no frames.
		{"module_init.il", moduleInitFails,
			"Unhandled exception. System.TypeInitializationException: The type initializer for '<Module>' threw an exception.\n" +
				" ---> System.Exception: bad module\n" +
				"   at <Module>..cctor()\n" +
				"   --- End of inner exception stack trace ---",
			nil, []string{"<Module>..cctor()"}},
		// The entry point's class: before Main's body, in Main's frame; a
		// field read inside a try that starts at Main's first instruction
		// is not where it fails.
		{"entry_class.il", entryClassFails,
			"Unhandled exception. System.TypeInitializationException: The type initializer for 'App.Program' threw an exception.\n" +
				" ---> System.DivideByZeroException: Attempted to divide by zero.\n" +
				"   at App.Program..cctor()\n" +
				"   --- End of inner exception stack trace ---\n" +
				"   at App.Program.Main()",
			[]string{"App.Program.Main()"}, []string{"App.Program..cctor()"}},
	}
	for _, tt := range tests {
		for _, eng := range engines {
			t.Run(tt.name+"/"+eng.String(), func(t *testing.T) {
				_, code, err := runProgram(t, tt.name, []byte(tt.src), eng)
				var me *miniil.ManagedException
				if code != miniil.ExitUnhandled || !errors.As(err, &me) {
					t.Fatalf("exit %d, error %v; want an unhandled exception", code, err)
				}
				if got := me.Error(); got != tt.report {
					t.Errorf("report\n%s\nwant\n%s", got, tt.report)
				}
				if !slices.Equal(me.StackTrace, tt.trace) {
					t.Errorf("trace %q, want %q", me.StackTrace, tt.trace)
				}
				in := me.InnerException
				if in == nil {
					t.Fatal("no inner exception")
				}
				if !slices.Equal(in.StackTrace, tt.innerTrace) {
					t.Errorf("inner trace %q, want %q", in.StackTrace, tt.innerTrace)
				}
				if eng == miniil.JIT && (len(me.ILOffsets) != len(me.StackTrace) || len(in.ILOffsets) != len(in.StackTrace)) {
					t.Errorf("IL offsets %v and %v do not match the traces", me.ILOffsets, in.ILOffsets)
				}
			})
		}
	}
}

const moduleInitFails = `
.assembly extern mscorlib {}
.assembly module_init {}
.method private hidebysig specialname rtspecialname static void .cctor() cil managed
{
  ldstr "bad module"
  newobj instance void [mscorlib]System.Exception::.ctor(string)
  throw
}
.method public static void main() cil managed
{
  .entrypoint
  ldstr "not reached"
  call void [mscorlib]System.Console::WriteLine(string)
  ret
}
`

const entryClassFails = `
.assembly extern mscorlib {}
.assembly entry_class {}
.namespace App
{
  .class public auto ansi Program extends [mscorlib]System.Object
  {
    .field static int32 zero
    .field static int32 x
    .method private hidebysig specialname rtspecialname static void .cctor() cil managed
    {
      ldc.i4.1
      ldsfld int32 App.Program::zero
      div
      stsfld int32 App.Program::x
      ret
    }
    .method public static void Main() cil managed
    {
      .entrypoint
      .try
      {
        ldsfld int32 App.Program::x
        call void [mscorlib]System.Console::WriteLine(int32)
        leave.s END
      }
      catch [mscorlib]System.Exception
      {
        pop
        ldstr "caught inside Main (wrong)"
        call void [mscorlib]System.Console::WriteLine(string)
        leave.s END
      }
    END:
      ret
    }
  }
}
`

// cctorAPI has a module initializer and a class with a static
// constructor, for the embedding API.
const cctorAPI = `
.assembly extern mscorlib {}
.assembly cctor_api {}
.field static int32 base
.method private hidebysig specialname rtspecialname static void .cctor() cil managed
{
  ldc.i4 1000
  stsfld int32 base
  ret
}
.class public auto ansi Counter extends [mscorlib]System.Object
{
  .field static int32 start
  .method private hidebysig specialname rtspecialname static void .cctor() cil managed
  {
    ldsfld int32 base
    ldc.i4.s 20
    add
    stsfld int32 Counter::start
    ret
  }
  .method public static int32 Next(int32 k) cil managed
  {
    ldsfld int32 Counter::start
    ldarg.0
    add
    ret
  }
}
.class public auto ansi Thrower extends [mscorlib]System.Object
{
  .method private hidebysig specialname rtspecialname static void .cctor() cil managed
  {
    ldstr "thrown"
    throw
  }
  .method public static int32 Get() cil managed
  {
    ldc.i4.1
    ret
  }
}
.method public static void main() cil managed
{
  .entrypoint
  ret
}
`

// TestCctorAPI checks what embedders see of static constructors: the
// module initializer and the class's cctor run before a method called
// through Program.Call; the hidden methods that run them are in no
// method list, cannot be found, and do not print in the IL dump, which
// still parses back. A static constructor that throws a string (C#
// cannot) gives a TypeInitializationException without an inner exception
// (CoreCLR wraps the string in a RuntimeWrappedException).
func TestCctorAPI(t *testing.T) {
	p, err := miniil.Load("cctor_api.il", []byte(cctorAPI))
	if err != nil {
		t.Fatal(err)
	}
	for _, eng := range engines {
		got, err := p.Call(context.Background(), miniil.Config{Engine: eng}, "Counter::Next", int32(3))
		if err != nil || got != int32(1023) {
			t.Errorf("%s: Counter::Next(3) = %v, %v; want 1023", eng, got, err)
		}
		_, err = p.Call(context.Background(), miniil.Config{Engine: eng}, "Thrower::Get")
		var me *miniil.ManagedException
		if !errors.As(err, &me) || me.Type != "System.TypeInitializationException" || me.InnerException != nil ||
			!slices.Equal(me.StackTrace, []string{"Thrower.Get()"}) {
			t.Errorf("%s: Thrower::Get: %v; want a TypeInitializationException without inner exception, thrown in Thrower.Get()", eng, err)
		}
	}
	if _, err := p.Call(context.Background(), miniil.Config{}, "Counter::.cctor"); err == nil {
		t.Error("Program.Call runs a static constructor")
	}
	for _, m := range p.Module().AllMethods() {
		if strings.Contains(m.Name, "<") {
			t.Errorf("AllMethods lists the hidden method %s", m.FullName())
		}
	}
	for _, f := range p.Module().StaticFields() {
		if strings.Contains(f.Name, "<") {
			t.Errorf("StaticFields lists the hidden field %s", f.FullName())
		}
	}
	if m, err := p.FindMethod("<cctor>"); err == nil {
		t.Errorf("FindMethod finds the hidden method %s", m.FullName())
	}
	var dump bytes.Buffer
	if err := p.Dump(&dump, miniil.StageIL, ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(dump.String(), "<cctor") {
		t.Errorf("the IL dump shows hidden members:\n%s", dump.String())
	}
	if _, err := miniil.Load("dumped.il", dump.Bytes()); err != nil {
		t.Errorf("the IL dump does not load: %v\n%s", err, dump.String())
	}
}

// deepCctor recurses inside a static constructor until the call depth
// limit: rec is a static method of the class being initialized, so each
// call's entry tests the class's state, finds it running and goes on.
const deepCctor = `
.assembly extern mscorlib {}
.assembly deep_cctor {}
.class public auto ansi R extends [mscorlib]System.Object
{
  .field static int32 x
  .method private hidebysig specialname rtspecialname static void .cctor() cil managed
  {
    ldc.i4.0
    call void R::rec(int32)
    ret
  }
  .method public static void rec(int32 n) cil managed
  {
    ldarg.0
    stsfld int32 R::x
    ldarg.0
    call void [mscorlib]System.Console::WriteLine(int32)
    ldarg.0
    ldc.i4.1
    add
    call void R::rec(int32)
    ret
  }
}
.method public static void main() cil managed
{
  .entrypoint
  call void helper()
  ret
}
.method public static void helper() cil managed
{
  ldsfld int32 R::x
  pop
  ret
}
`

// TestCctorCallDepth checks that both engines count the calls a static
// constructor adds alike (the hidden method that runs it, two levels
// below the triggering method; no call at all for a use while it runs),
// so a recursion inside it overflows at the same call: main, helper, the
// hidden method and .cctor, then rec(0) at depth 5.
func TestCctorCallDepth(t *testing.T) {
	p, err := miniil.Load("deep_cctor.il", []byte(deepCctor))
	if err != nil {
		t.Fatal(err)
	}
	for _, depth := range []int{5, 6, 12, 100} {
		for _, eng := range engines {
			var out bytes.Buffer
			_, err := p.Run(context.Background(), miniil.Config{Engine: eng, Stdout: &out, MaxCallDepth: depth})
			var so *miniil.StackOverflowError
			if !errors.As(err, &so) {
				t.Fatalf("%s, depth %d: %v, want a stack overflow", eng, depth, err)
			}
			if got, want := strings.Count(out.String(), "\n"), depth-4; got != want {
				t.Errorf("%s, depth limit %d: rec ran %d times, want %d", eng, depth, got, want)
			}
		}
	}
}
