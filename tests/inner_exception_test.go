package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"miniil"
	"miniil/il"
)

// runProgram loads src and runs it on eng, returning stdout, exit code and
// error.
func runProgram(t *testing.T, name string, src []byte, eng miniil.Engine) (string, int, error) {
	t.Helper()
	prog, err := miniil.Load(name, src)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code, err := prog.Run(ctx, miniil.Config{Engine: eng, Stdout: &out})
	return out.String(), code, err
}

// innerMessageOverride is an unhandled exception whose inner exception
// computes its Message in managed code, and whose own message is empty.
const innerMessageOverride = `
.assembly extern mscorlib {}
.assembly inner_override {}
.class public auto ansi Computed extends [mscorlib]System.Exception
{
  .method public specialname rtspecialname instance void .ctor() cil managed
  {
    ldarg.0
    call instance void [mscorlib]System.Exception::.ctor()
    ret
  }
  .method public hidebysig virtual instance string get_Message() cil managed
  {
    ldstr "computed "
    ldc.i4.s 42
    box [mscorlib]System.Int32
    call string [mscorlib]System.String::Concat(object, object)
    ret
  }
}
.method public static void main() cil managed
{
  .entrypoint
  .maxstack 2
  ldstr ""
  newobj instance void Computed::.ctor()
  newobj instance void [mscorlib]System.InvalidOperationException::.ctor(string, class [mscorlib]System.Exception)
  throw
}
`

// TestUnhandledInnerReport checks the report of an unhandled exception
// with inner exceptions on every engine: CoreCLR's text (the exception's
// ToString with its inner exceptions, then the stack trace) and the
// ManagedException's InnerException chain.
func TestUnhandledInnerReport(t *testing.T) {
	corpusProg := "corpus/lib_exception_inner_unhandled.il"
	src, err := os.ReadFile(corpusProg)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		src    []byte
		report string
		chain  []string // Type: Message of the exception and each inner one
	}{
		{corpusProg, src,
			"Unhandled exception. System.Exception: startup failed\n" +
				" ---> System.ApplicationException: settings unavailable\n" +
				" ---> System.InvalidOperationException: cannot open settings.ini\n" +
				"   --- End of inner exception stack trace ---\n" +
				"   --- End of inner exception stack trace ---\n" +
				"   at <Module>.main()",
			[]string{"System.Exception: startup failed", "System.ApplicationException: settings unavailable",
				"System.InvalidOperationException: cannot open settings.ini"}},
		{"inner_override.il", []byte(innerMessageOverride),
			"Unhandled exception. System.InvalidOperationException\n" +
				" ---> Computed: computed 42\n" +
				"   --- End of inner exception stack trace ---\n" +
				"   at <Module>.main()",
			[]string{"System.InvalidOperationException: ", "Computed: computed 42"}},
	}
	for _, tt := range tests {
		for _, eng := range engines {
			t.Run(tt.name+"/"+eng.String(), func(t *testing.T) {
				_, code, err := runProgram(t, tt.name, tt.src, eng)
				var me *miniil.ManagedException
				if code != miniil.ExitUnhandled || !errors.As(err, &me) {
					t.Fatalf("exit %d, error %v; want an unhandled exception", code, err)
				}
				if got := me.Error(); got != tt.report {
					t.Errorf("report\n%s\nwant\n%s", got, tt.report)
				}
				var chain []string
				for e := me; e != nil; e = e.InnerException {
					chain = append(chain, e.Type+": "+e.Message)
					if e != me && e.StackTrace != nil {
						t.Errorf("inner exception %s has a stack trace %v", e.Type, e.StackTrace)
					}
				}
				if strings.Join(chain, "|") != strings.Join(tt.chain, "|") {
					t.Errorf("chain %q, want %q", chain, tt.chain)
				}
			})
		}
	}
}

// selfInner makes an exception its own inner exception (a constructor
// may), then asks for its ToString, which recurses forever on CoreCLR.
const selfInner = `
.assembly extern mscorlib {}
.assembly self_inner {}
.class public auto ansi Ouroboros extends [mscorlib]System.Exception
{
  .method public specialname rtspecialname instance void .ctor() cil managed
  {
    .maxstack 3
    ldarg.0
    ldstr "again"
    ldarg.0
    call instance void [mscorlib]System.Exception::.ctor(string, class [mscorlib]System.Exception)
    ret
  }
}
.method public static void main() cil managed
{
  .entrypoint
  .maxstack 2
  ldstr "before"
  call void [mscorlib]System.Console::WriteLine(string)
  newobj instance void Ouroboros::.ctor()
  callvirt instance class [mscorlib]System.Exception [mscorlib]System.Exception::get_InnerException()
  callvirt instance string [mscorlib]System.Exception::get_Message()
  call void [mscorlib]System.Console::WriteLine(string)
  newobj instance void Ouroboros::.ctor()
  call void [mscorlib]System.Console::WriteLine(object)
  ret
}
`

// deepInner builds a chain of inner exceptions: "top" wraps a Short,
// which wraps N "x" exceptions, which wrap "0"; so top has N+2 inner
// exceptions. Short's own ToString keeps top's short (each level of a
// long chain of plain exceptions copies all the text below it). It
// prints top's ToString, then throws it unhandled.
const deepInner = `
.assembly extern mscorlib {}
.assembly deep_inner {}
.class public auto ansi Short extends [mscorlib]System.Exception
{
  .method public specialname rtspecialname instance void .ctor(string m, class [mscorlib]System.Exception e) cil managed
  {
    .maxstack 3
    ldarg.0
    ldarg.1
    ldarg.2
    call instance void [mscorlib]System.Exception::.ctor(string, class [mscorlib]System.Exception)
    ret
  }
  .method public hidebysig virtual instance string ToString() cil managed
  {
    ldstr "short"
    ret
  }
}
.method public static void main() cil managed
{
  .entrypoint
  .maxstack 3
  .locals init (class [mscorlib]System.Exception e, int32 i)
  ldstr "0"
  newobj instance void [mscorlib]System.Exception::.ctor(string)
  stloc.0
  ldc.i4.0
  stloc.1
  br.s TEST
LOOP:
  ldstr "x"
  ldloc.0
  newobj instance void [mscorlib]System.Exception::.ctor(string, class [mscorlib]System.Exception)
  stloc.0
  ldloc.1
  ldc.i4.1
  add
  stloc.1
TEST:
  ldloc.1
  ldc.i4 N
  blt.s LOOP
  ldstr "top"
  ldstr "s"
  ldloc.0
  newobj instance void Short::.ctor(string, class [mscorlib]System.Exception)
  newobj instance void [mscorlib]System.Exception::.ctor(string, class [mscorlib]System.Exception)
  stloc.0
  ldloc.0
  callvirt instance string [mscorlib]System.Object::ToString()
  call void [mscorlib]System.Console::WriteLine(string)
  ldloc.0
  throw
}
`

// TestInnerExceptionLimits checks that both engines follow a chain of
// inner exceptions up to il.MaxInnerExceptions links in ToString, and
// that a longer chain, or one that loops back, is a stack overflow (as
// CoreCLR's recursion through ToString overflows its stack) on both,
// where it would otherwise never end.
func TestInnerExceptionLimits(t *testing.T) {
	n := il.MaxInnerExceptions
	for _, eng := range engines {
		t.Run("limit/"+eng.String(), func(t *testing.T) {
			src := strings.Replace(deepInner, "ldc.i4 N", "ldc.i4 "+strconv.Itoa(n-2), 1)
			out, code, err := runProgram(t, "deep_inner.il", []byte(src), eng)
			var me *miniil.ManagedException
			if code != miniil.ExitUnhandled || !errors.As(err, &me) {
				t.Fatalf("exit %d, error %v; want an unhandled exception", code, err)
			}
			if want := "System.Exception: top\n ---> short\n   --- End of inner exception stack trace ---\n"; out != want {
				t.Errorf("output %q, want %q", out, want)
			}
			depth := 0
			for e := me.InnerException; e != nil; e = e.InnerException {
				depth++
			}
			if depth != n {
				t.Errorf("report lists %d inner exceptions, want %d", depth, n)
			}
		})
		t.Run("too deep/"+eng.String(), func(t *testing.T) {
			src := strings.Replace(deepInner, "ldc.i4 N", "ldc.i4 "+strconv.Itoa(n-1), 1)
			out, code, err := runProgram(t, "deep_inner.il", []byte(src), eng)
			var so *miniil.StackOverflowError
			if code != miniil.ExitUnhandled || !errors.As(err, &so) || out != "" {
				t.Fatalf("exit %d, error %v, output %q; want a stack overflow", code, err, out)
			}
		})
		t.Run("cycle/"+eng.String(), func(t *testing.T) {
			out, code, err := runProgram(t, "self_inner.il", []byte(selfInner), eng)
			var so *miniil.StackOverflowError
			if code != miniil.ExitUnhandled || !errors.As(err, &so) || out != "before\nagain\n" {
				t.Fatalf("exit %d, error %v, output %q; want a stack overflow after two lines", code, err, out)
			}
		})
	}
}

// callbackProgram calls Exception.ToString with managed code under it in
// three ways: recursing through ToString and an overridden get_Message,
// the same through Console.WriteLine(object), and down a chain of inner
// exceptions whose get_Message is overridden.
const callbackProgram = `
.assembly extern mscorlib {}
.assembly callbacks {}
.class public auto ansi RecMsg extends [mscorlib]System.Exception
{
  .field public int32 n
  .field public bool write
  .method public specialname rtspecialname instance void .ctor(int32 n, bool write) cil managed
  {
    .maxstack 2
    ldarg.0
    call instance void [mscorlib]System.Exception::.ctor()
    ldarg.0
    ldarg.1
    stfld int32 RecMsg::n
    ldarg.0
    ldarg.2
    stfld bool RecMsg::write
    ret
  }
  .method public hidebysig virtual instance string get_Message() cil managed
  {
    .maxstack 3
    ldarg.0
    ldfld int32 RecMsg::n
    brtrue.s R
    ldstr "."
    ret
  R:
    ldarg.0
    ldfld int32 RecMsg::n
    ldc.i4.1
    sub
    ldarg.0
    ldfld bool RecMsg::write
    newobj instance void RecMsg::.ctor(int32, bool)
    ldarg.0
    ldfld bool RecMsg::write
    brtrue.s W
    callvirt instance string [mscorlib]System.Object::ToString()
    ret
  W:
    call void [mscorlib]System.Console::WriteLine(object)
    ldstr "w"
    ret
  }
}
.class public auto ansi Plain extends [mscorlib]System.Exception
{
  .method public specialname rtspecialname instance void .ctor(class [mscorlib]System.Exception inner) cil managed
  {
    .maxstack 3
    ldarg.0
    ldnull
    ldarg.1
    call instance void [mscorlib]System.Exception::.ctor(string, class [mscorlib]System.Exception)
    ret
  }
  .method public hidebysig virtual instance string get_Message() cil managed
  {
    ldstr "p"
    ret
  }
}
.method public static int32 viaToString(int32 n) cil managed
{
  .maxstack 2
  ldarg.0
  ldc.i4.0
  newobj instance void RecMsg::.ctor(int32, bool)
  callvirt instance string [mscorlib]System.Object::ToString()
  callvirt instance int32 [mscorlib]System.String::get_Length()
  ret
}
.method public static int32 viaWriteLine(int32 n) cil managed
{
  .maxstack 2
  ldarg.0
  ldc.i4.1
  newobj instance void RecMsg::.ctor(int32, bool)
  call void [mscorlib]System.Console::WriteLine(object)
  ldc.i4.0
  ret
}
.method public static int32 chain(int32 n) cil managed
{
  .maxstack 2
  .locals init (class [mscorlib]System.Exception e)
  br.s T
L:
  ldloc.0
  newobj instance void Plain::.ctor(class [mscorlib]System.Exception)
  stloc.0
  ldarg.0
  ldc.i4.1
  sub
  starg.s n
T:
  ldarg.0
  brtrue.s L
  ldloc.0
  newobj instance void Plain::.ctor(class [mscorlib]System.Exception)
  call void [mscorlib]System.Console::WriteLine(object)
  ldc.i4.0
  ret
}
.method public static void main() cil managed { .entrypoint ret }
`

// TestExceptionToStringCallbacks checks that both engines count the
// managed calls under Exception.ToString alike against
// il.MaxCallbackDepth: one level per managed get_Message under it, none
// for the Go code between them (Console.WriteLine calling ToString, an
// inner exception's ToString).
func TestExceptionToStringCallbacks(t *testing.T) {
	p, err := miniil.Load("callbacks.il", []byte(callbackProgram))
	if err != nil {
		t.Fatal(err)
	}
	max := il.MaxCallbackDepth
	for _, tt := range []struct {
		method string
		ns     []int
	}{
		{"viaToString", []int{max - 2, max - 1, max, max + 1}},
		{"viaWriteLine", []int{max - 2, max - 1, max, max + 1}},
		// Each level's ToString copies the text below it: deep chains run
		// out of heap long before they could nest max native frames.
		{"chain", []int{1000}},
	} {
		for _, n := range tt.ns {
			var res [2]string
			for i, eng := range engines {
				r, err := p.Call(context.Background(), miniil.Config{Engine: eng}, tt.method, int32(n))
				var so *miniil.StackOverflowError
				switch {
				case errors.As(err, &so):
					res[i] = "stack overflow"
				case err != nil:
					t.Fatalf("%s(%d) on %s: %v", tt.method, n, eng, err)
				default:
					res[i] = fmt.Sprint(r)
				}
			}
			if res[0] != res[1] {
				t.Errorf("%s(%d): %s on %s, %s on %s", tt.method, n, res[0], engines[0], res[1], engines[1])
			}
			if tt.method == "chain" && res[0] == "stack overflow" {
				t.Errorf("chain(%d): a stack overflow; the inner exceptions' get_Message calls do not nest", n)
			}
			t.Logf("%s(%d): %s", tt.method, n, res[0])
		}
	}
}
