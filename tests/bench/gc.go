package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// A program's directives are comment lines "// bench: WORD ..." anywhere
// in its source. The words:
const (
	// directiveGC marks a program for the collector: it runs only with
	// -gc, and its results go to the GC table.
	directiveGC = "gc"
	// directiveSkip ("skip=interp,coreclr") names engines that never run
	// the program (they would take far too long).
	directiveSkip = "skip="
)

// markPrefix starts the lines a program prints where the harness must
// sample its resident set ("mark 10M").
const markPrefix = "mark "

// runSpec says how to run one engine on one program.
type runSpec struct {
	argv []string
	env  []string // added to the environment
	// pty puts standard output on a pseudo-terminal, so that miniil,
	// which flushes every line only on a terminal, delivers its mark
	// lines when it prints them.
	pty bool
	// monoLog is the file Mono writes its collections to
	// (MONO_LOG_DEST), parsed once the run ends; "" for none.
	monoLog string
}

// sample is what one run measured besides its output.
type sample struct {
	d      time.Duration
	cpu    time.Duration // user + system time (rusage)
	maxRSS int64         // peak resident set in KiB (rusage ru_maxrss)
	marks  []mark        // the resident set when each mark line arrived
	gc     *gcStats      // nil when the engine reported no collections
	gcErr  error         // why gc is nil although a report was there
}

// mark is the resident set sampled when the program printed a mark line.
type mark struct {
	name string // the line without markPrefix
	rss  int64  // KiB; -1 when the process was gone before it was read
}

// gcStats is what an engine reports of its collections. Pauses and
// totals are in milliseconds.
type gcStats struct {
	minor, full         int
	minorMs, minorMaxMs float64
	fullMs, fullMaxMs   float64
	survived            int64 // bytes that survived minor collections
}

// directives parses the "// bench:" lines of a program's source.
func directives(path string) (gc bool, skip []string, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return false, nil, err
	}
	for i, line := range strings.Split(string(src), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "// bench:")
		if !ok {
			continue
		}
		for _, w := range strings.Fields(rest) {
			switch {
			case w == directiveGC:
				gc = true
			case strings.HasPrefix(w, directiveSkip):
				for _, e := range strings.Split(strings.TrimPrefix(w, directiveSkip), ",") {
					if !contains(engineNames, e) {
						return false, nil, fmt.Errorf("%s:%d: bench directive %q: unknown engine %q", path, i+1, w, e)
					}
					skip = append(skip, e)
				}
			default:
				return false, nil, fmt.Errorf("%s:%d: unknown bench directive %q (want %s or %sENGINE,...)", path, i+1, w, directiveGC, directiveSkip)
			}
		}
	}
	return gc, skip, nil
}

// runOnce runs a program as a fresh process and returns what it measured
// and its output. A non-zero exit is a result, not an error. Each line of
// standard output that starts with markPrefix samples the child's
// resident set as it arrives.
func runOnce(spec runSpec, timeout time.Duration) (sample, result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var s sample
	var errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, spec.argv[0], spec.argv[1:]...)
	if len(spec.env) > 0 {
		cmd.Env = append(os.Environ(), spec.env...)
	}
	cmd.Stderr = &errOut
	r, w, err := outputPair(spec.pty)
	if err != nil {
		return s, result{}, err
	}
	defer r.Close()
	cmd.Stdout = w
	start := time.Now()
	err = cmd.Start()
	w.Close()
	if err != nil {
		return s, result{}, err
	}
	type read struct {
		out   string
		marks []mark
	}
	done := make(chan read)
	go func() {
		var rd read
		rd.out, rd.marks = readOutput(r, cmd.Process.Pid)
		done <- rd
	}()
	err = cmd.Wait()
	s.d = time.Since(start)
	rd := <-done
	s.marks = rd.marks
	res := result{stdout: rd.out, stderr: errOut.String()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.maxRSS = ru.Maxrss
		s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return s, res, fmt.Errorf("timed out after %v", timeout)
	case errors.As(err, &ee):
		res.exit = ee.ExitCode()
	case err != nil:
		return s, res, err
	}
	if spec.monoLog != "" {
		s.gc, s.gcErr = parseMonoLog(spec.monoLog)
		os.Remove(spec.monoLog)
	} else {
		s.gc, s.gcErr = parseMiniilGC(res.stderr)
	}
	return s, res, nil
}

// outputPair returns the two ends the child's standard output goes
// through: a pipe, or with pty a pseudo-terminal (master, slave) whose
// slave does no output processing, so that "\n" stays "\n".
func outputPair(pty bool) (r, w *os.File, err error) {
	if !pty {
		return os.Pipe()
	}
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("pseudo-terminal: %w", err)
	}
	var unlock int32
	var n uint32
	var t syscall.Termios
	err = ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock))
	if err == nil {
		err = ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n))
	}
	if err == nil {
		w, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	}
	if err == nil {
		err = ioctl(w, syscall.TCGETS, unsafe.Pointer(&t))
		t.Oflag &^= syscall.OPOST
		t.Lflag &^= syscall.ECHO | syscall.ICANON
		if err == nil {
			err = ioctl(w, syscall.TCSETS, unsafe.Pointer(&t))
		}
		if err != nil {
			w.Close()
		}
	}
	if err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("pseudo-terminal: %w", err)
	}
	return master, w, nil
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// readOutput reads the child's standard output to its end (EOF on a
// pipe, EIO on a pseudo-terminal whose slave is closed) and samples the
// resident set of process pid at every mark line: the median of
// markSamples reads over the markWindow after the line, while the program
// goes on (one read can catch the heap's top just past or before a
// 2 MiB transparent huge page, a swing of 10% of a small heap).
func readOutput(r io.Reader, pid int) (string, []mark) {
	var out strings.Builder
	var marks []mark
	var rss []chan int64
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if name, ok := strings.CutPrefix(line, markPrefix); ok && strings.HasSuffix(name, "\n") {
			marks = append(marks, mark{name: strings.TrimSuffix(name, "\n")})
			c := make(chan int64, 1)
			rss = append(rss, c)
			go func() { c <- sampleRSS(pid) }()
		}
		out.WriteString(line)
		if err != nil {
			for i, c := range rss {
				marks[i].rss = <-c
			}
			return out.String(), marks
		}
	}
}

// markSamples and markWindow say how a mark's resident set is sampled.
const (
	markSamples = 21
	markWindow  = 420 * time.Millisecond
)

// sampleRSS returns the median of the resident set samples of process
// pid over markWindow (-1 if none could be read).
func sampleRSS(pid int) int64 {
	var rs []int64
	for i := range markSamples {
		if i > 0 {
			time.Sleep(markWindow / markSamples)
		}
		if rss, err := readRSS(pid); err == nil {
			rs = append(rs, rss)
		}
	}
	if len(rs) == 0 {
		return -1
	}
	slices.Sort(rs)
	return rs[len(rs)/2]
}

// readRSS returns the resident set of a running process in KiB.
func readRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest) // "12345 kB"
			if len(f) == 2 && f[1] == "kB" {
				return strconv.ParseInt(f[0], 10, 64)
			}
			return 0, fmt.Errorf("unexpected VmRSS line %q", line)
		}
	}
	return 0, errors.New("no VmRSS: the process has exited")
}

// miniilGCPrefix starts the line miniil run -gc-stats prints on standard
// error when the run ends:
//
//	miniil gc: minor=N minor_ms=F minor_max_ms=F survived_bytes=N full=N full_ms=F full_max_ms=F peak_heap_bytes=N
const miniilGCPrefix = "miniil gc: "

// parseMiniilGC finds and parses the -gc-stats line in miniil's
// standard error; (nil, nil) when there is none.
func parseMiniilGC(stderr string) (*gcStats, error) {
	var line string
	for _, l := range strings.Split(stderr, "\n") {
		if rest, ok := strings.CutPrefix(l, miniilGCPrefix); ok {
			line = rest
		}
	}
	if line == "" {
		return nil, nil
	}
	kv := map[string]string{}
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("miniil -gc-stats: %q is not key=value", f)
		}
		kv[k] = v
	}
	var g gcStats
	var errs []error
	integer := func(k string) int64 {
		n, err := strconv.ParseInt(kv[k], 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("miniil -gc-stats: %s: %w", k, err))
		}
		return n
	}
	float := func(k string) float64 {
		f, err := strconv.ParseFloat(kv[k], 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("miniil -gc-stats: %s: %w", k, err))
		}
		return f
	}
	g.minor = int(integer("minor"))
	g.minorMs = float("minor_ms")
	g.minorMaxMs = float("minor_max_ms")
	g.survived = integer("survived_bytes")
	g.full = int(integer("full"))
	g.fullMs = float("full_ms")
	g.fullMaxMs = float("full_max_ms")
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &g, nil
}

// monoEnv is the environment that makes Mono log its collections to
// file.
func monoEnv(file string) []string {
	return []string{"MONO_LOG_LEVEL=debug", "MONO_LOG_MASK=gc", "MONO_LOG_DEST=" + file}
}

// monoGCLine matches the lines of Mono's (SGen's) log that end a
// collection, such as
//
//	Mono: GC_MINOR: (Nursery full) time 0.09ms, stw 0.09ms promoted 1K major size: ...
//	Mono: GC_MAJOR_CONCURRENT_FINISH: (finishing) time 13.26ms, stw 4.96ms los size: ...
//	Mono: GC_MAJOR: (user request) time 0.12ms, stw 1.58ms los size: ...
//
// The stw figure (stop the world) is the pause; the concurrent part of a
// major collection is not one.
var monoGCLine = regexp.MustCompile(`GC_(MINOR|MAJOR|MAJOR_CONCURRENT_FINISH): \(([^)]*)\) time ([0-9.]+)ms, stw ([0-9.]+)ms(?: promoted ([0-9]+)K)?`)

// monoExitReason is the reason Mono gives to the collection it makes
// when the program has ended (none of the programs calls GC.Collect):
// it is not a pause of the program, so it is left out.
const monoExitReason = "user request"

// parseMonoLog reads the collections out of a Mono GC log.
func parseMonoLog(file string) (*gcStats, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("mono GC log: %w", err)
	}
	return parseMonoGC(string(b))
}

func parseMonoGC(log string) (*gcStats, error) {
	var g gcStats
	for _, line := range strings.Split(log, "\n") {
		m := monoGCLine.FindStringSubmatch(line)
		if m == nil || m[2] == monoExitReason {
			continue
		}
		stw, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			return nil, fmt.Errorf("mono GC log: %q: %w", line, err)
		}
		if m[1] == "MINOR" {
			g.minor++
			g.minorMs += stw
			g.minorMaxMs = max(g.minorMaxMs, stw)
			if m[5] != "" {
				k, err := strconv.ParseInt(m[5], 10, 64)
				if err != nil {
					return nil, fmt.Errorf("mono GC log: %q: %w", line, err)
				}
				g.survived += k << 10
			}
			continue
		}
		g.full++
		g.fullMs += stw
		g.fullMaxMs = max(g.fullMaxMs, stw)
	}
	return &g, nil
}

// add records one run.
func (m *measure) add(s sample) {
	if m.runs == 0 || s.d < m.best {
		m.best = s.d
		m.bestSample = s
	}
	m.peakRSS = max(m.peakRSS, s.maxRSS)
	m.runs++
}

// gcReport prints the tables of the -gc mode: time, peak RSS and
// collections per program and engine, then the resident set at each
// mark.
func gcReport(w io.Writer, engines []string, progs []*bench, n int, notes []string) {
	fmt.Fprintf(w, "GC: time, peak RSS, longest pause (minor / full), per engine. Time: the best of %d runs, each a fresh process (start-up included); CPU: the user and system time of that run, all threads; peak RSS: the largest of the runs (rusage maxrss); collections: those of the fastest run (the least disturbed by other work).\n\n", n)
	fmt.Fprintln(w, "| program | engine | time | CPU | peak RSS | longest pause (minor / full) | collections (minor / full) | minor total | survived minors | minor ms per MiB survived | time / Mono | peak RSS / Mono |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, p := range progs {
		name := p.name
		if len(p.mismatch) > 0 {
			name += " **MISMATCH**"
		}
		mono := p.m["mono"]
		for _, e := range engines {
			m := p.m[e]
			if m == nil {
				fmt.Fprintf(w, "| %s | %s | skipped | | | | | | | | | |\n", name, e)
				continue
			}
			row := []string{name, e, fmtLong(m.best), fmtLong(m.bestSample.cpu), fmtKiB(m.peakRSS)}
			if g := m.bestSample.gc; g != nil {
				perMiB := "n/a (under 1 MiB survived)"
				if g.survived >= 1<<20 {
					perMiB = fmt.Sprintf("%.3f", g.minorMs/(float64(g.survived)/(1<<20)))
				}
				pause := func(ms float64, n int) string {
					if ms == 0 && n == 0 {
						return "none"
					}
					return fmtMs(ms)
				}
				row = append(row,
					pause(g.minorMaxMs, g.minor)+" / "+pause(g.fullMaxMs, g.full),
					fmt.Sprintf("%d / %d", g.minor, g.full),
					fmtMs(g.minorMs),
					fmtBytes(g.survived),
					perMiB)
			} else {
				why := "n/a"
				if err := m.bestSample.gcErr; err != nil {
					why = "n/a (" + err.Error() + ")"
				}
				row = append(row, why, why, why, why, why)
			}
			if e != "mono" && mono != nil {
				row = append(row,
					fmt.Sprintf("%.2f", float64(m.best)/float64(mono.best)),
					fmt.Sprintf("%.2f", float64(m.peakRSS)/float64(mono.peakRSS)))
			} else {
				row = append(row, "", "")
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Pauses: miniil's from `miniil run -gc-stats` (n/a before it has a collector, and always for the interpreter, whose objects are Go's); Mono's are the stw (stop-the-world) times of its log (MONO_LOG_LEVEL=debug MONO_LOG_MASK=gc), without the collection it makes at exit; full includes the finishing pause of concurrent major collections. Survived minors: the bytes minor collections kept (Mono: promoted). Ratios: engine / Mono, above 1 means more than Mono.")
	marksReport(w, engines, progs)
	for _, s := range notes {
		fmt.Fprintln(w, s)
	}
}

// marksReport prints the resident set at each mark of the programs that
// printed marks, from the fastest run of each engine.
func marksReport(w io.Writer, engines []string, progs []*bench) {
	var names []string
	for _, p := range progs {
		for _, m := range p.m {
			for _, k := range m.bestSample.marks {
				if !contains(names, k.name) {
					names = append(names, k.name)
				}
			}
		}
	}
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(w, "\nResident set when the program printed each mark line (fastest run; the median of %d samples over the %v after the line; flat RSS: within 10%% from the first mark to the last):\n\n", markSamples, markWindow)
	head := []string{"program", "engine"}
	for _, k := range names {
		head = append(head, "RSS at "+k)
	}
	head = append(head, "change")
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, p := range progs {
		for _, e := range engines {
			m := p.m[e]
			if m == nil || len(m.bestSample.marks) == 0 {
				continue
			}
			at := map[string]int64{}
			for _, k := range m.bestSample.marks {
				at[k.name] = k.rss
			}
			row := []string{p.name, e}
			for _, k := range names {
				switch rss, ok := at[k]; {
				case !ok:
					row = append(row, "")
				case rss < 0:
					row = append(row, "n/a (exited)")
				default:
					row = append(row, fmtKiB(rss))
				}
			}
			ks := m.bestSample.marks
			first, last := ks[0].rss, ks[len(ks)-1].rss
			if len(ks) > 1 && first > 0 && last > 0 {
				row = append(row, fmt.Sprintf("%+.1f%%", 100*(float64(last)/float64(first)-1)))
			} else {
				row = append(row, "n/a")
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
	}
}

// rssReport prints, for -rss, every engine's peak resident set per
// program.
func rssReport(w io.Writer, engines []string, progs []*bench) {
	fmt.Fprintln(w, "\nPeak resident set (the largest of the runs' rusage maxrss):")
	fmt.Fprintln(w)
	head := append([]string{"program"}, engines...)
	hasJM := contains(engines, "jit") && contains(engines, "mono")
	if hasJM {
		head = append(head, "jit / mono")
	}
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	for _, p := range progs {
		row := []string{p.name}
		for _, e := range engines {
			if m := p.m[e]; m != nil {
				row = append(row, fmtKiB(m.peakRSS))
			} else {
				row = append(row, "skipped")
			}
		}
		if hasJM {
			if j, m := p.m["jit"], p.m["mono"]; j != nil && m != nil && m.peakRSS > 0 {
				row = append(row, fmt.Sprintf("%.2f", float64(j.peakRSS)/float64(m.peakRSS)))
			} else {
				row = append(row, "n/a")
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
}

// fmtKiB prints a size given in KiB in MiB.
func fmtKiB(k int64) string { return fmt.Sprintf("%.1f MiB", float64(k)/1024) }

func fmtBytes(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func fmtMs(ms float64) string { return fmt.Sprintf("%.2f ms", ms) }

// fmtLong prints a duration as fmtDur does, in seconds from 10 s.
func fmtLong(d time.Duration) string {
	if d >= 10*time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmtDur(d)
}
