package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"miniil"
	"miniil/internal/bigprog"
)

// TestLoadPausesCollector checks that load runs no Go collection while
// the program loads (everything it allocates is the module, all alive)
// and gives the collector back its settings after. The collector is set
// to run at every 10% of growth first, so a load of several MB that did
// not pause it would collect several times.
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
	if got := debug.SetGCPercent(10); got != 10 {
		t.Errorf("after load the collector's percent is %d, want 10 back", got)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("after load the memory limit is %d, want %d back", got, limit)
	}
	runtime.KeepAlive(p)
}
