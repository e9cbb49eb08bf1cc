package fuzz

// Shapes in the AST: code of the forms the JIT's optimizations change.
//
// A program with the feature (Options.Shapes percent of programs, chosen
// from a random stream of its own so that the others stay what they
// were) mixes into its statements and expressions:
//
//   - loops over arrays (ForArr), the `for (i = 0; i < a.Length; i++)
//     sum += a[i]` form and its variants: the bound read at every test or
//     loaded before the loop, a start other than 0, a count down, the test
//     at the bottom, `a.Length - 1`, `<= a.Length` (one step out of
//     range), a constant bound; over int32[] locals (arN) that may be
//     null, empty, the static arr, a row of jag, another local, and may
//     be replaced in the loop body; reads, writes and read-modify-writes
//     of a[i], a[i+1], a[i+j] of an enclosing loop, the index read after
//     the loop and in handlers, nested loops, bodies that throw and are
//     caught outside, bodies in a try that first write a variable the
//     catch reads (bounds-check elimination, loop-invariant hoisting);
//   - small methods (SmallFn: 1 to about 12 IL instructions, leaves,
//     static or instance methods of a class Sm, virtual final or not)
//     with arguments, returning int32 or int64 or storing a field, some
//     that throw (an explicit throw, a division by an argument, a null
//     `this`), called in loops and straight-line code (the inliner);
//   - division and remainder of int32 and int64 by constants of every
//     kind (powers of two and their negatives, 1, -1, 7, magic values,
//     int.MinValue dividends) (division by a constant);
//   - try/finally and try/catch in loop bodies, a variable modified in
//     the try and read in the handler and after the loop (finally
//     cloning, EH write-thru);
//   - the same address read twice (a[i+j] twice, a field of the same
//     object twice) (CSE);
//   - isinst/castclass chains on values of a known type (TypeChain)
//     (type checks).

// ASrc is what ASet stores in an array local.
type ASrc uint8

const (
	ANew    ASrc = iota // a new int32[Len] whose element k is k*Mul + Add
	ANull               // null
	AStatic             // the static int32[5] arr
	ARow                // jag[Row] (rows may be null or short)
	ACopy               // array local From (aliased)
)

// ASet stores an array into the int32[] local arA.
type ASet struct {
	A        int
	Src      ASrc
	Len      int   // ANew
	Mul, Add int32 // ANew: element k is k*Mul + Add
	Row      int   // ARow: 0..2
	From     int   // ACopy
}

// AElem reads arA[Idx] (NullReferenceException when arA is null,
// IndexOutOfRangeException out of range).
type AElem struct {
	A   int
	Idx Expr
}

// ALen is arA.Length (ldlen, conv.i4).
type ALen struct{ A int }

// AStore stores arA[Idx] = E.
type AStore struct {
	A      int
	Idx, E Expr
}

// IdxLoad reads the index of ForArr Loop (ixLoop; 0 before the loop).
type IdxLoad struct{ Loop int }

// Bound is how a ForArr ends.
type Bound uint8

const (
	BLen   Bound = iota // i < a.Length, the length read at every test
	BN                  // i < n, n = a.Length read before the loop
	BLenM1              // i < a.Length - 1
	BLE                 // i <= a.Length: the last index is out of range
	BConst              // i < K
	nBounds
)

// ForArr is a loop over the array local arA with its own index local
// ixID: from Start up to the bound (Down: from the bound's last index
// down to Start), the test at the top or, Rotated, at the bottom
// (entered by a jump to it). NoConv compares with the native int of
// ldlen, without conv.i4. MixIdx mixes the index after the loop.
type ForArr struct {
	ID      int
	A       int
	Start   int
	Bound   Bound
	K       int // BConst
	Down    bool
	Rotated bool
	NoConv  bool
	MixIdx  bool
	Body    []Stmt
}

// Block is a sequence of statements (a shape made of several).
type Block struct{ Body []Stmt }

// SmallFn is a small leaf method: static fN or an instance method Sm::fN
// (virtual final when Virt). It returns Body (of type Ret) or, Void,
// stores it into this.f (instance) or the static shs. With ThrowIf it
// first throws an InvalidOperationException when its first (int32)
// argument is ThrowV.
type SmallFn struct {
	Inst    bool
	Virt    bool
	Params  []Type
	Ret     Type
	Void    bool
	Body    Expr // over its arguments (Load of Arg), constants and SmThis
	ThrowIf bool
	ThrowV  int32
	may     map[string]bool // what a call may throw, but for a null this
	reads   bool            // the body reads or writes this.f
}

// SmThis reads this.f in an instance SmallFn.
type SmThis struct{}

// ObjSrc is the object an instance SmallFn is called on.
type ObjSrc uint8

const (
	OSm    ObjSrc = iota // the static Sm sm (set to new Sm(5) at the start; SetSm changes it)
	ONil                 // null
	ONewSm               // new Sm(K)
)

// FnCall calls SmallFn Fn (call, or callvirt when Virt or CallVirt)
// with Args, on Obj for an instance method; a void one pushes 0 after
// the call as an expression (and a static void one mixes shs after the
// call as a statement, FnStmt).
type FnCall struct {
	Fn       int
	Args     []Expr
	Obj      ObjSrc
	K        int32
	CallVirt bool
	T        Type // the callee's result type (int32 for a void one)
}

// FnStmt calls a SmallFn and drops its result.
type FnStmt struct{ C *FnCall }

// SetSm sets the static sm to new Sm(E), or to null.
type SetSm struct {
	Null bool
	E    Expr
}

// SmField reads sm.f (NullReferenceException when sm is null).
type SmField struct{}

// TClass is a class a TypeChain tests.
type TClass uint8

const (
	TObject TClass = iota
	TBox
	TOpAdd
	TOpMul
	TOpDiv
	TIOp
	TSm
	TInt32
	TString
	nTClasses
)

// TSrc is the value a TypeChain starts from.
type TSrc uint8

const (
	TSNewBox   TSrc = iota // new Box(K)
	TSNewOpAdd             // new OpAdd(K)
	TSNewOpMul             // new OpMul(K)
	TSNewOpDiv             // new OpDiv(K)
	TSNewSm                // new Sm(K)
	TSBoxed                // K boxed as an int32
	TSNull                 // null
	TSObj                  // the static obj (a boxed int32 or a Box)
	nTSrcs
)

// TStep is one isinst or castclass of a TypeChain; Guard (in the local
// form) is `isinst C; brfalse skip; castclass C` on the same value.
type TStep struct {
	Cast  bool
	Guard bool
	C     TClass
}

// TEnd is how a TypeChain makes its int32.
type TEnd uint8

const (
	TENonNull TEnd = iota // ldnull, cgt.un
	TEApply               // castclass IOp, callvirt Apply(K)
	TEBoxV                // castclass Box, ldfld v
	TEUnbox               // unbox.any int32
	nTEnds
)

// TypeChain tests Src with Steps, on the stack or, Local, through an
// object local re-read at each step, and ends with End:
// InvalidCastException, NullReferenceException, an Apply's
// DivideByZeroException.
type TypeChain struct {
	Src   TSrc
	K     int32
	Steps []TStep
	Local bool
	End   TEnd
}

// ShsLoad reads the static shs (what static void SmallFns store).
type ShsLoad struct{}

func (e *AElem) Type() Type     { return I4 }
func (e *ALen) Type() Type      { return I4 }
func (e *IdxLoad) Type() Type   { return I4 }
func (e *SmThis) Type() Type    { return I4 }
func (e *SmField) Type() Type   { return I4 }
func (e *TypeChain) Type() Type { return I4 }
func (e *ShsLoad) Type() Type   { return I4 }

func (e *FnCall) Type() Type { return e.T }

func (*ASet) stmt()   {}
func (*AStore) stmt() {}
func (*ForArr) stmt() {}
func (*Block) stmt()  {}
func (*FnStmt) stmt() {}
func (*SetSm) stmt()  {}

func cloneFnCall(c *FnCall) *FnCall {
	if c == nil {
		return nil
	}
	d := *c
	d.Args = cloneExprs(c.Args)
	return &d
}

// cloneShapeExpr clones the shapes' expressions.
func cloneShapeExpr(e Expr) (Expr, bool) {
	switch e := e.(type) {
	case *AElem:
		return &AElem{A: e.A, Idx: cloneExpr(e.Idx)}, true
	case *ALen:
		c := *e
		return &c, true
	case *IdxLoad:
		c := *e
		return &c, true
	case *SmThis:
		return &SmThis{}, true
	case *SmField:
		return &SmField{}, true
	case *ShsLoad:
		return &ShsLoad{}, true
	case *FnCall:
		return cloneFnCall(e), true
	case *TypeChain:
		c := *e
		c.Steps = append([]TStep(nil), e.Steps...)
		return &c, true
	}
	return nil, false
}

// cloneShapeStmt clones the shapes' statements.
func cloneShapeStmt(s Stmt) (Stmt, bool) {
	switch s := s.(type) {
	case *ASet:
		c := *s
		return &c, true
	case *AStore:
		return &AStore{A: s.A, Idx: cloneExpr(s.Idx), E: cloneExpr(s.E)}, true
	case *ForArr:
		c := *s
		c.Body = cloneStmts(s.Body)
		return &c, true
	case *Block:
		return &Block{Body: cloneStmts(s.Body)}, true
	case *FnStmt:
		return &FnStmt{C: cloneFnCall(s.C)}, true
	case *SetSm:
		return &SetSm{Null: s.Null, E: cloneExpr(s.E)}, true
	}
	return nil, false
}

// shapeExprParts adds the children of a shape expression.
func shapeExprParts(x Expr, ps *parts) {
	switch x := x.(type) {
	case *AElem:
		ps.expr(&x.Idx)
	case *FnCall:
		for i := range x.Args {
			ps.expr(&x.Args[i])
		}
	}
}

// shapeStmtParts adds the children of a shape statement (not its
// nested blocks).
func shapeStmtParts(s Stmt, ps *parts) {
	switch s := s.(type) {
	case *AStore:
		ps.expr(&s.Idx)
		ps.expr(&s.E)
	case *FnStmt:
		for i := range s.C.Args {
			ps.expr(&s.C.Args[i])
		}
	case *SetSm:
		ps.expr(&s.E)
	}
}

// shapeChildren returns the nested blocks of a shape statement.
func shapeChildren(s Stmt) ([][]Stmt, bool) {
	switch s := s.(type) {
	case *ForArr:
		return [][]Stmt{s.Body}, true
	case *Block:
		return [][]Stmt{s.Body}, true
	}
	return nil, false
}

// shapeBlocks returns pointers to the nested blocks of a shape statement.
func shapeBlocks(s Stmt) []*[]Stmt {
	switch s := s.(type) {
	case *ForArr:
		return []*[]Stmt{&s.Body}
	case *Block:
		return []*[]Stmt{&s.Body}
	}
	return nil
}

// shapeStmt edits the shape statements (see editor).
func (e *editor) shapeStmt(s Stmt) {
	switch s := s.(type) {
	case *ASet:
		if s.Src == ANew && s.Len > 1 && e.hit() {
			s.Len = 1
		}
		if s.Src == ANew && (s.Mul != 0 || s.Add != 0) && e.hit() {
			s.Mul, s.Add = 0, 0
		}
	case *AStore:
		e.expr(&s.Idx)
		e.expr(&s.E)
	case *ForArr:
		for _, f := range []*bool{&s.Down, &s.Rotated, &s.NoConv, &s.MixIdx} {
			if *f && e.hit() {
				*f = false
			}
		}
		if s.Bound == BConst && s.K > 1 && e.hit() {
			s.K = 1
		}
		e.blk(&s.Body)
	case *Block:
		e.blk(&s.Body)
	case *FnStmt:
		e.fnCall(s.C)
	case *SetSm:
		if s.E != nil {
			e.expr(&s.E)
		}
	}
}

// shapeExpr edits the shape expressions; false for other expressions.
func (e *editor) shapeExpr(x Expr) bool {
	switch x := x.(type) {
	case *AElem:
		e.expr(&x.Idx)
	case *FnCall:
		e.fnCall(x)
	case *TypeChain:
		if len(x.Steps) > 0 && e.hit() {
			x.Steps = x.Steps[:len(x.Steps)-1]
		}
		if x.Local && e.hit() {
			x.Local = false
		}
	case *ALen, *IdxLoad, *SmThis, *SmField, *ShsLoad:
	default:
		return false
	}
	return true
}

func (e *editor) fnCall(c *FnCall) {
	if c.CallVirt && e.hit() {
		c.CallVirt = false
	}
	for i := range c.Args {
		e.expr(&c.Args[i])
	}
}
