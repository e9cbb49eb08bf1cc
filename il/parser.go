package il

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"miniil/internal/chunked"
	"miniil/internal/slab"
)

// Load parses, resolves and verifies a program. The error is an ErrorList
// (or *Error) whose entries carry file:line:col.
func Load(file string, src []byte) (*Module, error) {
	return LoadString(file, string(src))
}

// LoadString is Load of a source held in a string: the module's names
// are substrings of it, so no copy of the source is made.
func LoadString(file string, src string) (*Module, error) {
	m, err := ParseString(file, src)
	if err != nil {
		return nil, err
	}
	if err := Verify(m); err != nil {
		return nil, err
	}
	return m, nil
}

// Parse parses a program and resolves its names against itself and the
// base library, without verifying method bodies.
func Parse(file string, src []byte) (m *Module, err error) {
	return ParseString(file, string(src))
}

// ParseString is Parse of a source held in a string.
func ParseString(file string, src string) (m *Module, err error) {
	if err := checkUTF8(file, src); err != nil {
		return nil, err
	}
	lx := newLexer(file, src)
	p := &parser{lx: lx, m: &Module{File: file},
		classTypes: map[string]*Type{}, arrayTypes: map[*Type]*Type{},
		valueTypes: map[string]*Type{}, bareTypes: map[string]*Type{}, byrefTypes: map[*Type]*Type{},
		// A method or field reference per 512 bytes of source or so
		// (issue 14's 2,000 small methods have one per 475): sized up
		// front, the maps are not rehashed as they grow.
		methodRefs: make(map[methodKey]*MethodRef, len(src)/512), fieldRefs: make(map[fieldKey]*FieldRef, len(src)/2048)}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			m, err = nil, b.err
			if !b.lexical {
				// A lexical error anywhere wins over a syntax error
				// before it: lex the rest to find one.
				if lerr := checkTokens(lx); lerr != nil {
					err = lerr
				}
			}
		}
	}()
	p.cur = p.lex()
	p.module()
	if err := resolve(p.m); err != nil {
		return nil, err
	}
	return p.m, nil
}

// bailout carries a syntax error out of the recursive-descent parser,
// or a lexical one (lexical) from the lexer it drives.
type bailout struct {
	err     *Error
	lexical bool
}

type parser struct {
	// The tokens are lexed as the parser goes (after a syntax error, the
	// rest is lexed too, so that a lexical error is reported first): cur
	// is the current token, ahead the one after it once peek has lexed
	// it, prevLine and prevCol the position of the one before.
	lx                *lexer
	cur, ahead        token
	hasAhead          bool
	prevLine, prevCol int32

	// Types and member references, one per distinct spelling.
	classTypes map[string]*Type
	arrayTypes map[*Type]*Type
	valueTypes map[string]*Type         // valuetype NAME, one per name
	bareTypes  map[string]*Type         // NAME in a type token, one per name
	byrefTypes map[*Type]*Type          // T&, one per T
	methodRefs map[methodKey]*MethodRef // the first of a class and name; more follow through MethodRef.same
	fieldRefs  map[fieldKey]*FieldRef
	// The module's small objects and lists come from slabs (slab.go).
	instrs    slab.Slab[Instr]
	methods   slab.Slab[Method]
	branches  slab.Slab[branch1]
	paramObjs slab.Slab[Param]
	refs      slab.Slab[MethodRef]
	fieldObjs slab.Slab[FieldRef]
	typeList  slab.Lists[*Type] // a method reference's parameter types
	localObjs slab.Slab[Local]
	code      chunked.List[*Instr] // the body being parsed
	codeSlab  slab.Slab[*Instr]
	labelList slab.Lists[Label]
	attrList  slab.Lists[string]
	paramList slab.Lists[*Param]
	localList slab.Lists[*Local]
	m         *Module
	ns        string // enclosing .namespace

	// per method body
	meth *Method
	// labels indexes the body's labels (label -> instruction index) once
	// it has labelMapMin of them, and is empty until then: defined scans
	// meth.Labels, cheaper than hashing for the few most bodies have.
	labels  map[string]int
	pending []token // labels waiting for the next instruction
	fixups  []fixup // branch operands to patch
	// clauseFixups are the label-form clause boundaries to resolve.
	clauseFixups []clauseFixup
}

// clauseFixup is a clause boundary given by a label.
type clauseFixup struct {
	dst *int
	tok token
	end bool // an end boundary: the label may follow the last instruction
}

type fixup struct {
	in  *Instr
	k   int
	tok token
}

// lex returns the lexer's next token; a lexical error ends the parse.
func (p *parser) lex() token {
	t, err := p.lx.next()
	if err != nil { // the first lexical error of the source
		panic(bailout{err: err.(*Error), lexical: true})
	}
	return t
}

// tok returns the current token.
func (p *parser) tok() token { return p.cur }

// peek returns the token after the current one (end of file at the end).
func (p *parser) peek() token {
	if !p.hasAhead {
		if p.cur.kind == tEOF {
			return p.cur
		}
		p.ahead, p.hasAhead = p.lex(), true
	}
	return p.ahead
}

// next moves to the next token and returns the one it leaves.
func (p *parser) next() token {
	t := p.cur
	if t.kind != tEOF {
		p.prevLine, p.prevCol = t.line, t.col
		if p.hasAhead {
			p.cur, p.hasAhead = p.ahead, false
		} else {
			p.cur = p.lex()
		}
	}
	return t
}

// at returns the position of a token.
func (p *parser) at(t token) Pos { return Pos{File: p.lx.file, Line: int(t.line), Col: int(t.col)} }

func (p *parser) errorf(pos Pos, format string, args ...any) {
	panic(bailout{err: &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}})
}

func (p *parser) isPunct(s string) bool {
	t := p.tok()
	return t.kind == tPunct && t.text == s
}

func (p *parser) isIdent(s string) bool {
	t := p.tok()
	return t.kind == tIdent && t.text == s
}

func (p *parser) expect(s string) token {
	t := p.tok()
	if t.kind != tPunct || t.text != s {
		p.errorf(p.at(t), "expected '%s', found %s", s, t)
	}
	return p.next()
}

// name reads a (possibly dotted or quoted) name.
func (p *parser) name(what string) (string, Pos) {
	t := p.tok()
	if t.kind == tIdent || t.kind == tQuoted {
		p.next()
		return t.text, p.at(t)
	}
	p.errorf(p.at(t), "expected %s, found %s", what, t)
	return "", Pos{}
}

// integer reads an integer literal that fits in 64 bits (signed or
// unsigned).
func (p *parser) integer(what string) (int64, Pos) {
	t := p.tok()
	if t.kind != tNumber {
		p.errorf(p.at(t), "expected %s, found %s", what, t)
	}
	p.next()
	v, ok := parseInt(t.text)
	if !ok {
		p.errorf(p.at(t), "%s: %q is not an integer that fits in 64 bits", what, t.text)
	}
	return v, p.at(t)
}

func parseInt(s string) (int64, bool) {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	var u uint64
	var err error
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		u, err = strconv.ParseUint(s[2:], 16, 64)
	} else {
		u, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil {
		return 0, false
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	return int64(u), true
}

// skipBlock skips a balanced { ... } block.
func (p *parser) skipBlock() {
	open := p.expect("{")
	depth := 1
	for depth > 0 {
		t := p.next()
		switch {
		case t.kind == tEOF:
			p.errorf(p.at(open), "block is not closed: missing '}'")
		case t.kind == tPunct && t.text == "{":
			depth++
		case t.kind == tPunct && t.text == "}":
			depth--
		}
	}
}

// skipCustom skips a .custom attribute: a method reference, then
// optionally = ( bytes ).
func (p *parser) skipCustom() {
	p.methodRef()
	if p.isPunct("=") {
		p.next()
		open := p.expect("(")
		for !p.isPunct(")") {
			if p.tok().kind == tEOF {
				p.errorf(p.at(open), "custom attribute blob is not closed: missing ')'")
			}
			p.next()
		}
		p.next()
	}
}

func (p *parser) module() {
	for p.tok().kind != tEOF {
		p.topDecl()
	}
}

func (p *parser) topDecl() {
	t := p.tok()
	if t.kind == tPunct && t.text == "}" && p.ns != "" {
		return
	}
	if t.kind != tDot {
		p.errorf(p.at(t), "expected a declaration such as .class or .method, found %s", t)
	}
	p.next()
	switch t.text {
	case ".assembly":
		if p.isIdent("extern") {
			p.next()
			n, _ := p.name("assembly name")
			p.m.Externs = append(p.m.Externs, n)
		} else {
			for p.tok().kind == tIdent && !p.isIdentAssemblyName() {
				p.next() // attributes such as retargetable
			}
			n, _ := p.name("assembly name")
			p.m.Assembly = n
		}
		p.skipBlock()
	case ".module":
		if p.isIdent("extern") {
			p.next()
			p.name("module name")
			return
		}
		n, _ := p.name("module name")
		p.m.Name = n
	case ".class":
		p.class()
	case ".method":
		m := p.method(nil)
		p.m.Methods = append(p.m.Methods, m)
	case ".field":
		f := p.field(nil)
		p.m.Fields = append(p.m.Fields, f)
	case ".namespace":
		if p.ns != "" {
			p.errorf(p.at(t), "nested .namespace is not supported")
		}
		n, _ := p.name("namespace name")
		p.expect("{")
		p.ns = n
		for !p.isPunct("}") {
			if p.tok().kind == tEOF {
				p.errorf(p.at(t), ".namespace %s is not closed: missing '}'", n)
			}
			p.topDecl()
		}
		p.next()
		p.ns = ""
	case ".corflags", ".subsystem", ".imagebase", ".stackreserve":
		p.integer(t.text + " value")
	case ".file":
		if p.isIdent("alignment") {
			p.next()
			p.integer(".file alignment value")
			return
		}
		p.errorf(p.at(t), ".file is not supported (only .file alignment N)")
	case ".custom":
		p.skipCustom()
	default:
		p.errorf(p.at(t), "unsupported declaration %s", t.text)
	}
}

// isIdentAssemblyName reports whether the current identifier is the
// assembly's name rather than an attribute (the name is followed by '{').
func (p *parser) isIdentAssemblyName() bool {
	n := p.peek()
	return n.kind == tPunct && n.text == "{"
}

var classAttrs = map[string]bool{
	"public": true, "private": true, "auto": true, "ansi": true, "beforefieldinit": true,
	"sealed": true, "abstract": true, "serializable": true, "sequential": true,
	"autochar": true, "unicode": true, "specialname": true, "rtspecialname": true,
}

func (p *parser) class() {
	var attrs []string
	for {
		t := p.tok()
		if t.kind != tIdent {
			break
		}
		if classAttrs[t.text] {
			attrs = append(attrs, t.text)
			p.next()
			continue
		}
		switch t.text {
		case "interface":
			attrs = append(attrs, t.text)
			p.next()
			continue
		case "nested":
			p.errorf(p.at(t), "nested classes are not supported in mini MSIL")
		case "explicit":
			p.errorf(p.at(t), "explicit class layout is not supported in mini MSIL")
		case "value":
			attrs = append(attrs, t.text) // a value type: extends System.ValueType
			p.next()
			continue
		}
		break
	}
	name, pos := p.name("class name")
	if p.isPunct("<") {
		p.errorf(p.at(p.tok()), "generic classes are not supported in mini MSIL")
	}
	if p.ns != "" {
		name = p.ns + "." + name
	}
	c := &Class{Name: name, Attrs: attrs, Pos: pos, IfaceIndex: -1, Interface: hasAttr(attrs, "interface")}
	if c.Interface && !hasAttr(attrs, "abstract") {
		p.errorf(pos, "interface %s must be declared abstract (.class interface abstract %s)", name, name)
	}
	if p.isIdent("extends") && c.Interface {
		p.errorf(p.at(p.tok()), "interface %s cannot extend a class; list the interfaces it extends after implements", name)
	}
	if p.isIdent("extends") {
		p.next()
		bt := p.tok()
		c.Extends = p.typeRef()
		switch {
		case c.Extends.Kind == KClass && (c.Extends.Name == "System.MulticastDelegate" || c.Extends.Name == "System.Delegate"):
			p.errorf(p.at(bt), "delegates are not supported in mini MSIL (class %s extends %s)", name, c.Extends.Name)
		case c.Extends.Kind != KClass && c.Extends.Kind != KObject:
			p.errorf(p.at(bt), "class %s cannot extend sealed class %s", name, c.Extends.CLRName())
		}
	}
	if c.Extends == nil && hasAttr(attrs, "value") {
		c.Extends = p.classType(ValueTypeClass)
	}
	if p.isIdent("implements") {
		p.next()
		for {
			c.Implements = append(c.Implements, p.typeRef())
			if !p.isPunct(",") {
				break
			}
			p.next()
		}
	}
	open := p.expect("{")
	for !p.isPunct("}") {
		t := p.tok()
		switch {
		case t.kind == tEOF:
			p.errorf(p.at(open), "class %s is not closed: missing '}'", name)
		case t.kind != tDot:
			p.errorf(p.at(t), "expected .field or .method in class %s, found %s", name, t)
		}
		p.next()
		switch t.text {
		case ".field":
			c.Fields = append(c.Fields, p.field(c))
		case ".method":
			c.Methods = append(c.Methods, p.method(c))
		case ".custom":
			p.skipCustom()
		case ".pack", ".size":
			p.integer(t.text + " value")
		case ".class":
			p.errorf(p.at(t), "nested classes are not supported in mini MSIL")
		case ".property", ".event":
			p.errorf(p.at(t), "%s is not supported in mini MSIL", t.text)
		default:
			p.errorf(p.at(t), "unsupported directive %s in class %s", t.text, name)
		}
	}
	p.next()
	p.m.Classes = append(p.m.Classes, c)
}

var fieldAttrs = map[string]bool{
	"public": true, "private": true, "family": true, "assembly": true, "famorassem": true,
	"famandassem": true, "static": true, "initonly": true, "notserialized": true,
	"specialname": true, "rtspecialname": true,
}

func (p *parser) field(owner *Class) *Field {
	f := &Field{Owner: owner}
	for p.tok().kind == tIdent {
		t := p.tok()
		if t.text == "literal" {
			p.errorf(p.at(t), "literal fields are not supported in mini MSIL")
		}
		if !fieldAttrs[t.text] {
			break
		}
		f.Attrs = append(f.Attrs, t.text)
		if t.text == "static" {
			f.Static = true
		}
		p.next()
	}
	f.Type = p.typ()
	if f.Type.Kind == KVoid {
		p.errorf(p.at(p.tok()), "a field cannot have type void")
	}
	f.Name, f.Pos = p.name("field name")
	if p.isPunct("=") || p.isIdent("at") {
		p.errorf(p.at(p.tok()), "field initializers are not supported in mini MSIL; assign the field in code")
	}
	if owner == nil && !f.Static {
		p.errorf(f.Pos, "global field %s must be static", f.Name)
	}
	return f
}

var methodAttrs = map[string]bool{
	"public": true, "private": true, "family": true, "assembly": true, "famorassem": true,
	"famandassem": true, "hidebysig": true, "static": true, "virtual": true, "newslot": true,
	"final": true, "specialname": true, "rtspecialname": true, "strict": true, "privatescope": true,
}

var implAttrs = map[string]bool{"cil": true, "managed": true, "il": true, "noinlining": true, "aggressiveinlining": true}

func (p *parser) method(owner *Class) *Method {
	start := p.lx.posOf(p.prevLine, p.prevCol)
	m := p.methods.One()
	*m = Method{Owner: owner, Slot: -1, MaxStack: 8}
	attrs := p.attrList.Start()
	for p.tok().kind == tIdent {
		t := p.tok()
		switch t.text {
		case "abstract":
			m.Abstract = true
			attrs = append(attrs, t.text)
			p.next()
			continue
		case "pinvokeimpl":
			p.errorf(p.at(t), "pinvokeimpl is not supported in mini MSIL")
		}
		if !methodAttrs[t.text] {
			break
		}
		attrs = append(attrs, t.text)
		switch t.text {
		case "static":
			m.Static = true
		case "virtual":
			m.Virtual = true
		case "newslot":
			m.NewSlot = true
		}
		p.next()
	}
	for p.isIdent("instance") || p.isIdent("default") || p.isIdent("explicit") {
		t := p.next()
		if t.text == "explicit" {
			p.errorf(p.at(t), "explicit this is not supported in mini MSIL")
		}
		if t.text == "instance" {
			attrs = append(attrs, "instance")
			if m.Static {
				p.errorf(p.at(t), "a method cannot be both static and instance")
			}
		}
	}
	m.Attrs = p.attrList.Keep(attrs)
	if owner == nil {
		if !m.Static {
			p.errorf(start, "global methods must be static")
		}
	}
	m.Ret = p.typ()
	t := p.tok()
	switch t.kind {
	case tIdent, tQuoted, tDot:
		p.next()
		m.Name = t.text
		m.Pos = p.at(t)
	default:
		p.errorf(p.at(t), "expected method name, found %s", t)
	}
	if t.kind == tDot && m.Name != ".ctor" && m.Name != cctorName {
		p.errorf(p.at(t), "unexpected %s: a method name cannot start with '.' (only .ctor and .cctor)", m.Name)
	}
	if p.isPunct("<") {
		p.errorf(p.at(p.tok()), "generic methods are not supported in mini MSIL")
	}
	p.expect("(")
	params := p.paramList.Start()
	for !p.isPunct(")") {
		if len(params) > 0 {
			p.expect(",")
		}
		if p.isPunct("[") {
			p.next()
			p.name("parameter attribute")
			p.expect("]")
		}
		pt := p.typ()
		if pt.Kind == KVoid {
			p.errorf(p.at(p.tok()), "a parameter cannot have type void")
		}
		prm := p.paramObjs.One()
		prm.Type = pt
		if t := p.tok(); t.kind == tIdent || t.kind == tQuoted {
			prm.Name = t.text
			p.next()
		}
		params = append(params, prm)
	}
	m.Params = p.paramList.Keep(params)
	p.next()
	impl := p.attrList.Start()
	for p.tok().kind == tIdent {
		t := p.tok()
		if !implAttrs[t.text] {
			p.errorf(p.at(t), "unsupported method implementation attribute %q (mini MSIL methods are cil managed)", t.text)
		}
		impl = append(impl, t.text)
		p.next()
	}
	m.Impl = p.attrList.Keep(impl)
	p.body(m)
	if m.Abstract && len(m.Code) > 0 {
		p.errorf(m.Pos, "abstract method %s cannot have a body", m.Name)
	}
	return m
}

// body parses a method body with its directives, labels, instructions and
// scoped exception blocks.
func (p *parser) body(m *Method) {
	open := p.expect("{")
	p.meth = m
	if len(p.labels) > 0 {
		clear(p.labels)
	}
	p.pending = p.pending[:0]
	p.fixups = p.fixups[:0]
	p.clauseFixups = p.clauseFixups[:0]
	p.code.Reset() // grown in chunks reused by every body
	m.Labels = p.labelList.Start()
	p.items(open)
	m.Code = p.codeSlab.Take(p.code.Len()) // then kept at its exact size
	p.code.CopyTo(m.Code)
	m.EndPos = p.at(p.next())
	// Labels after the last instruction mark the end of the code: only a
	// clause may end there.
	atEnd := map[string]token{}
	for _, l := range p.pending {
		atEnd[l.text] = l
	}
	for _, f := range p.fixups {
		idx, ok := p.defined(f.tok.text)
		if !ok {
			if l, end := atEnd[f.tok.text]; end {
				p.errorf(p.at(l), "label %s is not followed by an instruction", l.text)
			}
			p.errorf(p.at(f.tok), "undefined label %s", f.tok.text)
		}
		f.in.Targets()[f.k] = idx
	}
	endUsed := map[string]bool{}
	for _, f := range p.clauseFixups {
		idx, ok := p.defined(f.tok.text)
		if !ok {
			if _, end := atEnd[f.tok.text]; !end {
				p.errorf(p.at(f.tok), "undefined label %s", f.tok.text)
			}
			if !f.end {
				p.errorf(p.at(f.tok), "label %s is at the end of the method: a region cannot start there", f.tok.text)
			}
			idx = len(m.Code)
			endUsed[f.tok.text] = true
		}
		*f.dst = idx
	}
	for _, l := range p.pending {
		if !endUsed[l.text] {
			p.errorf(p.at(l), "label %s is not followed by an instruction", l.text)
		}
		m.Labels = append(m.Labels, Label{Name: l.text, Instr: len(m.Code)})
	}
	m.Labels = p.labelList.Keep(m.Labels)
	// IL offsets from the real encodings.
	off := 0
	for _, in := range m.Code {
		in.Offset = int32(off)
		off += in.Size()
	}
	m.CodeSize = off
	// Short branches encode an 8-bit displacement; ilasm silently
	// miscompiles one that does not fit. (The fixups list the branches,
	// in code order.)
	for _, f := range p.fixups {
		in := f.in
		if in.Op.Info().Operand != OpShortBr {
			continue
		}
		disp := int(m.Code[in.Target()].Offset) - (int(in.Offset) + in.Size())
		if disp < -128 || disp > 127 {
			long := strings.TrimSuffix(in.Op.String(), ".s")
			p.errorf(in.Pos(p.m.File), "%s %s: the target is %d bytes away, beyond the short form's reach (-128 to 127); use %s",
				in.Op, in.TargetNames()[0], disp, long)
		}
	}
	at := func(i int) int {
		if i < len(m.Code) {
			return int(m.Code[i].Offset)
		}
		return m.CodeSize
	}
	for _, c := range m.EH {
		c.TryOffset, c.TryLength = at(c.TryStart), at(c.TryEnd)-at(c.TryStart)
		c.HandlerOffset, c.HandlerLength = at(c.HandlerStart), at(c.HandlerEnd)-at(c.HandlerStart)
		if c.Kind == EHFilter {
			c.FilterOffset = at(c.FilterStart)
		}
	}
	p.meth = nil
}

// labelMapMin is the number of labels from which a body's are indexed
// by a map.
const labelMapMin = 16

// defined returns the instruction index of a label of the body being
// parsed, among those attached to an instruction so far.
func (p *parser) defined(name string) (int, bool) {
	if len(p.labels) > 0 {
		idx, ok := p.labels[name]
		return idx, ok
	}
	for _, l := range p.meth.Labels {
		if l.Name == name {
			return l.Instr, true
		}
	}
	return 0, false
}

// scope is a .try block, filter block or handler being parsed, with
// the state of its .try group (the clauses sharing one protected range).
// Nested scopes live on an explicit stack, not the Go stack, so nesting
// depth is bounded only by the source size.
type scope struct {
	kind             scopeKind
	open             token  // the opening brace
	what             string // for "not closed" errors
	dir              token  // the .try directive of the group
	tryStart, tryEnd int
	// labelTry: the group's try is given by labels (.try FROM to TO).
	labelTry       bool
	tryFrom, tryTo token
	clause         *EHClause // filter and handler scopes
	handlers       int       // handlers of the group parsed so far
}

type scopeKind uint8

const (
	scopeTry scopeKind = iota
	scopeFilter
	scopeHandler
)

// items parses body items until the closing '}' (not consumed) of the
// method body opened by open, scoped exception blocks included.
func (p *parser) items(open token) {
	m := p.meth
	var scopes []scope // innermost last
	for {
		if p.isPunct("}") {
			if len(scopes) == 0 {
				return
			}
			s := scopes[len(scopes)-1]
			scopes = scopes[:len(scopes)-1]
			p.next()
			switch s.kind {
			case scopeTry:
				s.tryEnd = p.code.Len()
				scopes = p.nextHandler(scopes, s)
			case scopeFilter:
				scopes = p.handlerBody(scopes, s)
			case scopeHandler:
				s.clause.HandlerEnd = p.code.Len()
				m.EH = append(m.EH, s.clause)
				s.handlers++
				scopes = p.nextHandler(scopes, s)
			}
			continue
		}
		t := p.tok()
		switch t.kind {
		case tEOF:
			what := "method " + m.Name
			if n := len(scopes); n > 0 {
				open, what = scopes[n-1].open, scopes[n-1].what
			}
			p.errorf(p.at(open), "%s is not closed: missing '}'", what)
		case tDot:
			p.next()
			switch t.text {
			case ".maxstack":
				v, pos := p.integer(".maxstack value")
				if v < 0 || v > 65535 {
					p.errorf(pos, ".maxstack %d is out of range (0 to 65535)", v)
				}
				m.MaxStack = int(v)
				m.HasMaxStack = true
			case ".locals":
				p.locals()
			case ".entrypoint":
				if !m.IsEntry {
					m.EntryPos = p.at(t)
				}
				m.IsEntry = true
			case ".try":
				if !p.isPunct("{") {
					// Label form: .try FROM to TO, then its handlers.
					g := scope{dir: t, labelTry: true}
					g.tryFrom, g.tryTo = p.clauseLabels(".try")
					scopes = p.nextHandler(scopes, g)
					continue
				}
				open := p.expect("{")
				scopes = append(scopes, scope{kind: scopeTry, open: open, what: ".try block", dir: t, tryStart: p.code.Len()})
			case ".custom":
				p.skipCustom()
			case ".line":
				p.errorf(p.at(t), ".line is not supported in mini MSIL")
			default:
				p.errorf(p.at(t), "unsupported directive %s in a method body", t.text)
			}
		case tIdent:
			if n := p.peek(); n.kind == tPunct && n.text == ":" {
				p.next()
				p.next()
				if _, dup := p.defined(t.text); dup {
					p.errorf(p.at(t), "label %s is defined twice", t.text)
				}
				for _, q := range p.pending {
					if q.text == t.text {
						p.errorf(p.at(t), "label %s is defined twice", t.text)
					}
				}
				p.pending = append(p.pending, t)
				continue
			}
			p.instr()
		default:
			p.errorf(p.at(t), "expected an instruction, label or directive, found %s", t)
		}
	}
}

// nextHandler parses what follows a try block or one of its handlers (g
// is the group's scope): handlers in the label form (handler FROM to TO),
// which need no scope, and then the head of a scoped handler, whose scope
// it pushes, or the end of the group.
func (p *parser) nextHandler(scopes []scope, g scope) []scope {
	for {
		t := p.tok()
		if t.kind != tIdent || t.text != "catch" && t.text != "finally" && t.text != "fault" && t.text != "filter" {
			break
		}
		c := &EHClause{Pos: p.at(t), TryPos: p.at(g.dir)}
		if g.labelTry {
			p.clauseFixup(&c.TryStart, g.tryFrom, false)
			p.clauseFixup(&c.TryEnd, g.tryTo, true)
		} else {
			c.TryStart, c.TryEnd = g.tryStart, g.tryEnd
		}
		g.clause = c
		switch t.text {
		case "catch":
			p.next()
			c.Kind = EHCatch
			c.CatchType = p.typeToken()
		case "finally":
			p.next()
			c.Kind = EHFinally
		case "fault":
			p.next()
			c.Kind = EHFault
		case "filter":
			p.next()
			c.Kind = EHFilter
			if p.isPunct("{") {
				g.kind, g.open, g.what = scopeFilter, p.expect("{"), "filter block"
				c.FilterStart = p.code.Len()
				return append(scopes, g)
			}
			// Label form: filter FROM; the filter runs up to the handler.
			lt := p.tok()
			if lt.kind == tNumber {
				p.errorf(p.at(lt), "numeric IL offsets in a filter clause are not supported; use a label")
			}
			if lt.kind != tIdent && lt.kind != tQuoted {
				p.errorf(p.at(lt), "expected '{' to open the filter block, or the label where it starts, found %s", lt)
			}
			p.next()
			p.clauseFixup(&c.FilterStart, lt, false)
		}
		if p.isPunct("{") {
			return p.handlerBody(scopes, g)
		}
		p.labelHandler(c)
		g.handlers++
	}
	if g.handlers == 0 {
		p.errorf(p.at(g.dir), ".try block has no handler: expected catch, filter, finally or fault after it")
	}
	return scopes
}

// handlerBody parses the handler of g's clause: a scoped block, whose
// scope it pushes, or the label form (handler FROM to TO), after which the
// group goes on.
func (p *parser) handlerBody(scopes []scope, g scope) []scope {
	c := g.clause
	if !p.isPunct("{") {
		if !p.isIdent("handler") {
			p.errorf(p.at(p.tok()), "expected '{' to open the %s handler, or handler FROM to TO, found %s", c.Kind, p.tok())
		}
		p.labelHandler(c)
		g.handlers++
		return p.nextHandler(scopes, g)
	}
	g.kind, g.open, g.what = scopeHandler, p.expect("{"), c.Kind.String()+" handler"
	c.HandlerStart = p.code.Len()
	return append(scopes, g)
}

// labelHandler parses "handler FROM to TO" and adds clause c, complete
// once its labels are resolved, to the method.
func (p *parser) labelHandler(c *EHClause) {
	if !p.isIdent("handler") {
		p.errorf(p.at(p.tok()), "expected '{' to open the %s handler, or handler FROM to TO, found %s", c.Kind, p.tok())
	}
	p.next()
	from, to := p.clauseLabels("handler")
	p.clauseFixup(&c.HandlerStart, from, false)
	p.clauseFixup(&c.HandlerEnd, to, true)
	p.meth.EH = append(p.meth.EH, c)
}

// clauseLabels parses "FROM to TO" after .try or handler.
func (p *parser) clauseLabels(what string) (from, to token) {
	label := func() token {
		t := p.tok()
		if t.kind == tNumber {
			p.errorf(p.at(t), "numeric IL offsets in %s are not supported; use labels (%s FROM to TO)", what, what)
		}
		if t.kind != tIdent && t.kind != tQuoted {
			if what == ".try" {
				p.errorf(p.at(t), "expected '{' to open the .try block, or .try FROM to TO with labels, found %s", t)
			}
			p.errorf(p.at(t), "expected a label in %s FROM to TO, found %s", what, t)
		}
		return p.next()
	}
	from = label()
	if !p.isIdent("to") {
		p.errorf(p.at(p.tok()), "expected 'to' in %s FROM to TO, found %s", what, p.tok())
	}
	p.next()
	return from, label()
}

// clauseFixup records that *dst is the instruction index of label tok,
// set when the body ends. An end label (end) may stand at the very end
// of the body, after the last instruction.
func (p *parser) clauseFixup(dst *int, tok token, end bool) {
	p.clauseFixups = append(p.clauseFixups, clauseFixup{dst: dst, tok: tok, end: end})
}

func (p *parser) locals() {
	m := p.meth
	if p.isIdent("init") {
		p.next()
		m.InitLocals = true
	}
	p.expect("(")
	first := true
	locals := append(p.localList.Start(), m.Locals...)
	for !p.isPunct(")") {
		if !first {
			p.expect(",")
		}
		first = false
		if p.isPunct("[") && p.peek().kind == tNumber {
			p.next()
			v, pos := p.integer("local index")
			if int(v) != len(locals) {
				p.errorf(pos, "local index [%d] does not match its position %d", v, len(locals))
			}
			p.expect("]")
		}
		lt := p.typ()
		if lt.Kind == KVoid {
			p.errorf(p.at(p.tok()), "a local cannot have type void")
		}
		l := p.localObjs.One()
		l.Type = lt
		if t := p.tok(); t.kind == tIdent || t.kind == tQuoted {
			l.Name = t.text
			p.next()
		}
		locals = append(locals, l)
	}
	m.Locals = p.localList.Keep(locals)
	p.next()
}

func (p *parser) instr() {
	m := p.meth
	t := p.next()
	if t.text == "constrained." {
		p.constrainedPrefix(t)
		return
	}
	op, ok := LookupOp(t.text)
	if !ok {
		p.errorf(p.at(t), "unknown instruction %q", t.text)
	}
	in := p.instrs.One()
	*in = Instr{Op: op, Line: t.line, Col: t.col}
	for _, l := range p.pending {
		m.Labels = append(m.Labels, Label{Name: l.text, Instr: p.code.Len()})
		switch {
		case len(p.labels) > 0:
			p.labels[l.text] = p.code.Len()
		case len(m.Labels) == labelMapMin:
			if p.labels == nil {
				p.labels = make(map[string]int, 2*labelMapMin)
			}
			for _, d := range m.Labels {
				p.labels[d.Name] = d.Instr
			}
		}
	}
	p.pending = p.pending[:0]
	info := op.Info()
	switch info.Operand {
	case OpNone:
		switch c := op.Canon(); {
		case c >= Ldarg0 && c <= Ldarg3:
			in.Int = int64(c - Ldarg0)
		case c >= Ldloc0 && c <= Ldloc3:
			in.Int = int64(c - Ldloc0)
		case c >= Stloc0 && c <= Stloc3:
			in.Int = int64(c - Stloc0)
		case c == LdcI4M1:
			in.Int = -1
		case c >= LdcI40 && c <= LdcI48:
			in.Int = int64(c - LdcI40)
		}
	case OpShortVar, OpVar:
		nt := p.tok()
		switch nt.kind {
		case tNumber:
			v, pos := p.integer("index")
			limit := int64(255)
			if info.Operand == OpVar {
				limit = 65534
			}
			if v < 0 || v > limit {
				p.errorf(pos, "%s index %d is out of range (0 to %d)", t.text, v, limit)
			}
			in.Int = v
		case tIdent, tQuoted:
			p.next()
			in.SetStr(nt.text)
			in.Int = -1
		default:
			p.errorf(p.at(nt), "%s needs an argument or local (index or name), found %s", t.text, nt)
		}
	case OpI1:
		v, pos := p.integer("ldc.i4.s operand")
		if v < -128 || v > 127 {
			p.errorf(pos, "ldc.i4.s operand %d does not fit in int8 (-128 to 127); use ldc.i4", v)
		}
		in.Int = v
	case OpI4:
		v, pos := p.integer("ldc.i4 operand")
		if v < math.MinInt32 || v > math.MaxUint32 {
			p.errorf(pos, "ldc.i4 operand %d does not fit in 32 bits; use ldc.i8", v)
		}
		in.Int = int64(int32(uint32(v)))
	case OpI8:
		v, _ := p.integer("ldc.i8 operand")
		in.Int = v
	case OpR4, OpR8:
		in.SetFloat(p.float(info.Operand == OpR4))
	case OpShortBr, OpBr:
		lt := p.tok()
		if lt.kind == tNumber {
			p.errorf(p.at(lt), "numeric branch offsets are not supported; branch to a label")
		}
		name, _ := p.name("label")
		b := p.branches.One()
		b.target[0], b.name[0] = -1, name
		b.branch = branch{targets: b.target[:], names: b.name[:]}
		in.operand = &b.branch
		p.fixups = append(p.fixups, fixup{in, 0, lt})
	case OpSwitch:
		p.expect("(")
		var targets []int
		var names []string
		for !p.isPunct(")") {
			if len(targets) > 0 {
				p.expect(",")
			}
			lt := p.tok()
			name, _ := p.name("label")
			p.fixups = append(p.fixups, fixup{in, len(targets), lt})
			targets = append(targets, -1)
			names = append(names, name)
		}
		p.next()
		in.SetTargets(targets, names)
	case OpMethod:
		in.SetMethod(p.methodRef())
	case OpField:
		in.SetField(p.fieldRef())
	case OpType:
		in.SetType(p.typeToken())
	case OpString:
		st := p.tok()
		if st.kind != tString {
			p.errorf(p.at(st), "ldstr needs a string literal, found %s", st)
		}
		p.next()
		s := st.text
		for p.isPunct("+") {
			p.next()
			nt := p.tok()
			if nt.kind != tString {
				p.errorf(p.at(nt), "expected a string literal after '+', found %s", nt)
			}
			p.next()
			s += nt.text
		}
		in.SetStr(s)
	}
	p.code.Append(in)
}

// constrainedPrefix parses `constrained. TYPE callvirt METHOD` (the
// prefix token t is read): the callvirt carries the type.
func (p *parser) constrainedPrefix(t token) {
	ty := p.typeToken()
	// ikdasm labels the callvirt too (IL_0016: between the prefix and
	// it): such a label names the whole prefixed instruction.
	for p.tok().kind == tIdent && p.peek().kind == tPunct && p.peek().text == ":" {
		l := p.next()
		p.next()
		if _, dup := p.defined(l.text); dup {
			p.errorf(p.at(l), "label %s is defined twice", l.text)
		}
		p.pending = append(p.pending, l)
	}
	if !p.isIdent("callvirt") {
		p.errorf(p.at(p.tok()), "constrained. must be followed by callvirt, found %s", p.tok())
		return
	}
	p.instr()
	in := p.code.Last()
	in.SetConstrained(ty)
	in.Line, in.Col = t.line, t.col
}

// float reads a float operand: a decimal literal, an integer, or the byte
// form ( 00 00 80 3F ) in little-endian order.
func (p *parser) float(single bool) float64 {
	t := p.tok()
	if t.kind == tPunct && t.text == "(" {
		p.next()
		var bs []byte
		for !p.isPunct(")") {
			bt := p.next()
			v, err := strconv.ParseUint(bt.text, 16, 8)
			if (bt.kind != tNumber && bt.kind != tIdent) || err != nil || len(bt.text) != 2 {
				p.errorf(p.at(bt), "expected a two-digit hex byte, found %s", bt)
			}
			bs = append(bs, byte(v))
		}
		p.next()
		if single {
			if len(bs) != 4 {
				p.errorf(p.at(t), "ldc.r4 byte form needs 4 bytes, found %d", len(bs))
			}
			return float64(math.Float32frombits(binary.LittleEndian.Uint32(bs)))
		}
		if len(bs) != 8 {
			p.errorf(p.at(t), "ldc.r8 byte form needs 8 bytes, found %d", len(bs))
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(bs))
	}
	if t.kind != tNumber {
		p.errorf(p.at(t), "expected a floating-point number, found %s", t)
	}
	p.next()
	if v, ok := parseInt(t.text); ok && !strings.ContainsAny(t.text, ".eE") || ok && strings.HasPrefix(strings.TrimLeft(t.text, "+-"), "0x") {
		if single {
			return float64(float32(v))
		}
		return float64(v)
	}
	// As ilasm does, a literal is read as a float64; ldc.r4 then narrows
	// it (so 1.0e300 is +Inf there, while it is out of range for ldc.r8
	// only beyond the float64 range).
	v, err := strconv.ParseFloat(t.text, 64)
	if err != nil {
		p.errorf(p.at(t), "%q is not a valid floating-point number", t.text)
	}
	if single {
		return float64(float32(v))
	}
	return v
}

// primitiveKeyword returns the type a type keyword names, or nil (a
// switch, not a map: types are parsed at every signature and operand).
func primitiveKeyword(s string) *Type {
	switch s {
	case "void":
		return Void
	case "bool":
		return Bool
	case "char":
		return Char
	case "int8":
		return Int8
	case "uint8":
		return UInt8
	case "int16":
		return Int16
	case "uint16":
		return UInt16
	case "int32":
		return Int32
	case "uint32":
		return UInt32
	case "int64":
		return Int64
	case "uint64":
		return UInt64
	case "float32":
		return Float32
	case "float64":
		return Float64
	case "string":
		return String
	case "object":
		return Object
	}
	return nil
}

// typeHints maps type names from other languages to ilasm keywords.
var typeHints = map[string]string{
	"long": "int64", "ulong": "uint64", "int": "int32", "uint": "uint32", "short": "int16",
	"ushort": "uint16", "byte": "uint8", "sbyte": "int8", "double": "float64", "float": "float32",
	"boolean": "bool", "Int32": "int32", "Int64": "int64", "String": "string", "Object": "object",
	"Boolean": "bool", "Double": "float64", "Single": "float32", "Char": "char", "Byte": "uint8",
}

// systemPrimitives maps System.X names to primitive types, where a type
// reference names a primitive (box [mscorlib]System.Int32).
var systemPrimitives = map[string]*Type{
	"System.Void": Void, "System.Boolean": Bool, "System.Char": Char, "System.SByte": Int8,
	"System.Byte": UInt8, "System.Int16": Int16, "System.UInt16": UInt16,
	"System.Int32": Int32, "System.UInt32": UInt32, "System.Int64": Int64,
	"System.UInt64": UInt64, "System.IntPtr": NatInt, "System.UIntPtr": NatUInt,
	"System.Single": Float32, "System.Double": Float64, "System.String": String,
	"System.Object": Object,
}

// isTypeStart reports whether the current token starts a type spec (as
// opposed to a bare type reference).
func (p *parser) isTypeStart() bool {
	t := p.tok()
	if t.kind != tIdent {
		return false
	}
	if primitiveKeyword(t.text) != nil {
		return true
	}
	switch t.text {
	case "class", "valuetype", "native", "unsigned", "typedref", "method":
		return true
	}
	return false
}

// typ parses a type spec: a primitive keyword, class/valuetype TYPEREF,
// native [unsigned] int, unsigned intN, each followed by any number of [].
func (p *parser) typ() *Type {
	t := p.tok()
	var ty *Type
	if t.kind == tPunct && t.text == "[" {
		// [scope]Dotted.Name without class or valuetype, as ikdasm
		// writes base library types: resolution tells which it is.
		name, _ := p.scopedName()
		if pt, ok := systemPrimitives[name]; ok {
			return p.arraySuffix(pt)
		}
		return p.arraySuffix(p.bareType(name))
	}
	if t.kind != tIdent {
		p.errorf(p.at(t), "expected a type, found %s", t)
	}
	p.next()
	if pt := primitiveKeyword(t.text); pt != nil {
		ty = pt
	} else {
		switch t.text {
		case "class":
			ty = p.typeRef()
		case "valuetype":
			rt := p.tok()
			name, _ := p.scopedName()
			if pt, ok := systemPrimitives[name]; ok {
				ty = pt
				if ty.Kind == KObject || ty.Kind == KString {
					p.errorf(p.at(rt), "%s is a class, not a value type: write class %s", name, name)
				}
			} else {
				ty = p.valueType(name)
			}
		case "native":
			if p.isIdent("unsigned") {
				p.next()
				if !p.isIdent("int") {
					p.errorf(p.at(p.tok()), "expected 'int' after 'native unsigned', found %s", p.tok())
				}
				p.next()
				ty = NatUInt
			} else if p.isIdent("uint") {
				p.next()
				ty = NatUInt
			} else {
				if !p.isIdent("int") {
					p.errorf(p.at(p.tok()), "expected 'int' after 'native', found %s", p.tok())
				}
				p.next()
				ty = NatInt
			}
		case "unsigned":
			u := p.tok()
			p.next()
			switch u.text {
			case "int8":
				ty = UInt8
			case "int16":
				ty = UInt16
			case "int32":
				ty = UInt32
			case "int64":
				ty = UInt64
			default:
				p.errorf(p.at(u), "expected int8, int16, int32 or int64 after 'unsigned', found %s", u)
			}
		case "typedref", "method", "wchar":
			p.errorf(p.at(t), "type %q is not supported in mini MSIL", t.text)
		default:
			if kw, ok := typeHints[t.text]; ok {
				p.errorf(p.at(t), "unknown type %q: mini MSIL spells it %s", t.text, kw)
			}
			p.errorf(p.at(t), "unknown type %q (a class type is written 'class %s')", t.text, t.text)
		}
	}
	return p.arraySuffix(ty)
}

func (p *parser) arraySuffix(ty *Type) *Type {
	for {
		switch {
		case p.isPunct("["):
			if n := p.peek(); n.kind == tIdent || n.kind == tQuoted || n.kind == tDot {
				return ty // an assembly scope: [mscorlib]System.X
			}
			open := p.next()
			if !p.isPunct("]") {
				p.errorf(p.at(open), "only single-dimension zero-based arrays (T[]) are supported in mini MSIL")
			}
			p.next()
			if ty.Kind == KVoid {
				p.errorf(p.at(open), "void[] is not a type")
			}
			if ty.Kind == KByRef {
				p.errorf(p.at(open), "%s[] is not a type: arrays of managed pointers are not allowed", ty)
			}
			ty = p.arrayOf(ty)
		case p.isPunct("&"):
			amp := p.next()
			switch ty.Kind {
			case KVoid:
				p.errorf(p.at(amp), "void& is not a type")
			case KByRef:
				p.errorf(p.at(amp), "%s& is not a type: a managed pointer cannot point to a managed pointer", ty)
			}
			ty = p.byrefOf(ty)
		case p.isPunct("*"):
			p.errorf(p.at(p.tok()), "unmanaged pointer types (T*) are not supported in mini MSIL; use a managed pointer (T&)")
		case p.isPunct("<"):
			p.errorf(p.at(p.tok()), "generic types are not supported in mini MSIL")
		default:
			return ty
		}
	}
}

// typeRef parses [scope]Dotted.Name, mapping System.Object and
// System.String (and the other primitive System names) to their types.
func (p *parser) typeRef() *Type {
	name, _ := p.scopedName()
	if pt, ok := systemPrimitives[name]; ok {
		return pt
	}
	return p.classType(name)
}

// classType returns the class type of a name: one *Type per name in a
// module (resolution links it to its class once for all its uses).
func (p *parser) classType(name string) *Type { return interned(p.classTypes, name, ClassType) }

// interned returns the type of key in types, made by mk on first use.
func interned[K comparable](types map[K]*Type, key K, mk func(K) *Type) *Type {
	t := types[key]
	if t == nil {
		t = mk(key)
		types[key] = t
	}
	return t
}

// valueType returns the value type of a name, one *Type per name.
func (p *parser) valueType(name string) *Type { return interned(p.valueTypes, name, ValueType) }

// byrefOf returns the managed pointer type elem&, one per target type.
func (p *parser) byrefOf(elem *Type) *Type { return interned(p.byrefTypes, elem, ByRefOf) }

// arrayOf returns the array type of elem, one per element type.
func (p *parser) arrayOf(elem *Type) *Type { return interned(p.arrayTypes, elem, ArrayOf) }

// scopedName parses an optional [assembly] scope and a dotted name.
func (p *parser) scopedName() (string, Pos) {
	if p.isPunct("[") {
		open := p.next()
		if p.tok().kind == tDot && p.tok().text == ".module" {
			p.next()
		}
		p.name("assembly name in [ ]")
		if !p.isPunct("]") {
			p.errorf(p.at(open), "expected ']' to close the assembly scope, found %s", p.tok())
		}
		p.next()
	}
	name, pos := p.name("type name")
	if p.isPunct("/") {
		p.errorf(p.at(p.tok()), "nested classes are not supported in mini MSIL")
	}
	return name, pos
}

// typeToken parses the operand of castclass, isinst, box, unbox.any,
// newarr, ldelem, stelem and catch: a type spec or a bare type reference.
func (p *parser) typeToken() *Type {
	if p.isTypeStart() {
		return p.typ()
	}
	t := p.tok()
	if t.kind != tIdent && t.kind != tQuoted && !(t.kind == tPunct && t.text == "[") {
		p.errorf(p.at(t), "expected a type, found %s", t)
	}
	name, _ := p.scopedName()
	if pt, ok := systemPrimitives[name]; ok {
		return p.arraySuffix(pt)
	}
	return p.arraySuffix(p.bareType(name))
}

// bareType returns the type of a class or value type named without class
// or valuetype (the operand of box, newarr, ...): resolution makes it a
// value type if the name is one.
func (p *parser) bareType(name string) *Type {
	return interned(p.bareTypes, name, func(name string) *Type { return &Type{Kind: KClass, Name: name, bare: true} })
}

// ownerRef parses the class part of a member reference: [class] TYPEREF.
func (p *parser) ownerRef() *Type {
	if p.isIdent("class") || p.isIdent("valuetype") {
		p.next()
	}
	name, _ := p.scopedName()
	return p.classType(name)
}

// methodRef parses [instance] RET [OWNER::]NAME(TYPES).
func (p *parser) methodRef() *MethodRef {
	var r MethodRef // copied to the module's slab if it is new
	if p.isIdent("instance") {
		p.next()
		r.Instance = true
	}
	if p.isIdent("explicit") || p.isIdent("vararg") {
		p.errorf(p.at(p.tok()), "%s calling convention is not supported in mini MSIL", p.tok().text)
	}
	r.Ret = p.typ()
	var owner *Type
	if p.isIdent("class") || p.isPunct("[") {
		owner = p.ownerRef()
		if !p.isPunct("::") {
			p.errorf(p.at(p.tok()), "expected '::' after class %s, found %s", owner.Name, p.tok())
		}
	}
	t := p.tok()
	if owner == nil && (t.kind == tIdent || t.kind == tQuoted) {
		if n := p.peek(); n.kind == tPunct && n.text == "::" {
			owner = p.ownerRef()
		}
	}
	if owner != nil {
		p.expect("::")
		r.Class = owner
	}
	t = p.tok()
	switch {
	case t.kind == tIdent || t.kind == tQuoted || t.kind == tDot && (t.text == ".ctor" || t.text == ".cctor"):
		p.next()
		r.Name = t.text
	default:
		p.errorf(p.at(t), "expected a method name, found %s", t)
	}
	if p.isPunct("<") {
		p.errorf(p.at(p.tok()), "generic methods are not supported in mini MSIL")
	}
	p.expect("(")
	r.Params = p.typeList.Start()
	for !p.isPunct(")") {
		if len(r.Params) > 0 {
			p.expect(",")
		}
		r.Params = append(r.Params, p.typ())
	}
	p.next()
	return p.internMethodRef(&r)
}

// methodKey groups method references by class and name (the rest of
// the signature is compared along the group's chain); fieldKey
// identifies equal field references. Types are interned, so comparing
// them is comparing pointers.
type methodKey struct {
	class *Type
	name  string
}

type fieldKey struct {
	typ, class *Type
	name       string
}

// internMethodRef returns the module's reference equal to r, so a method
// called from many places costs one MethodRef: r itself is a parse's
// scratch (its parameters in the list buffer), copied if it is new.
func (p *parser) internMethodRef(r *MethodRef) *MethodRef {
	k := methodKey{r.Class, r.Name}
	first := p.methodRefs[k]
next:
	for old := first; old != nil; old = old.same {
		if old.Instance != r.Instance || old.Ret != r.Ret || len(old.Params) != len(r.Params) {
			continue
		}
		for i, t := range old.Params {
			if t != r.Params[i] {
				continue next
			}
		}
		return old
	}
	nr := p.refs.One()
	*nr = *r
	nr.Params = p.typeList.Keep(r.Params)
	nr.same = first
	p.methodRefs[k] = nr
	return nr
}

// fieldRef parses TYPE [OWNER::]NAME.
func (p *parser) fieldRef() *FieldRef {
	r := FieldRef{Type: p.typ()} // copied to the module's slab if it is new
	if p.isIdent("class") || p.isPunct("[") {
		r.Class = p.ownerRef()
		p.expect("::")
	} else if n := p.peek(); n.kind == tPunct && n.text == "::" {
		r.Class = p.ownerRef()
		p.expect("::")
	}
	r.Name, _ = p.name("field name")
	k := fieldKey{r.Type, r.Class, r.Name}
	if old := p.fieldRefs[k]; old != nil {
		return old
	}
	nr := p.fieldObjs.One()
	*nr = r
	p.fieldRefs[k] = nr
	return nr
}
