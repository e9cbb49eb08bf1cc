package corelib

// Table sizes of the fast paths (see tables.go).
const (
	expN    = 128 // exp: 2^(j/expN) for j < expN
	logN    = 256 // log: c = logN/i for i = round(m logN), m in [sqrt(1/2), sqrt 2]
	logMin  = 181 // round(logN sqrt(1/2)) rounded down
	logMax  = 363 // round(logN sqrt 2) rounded up
	trigN   = 64  // sin, cos: tables at j/trigN
	trigMax = 52  // j up to pi/4 trigN and a little more
	atanN   = 64  // atan: tables at j/atanN for j <= atanN

	// twoOverPiWords is the length of twoOverPiBits: a word of zeros and
	// enough of 2/pi for reduceLarge's window at the largest float64.
	twoOverPiWords = 23
)
