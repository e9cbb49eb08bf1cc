package ir

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Fprint writes f in a readable text form, one instruction per line.
func Fprint(w io.Writer, f *Func) error {
	var b strings.Builder
	fmt.Fprintf(&b, "func %s\n", f.Method.Signature())
	for i := 0; i < len(f.Kinds); i++ {
		if i == f.NumArgs+f.NumLocals {
			break
		}
		what, name := "arg", ""
		if Value(i) == f.RetBuf() {
			name = "return buffer"
		} else if i < f.NumArgs {
			if !f.Method.Static {
				if i == 0 {
					name = "this"
				} else {
					name = f.Method.Params[i-1].Name
				}
			} else {
				name = f.Method.Params[i].Name
			}
		} else {
			what = "local"
			name = f.Method.Locals[i-f.NumArgs].Name
		}
		if name != "" {
			name = " (" + name + ")"
		}
		fmt.Fprintf(&b, "  %s %s:%s%s\n", what, Value(i), f.Kinds[i], name)
	}
	zero := map[int]bool{}
	for _, s := range f.ZeroSlots {
		zero[s] = true
	}
	for i, t := range f.Slots {
		what := "temporary"
		if zero[i] {
			what = "zeroed on entry"
		}
		fmt.Fprintf(&b, "  block %d: %d words (%s), %s\n", i, f.SlotWords(i), t, what)
	}
	if len(f.Untracked) > 0 {
		fmt.Fprintf(&b, "  untracked:")
		for _, v := range f.Untracked {
			fmt.Fprintf(&b, " %s", v)
		}
		b.WriteByte('\n')
	}
	for i, s := range f.Inlines {
		at := "the method"
		if s.Parent > 0 {
			at = fmt.Sprintf("inline %d", s.Parent)
		}
		fmt.Fprintf(&b, "  inline %d: %s, called at IL_%04x of %s\n", i+1, s.Method.FullName(), s.ILOffset, at)
	}
	for _, blk := range f.Blocks {
		fmt.Fprintf(&b, "b%d:", blk.ID)
		if blk.ILOffset >= 0 {
			fmt.Fprintf(&b, " ; IL_%04x", blk.ILOffset)
		}
		if blk.Cold {
			b.WriteString(" ; cold")
		}
		if r := blk.Region; r != nil {
			fmt.Fprintf(&b, " ; region %s#%d", r.Kind, r.ID)
		}
		if len(blk.Preds) > 0 {
			b.WriteString(" ; preds")
			for _, p := range blk.Preds {
				fmt.Fprintf(&b, " b%d", p.ID)
			}
		}
		b.WriteByte('\n')
		for _, in := range blk.Instrs {
			b.WriteString("  ")
			b.WriteString(f.Format(in, blk))
			b.WriteByte('\n')
		}
		if blk.Term != nil {
			b.WriteString("  ")
			b.WriteString(f.Format(blk.Term, blk))
			b.WriteByte('\n')
		} else {
			b.WriteString("  <no terminator>\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String returns the function's text form.
func (f *Func) String() string {
	var b strings.Builder
	Fprint(&b, f)
	return b.String()
}

// Format returns one instruction as text; blk supplies successor names
// for terminators (it may be nil for non-terminators).
func (f *Func) Format(in *Instr, blk *Block) string {
	var b strings.Builder
	if in.Dst != NoValue {
		fmt.Fprintf(&b, "%s:%s", in.Dst, f.Kinds[in.Dst])
		if in.Dst2 != NoValue {
			fmt.Fprintf(&b, ", %s:%s", in.Dst2, f.Kinds[in.Dst2])
		}
		b.WriteString(" = ")
	}
	b.WriteString(in.Op.String())
	switch in.Op {
	case OpCmp:
		fmt.Fprintf(&b, ".%s", in.Aux.Cond)
	case OpConv:
		fmt.Fprintf(&b, ".%s", in.Aux.Type)
	}
	if in.Aux.Unsigned && in.Op != OpConv {
		b.WriteString(".un")
	} else if in.Aux.Unsigned {
		b.WriteString(".from.un")
	}
	if in.Kind != 0 && in.Op != OpConv {
		fmt.Fprintf(&b, ".%s", in.Kind)
	}
	sep := " "
	arg := func(s string) {
		b.WriteString(sep)
		b.WriteString(s)
		sep = ", "
	}
	switch in.Op {
	case OpConst:
		switch in.Kind {
		case F32, F64:
			arg(strconv.FormatFloat(in.Aux.Float(), 'g', -1, 64))
		case Ref:
			arg("null")
		default:
			arg(strconv.FormatInt(in.Aux.Int, 10))
		}
	case OpStr:
		arg(strconv.Quote(*in.Aux.Str()))
	case OpCallFinally, OpRethrow:
		arg(fmt.Sprintf("clause %d", in.Aux.Int))
	case OpSlotAddr:
		arg(fmt.Sprintf("block %d", in.Aux.Int))
	case OpDepthCheck:
		arg(fmt.Sprintf("depth %d", in.Aux.Int))
	}
	for _, a := range in.Args {
		arg(a.String())
	}
	switch in.Op {
	case OpLea, OpLoad, OpStore:
		arg(fmt.Sprintf("+%d", in.Aux.Int))
	case OpCopyBlk, OpZeroBlk:
		arg(fmt.Sprintf("%d words", in.Aux.Int))
	}
	switch {
	case in.Aux.Field() != nil:
		arg(in.Aux.Field().FullName())
	case in.Aux.Method() != nil:
		arg(in.Aux.Method().Signature())
	case in.Aux.Class() != nil:
		arg(in.Aux.Class().Name)
	case in.Aux.Type != nil && in.Op != OpConv:
		arg(in.Aux.Type.String())
	}
	if in.Op.IsTerminator() && blk != nil && len(blk.Succs) > 0 {
		b.WriteString(" ->")
		for _, s := range blk.Succs {
			fmt.Fprintf(&b, " b%d", s.ID)
		}
	}
	if in.ILOffset >= 0 {
		fmt.Fprintf(&b, "  ; IL_%04x", in.ILOffset)
	}
	if in.Inline > 0 {
		fmt.Fprintf(&b, " (inline %d)", in.Inline)
	}
	return b.String()
}
