//go:build linux

package jitrt

// resume switches to native code described by the context block at ctx: it
// saves Go's SP and BP into CtxGoSP and CtxGoBP, loads RSP, RBP, RAX-R14 and
// the low halves of XMM0-15 from the context, sets R15 = ctx and jumps to
// CtxPC. It returns when native code enters the exit stub. Implemented in
// resume_amd64.s (ABI0, NOSPLIT|NOFRAME).
//
//go:noescape
func resume(ctx uintptr)
