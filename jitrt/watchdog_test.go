//go:build linux && amd64

package jitrt

import (
	"runtime"
	"testing"
	"unsafe"

	"miniil/abi"
)

// TestGoroutineLayout checks the two words of Go's runtime the watchdog
// reads: getg returns the running goroutine's g, whose stack bounds
// (offsets 0 and 8) hold the current stack, and whose stackguard0 (at
// gStackguard0) lies in that stack, as every Go prolog's check expects.
func TestGoroutineLayout(t *testing.T) {
	g := getg()
	if g == nil {
		t.Fatal("getg returned nil")
	}
	word := func(off int) uintptr { return *(*uintptr)(unsafe.Add(g, off)) }
	lo, hi, guard := word(0), word(8), word(gStackguard0)
	var local int
	sp := uintptr(unsafe.Pointer(&local))
	if !(lo < sp && sp < hi) {
		t.Fatalf("stack [%#x, %#x) does not hold a local at %#x", lo, hi, sp)
	}
	if !(lo < guard && guard < sp) && guard != stackPreempt {
		t.Fatalf("stackguard0 %#x is not between the stack's low end %#x and a local at %#x", guard, lo, sp)
	}
}

// TestWatchdogSeesPreemption registers two fake Machines with the
// watchdog: one whose goroutine Go asks to stop (stackguard0 set to
// stackPreempt) and one it does not. At a tick that is not one of the
// every-wdEvery unconditional ones, only the first is asked to poll.
func TestWatchdogSeesPreemption(t *testing.T) {
	w, err := startWatchdog()
	if err != nil {
		t.Fatal(err)
	}
	type fake struct {
		ctx [abi.CtxSize / 8]uint64
		g   [4]uintptr
	}
	asked, idle := new(fake), new(fake)
	asked.g[gStackguard0/8] = stackPreempt
	idle.g[gStackguard0/8] = 1 << 20
	ctxOf := func(f *fake) uintptr { return uintptr(unsafe.Pointer(&f.ctx[0])) }
	for try := 0; try < 5; try++ {
		for _, f := range []*fake{asked, idle} {
			f.ctx[abi.CtxPollReq/8], f.ctx[abi.CtxPoll/8] = 0, 1
		}
		a, err := w.registerG(ctxOf(asked), uintptr(unsafe.Pointer(&asked.g[0])))
		if err != nil {
			t.Fatal(err)
		}
		i, err := w.registerG(ctxOf(idle), uintptr(unsafe.Pointer(&idle.g[0])))
		if err != nil {
			t.Fatal(err)
		}
		start := w.ticks()
		for w.ticks() < start+2 {
			runtime.Gosched()
		}
		w.unregister(a)
		w.unregister(i)
		if asked.ctx[abi.CtxPollReq/8] != 1 || asked.ctx[abi.CtxPoll/8] != 0 {
			t.Fatalf("a goroutine Go asked for was not asked to poll")
		}
		if idle.ctx[abi.CtxPollReq/8] == 0 {
			return // a tick passed that polled only the one Go asked for
		}
	}
	t.Fatal("every tick asked both to poll: the watchdog ignores stackguard0")
}
