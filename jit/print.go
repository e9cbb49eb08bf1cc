package jit

import (
	"fmt"
	"io"
	"strings"

	"miniil/amd64"
	"miniil/funclet"
)

// FprintCode prints a method's machine code after emission: its size,
// frame, register homes and callee-saved slots, then the disassembly with
// block labels, the cold section, and the IL offset of every call site.
func FprintCode(w io.Writer, m *Method) error {
	code := m.Code
	fmt.Fprintf(w, "; %s: machine code %d bytes, frame %d bytes, prolog %d bytes\n", m.IL.Signature(), len(code.Code), code.FrameSize, code.PrologSize)
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
	sites := map[int]int{}
	for _, s := range code.Sites {
		sites[s.Offset] = s.ILOffset
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
			fmt.Fprintf(w, "; funclet #%d: %s of IL clause %d\n", k, fc.Kind, fc.Clause)
		}
		if l.Offset == code.ColdStart {
			fmt.Fprintln(w, "cold: ; polls and stack overflow calls, out of line")
		}
		for _, b := range starts[l.Offset] {
			fmt.Fprintf(w, "b%d:\n", b)
		}
		fmt.Fprintf(w, "  %04x  %-24x %s", l.Offset, l.Bytes, l.Text)
		if il, ok := sites[l.Offset+len(l.Bytes)]; ok && il >= 0 {
			fmt.Fprintf(w, "    ; IL_%04x", il)
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
