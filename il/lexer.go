package il

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// tokKind is the kind of a lexical token.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // name, possibly dotted (ldc.i4.s, System.Console)
	tDot            // directive or dotted keyword: .method, .ctor
	tQuoted         // 'single quoted name'
	tNumber         // integer or float literal, text kept raw
	tString         // "double quoted", value unescaped
	tPunct          // { } ( ) [ ] , : :: = < > * & /
)

type token struct {
	text string // identifier, directive (with dot), raw number, punctuation, or unescaped string
	// line and col are the token's position in the lexer's file (the
	// parser's at makes a Pos of them): a token is copied often, and
	// without the file name it is half the size and holds one pointer.
	line, col int32
	kind      tokKind
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return fmt.Sprintf("string %q", t.text)
	case tQuoted:
		return "'" + t.text + "'"
	}
	return "'" + t.text + "'"
}

// lexer splits source text into tokens.
type lexer struct {
	file string
	src  []byte
	// text is the source as a string (src is a read-only view of the
	// same bytes): token texts (identifiers, directives, numbers) are
	// substrings of it, so lexing allocates nothing per token and a
	// name repeated throughout a program costs no memory of its own.
	text string
	off  int
	line int
	// lineStart is the offset of the current line's first byte: a
	// position's column (in bytes) is off-lineStart+1, so advancing
	// counts nothing but newlines.
	lineStart int
}

func newLexer(file string, text string) *lexer {
	return &lexer{file: file, src: unsafe.Slice(unsafe.StringData(text), len(text)), text: text, line: 1}
}

// slice returns the source text from byte start to end.
func (lx *lexer) slice(start, end int) string { return lx.text[start:end] }

// Character classes of the source's bytes, looked up in charClass.
const (
	cSpace      = 1 << iota // white space
	cIdentStart             // may start an identifier
	cIdentPart              // may continue one (starts, digits and '.')
)

// charClass holds each byte's classes; it is built once and only read.
var charClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_' || b == '$' || b == '@' || b == '?' || b == '`' || b >= 0x80 {
			t[c] |= cIdentStart | cIdentPart
		}
		if b >= '0' && b <= '9' || b == '.' {
			t[c] |= cIdentPart
		}
		switch b {
		case ' ', '\t', '\r', '\n', '\f', '\v':
			t[c] |= cSpace
		}
	}
	return t
}()

func isIdentStart(c byte) bool { return charClass[c]&cIdentStart != 0 }

func isIdentPart(c byte) bool { return charClass[c]&cIdentPart != 0 }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// checkUTF8 returns an error at the first byte of src that is not
// valid UTF-8, if there is one: that error comes before any other.
func checkUTF8(file string, src string) error {
	if utf8.ValidString(src) {
		return nil
	}
	lx := newLexer(file, src)
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRuneInString(src[i:])
		if r == utf8.RuneError && n <= 1 {
			return &Error{Pos: lx.posAt(i), Msg: "source is not valid UTF-8"}
		}
		i += n
	}
	return nil
}

// checkTokens lexes the rest of lx's source, without keeping the
// tokens, and returns the first lexical error, if any: one is reported
// whatever syntax errors come before it.
func checkTokens(lx *lexer) error {
	for {
		t, err := lx.next()
		if err != nil {
			return err
		}
		if t.kind == tEOF {
			return nil
		}
	}
}

// posAt computes the position of byte offset i from the start (used only
// for errors before lexing starts).
func (lx *lexer) posAt(i int) Pos {
	line, col := 1, 1
	for j := 0; j < i; j++ {
		if lx.src[j] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return Pos{File: lx.file, Line: line, Col: col}
}

func (lx *lexer) pos() Pos { return lx.posOf(lx.lineCol()) }

// lineCol returns the current line and column.
func (lx *lexer) lineCol() (line, col int32) { return int32(lx.line), int32(lx.off - lx.lineStart + 1) }

// posOf returns the position of line and column col of the file.
func (lx *lexer) posOf(line, col int32) Pos {
	return Pos{File: lx.file, Line: int(line), Col: int(col)}
}

// newToken returns a token of kind k and text s at position (line, col).
func newToken(k tokKind, s string, line, col int32) token {
	return token{kind: k, text: s, line: line, col: col}
}

func (lx *lexer) peekByte(k int) byte {
	if lx.off+k < len(lx.src) {
		return lx.src[lx.off+k]
	}
	return 0
}

func (lx *lexer) advance() {
	if lx.src[lx.off] == '\n' {
		lx.line++
		lx.lineStart = lx.off + 1
	}
	lx.off++
}

func (lx *lexer) errorf(p Pos, format string, args ...any) error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// skipSpace skips white space and comments.
func (lx *lexer) skipSpace() error {
	src, i := lx.src, lx.off
	for i < len(src) {
		c := src[i]
		if charClass[c]&cSpace != 0 {
			if c == '\n' {
				lx.line++
				lx.lineStart = i + 1
			}
			i++
			continue
		}
		if c != '/' || i+1 == len(src) {
			break
		}
		switch src[i+1] {
		case '/': // to the end of the line, whose newline the loop counts
			if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(src)
			}
			continue
		case '*':
			lx.off = i
			start := lx.pos()
			lx.advance()
			lx.advance()
			for {
				if lx.off >= len(src) {
					return lx.errorf(start, "comment is not terminated: missing */")
				}
				if src[lx.off] == '*' && lx.peekByte(1) == '/' {
					lx.advance()
					lx.advance()
					break
				}
				lx.advance()
			}
			i = lx.off
			continue
		}
		break
	}
	lx.off = i
	return nil
}

// puncts are the one-byte punctuation tokens.
const puncts = "{}()[],:=<>*&/+!"

func (lx *lexer) next() (token, error) {
	if err := lx.skipSpace(); err != nil {
		return token{}, err
	}
	line, col := lx.lineCol()
	if lx.off >= len(lx.src) {
		return newToken(tEOF, "", line, col), nil
	}
	c := lx.src[lx.off]
	start := lx.off
	switch {
	case isIdentStart(c):
		lx.off = lx.identEnd(lx.off + 1)
		return newToken(tIdent, lx.slice(start, lx.off), line, col), nil
	case c == '.' && isIdentStart(lx.peekByte(1)):
		lx.off = lx.identEnd(lx.off + 2)
		return newToken(tDot, lx.slice(start, lx.off), line, col), nil
	case isDigit(c) || (c == '-' || c == '+') && (isDigit(lx.peekByte(1)) || lx.peekByte(1) == '.' && isDigit(lx.peekByte(2))) || c == '.' && isDigit(lx.peekByte(1)):
		lx.advance()
		hex := c == '0' && (lx.peekByte(0) == 'x' || lx.peekByte(0) == 'X')
		for lx.off < len(lx.src) {
			d := lx.src[lx.off]
			if (d == 'e' || d == 'E') && !hex && (lx.peekByte(1) == '+' || lx.peekByte(1) == '-') {
				lx.advance()
				lx.advance()
				continue
			}
			if isDigit(d) || d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' || d == '.' || d == '_' {
				lx.advance()
				continue
			}
			break
		}
		return newToken(tNumber, lx.slice(start, lx.off), line, col), nil
	case c == '"':
		s, err := lx.quoted('"')
		if err != nil {
			return token{}, err
		}
		return newToken(tString, s, line, col), nil
	case c == '\'':
		s, err := lx.quoted('\'')
		if err != nil {
			return token{}, err
		}
		if s == "" {
			return token{}, lx.errorf(lx.posOf(line, col), "empty quoted name ''")
		}
		return newToken(tQuoted, s, line, col), nil
	case c == ':' && lx.peekByte(1) == ':':
		lx.off += 2
		return newToken(tPunct, "::", line, col), nil
	}
	if i := strings.IndexByte(puncts, c); i >= 0 {
		lx.off++
		return newToken(tPunct, puncts[i:i+1], line, col), nil
	}
	r, _ := utf8.DecodeRune(lx.src[lx.off:])
	return token{}, lx.errorf(lx.posOf(line, col), "unexpected character %q", r)
}

// identEnd returns the offset just past the identifier characters from
// i on (none of them is a newline, so the line does not change).
func (lx *lexer) identEnd(i int) int {
	for i < len(lx.src) && isIdentPart(lx.src[i]) {
		i++
	}
	return i
}

// quoted reads a quoted string or name, handling ilasm's escapes.
func (lx *lexer) quoted(q byte) (string, error) {
	p := lx.pos()
	lx.advance() // opening quote
	var b strings.Builder
	for {
		if lx.off >= len(lx.src) || lx.src[lx.off] == '\n' {
			return "", lx.errorf(p, "string is not terminated: missing closing %c", q)
		}
		c := lx.src[lx.off]
		if c == q {
			lx.advance()
			return b.String(), nil
		}
		if c != '\\' {
			b.WriteByte(c)
			lx.advance()
			continue
		}
		ep := lx.pos()
		lx.advance()
		if lx.off >= len(lx.src) {
			return "", lx.errorf(p, "string is not terminated: missing closing %c", q)
		}
		e := lx.src[lx.off]
		lx.advance()
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'a':
			b.WriteByte('\a')
		case '?':
			b.WriteByte('?')
		case '\\', '"', '\'':
			b.WriteByte(e)
		case '\n':
			// line continuation
		default:
			if e >= '0' && e <= '7' {
				v := int(e - '0')
				for k := 0; k < 2 && lx.off < len(lx.src) && lx.src[lx.off] >= '0' && lx.src[lx.off] <= '7'; k++ {
					v = v*8 + int(lx.src[lx.off]-'0')
					lx.advance()
				}
				if v > 0x7F {
					return "", lx.errorf(ep, "octal escape \\%o is outside ASCII; write the character itself", v)
				}
				b.WriteByte(byte(v))
				continue
			}
			return "", lx.errorf(ep, "unknown escape sequence \\%c in string", e)
		}
	}
}
