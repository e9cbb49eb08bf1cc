package tests

import (
	"runtime"
	"testing"

	"miniil/il"
	"miniil/internal/bigprog"
)

// BenchmarkLoadLarge loads (parses, resolves and verifies) a 20 MB
// program made of fuzzer programs (package bigprog). Besides time, it
// reports the bytes allocated and the module's live heap per source byte:
// loading must stay well under 10 times the source in memory (`miniil
// check` of this program peaks at about 6 times its size).
func BenchmarkLoadLarge(b *testing.B) {
	src := bigprog.Program(20 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	var live uint64
	for range b.N {
		var before, after runtime.MemStats
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		mod, err := il.Load("big.il", src)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		live = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(mod)
		b.StartTimer()
	}
	b.ReportMetric(float64(live)/float64(len(src)), "live/srcbyte")
}
