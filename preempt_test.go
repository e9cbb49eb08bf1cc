package miniil_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"miniil"
)

// The preemption tests run in a child process (this test binary again,
// with MINIIL_PREEMPT_CASE set), because the failure they guard against is
// a process that never makes progress again: the parent kills a child that
// hangs and reports it, instead of hanging itself.

// spinPrograms are programs that run forever without calls (a pure loop),
// without loops (recursion whose every frame calls twice more), and in a
// loop whose every iteration calls a method (which has a try, so that it
// is not inlined): that loop has no poll of its own, the callee's prolog
// polls.
var spinPrograms = map[string]string{
	"loop": spin,
	"loopcall": `.assembly t {}
.method public static int32 step(int32 x) cil managed {
  .maxstack 2
  .locals init (int32 r)
  .try {
    ldarg.0
    ldc.i4.1
    add
    stloc.0
    leave.s D
  } finally {
    endfinally
  }
D:
  ldloc.0
  ret
}
.method public static void main() cil managed {
  .entrypoint
  .maxstack 1
  .locals init (int32 i)
L:
  ldloc.0
  call int32 step(int32)
  stloc.0
  br.s L
}`,
	"recursion": `.assembly t {}
.method public static int32 fib(int32 n) cil managed {
  .maxstack 3
  ldarg.0
  ldc.i4.2
  bge.s R
  ldarg.0
  ret
R:
  ldarg.0
  ldc.i4.1
  sub
  call int32 fib(int32)
  ldarg.0
  ldc.i4.2
  sub
  call int32 fib(int32)
  add
  ret
}
.method public static void main() cil managed {
  .entrypoint
  .maxstack 1
  ldc.i4 1000
  call int32 fib(int32)
  pop
  ret
}`,
}

// preemptCases are the child's scenarios. Each returns an error when the
// runtime misbehaved; the parent checks that the child ended in time.
var preemptCases = map[string]func(eng miniil.Engine, prog *miniil.Program) error{
	// A run with a deadline while the host collects garbage in a loop:
	// every collection must return and the deadline must end the run.
	"gc-during-run": func(eng miniil.Engine, prog *miniil.Program) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := prog.Run(ctx, miniil.Config{Engine: eng})
			done <- err
		}()
		gcs := 0
		for {
			select {
			case err := <-done:
				if !errors.Is(err, context.DeadlineExceeded) {
					return fmt.Errorf("run ended with %v, want the deadline", err)
				}
				// With one P a collection shares it with the spinning
				// goroutine (10 ms time slices), so a few complete.
				if gcs < 2 {
					return fmt.Errorf("only %d collections completed while the program ran", gcs)
				}
				return nil
			default:
				runtime.GC()
				gcs++
			}
		}
	},
	// More spinning runs than Ps, all cancelled at once from the host.
	"cancel-many": func(eng miniil.Engine, prog *miniil.Program) error {
		n := 2 * runtime.GOMAXPROCS(0)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = prog.Run(ctx, miniil.Config{Engine: eng})
			}()
		}
		time.Sleep(300 * time.Millisecond)
		cancel()
		wg.Wait()
		for i, err := range errs {
			if !errors.Is(err, context.Canceled) {
				return fmt.Errorf("run %d of %d ended with %v, want cancellation", i, n, err)
			}
		}
		return nil
	},
	// Deadlines of more spinning runs than Ps.
	"deadline-many": func(eng miniil.Engine, prog *miniil.Program) error {
		n := 2 * runtime.GOMAXPROCS(0)
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = prog.Run(ctx, miniil.Config{Engine: eng})
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("run %d of %d ended with %v, want the deadline", i, n, err)
			}
		}
		return nil
	},
}

// TestPreemptChild is the child's side; it does nothing in a normal test
// run.
func TestPreemptChild(t *testing.T) {
	spec := os.Getenv("MINIIL_PREEMPT_CASE")
	if spec == "" {
		t.Skip("only runs as the child of TestPreemption")
	}
	parts := strings.Split(spec, "/") // case/program/engine
	eng, err := miniil.ParseEngine(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	prog, err := miniil.Load(parts[1]+".il", []byte(spinPrograms[parts[1]]))
	if err != nil {
		t.Fatal(err)
	}
	if err := preemptCases[parts[0]](eng, prog); err != nil {
		t.Fatal(err)
	}
}

// TestPreemption checks that spinning programs never stop the host: with
// GOMAXPROCS=1 and 2, a garbage collection while a program spins returns
// and the program's deadline fires; more spinning runs than Ps can all be
// cancelled and all hit their deadlines. Each child must end within a
// second of its deadline; one that hangs is killed after 20 seconds.
func TestPreemption(t *testing.T) {
	if testing.Short() {
		t.Skip("child processes")
	}
	deadline := map[string]time.Duration{"gc-during-run": time.Second, "cancel-many": 300 * time.Millisecond, "deadline-many": 500 * time.Millisecond}
	for _, procs := range []string{"1", "2"} {
		for _, c := range []string{"gc-during-run", "cancel-many", "deadline-many"} {
			for _, p := range []string{"loop", "recursion", "loopcall"} {
				for _, eng := range engines {
					name := fmt.Sprintf("GOMAXPROCS=%s/%s/%s/%s", procs, c, p, eng)
					t.Run(name, func(t *testing.T) {
						ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
						defer cancel()
						cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestPreemptChild$", "-test.v")
						cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs, fmt.Sprintf("MINIIL_PREEMPT_CASE=%s/%s/%s", c, p, eng))
						start := time.Now()
						out, err := cmd.CombinedOutput()
						took := time.Since(start)
						if ctx.Err() != nil {
							t.Fatalf("the child hung and was killed after %v:\n%s", took, out)
						}
						if err != nil || !strings.Contains(string(out), "--- PASS: TestPreemptChild") {
							t.Fatalf("child failed (%v):\n%s", err, out)
						}
						// Process start-up and loading take a few
						// milliseconds; a second on top of the deadline is
						// the bound the runtime promises.
						if limit := deadline[c] + time.Second; took > limit {
							t.Errorf("the child took %v, more than %v", took, limit)
						}
					})
				}
			}
		}
	}
}
