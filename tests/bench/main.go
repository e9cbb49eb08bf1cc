// Command bench runs the benchmark programs in tests/bench under the
// miniil JIT, the miniil interpreter and Mono, side by side, and prints a
// Markdown table of the best wall-clock times and their ratios. It is
// internal to miniil: no compatibility promise.
//
//	go run ./tests/bench [-n 5] [-filter REGEXP] [-engines jit,interp,mono] [-dotnet PATH] [-rss] [-gc] [-max-heap SIZE]
//	go run ./tests/bench -compile [-n 5] [-engines jit,mono]
//
// -compile measures compile throughput instead (compile.go).
//
// The engine coreclr runs the program ilasm assembled for Mono on CoreCLR
// instead, through the dotnet host given by -dotnet (by default the one
// on PATH), with a runtimeconfig.json that names the newest
// Microsoft.NETCore.App next to the host and sets invariant globalization:
// add it with -engines jit,interp,mono,coreclr to get a jit/coreclr
// column.
//
// The engine jit-nopoll is the JIT with the watchdog that arms its polls
// switched off (MINIIL_POLL_INTERVAL=off): run it beside jit to see what
// making JIT code preemptible costs (the jit/nopoll column).
//
// Every run is a fresh process, so start-up is included for every engine
// alike: miniil is built once into a temporary directory and executed, and
// each program is assembled once with ilasm for Mono. Start-up is measured
// with empty.il and reported; a second table subtracts it. The runs of one
// program are interleaved (jit, interp, mono, jit, ...) so that drifting
// machine load hits every engine alike. Outputs (standard output and exit
// code) must agree across engines (Mono's output, when it ran, is the
// reference); a mismatch is reported loudly and makes the command exit
// with status 1.
//
// The exception-handling programs (eh_*.il) get a third table, JIT against
// Mono as the plain ratio JIT time / Mono time with start-up subtracted,
// followed by the try/finally normal-path overhead of each engine:
// eh_tryfinally.il against eh_notry.il, the same loop without the try.
//
// -rss adds a table of every engine's peak resident set (the child's
// rusage maxrss) per program; the progress lines show it for every run.
//
// A program's source may carry directives, comment lines "// bench:
// WORD ...": "gc" makes it a program for the garbage collector (issue
// 13), which runs only with -gc; "skip=ENGINE,..." keeps those engines
// off it (binarytrees21 would take the interpreter minutes). The programs
// for the collector:
//
//   - binarytrees21: binary-trees at the benchmark's own depth, 21 (about
//     15 GB allocated, 192 MiB live at most).
//   - gc_strings: 101 million rounds of Concat, Int32.ToString and
//     StringBuilder (about 8 GB allocated), a few KiB live.
//   - gc_throw: 101 million throws and catches of a new exception.
//   - gc_live: a 201 MB tree of small objects kept live while garbage
//     trees are allocated and fresh subtrees grafted into it.
//
// -gc runs those instead of the others (-filter applies; -n is 1 unless
// given: the runs are long) and prints, per program and engine, the best
// time (start-up included) and that run's CPU time, the peak resident set
// (the largest of the runs), and the fastest run's longest minor and full
// collection pauses, number of collections, total minor collection time,
// bytes that survived minor collections and minor time per MiB survived,
// then the time and peak RSS as ratios to Mono's. The JIT's collections
// come from miniil run -gc-stats (the harness passes it when miniil has
// the flag; "n/a" before), the interpreter has none of its own (Go
// collects its objects), Mono's come from its log (MONO_LOG_LEVEL=debug
// MONO_LOG_MASK=gc, written to a file with MONO_LOG_DEST): the stw time of
// each GC_MINOR, GC_MAJOR and GC_MAJOR_CONCURRENT_FINISH line is a pause,
// promoted is what survived a minor one, and the collection Mono makes at
// exit ("user request") is left out.
//
// A program may print lines "mark NAME" (gc_strings and gc_throw print
// "mark 10M" and "mark 100M"): when such a line arrives the harness reads
// the child's resident set (VmRSS in /proc/PID/status), and -gc prints a
// second table of the resident set at each mark and its change from the
// first mark to the last (the issue asks for less than 10%). miniil
// flushes its output per line only on a terminal, so in -gc mode its
// standard output is a pseudo-terminal (without output processing: the
// bytes are the program's); Mono writes every line through. The programs
// run a little past their last mark so that the harness reads the
// resident set while they still run.
//
// -max-heap passes its value to miniil run (the heap limit bounds the
// live objects on both engines).
//
// Progress goes to standard error, the tables to standard output.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// startupProgram is the empty program whose run time is start-up.
const startupProgram = "empty"

var engineNames = []string{"jit", "interp", "mono", "coreclr", "jit-nopoll"}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// result is what one run of a program produced.
type result struct {
	stdout string
	exit   int
	stderr string
}

// same reports whether two runs printed the same output and exit code
// (standard error is not compared: runtimes word their errors
// differently).
func (r result) same(o result) bool { return r.stdout == o.stdout && r.exit == o.exit }

func (r result) String() string {
	return fmt.Sprintf("%sexit=%d", r.stdout, r.exit)
}

// measure is an engine's best time on a program, the output of its
// first run and what its runs measured.
type measure struct {
	best       time.Duration
	out        result
	runs       int
	bestSample sample // the fastest run
	peakRSS    int64  // KiB, the largest of the runs
}

// bench holds everything measured for one program.
type bench struct {
	name     string
	il       string   // source path
	exe      string   // ilasm output, for mono and coreclr
	gc       bool     // a program for the collector (directive "gc"): run only with -gc
	skip     []string // engines that never run it (directive "skip=")
	m        map[string]*measure
	mismatch []string // engines whose output differs from the reference
	ref      string   // the engine whose output is the reference
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 5, "runs per engine and program; the best time counts")
	filter := fs.String("filter", "", "run only programs whose name matches this regular expression")
	enginesFlag := fs.String("engines", "jit,interp,mono", "comma-separated engines to run: jit, interp, mono, coreclr, jit-nopoll")
	dotnetFlag := fs.String("dotnet", "dotnet", "the dotnet host that runs the coreclr engine: a path, or a name looked up on PATH")
	timeout := fs.Duration("timeout", 10*time.Minute, "time limit for one run")
	gcMode := fs.Bool("gc", false, "run the programs for the collector (\"// bench: gc\") instead of the others, and print the GC table; -n is 1 unless given")
	rssFlag := fs.Bool("rss", false, "also print a table of every engine's peak resident set")
	maxHeap := fs.String("max-heap", "", "pass -max-heap=`SIZE` to miniil run (such as 64GiB: the heap limit bounds the live objects on both engines)")
	compile := fs.Bool("compile", false, "measure compile throughput instead (issue 14): 2,000 small methods each called once and one ~100 KB method, per method and per IL byte with start-up subtracted, under the jit and mono engines")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *gcMode {
		nSet := false
		fs.Visit(func(f *flag.Flag) { nSet = nSet || f.Name == "n" })
		if !nSet {
			*n = 1
		}
	}
	if *n < 1 {
		fmt.Fprintln(stderr, "bench: -n must be at least 1")
		return 2
	}
	re, err := regexp.Compile(*filter)
	if err != nil {
		fmt.Fprintf(stderr, "bench: -filter: %v\n", err)
		return 2
	}
	engines, err := parseEngines(*enginesFlag)
	if err != nil {
		fmt.Fprintf(stderr, "bench: -engines: %v\n", err)
		return 2
	}

	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	if *compile {
		return compileMode(*n, engines, root, stdout, stderr)
	}
	benchDir := filepath.Join(root, "tests", "bench")
	progs, err := programs(benchDir, re, *gcMode)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	if len(progs) == 0 || len(progs) == 1 && progs[0].name == startupProgram {
		kind, hint := "", " (programs for the collector run only with -gc)"
		if *gcMode {
			kind, hint = " for the collector", ""
		}
		fmt.Fprintf(stderr, "bench: no program%s in %s matches -filter %q%s\n", kind, benchDir, *filter, hint)
		return 2
	}

	tmp, err := os.MkdirTemp("", "miniil-bench-")
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)

	var notes []string
	var miniilBin, monoBin, dotnetBin string
	if contains(engines, "jit") || contains(engines, "interp") || contains(engines, "jit-nopoll") {
		miniilBin = filepath.Join(tmp, "miniil")
		fmt.Fprintln(stderr, "building miniil ...")
		build := exec.Command("go", "build", "-o", miniilBin, "./cmd/miniil")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(stderr, "bench: go build ./cmd/miniil: %v\n%s", err, out)
			return 1
		}
	}
	// miniil run -gc-stats reports the JIT's collections; a miniil
	// without a collector has no such flag.
	var gcStatsFlag []string
	if *gcMode && miniilBin != "" {
		help, _ := exec.Command(miniilBin, "run", "-h").CombinedOutput()
		if bytes.Contains(help, []byte("-gc-stats")) {
			gcStatsFlag = []string{"-gc-stats"}
		} else {
			notes = append(notes, "miniil: no -gc-stats flag (no collector yet); no pauses for the JIT.")
		}
	}
	usePty := *gcMode
	if usePty {
		if r, w, err := outputPair(true); err != nil {
			fmt.Fprintf(stderr, "bench: %v; miniil's output goes through a pipe, and arrives only when its 64 KiB buffer fills or the run ends\n", err)
			notes = append(notes, "No pseudo-terminal: miniil's RSS at the marks was sampled when its buffered output arrived, not when it was printed.")
			usePty = false
		} else {
			r.Close()
			w.Close()
		}
	}
	if contains(engines, "mono") {
		mono, err := exec.LookPath("mono")
		if err == nil {
			_, err = exec.LookPath("ilasm")
		}
		if err != nil {
			fmt.Fprintln(stderr, "mono: not installed (need mono and ilasm on PATH); skipping the mono column")
			notes = append(notes, "mono: not installed; no Mono column.")
			engines = remove(engines, "mono")
		} else {
			monoBin = mono
		}
	}
	if contains(engines, "coreclr") {
		var fx string
		dotnet, err := exec.LookPath(*dotnetFlag)
		if err == nil {
			_, err = exec.LookPath("ilasm")
		}
		if err == nil {
			fx, err = coreFramework(dotnet)
		}
		if err != nil {
			fmt.Fprintf(stderr, "coreclr: %v (need a dotnet host, -dotnet, and ilasm on PATH); skipping the coreclr column\n", err)
			notes = append(notes, "coreclr: not available; no CoreCLR column.")
			engines = remove(engines, "coreclr")
		} else {
			dotnetBin = dotnet
			notes = append(notes, fmt.Sprintf("coreclr: Microsoft.NETCore.App %s.", fx))
			for _, p := range progs {
				cfg := filepath.Join(tmp, p.name+".runtimeconfig.json")
				if err := os.WriteFile(cfg, []byte(runtimeConfig(fx)), 0o644); err != nil {
					fmt.Fprintf(stderr, "bench: %v\n", err)
					return 1
				}
			}
		}
	}
	if contains(engines, "mono") || contains(engines, "coreclr") {
		ilasm, err := exec.LookPath("ilasm")
		if err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		for _, p := range progs {
			p.exe = filepath.Join(tmp, p.name+".exe")
			asm := exec.Command(ilasm, p.il, "-output:"+p.exe)
			if out, err := asm.CombinedOutput(); err != nil {
				fmt.Fprintf(stderr, "bench: ilasm %s: %v\n%s", p.il, err, out)
				return 1
			}
		}
	}
	if len(engines) == 0 {
		fmt.Fprintln(stderr, "bench: no engine left to run")
		return 1
	}

	// In -gc mode miniil's standard output is a pseudo-terminal, so that
	// it flushes every line and the mark lines arrive when printed;
	// Mono logs its collections to a file, and the JIT prints its own
	// with -gc-stats.
	var heapFlag []string
	if *maxHeap != "" {
		heapFlag = []string{"-max-heap=" + *maxHeap}
	}
	jitFlags := slices.Concat(heapFlag, gcStatsFlag)
	logs := 0
	command := func(engine string, p *bench) runSpec {
		var spec runSpec
		switch engine {
		case "mono":
			spec.argv = []string{monoBin, p.exe}
			if *gcMode {
				logs++
				spec.monoLog = filepath.Join(tmp, fmt.Sprintf("mono-gc-%d.log", logs))
				spec.env = monoEnv(spec.monoLog)
			}
		case "coreclr":
			spec.argv = []string{dotnetBin, p.exe}
		case "jit-nopoll":
			spec.argv = append(append([]string{"env", "MINIIL_POLL_INTERVAL=off", miniilBin, "run", "-engine=jit"}, jitFlags...), p.il)
			spec.pty = usePty
		case "jit":
			spec.argv = append(append([]string{miniilBin, "run", "-engine=jit"}, jitFlags...), p.il)
			spec.pty = usePty
		default:
			spec.argv = append(append([]string{miniilBin, "run", "-engine=" + engine}, heapFlag...), p.il)
			spec.pty = usePty
		}
		return spec
	}

	for _, p := range progs {
		for i := 1; i <= *n; i++ {
			for _, e := range engines {
				if contains(p.skip, e) {
					continue
				}
				s, res, err := runOnce(command(e, p), *timeout)
				if err != nil {
					fmt.Fprintf(stderr, "bench: %s: %s: %v\n", p.name, e, err)
					return 1
				}
				fmt.Fprintf(stderr, "%s: %s %d/%d %s, peak RSS %s\n", p.name, e, i, *n, fmtDur(s.d), fmtKiB(s.maxRSS))
				if s.gcErr != nil {
					fmt.Fprintf(stderr, "bench: %s: %s: %v\n", p.name, e, s.gcErr)
				}
				m := p.m[e]
				if m == nil {
					m = &measure{out: res}
					p.m[e] = m
				} else if !res.same(m.out) {
					p.flag(e + fmt.Sprintf(" (run %d differs from its run 1)", i))
				}
				m.add(s)
			}
		}
		p.compare(engines)
		for _, e := range p.mismatch {
			fmt.Fprintf(stderr, "bench: MISMATCH on %s: %s differs from %s\n", p.name, e, p.ref)
		}
	}

	if *gcMode {
		gcReport(stdout, engines, progs, *n, notes)
		mismatchReport(stdout, engines, progs)
	} else {
		report(stdout, engines, progs, progs[0], *n, notes)
		if *rssFlag {
			rssReport(stdout, engines, progs)
		}
	}
	for _, p := range progs {
		if len(p.mismatch) > 0 {
			return 1
		}
	}
	return 0
}

// flag records an engine whose output is wrong.
func (p *bench) flag(what string) {
	if !contains(p.mismatch, what) {
		p.mismatch = append(p.mismatch, what)
	}
}

// compare checks the output of every engine that ran against the
// reference: Mono when it ran, otherwise CoreCLR, the interpreter or the
// JIT, in that order.
func (p *bench) compare(engines []string) {
	for _, r := range []string{"mono", "coreclr", "interp", "jit", "jit-nopoll"} {
		if p.m[r] != nil {
			p.ref = r
			break
		}
	}
	if p.ref == "" { // every engine skipped it
		return
	}
	want := p.m[p.ref].out
	for _, e := range engines {
		if m := p.m[e]; m != nil && e != p.ref && !m.out.same(want) {
			p.flag(e)
		}
	}
}

// report prints the Markdown tables and any mismatch.
func report(w io.Writer, engines []string, progs []*bench, startup *bench, n int, notes []string) {
	fmt.Fprintf(w, "Best wall-clock time of %d runs per engine, each a fresh process (start-up included).\n\n", n)
	table(w, engines, progs, nil)
	fmt.Fprintf(w, "\nThe same with start-up (the %s.il row above) subtracted:\n\n", startupProgram)
	table(w, engines, progs[1:], startup)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Ratios are slower/faster, so always >= 1; the words give the direction (jit/mono: the JIT against Mono; jit/coreclr: the JIT against CoreCLR; interp/jit: the JIT against the interpreter).")
	for _, s := range notes {
		fmt.Fprintln(w, s)
	}
	ehReport(w, engines, progs[1:], startup)
	mismatchReport(w, engines, progs)
}

// mismatchReport prints the outputs of the programs whose engines
// disagreed, or says that all agreed.
func mismatchReport(w io.Writer, engines []string, progs []*bench) {
	bad := false
	for _, p := range progs {
		if len(p.mismatch) == 0 {
			continue
		}
		if !bad {
			fmt.Fprintln(w, "\n!!!!!!!! OUTPUT MISMATCH !!!!!!!!")
			bad = true
		}
		fmt.Fprintf(w, "\n%s: %s differ(s) from %s.\n", p.name, strings.Join(p.mismatch, ", "), p.ref)
		for _, e := range engines {
			if m := p.m[e]; m != nil {
				fmt.Fprintf(w, "--- %s:\n%s\n", e, indent(m.out.String()+stderrTail(m.out)))
			}
		}
	}
	if !bad {
		fmt.Fprintln(w, "All engines printed the same output and exit code for every program.")
	}
}

// table prints one Markdown table. With sub set, the sub program's time
// on each engine is subtracted from every time.
func table(w io.Writer, engines []string, progs []*bench, sub *bench) {
	head := []string{"program"}
	head = append(head, engines...)
	hasJM := contains(engines, "jit") && contains(engines, "mono")
	hasJC := contains(engines, "jit") && contains(engines, "coreclr")
	hasIJ := contains(engines, "jit") && contains(engines, "interp")
	hasJN := contains(engines, "jit") && contains(engines, "jit-nopoll")
	if hasJM {
		head = append(head, "jit/mono")
	}
	if hasJC {
		head = append(head, "jit/coreclr")
	}
	if hasIJ {
		head = append(head, "interp/jit")
	}
	if hasJN {
		head = append(head, "jit/nopoll")
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, p := range progs {
		t := map[string]time.Duration{}
		row := []string{p.name}
		if p.name == startupProgram {
			row[0] = p.name + " (start-up)"
		}
		if len(p.mismatch) > 0 {
			row[0] += " **MISMATCH**"
		}
		for _, e := range engines {
			if p.m[e] == nil {
				row = append(row, "skipped")
				continue
			}
			d := p.m[e].best
			if sub != nil {
				d -= sub.m[e].best
			}
			t[e] = d
			row = append(row, fmtDur(d))
		}
		// both reports whether the two engines ran the program.
		both := func(a, b string) bool { return p.m[a] != nil && p.m[b] != nil }
		if hasJM {
			row = append(row, cond(both("jit", "mono"), func() string { return ratio(t["jit"], t["mono"], "", " than Mono") }))
		}
		if hasJC {
			row = append(row, cond(both("jit", "coreclr"), func() string { return ratio(t["jit"], t["coreclr"], "", " than CoreCLR") }))
		}
		if hasIJ {
			row = append(row, cond(both("jit", "interp"), func() string { return ratio(t["jit"], t["interp"], "JIT ", " than interp") }))
		}
		if hasJN {
			row = append(row, cond(both("jit", "jit-nopoll"), func() string {
				return fmt.Sprintf("%+.1f%%", 100*(float64(t["jit"])/float64(t["jit-nopoll"])-1))
			}))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
}

// cond returns f() when ok, otherwise "n/a" (an engine skipped the
// program).
func cond(ok bool, f func() string) string {
	if !ok {
		return "n/a"
	}
	return f()
}

// ratio describes a against b as slower/faster, so the number is
// always >= 1: prefix+"1.13x slower"+suffix when a takes longer,
// prefix+"1.25x faster"+suffix when it takes less.
func ratio(a, b time.Duration, prefix, suffix string) string {
	const tiny = 500 * time.Microsecond
	if a < tiny || b < tiny {
		return "n/a (too short)"
	}
	if a > b {
		return fmt.Sprintf("%s%.2fx slower%s", prefix, float64(a)/float64(b), suffix)
	}
	return fmt.Sprintf("%s%.2fx faster%s", prefix, float64(b)/float64(a), suffix)
}

// ehPrefix names the exception-handling programs, which get a table of
// their own; ehTryFinally and ehNoTry are the pair whose difference is
// the cost of a try/finally on the normal (non-throwing) path.
const (
	ehPrefix     = "eh_"
	ehTryFinally = "eh_tryfinally"
	ehNoTry      = "eh_notry"
)

// ehReport prints, when eh_* programs ran, a third table comparing the
// JIT with Mono on them as a plain ratio JIT time / Mono time (start-up
// subtracted; above 1 means the JIT is slower), then the try/finally
// normal-path overhead of every engine that ran both eh_tryfinally and
// eh_notry.
func ehReport(w io.Writer, engines []string, progs []*bench, startup *bench) {
	var eh []*bench
	byName := map[string]*bench{}
	for _, p := range progs {
		if strings.HasPrefix(p.name, ehPrefix) && len(p.skip) == 0 {
			eh = append(eh, p)
			byName[p.name] = p
		}
	}
	if len(eh) == 0 {
		return
	}
	net := func(p *bench, e string) time.Duration { return p.m[e].best - startup.m[e].best }
	if contains(engines, "jit") && contains(engines, "mono") {
		fmt.Fprintf(w, "\nException handling (%s*), start-up subtracted; the ratio is JIT time / Mono time (above 1: the JIT is slower):\n\n", ehPrefix)
		fmt.Fprintln(w, "| program | jit | mono | JIT time / Mono time |")
		fmt.Fprintln(w, "|---|---|---|---|")
		for _, p := range eh {
			name := p.name
			if len(p.mismatch) > 0 {
				name += " **MISMATCH**"
			}
			j, m := net(p, "jit"), net(p, "mono")
			r := "n/a (too short)"
			if tiny := 500 * time.Microsecond; len(p.mismatch) > 0 {
				r = "n/a (output mismatch)"
			} else if j >= tiny && m >= tiny {
				r = fmt.Sprintf("%.2f", float64(j)/float64(m))
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", name, fmtDur(j), fmtDur(m), r)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprint(w, "\n(No exception-handling table: it needs both the jit and mono engines.)\n\n")
	}
	tf, nt := byName[ehTryFinally], byName[ehNoTry]
	if tf == nil || nt == nil {
		return
	}
	for _, e := range engines {
		a, b := net(tf, e), net(nt, e)
		if b < 500*time.Microsecond {
			fmt.Fprintf(w, "try/finally normal-path overhead: n/a on %s (%s too short)\n", e, ehNoTry)
			continue
		}
		note := ""
		if len(tf.mismatch) > 0 || len(nt.mismatch) > 0 {
			note = "; OUTPUT MISMATCH, see below"
		}
		fmt.Fprintf(w, "try/finally normal-path overhead: %+.1f%% on %s (%s %s vs %s %s, start-up subtracted%s)\n",
			100*(float64(a)/float64(b)-1), e, ehTryFinally, fmtDur(a), ehNoTry, fmtDur(b), note)
	}
}

func fmtDur(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms >= 100 || ms <= -100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10 || ms <= -10:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.2f ms", ms)
}

func stderrTail(r result) string {
	if r.stderr == "" {
		return ""
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) > 5 {
		lines = lines[:5]
	}
	return "\n(stderr) " + strings.Join(lines, "\n(stderr) ")
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// programs lists the benchmark programs that match re in name order:
// with gc, the programs for the collector; otherwise the start-up
// program first, then the others.
func programs(dir string, re *regexp.Regexp, gc bool) ([]*bench, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.il"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var start *bench
	var rest []*bench
	for _, f := range files {
		b := &bench{name: strings.TrimSuffix(filepath.Base(f), ".il"), il: f, m: map[string]*measure{}}
		if b.gc, b.skip, err = directives(f); err != nil {
			return nil, err
		}
		switch {
		case b.name == startupProgram:
			start = b
		case b.gc == gc && re.MatchString(b.name):
			rest = append(rest, b)
		}
	}
	if gc {
		return rest, nil
	}
	if start == nil {
		return nil, fmt.Errorf("%s is missing from %s", startupProgram+".il", dir)
	}
	if len(start.skip) > 0 {
		return nil, fmt.Errorf("%s: the start-up program must run on every engine", start.il)
	}
	return append([]*bench{start}, rest...), nil
}

// moduleRoot finds the directory of miniil's go.mod, from the working
// directory upward.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(bytes.TrimSpace(b), []byte("module miniil")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find the miniil module (go.mod); run from inside the repository")
		}
		dir = parent
	}
}

func parseEngines(s string) ([]string, error) {
	var out []string
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if !contains(engineNames, e) {
			return nil, fmt.Errorf("unknown engine %q (want jit, interp, mono, coreclr or jit-nopoll)", e)
		}
		if !contains(out, e) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no engine given")
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func remove(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// coreFramework returns the newest version of Microsoft.NETCore.App
// installed beside the dotnet host (shared/Microsoft.NETCore.App/VERSION),
// the framework the runtimeconfig.json of each program names.
func coreFramework(dotnet string) (string, error) {
	host, err := filepath.EvalSymlinks(dotnet)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(filepath.Dir(host), "shared", "Microsoft.NETCore.App")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var best string
	for _, e := range entries {
		if e.IsDir() && versionLess(best, e.Name()) {
			best = e.Name()
		}
	}
	if best == "" {
		return "", fmt.Errorf("no framework in %s", dir)
	}
	return best, nil
}

// versionLess compares dotted versions number by number ("2.0.9" <
// "2.0.10"); a part that is not a number compares as text.
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, errx := strconv.Atoi(pa[i])
		y, erry := strconv.Atoi(pb[i])
		switch {
		case errx == nil && erry == nil && x != y:
			return x < y
		case (errx != nil || erry != nil) && pa[i] != pb[i]:
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

// runtimeConfig is the runtimeconfig.json that lets the dotnet host run
// an ilasm-made exe on framework version fx, with invariant globalization
// as miniil's base library behaves.
func runtimeConfig(fx string) string {
	return fmt.Sprintf(`{"runtimeOptions":{"framework":{"name":"Microsoft.NETCore.App","version":%q},"configProperties":{"System.Globalization.Invariant":true}}}`+"\n", fx)
}
