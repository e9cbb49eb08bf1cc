package interp

import (
	"math"
	"math/bits"
)

// Arithmetic and conversion helpers with the exact semantics of CoreCLR on
// x64. Integers travel as int64: an int32 stack value is kept sign-extended,
// int64 and native int use all 64 bits. Floating-point values travel as the
// bits of a float64.

func f64(n int64) float64   { return math.Float64frombits(uint64(n)) }
func fbits(f float64) int64 { return int64(math.Float64bits(f)) }

// r4 rounds a float64 to float32 precision.
func r4(f float64) float64 { return float64(float32(f)) }

// f2i32 is the unchecked float to int32 conversion of x64 (cvttsd2si):
// NaN and out-of-range values give 0x80000000.
func f2i32(f float64) int32 {
	if f != f || f <= -2147483649.0 || f >= 2147483648.0 {
		return math.MinInt32
	}
	return int32(f)
}

// f2i64 is the unchecked float to int64 conversion of x64: NaN and
// out-of-range values give 0x8000000000000000.
func f2i64(f float64) int64 {
	if f != f || f < -9223372036854775808.0 || f >= 9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(f)
}

// f2u64 is CoreCLR's x64 helper for the unchecked float to uint64
// conversion: values below 2^63 (negative ones included) convert through
// int64, larger ones are offset by 2^63; NaN and values of 2^64 and more
// give 0.
func f2u64(f float64) uint64 {
	const two63 = 9223372036854775808.0
	if f < two63 {
		return uint64(f2i64(f))
	}
	return uint64(f2i64(f-two63)) + 1<<63
}

// Conversion targets.
const (
	cvI1 = iota
	cvU1
	cvI2
	cvU2
	cvI4
	cvU4
	cvI8
	cvU8
	cvUN // native unsigned int: as cvU8, except conv.ovf.u from a float (see convert)
	cvR4
	cvR8
	cvRUn
)

// Conversion modes.
const (
	cmPlain = iota // conv.*
	cmOvf          // conv.ovf.*
	cmOvfUn        // conv.ovf.*.un
)

// convert applies a conversion to x, whose stack type is src (sI4, sI8, sI,
// sR4 or sR8). It returns the result in stack form and false when a checked
// conversion overflows.
func convert(target, mode int, src styp, x int64) (int64, bool) {
	isF := src == sR4 || src == sR8
	if isF {
		f := f64(x)
		if target == cvUN && mode == cmPlain {
			target = cvU8
		}
		if mode == cmPlain {
			switch target {
			case cvI1:
				return int64(int8(f2i32(f))), true
			case cvU1:
				return int64(uint8(f2i32(f))), true
			case cvI2:
				return int64(int16(f2i32(f))), true
			case cvU2:
				return int64(uint16(f2i32(f))), true
			case cvI4:
				return int64(f2i32(f)), true
			case cvU4:
				return int64(int32(uint32(f2i64(f)))), true
			case cvI8:
				return f2i64(f), true
			case cvU8:
				return int64(f2u64(f)), true
			case cvR4:
				return fbits(r4(f)), true
			default: // cvR8, cvRUn
				return x, true
			}
		}
		// Checked: truncate toward zero, then range check; NaN overflows.
		t := math.Trunc(f)
		if t != t {
			return 0, false
		}
		switch target {
		case cvI1:
			return int64(t), t >= -128 && t <= 127
		case cvU1:
			return int64(t), t >= 0 && t <= 255
		case cvI2:
			return int64(t), t >= -32768 && t <= 32767
		case cvU2:
			return int64(t), t >= 0 && t <= 65535
		case cvI4:
			return int64(t), t >= -2147483648 && t <= 2147483647
		case cvU4:
			if t >= 0 && t <= 4294967295 {
				return int64(int32(uint32(t))), true
			}
			return 0, false
		case cvI8:
			if t >= -9223372036854775808.0 && t < 9223372036854775808.0 {
				return int64(t), true
			}
			return 0, false
		case cvU8:
			if t >= 0 && t < 18446744073709551616.0 {
				return int64(uint64(t)), true
			}
			return 0, false
		case cvUN:
			// Mono (the reference for the golden outputs) limits
			// conv.ovf.u of a float to the int64 range; CoreCLR would
			// accept up to 2^64 as for conv.ovf.u8.
			if t >= 0 && t < 9223372036854775808.0 {
				return int64(t), true
			}
			return 0, false
		case cvR4:
			return fbits(r4(f)), true
		default:
			return x, true
		}
	}
	// Integer source.
	if target == cvUN {
		target = cvU8
	}
	i4 := src == sI4
	switch mode {
	case cmPlain:
		switch target {
		case cvI1:
			return int64(int8(x)), true
		case cvU1:
			return int64(uint8(x)), true
		case cvI2:
			return int64(int16(x)), true
		case cvU2:
			return int64(uint16(x)), true
		case cvI4, cvU4:
			return int64(int32(x)), true
		case cvI8:
			return x, true
		case cvU8:
			if i4 {
				return int64(uint32(x)), true
			}
			return x, true
		case cvR4:
			return fbits(float64(float32(x))), true
		case cvR8:
			return fbits(float64(x)), true
		default: // cvRUn
			if i4 {
				return fbits(float64(uint32(x))), true
			}
			return fbits(float64(uint64(x))), true
		}
	case cmOvf:
		switch target {
		case cvI1:
			return x, x >= math.MinInt8 && x <= math.MaxInt8
		case cvU1:
			return x, x >= 0 && x <= math.MaxUint8
		case cvI2:
			return x, x >= math.MinInt16 && x <= math.MaxInt16
		case cvU2:
			return x, x >= 0 && x <= math.MaxUint16
		case cvI4:
			return x, x >= math.MinInt32 && x <= math.MaxInt32
		case cvU4:
			return int64(int32(x)), x >= 0 && x <= math.MaxUint32
		case cvI8:
			return x, true
		case cvU8:
			return x, x >= 0
		case cvR4:
			return fbits(float64(float32(x))), true
		default:
			return fbits(float64(x)), true
		}
	default: // cmOvfUn: the source is read as unsigned
		u := uint64(x)
		if i4 {
			u = uint64(uint32(x))
		}
		switch target {
		case cvI1:
			return int64(u), u <= math.MaxInt8
		case cvU1:
			return int64(u), u <= math.MaxUint8
		case cvI2:
			return int64(u), u <= math.MaxInt16
		case cvU2:
			return int64(u), u <= math.MaxUint16
		case cvI4:
			return int64(u), u <= math.MaxInt32
		case cvU4:
			return int64(int32(uint32(u))), u <= math.MaxUint32
		case cvI8:
			return int64(u), u <= math.MaxInt64
		case cvU8:
			return int64(u), true
		case cvR4:
			return fbits(float64(float32(u))), true
		default:
			return fbits(float64(u)), true
		}
	}
}

// Checked arithmetic. Each returns the result in stack form and false on
// overflow.

func addOvf32(a, b int64) (int64, bool) {
	r := int64(int32(a)) + int64(int32(b))
	return r, r >= math.MinInt32 && r <= math.MaxInt32
}

func addOvfUn32(a, b int64) (int64, bool) {
	r := uint64(uint32(a)) + uint64(uint32(b))
	return int64(int32(uint32(r))), r <= math.MaxUint32
}

func subOvf32(a, b int64) (int64, bool) {
	r := int64(int32(a)) - int64(int32(b))
	return r, r >= math.MinInt32 && r <= math.MaxInt32
}

func subOvfUn32(a, b int64) (int64, bool) {
	return int64(int32(uint32(a) - uint32(b))), uint32(a) >= uint32(b)
}

func mulOvf32(a, b int64) (int64, bool) {
	r := int64(int32(a)) * int64(int32(b))
	return r, r >= math.MinInt32 && r <= math.MaxInt32
}

func mulOvfUn32(a, b int64) (int64, bool) {
	r := uint64(uint32(a)) * uint64(uint32(b))
	return int64(int32(uint32(r))), r <= math.MaxUint32
}

func addOvf64(a, b int64) (int64, bool) {
	r := a + b
	return r, (a >= 0) != (b >= 0) || (r >= 0) == (a >= 0)
}

func addOvfUn64(a, b int64) (int64, bool) {
	r, c := bits.Add64(uint64(a), uint64(b), 0)
	return int64(r), c == 0
}

func subOvf64(a, b int64) (int64, bool) {
	r := a - b
	return r, (a >= 0) == (b >= 0) || (r >= 0) == (a >= 0)
}

func subOvfUn64(a, b int64) (int64, bool) {
	r, c := bits.Sub64(uint64(a), uint64(b), 0)
	return int64(r), c == 0
}

func mulOvf64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	if (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return r, false
	}
	return r, r/b == a
}

func mulOvfUn64(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return int64(lo), hi == 0
}

// Division results: ok, or the exception to throw.
const (
	arOK = iota
	arDivZero
	arOverflow
)

func div32(a, b int64) (int64, int) {
	x, y := int32(a), int32(b)
	if y == 0 {
		return 0, arDivZero
	}
	if y == -1 && x == math.MinInt32 {
		return 0, arOverflow
	}
	return int64(x / y), arOK
}

func rem32(a, b int64) (int64, int) {
	x, y := int32(a), int32(b)
	if y == 0 {
		return 0, arDivZero
	}
	if y == -1 && x == math.MinInt32 {
		return 0, arOverflow
	}
	return int64(x % y), arOK
}

func divUn32(a, b int64) (int64, int) {
	x, y := uint32(a), uint32(b)
	if y == 0 {
		return 0, arDivZero
	}
	return int64(int32(x / y)), arOK
}

func remUn32(a, b int64) (int64, int) {
	x, y := uint32(a), uint32(b)
	if y == 0 {
		return 0, arDivZero
	}
	return int64(int32(x % y)), arOK
}

func div64(a, b int64) (int64, int) {
	if b == 0 {
		return 0, arDivZero
	}
	if b == -1 && a == math.MinInt64 {
		return 0, arOverflow
	}
	return a / b, arOK
}

func rem64(a, b int64) (int64, int) {
	if b == 0 {
		return 0, arDivZero
	}
	if b == -1 && a == math.MinInt64 {
		return 0, arOverflow
	}
	return a % b, arOK
}

func divUn64(a, b int64) (int64, int) {
	if b == 0 {
		return 0, arDivZero
	}
	return int64(uint64(a) / uint64(b)), arOK
}

func remUn64(a, b int64) (int64, int) {
	if b == 0 {
		return 0, arDivZero
	}
	return int64(uint64(a) % uint64(b)), arOK
}
