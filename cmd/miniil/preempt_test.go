package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"miniil"
)

const spinProgram = `.assembly t {}
.method public static void main() cil managed {
  .entrypoint
  .maxstack 1
L: br.s L
}
`

// TestCLIChild runs the command line given in MINIIL_CLI_ARGS (separated
// by newlines) and exits with its code; it does nothing in a normal test
// run.
func TestCLIChild(t *testing.T) {
	args := os.Getenv("MINIIL_CLI_ARGS")
	if args == "" {
		t.Skip("only runs as the child of another test")
	}
	os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// cliChild returns a command that runs miniil with args in a child
// process with one P (GOMAXPROCS=1), killed if it outlives ctx.
func cliChild(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCLIChild$")
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1", "MINIIL_CLI_ARGS="+strings.Join(args, "\n"))
	return cmd
}

// TestSpinStops runs a program that spins in a loop without calls with one
// P, as in a 1-CPU container: a time limit and Ctrl-C must stop it within
// a second, on both engines.
func TestSpinStops(t *testing.T) {
	if testing.Short() {
		t.Skip("child processes")
	}
	prog := filepath.Join(t.TempDir(), "spin.il")
	if err := os.WriteFile(prog, []byte(spinProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, eng := range []string{"jit", "interp"} {
		t.Run("timeout/"+eng, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := cliChild(ctx, "run", "-engine="+eng, "-timeout=1s", prog)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			took := time.Since(start)
			switch {
			case ctx.Err() != nil:
				t.Fatalf("miniil run hung and was killed after %v:\n%s", took, out)
			case err == nil:
				t.Fatalf("miniil run succeeded on an endless loop:\n%s", out)
			case !strings.Contains(string(out), "time limit"):
				t.Errorf("output does not report the time limit:\n%s", out)
			case cmd.ProcessState.ExitCode() != miniil.ExitTimeout:
				t.Errorf("exit code %d, want %d", cmd.ProcessState.ExitCode(), miniil.ExitTimeout)
			}
			if took > 2*time.Second {
				t.Errorf("miniil run took %v with a 1s time limit", took)
			}
		})
		t.Run("interrupt/"+eng, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := cliChild(ctx, "run", "-engine="+eng, prog)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond) // spinning by now
			sent := time.Now()
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			took := time.Since(sent)
			switch {
			case ctx.Err() != nil:
				t.Fatalf("miniil run ignored Ctrl-C and was killed:\n%s", out.String())
			case err == nil:
				t.Fatalf("miniil run succeeded on an endless loop:\n%s", out.String())
			case !strings.Contains(out.String(), "interrupted"):
				t.Errorf("output does not report the interruption:\n%s", out.String())
			case cmd.ProcessState.ExitCode() != miniil.ExitInterrupted:
				t.Errorf("exit code %d, want %d", cmd.ProcessState.ExitCode(), miniil.ExitInterrupted)
			}
			if took > time.Second {
				t.Errorf("miniil run stopped %v after Ctrl-C", took)
			}
		})
	}
}
