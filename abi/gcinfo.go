package abi

import (
	"fmt"
	"sort"
	"strings"
)

// GC information: what the code generator tells the runtime about the
// object references and interior pointers a compiled method's frames
// hold at each safepoint, as CoreCLR's GC info does (for its
// partially interruptible code: calls only).
//
// A safepoint is the return address of a call made by a method's code:
// a call to managed code or a funclet (Site), a helper exit (Site), or
// an out-of-line call in the cold section (a poll, a prolog's stack
// check). At each one the method records the live locations: frame
// slots (RBP offsets) and registers, each holding a reference (null or
// the start of an object) or an interior pointer (a managed pointer:
// null or an address inside an object, on the native stack or in the
// statics; CoreCLR's "interior" byref). What a safepoint lists is live
// whenever the frame is suspended there and will continue from there.
//
// Untracked locations are live at every safepoint of every frame of the
// method but the prologs' (the prolog initializes them): the slots of
// values shared between the main body and its funclets (or live where a
// catch resumes), and the words of frame blocks (value-type locals and
// temporaries) that hold references. They belong to the method
// invocation, not to a frame: a stack walk reports them once per
// invocation (by its RBP), whichever of its frames (main body or
// funclet) it meets first. See docs/ARCHITECTURE.md, "GC information".

// GCLoc is a location that holds a reference or an interior pointer: a
// frame slot at an RBP offset, or a register. The offset of a frame
// slot is a multiple of 8, which leaves the low bits for the flags.
type GCLoc int32

const (
	gcInterior GCLoc = 1 << 0 // an interior pointer, not a reference
	gcInReg    GCLoc = 1 << 1 // a register: the number is in the bits above the flags
	gcFlags    GCLoc = 7
)

// Register numbers of GCLoc.Reg: the order of the context block's
// register slots, so that register n is saved at CtxRAX+8*n.
const (
	RegRAX = iota
	RegRBX
	RegRCX
	RegRDX
	RegRSI
	RegRDI
	RegR8
	RegR9
	RegR10
	RegR11
	RegR12
	RegR13
	RegR14
	NumRegs
)

var regNames = [NumRegs]string{"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14"}

// RegName returns the name of register n (a GCLoc register number).
func RegName(n int) string {
	if n >= 0 && n < NumRegs {
		return regNames[n]
	}
	return fmt.Sprintf("reg%d", n)
}

// RegCtx returns the context slot register n is saved in by exits.
func RegCtx(n int) int { return CtxRAX + 8*n }

// FrameLoc returns the frame slot at RBP offset off (a multiple of 8).
func FrameLoc(off int, interior bool) GCLoc {
	if off%8 != 0 {
		panic(fmt.Sprintf("abi: frame slot at rbp%+d is not word aligned", off))
	}
	l := GCLoc(off)
	if interior {
		l |= gcInterior
	}
	return l
}

// RegLoc returns register n (RegRAX ...).
func RegLoc(n int, interior bool) GCLoc {
	l := GCLoc(n)<<3 | gcInReg
	if interior {
		l |= gcInterior
	}
	return l
}

// IsReg reports whether l is a register.
func (l GCLoc) IsReg() bool { return l&gcInReg != 0 }

// Reg returns the register number of a register location.
func (l GCLoc) Reg() int { return int(l >> 3) }

// Offset returns the RBP offset of a frame slot.
func (l GCLoc) Offset() int { return int(l &^ gcFlags) }

// Interior reports whether l holds an interior pointer (else a
// reference).
func (l GCLoc) Interior() bool { return l&gcInterior != 0 }

// Place names the location: "rbx", "[rbp-0x18]".
func (l GCLoc) Place() string {
	if l.IsReg() {
		return RegName(l.Reg())
	}
	if off := l.Offset(); off < 0 {
		return fmt.Sprintf("[rbp-%#x]", -off)
	} else {
		return fmt.Sprintf("[rbp+%#x]", off)
	}
}

// String is the location with its kind: "ref rbx", "ptr [rbp-0x18]".
func (l GCLoc) String() string {
	if l.Interior() {
		return "ptr " + l.Place()
	}
	return "ref " + l.Place()
}

// FormatLocs lists locations the way dumps print them: the references,
// then the interior pointers, "ref [rbp-0x18] rbx; ptr [rbp-0x30]", or
// "none".
func FormatLocs(ls []GCLoc) string {
	var refs, ptrs []string
	for _, l := range ls {
		if l.Interior() {
			ptrs = append(ptrs, l.Place())
		} else {
			refs = append(refs, l.Place())
		}
	}
	var parts []string
	if len(refs) > 0 {
		parts = append(parts, "ref "+strings.Join(refs, " "))
	}
	if len(ptrs) > 0 {
		parts = append(parts, "ptr "+strings.Join(ptrs, " "))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// SafepointFlags describe a safepoint.
type SafepointFlags uint8

const (
	// SPCall marks the return address of a call to managed code or to a
	// funclet: while the callee runs, the frame's caller-saved registers
	// are dead, and its live registers are callee-saved ones (which the
	// callee may have saved in its own frame). Other safepoints are
	// exits: the exit stub saved every register in the context.
	SPCall SafepointFlags = 1 << iota
	// SPProlog marks a prolog's stack check: the frame has not saved its
	// caller's callee-saved registers yet, its untracked slots are not
	// initialized, and the live locations are the arguments where the
	// caller put them (registers, [RBP+16+8k]), or the exception object
	// a catch or filter funclet receives (RSI).
	SPProlog
)

// Safepoint is the GC information at one return address.
type Safepoint struct {
	Offset   int32 // the return address: an offset in the method's code
	ILOffset int32 // the IL offset of the instruction (-1: none)
	Inline   int32 // the inlined call of that instruction (Site.Inline)
	Funclet  int32 // the funclet (index in Method.Funclets) whose frame makes the call
	Flags    SafepointFlags
	// Live and NLive select the live locations in GCInfo.Locs.
	Live, NLive uint32
}

// CalleeSave is a callee-saved register that a method's prolog stores
// at an RBP offset (and every return restores).
type CalleeSave struct {
	Reg    int // RegRBX, RegR12 ...
	Offset int
}

// GCInfo is a compiled method's GC information.
type GCInfo struct {
	// Safepoints, sorted by Offset.
	Safepoints []Safepoint
	// Locs holds the safepoints' live locations (safepoints with the same
	// set share them).
	Locs []GCLoc
	// Untracked are the frame slots live at every safepoint but the
	// prologs' (see the package comment above).
	Untracked []GCLoc
	// Saves are the callee-saved registers the main body's prolog stores,
	// after its stack check: the frame's caller's values of those
	// registers are there while the frame is suspended anywhere else.
	// Funclets save none.
	Saves []CalleeSave
}

// At returns the safepoint whose return address is code offset off, or
// nil.
func (g *GCInfo) At(off int) *Safepoint {
	sp := g.Safepoints
	k := sort.Search(len(sp), func(i int) bool { return int(sp[i].Offset) >= off })
	if k < len(sp) && int(sp[k].Offset) == off {
		return &sp[k]
	}
	return nil
}

// LiveAt returns the live locations of safepoint s.
func (g *GCInfo) LiveAt(s *Safepoint) []GCLoc { return g.Locs[s.Live : s.Live+s.NLive] }
