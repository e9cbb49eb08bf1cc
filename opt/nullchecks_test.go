package opt_test

import (
	"testing"

	"miniil/il"
	"miniil/ir"
	"miniil/ir/irtest"
	"miniil/opt"
)

// TestNullChecksBuilt runs the null-check pass on functions built block by
// block, each stating which checks must go and which must stay.
func TestNullChecksBuilt(t *testing.T) {
	tests := []struct {
		name string
		// build makes the function from a builder with two reference
		// arguments and returns the blocks ending in a check that the pass
		// must remove and those it must keep.
		build func(b *irtest.Builder) (removed, kept []*ir.Block)
		// bug, when set, names a known bug that makes the case fail.
		bug string
	}{
		{"a check dominated by one of the same value goes", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x := b.Arg(0)
			first := b.NullCheck(x)
			b.LdField(x, b.Field("a"))
			second := b.NullCheck(x)
			b.LdField(x, b.Field("x"))
			b.Ret()
			return []*ir.Block{second}, []*ir.Block{first}
		}, ""},
		{"a check of another value stays", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			first := b.NullCheck(b.Arg(0))
			second := b.NullCheck(b.Arg(1))
			b.Ret()
			return nil, []*ir.Block{first, second}
		}, ""},
		{"a check on one side of a diamond does not cover the join", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x, c := b.Arg(0), b.Arg(1)
			left, right, join := b.Block(), b.Block(), b.Block()
			b.If(c, left, right)
			b.At(left)
			arm := b.NullCheck(x)
			b.Jump(join)
			b.At(right)
			b.Jump(join)
			b.At(join)
			after := b.NullCheck(x)
			b.Ret()
			return nil, []*ir.Block{arm, after}
		}, ""},
		{"checks on both sides of a diamond cover the join", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x, c := b.Arg(0), b.Arg(1)
			left, right, join := b.Block(), b.Block(), b.Block()
			b.If(c, left, right)
			b.At(left)
			l := b.NullCheck(x)
			b.Jump(join)
			b.At(right)
			r := b.NullCheck(x)
			b.Jump(join)
			b.At(join)
			after := b.NullCheck(x)
			b.Ret()
			return []*ir.Block{after}, []*ir.Block{l, r}
		}, ""},
		{"a check before a loop covers the loop (greatest fixed point)", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x, c := b.Arg(0), b.Arg(1)
			head, body, exit := b.Block(), b.Block(), b.Block()
			before := b.NullCheck(x)
			b.Jump(head)
			b.At(head)
			b.If(c, body, exit)
			b.At(body)
			inLoop := b.NullCheck(x)
			b.LdField(x, b.Field("a"))
			b.Jump(head)
			b.At(exit)
			b.Ret()
			return []*ir.Block{inLoop}, []*ir.Block{before}
		}, ""},
		{"a value redefined in a loop is checked again", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x, c := b.Arg(0), b.Arg(1)
			head, body, exit := b.Block(), b.Block(), b.Block()
			before := b.NullCheck(x)
			b.Jump(head)
			b.At(head)
			b.If(c, body, exit)
			b.At(body)
			inLoop := b.NullCheck(x)
			b.EmitTo(x, ir.OpLdField, ir.Aux{Ref: b.Field("next")}, x)
			b.Jump(head)
			b.At(exit)
			b.Ret()
			return nil, []*ir.Block{before, inLoop}
		}, ""},
		{"a definition kills the fact", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x := b.Arg(0)
			first := b.NullCheck(x)
			b.EmitTo(x, ir.OpLdField, ir.Aux{Ref: b.Field("next")}, x)
			second := b.NullCheck(x)
			b.Ret()
			return nil, []*ir.Block{first, second}
		}, ""},
		{"a call result is not known non-null", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x := b.Arg(0)
			first := b.NullCheck(x)
			b.EmitTo(x, ir.OpCall, ir.Aux{Ref: b.Method("System.Object::ToString")}, x)
			second := b.NullCheck(x)
			b.Ret()
			return nil, []*ir.Block{first, second}
		}, ""},
		{"a copy of a checked value is known", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x, y := b.Arg(0), b.Arg(1)
			first := b.NullCheck(x)
			b.Copy(y, x)
			second := b.NullCheck(y)
			b.Ret()
			return []*ir.Block{second}, []*ir.Block{first}
		}, ""},
		{"a copy of an unchecked value kills the fact", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x, y := b.Arg(0), b.Arg(1)
			first := b.NullCheck(x)
			b.Copy(x, y)
			second := b.NullCheck(x)
			b.Ret()
			return nil, []*ir.Block{first, second}
		}, ""},
		{"allocations and strings are never null", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			obj := b.Alloc()
			c1 := b.NullCheck(obj)
			s := b.Str("s")
			c2 := b.NullCheck(s)
			arr := b.Emit(ir.OpNewArr, ir.Ref, ir.Aux{Type: il.Int32}, b.Const(ir.I64, 3))
			c3 := b.NullCheck(arr)
			boxed := b.Emit(ir.OpBox, ir.Ref, ir.Aux{Type: il.Int32}, b.Const(ir.I32, 1))
			c4 := b.NullCheck(boxed)
			null := b.Const(ir.Ref, 0)
			c5 := b.NullCheck(null)
			b.Ret()
			return []*ir.Block{c1, c2, c3, c4}, []*ir.Block{c5}
		}, ""},
		{"a catch entry knows nothing of its try", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x := b.Arg(0)
			try := b.Try(nil, 0)
			catch := b.Handler(ir.RegionCatch, nil, 0)
			before := b.NullCheck(x)
			body := b.In(try).Block()
			out := b.In(nil).Block()
			b.Jump(body)
			b.At(body)
			inTry := b.NullCheck(x)
			b.Jump(out)
			b.At(catch.Entry)
			b.CatchArg()
			inCatch := b.NullCheck(x)
			b.CatchRet(out)
			b.At(out)
			b.Ret()
			return []*ir.Block{inTry}, []*ir.Block{before, inCatch}
		}, ""},
		{"a finally called after a check still checks", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x := b.Arg(0)
			try := b.Try(nil, 0)
			fin := b.Handler(ir.RegionFinally, nil, 0)
			body := b.In(try).Block()
			step, out := b.In(nil).Block(), b.Block()
			b.Jump(body)
			b.At(body)
			inTry := b.NullCheck(x)
			b.Jump(step)
			b.At(step)
			b.CallFinally(0, out)
			b.At(fin.Entry)
			inFinally := b.NullCheck(x)
			b.EndFinally()
			b.At(out)
			afterFinally := b.NullCheck(x)
			b.Ret()
			// After the finally, x is still the checked value: the
			// callfinally edge carries the fact.
			return []*ir.Block{afterFinally}, []*ir.Block{inTry, inFinally}
		}, ""},
		{"a finally that redefines the value kills the fact", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x := b.Arg(0)
			try := b.Try(nil, 0)
			fin := b.Handler(ir.RegionFinally, nil, 0)
			body := b.In(try).Block()
			step, out := b.In(nil).Block(), b.Block()
			b.Jump(body)
			b.At(body)
			inTry := b.NullCheck(x)
			b.Jump(step)
			b.At(step)
			b.CallFinally(0, out)
			b.At(fin.Entry)
			b.Copy(x, b.Const(ir.Ref, 0))
			b.EndFinally()
			b.At(out)
			afterFinally := b.NullCheck(x)
			b.Ret()
			return nil, []*ir.Block{inTry, afterFinally}
		}, ""},
		{"facts inside a handler still flow along its own edges", func(b *irtest.Builder) ([]*ir.Block, []*ir.Block) {
			x := b.Arg(0)
			b.Try(nil, 0)
			fault := b.Handler(ir.RegionFault, nil, 0)
			b.Ret()
			b.At(fault.Entry)
			first := b.NullCheck(x)
			second := b.NullCheck(x)
			b.EndFinally()
			return []*ir.Block{second}, []*ir.Block{first}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.bug != "" {
				t.Skip("known bug: " + tt.bug)
			}
			b := irtest.New(t, ir.Ref, ir.Ref)
			removed, kept := tt.build(b)
			f := b.Func()
			before := f.String()
			n := opt.NullChecks(f)
			if err := ir.Check(f); err != nil {
				t.Fatalf("the pass broke the IR: %v\n%s", err, f)
			}
			for _, blk := range removed {
				if blk.Term.Op != ir.OpJump || len(blk.Succs) != 1 || blk.Succs[0].Cold {
					t.Errorf("the check ending b%d was kept, want it removed", blk.ID)
				}
			}
			for _, blk := range kept {
				if blk.Term.Op != ir.OpIf {
					t.Errorf("the check ending b%d was removed, want it kept", blk.ID)
				}
			}
			if n != len(removed) {
				t.Errorf("the pass reports %d checks removed, want %d", n, len(removed))
			}
			if t.Failed() {
				t.Logf("before:\n%s\nafter:\n%s", before, f)
			}
		})
	}
}
