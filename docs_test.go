package miniil_test

// Checks that the documentation (README.md, docs/LANGUAGE.md, package doc
// comments) stays honest where a machine can tell: every exit code, every
// base library method and default message, every supported identifier,
// every package's API status, every corpus program adjusted for Mono, and
// every link. Each failure says what to add and where.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"miniil"
	"miniil/il"
)

// readDoc returns the text of a documentation file of the repository.
func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// section returns the part of a Markdown text from the heading line
// heading to the next heading of the same or a higher level.
func section(t *testing.T, text, heading string) string {
	t.Helper()
	level := strings.IndexFunc(heading, func(r rune) bool { return r != '#' })
	lines := strings.Split(text, "\n")
	start := slices.Index(lines, heading)
	if start < 0 {
		t.Fatalf("no heading %q", heading)
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if n := strings.IndexFunc(lines[i], func(r rune) bool { return r != '#' }); n > 0 && n <= level && lines[i][n] == ' ' {
			end = i
			break
		}
	}
	return strings.Join(lines[start:end], "\n")
}

// TestDocsExitCodes: every Exit* constant of miniil.go is a row of the
// exit code tables of the README and of LANGUAGE.md.
func TestDocsExitCodes(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "miniil.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{} // name -> value
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "Exit") || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.INT {
					codes[n.Name] = lit.Value
				}
			}
		}
	}
	if len(codes) < 8 {
		t.Fatalf("found %d Exit* constants in miniil.go, want at least 8: has their declaration changed shape?", len(codes))
	}
	for _, doc := range []string{"README.md", "docs/LANGUAGE.md"} {
		text := readDoc(t, doc)
		for name, value := range codes {
			row := regexp.MustCompile(`(?m)^\s*\|\s*` + value + `\s*\|`)
			if !row.MatchString(text) {
				t.Errorf("%s: the exit code table has no row for %s (%s): add `| %s | ... |`", doc, name, value, value)
			}
		}
	}
}

// TestDocsBaseLibrary: LANGUAGE.md lists every base library class, every
// method by its signature (E::... for the methods of the exception
// classes other than System.Exception) and every default message.
func TestDocsBaseLibrary(t *testing.T) {
	prog, err := miniil.Load("empty.il", []byte(".method public static void main() cil managed { .entrypoint ret }"))
	if err != nil {
		t.Fatal(err)
	}
	mod := prog.Module()
	text := readDoc(t, "docs/LANGUAGE.md")
	exc := mod.Class(il.ExceptionClass)
	for _, name := range il.BaseLibraryClasses() {
		c := mod.Class(name)
		if c == nil {
			t.Fatalf("base library class %s is not in a loaded module", name)
		}
		if !strings.Contains(text, "`"+name+"`") {
			t.Errorf("docs/LANGUAGE.md does not name the base library class `%s`", name)
		}
		if msg, ok := il.DefaultMessage(name); ok && !strings.Contains(text, msg) {
			t.Errorf("docs/LANGUAGE.md does not give the default message of %s: %q", name, msg)
		}
		subclass := c != exc && c.IsSubclassOf(exc)
		for _, m := range c.Methods {
			sig := m.Signature()
			if subclass {
				sig = strings.Replace(sig, name+"::", "E::", 1)
			}
			if !strings.Contains(text, "`"+sig+"`") {
				t.Errorf("docs/LANGUAGE.md does not list the base library method `%s` (of %s)", sig, name)
			}
		}
	}
}

// TestDocsSupportedAPI: the README's "Supported API" section names every
// identifier package miniil exports (functions, types, constants,
// variables, and the exported methods and fields of its types).
func TestDocsSupportedAPI(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg := pkgs["miniil"]
	if pkg == nil {
		t.Fatal("package miniil not found")
	}
	var names []string
	for _, f := range pkg.Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if s, ok := recv.(*ast.StarExpr); ok {
						recv = s.X
					}
					if id, ok := recv.(*ast.Ident); !ok || !id.IsExported() {
						continue
					}
				}
				names = append(names, d.Name.Name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						names = append(names, s.Name.Name)
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fld := range st.Fields.List {
								for _, n := range fld.Names {
									if n.IsExported() {
										names = append(names, n.Name)
									}
								}
							}
						}
					}
				}
			}
		}
	}
	supported := section(t, readDoc(t, "README.md"), "### Supported API")
	for _, n := range names {
		if !strings.Contains(supported, "`"+n+"`") {
			t.Errorf("README.md, section \"Supported API\", does not name `%s`, which package miniil exports: list it as supported API (or unexport it)", n)
		}
	}
}

// TestDocsPackageStatus: the first paragraph of every package's doc
// comment says whether it is supported API for embedders or internal.
func TestDocsPackageStatus(t *testing.T) {
	dirs := map[string][]string{} // directory -> Go files
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			dirs[filepath.Dir(path)] = append(dirs[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, files := range dirs {
		var nonTest []string
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				nonTest = append(nonTest, f)
			}
		}
		if len(nonTest) > 0 {
			files = nonTest
		}
		var doc string
		for _, path := range files {
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if f.Doc != nil {
				doc += f.Doc.Text()
			}
		}
		first, _, _ := strings.Cut(doc, "\n\n")
		first = strings.Join(strings.Fields(first), " ")
		if !strings.Contains(first, "supported API for embedders") && !strings.Contains(first, "internal to miniil") {
			t.Errorf("package %s: the first paragraph of its doc comment must say whether it is \"supported API for embedders\" or \"internal to miniil: no compatibility promise\" (add a doc.go); it is: %q", dir, first)
		}
	}
}

// TestDocsMonoAdjustments: every corpus program whose golden output was
// adjusted away from Mono's is named in LANGUAGE.md's list of
// differences.
func TestDocsMonoAdjustments(t *testing.T) {
	differences := section(t, readDoc(t, "docs/LANGUAGE.md"), "## Differences from Mono and CoreCLR")
	files, err := filepath.Glob("tests/corpus/*.il")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus programs (%v)", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "// golden adjusted:") {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".il")
		if !strings.Contains(differences, "`"+name+"`") {
			t.Errorf("%s has a \"golden adjusted\" comment, but docs/LANGUAGE.md's \"Differences from Mono and CoreCLR\" does not name `%s`: add the difference it shows", f, name)
		}
	}
}

// TestDocsLinks: relative links of the README and the docs point at files
// of the repository, and their #anchors at headings of those files.
func TestDocsLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{"README.md", "docs/LANGUAGE.md", "docs/ARCHITECTURE.md"} {
		text := readDoc(t, doc)
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), file)
			}
			abs, err := filepath.Abs(path)
			if err != nil || !strings.HasPrefix(abs, root+string(filepath.Separator)) {
				t.Errorf("%s: link %s points outside the repository", doc, target)
				continue
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", doc, target, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !slices.Contains(anchors(readDoc(t, path)), anchor) {
				t.Errorf("%s: link %s: %s has no heading with anchor #%s", doc, target, path, anchor)
			}
		}
	}
}

// anchors returns the GitHub anchors of a Markdown text's headings.
func anchors(text string) []string {
	var out []string
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}
