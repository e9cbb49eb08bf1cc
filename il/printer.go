package il

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// PrintOptions controls Fprint.
type PrintOptions struct {
	// Offsets adds each instruction's IL offset and each method's EH
	// clause table (IL offsets) as comments. The output still parses.
	Offsets bool
}

// Fprint writes m in ilasm syntax. The output parses back to a module
// equal to m (up to positions, comments and layout).
func Fprint(w io.Writer, m *Module, opts PrintOptions) error {
	bw := bufio.NewWriter(w)
	pr := &printer{w: bw, m: m, opts: opts}
	pr.module()
	return bw.Flush()
}

// String returns m in ilasm syntax.
func (m *Module) String() string {
	var b strings.Builder
	Fprint(&b, m, PrintOptions{})
	return b.String()
}

type printer struct {
	w    *bufio.Writer
	m    *Module
	opts PrintOptions
}

func (pr *printer) printf(format string, args ...any) { fmt.Fprintf(pr.w, format, args...) }

func (pr *printer) module() {
	for _, e := range pr.m.Externs {
		pr.printf(".assembly extern %s {}\n", quoteName(e))
	}
	if pr.m.Assembly != "" {
		pr.printf(".assembly %s {}\n", quoteName(pr.m.Assembly))
	}
	if pr.m.Name != "" {
		pr.printf(".module %s\n", quoteName(pr.m.Name))
	}
	for _, f := range pr.m.Fields {
		pr.printf("\n")
		pr.field(f, "")
	}
	for _, c := range pr.m.Classes {
		pr.printf("\n.class %s%s", attrs(c.Attrs), quoteName(c.Name))
		if c.Extends != nil {
			pr.printf(" extends %s", pr.typeRef(c.Extends))
		}
		for i, t := range c.Implements {
			if i == 0 {
				pr.printf(" implements ")
			} else {
				pr.printf(", ")
			}
			pr.printf("%s", pr.typeRef(t))
		}
		pr.printf("\n{\n")
		for _, f := range c.Fields {
			pr.field(f, "  ")
		}
		for _, md := range c.Methods {
			pr.method(md, "  ")
		}
		pr.printf("}\n")
	}
	for _, md := range pr.m.Methods {
		pr.printf("\n")
		pr.method(md, "")
	}
}

func attrs(a []string) string {
	if len(a) == 0 {
		return ""
	}
	return strings.Join(a, " ") + " "
}

func (pr *printer) field(f *Field, indent string) {
	pr.printf("%s.field %s%s %s\n", indent, attrs(f.Attrs), pr.typ(f.Type), quoteName(f.Name))
}

// quoteName returns a name as ilasm accepts it: bare when it is an
// identifier, single-quoted otherwise.
func quoteName(s string) string {
	ok := s != "" && isIdentStart(s[0])
	for i := 0; ok && i < len(s); i++ {
		ok = isIdentPart(s[i])
	}
	if ok && !strings.HasSuffix(s, ".") && !strings.Contains(s, "..") {
		if primitiveKeyword(s) == nil && !reserved[s] {
			return s
		}
	}
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// reserved are words that would be misread as keywords where a name is
// expected.
var reserved = map[string]bool{
	"class": true, "valuetype": true, "native": true, "unsigned": true, "instance": true,
	"extends": true, "catch": true, "finally": true, "fault": true, "filter": true,
	"init": true, "static": true, "public": true, "private": true, "virtual": true,
	"cil": true, "managed": true, "explicit": true, "default": true, "method": true,
	"typedref": true, "int": true, "float": true, "extern": true, "literal": true,
}

// typ prints a type spec; base library classes get the [mscorlib] scope
// so that stock ilasm accepts the output too.
func (pr *printer) typ(t *Type) string {
	elem, rank := t.innermost()
	if elem.Kind == KClass {
		return withBrackets("class "+pr.typeRef(elem), rank)
	}
	return t.String()
}

// typeRef prints a class reference: [mscorlib]System.X or Name.
func (pr *printer) typeRef(t *Type) string {
	switch t.Kind {
	case KObject:
		return "[mscorlib]System.Object"
	case KString:
		return "[mscorlib]System.String"
	case KClass:
		if c := pr.m.classes[t.Name]; c != nil && c.Builtin {
			return "[mscorlib]" + quoteName(t.Name)
		}
		return quoteName(t.Name)
	}
	return pr.typ(t)
}

func (pr *printer) method(md *Method, indent string) {
	pr.printf("%s.method %s%s %s(", indent, attrs(md.Attrs), pr.typ(md.Ret), quoteMethodName(md.Name))
	for i, p := range md.Params {
		if i > 0 {
			pr.printf(", ")
		}
		pr.printf("%s", pr.typ(p.Type))
		if p.Name != "" {
			pr.printf(" %s", quoteName(p.Name))
		}
	}
	pr.printf(")")
	if len(md.Impl) > 0 {
		pr.printf(" %s", strings.Join(md.Impl, " "))
	}
	pr.printf("\n%s{\n", indent)
	in := indent + "  "
	if md.IsEntry {
		pr.printf("%s.entrypoint\n", in)
	}
	if md.HasMaxStack {
		pr.printf("%s.maxstack %d\n", in, md.MaxStack)
	}
	if len(md.Locals) > 0 {
		pr.printf("%s.locals ", in)
		if md.InitLocals {
			pr.printf("init ")
		}
		pr.printf("(")
		for i, l := range md.Locals {
			if i > 0 {
				pr.printf(", ")
			}
			pr.printf("%s", pr.typ(l.Type))
			if l.Name != "" {
				pr.printf(" %s", quoteName(l.Name))
			}
		}
		pr.printf(")\n")
	} else if md.InitLocals {
		pr.printf("%s.locals init ()\n", in)
	}
	pr.body(md, in)
	if pr.opts.Offsets && len(md.EH) > 0 {
		pr.printf("%s// EH clauses (IL offsets, in table order):\n", in)
		for i, c := range md.EH {
			pr.printf("%s//   %d: %s\n", in, i, c.Describe())
		}
	}
	pr.printf("%s}\n", indent)
}

func quoteMethodName(s string) string {
	if s == ".ctor" || s == ".cctor" {
		return s
	}
	return quoteName(s)
}

// Describe returns a one-line description of the clause in IL offsets.
func (c *EHClause) Describe() string {
	kind := strings.ToUpper(c.Kind.String())
	if c.Kind == EHCatch {
		kind += " " + c.CatchType.CLRName()
	}
	s := fmt.Sprintf("%-8s try IL_%04x-IL_%04x handler IL_%04x-IL_%04x", kind,
		c.TryOffset, c.TryOffset+c.TryLength, c.HandlerOffset, c.HandlerOffset+c.HandlerLength)
	if c.Kind == EHFilter {
		s += fmt.Sprintf(" filter IL_%04x", c.FilterOffset)
	}
	return s
}

// tryGroup is one scoped .try with its handlers (clauses sharing a
// protected range).
type tryGroup struct {
	start, end int // whole span, try and handlers
	clauses    []*EHClause
	done       bool
}

// maxIndent is the deepest nesting the printer indents: deeper blocks
// are printed at this indentation, so the output stays linear in the
// size of the program however deep its .try blocks nest.
const maxIndent = 32

// printFrame is a block of instructions being printed, or a .try group
// whose parts are being printed (g set).
type printFrame struct {
	i, hi int // block: next instruction and end
	depth int // nesting below the method body
	g     *tryGroup
	k     int // group: the clause being printed
	part  int // group: what was printed last (see body)
}

// Parts of a group, printed in order: the try block, then each clause's
// filter block (filters only) and handler block.
const (
	partTry = iota
	partFilter
	partHandler
)

// body prints md's instructions, rebuilding the scoped .try blocks from
// the clause table. Open blocks live on an explicit stack, and the groups
// starting at each instruction are found through an index: linear time
// and no recursion, however deep the nesting.
func (pr *printer) body(md *Method, indent string) {
	if needsLabelForm(md) {
		pr.labelBody(md, indent)
		return
	}
	var groups []*tryGroup
	byRange := map[[2]int]*tryGroup{}
	for _, c := range md.EH {
		k := [2]int{c.TryStart, c.TryEnd}
		g := byRange[k]
		if g == nil {
			g = &tryGroup{start: c.TryStart, end: c.TryEnd}
			byRange[k] = g
			groups = append(groups, g)
		}
		g.clauses = append(g.clauses, c)
		if c.HandlerEnd > g.end {
			g.end = c.HandlerEnd
		}
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if groups[i].start != groups[j].start {
			return groups[i].start < groups[j].start
		}
		return groups[i].end > groups[j].end
	})
	// first[i] is the position in groups of the first group that starts
	// at instruction i and is not printed yet.
	first := map[int]int{}
	for k := len(groups) - 1; k >= 0; k-- {
		first[groups[k].start] = k
	}
	// pending returns the outermost unprinted group starting at i inside
	// [i, hi].
	pending := func(i, hi int) *tryGroup {
		k, ok := first[i]
		if !ok {
			return nil
		}
		for ; k < len(groups) && groups[k].start == i && groups[k].done; k++ {
			first[i] = k + 1
		}
		for ; k < len(groups) && groups[k].start == i; k++ {
			if g := groups[k]; !g.done && g.end <= hi {
				return g
			}
		}
		return nil
	}
	labels := map[int][]string{}
	for _, l := range md.Labels {
		labels[l.Instr] = append(labels[l.Instr], l.Name)
	}
	indents := []string{indent}
	ind := func(depth int) string {
		depth = min(depth, maxIndent)
		for len(indents) <= depth {
			indents = append(indents, indents[len(indents)-1]+"  ")
		}
		return indents[depth]
	}
	stack := []printFrame{{i: 0, hi: len(md.Code)}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		in := ind(f.depth)
		if f.g == nil { // a block
			if f.i <= f.hi {
				if g := pending(f.i, f.hi); g != nil {
					g.done = true
					f.i = g.end
					c0 := g.clauses[0]
					pr.printf("%s.try\n%s{\n", in, in)
					depth := f.depth
					stack = append(stack,
						printFrame{g: g, depth: depth, part: partTry},
						printFrame{i: c0.TryStart, hi: c0.TryEnd, depth: depth + 1})
					continue
				}
				if f.i < f.hi {
					pr.instr(md.Code[f.i], labels[f.i], in)
					f.i++
					continue
				}
			}
			stack = stack[:len(stack)-1]
			continue
		}
		// A group: close the block just printed, then open the next one.
		pr.printf("%s}\n", in)
		switch f.part {
		case partFilter:
			c := f.g.clauses[f.k]
			pr.printf("%s{\n", in)
			f.part = partHandler
			stack = append(stack, printFrame{i: c.HandlerStart, hi: c.HandlerEnd, depth: f.depth + 1})
			continue
		case partHandler:
			f.k++
		}
		if f.k == len(f.g.clauses) {
			stack = stack[:len(stack)-1]
			continue
		}
		c := f.g.clauses[f.k]
		switch c.Kind {
		case EHCatch:
			pr.printf("%scatch %s\n", in, pr.typeRef(c.CatchType))
		case EHFilter:
			pr.printf("%sfilter\n%s{\n", in, in)
			f.part = partFilter
			stack = append(stack, printFrame{i: c.FilterStart, hi: c.HandlerStart, depth: f.depth + 1})
			continue
		default:
			pr.printf("%s%s\n", in, c.Kind)
		}
		pr.printf("%s{\n", in)
		f.part = partHandler
		stack = append(stack, printFrame{i: c.HandlerStart, hi: c.HandlerEnd, depth: f.depth + 1})
	}
}

// needsLabelForm reports whether md's clauses cannot be printed as
// scoped blocks: a try whose handlers (each filter right before its
// handler) do not follow it directly, or a table order other than the one
// the scoped form gives (a clause is added when its handler closes).
func needsLabelForm(md *Method) bool {
	groups := map[[2]int]int{} // try range -> where the group's next part starts
	for _, c := range md.EH {
		k := [2]int{c.TryStart, c.TryEnd}
		at, ok := groups[k]
		if !ok {
			at = c.TryEnd
		}
		start := c.HandlerStart
		if c.Kind == EHFilter {
			start = c.FilterStart
		}
		if start != at {
			return true
		}
		groups[k] = c.HandlerEnd
	}
	for i := 1; i < len(md.EH); i++ {
		a, b := md.EH[i-1], md.EH[i]
		if a.HandlerEnd > b.HandlerEnd || a.HandlerEnd == b.HandlerEnd && a.HandlerStart < b.HandlerStart {
			return true
		}
	}
	return false
}

// labelBody prints md's instructions with every clause in the label form:
// a label at each region boundary (the method's own where it has one) and
// the clauses, in table order, as directives after the last instruction.
func (pr *printer) labelBody(md *Method, indent string) {
	labels := map[int][]string{}
	used := map[string]bool{}
	var endLabel string // a label after the last instruction
	for _, l := range md.Labels {
		if l.Instr < len(md.Code) {
			labels[l.Instr] = append(labels[l.Instr], l.Name)
		} else if endLabel == "" {
			endLabel = l.Name
		}
		used[l.Name] = true
	}
	name := map[int]string{} // boundary -> its label
	bound := func(i int) string {
		if n, ok := name[i]; ok {
			return n
		}
		n := ""
		if ls := labels[i]; len(ls) > 0 {
			n = ls[0]
		} else if i == len(md.Code) && endLabel != "" {
			n = endLabel
		} else {
			off := md.CodeSize
			if i < len(md.Code) {
				off = int(md.Code[i].Offset)
			}
			n = fmt.Sprintf("EH_%04x", off)
			for k := 2; used[n]; k++ {
				n = fmt.Sprintf("EH_%04x_%d", off, k)
			}
			used[n] = true
			if i < len(md.Code) {
				labels[i] = append(labels[i], n)
			}
		}
		name[i] = n
		return n
	}
	var dirs []string
	for _, c := range md.EH {
		d := fmt.Sprintf(".try %s to %s ", quoteName(bound(c.TryStart)), quoteName(bound(c.TryEnd)))
		switch c.Kind {
		case EHCatch:
			d += "catch " + pr.typeRef(c.CatchType)
		case EHFilter:
			d += "filter " + quoteName(bound(c.FilterStart))
		default:
			d += c.Kind.String()
		}
		d += fmt.Sprintf(" handler %s to %s", quoteName(bound(c.HandlerStart)), quoteName(bound(c.HandlerEnd)))
		dirs = append(dirs, d)
	}
	for i, in := range md.Code {
		pr.instr(in, labels[i], indent)
	}
	if n, ok := name[len(md.Code)]; ok {
		pr.printf("%s%s:\n", indent, quoteName(n))
	}
	for _, d := range dirs {
		pr.printf("%s%s\n", indent, d)
	}
}

func (pr *printer) instr(in *Instr, labels []string, indent string) {
	for _, l := range labels {
		pr.printf("%s%s:\n", indent, quoteName(l))
	}
	pr.printf("%s", indent)
	if pr.opts.Offsets {
		pr.printf("/* IL_%04x */ ", in.Offset)
	}
	if c := in.Constrained(); c != nil {
		pr.printf("constrained. %s ", pr.typeToken(c.Type))
	}
	pr.printf("%s", in.Op)
	switch in.Op.Info().Operand {
	case OpShortVar, OpVar:
		if in.Str() != "" {
			pr.printf(" %s", quoteName(in.Str()))
		} else {
			pr.printf(" %d", in.Int)
		}
	case OpI1, OpI4, OpI8:
		pr.printf(" %d", in.Int)
	case OpR4:
		v := in.Float()
		f := float32(v)
		if math.IsNaN(v) || math.IsInf(v, 0) || f == 0 && math.Signbit(v) {
			var b [4]byte
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(f))
			pr.printf(" (%02X %02X %02X %02X)", b[0], b[1], b[2], b[3])
		} else {
			// The literal is read as a float64 and then narrowed: the
			// shortest float32 digits can round twice to another value,
			// the float64 digits of f never do.
			s := strconv.FormatFloat(float64(f), 'g', -1, 32)
			if g, err := strconv.ParseFloat(s, 64); err != nil || float32(g) != f {
				s = strconv.FormatFloat(float64(f), 'g', -1, 64)
			}
			pr.printf(" %s", floatLit(s))
		}
	case OpR8:
		v := in.Float()
		if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 && math.Signbit(v) {
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			pr.printf(" (%02X %02X %02X %02X %02X %02X %02X %02X)", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7])
		} else {
			pr.printf(" %s", floatLit(strconv.FormatFloat(v, 'g', -1, 64)))
		}
	case OpShortBr, OpBr:
		pr.printf(" %s", quoteName(in.TargetNames()[0]))
	case OpSwitch:
		pr.printf(" (")
		for i, n := range in.TargetNames() {
			if i > 0 {
				pr.printf(", ")
			}
			pr.printf("%s", quoteName(n))
		}
		pr.printf(")")
	case OpMethod:
		r := in.Method()
		pr.printf(" ")
		if r.Instance {
			pr.printf("instance ")
		}
		pr.printf("%s ", pr.typ(r.Ret))
		if r.Class != nil {
			pr.printf("%s::", pr.typeRef(r.Class))
		}
		pr.printf("%s(", quoteMethodName(r.Name))
		for i, t := range r.Params {
			if i > 0 {
				pr.printf(", ")
			}
			pr.printf("%s", pr.typ(t))
		}
		pr.printf(")")
	case OpField:
		r := in.Field()
		pr.printf(" %s ", pr.typ(r.Type))
		if r.Class != nil {
			pr.printf("%s::", pr.typeRef(r.Class))
		}
		pr.printf("%s", quoteName(r.Name))
	case OpType:
		pr.printf(" %s", pr.typeToken(in.Type()))
	case OpString:
		pr.printf(" %s", quoteString(in.Str()))
	}
	pr.printf("\n")
}

// typeToken prints a type operand: a primitive keyword, a class reference
// without 'class', or an array spec.
func (pr *printer) typeToken(t *Type) string {
	if t.Kind == KClass {
		return pr.typeRef(t)
	}
	return pr.typ(t)
}

// floatLit makes sure a float literal reads back as a float (1 -> 1.0).
func floatLit(s string) string {
	if !strings.ContainsAny(s, ".e") {
		return s + ".0"
	}
	return s
}

// quoteString returns s as an ilasm string literal.
func quoteString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, "\\%03o", c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
