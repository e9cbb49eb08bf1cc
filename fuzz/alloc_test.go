package fuzz

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"miniil"
)

var rrootNames = [...]string{RLocal: "local", RParam: "parameter", RStatic: "static", RElem: "array element",
	RNext: "next field", RQ: "Pair field"}

var qrootNames = [...]string{QLocal: "local", QElem: "array element", QStatic: "static", QNode: "node field"}

var oKindNames = [...]string{ONone: "none", OString: "string", OSBStr: "builder string", OBuilder: "builder",
	OInts: "int32[]", ONodes: "Node[]", OPairs: "Pair[]", OBoxed: "box"}

var pinKindNames = [...]string{PinNodeV: "node field", PinNodePK: "node's Pair field", PinInts: "int32[] element", PinPairs: "Pair[] element"}

// hasAlloc reports whether p has the allocation feature.
func hasAlloc(p *Program) bool {
	for _, m := range p.Methods {
		if m.OLocals > 0 {
			return true
		}
	}
	return false
}

// TestAllocRates checks that the allocation feature is mixed into a
// share of the programs of each size (more of the large ones), and that
// those programs make every shape of it: allocation loops with every
// kind of object and kept node, every kind of reference and Pair
// location, managed pointers of every kind held across a loop or a
// call, lists abuild makes, EN thrown with payloads, caught and read,
// Node parameters, and allocation in every kind of region.
func TestAllocRates(t *testing.T) {
	const programs = 300
	share := map[string]float64{}
	for _, size := range sizes {
		o, _ := SizeOptions(size)
		n := 0
		for seed := uint64(1); seed <= programs; seed++ {
			if hasAlloc(Generate(seed, o)) {
				n++
			}
		}
		share[size] = float64(n) / programs
		lo, hi := float64(o.Alloc)/100-0.1, float64(o.Alloc)/100+0.1
		if share[size] < lo || share[size] > hi {
			t.Errorf("%s: %.2f of the programs allocate heavily, want %.2f-%.2f", size, share[size], lo, hi)
		}
	}
	if share["large"] <= share["small"] {
		t.Errorf("large programs allocate heavily no more often (%.2f) than small ones (%.2f)", share["large"], share["small"])
	}

	o, _ := SizeOptions("medium")
	o.Alloc = 100
	progs := map[string]int{}
	for seed := uint64(1); seed <= programs; seed++ {
		p := Generate(seed, o)
		seen := map[string]bool{}
		count := func(k string) {
			if !seen[k] {
				seen[k] = true
				progs[k]++
			}
		}
		if !hasAlloc(p) {
			t.Fatalf("seed %d: Alloc 100, but no allocation", seed)
		}
		for _, m := range p.Methods {
			if m.OParams > 0 {
				count("Node parameter")
			}
		}
		for _, s := range p.Methods[0].Body {
			if tr, ok := s.(*Try); ok && len(tr.Handlers) == 1 && tr.Handlers[0].Class == "System.Object" {
				count("guarded root statement")
			}
		}
		visitNodes(p, func(m *Method, x any, where string) {
			switch x := x.(type) {
			case *Churn:
				count("churn in " + where)
				count("churn object " + oKindNames[x.O])
				if x.Iter >= 1024 {
					count("churn of 1024 or more")
				}
				for k, on := range map[string]bool{"NodeP": x.NodeP, "Prev": x.Prev, "Check": x.Check, "Append": x.Append, "Keep": x.Keep > 0} {
					if on {
						count("churn " + k)
					}
				}
				if x.Target != nil {
					count("churn target " + rrootNames[x.Target.Root])
				}
			case *RLoc:
				count("reference " + rrootNames[x.Root])
				if x.Alt {
					count("reference other form")
				}
			case *QLoc:
				count("Pair " + qrootNames[x.Root])
			case *Pin:
				count("pin " + pinKindNames[x.Kind])
				if x.Call {
					count("pin across apin")
				} else if x.Churn != nil {
					count("pin across a loop")
				}
				if x.Keep != nil {
					count("pin kept")
				}
				if _, ok := x.Src.(*RRead); ok {
					count("pin of a location's node")
				}
			case *RBuild:
				count("abuild")
			case *RNew:
				if x.Str {
					count("new node with a string")
				}
			case *AThrow:
				count("EN thrown in " + where)
			case *ExCheck:
				count("payload read")
				if x.Set != nil {
					count("payload set")
				}
			case *Try:
				for _, h := range x.Handlers {
					if h.Class == exNode || h.FilterType == exNode {
						count("EN caught")
					}
				}
			case *QSet:
				count("Pair set")
			case *QCopy:
				count("Pair copy")
			case *QSum:
				count("Pair hash")
			case *RSum:
				count(fmt.Sprintf("walk of %d", x.Max))
			case *CallStmt:
				if len(x.OArgs) > 0 {
					count("call with Node arguments")
				}
			case *CallExpr:
				if len(x.OArgs) > 0 {
					count("call with Node arguments")
				}
			}
		})
	}
	t.Logf("programs: %v", progs)
	want := []string{"Node parameter", "guarded root statement", "churn of 1024 or more", "churn NodeP", "churn Prev",
		"churn Check", "churn Append", "churn Keep", "reference other form", "pin across apin", "pin across a loop",
		"pin kept", "pin of a location's node", "abuild", "new node with a string", "EN thrown in try", "EN caught",
		"payload read", "payload set", "Pair set", "Pair copy", "Pair hash", fmt.Sprint("walk of ", shallowMax),
		fmt.Sprint("walk of ", deepMax), "call with Node arguments"}
	for _, w := range []string{"method", "try", "catch", "filter", "filterhandler", "finally", "fault"} {
		want = append(want, "churn in "+w)
	}
	for _, k := range oKindNames {
		want = append(want, "churn object "+k)
	}
	for _, r := range rrootNames {
		want = append(want, "reference "+r, "churn target "+r)
	}
	for _, r := range qrootNames {
		want = append(want, "Pair "+r)
	}
	for _, k := range pinKindNames {
		want = append(want, "pin "+k)
	}
	for _, k := range want {
		if progs[k] < programs/30 {
			t.Errorf("%s: in %d programs of %d, want at least %d", k, progs[k], programs, programs/30)
		}
	}
}

// TestAllocOwnStream checks that a program the allocation feature was
// not chosen for is the program of the generator without the feature.
func TestAllocOwnStream(t *testing.T) {
	o, _ := SizeOptions("medium")
	none := o
	none.Alloc = 0
	same, with := 0, 0
	for seed := uint64(1); seed <= 60; seed++ {
		p := Generate(seed, o)
		if hasAlloc(p) {
			with++
			continue
		}
		_, a, _ := strings.Cut(p.IL(), "\n")
		_, b, _ := strings.Cut(GenerateIL(seed, none), "\n")
		if a != b {
			t.Fatalf("seed %d: without the feature, the program differs from the one of Alloc 0", seed)
		}
		same++
	}
	if same == 0 || with == 0 {
		t.Errorf("%d programs with the feature, %d without: want some of both", with, same)
	}
}

// TestAllocMonoSafe checks that with MonoSafe nothing of the allocation
// feature in a filter can throw: no next or node fields, no EN thrown,
// no pointer into a location's node.
func TestAllocMonoSafe(t *testing.T) {
	o, _ := SizeOptions("large")
	o.MonoSafe, o.Alloc = true, 100
	inFilter := 0
	for seed := uint64(1); seed <= 150; seed++ {
		visitNodes(Generate(seed, o), func(_ *Method, x any, where string) {
			if where != "filter" {
				return
			}
			bad := false
			switch x := x.(type) {
			case *RLoc:
				bad = x.Root == RNext
			case *QLoc:
				bad = x.Root == QNode
			case *AThrow:
				bad = true
			case *Pin:
				_, bad = x.Src.(*RRead)
			case *Churn:
				inFilter++
			}
			if bad {
				t.Fatalf("seed %d: MonoSafe filter has %T that may throw", seed, x)
			}
		})
	}
	if inFilter == 0 {
		t.Error("no allocation loop in a MonoSafe filter")
	}
}

// A model of the allocation classes and helpers, for the values the
// checks of hand-made programs must print.

type mNode struct {
	v    int32
	next *mNode
	o    any // nil, string, mSB, []int32, []*mNode, []mPair, int32 (a box)
	p    mPair
}

type mPair struct {
	n *mNode
	k int32
	s any // nil or string
}

type mSB string

func mAhash(o any) int32 {
	switch o := o.(type) {
	case nil:
		return 0
	case string:
		h := int32(len(o))
		for i := 0; i < len(o); i++ {
			h = h*31 + int32(o[i])
		}
		return h
	case []int32:
		h := int32(len(o)) + 1000
		for _, e := range o {
			h = h*31 + e
		}
		return h
	case []*mNode:
		h := int32(len(o)) + 2000
		for _, n := range o {
			h = h*31 + 1
			if n != nil {
				h += n.v
			}
		}
		return h
	case []mPair:
		h := int32(len(o)) + 3000
		for _, q := range o {
			h = h*31 + q.k
			if q.n != nil {
				h = h*7 + q.n.v
			}
		}
		return h
	case mSB:
		return int32(len(o)) + 4000
	case int32:
		return o
	}
	panic("no such object")
}

func mPsum(q mPair) int32 {
	h := q.k*31 - 1
	if q.n != nil {
		h += 1 + q.n.v
	}
	return h*31 + mAhash(q.s)
}

func mNsum(n *mNode, max int) int32 {
	h, k := int32(17), int32(0)
	for ; n != nil && int(k) < max; n = n.next {
		h = ((h*31+n.v)*31+mAhash(n.o))*31 + mPsum(n.p)
		k++
	}
	return h*31 + k
}

// mChurn runs Churn c with value cv on the model, target the location
// it keeps nodes in.
func mChurn(c *Churn, cv int32, target **mNode) {
	var cp, ctl *mNode
	if c.Append {
		ctl = *target
	}
	for i := int32(0); i < int32(c.Iter); i++ {
		ct := &mNode{v: i + cv}
		if c.Prev {
			ct.next = cp
		}
		is := strconv.Itoa(int(i))
		switch c.O {
		case OString:
			ct.o = is + "c"
		case OSBStr:
			ct.o = fmt.Sprintf("%d:%d", i, cv)
		case OBuilder:
			ct.o = mSB(fmt.Sprintf("%d:%d", i, cv))
		case OInts:
			a := make([]int32, i&7+1)
			a[0] = i
			ct.o = a
		case ONodes:
			ct.o = []*mNode{ct, nil, {v: cv}}
		case OPairs:
			ct.o = []mPair{{}, {n: ct, k: i}}
		case OBoxed:
			ct.o = i
		}
		if c.NodeP {
			ct.p = mPair{n: cp, k: i, s: is}
		}
		if c.Prev || c.NodeP {
			cp = ct
			if i&31 == 0 {
				cp = nil
			}
		}
		if c.Keep > 0 && i&int32(c.Keep-1) == 0 {
			if c.Append {
				if ctl == nil {
					*target = ct
				} else {
					ctl.next = ct
				}
				ctl = ct
			} else {
				ct.next = *target
				*target = ct
			}
		}
	}
}

// TestAllocLowering runs hand-made programs of the allocation nodes on
// both engines and checks what their checks print against a model of
// the classes and helpers: allocation loops of every kind (a list kept
// by prepending or appending, into locals, statics, array elements,
// next and Pair fields), lists abuild makes, managed pointers written
// after allocation, Pair locations, EN payloads read and replaced in
// handlers, and a store through a null node.
func TestAllocLowering(t *testing.T) {
	c := func(v int64) Expr { return &Const{T: I4, V: v} }
	o0 := &RLoc{Root: RLocal}
	print := func(e Expr) Stmt { return &Mix{E: e, Print: true} }
	walk := func(L *RLoc) Stmt { return print(&RSum{Src: &RRead{L: L}, Max: 1000}) }
	pair := func(Q *QLoc) Stmt { return print(&QSum{Q: Q}) }
	type test struct {
		name string
		body []Stmt
		want []int32 // the values printed, in order
	}
	var tests []test
	// Every kind of object, each shape of the chain and of keeping.
	for ok := ONone; ok < nOKinds; ok++ {
		for _, f := range []struct {
			nodeP, prev, app bool
			keep, iter       int
		}{{false, false, false, 1, 5}, {true, true, false, 2, 40}, {true, false, true, 4, 70}, {false, true, true, 1, 3}} {
			ch := &Churn{ID: 9, Iter: f.iter, V: c(100), O: ok, NodeP: f.nodeP, Prev: f.prev, Keep: f.keep, Target: o0, Append: f.app}
			var list *mNode
			mChurn(ch, 100, &list)
			tests = append(tests, test{fmt.Sprintf("churn %s %+v", oKindNames[ok], f), []Stmt{ch, walk(o0)}, []int32{mNsum(list, 1000)}})
		}
	}
	// Targets: an0 starts as a node of value 101, so appending links
	// after it; the next field of an1 (102); an array element; the n
	// field of a Pair local.
	{
		an0 := &mNode{v: 101}
		ch := &Churn{ID: 3, Iter: 6, V: c(0), Keep: 2, Target: &RLoc{Root: RStatic}, Append: true}
		mChurn(ch, 0, &an0)
		an1 := &mNode{v: 102}
		ch2 := &Churn{ID: 4, Iter: 2, V: c(5), Keep: 1, Target: &RLoc{Root: RNext, In: &RLoc{Root: RStatic, N: 1}}}
		mChurn(ch2, 5, &an1.next)
		var elem, qn *mNode
		ch3 := &Churn{ID: 5, Iter: 9, V: c(100), Keep: 4, Target: &RLoc{Root: RElem, Idx: c(5), Alt: true}, Append: true}
		mChurn(ch3, 100, &elem)
		q0 := &RLoc{Root: RQ, Q: &QLoc{Root: QLocal}}
		ch4 := &Churn{ID: 6, Iter: 3, V: c(7), Keep: 1, Target: q0}
		mChurn(ch4, 7, &qn)
		tests = append(tests, test{"churn targets",
			[]Stmt{ch, walk(&RLoc{Root: RStatic}), ch2, walk(&RLoc{Root: RStatic, N: 1}), ch3, walk(&RLoc{Root: RElem, Idx: c(1)}),
				ch4, walk(&RLoc{Root: RQ, Q: &QLoc{Root: QLocal}, Alt: true})},
			[]int32{mNsum(an0, 1000), mNsum(an1, 1000), mNsum(elem, 1000), mNsum(qn, 1000)}})
	}
	// New nodes and lists.
	{
		chain := &mNode{v: 12, o: "12", next: &mNode{v: 3, next: &mNode{v: 1}}}
		var built *mNode = &mNode{v: 1}
		for i := range int32(3) {
			built = &mNode{v: 5 + i, next: built, o: strconv.Itoa(int(i)) + "b"}
		}
		tests = append(tests, test{"new nodes and abuild",
			[]Stmt{&RSet{L: o0, E: &RNew{V: c(12), Str: true, Next: &RNew{V: c(3), Next: &RNew{V: c(1)}}}}, walk(o0),
				&RSet{L: o0, E: &RBuild{N: 3, V: c(5), Tail: &RNew{V: c(1)}}}, walk(o0),
				print(&RSum{Src: &RRead{L: o0}, Max: 2})},
			[]int32{mNsum(chain, 1000), mNsum(built, 1000), mNsum(built, 2)}})
	}
	// Managed pointers into a node, its Pair and a Pair array element,
	// written after apin's or a loop's allocation.
	tests = append(tests, test{"pins",
		[]Stmt{
			&Pin{ID: 2, Kind: PinNodeV, Src: &RNew{V: c(7)}, Keep: o0, Call: true, Iter: 50, Delta: 3}, walk(o0),
			&Pin{ID: 3, Kind: PinNodePK, Src: &RNew{V: c(8)}, Keep: o0, Churn: &Churn{ID: 4, Iter: 100, V: c(0), O: OString}, Delta: -5}, walk(o0),
			&Pin{ID: 5, Kind: PinPairs, Idx: 6, Call: true, Iter: 10, Delta: 4}, pair(&QLoc{Root: QElem, Idx: c(2)}),
			&Pin{ID: 6, Kind: PinInts, Len: 3, Idx: 2, Churn: &Churn{ID: 7, Iter: 30, V: c(0)}, Delta: 4},
		},
		[]int32{mNsum(&mNode{v: 1010}, 1000), mNsum(&mNode{v: 8, p: mPair{k: -5}}, 1000), mPsum(mPair{k: 1004})}})
	// Pair locations: set, copied, initialized, a node's.
	{
		n9 := &mNode{v: 9}
		set := mPair{n: n9, k: 3, s: "3"}
		tests = append(tests, test{"pairs",
			[]Stmt{
				&QSet{Q: &QLoc{Root: QStatic}, N: &RNew{V: c(9)}, K: c(3), Str: true}, pair(&QLoc{Root: QStatic}),
				&QCopy{Dst: &QLoc{Root: QLocal}, Src: &QLoc{Root: QStatic}}, pair(&QLoc{Root: QLocal}),
				&QCopy{Dst: &QLoc{Root: QElem, Idx: c(0)}, Src: &QLoc{Root: QStatic}}, pair(&QLoc{Root: QElem, Idx: c(4)}),
				&QSet{Q: &QLoc{Root: QElem, Idx: c(5)}, Init: true, K: c(8)}, pair(&QLoc{Root: QElem, Idx: c(1)}),
				&RSet{L: o0, E: &RNew{V: c(1)}},
				&QSet{Q: &QLoc{Root: QNode, In: o0}, N: &RRead{L: o0}, K: c(-2)}, walk(o0),
			},
			[]int32{mPsum(set), mPsum(set), mPsum(set), mPsum(mPair{k: 8}), func() int32 {
				n := &mNode{v: 1}
				n.p = mPair{n: n, k: -2}
				return mNsum(n, 1000)
			}()}})
	}
	r := &Runner{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Program{NoMix: true, Methods: []*Method{{NI4: 1, OLocals: 1, QLocals: 1, Body: tt.body}}}
			src := p.IL()
			outs, err := r.Run(src)
			if err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			var want []string
			for _, v := range tt.want {
				want = append(want, strconv.Itoa(int(v)))
			}
			for _, o := range outs {
				lines := strings.Split(o.Stdout, "\n")
				if len(lines) < len(want) || strings.Join(lines[:len(want)], "|") != strings.Join(want, "|") || o.Err != "" {
					t.Errorf("%s: got %q (%s), want the lines %q\n%s", o.Engine, o.Stdout, o.Err, want, src)
				}
			}
		})
	}
}

// TestAllocExceptions runs EN thrown with a payload, caught, its
// payload read and replaced in the handler and rethrown, on both
// engines: the handler entries mix the code and a walk of the payload
// (ExCheck too), and a store through the next field of a null node
// throws.
func TestAllocExceptions(t *testing.T) {
	c := func(v int64) Expr { return &Const{T: I4, V: v} }
	inner := &Try{ID: 1, Body: []Stmt{&AThrow{Code: c(5), Payload: &RNew{V: c(9)}}},
		Handlers: []*Handler{{Kind: Catch, ID: 2, Class: exNode, Body: []Stmt{&ExCheck{Max: 64, Set: &RNew{V: c(4)}}, &Rethrow{}}}}}
	outer := &Try{ID: 3, Body: []Stmt{inner}, Handlers: []*Handler{{Kind: Catch, ID: 4, Class: "System.Exception"}}}
	null := &RSet{L: &RLoc{Root: RNext, In: &RLoc{Root: RLocal}}, E: &RNew{V: c(1)}}
	p := &Program{Methods: []*Method{{NI4: 1, OLocals: 1, Body: []Stmt{outer, null}}}}
	src := p.IL()
	var h int32
	mix := func(vs ...int32) int32 {
		for _, v := range vs {
			h = h*31 + v
		}
		return h
	}
	n9, n4 := mNsum(&mNode{v: 9}, 64), mNsum(&mNode{v: 4}, 64)
	want := []string{
		fmt.Sprintf("h2 EN %d", mix(2, 5, n9, 2)),
		fmt.Sprintf("h4 EN %d", mix(n9, 4, 5, n4, 2)), // ExCheck, then the outer handler's entry
		"caught System.NullReferenceException",
		fmt.Sprintf("end %d", h), // m0 never reaches its end
	}
	outs, err := (&Runner{}).Run(src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	for _, o := range outs {
		lines := strings.Split(strings.TrimSuffix(o.Stdout, "\n"), "\n")
		if strings.Join(lines, "|") != strings.Join(want, "|") || o.Err != "" {
			t.Errorf("%s: got %q (%s), want %q\n%s", o.Engine, o.Stdout, o.Err, want, src)
		}
	}
}

// TestAllocEditsLoad checks that the reducer's edits of programs with
// the allocation feature (removing Node parameters, inlining calls with
// Node and Pair locals, simplifying the allocation nodes) keep them
// valid.
func TestAllocEditsLoad(t *testing.T) {
	o, _ := SizeOptions("medium")
	o.Alloc = 100
	seeds := uint64(30)
	if testing.Short() {
		seeds = 6
	}
	removed := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		p := Generate(seed, o)
		n := countEdits(p)
		step := max(1, n/60)
		for k := 0; k < n; k++ {
			if k >= 60 && k%step != 0 {
				continue
			}
			c := p.Clone()
			applyEdit(c, k)
			params := 0
			for i, m := range c.Methods {
				params += p.Methods[i].OParams - m.OParams
			}
			removed += params
			if _, err := miniil.Load("edit.il", []byte(c.IL())); err != nil {
				t.Fatalf("seed %d, edit %d of %d: %v", seed, k, n, err)
			}
		}
	}
	if removed == 0 {
		t.Error("no edit removed a Node parameter")
	}
}

// TestAllocReduce simulates a JIT bug that shows in programs throwing
// EN (its output gets an extra line when it names EN) and checks that
// the reducer shrinks such a program to a few dozen lines.
func TestAllocReduce(t *testing.T) {
	o, _ := SizeOptions("medium")
	o.Alloc = 100
	r := &Runner{Timeout: 10 * time.Second}
	var src string
	for seed := uint64(1); seed < 200 && src == ""; seed++ {
		s := GenerateIL(seed, o)
		outs, err := r.Run(s)
		if err != nil {
			t.Fatal(err)
		}
		if bad, _ := Mismatch(outs); !bad && strings.Contains(outs[1].Stdout, " EN ") {
			src = s
		}
	}
	if src == "" {
		t.Fatal("no generated program catches an EN")
	}
	r.Perturb = PerturbToken("jit", " EN ")
	red := &Reducer{Runner: r}
	out, err := red.Reduce(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d lines reduced to %d in %d tests:\n%s", countLines(src), countLines(out), red.tests, out)
	if n := countLines(out); n > 80 {
		t.Errorf("reduced program has %d lines, want at most 80", n)
	}
}

// TestHeaderAlloc checks that the header records Options.Alloc when it
// (or Options.Shapes) is set, and Options.Shapes when it is, and that
// headers of the forms without them still parse.
func TestHeaderAlloc(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
		o    Options
	}{
		{"// miniil-fuzz seed=7 opts=6,30,4,3,2500,0", true, Options{MaxMethods: 6, MaxStmts: 30, MaxDepth: 4, MaxExprDepth: 3, MaxCost: 2500}},
		{"// miniil-fuzz seed=7 opts=6,30,4,3,2500,1,35", true, Options{MaxMethods: 6, MaxStmts: 30, MaxDepth: 4, MaxExprDepth: 3, MaxCost: 2500, MonoSafe: true, Alloc: 35}},
		{"// miniil-fuzz seed=7 opts=6,30,4,3,2500", false, Options{}},
		{"// miniil-fuzz seed=7 opts=6,30,4,3,2500,0,35,70", true, Options{MaxMethods: 6, MaxStmts: 30, MaxDepth: 4, MaxExprDepth: 3, MaxCost: 2500, Alloc: 35, Shapes: 70}},
		{"// miniil-fuzz seed=7 opts=6,30,4,3,2500,0,0,100", true, Options{MaxMethods: 6, MaxStmts: 30, MaxDepth: 4, MaxExprDepth: 3, MaxCost: 2500, Shapes: 100}},
		{"// miniil-fuzz seed=7 opts=6,30,4,3,2500,0,35,70,1", false, Options{}},
		{"// miniil-fuzz seed=7 opts=6,30,4,3,x,0", false, Options{}},
	}
	for _, tt := range tests {
		seed, o, ok := ParseHeader(tt.line + "\n")
		if ok != tt.ok || ok && (seed != 7 || o != tt.o) {
			t.Errorf("%q: got %d %+v %v, want %+v %v", tt.line, seed, o, ok, tt.o, tt.ok)
		}
		if ok {
			if h := (&Program{Seed: seed, Opts: o}).Header(); h != tt.line {
				t.Errorf("%q: written back as %q", tt.line, h)
			}
		}
	}
}
