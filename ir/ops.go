package ir

import (
	"fmt"

	"miniil/il"
)

// kindSet is a set of register kinds. The zero Kind (no kind) has a bit
// of its own, for the instructions whose Kind field is unused.
type kindSet uint8

// Kind sets.
const (
	noKind  kindSet = 1 << 0 // the Kind field is 0
	ints    kindSet = 1<<I32 | 1<<I64
	floats  kindSet = 1<<F32 | 1<<F64
	numbers         = ints | floats
	anyKind         = numbers | 1<<Ref | 1<<Ptr
)

// kindsOf returns the set holding ks.
func kindsOf(ks ...Kind) kindSet {
	var s kindSet
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

// Has reports whether k is in s.
func (s kindSet) Has(k Kind) bool { return k <= Ptr && s&(1<<k) != 0 }

func (s kindSet) String() string {
	str := ""
	for k := Kind(0); k <= Ptr; k++ {
		if s.Has(k) {
			if str != "" {
				str += "|"
			}
			if k == 0 {
				str += "none"
			} else {
				str += k.String()
			}
		}
	}
	return str
}

// kindFrom says where the kind a rule requires comes from.
type kindFrom uint8

const (
	fromSet   kindFrom = iota // any kind of the rule's set
	fromKind                  // the instruction's Kind
	fromType                  // the kind of Aux.Type's values
	fromField                 // the kind of Aux.Field's values
)

// kindRule constrains the kind of an instruction, operand or result: it
// must be in set (when set is not empty) and equal to the kind named by
// from (unless from is fromSet).
type kindRule struct {
	set  kindSet
	from kindFrom
}

var (
	same   = kindRule{from: fromKind}
	i32    = kindRule{set: kindsOf(I32)}
	i64    = kindRule{set: kindsOf(I64)}
	ref    = kindRule{set: kindsOf(Ref)}
	ptr    = kindRule{set: kindsOf(Ptr)}
	number = kindRule{set: numbers}
	ofType = kindRule{from: fromType}
)

// check returns an error if kind k, of the part of instruction in that
// what names, breaks rule r.
func (r kindRule) check(in *Instr, what string, k Kind) error {
	var want Kind
	var source string
	switch r.from {
	case fromSet:
		if !r.set.Has(k) {
			return fmt.Errorf("%s is %s, want %s", what, kindName(k), r.set)
		}
		return nil
	case fromKind:
		want, source = in.Kind, "the operation kind"
	case fromType:
		want, source = KindOf(in.Aux.Type), "Aux.Type"
	case fromField:
		want, source = KindOf(in.Aux.Field().Type), "Aux.Field"
	}
	if r.set != 0 && !r.set.Has(want) {
		return fmt.Errorf("%s is %s, as %s says, want %s", what, kindName(want), source, r.set)
	}
	if k != want {
		return fmt.Errorf("%s is %s, want %s (%s)", what, kindName(k), kindName(want), source)
	}
	return nil
}

// auxFields is a set of Aux's fields.
type auxFields uint8

// Aux fields (Int, Float and Cond, whose zero values are meaningful, are
// not tracked).
const (
	withType auxFields = 1 << iota
	withField
	withMethod
	withClass
	withStr
	withUnsigned
	withBadRef // Ref of none of its types
)

// auxFieldNames names the fields of auxFields' bits.
var auxFieldNames = [...]string{"Type", "Field", "Method", "Class", "Str", "Unsigned", "Ref (not a *string, field, method or class)"}

// auxSet returns the fields of a that are set (Ref counts as the field
// its dynamic type stands for, or as withBadRef).
func auxSet(a *Aux) auxFields {
	var s auxFields
	if a.Type != nil {
		s |= withType
	}
	switch a.Ref.(type) {
	case nil:
	case *il.Field:
		s |= withField
	case *il.Method:
		s |= withMethod
	case *il.Class:
		s |= withClass
	case *string:
		s |= withStr
	default:
		s |= withBadRef
	}
	if a.Unsigned {
		s |= withUnsigned
	}
	return s
}

func (s auxFields) String() string {
	str := ""
	for i, name := range auxFieldNames {
		if s&(1<<i) != 0 {
			if str != "" {
				str += ", "
			}
			str += "Aux." + name
		}
	}
	return str
}

// presence says whether an instruction has a result.
type presence uint8

const (
	never    presence = iota // Dst is NoValue
	always                   // Dst is a value
	optional                 // either (checked by the op's own rule)
)

// manySuccs is opInfo.succs for a switch: one successor or more.
const manySuccs = -1

// opInfo describes the shape of one operation: what Check verifies of
// every instruction before the operation's own rule (if any).
type opInfo struct {
	kind     kindRule   // the instruction's Kind field
	args     []kindRule // the operands, one rule each
	variadic bool       // the operands are left to rule (calls, ret, throwhelper)
	dst      presence
	dstKind  kindRule
	dst2     bool      // Dst2, an I32 overflow flag, is set
	aux      auxFields // the Aux fields that must be set
	auxOpt   auxFields // the Aux fields that may be set besides (all others must be zero)
	term     bool      // ends a block
	succs    int       // a terminator's number of successors (manySuccs: at least one)
	// rule checks what the shape does not say; it may assume the shape
	// holds.
	rule func(f *Func, in *Instr) error
}

// opTable has one entry per operation. Kinds follow the reader: Kind is
// the result's kind (the operands' for OpCmp, the stored value's for
// stores, none for calls and terminators); arithmetic is on I32, I64,
// F32 or F64; division and remainder of floats are signed only; logic
// and shifts are integer only.
var opTable = [numOps]opInfo{
	OpInvalid: {},

	OpConst: {kind: kindRule{set: numbers | kindsOf(Ref)}, dst: always, dstKind: same},
	OpStr:   {kind: ref, dst: always, dstKind: ref, aux: withStr},
	OpCopy:  {kind: kindRule{set: anyKind}, args: rules(same), dst: always, dstKind: same},

	OpAdd:   binary(numbers),
	OpSub:   binary(numbers),
	OpMul:   binary(numbers),
	OpDiv:   binary(numbers),
	OpDivUn: binary(ints),
	OpRem:   binary(numbers),
	OpRemUn: binary(ints),
	OpAnd:   binary(ints),
	OpOr:    binary(ints),
	OpXor:   binary(ints),
	OpShl:   shift,
	OpShr:   shift,
	OpShrUn: shift,
	OpNeg:   {kind: number, args: rules(same), dst: always, dstKind: same},
	OpNot:   {kind: kindRule{set: ints}, args: rules(same), dst: always, dstKind: same},

	OpAddOvf: overflow,
	OpSubOvf: overflow,
	OpMulOvf: overflow,

	OpCmp: {kind: kindRule{set: numbers | kindsOf(Ref)}, args: rules(same, same), dst: always, dstKind: i32, rule: checkCmp},
	OpConv: {kind: kindRule{set: numbers, from: fromType}, args: rules(number), dst: always, dstKind: same,
		aux: withType, auxOpt: withUnsigned},

	OpLdField:  {kind: kindRule{from: fromField}, args: rules(ref), dst: always, dstKind: same, aux: withField, rule: instanceField},
	OpStField:  {kind: kindRule{from: fromField}, args: rules(ref, same), aux: withField, rule: instanceField},
	OpLdStatic: {kind: kindRule{from: fromField}, dst: always, dstKind: same, aux: withField, rule: staticField},
	OpStStatic: {kind: kindRule{from: fromField}, args: rules(same), aux: withField, rule: staticField},
	OpAlloc:    {kind: ref, dst: always, dstKind: ref, aux: withClass},
	OpIsInst:   {kind: ref, args: rules(ref), dst: always, dstKind: ref, aux: withType},
	OpBox:      {kind: ref, args: rules(ofType), dst: always, dstKind: ref, aux: withType, rule: valueType},
	OpUnbox:    {kind: kindRule{set: numbers, from: fromType}, args: rules(ref), dst: always, dstKind: same, aux: withType},
	OpTypeIs:   {kind: i32, args: rules(ref), dst: always, dstKind: i32, aux: withType, rule: exactType},

	OpNewArr:   {kind: ref, args: rules(i64), dst: always, dstKind: ref, aux: withType},
	OpArrLen:   {kind: i64, args: rules(ref), dst: always, dstKind: i64},
	OpLdElem:   {kind: ofType, args: rules(ref, i64), dst: always, dstKind: same, aux: withType},
	OpStElem:   {kind: ofType, args: rules(ref, i64, same), aux: withType},
	OpCanStore: {kind: i32, args: rules(ref, ref), dst: always, dstKind: i32},

	OpSlotAddr:   {kind: ptr, dst: always, dstKind: ptr, rule: checkSlot},
	OpStaticAddr: {kind: ptr, dst: always, dstKind: ptr, aux: withField, rule: staticField},
	OpLea:        {kind: ptr, args: rules(kindRule{set: kindsOf(Ptr, Ref)}), dst: always, dstKind: ptr},
	OpElemAddr:   {kind: ptr, args: rules(ref, i64), dst: always, dstKind: ptr, aux: withType},
	OpFieldAddr:  {kind: ptr, args: rules(ref), dst: always, dstKind: ptr, aux: withField, rule: instanceField},
	OpBoxData:    {kind: ptr, args: rules(ref), dst: always, dstKind: ptr},
	OpLoad:       {kind: ofType, args: rules(ptr), dst: always, dstKind: same, aux: withType, rule: memType},
	OpStore:      {kind: ofType, args: rules(ptr, same), aux: withType, rule: memType},
	OpCopyBlk:    {kind: kindRule{set: noKind}, args: rules(ptr, ptr), auxOpt: withType, rule: checkWords},
	OpZeroBlk:    {kind: kindRule{set: noKind}, args: rules(ptr), rule: checkWords},

	OpCall:     {kind: kindRule{set: noKind | anyKind}, variadic: true, dst: optional, aux: withMethod, rule: checkCall},
	OpCallVirt: {kind: kindRule{set: noKind | anyKind}, variadic: true, dst: optional, aux: withMethod, rule: checkCall},

	OpCatchArg: {kind: ref, dst: always, dstKind: ref},

	OpDepthCheck: {kind: kindRule{set: noKind}, rule: checkDepth},

	OpJump:        terminator(1),
	OpIf:          {kind: kindRule{set: noKind}, args: rules(kindRule{set: ints | kindsOf(Ref, Ptr)}), term: true, succs: 2},
	OpSwitch:      {kind: kindRule{set: noKind}, args: rules(kindRule{set: ints}), term: true, succs: manySuccs},
	OpRet:         {kind: kindRule{set: noKind}, variadic: true, term: true, rule: checkRet},
	OpThrow:       {kind: kindRule{set: noKind}, args: rules(ref), term: true},
	OpThrowHelper: {kind: kindRule{set: noKind}, variadic: true, aux: withClass, auxOpt: withType, term: true, rule: checkThrowHelper},
	OpCallFinally: terminator(1),
	OpCatchRet:    terminator(1),
	OpEndFinally:  terminator(0),
	OpEndFilter:   {kind: kindRule{set: noKind}, args: rules(i32), term: true},
	OpRethrow:     terminator(0),
}

func rules(rs ...kindRule) []kindRule { return rs }

// binary is the shape of two-operand arithmetic on kinds s.
func binary(s kindSet) opInfo {
	return opInfo{kind: kindRule{set: s}, args: rules(same, same), dst: always, dstKind: same}
}

var (
	// shift: Args[0] shifted by Args[1] (an I32 count).
	shift = opInfo{kind: kindRule{set: ints}, args: rules(same, i32), dst: always, dstKind: same}
	// overflow: checked arithmetic, Dst2 the overflow flag.
	overflow = opInfo{kind: kindRule{set: ints}, args: rules(same, same), dst: always, dstKind: same, dst2: true,
		auxOpt: withUnsigned}
)

// terminator is the shape of a terminator without operands.
func terminator(succs int) opInfo {
	return opInfo{kind: kindRule{set: noKind}, term: true, succs: succs}
}

func checkCmp(f *Func, in *Instr) error {
	if int(in.Aux.Cond) >= len(condNames) {
		return fmt.Errorf("unknown condition %d", in.Aux.Cond)
	}
	return nil
}

func instanceField(f *Func, in *Instr) error {
	if in.Aux.Field().Static {
		return fmt.Errorf("%s is a static field", in.Aux.Field().FullName())
	}
	return nil
}

func staticField(f *Func, in *Instr) error {
	if !in.Aux.Field().Static {
		return fmt.Errorf("%s is an instance field", in.Aux.Field().FullName())
	}
	return nil
}

// valueType checks that Aux.Type is a primitive value type (box, unbox).
func valueType(f *Func, in *Instr) error {
	if in.Aux.Type.IsRef() {
		return fmt.Errorf("%s is not a value type", in.Aux.Type)
	}
	return nil
}

// checkSlot checks that Aux.Int names a frame block.
func checkSlot(f *Func, in *Instr) error {
	if in.Aux.Int < 0 || in.Aux.Int >= int64(len(f.Slots)) {
		return fmt.Errorf("frame block %d of %d", in.Aux.Int, len(f.Slots))
	}
	return nil
}

// memType checks that a load or store accesses one word or less (a
// value type is copied with copyblk).
func memType(f *Func, in *Instr) error {
	if in.Aux.Type.Kind == il.KValue || in.Aux.Type.Kind == il.KByRef || in.Aux.Type.Kind == il.KVoid {
		return fmt.Errorf("%s of %s", in.Op, in.Aux.Type)
	}
	return nil
}

// checkDepth checks that a depth check names the depth of an inlined
// call that exists.
func checkDepth(f *Func, in *Instr) error {
	if in.Aux.Int < 1 || in.Inline < 1 || in.Aux.Int != int64(f.InlineDepth(in.Inline)) {
		return fmt.Errorf("depth check of depth %d in inlined code %d", in.Aux.Int, in.Inline)
	}
	return nil
}

// checkWords checks a block copy's or zeroing's word count.
func checkWords(f *Func, in *Instr) error {
	if in.Aux.Int <= 0 {
		return fmt.Errorf("%s of %d words", in.Op, in.Aux.Int)
	}
	return nil
}

// exactType checks the type of an exact type test: a value type (unbox)
// or an array type (ldelema).
func exactType(f *Func, in *Instr) error {
	if in.Aux.Type.IsRef() && in.Aux.Type.Kind != il.KArray {
		return fmt.Errorf("%s is neither a value type nor an array type", in.Aux.Type)
	}
	return nil
}

// checkSignature checks that m has what Check reads of a method's
// signature: a return type, a type for every parameter and local, and a
// class if it takes this.
func checkSignature(m *il.Method) error {
	if m.Ret == nil {
		return fmt.Errorf("method %s has no return type", m.FullName())
	}
	if !m.Static && m.Owner == nil {
		return fmt.Errorf("instance method %s has no class", m.FullName())
	}
	for i, p := range m.Params {
		if p == nil || p.Type == nil {
			return fmt.Errorf("parameter %d of %s has no type", i, m.FullName())
		}
	}
	for i, l := range m.Locals {
		if l == nil || l.Type == nil {
			return fmt.Errorf("local %d of %s has no type", i, m.FullName())
		}
	}
	return nil
}

// checkCall checks a call's operands and result against the callee's
// signature (this first for instance methods). A call's Kind is unused:
// the reader leaves it 0; it may also be its result's kind.
func checkCall(f *Func, in *Instr) error {
	m := in.Aux.Method()
	if err := checkSignature(m); err != nil {
		return err
	}
	if in.Op == OpCallVirt && (!m.Virtual || !m.HasThis()) {
		return fmt.Errorf("callvirt of %s, which is not a virtual instance method", m.FullName())
	}
	n := m.NumArgs()
	if m.Ret.Kind == il.KValue {
		n++ // the return buffer
	}
	if len(in.Args) != n {
		return fmt.Errorf("%d operands for %s, which takes %d", len(in.Args), m.Signature(), n)
	}
	for i, a := range in.Args {
		k := Ptr // the return buffer
		if i < m.NumArgs() {
			k = KindOf(m.ArgType(i))
		}
		if f.Kinds[a] != k {
			return fmt.Errorf("operand %d is %s, parameter %d of %s is %s", i, f.Kinds[a], i, m.FullName(), k)
		}
	}
	switch {
	case m.Ret.Kind == il.KValue && in.Dst != NoValue:
		return fmt.Errorf("a result from %s, which returns a value type through its return buffer", m.FullName())
	case m.Ret.Kind == il.KVoid && in.Dst != NoValue:
		return fmt.Errorf("a result from %s, which returns void", m.FullName())
	case m.Ret.Kind != il.KVoid && m.Ret.Kind != il.KValue && in.Dst == NoValue:
		return fmt.Errorf("no result from %s, which returns %s", m.FullName(), m.Ret)
	case in.Dst != NoValue && f.Kinds[in.Dst] != KindOf(m.Ret):
		return fmt.Errorf("result %s is %s, %s returns %s", in.Dst, f.Kinds[in.Dst], m.FullName(), KindOf(m.Ret))
	case in.Kind != 0 && (in.Dst == NoValue || in.Kind != f.Kinds[in.Dst]):
		return fmt.Errorf("the kind of %s is %s, not that of its result", in.Op, in.Kind)
	}
	return nil
}

// checkRet checks a return against the method's return type.
func checkRet(f *Func, in *Instr) error {
	ret := f.Method.Ret
	switch {
	case ret.Kind == il.KValue && len(in.Args) != 0:
		return fmt.Errorf("returns a value from a method returning %s through its return buffer", ret)
	case ret.Kind == il.KValue:
		return nil
	case ret.Kind == il.KVoid && len(in.Args) != 0:
		return fmt.Errorf("returns a value from a void method")
	case ret.Kind != il.KVoid && len(in.Args) != 1:
		return fmt.Errorf("returns %d values, want one %s", len(in.Args), ret)
	case len(in.Args) == 1 && f.Kinds[in.Args[0]] != KindOf(ret):
		return fmt.Errorf("returns %s from a method returning %s", f.Kinds[in.Args[0]], ret)
	}
	return nil
}

// checkThrowHelper checks an implicit exception: an InvalidCastException
// names the object and the target type, the others take nothing.
func checkThrowHelper(f *Func, in *Instr) error {
	switch {
	case in.Aux.Type == nil && len(in.Args) != 0:
		return fmt.Errorf("%d operands without a target type", len(in.Args))
	case in.Aux.Type != nil && (len(in.Args) != 1 || f.Kinds[in.Args[0]] != Ref):
		return fmt.Errorf("a failed cast to %s needs the object as its one operand", in.Aux.Type)
	}
	return nil
}

// checkShape checks instruction in against its operation's opTable entry
// and rule. Its operands and results are known to be values of f.
func checkShape(f *Func, in *Instr) error {
	if in.Op == OpInvalid || in.Op >= numOps {
		return fmt.Errorf("invalid operation %d", in.Op)
	}
	info := &opTable[in.Op]
	has := auxSet(&in.Aux)
	if missing := info.aux &^ has; missing != 0 {
		return fmt.Errorf("%s without %s", in.Op, missing)
	}
	if extra := has &^ (info.aux | info.auxOpt); extra != 0 {
		return fmt.Errorf("%s with %s set", in.Op, extra)
	}
	// The Aux fields the rules read are set from here on.
	if err := info.kind.check(in, "the kind of "+in.Op.String(), in.Kind); err != nil {
		return err
	}
	if !info.variadic && len(in.Args) != len(info.args) {
		return fmt.Errorf("%s with %d operands, want %d", in.Op, len(in.Args), len(info.args))
	}
	for i, a := range in.Args {
		if a == NoValue {
			return fmt.Errorf("%s: operand %d is missing", in.Op, i)
		}
		if i < len(info.args) {
			if err := info.args[i].check(in, fmt.Sprintf("%s: operand %d %s", in.Op, i, a), f.Kinds[a]); err != nil {
				return err
			}
		}
	}
	switch {
	case info.dst == never && in.Dst != NoValue:
		return fmt.Errorf("%s has a result", in.Op)
	case info.dst == always && in.Dst == NoValue:
		return fmt.Errorf("%s has no result", in.Op)
	case info.dst == always:
		if err := info.dstKind.check(in, fmt.Sprintf("%s: result %s", in.Op, in.Dst), f.Kinds[in.Dst]); err != nil {
			return err
		}
	}
	switch {
	case info.dst2 && in.Dst2 == NoValue:
		return fmt.Errorf("%s has no overflow flag", in.Op)
	case !info.dst2 && in.Dst2 != NoValue:
		return fmt.Errorf("%s has a second result", in.Op)
	case info.dst2 && f.Kinds[in.Dst2] != I32:
		return fmt.Errorf("%s: overflow flag %s is %s, want i32", in.Op, in.Dst2, f.Kinds[in.Dst2])
	case info.dst2 && in.Dst2 == in.Dst:
		return fmt.Errorf("%s writes both results to %s", in.Op, in.Dst)
	}
	if info.rule != nil {
		return info.rule(f, in)
	}
	return nil
}

// kindName names k, also the zero kind.
func kindName(k Kind) string {
	if k == 0 {
		return "none"
	}
	return k.String()
}
