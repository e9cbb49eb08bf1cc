package il

// InCorelib reports whether k is one of the static methods both engines
// compute with internal/corelib: System.Math, the Parse methods and the
// clocks (a contiguous run of kinds, from MathSqrt to
// StopwatchGetTimestamp).
func (k BuiltinKind) InCorelib() bool { return k >= MathSqrt && k <= StopwatchGetTimestamp }
