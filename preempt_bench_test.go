package miniil_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"miniil"
)

// maxPause returns the largest stop-the-world pause of the garbage
// collector (time to stop included) recorded since the histogram before,
// as the upper bound of its bucket.
func maxPause(before, after *metrics.Float64Histogram) time.Duration {
	for i := len(after.Counts) - 1; i >= 0; i-- {
		if after.Counts[i] > before.Counts[i] {
			hi := after.Buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = after.Buckets[i]
			}
			return time.Duration(hi * float64(time.Second))
		}
	}
	return 0
}

func pauses() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: "/sched/pauses/total/gc:seconds"}}
	metrics.Read(s)
	h := s[0].Value.Float64Histogram()
	return &metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: h.Buckets}
}

// BenchmarkSTWPause measures the host's longest garbage collection pause
// (stopping the world included) while JIT runs spin in loops without calls
// or in recursion without loops, against the same with nothing running.
// The pause is bounded by jitrt.PollInterval, the watchdog's period.
func BenchmarkSTWPause(b *testing.B) {
	for _, spinning := range []int{0, 2} {
		for _, prog := range []string{"loop", "recursion"} {
			if spinning == 0 && prog == "recursion" {
				continue
			}
			b.Run(fmt.Sprintf("runs=%d/%s", spinning, prog), func(b *testing.B) {
				p, err := miniil.Load(prog+".il", []byte(spinPrograms[prog]))
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				var wg sync.WaitGroup
				for range spinning {
					wg.Add(1)
					go func() {
						defer wg.Done()
						p.Run(ctx, miniil.Config{})
					}()
				}
				time.Sleep(50 * time.Millisecond) // compiled and spinning
				before := pauses()
				b.ResetTimer()
				for b.Loop() {
					runtime.GC()
				}
				b.StopTimer()
				b.ReportMetric(float64(maxPause(before, pauses()))/1e6, "max-pause-ms")
				cancel()
				wg.Wait()
			})
		}
	}
}
