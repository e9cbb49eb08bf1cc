package fuzz

// Allocation-heavy programs in the AST: what exercises a garbage
// collector.
//
// A program with the feature (Options.Alloc percent of programs, chosen
// from a random stream of its own so that the others stay what they
// were) declares a class Node (int32 v, Node next, object o and a value
// of the value type Pair), Pair (Node n, int32 k, string s) and the
// exception EN (System.Exception with a Node payload and an int32 code).
// Its methods get Node locals (oN), Pair locals (qN) and Node parameters
// (oaN); the program has Node statics (anN, set to new nodes at the
// start), a static Node[4] anarr, a static Pair[4] apa and a static Pair
// aps. References are read and written through reference locations
// (RLoc): those variables and statics, array elements, the next field of
// a node (NullReferenceException when null, which makes old-to-young
// stores: an0 is allocated first) and the n field of a Pair location
// (QLoc: a local, an element of apa, aps, the p field of a node).
//
// Statements allocate (RSet of a new node or of a list a helper builds,
// QSet, Churn loops that allocate thousands of nodes, strings from
// Int32::ToString, String::Concat and StringBuilder, int32[], Node[] and
// Pair[] arrays and boxes, keeping some in a location), hold managed
// pointers into heap objects across allocations (Pin), throw EN with a
// payload (AThrow: the handler entry trace mixes a walk of it) and read
// the caught exception's payload in handlers (ExCheck). Checks (RSum,
// QSum) walk the structures (a hash of every node's fields, up to a
// bound), so a lost or stale reference changes the output; methods
// hash their reference and Pair locals at their end, the program its
// statics.

// RRoot is where a reference location starts.
type RRoot uint8

const (
	RLocal  RRoot = iota // Node local oN
	RParam               // Node parameter oaN
	RStatic              // static Node anN
	RElem                // element anarr[Idx & 3] of the static Node[4]
	RNext                // field next of the node In reads (NullReferenceException when null)
	RQ                   // field n of the Pair location Q
)

// nRStatics is the number of Node statics (an0, an1).
const nRStatics = 2

// RLoc is a location holding a Node reference.
type RLoc struct {
	Root RRoot
	N    int
	Idx  Expr  // RElem: a constant or a variable (read once per use, without side effects)
	In   *RLoc // RNext
	Q    *QLoc // RQ
	// Alt selects the other instruction form: ldelem/stelem with the
	// Node type token for RElem; for RQ, a read of the Pair's value
	// (ldloc, ldsfld, ldelem, ldfld) before ldfld instead of its address.
	Alt bool
}

// QRoot is where a Pair location starts.
type QRoot uint8

const (
	QLocal  QRoot = iota // Pair local qN
	QElem                // element apa[Idx & 3] of the static Pair[4]
	QStatic              // the static Pair aps
	QNode                // field p of the node In reads (NullReferenceException when null)
)

// QLoc is a location holding a Pair value.
type QLoc struct {
	Root QRoot
	N    int
	Idx  Expr  // QElem: a constant or a variable
	In   *RLoc // QNode
}

// RExpr is an expression of type Node (or null).
type RExpr interface{ rexpr() }

// RNull is ldnull.
type RNull struct{}

// RRead reads a reference location.
type RRead struct{ L *RLoc }

// RNew is newobj Node::.ctor(V, Next), with o set to V's Int32::ToString
// when Str.
type RNew struct {
	V    Expr
	Next RExpr
	Str  bool
}

// RBuild calls the helper abuild(N, V, Tail): N new nodes (each with a
// string) prepended to Tail.
type RBuild struct {
	N    int
	V    Expr
	Tail RExpr
}

func (*RNull) rexpr()  {}
func (*RRead) rexpr()  {}
func (*RNew) rexpr()   {}
func (*RBuild) rexpr() {}

// RSum is nsum(Src, Max): a hash of the fields of the first Max nodes
// of the list at Src (their o objects and Pairs included) and of their
// number.
type RSum struct {
	Src RExpr
	Max int
}

// QSum is psum of the value of Pair location Q.
type QSum struct{ Q *QLoc }

func (*RSum) Type() Type { return I4 }
func (*QSum) Type() Type { return I4 }

// RSet stores E into L.
type RSet struct {
	L *RLoc
	E RExpr
}

// QSet sets Pair location Q: initobj first when Init, then its fields n
// (N), k (K) and, when Str, s (K's Int32::ToString).
type QSet struct {
	Q    *QLoc
	Init bool
	N    RExpr
	K    Expr
	Str  bool
}

// QCopy copies Pair location Src to Dst (ldobj and stobj; ldloc and
// stloc between locals).
type QCopy struct{ Dst, Src *QLoc }

// OKind is what a Churn iteration stores in its node's o field.
type OKind uint8

const (
	ONone    OKind = iota // nothing
	OString               // Int32::ToString of the counter concatenated with a literal
	OSBStr                // the string a StringBuilder builds
	OBuilder              // the StringBuilder itself
	OInts                 // a new int32[1..8] holding the counter
	ONodes                // a new Node[3] holding the node itself and another new node
	OPairs                // a new Pair[2] whose element 1 holds the node
	OBoxed                // the counter, boxed
	nOKinds
)

// Churn is a counted loop of Iter iterations that allocates a node
// (value V + the counter) each time, with an O object, when NodeP its
// Pair field set (n: the previous iteration's node, s: a string), and
// with Prev linked to the previous iteration's node (a chain cut every
// 32 nodes). Every Keep-th node (Keep a power of two; 0: none) goes into
// Target: prepended to the list there, or with Append linked after the
// last node kept (a tail held in a local: its next field is often an
// old-to-young store). Check mixes nsum of Target after the loop.
type Churn struct {
	ID     int
	Iter   int
	V      Expr
	O      OKind
	NodeP  bool
	Prev   bool
	Keep   int
	Target *RLoc
	Append bool
	Check  bool
}

// PinKind is where a Pin's managed pointer points.
type PinKind uint8

const (
	PinNodeV  PinKind = iota // ldflda Node::v of the node Src
	PinNodePK                // ldflda Node::p, ldflda Pair::k of the node Src
	PinInts                  // ldelema of element Idx of a new int32[Len] (reachable only through the pointer)
	PinPairs                 // ldelema Pair of apa[Idx & 3], then ldflda Pair::k
	nPinKinds
)

// Pin holds a managed pointer into a heap object (in a local int32&)
// across allocations: the loop Churn (without a target), or with Call
// the helper apin(pointer, Iter), which allocates Iter nodes and then
// adds 1000 through the pointer. Then it adds Delta through the pointer
// and mixes what it points to; a node kind with Keep also stored the
// node in Keep, whose nsum it mixes too (v read through the reference).
type Pin struct {
	ID    int
	Kind  PinKind
	Src   RExpr // PinNodeV, PinNodePK
	Keep  *RLoc // PinNodeV, PinNodePK: nil, or where the node is also stored
	Len   int   // PinInts
	Idx   int   // PinInts, PinPairs
	Call  bool
	Iter  int    // Call: apin's count
	Churn *Churn // !Call
	Delta int32
}

// AThrow throws new EN(Code, Payload).
type AThrow struct {
	Code    Expr
	Payload RExpr
}

// ExCheck, in a handler, mixes nsum(payload, Max) of the exception last
// stored in the method's ex local when it is an EN, and then, with Set,
// stores Set into its payload.
type ExCheck struct {
	Max int
	Set RExpr
}

func (*RSet) stmt()    {}
func (*QSet) stmt()    {}
func (*QCopy) stmt()   {}
func (*Churn) stmt()   {}
func (*Pin) stmt()     {}
func (*AThrow) stmt()  {}
func (*ExCheck) stmt() {}

func cloneRLoc(L *RLoc) *RLoc {
	if L == nil {
		return nil
	}
	c := *L
	c.Idx = cloneExpr(L.Idx)
	c.In = cloneRLoc(L.In)
	c.Q = cloneQLoc(L.Q)
	return &c
}

func cloneQLoc(Q *QLoc) *QLoc {
	if Q == nil {
		return nil
	}
	c := *Q
	c.Idx = cloneExpr(Q.Idx)
	c.In = cloneRLoc(Q.In)
	return &c
}

func cloneRExprs(es []RExpr) []RExpr {
	if es == nil {
		return nil
	}
	out := make([]RExpr, len(es))
	for i, e := range es {
		out[i] = cloneRExpr(e)
	}
	return out
}

func cloneRExpr(e RExpr) RExpr {
	switch e := e.(type) {
	case nil:
		return nil
	case *RNull:
		return &RNull{}
	case *RRead:
		return &RRead{L: cloneRLoc(e.L)}
	case *RNew:
		return &RNew{V: cloneExpr(e.V), Next: cloneRExpr(e.Next), Str: e.Str}
	case *RBuild:
		return &RBuild{N: e.N, V: cloneExpr(e.V), Tail: cloneRExpr(e.Tail)}
	}
	panic("fuzz: unknown reference expression")
}

func cloneChurn(c *Churn) *Churn {
	if c == nil {
		return nil
	}
	d := *c
	d.V = cloneExpr(c.V)
	d.Target = cloneRLoc(c.Target)
	return &d
}

// cloneAllocExpr clones the int expressions over references.
func cloneAllocExpr(e Expr) (Expr, bool) {
	switch e := e.(type) {
	case *RSum:
		return &RSum{Src: cloneRExpr(e.Src), Max: e.Max}, true
	case *QSum:
		return &QSum{Q: cloneQLoc(e.Q)}, true
	}
	return nil, false
}

// cloneAllocStmt clones the allocation statements.
func cloneAllocStmt(s Stmt) (Stmt, bool) {
	switch s := s.(type) {
	case *RSet:
		return &RSet{L: cloneRLoc(s.L), E: cloneRExpr(s.E)}, true
	case *QSet:
		return &QSet{Q: cloneQLoc(s.Q), Init: s.Init, N: cloneRExpr(s.N), K: cloneExpr(s.K), Str: s.Str}, true
	case *QCopy:
		return &QCopy{Dst: cloneQLoc(s.Dst), Src: cloneQLoc(s.Src)}, true
	case *Churn:
		return cloneChurn(s), true
	case *Pin:
		c := *s
		c.Src = cloneRExpr(s.Src)
		c.Keep = cloneRLoc(s.Keep)
		c.Churn = cloneChurn(s.Churn)
		return &c, true
	case *AThrow:
		return &AThrow{Code: cloneExpr(s.Code), Payload: cloneRExpr(s.Payload)}, true
	case *ExCheck:
		return &ExCheck{Max: s.Max, Set: cloneRExpr(s.Set)}, true
	}
	return nil, false
}
