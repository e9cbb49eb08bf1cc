package miniil_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"miniil"
)

// TestDumpStable checks that dumps carry no addresses that change from run
// to run (two dumps of a program are identical), that calls and helper
// exits are named, and that every compile phase can be printed.
func TestDumpStable(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("tests", "bench", "virtual.il"))
	if err != nil {
		t.Fatal(err)
	}
	dump := func(f func(p *miniil.Program, w *bytes.Buffer) error) string {
		p, err := miniil.Load("virtual.il", src) // a fresh program each time
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := f(p, &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, stage := range []miniil.Stage{miniil.StageIR, miniil.StageFunclets, miniil.StageEH, miniil.StageAsm} {
		f := func(p *miniil.Program, w *bytes.Buffer) error { return p.Dump(w, stage, "") }
		if a, b := dump(f), dump(f); a != b {
			t.Errorf("two dumps of stage %d differ", stage)
		}
	}
	asm := dump(func(p *miniil.Program, w *bytes.Buffer) error { return p.Dump(w, miniil.StageAsm, "main") })
	for _, want := range []string{"; stack overflow (call depth of an inlined call)", "; helper NewArr", "; callvirt Op::Apply", "; method table of AddOp", "; poll", "; stack overflow", "cold:"} {
		if !strings.Contains(asm, want) {
			t.Errorf("the disassembly of main does not contain %q:\n%s", want, asm)
		}
	}
	for _, phase := range miniil.Phases() {
		out := dump(func(p *miniil.Program, w *bytes.Buffer) error { return p.DumpAfter(w, phase, "main") })
		if strings.TrimSpace(out) == "" || strings.Contains(out, "; main: ") {
			t.Errorf("dump after %s: %q", phase, out)
		}
	}
	p, _ := miniil.Load("virtual.il", src)
	if err := p.DumpAfter(&bytes.Buffer{}, "nope", ""); err == nil {
		t.Error("DumpAfter accepted an unknown phase")
	}
}

// TestPerfMap checks that the perf map names every method a run compiled,
// with ranges that do not overlap.
func TestPerfMap(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("tests", "bench", "virtual.il"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := miniil.Load("virtual.il", src)
	if err != nil {
		t.Fatal(err)
	}
	var m bytes.Buffer
	if _, err := p.Run(context.Background(), miniil.Config{PerfMap: &m}); err != nil {
		t.Fatal(err)
	}
	type entry struct {
		addr, size uint64
		name       string
	}
	var entries []entry
	names := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(m.String()), "\n") {
		var e entry
		if _, err := fmt.Sscanf(line, "%x %x", &e.addr, &e.size); err != nil {
			t.Fatalf("bad perf map line %q: %v", line, err)
		}
		e.name = strings.SplitN(line, " ", 3)[2]
		entries = append(entries, e)
		names[e.name] = true
	}
	for _, want := range []string{"main", "AddOp::Apply", "MulOp::Apply", "XorOp::Apply", "miniil exit stub"} {
		if !names[want] {
			t.Errorf("the perf map does not name %q:\n%s", want, m.String())
		}
	}
	for i, a := range entries {
		for _, b := range entries[i+1:] {
			if a.addr < b.addr+b.size && b.addr < a.addr+a.size {
				t.Errorf("perf map entries overlap: %q and %q", a.name, b.name)
			}
		}
	}
}

// TestDumpAbstract: a dump of every method skips abstract methods, which
// have no IL; naming one says so.
func TestDumpAbstract(t *testing.T) {
	p, err := miniil.LoadFile(filepath.Join("tests", "corpus", "iface_basic_shapes.il"))
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	if err := p.Dump(&all, miniil.StageIR, ""); err != nil {
		t.Fatal(err)
	}
	if s := all.String(); strings.Contains(s, "IShape::Area") && strings.Contains(s, "failed") || !strings.Contains(s, "func void Show(class IShape)") {
		t.Errorf("dump of every method:\n%s", s)
	}
	var one bytes.Buffer
	if err := p.Dump(&one, miniil.StageIR, "IShape::Area"); err != nil {
		t.Fatal(err)
	}
	if s := one.String(); !strings.Contains(s, "IShape::Area is abstract; it has no IL") {
		t.Errorf("dump of IShape::Area: %q", s)
	}
}
