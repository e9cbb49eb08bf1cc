package reader

import (
	"miniil/il"
	"miniil/ir"
)

// Options configures ImportWith.
type Options struct {
	// Initialized reports whether a type initializer has run (its state
	// is il.InitDone) when the method is compiled: the sites that trigger
	// it then need no check, since that state never changes again. Nil:
	// none has (a dump shows every check).
	Initialized func(*il.TypeInit) bool
}

// initialized reports whether ti needs no check in this method.
func (r *reader) initialized(ti *il.TypeInit) bool {
	return r.opts.Initialized != nil && r.opts.Initialized(ti)
}

// entryInit returns, when the method's entry triggers a type initializer
// that had not run when the method was compiled, a block that checks it
// and is the method's first block (the caller ends it with a jump to the
// first instruction's block). Like CoreCLR's prolog check, it lies
// outside every protected region, so no handler of the method sees the
// initializer's exception.
func (r *reader) entryInit() *ir.Block {
	ti := il.InitTriggered(r.m, nil)
	if ti == nil || r.initialized(ti) {
		return nil
	}
	r.region = nil
	r.ilOff = 0
	r.cur = r.newBlock()
	r.initCheck(ti)
	return r.cur
}

// initCheck emits, before a site that triggers ti (nil: none), the test
// of its state and, in a cold block of the site's region, the call of
// ti.Run when it is not done (Run returns at once while the class is
// being initialized by this thread). Nothing is emitted if ti had run
// when the method was compiled.
func (r *reader) initCheck(ti *il.TypeInit) {
	if ti == nil || r.initialized(ti) {
		return
	}
	state := r.value(ir.OpLdStatic, ir.I32, ir.Aux{Field: ti.State})
	notDone := r.cmp(ir.Ne, state, r.constI32(il.InitDone))
	run := r.newBlock()
	run.Cold = true
	next := r.newBlock()
	r.terminate(ir.OpIf, []ir.Value{notDone}, ir.Aux{}, run, next)
	r.cur = run
	r.emit(ir.OpCall, 0, ir.NoValue, nil, ir.Aux{Method: ti.Run})
	r.terminate(ir.OpJump, nil, ir.Aux{}, next)
	r.cur = next
}
