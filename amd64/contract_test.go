package amd64_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"miniil/abi"
	"miniil/amd64"
	"miniil/internal/corpustest"
	"miniil/jit"
)

// TestRuntimeContract checks, on the code of every corpus and benchmark
// method, the byte forms the runtime relies on (jitrt/doc.go): each
// funclet's prolog checks the stack once, the main body against the soft
// limit and the others against the hard one, with the overflow call out
// of line as `CALL [R15+0x30]` and a jump back to `CMP RSP|RAX,
// [R15+limit]` (jitrt's Machine.stackCheck decodes it); each poll is
// `CMP [R15], 0; JLE cold` with `CALL [R15+0x28]` and a jump back after
// the JLE; in methods with funclets every frame holds the PSPSym at the
// same RSP offset; every call site and cell reference is where a call
// ends or its displacement is.
func TestRuntimeContract(t *testing.T) {
	progs := corpustest.Load(t, "corpus", "bench")
	methods, funclets := 0, 0
	for _, prog := range progs {
		file, mod := prog.File, prog.Mod
		for _, m := range mod.AllMethods() {
			if m.Builtin || m.Abstract {
				continue
			}
			st, err := jit.New(jit.Config{Env: jit.NewDumpEnv(), Validate: true}).Compile(mod, m, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range checkContract(st.Code) {
				t.Errorf("%s: %s: %s", filepath.Base(file), m.FullName(), e)
			}
			methods++
			funclets += len(st.Code.Funclets) - 1
		}
	}
	t.Logf("%d methods, %d funclets checked", methods, funclets)
}

// checkContract returns how code breaks the runtime's contract.
func checkContract(code *amd64.Code) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	c := code.Code
	at := func(off int, want ...byte) bool {
		return off >= 0 && off+len(want) <= len(c) && bytes.Equal(c[off:off+len(want)], want)
	}
	// jumpTarget decodes the JMP at off (EB rel8 or E9 rel32).
	jumpTarget := func(off int) (int, bool) {
		switch {
		case at(off, 0xEB) && off+2 <= len(c):
			return off + 2 + int(int8(c[off+1])), true
		case at(off, 0xE9) && off+5 <= len(c):
			return off + 5 + int(int32(binary.LittleEndian.Uint32(c[off+1:]))), true
		}
		return 0, false
	}
	funcletOf := func(off int) int {
		for k, fc := range code.Funclets {
			if fc.Start <= off && off < fc.End {
				return k
			}
		}
		return -1
	}
	checks := make([]int, len(code.Funclets))
	for _, n := range code.Notes {
		r := n.Offset
		switch n.Text() {
		case "stack overflow":
			if r < code.ColdStart || !at(r-4, 0x41, 0xFF, 0x57, abi.CtxOverflowStub) {
				bad("stack overflow call at %#x: not CALL [R15+0x30] in the cold section", r-4)
				continue
			}
			t, ok := jumpTarget(r)
			if !ok {
				bad("stack overflow call at %#x: no JMP back after it", r-4)
				continue
			}
			k := funcletOf(t)
			limit := byte(abi.CtxStackLimit)
			if k != 0 {
				limit = abi.CtxStackHard
			}
			if !at(t, 0x49, 0x3B, 0x67, limit) && !(k == 0 && at(t, 0x49, 0x3B, 0x47, limit)) {
				bad("stack overflow call at %#x jumps back to %#x, not to CMP RSP|RAX, [R15+%#x]", r-4, t, limit)
			}
			if k >= 0 {
				checks[k]++
				if k == 0 && t >= code.PrologSize {
					bad("the main body's stack check at %#x is not in its prolog", t)
				}
			}
		case "poll":
			if r < code.ColdStart || !at(r-4, 0x41, 0xFF, 0x57, abi.CtxPollStub) {
				bad("poll call at %#x: not CALL [R15+0x28] in the cold section", r-4)
				continue
			}
			t, ok := jumpTarget(r)
			// Back after CMP [R15], 0; JLE (7E rel8 or 0F 8E rel32) to the call.
			short := at(t-6, 0x49, 0x83, 0x3F, 0x00, 0x7E) && t+int(int8(c[t-1])) == r-4
			long := at(t-10, 0x49, 0x83, 0x3F, 0x00, 0x0F, 0x8E) &&
				t+int(int32(binary.LittleEndian.Uint32(c[t-4:]))) == r-4
			if !ok || !short && !long {
				bad("poll call at %#x does not return after a CMP [R15], 0; JLE to it", r-4)
			}
		}
	}
	for k, n := range checks {
		if n != 1 {
			bad("funclet #%d has %d stack checks", k, n)
		}
	}
	if len(code.Funclets) > 1 {
		lines, err := amd64.Disassemble(code.Code, 0)
		if err != nil {
			bad("%v", err)
		}
		text := map[int]string{}
		for _, l := range lines {
			text[l.Offset] = l.Text
		}
		psp := fmt.Sprintf("%#x", code.PSPOffset)
		if code.PSPOffset == 0 {
			psp = "" // [rsp] rather than [rsp+0x0]
		} else {
			psp = "+" + psp
		}
		store := fmt.Sprintf("mov qword ptr [rsp%s], rsp", psp)
		found := false
		for _, l := range lines {
			if l.Offset < code.PrologSize && l.Text == store {
				found = true
			}
		}
		if !found {
			bad("the main prolog does not store the PSPSym: no %q", store)
		}
		for k, fc := range code.Funclets[1:] {
			var prolog []string
			for _, l := range lines {
				if l.Offset >= fc.Start && len(prolog) < 7 {
					prolog = append(prolog, l.Text)
				}
			}
			want := []string{
				"push rbp",
				fmt.Sprintf("sub rsp, %#x", fc.FrameSize),
				"cmp rsp, qword ptr [r15+0x58]",
				"", // jb cold
				fmt.Sprintf("mov rax, qword ptr [rdi%s]", psp),
				fmt.Sprintf("mov qword ptr [rsp%s], rax", psp),
				fmt.Sprintf("lea rbp, ptr [rax+%#x]", code.FrameSize),
			}
			for i, w := range want {
				if i < len(prolog) && w != "" && prolog[i] != w {
					bad("funclet #%d's prolog has %q where %q belongs", k+1, prolog[i], w)
				}
			}
		}
	}
	ends := map[int]bool{}
	if lines, err := amd64.Disassemble(code.Code, 0); err == nil {
		for _, l := range lines {
			if strings.HasPrefix(l.Text, "call ") {
				ends[l.Offset+len(l.Bytes)] = true
			}
		}
	}
	for _, s := range code.Sites {
		if !ends[s.Offset] {
			bad("call site %#x is not where a call ends", s.Offset)
		}
	}
	for _, cr := range code.CellRefs {
		if !at(cr.Offset-2, 0xFF, 0x15) || !ends[cr.Offset+4] {
			bad("cell reference %#x is not the displacement of a CALL [RIP+disp32]", cr.Offset)
		}
	}
	return errs
}
