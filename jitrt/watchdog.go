//go:build linux && amd64

package jitrt

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The watchdog makes running native code reach a preemption point on its
// own. A goroutine in native code cannot be preempted by Go: the
// scheduler's signal finds a PC it does not know and leaves it alone, and
// a stop-the-world waits for it forever. So native code polls: every loop
// back edge tests CtxPoll and every prolog's stack check compares against
// CtxStackLimit, and the poll exit is where Go gets the goroutine back.
// Someone must arm those polls, and it cannot be a goroutine: with every P
// busy in native code, or the world stopping, no goroutine runs (a ticker
// goroutine froze `GOMAXPROCS=1 miniil run` on `L: br.s L` forever).
//
// It is instead a thread of the process that the Go runtime does not
// manage: cloned once by cloneWatchdog (watchdog_amd64.s), with every
// signal blocked, running a loop of machine code that only makes system
// calls and stores to registered context blocks. While a top-level Call
// runs, its Machine's context is registered; every PollInterval the thread
// asks each registered Machine to poll (CtxPollReq = 1, CtxStackLimit =
// all ones, CtxPoll = 0). When nothing is registered it sleeps on a futex
// and costs nothing. Polls in JIT code stay a compare with memory, with no
// read-modify-write chain: a budget counter decremented on back edges and
// prologs, the other design, cost 10-95% on the compute benchmarks.

// PollInterval is how often the watchdog looks at running native code: the
// bound on how long native code runs, after Go asks for its goroutine (for
// a garbage collection, a stack scan or the scheduler's time slice),
// before Go gets it, plus one loop iteration or one call. Native code is
// also asked to poll every wdEvery intervals (10 ms) whatever Go wants, to
// see a cancelled context or a time limit. Polls that nobody asked for
// cost the code after them: on this machine a poll every 500 µs slowed a
// virtual-call loop by 11% (the branch predictors after a trip through
// Go), one every 10 ms by nothing measurable.
//
// The environment variable MINIIL_POLL_INTERVAL, read when the first
// Machine is created, overrides it with a Go duration ("1ms"), or with
// "off" to never ask: a diagnostic for measuring what polls cost, which
// makes spinning code impossible to stop.
const PollInterval = 500 * time.Microsecond

// pollInterval returns the watchdog's interval: PollInterval unless the
// environment says otherwise (0: never poll).
func pollInterval() (time.Duration, error) {
	v, ok := os.LookupEnv("MINIIL_POLL_INTERVAL")
	if !ok {
		return PollInterval, nil
	}
	if v == "off" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("jitrt: MINIIL_POLL_INTERVAL=%q is not a positive duration or \"off\"", v)
	}
	return d, nil
}

// Layout of the watchdog's data block (byte offsets; shared with
// watchdog_amd64.s through go_asm.h).
const (
	wdActive   = 0x00 // uint32: registered contexts (the futex word)
	wdScanning = 0x04 // uint32: 1 while the thread stores to contexts
	wdHigh     = 0x08 // uint32: slots in use are below this index
	wdTicks    = 0x10 // uint64: completed scans
	wdInterval = 0x20 // struct timespec: the sleep between scans
	wdSched    = 0x30 // struct sched_attr: the thread's scheduling (a short slice)
	wdSlots    = 0x80 // [wdMaxSlots]{ctx, g uintptr}: context (0 = free) and its goroutine

	wdMaxSlots  = 4088 // fills the 64 KiB block
	wdDataBytes = 64 << 10
	wdStack     = 16 << 10 // the thread's stack (system calls only)
)

// schedAttr is Linux's struct sched_attr (version 1).
type schedAttr struct {
	size, policy              uint32
	flags                     uint64
	nice                      int32
	priority                  uint32
	runtime, deadline, period uint64
	utilMin, utilMax          uint32
}

// The watchdog reads two words of Go's runtime: the goroutine running a
// Machine (getg) and that goroutine's g.stackguard0, which Go sets to
// stackPreempt when it wants the goroutine to stop at its next function
// prolog (every Go prolog compares SP with it at this offset: it is part
// of the compiler's ABI, checked by TestGoroutineLayout).
const (
	gStackguard0 = 0x10
	stackPreempt = 0xfffffffffffffade // -1314: runtime.stackPreempt
)

// futexWakePrivate is FUTEX_WAKE|FUTEX_PRIVATE_FLAG (x/sys/unix names
// neither).
const futexWakePrivate = 1 | 128

// wdEvery is how many ticks go by between polls that Go did not ask for:
// a cancelled context or a time limit is seen within wdEvery*PollInterval.
const wdEvery = 20

// getg returns the calling goroutine's g (watchdog_amd64.s).
func getg() unsafe.Pointer

// cloneWatchdog starts the watchdog thread (see watchdog_amd64.s) and
// returns its thread id or -errno.
//
//go:noescape
func cloneWatchdog(data, stackTop uintptr) int64

// watchdogLoop is the thread's body; never called from Go.
func watchdogLoop()

// watchdog is the process's one watchdog thread and its registry of
// context blocks. Its memory is mapped once and never unmapped: the thread
// lives as long as the process.
type watchdog struct {
	mu   sync.Mutex
	mem  []byte
	data unsafe.Pointer
	free []int // free slot indexes below high
	high int
	tid  int64
}

var (
	theWatchdog     *watchdog
	theWatchdogErr  error
	theWatchdogOnce sync.Once
)

// startWatchdog returns the process's watchdog, starting it on first use.
func startWatchdog() (*watchdog, error) {
	theWatchdogOnce.Do(func() {
		theWatchdog, theWatchdogErr = newWatchdog()
	})
	return theWatchdog, theWatchdogErr
}

func newWatchdog() (*watchdog, error) {
	interval, err := pollInterval()
	if err != nil {
		return nil, err
	}
	if interval == 0 {
		interval = 1000 * time.Hour // effectively never
	}
	mem, err := unix.Mmap(-1, 0, wdDataBytes+wdStack, unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("jitrt: mapping the watchdog: %w", err)
	}
	w := &watchdog{mem: mem, data: unsafe.Pointer(&mem[0])}
	iv := (*unix.Timespec)(unsafe.Add(w.data, wdInterval))
	*iv = unix.NsecToTimespec(int64(interval))
	// Ask for a short time slice (Linux 6.12 and later, unprivileged):
	// the thread wakes, stores a few words and sleeps, and with a short
	// slice the scheduler lets it run at once even when every CPU is busy
	// (with the default slice it waited up to a few milliseconds).
	*(*schedAttr)(unsafe.Add(w.data, wdSched)) = schedAttr{size: uint32(unsafe.Sizeof(schedAttr{})), runtime: 100_000}
	top := uintptr(unsafe.Pointer(&mem[0])) + wdDataBytes + wdStack
	tid := cloneWatchdog(uintptr(w.data), top)
	if tid <= 0 {
		unix.Munmap(mem)
		return nil, fmt.Errorf("jitrt: starting the watchdog thread: %w", unix.Errno(-tid))
	}
	w.tid = tid
	return w, nil
}

func (w *watchdog) word32(off uintptr) *uint32 { return (*uint32)(unsafe.Add(w.data, off)) }

func (w *watchdog) slot(i int) *[2]uint64 { return (*[2]uint64)(unsafe.Add(w.data, wdSlots+16*i)) }

// ticks returns the number of scans the thread has completed.
func (w *watchdog) ticks() uint64 { return atomic.LoadUint64((*uint64)(unsafe.Add(w.data, wdTicks))) }

// errTooManyMachines is returned when every watchdog slot is taken.
var errTooManyMachines = errors.New("jitrt: too many native calls running at once")

// register adds a context block, run by the calling goroutine, to the
// ones the thread polls and returns its slot.
func (w *watchdog) register(ctx uintptr) (int, error) {
	return w.registerG(ctx, uintptr(getg()))
}

// registerG is register for the goroutine whose g is at g.
func (w *watchdog) registerG(ctx, g uintptr) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var i int
	if n := len(w.free); n > 0 {
		i, w.free = w.free[n-1], w.free[:n-1]
	} else {
		if w.high == wdMaxSlots {
			return 0, errTooManyMachines
		}
		i = w.high
		w.high++
		atomic.StoreUint32(w.word32(wdHigh), uint32(w.high))
	}
	atomic.StoreUint64(&w.slot(i)[1], uint64(g))
	atomic.StoreUint64(&w.slot(i)[0], uint64(ctx))
	if atomic.AddUint32(w.word32(wdActive), 1) == 1 {
		// Wake the thread from its futex sleep (it rechecks the count, so
		// a wake that arrives before it sleeps is not lost).
		unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Add(w.data, wdActive)), futexWakePrivate, 1, 0, 0, 0)
	}
	return i, nil
}

// unregister removes slot i and returns once the thread no longer stores
// to the context block that was registered there.
func (w *watchdog) unregister(i int) {
	w.mu.Lock()
	atomic.StoreUint64(&w.slot(i)[0], 0)
	atomic.AddUint32(w.word32(wdActive), ^uint32(0))
	w.free = append(w.free, i)
	w.mu.Unlock()
	// The thread sets the scanning flag before it reads any slot (both
	// are locked exchanges, so they are ordered with the store above): if
	// it is clear now, any later scan sees the slot empty.
	for spins := 0; atomic.LoadUint32(w.word32(wdScanning)) != 0; spins++ {
		if spins < 100 {
			runtime.Gosched()
		} else {
			time.Sleep(10 * time.Microsecond)
		}
	}
}
