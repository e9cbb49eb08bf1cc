package interp

import (
	"miniil/il"
	"miniil/internal/corelib"
)

// libBuiltin runs the static methods of System.Math, the Parse methods
// and the clocks, computed by corelib as on the JIT.
func (s *state) libBuiltin(dm *dmethod, args []value) (value, bstatus) {
	k := dm.bi
	f := func(r float64) (value, bstatus) { return value{n: fbits(r)}, stOK }
	switch k {
	case il.MathSqrt:
		return f(corelib.Sqrt(f64(args[0].n)))
	case il.MathAbsDouble:
		return f(corelib.Abs(f64(args[0].n)))
	case il.MathAbsInt32:
		v := int32(args[0].n)
		if v == -1<<31 {
			return s.throwing(s.newExcMsg("System.OverflowException", corelib.NegateMinValueMessage))
		}
		return value{n: int64(max(v, -v))}, stOK
	case il.MathAbsInt64:
		v := args[0].n
		if v == -1<<63 {
			return s.throwing(s.newExcMsg("System.OverflowException", corelib.NegateMinValueMessage))
		}
		return value{n: max(v, -v)}, stOK
	case il.MathMinDouble:
		return f(corelib.Min(f64(args[0].n), f64(args[1].n)))
	case il.MathMinInt32:
		return value{n: int64(min(int32(args[0].n), int32(args[1].n)))}, stOK
	case il.MathMinInt64:
		return value{n: min(args[0].n, args[1].n)}, stOK
	case il.MathMaxDouble:
		return f(corelib.Max(f64(args[0].n), f64(args[1].n)))
	case il.MathMaxInt32:
		return value{n: int64(max(int32(args[0].n), int32(args[1].n)))}, stOK
	case il.MathMaxInt64:
		return value{n: max(args[0].n, args[1].n)}, stOK
	case il.MathFloor:
		return f(corelib.Floor(f64(args[0].n)))
	case il.MathCeiling:
		return f(corelib.Ceiling(f64(args[0].n)))
	case il.MathRound:
		return f(corelib.Round(f64(args[0].n)))
	case il.MathTruncate:
		return f(corelib.Truncate(f64(args[0].n)))
	case il.MathPow:
		return f(corelib.Pow(f64(args[0].n), f64(args[1].n)))
	case il.MathExp:
		return f(corelib.Exp(f64(args[0].n)))
	case il.MathLog:
		return f(corelib.Log(f64(args[0].n)))
	case il.MathLog10:
		return f(corelib.Log10(f64(args[0].n)))
	case il.MathSin:
		return f(corelib.Sin(f64(args[0].n)))
	case il.MathCos:
		return f(corelib.Cos(f64(args[0].n)))
	case il.MathTan:
		return f(corelib.Tan(f64(args[0].n)))
	case il.MathAtan:
		return f(corelib.Atan(f64(args[0].n)))
	case il.MathAtan2:
		return f(corelib.Atan2(f64(args[0].n), f64(args[1].n)))
	case il.Int32Parse, il.Int64Parse, il.DoubleParse:
		str, _ := args[0].r.(*managedString)
		if str == nil {
			return s.throwing(s.newExcMsg("System.ArgumentNullException", corelib.ParseNullMessage))
		}
		var v value
		var st corelib.ParseStatus
		switch k {
		case il.Int32Parse:
			var n int32
			n, st = corelib.ParseInt32(str.u)
			v.n = int64(n)
		case il.Int64Parse:
			v.n, st = corelib.ParseInt64(str.u)
		default:
			var d float64
			d, st = corelib.ParseDouble(str.u)
			v.n = fbits(d)
		}
		switch st {
		case corelib.ParseFormat:
			// The exception, then its new message, as the JIT allocates
			// them.
			o, ok := s.allocExc("System.FormatException")
			if !ok {
				return s.throwing(s.outOfMemory())
			}
			return s.throwing(s.withUnheldMessage(o, &managedString{u: corelib.FormatMessage(str.u)}))
		case corelib.ParseOverflow:
			msg := corelib.Int32OverflowMessage
			if k == il.Int64Parse {
				msg = corelib.Int64OverflowMessage
			}
			return s.throwing(s.newExcMsg("System.OverflowException", msg))
		}
		return v, stOK
	case il.EnvironmentGetTickCount64:
		return value{n: corelib.TickCount64()}, stOK
	case il.StopwatchGetTimestamp:
		return value{n: corelib.Timestamp()}, stOK
	}
	return value{}, s.fail(dm)
}
