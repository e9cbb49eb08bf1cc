package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// Programs for the exit code tests.
var exitPrograms = map[string]string{
	"result.il": `.assembly t {}
.method public static int32 main() cil managed { .entrypoint .maxstack 1 ldstr "hi" call void [mscorlib]System.Console::WriteLine(string) ldc.i4.s 42 ret }`,
	"void.il": `.assembly t {}
.method public static void main() cil managed { .entrypoint .maxstack 1 ret }`,
	"unhandled.il": `.assembly t {}
.method public static void main() cil managed {
  .entrypoint .maxstack 1
  ldstr "before" call void [mscorlib]System.Console::WriteLine(string)
  ldstr "boom" newobj instance void [mscorlib]System.InvalidOperationException::.ctor(string) throw
}`,
	"overflow.il": `.assembly t {}
.method public static int32 f(int32 n) cil managed { .maxstack 2 ldarg.0 ldc.i4.1 add call int32 f(int32) ret }
.method public static void main() cil managed {
  .entrypoint .maxstack 1
  ldstr "before" call void [mscorlib]System.Console::WriteLine(string)
  ldc.i4.0 call int32 f(int32) pop ret
}`,
	"spin.il": `.assembly t {}
.method public static void main() cil managed { .entrypoint .maxstack 1 L: br L }`,
	"alloc.il": `.assembly t {}
.method public static void main() cil managed {
  .entrypoint .maxstack 3 .locals init (object[] keep, object[] n)
L: ldc.i4 1000 newarr [mscorlib]System.Object stloc n
  ldloc n ldc.i4.0 ldloc keep stelem.ref
  ldloc n stloc keep br L
}`,
	"invalid.il": `.assembly t {}
.method public static void main() cil managed { .entrypoint .maxstack 1 ldc.i4.0 ret }`,
}

// writeExitPrograms writes exitPrograms to a directory.
func writeExitPrograms(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range exitPrograms {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// failingWriter fails every write, as a closed pipe or a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestExitCodes checks the exit code table of the package documentation
// on both engines.
func TestExitCodes(t *testing.T) {
	dir := writeExitPrograms(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name   string
		args   []string // after run -engine=E
		code   int
		stdout string // expected exactly
		stderr string // substring of stderr
		out    io.Writer
	}{
		{"result", []string{p("result.il")}, 42, "hi\n", "", nil},
		{"void", []string{p("void.il")}, 0, "", "", nil},
		{"unhandled exception", []string{p("unhandled.il")}, 134, "before\n", "Unhandled exception. System.InvalidOperationException: boom", nil},
		{"stack overflow", []string{p("overflow.il")}, 134, "before\n", "Stack overflow.", nil},
		{"out of memory", []string{"-max-heap=64KiB", p("alloc.il")}, 134, "", "Unhandled exception. System.OutOfMemoryException", nil},
		{"time limit", []string{"-timeout=100ms", p("spin.il")}, 124, "", "program stopped after the 100ms time limit", nil},
		{"load error", []string{p("invalid.il")}, 3, "", "invalid.il:", nil},
		{"missing file", []string{p("nope.il")}, 2, "", "no such file", nil},
		{"bad flag", []string{"-bogus", p("void.il")}, 2, "", "flag provided but not defined", nil},
		{"bad heap size", []string{"-max-heap=12XB", p("void.il")}, 2, "", `invalid size "12XB"`, nil},
		{"zero heap size", []string{"-max-heap=0", p("void.il")}, 2, "", `-max-heap=0B: want a heap limit`, nil},
		{"zero call depth", []string{"-max-call-depth=0", p("void.il")}, 2, "", `-max-call-depth=0: want a positive number`, nil},
		{"output error", []string{p("result.il")}, 1, "", "writing output: disk full", failingWriter{}},
	}
	for _, eng := range []string{"jit", "interp"} {
		for _, tt := range tests {
			t.Run(eng+"/"+tt.name, func(t *testing.T) {
				var out, errb bytes.Buffer
				w := tt.out
				if w == nil {
					w = &out
				}
				code := run(append([]string{"run", "-engine=" + eng}, tt.args...), w, &errb)
				if code != tt.code {
					t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, errb.String())
				}
				if out.String() != tt.stdout {
					t.Errorf("stdout %q, want %q", out.String(), tt.stdout)
				}
				if !strings.Contains(errb.String(), tt.stderr) {
					t.Errorf("stderr %q does not contain %q", errb.String(), tt.stderr)
				}
			})
		}
	}
	// check and dump share the load error code.
	var errb bytes.Buffer
	if code := run([]string{"check", p("void.il"), p("invalid.il")}, io.Discard, &errb); code != 3 {
		t.Errorf("check of an invalid program: exit code %d, want 3", code)
	}
	if code := run([]string{"dump", "-il", p("invalid.il")}, io.Discard, &errb); code != 3 {
		t.Errorf("dump of an invalid program: exit code %d, want 3", code)
	}
}

// bigWrite builds a string of more than 64 KiB (the output buffer) and
// writes it with one WriteLine, so the first 64 KiB reach the reader while
// the rest, "last line" included, is still buffered when the program
// spins; no cancellation can come between (a base library call is no
// safe point).
const bigWrite = `.assembly t {}
.method public static void main() cil managed {
  .entrypoint
  .maxstack 3
  .locals init (string s, int32 i)
  ldstr "x" stloc s
D: ldloc s ldloc s call string [mscorlib]System.String::Concat(string, string) stloc s
  ldloc i ldc.i4.1 add dup stloc i ldc.i4.s 17 blt D
  ldstr "first line\n" ldloc s ldstr "\nlast line"
  call string [mscorlib]System.String::Concat(string, string, string)
  call void [mscorlib]System.Console::WriteLine(string)
L: br L
}`

// TestSignalsFlushOutput stops a miniil run child (with one P, see
// cliChild) with SIGTERM and SIGINT
// once the program has written: all of its output must arrive, then the
// exit code says which signal stopped it.
func TestSignalsFlushOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.il")
	if err := os.WriteFile(path, []byte(bigWrite), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "first line\n" + strings.Repeat("x", 1<<17) + "\nlast line\n"
	for _, eng := range []string{"jit", "interp"} {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(fmt.Sprintf("%s/%v", eng, sig), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // fail, not hang
				defer cancel()
				cmd := cliChild(ctx, "run", "-engine="+eng, path)
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer cmd.Process.Kill()
				// The first 64 KiB arrive when the buffer fills: the
				// program is in its WriteLine, or past it.
				got := make([]byte, 64<<10)
				if _, err := io.ReadFull(stdout, got); err != nil {
					t.Fatal(err)
				}
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				rest, err := io.ReadAll(stdout)
				if err != nil {
					t.Fatal(err)
				}
				err = cmd.Wait()
				code := 128 + int(sig)
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != code {
					t.Errorf("exit: %v, want code %d (stderr %q)", err, code, stderr.String())
				}
				if out := string(got) + string(rest); out != want {
					t.Errorf("output: %d bytes, ending %q; want %d bytes ending %q", len(out), out[max(0, len(out)-20):], len(want), want[len(want)-20:])
				}
				if msg := map[syscall.Signal]string{syscall.SIGTERM: "program terminated", syscall.SIGINT: "program interrupted"}[sig]; !strings.Contains(stderr.String(), msg) {
					t.Errorf("stderr %q does not say %q", stderr.String(), msg)
				}
			})
		}
	}
}

// TestTerminalOutputIsLineFlushed runs a program that prints a line and
// then spins, with standard output on a pseudo-terminal: the line must
// arrive while the program still runs.
func TestTerminalOutputIsLineFlushed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "line.il")
	src := `.assembly t {}
.method public static void main() cil managed {
  .entrypoint .maxstack 1
  ldstr "hello, terminal" call void [mscorlib]System.Console::WriteLine(string)
L: br L
}`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, eng := range []string{"jit", "interp"} {
		t.Run(eng, func(t *testing.T) {
			master, slave, err := openPty()
			if err != nil {
				t.Skipf("SKIP: no pseudo-terminal: %v", err)
			}
			defer master.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // fail, not hang
			defer cancel()
			cmd := cliChild(ctx, "run", "-engine="+eng, path)
			cmd.Stdout = slave
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			slave.Close()
			defer cmd.Wait()
			defer cmd.Process.Kill()
			var got []byte
			buf := make([]byte, 256)
			for !bytes.Contains(got, []byte("hello, terminal\r\n")) {
				n, err := master.Read(buf)
				if err != nil {
					t.Fatalf("reading the terminal: %v (got %q)", err, got)
				}
				got = append(got, buf[:n]...)
			}
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(cmd.Process.Pid, &ws, syscall.WNOHANG, nil); pid != 0 || err != nil {
				t.Errorf("the line arrived only once miniil had exited (%v, %v)", ws, err)
			}
		})
	}
}

// openPty opens a pseudo-terminal pair.
func openPty() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, err
	}
	var unlock int32
	var n uint32
	if err := ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		master.Close()
		return nil, nil, err
	}
	if err := ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		master.Close()
		return nil, nil, err
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}
