package jitrt

import (
	"fmt"
	"math"

	"miniil/abi"
	"miniil/il"
	"miniil/internal/corelib"
)

// libBuiltin runs the static methods of System.Math, the Parse methods
// and the clocks for a HelperBuiltin exit, computed by corelib as in the
// interpreter; a is the arguments (float64 ones as their bits).
func (rt *Runtime) libBuiltin(m *Machine, k il.BuiltinKind, a []uint64) error {
	f := func(r float64) error {
		m.SetReg(abi.CtxXMM0, math.Float64bits(r))
		return nil
	}
	i := func(n int64) error { return rt.result(uintptr(n), nil) }
	x := func(j int) float64 { return math.Float64frombits(a[j]) }
	switch k {
	case il.MathSqrt:
		return f(corelib.Sqrt(x(0)))
	case il.MathAbsDouble:
		return f(corelib.Abs(x(0)))
	case il.MathAbsInt32:
		v := int32(a[0])
		if v == -1<<31 {
			return rt.throwNew(m, "System.OverflowException", corelib.NegateMinValueMessage)
		}
		return i(int64(max(v, -v)))
	case il.MathAbsInt64:
		v := int64(a[0])
		if v == -1<<63 {
			return rt.throwNew(m, "System.OverflowException", corelib.NegateMinValueMessage)
		}
		return i(max(v, -v))
	case il.MathMinDouble:
		return f(corelib.Min(x(0), x(1)))
	case il.MathMinInt32:
		return i(int64(min(int32(a[0]), int32(a[1]))))
	case il.MathMinInt64:
		return i(min(int64(a[0]), int64(a[1])))
	case il.MathMaxDouble:
		return f(corelib.Max(x(0), x(1)))
	case il.MathMaxInt32:
		return i(int64(max(int32(a[0]), int32(a[1]))))
	case il.MathMaxInt64:
		return i(max(int64(a[0]), int64(a[1])))
	case il.MathFloor:
		return f(corelib.Floor(x(0)))
	case il.MathCeiling:
		return f(corelib.Ceiling(x(0)))
	case il.MathRound:
		return f(corelib.Round(x(0)))
	case il.MathTruncate:
		return f(corelib.Truncate(x(0)))
	case il.MathPow:
		return f(corelib.Pow(x(0), x(1)))
	case il.MathExp:
		return f(corelib.Exp(x(0)))
	case il.MathLog:
		return f(corelib.Log(x(0)))
	case il.MathLog10:
		return f(corelib.Log10(x(0)))
	case il.MathSin:
		return f(corelib.Sin(x(0)))
	case il.MathCos:
		return f(corelib.Cos(x(0)))
	case il.MathTan:
		return f(corelib.Tan(x(0)))
	case il.MathAtan:
		return f(corelib.Atan(x(0)))
	case il.MathAtan2:
		return f(corelib.Atan2(x(0), x(1)))
	case il.Int32Parse, il.Int64Parse, il.DoubleParse:
		if a[0] == 0 {
			return rt.throwNew(m, "System.ArgumentNullException", corelib.ParseNullMessage)
		}
		s := rt.str(uintptr(a[0]))
		var st corelib.ParseStatus
		var err error
		switch k {
		case il.Int32Parse:
			var n int32
			n, st = corelib.ParseInt32(s)
			err = i(int64(n))
		case il.Int64Parse:
			var n int64
			n, st = corelib.ParseInt64(s)
			err = i(n)
		default:
			var d float64
			d, st = corelib.ParseDouble(s)
			err = f(d)
		}
		switch st {
		case corelib.ParseFormat:
			// The exception, then its new message (the interpreter
			// charges them in this order).
			exc, err := rt.newObject(rt.mod.Class("System.FormatException"))
			if err != nil {
				return err
			}
			msg, err := rt.newString(corelib.FormatMessage(s))
			if err != nil {
				return err
			}
			rt.gc.writeRef(exc+abi.ObjFields, uint64(msg))
			return rt.throw(m, exc)
		case corelib.ParseOverflow:
			msg := corelib.Int32OverflowMessage
			if k == il.Int64Parse {
				msg = corelib.Int64OverflowMessage
			}
			return rt.throwNew(m, "System.OverflowException", msg)
		}
		return err
	case il.EnvironmentGetTickCount64:
		return i(corelib.TickCount64())
	case il.StopwatchGetTimestamp:
		return i(corelib.Timestamp())
	}
	return fmt.Errorf("jitrt: base library method %v is not implemented", k)
}
