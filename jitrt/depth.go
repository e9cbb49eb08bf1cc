package jitrt

import (
	"fmt"
	"sort"

	"miniil/abi"

	"miniil/il"
)

// Call depth. A run may nest at most Options.MaxCallDepth method calls, as
// the interpreter counts them: the depth of a method's frame is one more
// than its caller's, where a funclet (handler, filter) counts as its
// method and a base library method as the code that called it. Counting
// in every prolog would cost a read-modify-write on every call, so the
// runtime counts only when a run could be that deep, with the stack
// check every method prolog already makes:
//
//   - Every frame takes at least 16 bytes (return address and saved RBP),
//     so while RSP stays above StackHi - 16*MaxCallDepth no run can be
//     too deep. That is where the soft limit (CtxStackLimit) starts;
//     funclet prologs check the hard limit (CtxStackHard) instead, as
//     they add no depth.
//   - A method prolog below the soft limit exits with ExitStackLimit. The
//     runtime counts the frames of the logical call chain (the RBP chain,
//     through funclets to their method and through the runtime's nested
//     calls to the code that called it); past MaxCallDepth the run
//     overflows. Otherwise depth d is allowed, and no frame can reach
//     depth MaxCallDepth+1 above v - 16*(MaxCallDepth-d), v being where
//     the new frame's RSP is: the soft limit moves down there.
//   - That lower limit holds only while the counted frames stay on the
//     stack, so the new frame's return address is replaced with the
//     address of a stub (as CoreCLR hijacks return addresses to suspend
//     threads): when the frame returns, the stub exits with ExitCheckpoint
//     and the runtime puts the limit back and returns to the real address.
//     When the dispatcher resumes a catch in an older frame, or a nested
//     call unwinds, the checkpoints of the frames it discards are undone
//     the same way. Stack walks read through the replaced addresses.
//
// A recursion to depth D with frames of s bytes counts about log(D) /
// log(s/(s-16)) times, each time O(D): 34 times for a million 48-byte
// frames.

// DefaultMaxCallDepth is the call depth limit when Options.MaxCallDepth is
// 0; the interpreter has the same default.
const DefaultMaxCallDepth = il.DefaultMaxCallDepth

// StackBytesPerCall is how much native stack the runtime provides per call
// of MaxCallDepth when Options.StackBytes is 0 (between 8 MiB and 1 GiB):
// a run whose frames average more than that can exhaust the native stack
// before reaching MaxCallDepth (and then overflows there).
const StackBytesPerCall = 128

// minFrame is the smallest stack distance between two frames of the call
// chain: a return address and a saved RBP.
const minFrame = 16

// checkpoint is a frame whose return address was replaced by the
// checkpoint stub, with what to put back when it returns.
type checkpoint struct {
	slot  uintptr // address of the return address (the frame's RBP+8)
	ret   uintptr // the real return address
	limit uintptr // the soft stack limit before this checkpoint
}

// stackBytesFor returns the default native stack size for a depth limit.
func stackBytesFor(depth int) int {
	return min(max(depth*StackBytesPerCall, 8<<20), 1<<30)
}

// startDepth prepares the soft stack limit for a top-level call.
func (rt *Runtime) startDepth() {
	rt.checkpoints = rt.checkpoints[:0]
	_, hi := rt.mach.StackBounds()
	rt.mach.SetStackLimit(softLimit(hi, rt.maxDepth, 0))
}

// softLimit returns the lowest stack address above which no frame can be
// deeper than max calls, for a frame of depth d whose RSP is at v.
func softLimit(v uintptr, max, d int) uintptr {
	room := uintptr(max-d) * minFrame
	if room > v {
		return 0
	}
	return v - room
}

// stackLimit serves ExitStackLimit: it counts the call chain of the frame
// whose prolog stopped, and either ends the run or lets it go deeper.
//
// The check of an inlined call (ir.OpDepthCheck) stops the same way, in
// the frame that holds the inlined code: its depth is that frame's plus
// the calls it is inlined in, and the value it compared is where those
// frames' RSP would be (16 bytes each). Its frame already exists, so the
// checkpoint, if any, goes on that frame's own return address: when the
// frame already has the newest checkpoint (its prolog was counted), the
// limit just moves down, that checkpoint restoring the older one. In a
// funclet the limit stays (the main body's later calls, higher on the
// stack than the funclet, would not be covered by a limit computed from
// the funclet's RSP): the check is let through once (its RAX is set so
// that it passes when it runs again), and counts again next time.
func (rt *Runtime) stackLimit(m *Machine) error {
	bp := uintptr(m.Reg(abi.CtxRBP))
	d := rt.callDepth(bp)
	inlined, inFunclet := rt.inlineDepthAt(m.PC())
	d += inlined
	if d > rt.maxDepth {
		return &StackOverflowError{PC: m.PC(), SP: m.SP()}
	}
	limit := softLimit(m.StackCheckValue(), rt.maxDepth, d)
	switch n := len(rt.checkpoints); {
	case inlined == 0:
		rt.checkpoints = append(rt.checkpoints, checkpoint{slot: bp + 8, ret: uintptr(m.ReadStack(bp + 8)), limit: m.StackLimit()})
		m.WriteStack(bp+8, uint64(rt.checkpointStub))
	case inFunclet:
		// The check runs again when the code resumes: it compares RAX,
		// which it computed and nothing else reads, so it passes now.
		m.SetReg(abi.CtxRAX, ^uint64(0))
		return nil
	case n > 0 && rt.checkpoints[n-1].slot == bp+8:
		// The frame's prolog was counted: its checkpoint restores the
		// limit from before it.
	default:
		rt.checkpoints = append(rt.checkpoints, checkpoint{slot: bp + 8, ret: uintptr(m.ReadStack(bp + 8)), limit: m.StackLimit()})
		m.WriteStack(bp+8, uint64(rt.checkpointStub))
	}
	m.SetStackLimit(limit)
	return nil
}

// inlineDepthAt returns, for the return address of a stack check's
// out-of-line call, the number of inlined calls its code is in (0: a
// prolog's check) and whether it is in a funclet.
func (rt *Runtime) inlineDepthAt(pc uintptr) (int, bool) {
	r := rt.methodAt(pc - 1)
	if r == nil || len(r.inlines) == 0 {
		return 0, false
	}
	s := r.gc.At(int(pc - r.start))
	if s == nil || s.Inline == 0 {
		return 0, false
	}
	d := 0
	for k := s.Inline; k > 0; k = r.inlines[k-1].Parent {
		d++
	}
	return d, s.Funclet != 0
}

// callDepth returns the number of method frames on the call chain whose
// innermost frame is at bp: the RBP chain, then the chains of the exits
// the runtime's nested calls were made from.
func (rt *Runtime) callDepth(bp uintptr) int {
	lo, hi := rt.mach.StackBounds()
	outer := rt.mach.outer
	n := 0
	for seg := 0; ; seg++ {
		for bp >= lo && bp+16 <= hi {
			n++
			bp = uintptr(rt.mach.ReadStack(bp))
		}
		if seg >= len(outer) {
			return n
		}
		bp = outer[len(outer)-1-seg].bp
	}
}

// checkpointReturned serves ExitCheckpoint: the newest checkpoint's frame
// returned; its limit comes back and execution goes on at the real return
// address.
func (rt *Runtime) checkpointReturned(m *Machine) error {
	n := len(rt.checkpoints)
	if n == 0 || rt.checkpoints[n-1].slot+8 != m.SP() {
		return fmt.Errorf("jitrt: a replaced return address was used by no checkpoint frame (sp %#x)", m.SP())
	}
	c := rt.checkpoints[n-1]
	rt.checkpoints = rt.checkpoints[:n-1]
	m.SetStackLimit(c.limit)
	m.SetPC(c.ret)
	return nil
}

// unwindTo undoes the checkpoints of frames below sp, which native code
// resumed at sp discards.
func (rt *Runtime) unwindTo(sp uintptr) {
	n := len(rt.checkpoints)
	for n > 0 && rt.checkpoints[n-1].slot < sp {
		n--
	}
	if n < len(rt.checkpoints) {
		rt.mach.SetStackLimit(rt.checkpoints[n].limit)
		rt.checkpoints = rt.checkpoints[:n]
	}
}

// returnAddress reads the return address at slot, seeing through a
// checkpoint's replacement.
func (rt *Runtime) returnAddress(slot uintptr) uintptr {
	ret := uintptr(rt.mach.ReadStack(slot))
	if ret != rt.checkpointStub {
		return ret
	}
	cs := rt.checkpoints // slots decrease from the first to the last
	k := sort.Search(len(cs), func(i int) bool { return cs[i].slot <= slot })
	if k < len(cs) && cs[k].slot == slot {
		return cs[k].ret
	}
	return ret
}
