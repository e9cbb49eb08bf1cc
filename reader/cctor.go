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
	// Cache is the memory the IR is made in (ir.Cache; nil: fresh). The
	// function is then valid until the cache's next Reset.
	Cache *ir.Cache
}

// initialized reports whether ti needs no check in this method.
func (r *reader) initialized(ti *il.TypeInit) bool {
	return r.opts.Initialized != nil && r.opts.Initialized(ti)
}

// entryInit returns, when the method's entry triggers a type initializer
// that had not run when the method was compiled, the method's first
// block, empty; the caller makes the other blocks, then fills it in with
// fillEntryInit. Like CoreCLR's prolog check, it lies outside every
// protected region, so no handler of the method sees the initializer's
// exception.
func (r *reader) entryInit() *ir.Block {
	ti := il.InitTriggered(r.m, nil)
	if ti == nil || r.initialized(ti) {
		return nil
	}
	b := r.f.NewBlock(0)
	r.markDone(b)
	return b
}

// fillEntryInit makes entry, the block entryInit made, check the type
// initializer and go on to first, the first instruction's block.
func (r *reader) fillEntryInit(entry, first *ir.Block) {
	r.cur, r.region, r.ilOff = entry, nil, 0
	r.initCheck(il.InitTriggered(r.m, nil), first)
}

// initCheck emits, before a site that triggers ti (nil: none), the test
// of its state and, in a cold block of the site's region, the call of
// ti.Run when the class is neither done nor being initialized (by this
// thread; the interpreter makes the same test, so both count the same
// calls for the call depth limit). The site's code goes on in next
// (nil: a new block). Nothing is emitted if ti had run when the method
// was compiled.
func (r *reader) initCheck(ti *il.TypeInit, next *ir.Block) {
	if ti == nil || r.initialized(ti) {
		if next != nil {
			r.terminate(ir.OpJump, nil, ir.Aux{}, next)
		}
		return
	}
	state := r.value(ir.OpLdStatic, ir.I32, ir.Aux{Ref: ti.State})
	notDone := r.cmp(ir.Lt, state, r.constI32(il.InitRunning))
	run := r.newBlock()
	run.Cold = true
	if next == nil {
		next = r.newBlock()
	}
	r.terminate(ir.OpIf, []ir.Value{notDone}, ir.Aux{}, run, next)
	r.cur = run
	r.emit(ir.OpCall, 0, ir.NoValue, nil, ir.Aux{Ref: ti.Run})
	r.terminate(ir.OpJump, nil, ir.Aux{}, next)
	r.cur = next
}
