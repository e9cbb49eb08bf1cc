package il_test

import (
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"miniil/il"
)

var update = flag.Bool("update", false, "rewrite the tests/invalid/*.err goldens")

func corpusFiles(t testing.TB, dir string) []string {
	files, err := filepath.Glob(filepath.Join("..", "tests", dir, "*.il"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no programs in tests/%s", dir)
	}
	return files
}

// TestCorpusRoundTrip checks that every corpus program loads, and that the
// printer's output parses back to a module that prints the same and has the
// same IL offsets and EH clauses.
func TestCorpusRoundTrip(t *testing.T) {
	for _, f := range corpusFiles(t, "corpus") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m1, err := il.Load(f, src)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			out1 := m1.String()
			m2, err := il.Load("printed.il", []byte(out1))
			if err != nil {
				t.Fatalf("printed module does not load: %v\n%s", err, out1)
			}
			if out2 := m2.String(); out1 != out2 {
				t.Fatalf("printing is not a fixed point:\n--- first\n%s\n--- second\n%s", out1, out2)
			}
			compareModules(t, m1, m2)
		})
	}
}

func compareModules(t *testing.T, a, b *il.Module) {
	t.Helper()
	am, bm := a.AllMethods(), b.AllMethods()
	if len(am) != len(bm) {
		t.Fatalf("method count %d != %d", len(am), len(bm))
	}
	for i := range am {
		x, y := am[i], bm[i]
		if x.Signature() != y.Signature() || x.CodeSize != y.CodeSize || len(x.Code) != len(y.Code) || len(x.EH) != len(y.EH) {
			t.Fatalf("method %s differs after round trip", x.FullName())
		}
		for k := range x.Code {
			p, q := x.Code[k], y.Code[k]
			same := p.Int == q.Int
			if o := p.Op.Info().Operand; o == il.OpR4 || o == il.OpR8 {
				same = p.Float() == q.Float() || math.IsNaN(p.Float()) && math.IsNaN(q.Float())
			}
			if p.Op != q.Op || p.Offset != q.Offset || !same || p.Str() != q.Str() ||
				len(p.Targets()) != len(q.Targets()) {
				t.Fatalf("%s: instruction %d differs: %v vs %v", x.FullName(), k, p.Op, q.Op)
			}
			for j := range p.Targets() {
				if p.Targets()[j] != q.Targets()[j] {
					t.Fatalf("%s: instruction %d branches elsewhere", x.FullName(), k)
				}
			}
		}
		for k := range x.EH {
			c, d := x.EH[k], y.EH[k]
			if c.Describe() != d.Describe() || c.TryStart != d.TryStart || c.TryEnd != d.TryEnd ||
				c.HandlerStart != d.HandlerStart || c.HandlerEnd != d.HandlerEnd || c.FilterStart != d.FilterStart {
				t.Fatalf("%s: clause %d differs: %s vs %s", x.FullName(), k, x.EH[k].Describe(), y.EH[k].Describe())
			}
		}
	}
}

var wantRE = regexp.MustCompile(`//\s*want:\s*(.*)$`)

// TestInvalid checks the error reported for each malformed program: it must
// be an *il.Error located on the line marked "// want: TEXT", contain TEXT,
// and match the golden NAME.err exactly.
func TestInvalid(t *testing.T) {
	for _, f := range corpusFiles(t, "invalid") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			wantLine, wantText := 0, ""
			for i, line := range strings.Split(string(src), "\n") {
				if m := wantRE.FindStringSubmatch(line); m != nil {
					wantLine, wantText = i+1, strings.TrimSpace(m[1])
				}
			}
			if wantLine == 0 {
				t.Fatal("program has no '// want: TEXT' marker")
			}
			name := filepath.Base(f)
			_, err = il.Load(name, src)
			if err == nil {
				t.Fatal("program loaded without error")
			}
			var e *il.Error
			if !errors.As(err, &e) {
				t.Fatalf("error is not an *il.Error: %T %v", err, err)
			}
			if e.Pos.File != name || e.Pos.Line != wantLine || e.Pos.Col < 1 {
				t.Errorf("first error at %s, want %s:%d", e.Pos, name, wantLine)
			}
			if !strings.Contains(e.Msg, wantText) {
				t.Errorf("error %q does not contain %q", e.Msg, wantText)
			}
			golden := strings.TrimSuffix(f, ".il") + ".err"
			got := err.Error() + "\n"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("missing golden (run go test ./il -run TestInvalid -update): %v", err)
			}
			if got != string(want) {
				t.Errorf("error output differs from %s:\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

// FuzzLoad checks that parse, verify and print never panic, and that a
// program that loads prints to a program that loads and prints the same.
func FuzzLoad(f *testing.F) {
	for _, dir := range []string{"corpus", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("..", "tests", dir, "*.il"))
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err == nil {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := il.Load("fuzz.il", src)
		if err != nil {
			var e *il.Error
			if !errors.As(err, &e) {
				t.Fatalf("error without a position: %T %v", err, err)
			}
			return
		}
		out := m.String()
		m2, err := il.Load("printed.il", []byte(out))
		if err != nil {
			t.Fatalf("printed module does not load: %v\n%s", err, out)
		}
		if out2 := m2.String(); out2 != out {
			t.Fatalf("printing is not a fixed point:\n%s\n---\n%s", out, out2)
		}
	})
}
