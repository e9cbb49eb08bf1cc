package irtest_test

import (
	"fmt"
	"strings"
	"testing"

	"miniil/ir"
	"miniil/ir/irtest"
)

// TestBuild builds a function with a loop, a call, null checks and a
// try/catch, and checks it in ir.Fprint's form.
func TestBuild(t *testing.T) {
	b := irtest.New(t, ir.Ref, ir.I32)
	x, n := b.Arg(0), b.Arg(1)
	i := b.Locals(ir.I32)[0]
	loop, body, done := b.Block(), b.Block(), b.Block()
	b.Jump(loop)

	b.At(loop)
	b.If(b.Cmp(ir.Lt, i, n), body, done)

	b.At(body)
	b.NullCheck(x)
	v := b.LdField(x, b.Field("a"))
	b.Copy(i, b.Bin(ir.OpAdd, i, b.Call(b.Method("Callee"), v)))
	b.Jump(loop)

	try := b.Try(nil, 0)
	catch := b.Handler(ir.RegionCatch, nil, 0)
	b.At(done)
	tryBody := b.In(try).Block()
	out := b.In(nil).Block()
	b.Jump(tryBody)
	b.At(tryBody)
	b.NullCheck(x)
	b.StField(x, b.Field("a"), i)
	b.Jump(out)
	b.At(catch.Entry)
	b.CatchArg()
	b.CatchRet(out)
	b.At(out)
	b.Ret(i)
	f := b.Func()

	const want = `func int32 f(object, int32)
  arg v0:ref
  arg v1:i32
  local v2:i32
b0:
  jump -> b1
b1: ; preds b0 b4
  v3:i32 = cmp.lt.i32 v2, v1
  if v3 -> b2 b3
b2: ; preds b1
  if v0 -> b4 b5
b3: ; preds b1
  jump -> b7
b4: ; preds b2
  v4:i32 = ldfield.i32 v0, Box::a
  v5:i32 = call v4, int32 Callee(int32)
  v6:i32 = add.i32 v2, v5
  v2:i32 = copy.i32 v6
  jump -> b1
b5: ; cold ; preds b2
  throwhelper System.NullReferenceException
b6: ; region catch#1
  v7:ref = catcharg.ref
  catchret -> b8
b7: ; region try#0 ; preds b3
  if v0 -> b9 b10
b8: ; preds b6 b9
  ret v2
b9: ; region try#0 ; preds b7
  stfield.i32 v0, v2, Box::a
  jump -> b8
b10: ; cold ; region try#0 ; preds b7
  throwhelper System.NullReferenceException
`
	if got := f.String(); got != want {
		t.Errorf("built function:\n%s\nwant:\n%s", got, want)
	}
	if catch.Entry.Region != catch || !try.Contains(f.Blocks[9].Region) || catch.Funclet() != catch {
		t.Errorf("regions not set up: catch entry in %v, try contains b9: %v", catch.Entry.Region, try.Contains(f.Blocks[9].Region))
	}
}

// fakeTB records the first fatal error and stops the builder there.
type fakeTB struct {
	testing.TB
	msg string
}

func (*fakeTB) Helper() {}

func (tb *fakeTB) Fatalf(format string, args ...any) {
	tb.msg = fmt.Sprintf(format, args...)
	panic(tb)
}

// fatal runs build with a builder on a fake testing.TB and returns the
// fatal error it reported ("" if none).
func fatal(t *testing.T, build func(b *irtest.Builder)) (msg string) {
	tb := &fakeTB{TB: t}
	defer func() {
		if r := recover(); r != nil && r != tb {
			panic(r)
		}
		msg = tb.msg
	}()
	build(irtest.New(tb, ir.I32))
	return ""
}

// TestBuildErrors checks that a malformed function fails the test that
// builds it, with a message that says why.
func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *irtest.Builder)
		want  string
	}{
		{"valid", func(b *irtest.Builder) { b.Ret(b.Arg(0)); b.Func() }, ""},
		{"unterminated block", func(b *irtest.Builder) { b.Block(); b.Ret(); b.Func() }, "b1 has no terminator"},
		{"kinds disagree", func(b *irtest.Builder) {
			b.Ret(b.Bin(ir.OpAdd, b.Arg(0), b.Const(ir.I64, 1)))
			b.Func()
		}, "add: operand 1 v1 is i64, want i32"},
		{"instruction after the terminator", func(b *irtest.Builder) { b.Ret(); b.Const(ir.I32, 1) }, "const after a terminator"},
		{"locals after temporaries", func(b *irtest.Builder) { b.Const(ir.I32, 1); b.Locals(ir.I32) }, "Locals after temporaries"},
		{"wrong argument count", func(b *irtest.Builder) { b.Call(b.Method("Callee")) }, "takes 1 arguments, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fatal(t, tt.build)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("builder reported %q, want %q", got, tt.want)
			}
		})
	}
}
