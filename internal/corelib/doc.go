// Package corelib holds the pure functions of miniil's base library that
// both engines share, as they share il's float formatting: System.Math
// (correctly rounded elementary functions, see math.go), the invariant
// culture Int32, Int64 and Double Parse (parse.go) and the clocks
// (clock.go). It imports nothing of miniil. It is internal to miniil: no
// compatibility promise.
package corelib
