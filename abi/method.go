package abi

import "miniil/il"

// Method is a compiled method as the compiler hands it to the runtime:
// position-independent machine code plus what the runtime needs to install
// it, walk its frames and dispatch exceptions through it.
type Method struct {
	Code     []byte
	Sites    []Site    // call and exit sites, sorted by offset
	CellRefs []CellRef // RIP-relative references to call cells
	// Funclets are the main body (first) and every handler's funclet, in
	// code order, contiguous from offset 0.
	Funclets []Funclet
	// ColdStart is where the cold section starts: after the last funclet
	// (and a gap), the out-of-line calls of polls and stack checks, each
	// jumping back into its funclet.
	ColdStart int
	// Clauses is the native EH clause table, sorted inner before outer,
	// then by address, without the CLR's duplicate clauses: each clause's
	// Next and each funclet's Enclosing stand for them.
	Clauses []EHClause
	// GC is the GC information: the references and interior pointers
	// live at every call, exit and out-of-line call (see GCInfo).
	GC GCInfo
	// Inlines are the calls whose callees' code was inlined, parents
	// first (see Site.Inline).
	Inlines []InlineSite
}

// InlineDepth returns the number of inlined calls code of inlined call k
// (a Site.Inline) is nested in: 0 for the method's own code.
func (m *Method) InlineDepth(k int32) int {
	d := 0
	for ; k > 0; k = m.Inlines[k-1].Parent {
		d++
	}
	return d
}

// Site maps the return address of a call or exit (an offset in the
// method's code) to the IL offset it came from.
type Site struct {
	Offset   int
	ILOffset int
	// Inline is the inlined call whose code made the call or exit: 0 for
	// the method's own code, k for Method.Inlines[k-1] (ILOffset is then
	// an offset of that call's method).
	Inline int32
}

// InlineSite is a call whose callee's code the compiler inlined: the
// callee, and the call's place, in the method's own code (Parent 0) or
// in the code of another inlined call (Inlines[Parent-1]). Stack traces
// show the callee as a frame of its own.
type InlineSite struct {
	Method   *il.Method
	Parent   int32
	ILOffset int // the call's IL offset in the parent's method
}

// CellRef is a `CALL [RIP+disp32]` to a call cell whose 4-byte
// displacement at Offset must be set when the code's address is known:
// disp = Cell - (address of Offset + 4).
type CellRef struct {
	Offset int
	Cell   uintptr
}

// FuncletKind is the kind of a funclet: the main body, or the handler or
// filter of an EH clause.
type FuncletKind uint8

// Funclet kinds.
const (
	Main FuncletKind = iota
	CatchFunclet
	FilterFunclet
	FilterHandlerFunclet
	FinallyFunclet
	FaultFunclet
)

func (k FuncletKind) String() string {
	return [...]string{"main", "catch", "filter", "filter-handler", "finally", "fault"}[k]
}

// Funclet is the code of the main body or of one handler: a range of
// the method's code with its own frame.
type Funclet struct {
	Kind       FuncletKind
	Clause     int // IL clause index (-1 for the main body)
	Start, End int // code offsets
	// FrameSize is the size of the funclet's frame below its saved RBP.
	FrameSize int
	// InFilter is true for a filter and for funclets nested in a filter:
	// exceptions never escape them.
	InFilter bool
	// Enclosing is the first clause (index in Method.Clauses) offered an
	// exception that escapes the funclet's own clauses: the innermost
	// clause whose try encloses the handler, where the CLR's duplicate
	// clauses for the funclet would begin. -1: none (always for the main
	// body and filters).
	Enclosing int
}

// EHClause is a native exception clause. Ranges are half-open offsets
// into the method's code.
type EHClause struct {
	Kind                     il.EHKind
	TryStart, TryEnd         int
	HandlerStart, HandlerEnd int
	FilterStart              int      // Filter: start of the filter funclet
	CatchType                *il.Type // Catch
	ILClause                 int      // index of the IL clause (Method.EH)
	// Next is the index of the clause an exception this clause does not
	// handle is offered to next in the same frame: the next handler of
	// the same try, else the first clause of the innermost try enclosing
	// this one, in the same funclet or around the handler it lies in.
	// -1 ends the chain (also at a filter: exceptions never escape one).
	Next int
	// TryFunclet is the funclet (index in Method.Funclets) whose code
	// holds the try range: a catch found through a nested handler's chain
	// resumes in that funclet's frame.
	TryFunclet int
	// Duplicate marks a clause of the CLR's form of the table (with
	// duplicate clauses): a copy whose try range is a nested handler
	// funclet. The compact table has none.
	Duplicate bool
}

// Covers reports whether code offset off is in the clause's try range.
func (c *EHClause) Covers(off int) bool { return c.TryStart <= off && off < c.TryEnd }

// FuncletAt returns the index of the funclet whose code holds offset off
// (funclets sorted by Start), or -1.
func FuncletAt(fs []Funclet, off int) int {
	lo, hi := 0, len(fs)
	for lo < hi {
		mid := (lo + hi) / 2
		if fs[mid].End > off {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo < len(fs) && fs[lo].Start <= off {
		return lo
	}
	return -1
}
