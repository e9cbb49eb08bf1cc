package tests

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowedImports says which of miniil's packages each package may import
// (non-test files): data flows down the pipeline, the code generator and
// the runtime meet only in abi, and the interpreter shares nothing with
// the JIT but il and the base library's pure functions (internal/corelib).
// internal/chunked and internal/slab (containers) and internal/prefault
// (populating fresh memory in one call) are leaves any stage may use.
var allowedImports = map[string][]string{
	"il":                  {"internal/chunked", "internal/slab"},
	"abi":                 {"il"},
	"ir":                  {"il", "internal/prefault"},
	"reader":              {"il", "ir"},
	"opt":                 {"il", "ir"},
	"funclet":             {"abi", "ir"},
	"amd64":               {"abi", "funclet", "il", "internal/chunked", "ir"},
	"ehclauses":           {"abi", "amd64", "il", "ir"},
	"jit":                 {"abi", "amd64", "ehclauses", "funclet", "il", "ir", "opt", "reader"},
	"jitrt":               {"abi", "amd64", "il", "internal/corelib", "internal/prefault", "internal/slab"}, // amd64 for its assembler only
	"interp":              {"il", "internal/corelib"},
	"fuzz":                {"", "il"},
	"cmd/miniil":          {"", "fuzz"},
	"internal/bigprog":    {"fuzz"},
	"internal/deepnest":   {},
	"internal/corelib":    {},
	"internal/chunked":    {},
	"internal/prefault":   {},
	"internal/slab":       {"internal/prefault"},
	"internal/corpustest": {"il"}, // for tests: loads tests/corpus and tests/bench
	// The root package wires everything together.
	"": {"abi", "amd64", "ehclauses", "funclet", "il", "internal/prefault", "interp", "ir", "jit", "jitrt", "opt", "reader"},
}

// TestImports checks every package's imports of miniil's own packages
// against allowedImports.
func TestImports(t *testing.T) {
	root := ".."
	for pkg, allowed := range allowedImports {
		dir := filepath.Join(root, pkg)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Errorf("package %q: %v", pkg, err)
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path != "miniil" && !strings.HasPrefix(path, "miniil/") {
					continue
				}
				dep := strings.TrimPrefix(strings.TrimPrefix(path, "miniil"), "/")
				if !slices.Contains(allowed, dep) {
					t.Errorf("%s imports %s, which package %q may not import (allowed: %q)", filepath.Join(pkg, name), path, pkg, allowed)
				}
			}
		}
	}
}
