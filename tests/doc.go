// Package tests holds the golden corpus (tests/corpus, with the C# sources
// of its cs_* programs in tests/cssrc), the invalid programs with their
// expected errors (tests/invalid) and the tests and
// benchmarks that run them on every engine and against Mono. It has no
// API: it is internal to miniil, with no compatibility promise.
package tests
