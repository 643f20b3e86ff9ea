// rotate.go: --rotate-size: a recording spread over FILE, FILE.1, FILE.2, …

package record

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/aaep-term/aaep-term/internal/safefile"
)

// ParseSize reads a size such as 500K, 10M or 1G (powers of 1024; a plain
// number is bytes, a trailing B or iB is allowed).
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size such as 500K, 10M or 1G", s)
	}
	return n * mult, nil
}

// rotatingFile is the io.Writer under a capture.Writer that moves on to the
// next file of the series before a line would make the current one larger
// than limit. The first line written (the header of a .aaep capture) is
// written again at the top of every file, so each is a capture of its own.
// A line larger than limit gets a file to itself. capture.Writer writes
// whole lines, one per Write call, so a file never ends mid-line.
type rotatingFile struct {
	base   string
	limit  int64
	header []byte // the first line, repeated in every file; nil for JSONL
	hasHdr bool
	f      *os.File
	size   int64 // of the current file
	lines  int   // records in the current file
	part   int   // 0 for base, then 1, 2, …
	// onRotate, if not nil, is told the name of each new file.
	onRotate func(name string)
}

// newRotatingFile creates base; withHeader says whether the first line is a
// header to repeat.
func newRotatingFile(base string, limit int64, withHeader bool) (*rotatingFile, error) {
	r := &rotatingFile{base: base, limit: limit, hasHdr: withHeader}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotatingFile) name() string {
	if r.part == 0 {
		return r.base
	}
	return fmt.Sprintf("%s.%d", r.base, r.part)
}

func (r *rotatingFile) open() error {
	f, err := safefile.Create(r.name())
	if err != nil {
		return fmt.Errorf("open the output: %w", err)
	}
	r.f, r.size, r.lines = f, 0, 0
	return nil
}

// Write writes one whole line.
func (r *rotatingFile) Write(p []byte) (int, error) {
	if r.hasHdr && r.header == nil {
		r.header = append([]byte(nil), p...)
		return r.write(p, false)
	}
	if r.lines > 0 && r.size+int64(len(p)) > r.limit {
		err := r.f.Close()
		r.f = nil
		if err != nil {
			return 0, fmt.Errorf("close %s: %w", r.name(), err)
		}
		r.part++
		if err := r.open(); err != nil {
			return 0, err
		}
		if r.onRotate != nil {
			r.onRotate(r.name())
		}
		if r.header != nil {
			if _, err := r.write(r.header, false); err != nil {
				return 0, err
			}
		}
	}
	return r.write(p, true)
}

func (r *rotatingFile) write(p []byte, record bool) (int, error) {
	if r.f == nil {
		return 0, fmt.Errorf("%s could not be opened", r.name())
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	if record {
		r.lines++
	}
	return n, err
}

// Close closes the current file, if one is open.
func (r *rotatingFile) Close() error {
	if r.f == nil {
		return nil
	}
	return r.f.Close()
}

// Files is how many files the recording spans.
func (r *rotatingFile) Files() int { return r.part + 1 }
