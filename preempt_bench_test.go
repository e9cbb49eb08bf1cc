package miniil_test

import (
	"context"
	"math"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"miniil"
)

// pauses returns the histogram of the garbage collector's stop-the-world
// pauses so far (time to stop the world included).
func pauses() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: "/sched/pauses/total/gc:seconds"}}
	metrics.Read(s)
	h := s[0].Value.Float64Histogram()
	return &metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: h.Buckets}
}

// pauseQuantile returns the q-quantile of the pauses recorded between two
// histograms, as the upper bound of its bucket.
func pauseQuantile(before, after *metrics.Float64Histogram, q float64) time.Duration {
	var total uint64
	for i := range after.Counts {
		total += after.Counts[i] - before.Counts[i]
	}
	want := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for i := range after.Counts {
		seen += after.Counts[i] - before.Counts[i]
		if seen >= want && seen > 0 {
			hi := after.Buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = after.Buckets[i]
			}
			return time.Duration(hi * float64(time.Second))
		}
	}
	return 0
}

// BenchmarkSTWPause measures the host's garbage collection pauses
// (stopping the world included) while two runs spin, in loops without
// calls or in recursion without loops, on the JIT and the interpreter;
// against the same with nothing running and with two goroutines spinning
// in plain Go, which Go preempts itself: the JIT's spinning runs should
// hold the world up no longer than those (at most jitrt.PollInterval
// more). Reported: median and largest pause.
func BenchmarkSTWPause(b *testing.B) {
	type spinner func(ctx context.Context)
	goSpin := func(ctx context.Context) {
		x := 0
		for ctx.Err() == nil {
			for i := range 1000 {
				x += i
			}
		}
		sinkInt.Add(int64(x))
	}
	run := func(prog string, eng miniil.Engine) spinner {
		p, err := miniil.Load(prog+".il", []byte(spinPrograms[prog]))
		if err != nil {
			b.Fatal(err)
		}
		return func(ctx context.Context) { p.Run(ctx, miniil.Config{Engine: eng}) }
	}
	cases := []struct {
		name string
		spin spinner
		n    int
	}{
		{"idle", nil, 0},
		{"go-loop", goSpin, 2},
		{"jit-loop", run("loop", miniil.JIT), 2},
		{"jit-recursion", run("recursion", miniil.JIT), 2},
		{"interp-loop", run("loop", miniil.Interp), 2},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range c.n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c.spin(ctx)
				}()
			}
			time.Sleep(50 * time.Millisecond) // compiled and spinning
			before := pauses()
			b.ResetTimer()
			for b.Loop() {
				runtime.GC()
			}
			b.StopTimer()
			after := pauses()
			b.ReportMetric(float64(pauseQuantile(before, after, 0.5))/1e6, "p50-pause-ms")
			b.ReportMetric(float64(pauseQuantile(before, after, 1))/1e6, "max-pause-ms")
			cancel()
			wg.Wait()
		})
	}
}

var sinkInt atomic.Int64
