package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"miniil/il"
	"miniil/internal/bigprog"
)

// The -compile mode (issue 14's compile throughput): it generates three
// programs with internal/bigprog, runs each -n times under miniil's JIT
// and Mono (interleaved), and prints the best wall and CPU (user+system)
// time of each, then the compile cost with start-up subtracted:
//
//   - start-up: main alone, printing 0 (ManyMethods(0));
//   - many: 2,000 small methods (about 57 IL bytes, a loop and a branch,
//     too large for either inliner), each called once;
//   - big: one method of about 100 KB of IL, called once.
//
// per method = (many - start-up) / 2,000 and per IL byte = (big -
// start-up) / the big method's IL bytes. Both include loading the
// program (miniil parses IL text, Mono reads an assembly) and the short
// run. Each engine's own JIT time is printed beside them, from runs of
// their own (the timed runs read no clock per phase): miniil's
// -jit-stats (the phases of the jit driver, no loading or installing)
// and Mono's --stats ("Total time spent JITting", its JIT's phases from
// IL to native code), with start-up's subtracted too: the compilers
// side by side, without the loaders.

const compileMethods = 2000

type compileProg struct {
	name    string
	src     []byte
	il      string // path of the source
	exe     string // ilasm's output, for Mono
	ilBytes int    // IL bytes of the methods that count (all but main)
	best    map[string]compileTimes
	// jitTime is each engine's own report of its JIT time, best run:
	// miniil -jit-stats, mono --stats.
	jitTime map[string]time.Duration
	output  map[string]string
}

type compileTimes struct{ wall, cpu time.Duration }

func compileMode(n int, engines []string, root string, stdout, stderr io.Writer) int {
	tmp, err := os.MkdirTemp("", "miniil-compile-")
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	progs := []*compileProg{
		{name: "start-up", src: bigprog.ManyMethods(0)},
		{name: "many", src: bigprog.ManyMethods(compileMethods)},
		{name: "big", src: bigprog.BigMethod(100000)},
	}
	for _, p := range progs {
		p.il = filepath.Join(tmp, "compile_"+strings.ReplaceAll(p.name, "-", "")+".il")
		if err := os.WriteFile(p.il, p.src, 0o644); err != nil {
			fmt.Fprintf(stderr, "bench: %v\n", err)
			return 1
		}
		mod, err := il.Load(p.il, p.src)
		if err != nil {
			fmt.Fprintf(stderr, "bench: %s: %v\n", p.name, err)
			return 1
		}
		for _, m := range mod.AllMethods() {
			if !m.Builtin && !m.Abstract && m.Name != "main" {
				p.ilBytes += m.CodeSize
			}
		}
		p.best = map[string]compileTimes{}
		p.jitTime = map[string]time.Duration{}
		p.output = map[string]string{}
	}
	var run []string
	miniilBin := filepath.Join(tmp, "miniil")
	if contains(engines, "jit") {
		fmt.Fprintln(stderr, "building miniil ...")
		build := exec.Command("go", "build", "-o", miniilBin, "./cmd/miniil")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(stderr, "bench: go build ./cmd/miniil: %v\n%s", err, out)
			return 1
		}
		run = append(run, "jit")
	}
	if contains(engines, "mono") {
		_, err1 := exec.LookPath("mono")
		ilasm, err2 := exec.LookPath("ilasm")
		if err1 != nil || err2 != nil {
			fmt.Fprintln(stderr, "mono: not installed (need mono and ilasm on PATH); miniil's figures only")
		} else {
			for _, p := range progs {
				p.exe = strings.TrimSuffix(p.il, ".il") + ".exe"
				if out, err := exec.Command(ilasm, p.il, "-output:"+p.exe).CombinedOutput(); err != nil {
					fmt.Fprintf(stderr, "bench: ilasm %s: %v\n%s", p.il, err, out)
					return 1
				}
			}
			run = append(run, "mono")
		}
	}
	if len(run) == 0 {
		fmt.Fprintln(stderr, "bench: -compile runs the engines jit and mono; neither is available")
		return 1
	}
	for i := 0; i < n; i++ {
		for _, p := range progs {
			for _, e := range run {
				var cmd *exec.Cmd
				if e == "jit" {
					cmd = exec.Command(miniilBin, "run", p.il)
				} else {
					cmd = exec.Command("mono", p.exe)
				}
				var out, errb strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &errb
				start := time.Now()
				err := cmd.Run()
				wall := time.Since(start)
				if err != nil {
					fmt.Fprintf(stderr, "bench: %s %s: %v\n%s", e, p.name, err, errb.String())
					return 1
				}
				cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				b, ok := p.best[e]
				if !ok || wall < b.wall {
					b.wall = wall
				}
				if !ok || cpu < b.cpu {
					b.cpu = cpu
				}
				p.best[e] = b
				p.output[e] = out.String()
				// The JIT time alone, from a run of its own: the timed
				// run reads no clocks per phase.
				d, err := jitTime(e, miniilBin, p)
				if err != nil {
					fmt.Fprintf(stderr, "bench: %s %s: %v\n", e, p.name, err)
					return 1
				}
				if b, ok := p.jitTime[e]; !ok || d < b {
					p.jitTime[e] = d
				}
				fmt.Fprintf(stderr, "%-8s %-4s run %d: %v wall, %v CPU\n", p.name, e, i+1, wall.Round(time.Microsecond), cpu.Round(time.Microsecond))
			}
		}
	}
	mismatch := false
	for _, p := range progs {
		if len(run) == 2 && p.output["jit"] != p.output["mono"] {
			fmt.Fprintf(stderr, "bench: %s: miniil printed %q, Mono %q\n", p.name, p.output["jit"], p.output["mono"])
			mismatch = true
		}
	}

	fmt.Fprintf(stdout, "Compile throughput, best of %d runs (wall / CPU):\n\n", n)
	fmt.Fprintf(stdout, "| program | methods | IL bytes |")
	for _, e := range run {
		fmt.Fprintf(stdout, " %s |", engineTitle(e))
	}
	for _, e := range run {
		fmt.Fprintf(stdout, " %s, JIT alone |", engineTitle(e))
	}
	fmt.Fprint(stdout, "\n|---|---|---|")
	for range run {
		fmt.Fprint(stdout, "---|---|")
	}
	fmt.Fprintln(stdout)
	counts := map[string]int{"start-up": 0, "many": compileMethods, "big": 1}
	for _, p := range progs {
		fmt.Fprintf(stdout, "| %s | %d | %d |", p.name, counts[p.name], p.ilBytes)
		for _, e := range run {
			fmt.Fprintf(stdout, " %s / %s |", fmtDur(p.best[e].wall), fmtDur(p.best[e].cpu))
		}
		for _, e := range run {
			fmt.Fprintf(stdout, " %s |", fmtDur(p.jitTime[e]))
		}
		fmt.Fprintln(stdout)
	}
	startup, many, big := progs[0], progs[1], progs[2]
	per := func(p *compileProg, e string, div float64, cpu bool) float64 {
		a, b := p.best[e].wall, startup.best[e].wall
		if cpu {
			a, b = p.best[e].cpu, startup.best[e].cpu
		}
		return float64(a-b) / div
	}
	fmt.Fprintf(stdout, "\nStart-up subtracted (wall / CPU):\n\n| cost |")
	for _, e := range run {
		fmt.Fprintf(stdout, " %s |", engineTitle(e))
	}
	if len(run) == 2 {
		fmt.Fprint(stdout, " miniil / Mono |")
	}
	for _, e := range run {
		fmt.Fprintf(stdout, " %s, JIT alone |", engineTitle(e))
	}
	if len(run) == 2 {
		fmt.Fprint(stdout, " JIT alone, miniil / Mono |")
	}
	fmt.Fprint(stdout, "\n|---|")
	cols := 2 * len(run)
	if len(run) == 2 {
		cols += 2
	}
	fmt.Fprintln(stdout, strings.Repeat("---|", cols))
	row := func(label string, p *compileProg, div float64, unit time.Duration, unitName string) {
		fmt.Fprintf(stdout, "| %s |", label)
		for _, e := range run {
			fmt.Fprintf(stdout, " %s / %s %s |", num(per(p, e, div, false)/float64(unit)), num(per(p, e, div, true)/float64(unit)), unitName)
		}
		if len(run) == 2 {
			fmt.Fprintf(stdout, " %.1fx / %.1fx |", per(p, "jit", div, false)/per(p, "mono", div, false), per(p, "jit", div, true)/per(p, "mono", div, true))
		}
		jit := func(e string) float64 { return float64(p.jitTime[e]-startup.jitTime[e]) / div }
		for _, e := range run {
			fmt.Fprintf(stdout, " %s %s |", num(jit(e)/float64(unit)), unitName)
		}
		if len(run) == 2 {
			fmt.Fprintf(stdout, " %.1fx |", jit("jit")/jit("mono"))
		}
		fmt.Fprintln(stdout)
	}
	row("per method (many)", many, compileMethods, time.Microsecond, "µs")
	row("per IL byte (big)", big, float64(big.ilBytes), time.Microsecond, "µs")
	fmt.Fprintf(stdout, "\n(many: %d IL bytes, %.0f per method.)\n", many.ilBytes, float64(many.ilBytes)/compileMethods)
	if mismatch {
		return 1
	}
	return 0
}

func engineTitle(e string) string {
	if e == "jit" {
		return "miniil JIT"
	}
	return "Mono"
}

func num(v float64) string {
	switch {
	case v >= 100 || v <= -100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10 || v <= -10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// JIT-time reports: miniil -jit-stats prints "compiled in D", mono
// --stats "Total time spent JITting : N ms".
var (
	miniilJITTime = regexp.MustCompile(`compiled in (\S+)`)
	monoJITTime   = regexp.MustCompile(`Total time spent JITting\s*:\s*([0-9.]+) ms`)
)

// jitTime runs p under engine e with the engine's statistics on and
// returns the JIT time it reports.
func jitTime(e, miniilBin string, p *compileProg) (time.Duration, error) {
	var cmd *exec.Cmd
	re := miniilJITTime
	if e == "jit" {
		cmd = exec.Command(miniilBin, "run", "-jit-stats", p.il)
	} else {
		cmd = exec.Command("mono", "--stats", p.exe)
		re = monoJITTime
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("statistics run: %v\n%s", err, out.String())
	}
	m := re.FindStringSubmatch(out.String())
	if m == nil {
		return 0, fmt.Errorf("statistics run printed no JIT time")
	}
	if e == "jit" {
		return time.ParseDuration(m[1])
	}
	ms, err := strconv.ParseFloat(m[1], 64)
	return time.Duration(ms * float64(time.Millisecond)), err
}
