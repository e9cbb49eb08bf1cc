package fuzz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"miniil"
)

// Outcome is what one engine did with a program.
type Outcome struct {
	Engine    string // jit, interp or mono
	Stdout    string
	Exit      int
	Unhandled string // type of an unhandled exception (miniil engines), "stack overflow"
	Err       string // the run itself failed: "timeout", "internal error: ...", "ilasm: ..."
}

// key is what must agree between engines.
func (o *Outcome) key() string {
	return fmt.Sprintf("%s\x00%d\x00%s\x00%s", o.Stdout, o.Exit, o.Unhandled, errKind(o.Err))
}

func errKind(err string) string {
	k, _, _ := strings.Cut(err, ":")
	return k
}

// Report renders the outcome for a mismatch file.
func (o *Outcome) Report() string {
	var b strings.Builder
	b.WriteString(o.Stdout)
	if o.Stdout != "" && !strings.HasSuffix(o.Stdout, "\n") {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "exit=%d\n", o.Exit)
	if o.Unhandled != "" {
		fmt.Fprintf(&b, "unhandled=%s\n", o.Unhandled)
	}
	if o.Err != "" {
		fmt.Fprintf(&b, "error=%s\n", o.Err)
	}
	return b.String()
}

// Runner runs one program on every engine.
type Runner struct {
	Timeout time.Duration // per program and engine (default 10 s)
	Mono    bool          // also run under ilasm + mono
	Ilasm   string        // ilasm command (default "ilasm")
	MonoCmd string        // mono command (default "mono")
	// Exec, when set, is a miniil binary: the JIT and the interpreter
	// then run in a child process ("miniil run"), so that an engine
	// crash (a fault in generated code) is reported instead of killing
	// the fuzzer. Empty: run in this process through the API.
	Exec string
	// Perturb, when set, may alter an engine's outcome before the
	// comparison: a test hook that simulates an engine bug.
	Perturb func(o *Outcome)
	// NoInterp leaves the interpreter out: the JIT alone, or against
	// Mono (for features the interpreter does not run yet).
	NoInterp bool
	// VerifyGC runs the JIT with its GC information checked at every
	// exit (miniil.Config.VerifyGC): a failed check is an internal
	// error, so a mismatch.
	VerifyGC bool
	// GCStress and Nursery, when not 0, are passed to the JIT's child
	// runs as "miniil run -gcstress=N -nursery=BYTES": a collection at
	// every GCStress-th safepoint, a young generation of Nursery bytes
	// (the interpreter has no collector). They need Exec: runs in this
	// process ignore them.
	GCStress int
	Nursery  int64
}

// LoadError reports a generated program that miniil rejects.
type LoadError struct{ Err error }

func (e *LoadError) Error() string { return "program does not load: " + e.Err.Error() }

// Run loads src and runs it on the JIT, the interpreter (unless
// NoInterp) and, with Mono set, under ilasm+mono. It fails only when the
// program does not load.
func (r *Runner) Run(src string) ([]Outcome, error) {
	prog, err := miniil.Load("fuzz.il", []byte(src))
	if err != nil {
		return nil, &LoadError{err}
	}
	var outs []Outcome
	if r.Exec != "" {
		dir, err := os.MkdirTemp("", "miniil-fuzz")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "prog.il")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			return nil, err
		}
		outs = []Outcome{r.runExec(path, miniil.JIT)}
		if !r.NoInterp {
			outs = append(outs, r.runExec(path, miniil.Interp))
		}
	} else {
		outs = []Outcome{r.runMiniil(prog, miniil.JIT)}
		if !r.NoInterp {
			outs = append(outs, r.runMiniil(prog, miniil.Interp))
		}
	}
	if r.Mono {
		outs = append(outs, r.runMono(src))
	}
	if r.Perturb != nil {
		for i := range outs {
			r.Perturb(&outs[i])
		}
	}
	return outs, nil
}

func (r *Runner) timeout() time.Duration {
	if r.Timeout <= 0 {
		return 10 * time.Second
	}
	return r.Timeout
}

func (r *Runner) runMiniil(prog *miniil.Program, eng miniil.Engine) Outcome {
	o := Outcome{Engine: eng.String()}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout())
	defer cancel()
	var out bytes.Buffer
	code, err := prog.Run(ctx, miniil.Config{Engine: eng, Stdout: &out, Validate: true, VerifyGC: r.VerifyGC,
		GCStress: r.GCStress, NurseryBytes: r.Nursery})
	o.Stdout, o.Exit = out.String(), code
	var me *miniil.ManagedException
	var so *miniil.StackOverflowError
	var ie *miniil.InternalError
	switch {
	case err == nil:
	case errors.As(err, &me):
		o.Unhandled = me.Type
	case errors.As(err, &so):
		o.Unhandled = "stack overflow"
	case errors.Is(err, context.DeadlineExceeded):
		o.Err = "timeout"
	case errors.As(err, &ie):
		o.Err = "internal error: " + fmt.Sprint(ie.Value)
	default:
		o.Err = "error: " + err.Error()
	}
	return o
}

// runExec runs "miniil run" on path in a child process.
func (r *Runner) runExec(path string, eng miniil.Engine) Outcome {
	o := Outcome{Engine: eng.String()}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout()+10*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, r.Exec, r.runArgs(path, eng)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	o.Stdout = stdout.String()
	errText := stderr.String()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		o.Err = "timeout: killed"
		return o
	case err == nil:
		return o
	case errors.As(err, &ee):
		o.Exit = ee.ExitCode()
	default:
		o.Err = "error: " + err.Error()
		return o
	}
	first, _, _ := strings.Cut(errText, "\n")
	switch {
	case strings.HasPrefix(errText, "Unhandled exception. "):
		t, _, _ := strings.Cut(strings.TrimPrefix(first, "Unhandled exception. "), ":")
		o.Unhandled = t
	case strings.HasPrefix(errText, "Stack overflow."):
		o.Unhandled = "stack overflow"
	case strings.Contains(first, "time limit"):
		o.Err = "timeout"
	case strings.Contains(errText, "internal error"):
		o.Err = "internal error: " + first
	case errText == "":
		// the program's own exit code
	case strings.Contains(errText, "fatal error") || strings.Contains(errText, "SIGSEGV") || strings.Contains(errText, "panic:"):
		o.Err = "crash: " + lastLines(crashSummary(errText), 3)
	case errText != "":
		o.Err = "error: " + first
	}
	return o
}

// runArgs returns the arguments of the child "miniil run" of engine eng
// on path.
func (r *Runner) runArgs(path string, eng miniil.Engine) []string {
	// -validate: the JIT checks its work after every compile phase.
	args := []string{"run", "-validate", "-engine=" + eng.String(), fmt.Sprintf("-timeout=%v", r.timeout())}
	if r.VerifyGC {
		args = append(args, "-verify-gc")
	}
	if eng == miniil.JIT {
		if r.GCStress != 0 {
			args = append(args, fmt.Sprintf("-gcstress=%d", r.GCStress))
		}
		if r.Nursery != 0 {
			args = append(args, fmt.Sprintf("-nursery=%d", r.Nursery))
		}
	}
	return append(args, path)
}

// crashSummary keeps the informative lines of a Go runtime crash report.
func crashSummary(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "fatal error") || strings.HasPrefix(l, "unexpected fault") ||
			strings.HasPrefix(l, "[signal") || strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "SIG") {
			keep = append(keep, l)
		}
	}
	if len(keep) == 0 {
		return s
	}
	return strings.Join(keep, "\n")
}

func (r *Runner) runMono(src string) Outcome {
	o := Outcome{Engine: "mono"}
	dir, err := os.MkdirTemp("", "miniil-fuzz-mono")
	if err != nil {
		o.Err = "mono: " + err.Error()
		return o
	}
	defer os.RemoveAll(dir)
	il, exe := filepath.Join(dir, "prog.il"), filepath.Join(dir, "prog.exe")
	if err := os.WriteFile(il, []byte(src), 0o644); err != nil {
		o.Err = "mono: " + err.Error()
		return o
	}
	ilasm, mono := r.Ilasm, r.MonoCmd
	if ilasm == "" {
		ilasm = "ilasm"
	}
	if mono == "" {
		mono = "mono"
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout()+20*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, ilasm, il, "-output:"+exe).CombinedOutput(); err != nil {
		o.Err = fmt.Sprintf("ilasm: %v: %s", err, lastLines(string(out), 5))
		return o
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), r.timeout())
	defer cancel2()
	var stdout bytes.Buffer
	cmd := exec.CommandContext(ctx2, mono, exe)
	cmd.Stdout = &stdout
	cmd.Stderr = io.Discard
	err = cmd.Run()
	o.Stdout = stdout.String()
	var ee *exec.ExitError
	switch {
	case ctx2.Err() != nil:
		o.Err = "timeout"
	case errors.As(err, &ee):
		o.Exit = ee.ExitCode()
	case err != nil:
		o.Err = "mono: " + err.Error()
	}
	return o
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " | ")
}

// Mismatch reports whether the outcomes disagree (or a run failed), with
// a one-line description.
func Mismatch(outs []Outcome) (bool, string) {
	for _, o := range outs {
		if o.Err != "" {
			return true, fmt.Sprintf("%s failed: %s", o.Engine, o.Err)
		}
	}
	for _, o := range outs[1:] {
		if o.key() != outs[0].key() {
			return true, fmt.Sprintf("%s and %s differ: %s", outs[0].Engine, o.Engine, firstDiff(&outs[0], &o))
		}
	}
	return false, ""
}

func firstDiff(a, b *Outcome) string {
	al, bl := strings.Split(a.Stdout, "\n"), strings.Split(b.Stdout, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y || i >= len(al) || i >= len(bl) {
			return fmt.Sprintf("stdout line %d: %q vs %q", i+1, x, y)
		}
	}
	if a.Exit != b.Exit {
		return fmt.Sprintf("exit %d vs %d", a.Exit, b.Exit)
	}
	return fmt.Sprintf("unhandled %q vs %q", a.Unhandled, b.Unhandled)
}

// PerturbToken returns a Perturb hook that appends a line to engine's
// output whenever that output contains token.
func PerturbToken(engine, token string) func(*Outcome) {
	return func(o *Outcome) {
		if o.Engine == engine && strings.Contains(o.Stdout, token) {
			o.Stdout += "perturbed\n"
		}
	}
}

// Campaign configures a run over many seeds.
type Campaign struct {
	N        int     // programs
	Seed     uint64  // first seed; programs use Seed, Seed+1, ...
	Opts     Options // generator options
	Runner   *Runner
	OutDir   string    // mismatches are saved under OutDir/seed-S (default "fuzz-mismatches")
	Workers  int       // parallel programs (default GOMAXPROCS)
	Progress io.Writer // progress and mismatch lines (nil: none)
}

// Summary is a campaign's result.
type Summary struct {
	Programs   int
	Mismatches int
	Dirs       []string // saved mismatch directories, by seed
	Wall, CPU  time.Duration
}

type result struct {
	seed     uint64
	src      string
	outs     []Outcome
	mismatch bool
	desc     string
}

// Run runs the campaign.
func (c *Campaign) Run() Summary {
	start := time.Now()
	cpu0 := cpuTime()
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if c.OutDir == "" {
		c.OutDir = "fuzz-mismatches"
	}
	seeds := make(chan uint64)
	results := make(chan result)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range seeds {
				results <- c.one(s)
			}
		}()
	}
	go func() {
		for i := 0; i < c.N; i++ {
			seeds <- c.Seed + uint64(i)
		}
		close(seeds)
		wg.Wait()
		close(results)
	}()
	var sum Summary
	step := c.N / 10
	if step == 0 {
		step = 1
	}
	for res := range results {
		sum.Programs++
		if res.mismatch {
			sum.Mismatches++
			dir := c.save(res)
			sum.Dirs = append(sum.Dirs, dir)
			c.logf("mismatch: seed %d: %s (saved in %s)\n", res.seed, res.desc, dir)
		}
		if sum.Programs%step == 0 || sum.Programs == c.N {
			c.logf("%d/%d programs, %d mismatches\n", sum.Programs, c.N, sum.Mismatches)
		}
	}
	sum.Wall = time.Since(start)
	sum.CPU = cpuTime() - cpu0
	return sum
}

func (c *Campaign) logf(format string, args ...any) {
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, format, args...)
	}
}

func (c *Campaign) one(seed uint64) result {
	src := GenerateIL(seed, c.Opts)
	res := result{seed: seed, src: src}
	outs, err := c.Runner.Run(src)
	if err != nil {
		res.mismatch, res.desc = true, err.Error()
		return res
	}
	res.outs = outs
	res.mismatch, res.desc = Mismatch(outs)
	return res
}

func (c *Campaign) save(res result) string {
	dir := filepath.Join(c.OutDir, fmt.Sprintf("seed-%d", res.seed))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.logf("cannot save mismatch: %v\n", err)
		return dir
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			c.logf("cannot save mismatch: %v\n", err)
		}
	}
	write("prog.il", res.src)
	write("mismatch.txt", res.desc+"\n")
	for _, o := range res.outs {
		write(o.Engine+".out", o.Report())
	}
	return dir
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	var total time.Duration
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total
}
