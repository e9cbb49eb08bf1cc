package miniil

import (
	"fmt"
	"io"
	"os"
	"unsafe"

	"miniil/il"
	"miniil/internal/prefault"
)

// DefaultMaxSourceBytes is the largest program source loading accepts
// unless LoadConfig.MaxSourceBytes says otherwise: 64 MiB, well above
// any hand-written or generated program, and small enough that a host
// survives being handed an endless or enormous input.
const DefaultMaxSourceBytes = 64 << 20

// LoadConfig controls loading. The zero value applies the defaults; Load
// and LoadFile use it.
type LoadConfig struct {
	// MaxSourceBytes bounds the size of a program's source in bytes. A
	// larger source is refused with a *SourceTooLargeError before it is
	// parsed, and no more than MaxSourceBytes+1 bytes of it are read.
	// Zero means DefaultMaxSourceBytes; a negative value means no limit.
	MaxSourceBytes int64
}

// limit returns the effective source size limit (negative: none).
func (c LoadConfig) limit() int64 {
	if c.MaxSourceBytes == 0 {
		return DefaultMaxSourceBytes
	}
	return c.MaxSourceBytes
}

// SourceTooLargeError reports a program source over the size limit.
type SourceTooLargeError struct {
	Name  string // file name, as given to the loader
	Size  int64  // the source's size, or -1 when reading stopped at the limit
	Limit int64  // the limit in force (LoadConfig.MaxSourceBytes)
}

func (e *SourceTooLargeError) Error() string {
	size := "more than " + formatBytes(e.Limit)
	if e.Size >= 0 {
		size = formatBytes(e.Size)
	}
	return fmt.Sprintf("%s: the program source is %s, over the limit of %s (raise LoadConfig.MaxSourceBytes, or miniil's -max-source flag)",
		e.Name, size, formatBytes(e.Limit))
}

// formatBytes writes a byte count, with its binary unit when it is a
// whole number of KiB, MiB or GiB.
func formatBytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s (%d bytes)", n/u.size, u.name, n)
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// Load parses and verifies a program. name is used in error positions.
// A source over DefaultMaxSourceBytes is refused (see LoadConfig).
func Load(name string, src []byte) (*Program, error) {
	return LoadConfig{}.Load(name, src)
}

// LoadFile reads, parses and verifies the program in a file. A file
// over DefaultMaxSourceBytes is refused (see LoadConfig).
func LoadFile(path string) (*Program, error) {
	return LoadConfig{}.LoadFile(path)
}

// Load parses and verifies a program within c's limits. name is used in
// error positions.
func (c LoadConfig) Load(name string, src []byte) (p *Program, err error) {
	if limit := c.limit(); limit >= 0 && int64(len(src)) > limit {
		return nil, &SourceTooLargeError{Name: name, Size: int64(len(src)), Limit: limit}
	}
	return c.loadString(name, string(src)) // src stays the caller's
}

// loadOwned loads a source read into a buffer nothing else holds or
// will change: the module's names are views of the buffer itself, with
// no copy of the source.
func (c LoadConfig) loadOwned(name string, src []byte) (*Program, error) {
	return c.loadString(name, unsafe.String(unsafe.SliceData(src), len(src)))
}

func (c LoadConfig) loadString(name string, src string) (p *Program, err error) {
	defer recoverInternal("load", &err)
	m, err := il.LoadString(name, src)
	if err != nil {
		return nil, err
	}
	return &Program{mod: m}, nil
}

// LoadFile reads, parses and verifies the program in a file, refusing a
// file over c's size limit without reading more than the limit (plus
// one byte, for files whose size is not known in advance, such as pipes
// and devices).
func (c LoadConfig) LoadFile(path string) (*Program, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	src, err := c.read(path, f, size)
	if err != nil {
		return nil, err
	}
	return c.loadOwned(path, src) // read reached the end within the limit
}

// LoadReader reads a program from r (up to c's size limit, plus one byte
// to detect a larger one), parses and verifies it. name is used in error
// positions.
func (c LoadConfig) LoadReader(name string, r io.Reader) (*Program, error) {
	src, err := c.read(name, r, -1)
	if err != nil {
		return nil, err
	}
	return c.loadOwned(name, src)
}

// read reads all of r, or fails once it has read more than the limit.
// size is r's size when known (-1 otherwise). The buffer never grows
// past limit+1 bytes.
func (c LoadConfig) read(name string, r io.Reader, size int64) ([]byte, error) {
	limit := c.limit()
	if limit >= 0 && size > limit {
		return nil, &SourceTooLargeError{Name: name, Size: size, Limit: limit}
	}
	capacity := int64(4096)
	if size >= 0 {
		capacity = size + 1 // one more byte: the end is seen without growing
	}
	if limit >= 0 {
		capacity = min(capacity, limit+1)
	}
	// Filled by the kernel's copy, where a fresh page costs as much as
	// anywhere: a large source gets huge pages, made resident at once.
	buf := prefault.HugeBytes(int(capacity))
	for {
		if len(buf) == cap(buf) {
			next := 2 * int64(cap(buf))
			if limit >= 0 {
				next = min(next, limit+1)
			}
			grown := prefault.HugeBytes(int(next))[:len(buf)]
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if limit >= 0 && int64(len(buf)) > limit {
			return nil, &SourceTooLargeError{Name: name, Size: -1, Limit: limit}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
