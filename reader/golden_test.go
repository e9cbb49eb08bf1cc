package reader_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"miniil/il"
	"miniil/ir"
	"miniil/opt"
	"miniil/reader"
)

var update = flag.Bool("update", false, "rewrite the golden .ir files in testdata")

// TestGolden imports every method of each testdata/*.il program and
// compares the IR, with its region tree and what opt.Run changes, to
// testdata/*.ir. `go test ./reader -update` rewrites the golden files;
// read the diff before committing them.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.il"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no programs in testdata")
	}
	goldens, _ := filepath.Glob(filepath.Join("testdata", "*.ir"))
	for _, g := range goldens {
		if _, err := os.Stat(strings.TrimSuffix(g, ".ir") + ".il"); err != nil {
			t.Errorf("%s has no program: delete it", g)
		}
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".il")
		t.Run(name, func(t *testing.T) {
			got := dump(t, file)
			golden := strings.TrimSuffix(file, ".il") + ".ir"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./reader -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("the IR of %s differs from %s (- golden, + now; go test ./reader -update rewrites it):\n%s",
					file, golden, diff(string(want), got))
			}
		})
	}
}

// TestImportDeterministic imports the testdata programs and the corpus
// twice and checks that the IR text is the same: block IDs, value numbers
// and region numbers must not depend on map iteration order.
func TestImportDeterministic(t *testing.T) {
	var files []string
	for _, pattern := range []string{filepath.Join("testdata", "*.il"), filepath.Join("..", "tests", "corpus", "*.il")} {
		fs, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		t.Fatal("no programs")
	}
	for _, file := range files {
		first, second := dump(t, file), dump(t, file)
		if first != second {
			t.Errorf("%s: two imports differ (- first, + second):\n%s", file, diff(first, second))
		}
	}
}

// loadFile reads and loads the program in file.
func loadFile(t *testing.T, file string) *il.Module {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := il.Load(file, src)
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

// dump loads file and returns, for each method, the IR after
// reader.Import (checked by ir.Check and checkEH), its regions, and a
// diff of what opt.Run changes.
func dump(t *testing.T, file string) string {
	t.Helper()
	mod := loadFile(t, file)
	var out bytes.Buffer
	for i, m := range mod.CodeMethods() { // type initializers' Run methods too
		if m.Abstract {
			continue // no IL
		}
		if i > 0 {
			out.WriteString("\n")
		}
		f, err := reader.Import(mod, m)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if err := ir.Check(f); err != nil {
			t.Errorf("%s: after import: %v\n%s", file, err, f)
		}
		if err := checkEH(f); err != nil {
			t.Errorf("%s: %s: %v\n%s", file, m.FullName(), err, f)
		}
		imported := f.String()
		out.WriteString(imported)
		out.WriteString(regions(f))
		if err := opt.Run(f); err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if after := f.String(); after != imported {
			out.WriteString("opt.Run:\n")
			out.WriteString(diff(imported, after))
		}
	}
	return out.String()
}

// regions lists f's EH regions: kind, IL clause, parent and entry block.
func regions(f *ir.Func) string {
	if len(f.Regions) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("regions:\n")
	for _, r := range f.Regions {
		fmt.Fprintf(&b, "  #%d %s of clause %d", r.ID, r.Kind, r.Clause)
		if r.Parent != nil {
			fmt.Fprintf(&b, " in #%d", r.Parent.ID)
		}
		if r.Entry != nil {
			fmt.Fprintf(&b, ", entry b%d", r.Entry.ID)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// checkEH checks the region rules of the reader's output that the golden
// files show: a throw block lies in the region of every block that
// branches to it (so an implicit exception is raised inside the handlers
// of its site); a handler's entry block is in its region and starts with
// catcharg exactly when the handler receives the exception; a
// callfinally lies in the region that encloses the try of its finally
// clause and continues there; a catchret leaves a catch or filter
// handler to the region that encloses it; endfinally ends only finally
// and fault code, endfilter only filter code, and rethrow is only in a
// catch or filter handler.
func checkEH(f *ir.Func) error {
	// The try region of each clause: clauses of one .try share the region
	// of the first of them.
	tryOf := map[int]*ir.Region{}
	for _, r := range f.Regions {
		if r.Kind != ir.RegionTry {
			continue
		}
		rc := f.Method.EH[r.Clause]
		for ci, c := range f.Method.EH {
			if c.TryStart == rc.TryStart && c.TryEnd == rc.TryEnd {
				tryOf[ci] = r
			}
		}
	}
	for _, r := range f.Regions {
		if !r.IsHandler() {
			continue
		}
		e := r.Entry
		if e == nil || e.Region != r {
			return fmt.Errorf("%s region #%d: its entry is not in it", r.Kind, r.ID)
		}
		wantArg := r.Kind == ir.RegionCatch || r.Kind == ir.RegionFilter || r.Kind == ir.RegionFilterHandler
		hasArg := len(e.Instrs) > 0 && e.Instrs[0].Op == ir.OpCatchArg
		if wantArg != hasArg {
			return fmt.Errorf("%s region #%d: entry b%d starts with catcharg: %v", r.Kind, r.ID, e.ID, hasArg)
		}
		if len(e.Preds) != 0 {
			return fmt.Errorf("%s region #%d: entry b%d has predecessors", r.Kind, r.ID, e.ID)
		}
	}
	for _, b := range f.Blocks {
		for _, in := range b.Instrs {
			if in.Op == ir.OpCatchArg && (b.Region == nil || b.Region.Entry != b || in != b.Instrs[0]) {
				return fmt.Errorf("b%d: catcharg outside a handler's entry", b.ID)
			}
		}
		fn := b.Region.Funclet()
		switch b.Term.Op {
		case ir.OpThrowHelper:
			if !b.Cold {
				return fmt.Errorf("b%d: a throw block that is not cold", b.ID)
			}
			for _, p := range b.Preds {
				if p.Region != b.Region {
					return fmt.Errorf("b%d in %s branches to throw block b%d in %s", p.ID, name(p.Region), b.ID, name(b.Region))
				}
			}
		case ir.OpCallFinally:
			try := tryOf[int(b.Term.Aux.Int)]
			if try == nil {
				return fmt.Errorf("b%d: callfinally of clause %d, which has no try", b.ID, b.Term.Aux.Int)
			}
			if b.Region != try.Parent || b.Succs[0].Region != try.Parent {
				return fmt.Errorf("b%d in %s calls the finally of try #%d and goes on in %s; want both in %s",
					b.ID, name(b.Region), try.ID, name(b.Succs[0].Region), name(try.Parent))
			}
		case ir.OpCatchRet:
			if b.Region == nil || fn == nil || (fn.Kind != ir.RegionCatch && fn.Kind != ir.RegionFilterHandler) {
				return fmt.Errorf("b%d: catchret outside a catch", b.ID)
			}
			if s := b.Succs[0]; s.Region != fn.Parent {
				return fmt.Errorf("b%d: catchret from %s resumes in %s, want %s", b.ID, name(fn), name(s.Region), name(fn.Parent))
			}
		case ir.OpEndFinally:
			if fn == nil || (fn.Kind != ir.RegionFinally && fn.Kind != ir.RegionFault) {
				return fmt.Errorf("b%d: endfinally in %s", b.ID, name(fn))
			}
		case ir.OpEndFilter:
			if fn == nil || fn.Kind != ir.RegionFilter {
				return fmt.Errorf("b%d: endfilter in %s", b.ID, name(fn))
			}
		case ir.OpRethrow:
			inCatch := false
			for r := b.Region; r != nil; r = r.Parent {
				inCatch = inCatch || r.Kind == ir.RegionCatch || r.Kind == ir.RegionFilterHandler
			}
			if !inCatch {
				return fmt.Errorf("b%d: rethrow outside a catch", b.ID)
			}
		}
		for _, s := range b.Succs {
			if s.Region.Funclet() != fn && b.Term.Op != ir.OpCatchRet {
				return fmt.Errorf("b%d in %s branches to b%d in another funclet (%s)", b.ID, name(b.Region), s.ID, name(s.Region))
			}
		}
	}
	return nil
}

func name(r *ir.Region) string {
	if r == nil {
		return "the main body"
	}
	return fmt.Sprintf("%s#%d", r.Kind, r.ID)
}

// diff returns a line diff of a and b (- lines of a, + lines of b) with
// two lines of context around each change, each run of changes headed by
// the function it is in ("@@ func ...").
func diff(a, b string) string {
	split := func(s string) []string { return strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n") }
	x, y := split(a), split(b)
	// lcs[i][j] is the length of the longest common subsequence of
	// x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	var lines []line
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			lines = append(lines, line{' ', x[i]})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			lines = append(lines, line{'-', x[i]})
			i++
		default:
			lines = append(lines, line{'+', y[j]})
			j++
		}
	}
	const context = 2
	var out strings.Builder
	last := -1 // last line written
	for k, l := range lines {
		if l.op == ' ' {
			continue
		}
		start := max(k-context, last+1)
		if start > last+1 {
			// A new hunk: name the function it is in.
			for h := start - 1; h >= 0; h-- {
				if strings.HasPrefix(lines[h].text, "func ") && lines[h].op != '+' {
					out.WriteString("@@ " + lines[h].text)
					break
				}
			}
		}
		for c := start; c <= k; c++ {
			if c > last {
				writeLine(&out, lines[c].op, lines[c].text)
				last = c
			}
		}
		for c := k + 1; c < len(lines) && c <= k+context && lines[c].op == ' '; c++ {
			writeLine(&out, ' ', lines[c].text)
			last = c
		}
	}
	return out.String()
}

func writeLine(b *strings.Builder, op byte, text string) {
	b.WriteByte(op)
	b.WriteByte(' ')
	b.WriteString(strings.TrimSuffix(text, "\n"))
	b.WriteByte('\n')
}
