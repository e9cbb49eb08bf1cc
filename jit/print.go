package jit

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"miniil/abi"
	"miniil/amd64"
	"miniil/funclet"
	"miniil/il"
)

// hexRE finds the numbers of a disassembled instruction.
var hexRE = regexp.MustCompile(`0x[0-9a-f]+`)

// FprintCode prints a method's machine code after emission: its size,
// frame, register homes and callee-saved slots, then the disassembly with
// block labels, funclet boundaries (with their sizes), the cold section,
// what every call calls and the IL offset it came from. With a DumpEnv
// as the compiler's Env, addresses are named too.
func FprintCode(w io.Writer, m *Method) error {
	env, _ := m.Env.(*DumpEnv)
	code := m.Code
	fmt.Fprintf(w, "; %s: machine code %d bytes (main body %d), frame %d bytes, prolog %d bytes\n", m.IL.Signature(),
		len(code.Code), code.Funclets[0].End-code.Funclets[0].Start, code.FrameSize, code.PrologSize)
	if homes := code.HomeList(); homes != "" {
		fmt.Fprintf(w, "; register homes: %s\n", homes)
	}
	if len(code.Saves) > 0 {
		fmt.Fprint(w, "; callee-saved:")
		for _, sv := range code.Saves {
			fmt.Fprintf(w, " %s at rbp%+#x", strings.ToLower(sv.Reg.String()), sv.Offset)
		}
		fmt.Fprintln(w)
	}
	if len(code.Blocks) > 0 {
		fmt.Fprint(w, "; frame blocks:")
		for i, off := range code.Blocks {
			fmt.Fprintf(w, " %d at rbp%+#x", i, off)
		}
		fmt.Fprintln(w)
	}
	lines, err := amd64.Disassemble(code.Code, 0)
	if err != nil {
		return err
	}
	starts := map[int][]int{}
	for b, off := range code.BlockOffsets {
		starts[off] = append(starts[off], b)
	}
	funclets := map[int]int{}
	for k, fc := range code.Funclets {
		funclets[fc.Start] = k
	}
	sites := map[int]abi.Site{}
	for _, s := range code.Sites {
		sites[s.Offset] = s
	}
	notes := map[int]string{}
	for _, n := range code.Notes {
		notes[n.Offset] = n.Text()
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l.Text == "int3" { // padding: one line for a run
			n := 1
			for i+n < len(lines) && lines[i+n].Text == "int3" && lines[i+n].Offset != code.ColdStart {
				n++
			}
			if n > 1 {
				fmt.Fprintf(w, "  %04x  %-24s int3 (%d bytes of padding)\n", l.Offset, "cc ...", n)
				i += n - 1
				continue
			}
		}
		if k, ok := funclets[l.Offset]; ok && k > 0 {
			fc := code.Funclets[k]
			fmt.Fprintf(w, "; funclet #%d: %s of IL clause %d, %d bytes\n", k, fc.Kind, fc.Clause, fc.End-fc.Start)
		}
		if l.Offset == code.ColdStart {
			fmt.Fprintln(w, "cold: ; polls and stack overflow calls, out of line")
		}
		for _, b := range starts[l.Offset] {
			fmt.Fprintf(w, "b%d:\n", b)
		}
		fmt.Fprintf(w, "  %04x  %-24x %s", l.Offset, l.Bytes, l.Text)
		var comments []string
		ret := l.Offset + len(l.Bytes)
		if n, ok := notes[ret]; ok {
			comments = append(comments, n)
		}
		if env != nil {
			for _, h := range hexRE.FindAllString(l.Text, -1) {
				if a, err := strconv.ParseUint(h, 0, 64); err == nil {
					if name, ok := env.Symbol(uintptr(a)); ok {
						comments = append(comments, name)
					}
				}
			}
		}
		if s, ok := sites[ret]; ok && s.ILOffset >= 0 {
			comments = append(comments, fmt.Sprintf("IL_%04x%s", s.ILOffset, inlineNote(&code.Method, s.Inline)))
		}
		if len(comments) > 0 {
			fmt.Fprintf(w, "    ; %s", strings.Join(comments, ", "))
		}
		fmt.Fprintln(w)
	}
	return nil
}

// FprintFunclets prints a method's funclets: the layout (blocks of each
// funclet) and, once emitted, their code ranges, frames and the cold
// section.
func FprintFunclets(w io.Writer, m *Method) {
	funclet.Fprint(w, m.Func, m.Layout)
	code := m.Code
	if code == nil {
		return
	}
	for k, fc := range code.Funclets {
		fmt.Fprintf(w, "  #%d code [%04x, %04x), frame %d bytes\n", k, fc.Start, fc.End, fc.FrameSize)
	}
	if len(code.Funclets) > 1 {
		fmt.Fprintf(w, "  PSPSym at [rsp+%#x] in every frame\n", code.PSPOffset)
	}
	fmt.Fprintf(w, "  cold section [%04x, %04x): out-of-line polls and stack checks\n", code.ColdStart, len(code.Code))
}

// DumpEnv gives the code generator addresses for dumps: made up, the
// same from run to run, as large as real ones (so the code is the code a
// run gets), and named, so a dump can say what each refers to.
type DumpEnv struct {
	next    [4]uintptr
	names   map[uintptr]string
	cells   map[*il.Method]uintptr
	mts     map[string]uintptr
	statics map[*il.Field]uintptr
	strs    map[string]uintptr
}

// NewDumpEnv returns an empty DumpEnv.
func NewDumpEnv() *DumpEnv {
	e := &DumpEnv{names: map[uintptr]string{}, cells: map[*il.Method]uintptr{}, mts: map[string]uintptr{},
		statics: map[*il.Field]uintptr{}, strs: map[string]uintptr{}}
	for i := range e.next {
		e.next[i] = 0x7f0000000000 + uintptr(i)<<36
	}
	return e
}

// addr returns the next address of region r, named name.
func (e *DumpEnv) addr(r int, name string) uintptr {
	a := e.next[r]
	e.next[r] += 16
	e.names[a] = name
	return a
}

// CellAddr implements amd64.Env.
func (e *DumpEnv) CellAddr(m *il.Method) uintptr {
	if a, ok := e.cells[m]; ok {
		return a
	}
	a := e.addr(0, "cell of "+m.FullName())
	e.cells[m] = a
	return a
}

// ClassMT implements amd64.Env.
func (e *DumpEnv) ClassMT(c *il.Class) uintptr { return e.mt(c.Name) }

// TypeMT implements amd64.Env.
func (e *DumpEnv) TypeMT(t *il.Type) uintptr { return e.mt(t.CLRName()) }

func (e *DumpEnv) mt(name string) uintptr {
	if a, ok := e.mts[name]; ok {
		return a
	}
	a := e.addr(1, "method table of "+name)
	e.mts[name] = a
	return a
}

// StaticAddr implements amd64.Env.
func (e *DumpEnv) StaticAddr(f *il.Field) uintptr {
	if a, ok := e.statics[f]; ok {
		return a
	}
	name := f.Name
	if f.Owner != nil {
		name = f.Owner.Name + "::" + f.Name
	}
	a := e.addr(2, "static "+name)
	e.statics[f] = a
	return a
}

// StringAddr implements amd64.Env.
func (e *DumpEnv) StringAddr(s string) uintptr {
	if a, ok := e.strs[s]; ok {
		return a
	}
	a := e.addr(3, "string "+strconv.Quote(s))
	e.strs[s] = a
	return a
}

// Symbol returns what an address of this environment refers to.
func (e *DumpEnv) Symbol(a uintptr) (string, bool) {
	n, ok := e.names[a]
	return n, ok
}

// FprintGC prints a method's GC information after emission, as JitDump
// prints GC info: the untracked frame slots, where the values of GC
// kinds live and the callee-saved registers' slots, then one line per
// safepoint with its native offset
// (the return address), IL offset, funclet, kind (a managed call, an
// exit or a prolog's stack check), what it calls and the live
// references (ref) and interior pointers (ptr).
func FprintGC(w io.Writer, m *Method) {
	code := m.Code
	gi := &code.GC
	fmt.Fprintf(w, "; %s: GC info, %d safepoints\n", m.IL.Signature(), len(gi.Safepoints))
	if len(gi.Untracked) > 0 {
		fmt.Fprintf(w, "; untracked (every safepoint but prologs, once per invocation): %s\n", abi.FormatLocs(gi.Untracked))
	}
	var vals []string
	for v, k := range m.Func.Kinds {
		if !k.IsGC() {
			continue
		}
		where := ""
		if r := code.Homes[v]; r != amd64.NoReg {
			where = strings.ToLower(r.String())
		} else if off := code.Slots[v]; off != 0 {
			where = abi.FrameLoc(off, false).Place()
		} else {
			continue
		}
		vals = append(vals, fmt.Sprintf("v%d:%s=%s", v, k, where))
	}
	if len(vals) > 0 {
		fmt.Fprintf(w, "; values: %s\n", strings.Join(vals, " "))
	}
	if len(gi.Saves) > 0 {
		fmt.Fprint(w, "; callee-saved:")
		for _, sv := range gi.Saves {
			fmt.Fprintf(w, " %s at rbp%+#x", abi.RegName(sv.Reg), sv.Offset)
		}
		fmt.Fprintln(w)
	}
	notes := map[int]string{}
	for _, n := range code.Notes {
		notes[n.Offset] = n.Text()
	}
	for i := range gi.Safepoints {
		s := &gi.Safepoints[i]
		il := "-"
		if s.ILOffset >= 0 {
			il = fmt.Sprintf("IL_%04x", s.ILOffset)
		}
		fc := "main"
		if s.Funclet > 0 {
			fc = fmt.Sprintf("#%d %s", s.Funclet, code.Funclets[s.Funclet].Kind)
		}
		kind := "exit"
		switch {
		case s.Flags&abi.SPProlog != 0:
			kind = "prolog"
		case s.Flags&abi.SPCall != 0:
			kind = "call"
		}
		fmt.Fprintf(w, "  %04x  %-7s  %-17s  %-6s  %-40s  %s\n", s.Offset, il, fc, kind, notes[int(s.Offset)]+inlineNote(&code.Method, s.Inline), abi.FormatLocs(gi.LiveAt(s)))
	}
}

// inlineNote names the inlined call k of m (a Site.Inline) for dumps:
// " in METHOD (inline k)", or "" for the method's own code.
func inlineNote(m *abi.Method, k int32) string {
	if k <= 0 || int(k) > len(m.Inlines) {
		return ""
	}
	return fmt.Sprintf(" in %s (inline %d)", m.Inlines[k-1].Method.FullName(), k)
}
