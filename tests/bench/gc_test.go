package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseMonoGC(t *testing.T) {
	tests := []struct {
		name string
		log  string
		want gcStats
	}{
		{"empty", "", gcStats{}},
		{
			"minors",
			"Mono: GC_MINOR: (Nursery full) time 5.70ms, stw 5.90ms promoted 4056K major size: 4720K in use: 4072K los size: 0K in use: 0K\n" +
				"Mono: GC_MINOR: (Nursery full) time 0.09ms, stw 0.10ms promoted 1K major size: 6800K in use: 6123K los size: 0K in use: 0K\n",
			gcStats{minor: 2, minorMs: 6.0, minorMaxMs: 5.9, survived: 4057 << 10},
		},
		{
			"concurrent major, its start, sweep, and the collection at exit",
			"Mono: GC_MINOR: (Concurrent start) time 2.00ms, stw 2.50ms promoted 10K major size: 1K in use: 1K los size: 0K in use: 0K\n" +
				"Mono: GC_MAJOR_CONCURRENT_START: (Minor allowance)\n" +
				"Mono: GC_MAJOR_CONCURRENT_FINISH: (finishing) time 234.69ms, stw 96.47ms los size: 0K in use: 0K\n" +
				"Mono: GC_MAJOR_SWEEP: major size: 335072K in use: 268196K\n" +
				"Mono: GC_MAJOR: (LOS overflow) time 3.00ms, stw 3.25ms los size: 0K in use: 0K\n" +
				"Mono: GC_MAJOR: (user request) time 34.53ms, stw 196.47ms los size: 0K in use: 0K\n",
			gcStats{minor: 1, minorMs: 2.5, minorMaxMs: 2.5, survived: 10 << 10, full: 2, fullMs: 99.72, fullMaxMs: 96.47},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMonoGC(tt.log)
			if err != nil {
				t.Fatal(err)
			}
			if !sameStats(*got, tt.want) {
				t.Errorf("got %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestParseMiniilGC(t *testing.T) {
	line := "miniil gc: minor=12 minor_ms=3.500 minor_max_ms=1.250 survived_bytes=2097152 full=1 full_ms=7.000 full_max_ms=7.000 peak_heap_bytes=123"
	tests := []struct {
		name    string
		stderr  string
		want    *gcStats
		wantErr string
	}{
		{"absent", "some error\n", nil, ""},
		{"alone", line + "\n", &gcStats{minor: 12, minorMs: 3.5, minorMaxMs: 1.25, survived: 2 << 20, full: 1, fullMs: 7, fullMaxMs: 7}, ""},
		{"after other lines", "Unhandled exception.\n" + line + "\n", &gcStats{minor: 12, minorMs: 3.5, minorMaxMs: 1.25, survived: 2 << 20, full: 1, fullMs: 7, fullMaxMs: 7}, ""},
		{"missing key", "miniil gc: minor=1 minor_ms=1.0\n", nil, "minor_max_ms"},
		{"not key=value", "miniil gc: minor\n", nil, "not key=value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMiniilGC(tt.stderr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one that mentions %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tt.want == nil) || got != nil && !sameStats(*got, *tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// sameStats compares two gcStats, their floats to a microsecond.
func sameStats(a, b gcStats) bool {
	near := func(x, y float64) bool { return x-y < 1e-3 && y-x < 1e-3 }
	return a.minor == b.minor && a.full == b.full && a.survived == b.survived &&
		near(a.minorMs, b.minorMs) && near(a.minorMaxMs, b.minorMaxMs) &&
		near(a.fullMs, b.fullMs) && near(a.fullMaxMs, b.fullMaxMs)
}

func TestDirectives(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		gc      bool
		skip    []string
		wantErr string
	}{
		{"none", "// bench\n.assembly a {}\n", false, nil, ""},
		{"gc", "// Some text.\n// bench: gc\n", true, nil, ""},
		{"gc and skip", "  // bench: gc skip=interp,coreclr\n", true, []string{"interp", "coreclr"}, ""},
		{"two lines", "// bench: skip=interp\n// bench: gc\n", true, []string{"interp"}, ""},
		{"unknown engine", "// bench: skip=jvm\n", false, nil, `unknown engine "jvm"`},
		{"unknown word", "// bench: fast\n", false, nil, `unknown bench directive "fast"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.il")
			if err := os.WriteFile(path, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			gc, skip, err := directives(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one that mentions %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if gc != tt.gc || !reflect.DeepEqual(skip, tt.skip) {
				t.Errorf("got gc=%v skip=%q, want gc=%v skip=%q", gc, skip, tt.gc, tt.skip)
			}
		})
	}
}

// TestRunOnceMarks runs a shell that prints mark lines while it runs,
// through a pipe and through a pseudo-terminal: each mark must sample the
// running process, and the output must arrive unchanged.
func TestRunOnceMarks(t *testing.T) {
	script := "echo start; echo 'mark one'; sleep 0.05; printf 'mark two\\n'; sleep 0.05; echo end; exit 3"
	for _, pty := range []bool{false, true} {
		name := map[bool]string{false: "pipe", true: "pty"}[pty]
		t.Run(name, func(t *testing.T) {
			if pty {
				r, w, err := outputPair(true)
				if err != nil {
					t.Skipf("SKIP: no pseudo-terminal: %v", err)
				}
				r.Close()
				w.Close()
			}
			s, res, err := runOnce(runSpec{argv: []string{"sh", "-c", script}, pty: pty}, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if want := "start\nmark one\nmark two\nend\n"; res.stdout != want || res.exit != 3 {
				t.Errorf("output %q exit %d, want %q exit 3", res.stdout, res.exit, want)
			}
			if len(s.marks) != 2 || s.marks[0].name != "one" || s.marks[1].name != "two" {
				t.Fatalf("marks %+v, want one and two", s.marks)
			}
			for _, m := range s.marks {
				if m.rss <= 0 {
					t.Errorf("mark %s: RSS %d KiB, want it sampled while the process ran", m.name, m.rss)
				}
			}
			if s.maxRSS <= 0 {
				t.Errorf("peak RSS %d KiB", s.maxRSS)
			}
		})
	}
}
