package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"miniil"
	"miniil/internal/bigprog"
)

// TestLoadPausesCollector checks that load runs no Go collection while
// the program loads (everything it allocates is the module, all alive)
// and gives the collector back its settings after (the percentage once a
// collection has run: resumeGC). The collector is set to run at every
// 10% of growth first, so a load of several MB that did not pause it
// would collect several times.
func TestLoadPausesCollector(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.il")
	if err := os.WriteFile(path, bigprog.BigMethod(50000), 0o644); err != nil {
		t.Fatal(err)
	}
	old := debug.SetGCPercent(10)
	defer debug.SetGCPercent(old)
	runtime.GC()
	limit := debug.SetMemoryLimit(-1) // -1: read it, unchanged
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p, code := load("run", path, miniil.LoadConfig{MaxSourceBytes: -1}, io.Discard)
	runtime.ReadMemStats(&after)
	if p == nil || code >= 0 {
		t.Fatalf("load failed with exit code %d", code)
	}
	if n := after.NumGC - before.NumGC; n != 0 {
		t.Errorf("%d collections ran while the program loaded (%d KB allocated)", n, (after.TotalAlloc-before.TotalAlloc)>>10)
	}
	if got := gcPercentAfterCollection(t, 10); got != 10 {
		t.Errorf("after load and a collection the collector's percent is %d, want 10 back", got)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("after load the memory limit is %d, want %d back", got, limit)
	}
	runtime.KeepAlive(p)
}

// gcPercentAfterCollection collects and returns the collector's
// percentage once it is want, or after a second if it does not become
// want: resumeGC's finalizer runs on a goroutine of its own.
func gcPercentAfterCollection(t *testing.T, want int) int {
	t.Helper()
	var p int
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		runtime.GC()
		p = debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		if p == want {
			break
		}
	}
	return p
}

// TestResumeGC checks that after loading, the first collection waits for
// the heap to grow by gcPercent of what the module holds, as if one had
// just found it live, instead of running at once (the runtime's first
// goal is 4 MiB), and that gcPercent is back once one has run.
func TestResumeGC(t *testing.T) {
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	runtime.GC()
	var module [][]byte // 32 MiB "loaded" with the collector off
	for range 512 {
		module = append(module, make([]byte, 64<<10))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	resumeGC(100)
	for range 64 { // 4 MiB of garbage: under the goal of 64 MiB
		sink = make([]byte, 64<<10)
	}
	runtime.ReadMemStats(&after)
	if n := after.NumGC - before.NumGC; n != 0 {
		t.Errorf("%d collections ran after 4 MiB of garbage with a 32 MiB module", n)
	}
	if got := gcPercentAfterCollection(t, 100); got != 100 {
		t.Errorf("after a collection the collector's percent is %d, want 100 back", got)
	}
	runtime.KeepAlive(module)
}

var sink []byte

// TestResumeGCTwice: a load that starts while resumeGC's raised
// percentage awaits the first collection (miniil check a.il b.il)
// resumes at the original percentage, not the raised one, and that is
// what remains after a collection.
func TestResumeGCTwice(t *testing.T) {
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	var module [][]byte // 32 MiB
	for range 512 {
		module = append(module, make([]byte, 64<<10))
	}
	resumeGC(100)
	if got := pauseGC(); got != 100 {
		t.Errorf("a second load resumes at %d, want 100 (not the raised percentage)", got)
	}
	resumeGC(100)
	if got := gcPercentAfterCollection(t, 100); got != 100 {
		t.Errorf("after the second load and a collection the percent is %d, want 100", got)
	}
	runtime.KeepAlive(module)
}
