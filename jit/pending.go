package jit

import (
	"miniil/amd64"
	"miniil/funclet"
	"miniil/ir"
)

// Placeholders until the checks land (issue 10): opt.Unreachable,
// funclet.Check, amd64.CheckAlloc.
func unreachable(f *ir.Func)                                           {}
func checkLayout(f *ir.Func, lay *funclet.Layout) error                { return nil }
func checkAlloc(f *ir.Func, lay *funclet.Layout, a *amd64.Alloc) error { return nil }
