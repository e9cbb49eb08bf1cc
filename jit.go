package miniil

import (
	"context"
	"fmt"
	"io"
	"sort"
	"testing"

	"miniil/abi"
	"miniil/il"
	"miniil/jit"
	"miniil/jitrt"
)

// compileMethod compiles methods for a runtime with the compile driver
// (package jit), validating every phase when cfg asks for it (always in
// tests), and counting into stats when it is set.
func compileMethod(mod *il.Module, cfg jit.Config) jitrt.CompileFunc {
	var c *jit.Compiler
	return func(rt *jitrt.Runtime, m *il.Method) (*abi.Method, error) {
		if c == nil {
			cfg.Env = rt
			cfg.Initialized = rt.Initialized
			c = jit.New(cfg)
		}
		st, err := c.Compile(mod, m, "")
		if err != nil {
			return nil, err
		}
		// The runtime installs the code before it compiles again,
		// copying what it keeps.
		return &st.Code.Method, nil
	}
}

// jitConfig is the compile driver's configuration for a run.
func jitConfig(cfg Config) jit.Config {
	jc := jit.Config{Validate: cfg.Validate || testing.Testing(), Stats: cfg.jitStats}
	if cfg.NoInline || len(cfg.SkipPhases) > 0 {
		jc.Skip = map[string]bool{}
	}
	if cfg.NoInline {
		jc.Skip[jit.Inline] = true
	}
	for _, name := range cfg.SkipPhases {
		jc.Skip[name] = true
	}
	return jc
}

// runJIT runs the program's entry point on the JIT.
func runJIT(ctx context.Context, mod *il.Module, cfg Config, out io.Writer) (int, error) {
	rt, err := newRuntime(mod, cfg, out)
	if err != nil {
		return 0, err
	}
	defer rt.Close()
	code, err := rt.Run(ctx)
	if cfg.GCStats != nil {
		st := rt.GCStats()
		ms := func(ns int64) float64 { return float64(ns) / 1e6 }
		fmt.Fprintf(cfg.GCStats, "miniil gc: minor=%d minor_ms=%.3f minor_max_ms=%.3f survived_bytes=%d full=%d full_ms=%.3f full_max_ms=%.3f peak_heap_bytes=%d\n",
			st.Minor, ms(st.MinorNanos), ms(st.MinorMaxNanos), st.SurvivedBytes, st.Full, ms(st.FullNanos), ms(st.FullMaxNanos), st.PeakHeapBytes)
	}
	if cfg.JITStats != nil {
		cfg.jitStats.Fprint(cfg.JITStats)
		printExits(cfg.JITStats, rt.ExitCounts())
		if n := rt.Stats().DispatchHits; n > 0 {
			fmt.Fprintf(cfg.JITStats, "exceptions dispatched with a remembered search: %d\n", n)
		}
		if cfg.VerifyGC {
			st := rt.GCVerifyStats()
			fmt.Fprintf(cfg.JITStats, "gc info checks: %d exits walked, %d locations checked (%d references, %d interior pointers, %d untracked, %d in registers), %d frames, %d through dispatches\n",
				st.Exits, st.Roots, st.Refs, st.Interior, st.Untracked, st.Registers, st.Frames, st.Dispatched)
		}
	}
	return code, err
}

// newRuntime creates a JIT runtime for a run with cfg's settings (checked
// by prepare); a failure is a *startError.
func newRuntime(mod *il.Module, cfg Config, out io.Writer) (*jitrt.Runtime, error) {
	rt, err := jitrt.NewRuntime(mod, jitrt.Options{
		Stdout: out, Compile: compileMethod(mod, jitConfig(cfg)),
		MaxCallDepth: cfg.MaxCallDepth, HeapBytes: int(cfg.MaxHeap), FlushLines: cfg.FlushLines, PerfMap: cfg.PerfMap,
		VerifyGC: cfg.VerifyGC, NurseryBytes: int(cfg.NurseryBytes), GCStress: cfg.GCStress,
		VerifyHeap: cfg.VerifyHeap || cfg.Validate || testing.Testing(),
	})
	if err != nil {
		return nil, &startError{err}
	}
	return rt, nil
}

// printExits prints the exits from native code a run made, most frequent
// first (what still leaves native code is where time goes to Go).
func printExits(w io.Writer, counts map[string]int) {
	names := make([]string, 0, len(counts))
	for name := range counts {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	fmt.Fprintf(w, "exits from native code:\n")
	for _, name := range names {
		fmt.Fprintf(w, "  %12d  %s\n", counts[name], name)
	}
}
