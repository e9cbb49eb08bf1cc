// Package corelib holds the pure functions of miniil's base library that
// both engines share, as they share il's float formatting: System.Math
// (correctly rounded elementary functions, see math.go) and the invariant
// culture Int32, Int64 and Double Parse (parse.go). It imports nothing of
// miniil.
//
// This package is internal to miniil; it has no compatibility promise.
package corelib
