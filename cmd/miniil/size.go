package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"miniil"
)

// byteSize is a size flag: a number of bytes, optionally with a unit
// (case-insensitive): B, KiB, MiB, GiB, TiB or K, M, G, T (powers of 1024)
// or KB, MB, GB, TB (powers of 1000), with or without a space before it.
type byteSize int64

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	// Longest suffixes first, so "MiB" is not read as "B".
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
	{"b", 1},
}

// parseByteSize parses a size such as 4096, 64MiB, 64MB or 1.5GiB.
func parseByteSize(s string) (int64, error) {
	num, mult := strings.TrimSpace(strings.ToLower(s)), int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	if n, err := strconv.ParseInt(num, 10, 64); err == nil {
		if n < 0 || n > math.MaxInt64/mult {
			return 0, fmt.Errorf("size %q is out of range", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("invalid size %q (want bytes, or a number with a unit: KiB, MiB, GiB, KB, MB, GB)", s)
	}
	if f*float64(mult) >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is out of range", s)
	}
	return int64(f * float64(mult)), nil
}

func (b *byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "strconv."))
	}
	*b = byteSize(n)
	return nil
}

func (b *byteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.name)
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// maxSourceFlag adds the -max-source flag to a command and returns the
// load configuration it sets.
func maxSourceFlag(fs *command) *byteSize {
	b := byteSize(miniil.DefaultMaxSourceBytes)
	fs.Var(&b, "max-source", "refuse program sources larger than `size`: bytes, or a number with a unit (KiB, MiB, GiB; KB, MB, GB); 0 means no limit")
	return &b
}

// loadConfig is the load configuration the flags ask for.
func loadConfig(maxSource *byteSize) miniil.LoadConfig {
	if *maxSource == 0 {
		return miniil.LoadConfig{MaxSourceBytes: -1}
	}
	return miniil.LoadConfig{MaxSourceBytes: int64(*maxSource)}
}
