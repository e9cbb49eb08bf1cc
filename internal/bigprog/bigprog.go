// Package bigprog builds large realistic mini MSIL programs, for
// measuring how loading scales with program size: it concatenates
// programs of the differential fuzzer (many methods with loops, calls,
// exception handling, objects and arrays), renaming each copy's classes,
// fields and methods apart. It is internal to miniil: no compatibility
// promise.
package bigprog

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"miniil/fuzz"
)

var (
	declClass  = regexp.MustCompile(`(?m)^\.class [^\n]*? ([A-Za-z_][A-Za-z0-9_]*) extends `)
	declField  = regexp.MustCompile(`(?m)^\.field public static [^\n]* ([A-Za-z_][A-Za-z0-9_]*)$`)
	declMethod = regexp.MustCompile(`(?m)^\.method [^\n(]* ([A-Za-z_][A-Za-z0-9_]*)\(`)
)

// Program returns a valid program of at least size bytes: copies of
// fuzzer programs (seeds 1, 2, ...), each with its top-level names
// suffixed by _cN; only the first copy's main is the entry point.
func Program(size int) []byte {
	o, err := fuzz.SizeOptions("large")
	if err != nil {
		panic(err)
	}
	var b bytes.Buffer
	b.Grow(size + 64<<10)
	b.WriteString(".assembly extern mscorlib {}\n.assembly big {}\n")
	for n := 0; b.Len() < size; n++ {
		src := fuzz.GenerateIL(uint64(n+1), o)
		// Drop the assembly directives; every copy repeats them.
		var body []string
		for _, line := range strings.Split(src, "\n") {
			if !strings.HasPrefix(line, ".assembly") {
				body = append(body, line)
			}
		}
		src = strings.Join(body, "\n")
		var names []string
		for _, re := range []*regexp.Regexp{declClass, declField, declMethod} {
			for _, m := range re.FindAllStringSubmatch(src, -1) {
				names = append(names, regexp.QuoteMeta(m[1]))
			}
		}
		rename := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
		suffix := fmt.Sprintf("_c%d", n)
		src = rename.ReplaceAllStringFunc(src, func(s string) string { return s + suffix })
		if n > 0 {
			src = strings.ReplaceAll(src, ".entrypoint", "")
		}
		b.WriteString(src)
		b.WriteString("\n")
	}
	return b.Bytes()
}
