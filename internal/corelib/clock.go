package corelib

import (
	"time"

	"golang.org/x/sys/unix"
)

// The clocks of .NET on Linux.

// TickCount64 is Environment.TickCount64: milliseconds of
// CLOCK_MONOTONIC_COARSE (since boot, not counting suspend).
func TickCount64() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC_COARSE, &ts) != nil {
		return time.Now().UnixMilli()
	}
	return ts.Sec*1000 + ts.Nsec/1_000_000
}

// Timestamp is Stopwatch.GetTimestamp: nanoseconds of CLOCK_MONOTONIC
// (Stopwatch.Frequency is 10^9).
func Timestamp() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return time.Now().UnixNano()
	}
	return ts.Sec*1_000_000_000 + ts.Nsec
}
