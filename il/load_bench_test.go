package il_test

import (
	"testing"

	"miniil/il"
	"miniil/internal/bigprog"
)

// BenchmarkLoadMany measures il.Load (lexing, parsing, resolving and
// verifying) on issue 14's compile-throughput program of 2,000 small
// methods, and reports the cost per method and per source byte.
func BenchmarkLoadMany(b *testing.B) {
	src := bigprog.ManyMethods(2000)
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		if _, err := il.Load("many.il", src); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*2000), "us/method")
}
