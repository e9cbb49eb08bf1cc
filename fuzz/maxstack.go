package fuzz

import (
	"slices"
	"strconv"
	"strings"

	"miniil/il"
)

// fitMaxStack raises the .maxstack of every method of the program src
// whose evaluation stack gets deeper than it declares to the depth it
// reaches (il.StackDepths). The lowering declares 64, which a method of
// deeply nested expressions and calls can pass; every other method keeps
// its text, so a program that fits is returned unchanged. A program that
// does not parse or verify for another reason is returned as it is, for
// the run to report.
func fitMaxStack(src string) string {
	m, err := il.ParseString("fuzz.il", src)
	if err != nil {
		return src
	}
	depths, _ := il.StackDepths(m)
	type fix struct{ at, end, depth int }
	var fixes []fix
	for md, d := range depths {
		if !md.HasMaxStack || d <= md.MaxStack {
			continue
		}
		// The directive follows the method's declaration.
		from := lineStart(src, md.Pos.Line)
		k := strings.Index(src[from:], ".maxstack ")
		if k < 0 {
			continue
		}
		at := from + k + len(".maxstack ")
		end := at
		for end < len(src) && src[end] >= '0' && src[end] <= '9' {
			end++
		}
		fixes = append(fixes, fix{at, end, d})
	}
	if len(fixes) == 0 {
		return src
	}
	slices.SortFunc(fixes, func(a, b fix) int { return a.at - b.at })
	var b strings.Builder
	prev := 0
	for _, f := range fixes {
		b.WriteString(src[prev:f.at])
		b.WriteString(strconv.Itoa(f.depth))
		prev = f.end
	}
	b.WriteString(src[prev:])
	return b.String()
}

// lineStart returns the byte offset of 1-based line n of src.
func lineStart(src string, n int) int {
	off := 0
	for ; n > 1; n-- {
		k := strings.IndexByte(src[off:], '\n')
		if k < 0 {
			return len(src)
		}
		off += k + 1
	}
	return off
}
