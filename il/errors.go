package il

import (
	"sort"
	"strings"
)

// Error is a located error in a mini MSIL program: a lexical, syntax,
// resolution or verification error.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList is a list of errors sorted by position; it is itself an error
// that prints one error per line.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the individual errors, so errors.As finds an *Error.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// maxErrors bounds how many errors one run reports.
const maxErrors = 20

// errorSink collects errors, at most maxErrors of them.
type errorSink struct {
	list ErrorList
}

func (s *errorSink) add(p Pos, msg string) {
	if len(s.list) < maxErrors {
		s.list = append(s.list, &Error{Pos: p, Msg: msg})
	}
}

// err returns the collected errors sorted by position, or nil.
func (s *errorSink) err() error {
	if len(s.list) == 0 {
		return nil
	}
	sort.SliceStable(s.list, func(i, j int) bool {
		a, b := s.list[i].Pos, s.list[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return s.list
}
