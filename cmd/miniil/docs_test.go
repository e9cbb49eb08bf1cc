package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocsFlags: every flag of run, check and dump (as their -h lists
// them) is mentioned in the README's "Command line" section.
func TestDocsFlags(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Command line\n")
	if !ok {
		t.Fatal(`README.md has no "## Command line" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	readme := []byte(section)
	flagLine := regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)
	for _, cmd := range []string{"run", "check", "dump"} {
		var out, errb bytes.Buffer
		if code := run([]string{cmd, "-h"}, &out, &errb); code != 0 {
			t.Fatalf("miniil %s -h: exit %d: %s", cmd, code, errb.String())
		}
		flags := flagLine.FindAllStringSubmatch(out.String(), -1)
		if len(flags) == 0 {
			t.Fatalf("miniil %s -h lists no flags:\n%s", cmd, out.String())
		}
		for _, f := range flags {
			mention := regexp.MustCompile(`(^|[^A-Za-z0-9-])-` + regexp.QuoteMeta(f[1]) + `([^A-Za-z0-9-]|$)`)
			if !mention.Match(readme) {
				t.Errorf("README.md's \"Command line\" section does not mention -%s, a flag of miniil %s: document it there", f[1], cmd)
			}
		}
	}
}
