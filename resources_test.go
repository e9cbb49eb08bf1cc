package miniil_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"miniil"
	"miniil/fuzz"
	"miniil/il"
)

// rlimitChildEnv makes the test binary run rlimitChild instead of the test.
const rlimitChildEnv = "MINIIL_TEST_RLIMIT_CHILD"

// rlimitReport is what the child process reports.
type rlimitReport struct {
	Start, End int64          // mapped bytes before the failing runs and after lifting the limit
	Failures   int            // runs that failed
	Stages     map[string]int // failures by what could not be mapped
	Bad        []string       // failures that were not clean errors
	Succeeded  int            // runs that fit under the limit
}

// TestMappingFailuresLeakNothing runs programs in a child process under
// RLIMIT_AS with less address space than a run needs, so that mapping
// fails at every step of setting up the JIT runtime in turn. Every failure
// must be a clean error naming what could not be mapped (not an
// InternalError), and once the limit is lifted the process must map as
// much as before the failing runs: nothing leaked.
func TestMappingFailuresLeakNothing(t *testing.T) {
	if os.Getenv(rlimitChildEnv) == "1" {
		rlimitChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMappingFailuresLeakNothing$", "-test.count=1")
	cmd.Env = append(os.Environ(), rlimitChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	var rep *rlimitReport
	for _, line := range strings.Split(string(out), "\n") {
		if js, ok := strings.CutPrefix(line, "RLIMIT-REPORT "); ok {
			rep = new(rlimitReport)
			if err := json.Unmarshal([]byte(js), rep); err != nil {
				t.Fatalf("bad report %q: %v", js, err)
			}
		}
	}
	if rep == nil {
		t.Fatalf("the child reported nothing (%v):\n%s", err, out)
	}
	t.Logf("%d failing runs (by stage %v), %d runs fitted; mapped %d bytes before, %d after",
		rep.Failures, rep.Stages, rep.Succeeded, rep.Start, rep.End)
	for _, b := range rep.Bad {
		t.Errorf("unclean failure: %s", b)
	}
	for _, stage := range []string{"code heap", "native stack", "managed heap", "type metadata"} {
		if rep.Stages[stage] == 0 {
			t.Errorf("no run failed mapping the %s", stage)
		}
	}
	if rep.Failures < 50 {
		t.Errorf("only %d runs failed", rep.Failures)
	}
	// The Go runtime may map some memory of its own meanwhile (allocator
	// metadata, seen up to 264 KiB); a leak would be tens of megabytes:
	// at least the 1 MiB code heap of each of the dozens of runs failing
	// at any one step.
	if d := rep.End - rep.Start; d < 0 || d > 4<<20 {
		t.Errorf("mapped %d bytes before the failing runs, %d after: %+d leaked", rep.Start, rep.End, d)
	}
}

// rlimitChild runs the failing runs and prints an RLIMIT-REPORT line.
func rlimitChild() {
	rep := &rlimitReport{Stages: map[string]int{}}
	fail := func(err error) {
		fmt.Println("RLIMIT-CHILD-ERROR", err)
		os.Exit(1)
	}
	prog, err := miniil.Load("fib.il", []byte(fibProgram))
	if err != nil {
		fail(err)
	}
	const maxHeap = 16 << 20
	// A depth limit whose native stack is the 8 MiB minimum.
	cfg := miniil.Config{Engine: miniil.JIT, MaxHeap: maxHeap, MaxCallDepth: 10_000}
	// Warm up, and leave the Go heap room to work in without mapping more.
	var out bytes.Buffer
	if _, err := prog.Run(context.Background(), miniil.Config{Engine: miniil.JIT, Stdout: &out}); err != nil {
		fail(err)
	}
	ballast := make([]byte, 64<<20)
	ballast[len(ballast)-1] = 1
	ballast = nil
	runtime.GC()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &lim); err != nil {
		fail(err)
	}
	rep.Start = mappedBytes()
	// A run maps about 1 MiB of code heap, 8 MiB of stack, the heap (twice
	// the limit, 16 MiB of slack, the nursery's two 4 MiB halves, the
	// collector's tables) and under 1 MiB of metadata: allow less and less
	// headroom so that each step fails in turn.
	for headroom := int64(2*maxHeap + 40<<20); headroom >= 0; headroom -= 64 << 10 {
		runtime.GC() // reuse the Go heap's memory rather than grow it
		tight := lim
		tight.Cur = uint64(mappedBytes() + headroom)
		if err := unix.Setrlimit(unix.RLIMIT_AS, &tight); err != nil {
			fail(err)
		}
		var errs [3]error
		_, errs[0] = prog.Run(context.Background(), cfg)
		_, errs[1] = prog.Call(context.Background(), cfg, "Fib", 10)
		errs[2] = prog.Dump(&out, miniil.StageAsm, "Fib")
		if err := unix.Setrlimit(unix.RLIMIT_AS, &lim); err != nil {
			fail(err)
		}
		for _, err := range errs {
			if err == nil {
				rep.Succeeded++
				continue
			}
			rep.Failures++
			var ie *miniil.InternalError
			stage := ""
			for _, s := range []string{"code heap", "native stack", "managed heap", "type metadata"} {
				if strings.Contains(err.Error(), s) {
					stage = s
				}
			}
			if errors.As(err, &ie) || stage == "" || !errors.Is(err, unix.ENOMEM) || miniil.ExitCode(err) != miniil.ExitFailure {
				rep.Bad = append(rep.Bad, err.Error())
				continue
			}
			rep.Stages[stage]++
		}
		out.Reset()
	}
	rep.End = mappedBytes()
	js, err := json.Marshal(rep)
	if err != nil {
		fail(err)
	}
	fmt.Println("RLIMIT-REPORT " + string(js))
}

// mappedBytes returns the total size of the process's mappings.
func mappedBytes() int64 {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	var total int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		r, _, _ := strings.Cut(sc.Text(), " ")
		lo, hi, _ := strings.Cut(r, "-")
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil {
			panic(fmt.Sprintf("bad /proc/self/maps line %q", sc.Text()))
		}
		total += int64(b - a)
	}
	return total
}

const fibProgram = `.assembly fib {}
.method public static int32 Fib(int32 n) cil managed {
  .maxstack 3
  ldarg.0 ldc.i4.2 bge.s Recurse
  ldarg.0 ret
Recurse:
  ldarg.0 ldc.i4.1 sub call int32 Fib(int32)
  ldarg.0 ldc.i4.2 sub call int32 Fib(int32)
  add ret
}
.method public static void main() cil managed {
  .entrypoint
  .maxstack 1
  ldc.i4.s 20 call int32 Fib(int32)
  call void [mscorlib]System.Console::WriteLine(int32)
  ret
}`

// jitCollects says whether the JIT follows the heap limit's rule (an
// allocation fails when the bytes of the objects reachable plus its own
// pass the limit), as the interpreter does. Until the collector (branch
// gc) is merged, the JIT counts every allocation: the heap limit tests
// run the interpreter alone and skip their JIT rows. Merging gc makes it
// true (then delete it).
const jitCollects = true

// heapEngines returns the engines the heap limit tests run: the JIT
// first, when it collects.
func heapEngines() []miniil.Engine {
	if !jitCollects {
		return []miniil.Engine{miniil.Interp}
	}
	return []miniil.Engine{miniil.JIT, miniil.Interp}
}

// runBoth calls method on both engines (heapEngines) with the given heap
// limit and returns the result, output and error; the engines must
// agree.
func runBoth(t *testing.T, p *miniil.Program, maxHeap int64, method string, args ...any) (any, string, error) {
	t.Helper()
	return runOn(t, heapEngines(), p, maxHeap, method, args...)
}

// runOn is runBoth on the given engines (the JIT first).
func runOn(t *testing.T, engines []miniil.Engine, p *miniil.Program, maxHeap int64, method string, args ...any) (any, string, error) {
	t.Helper()
	type outcome struct {
		res any
		out string
		err string
	}
	var got []outcome
	var errFirst error
	for i, eng := range engines {
		var out bytes.Buffer
		res, err := p.Call(context.Background(), miniil.Config{Engine: eng, Stdout: &out, MaxHeap: maxHeap}, method, args...)
		got = append(got, outcome{res, out.String(), fmt.Sprint(err)})
		if i == 0 {
			errFirst = err
		}
	}
	if len(got) == 2 && got[0] != got[1] {
		t.Fatalf("%s%v with a heap limit of %d: the engines disagree\n--- jit: %v, %v\n%s--- interp: %v, %v\n%s",
			method, args, maxHeap, got[0].res, got[0].err, got[0].out, got[1].res, got[1].err, got[1].out)
	}
	return got[0].res, got[0].out, errFirst
}

const oomMessage = "Exception of type 'System.OutOfMemoryException' was thrown."

// TestOutOfMemorySameOnBothEngines exhausts small heaps with every kind of
// allocation. Both engines must throw System.OutOfMemoryException at the
// same allocation (the programs count and print what succeeded), into
// the program, where it can be caught.
func TestOutOfMemorySameOnBothEngines(t *testing.T) {
	p, err := miniil.LoadFile("testdata/oom.il")
	if err != nil {
		t.Fatal(err)
	}
	// Allocation loops: arrays, objects, boxes, strings, ToString of
	// boxes, Console.WriteLine(object).
	for kind := int32(0); kind < 6; kind++ {
		for _, heap := range []int64{4 << 10, 64<<10 + 8, 1<<20 + 40} {
			res, out, err := runBoth(t, p, heap, "Count", kind)
			if err != nil || res.(int32) <= 0 || !strings.HasSuffix(out, oomMessage+"\n") {
				t.Errorf("Count(%d) with a heap limit of %d: %v, %v, output ending %q", kind, heap, res, err, out[max(0, len(out)-80):])
			}
		}
	}
	// Exact counts, from the sizes of what each step keeps: an
	// object[100], a Node, a box and its Cell.
	node := il.ObjectSize(2)
	for _, tt := range []struct {
		kind int32
		heap int64
		size int64
	}{{0, 64 << 10, il.ArraySize(il.Object, 100)}, {1, 64 << 10, node}, {2, 4096, il.BoxSize + node}} {
		want := int32(tt.heap / tt.size)
		if res, _, _ := runBoth(t, p, tt.heap, "Count", tt.kind); res != want {
			t.Errorf("Count(%d) with a heap limit of %d = %v, want %d", tt.kind, tt.heap, res, want)
		}
	}
	// A full heap, with every possible remainder, then one of each
	// allocating operation (implicit exceptions, messages, strings...).
	for heap := int64(4096); heap <= 4096+160; heap += 8 {
		for _, n := range []int32{16, 23, 100, 150} {
			_, out, err := runBoth(t, p, heap, "Actions", n)
			if err != nil || strings.Count(out, "\n") != 12 {
				t.Fatalf("Actions(%d) with a heap limit of %d: %v\n%s", n, heap, err, out)
			}
		}
	}
	// Uncaught, it ends the run like any exception.
	_, _, err = runBoth(t, p, 4096, "Unhandled")
	var me *miniil.ManagedException
	if !errors.As(err, &me) || me.Type != "System.OutOfMemoryException" || me.Message != oomMessage || miniil.ExitCode(err) != 134 {
		t.Errorf("unhandled: %v", err)
	}
}

// TestArrayLimits runs every allocating action with room in the heap:
// among them newarr's limits, CoreCLR's Array.MaxLength and 32-bit
// lengths.
func TestArrayLimits(t *testing.T) {
	p, err := miniil.LoadFile("testdata/oom.il")
	if err != nil {
		t.Fatal(err)
	}
	_, out, err := runBoth(t, p, 1<<20, "Actions", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := `ok
ok
NRE: Object reference not set to an instance of an object.
ICE: Unable to cast object of type 'Node' to type 'System.String'.
ok
ok
ok
OVF: Arithmetic operation resulted in an overflow.
OOM new: Array dimensions exceeded supported range.
OVF: Array dimensions exceeded supported range.
ok
ICE: Unable to cast object of type 'System.Int32' to type 'System.Int64'.
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// badMessage's Message throws: Exception.ToString, reached through a
// virtual call to a base library method, must let the exception reach
// the caller's handler.
const badMessage = `.assembly t {}
.class public Bad extends [mscorlib]System.Exception {
  .method public specialname rtspecialname instance void .ctor() cil managed {
    .maxstack 1
    ldarg.0 call instance void [mscorlib]System.Exception::.ctor() ret
  }
  .method public virtual instance string get_Message() cil managed {
    .maxstack 1
    ldstr "from get_Message"
    newobj instance void [mscorlib]System.InvalidOperationException::.ctor(string)
    throw
  }
}
.method public static void main() cil managed {
  .entrypoint
  .maxstack 2
  .try {
    newobj instance void Bad::.ctor()
    callvirt instance string [mscorlib]System.Object::ToString()
    call void [mscorlib]System.Console::WriteLine(string)
    leave.s Done
  } catch [mscorlib]System.InvalidOperationException {
    callvirt instance string [mscorlib]System.Exception::get_Message()
    call void [mscorlib]System.Console::WriteLine(string)
    leave.s Done
  }
Done: ret
}`

func TestThrowThroughVirtualBuiltin(t *testing.T) {
	p, err := miniil.Load("bad.il", []byte(badMessage))
	if err != nil {
		t.Fatal(err)
	}
	if _, out, err := runOn(t, []miniil.Engine{miniil.JIT, miniil.Interp}, p, 0, "main"); err != nil || out != "from get_Message\n" {
		t.Errorf("got %q, %v; want the handler's output (as CoreCLR)", out, err)
	}
}

// TestSmallHeapsAgree runs the corpus and generated programs under heap
// limits small enough that many of them run out, on both engines: the
// outputs, exit codes and errors must be the same (so each engine
// allocates the same bytes in the same order, and throws at the same
// point).
func TestSmallHeapsAgree(t *testing.T) {
	files, err := filepath.Glob("tests/corpus/*.il")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	type prog struct {
		name string
		src  []byte
	}
	var progs []prog
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		progs = append(progs, prog{f, src})
	}
	opts, err := fuzz.SizeOptions("medium")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 40; seed++ {
		progs = append(progs, prog{fmt.Sprintf("fuzz seed %d", seed), []byte(fuzz.GenerateIL(seed, opts))})
	}
	affected := 0 // programs whose behavior depends on the limit
	for _, pr := range progs {
		p, err := miniil.Load(pr.name, pr.src)
		if err != nil {
			t.Fatalf("%s: %v", pr.name, err)
		}
		seen := map[string]bool{}
		for _, heap := range []int64{256, 4 << 10, 64 << 10, 1 << 20} {
			var outs []string
			for _, eng := range heapEngines() {
				var out bytes.Buffer
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				code, err := p.Run(ctx, miniil.Config{Engine: eng, Stdout: &out, MaxHeap: heap})
				cancel()
				outs = append(outs, fmt.Sprintf("%s\nexit=%d error=%v", out.String(), code, err))
			}
			if len(outs) == 2 && outs[0] != outs[1] {
				t.Errorf("%s with a heap limit of %d: the engines disagree\n--- jit\n%s\n--- interp\n%s", pr.name, heap, outs[0], outs[1])
			}
			seen[outs[0]] = true
		}
		if len(seen) > 1 {
			affected++
		}
	}
	t.Logf("%d programs, %d of them behave differently under different limits", len(progs), affected)
	// Many corpus programs allocate almost nothing (most of the EH ones
	// throw a few small exceptions): a fifth is what must reach a limit.
	if affected < len(progs)/5 {
		t.Errorf("only %d of %d programs depend on the heap limit", affected, len(progs))
	}
}

// residentBytes returns the process's resident set size.
func residentBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// TestRunsGiveMemoryBack runs a program that keeps tens of megabytes live
// at once, several times in one process (as an embedder does): every
// run's heap, nursery and collector tables must be given back, so the
// address space mapped and the resident set return to where they were.
func TestRunsGiveMemoryBack(t *testing.T) {
	const src = `.assembly t {}
.method public static void main() cil managed {
  .entrypoint .maxstack 3 .locals init (object[] keep, object[] n, int32 i)
L: ldloc i ldc.i4 40000 bge Done
  ldc.i4 128 newarr [mscorlib]System.Object stloc n
  ldloc n ldc.i4.0 ldloc keep stelem.ref
  ldloc n stloc keep
  ldloc i ldc.i4 10000 rem brtrue Next
  ldnull stloc keep
Next: ldloc i ldc.i4.1 add stloc i br L
Done: ret
}`
	prog, err := miniil.Load("keep.il", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	run := func() string {
		var stats bytes.Buffer
		if _, err := prog.Run(context.Background(), miniil.Config{Engine: miniil.JIT, GCStats: &stats}); err != nil {
			t.Fatal(err)
		}
		return stats.String()
	}
	first := run() // warm up: code and Go heap settle
	runtime.GC()
	mapped, rss := mappedBytes(), residentBytes(t)
	for range 4 {
		run()
	}
	runtime.GC()
	if d := mappedBytes() - mapped; d > 4<<20 {
		t.Errorf("after 4 runs the process maps %+d bytes more than after the first", d)
	}
	// Each run peaks at about 10 MiB live (10,000 arrays of 1,040
	// bytes): 4 runs holding on to their memory would add 40 MiB or more.
	if d := residentBytes(t) - rss; d > 8<<20 {
		t.Errorf("after 4 runs the resident set is %+d bytes larger than after the first", d)
	}
	if !strings.Contains(first, "minor=") || strings.Contains(first, "minor=0 ") {
		t.Errorf("the program made no nursery collection: %s", first)
	}
}

// TestCallArgumentsSurviveCollections calls a method with a string
// argument, which the runtime holds during the call (a root of every
// collection meanwhile), while the method makes garbage near a small heap
// limit, with and without collections at every safepoint: the argument
// must come through every move intact.
func TestCallArgumentsSurviveCollections(t *testing.T) {
	const src = `.assembly t {}
.method public static int32 F(string s) cil managed {
  .maxstack 3 .locals init (int32 i, string t)
L: ldloc i ldc.i4 3000 bge Done
  ldarg.0 ldstr "-" call string [mscorlib]System.String::Concat(string, string) stloc t
  ldloc i ldc.i4.1 add stloc i br L
Done: ldloc t callvirt instance int32 [mscorlib]System.String::get_Length() ret
}
.method public static void main() cil managed { .entrypoint ret }`
	prog, err := miniil.Load("call.il", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	arg := strings.Repeat("x", 500)
	for _, cfg := range []miniil.Config{
		{Engine: miniil.JIT, MaxHeap: 8 << 10, NurseryBytes: 4 << 10, GCStress: 1},
		{Engine: miniil.JIT, MaxHeap: 8 << 10, NurseryBytes: 4 << 10},
		{Engine: miniil.Interp, MaxHeap: 8 << 10},
	} {
		res, err := prog.Call(context.Background(), cfg, "F", arg)
		if err != nil || fmt.Sprint(res) != fmt.Sprint(len(arg)+1) {
			t.Errorf("%v (stress %d): F = %v, %v; want %d", cfg.Engine, cfg.GCStress, res, err, len(arg)+1)
		}
	}
}
