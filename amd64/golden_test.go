package amd64_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"miniil/amd64"
	"miniil/il"
	"miniil/ir"
	"miniil/ir/irtest"
	"miniil/jit"
)

var update = flag.Bool("update", false, "rewrite the golden disassembly in testdata/golden")

// TestGolden compiles the programs of testdata/golden (every method of
// each, through the jit driver, with DumpEnv's addresses) and a few
// functions built as IR, and compares each one's disassembly with its
// .golden file: prologs and epilogs (leaf, callee-saved, large frame),
// funclet prologs with the PSPSym and their epilogs, a catch returning
// its continuation, callfinally, loop polls and stack checks with their
// out-of-line calls, calls through cells, virtual calls and base library
// exits; the programs named opt_* with the passes that copy code on (an
// inlined body and its call-depth check, a cloned finally and variables
// written through), the others without them, so that their calls stay
// calls. -update rewrites the goldens; review the diff.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.il"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no programs in testdata/golden (%v)", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".il")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			mod, err := il.Load(file, src)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			for _, m := range mod.AllMethods() {
				if m.Builtin || m.Abstract {
					continue
				}
				env := jit.NewDumpEnv()
				cfg := jit.Config{Env: env, Validate: true}
				if !strings.HasPrefix(name, "opt_") {
					cfg.Skip = map[string]bool{jit.Inline: true, jit.Clone: true, jit.WriteThru: true}
				}
				st, err := jit.New(cfg).Compile(mod, m, "")
				if err != nil {
					t.Fatal(err)
				}
				fprintCode(&b, m.Signature(), st.Code, env)
			}
			checkGolden(t, name, b.Bytes())
		})
	}
	for _, c := range builtGolden {
		t.Run(c.name, func(t *testing.T) {
			env := jit.NewDumpEnv()
			f := c.build(t)
			code, err := amd64.Generate(f, env, amd64.NewAssembler())
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			fprintCode(&b, c.title, code, env)
			checkGolden(t, c.name, b.Bytes())
		})
	}
}

// builtGolden are golden cases built as IR: shapes no short program has.
var builtGolden = []struct {
	name, title string
	build       func(t *testing.T) *ir.Func
}{
	{
		// A frame of 4 KiB or more is checked before it is allocated,
		// through RAX. Values no instruction mentions still get slots,
		// so 520 of them make a large frame with little code (were they
		// to lose their slots, give them uses).
		name:  "large_frame",
		title: "int64 f(int64) with 520 unused values (a frame over 4 KiB)",
		build: func(t *testing.T) *ir.Func {
			b := irtest.New(t, ir.I64)
			for range 520 {
				b.Temp(ir.I64)
			}
			b.Ret(b.Bin(ir.OpAdd, b.Arg(0), b.Arg(0)))
			return b.Func()
		},
	},
}

// checkGolden compares got with testdata/golden/name.golden, or writes it
// with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./amd64 -run TestGolden -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := "", ""
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs from the code generated now, first at line %d:\nnow:    %s\ngolden: %s\n(go test ./amd64 -run TestGolden -update rewrites it; review the diff)", path, i+1, g, w)
			}
		}
	}
}

var hexNum = regexp.MustCompile(`0x[0-9a-f]+`)

// fprintCode prints a method's code for a golden file: its frame, homes,
// saves and funclets, then the disassembly with block labels, funclet
// boundaries, the cold section, and for each call what it calls (its
// Note), the cell it goes through (its CellRef) and its IL offset (its
// Site); numbers that are DumpEnv addresses are named.
func fprintCode(w *bytes.Buffer, title string, code *amd64.Code, env *jit.DumpEnv) {
	fmt.Fprintf(w, "; %s\n", title)
	fmt.Fprintf(w, "; %d bytes, frame %d, prolog %d, cold section at %04x\n", len(code.Code), code.FrameSize, code.PrologSize, code.ColdStart)
	if homes := code.HomeList(); homes != "" {
		fmt.Fprintf(w, "; homes: %s\n", homes)
	}
	for _, sv := range code.Saves {
		fmt.Fprintf(w, "; saves %s at rbp%+#x\n", strings.ToLower(sv.Reg.String()), sv.Offset)
	}
	for k, fc := range code.Funclets {
		fmt.Fprintf(w, "; funclet #%d %s (IL clause %d) [%04x, %04x), frame %d\n", k, fc.Kind, fc.Clause, fc.Start, fc.End, fc.FrameSize)
	}
	if len(code.Funclets) > 1 {
		fmt.Fprintf(w, "; PSPSym at rsp+%#x\n", code.PSPOffset)
	}
	lines, err := amd64.Disassemble(code.Code, 0)
	if err != nil {
		fmt.Fprintf(w, "; disassembly: %v\n", err)
	}
	blocks := map[int][]int{}
	for b, off := range code.BlockOffsets {
		blocks[off] = append(blocks[off], b)
	}
	funclets := map[int]int{}
	for k, fc := range code.Funclets {
		funclets[fc.Start] = k
	}
	notes := map[int]string{}
	for _, n := range code.Notes {
		notes[n.Offset] = n.Text()
	}
	sites := map[int]int{}
	for _, s := range code.Sites {
		sites[s.Offset] = s.ILOffset
	}
	cells := map[int]uintptr{}
	for _, c := range code.CellRefs {
		cells[c.Offset] = c.Cell
	}
	hotEnd := code.Funclets[len(code.Funclets)-1].End
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l.Offset == hotEnd { // the padding before the cold section: one line if all INT3
			n := 0
			for i+n < len(lines) && lines[i+n].Offset < code.ColdStart && lines[i+n].Text == "int3" {
				n++
			}
			if n > 0 && hotEnd+n == code.ColdStart {
				fmt.Fprintf(w, "  %04x  int3 x%d (padding)\n", l.Offset, n)
				i += n - 1
				continue
			}
		}
		if k, ok := funclets[l.Offset]; ok && k > 0 {
			fmt.Fprintf(w, "funclet #%d:\n", k)
		}
		if l.Offset == code.ColdStart {
			fmt.Fprintln(w, "cold:")
		}
		for _, b := range blocks[l.Offset] {
			fmt.Fprintf(w, "b%d:\n", b)
		}
		var notes2 []string
		end := l.Offset + len(l.Bytes)
		for off := l.Offset; off < end; off++ {
			if c, ok := cells[off]; ok {
				name, _ := env.Symbol(c)
				notes2 = append(notes2, fmt.Sprintf("disp32 at +%d: %s", off-l.Offset, name))
			}
		}
		if n, ok := notes[end]; ok {
			notes2 = append(notes2, n)
		}
		for _, h := range hexNum.FindAllString(l.Text, -1) {
			if a, err := strconv.ParseUint(h, 0, 64); err == nil {
				if name, ok := env.Symbol(uintptr(a)); ok {
					notes2 = append(notes2, name)
				}
			}
		}
		if il, ok := sites[end]; ok && il >= 0 {
			notes2 = append(notes2, fmt.Sprintf("IL_%04x", il))
		}
		text := fmt.Sprintf("  %04x  %-22x %s", l.Offset, l.Bytes, l.Text)
		if len(notes2) > 0 {
			text = fmt.Sprintf("%-64s ; %s", text, strings.Join(notes2, ", "))
		}
		fmt.Fprintln(w, text)
	}
	fmt.Fprintln(w)
}
