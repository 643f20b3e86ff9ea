// Package ssefloor is the minimal reader the listener's benchmarks measure
// against: it finds an SSE stream's data lines and reads one member's value
// from each, and decodes, validates and orders nothing.
package ssefloor

import (
	"bufio"
	"bytes"
	"io"
)

// Each calls fn with the payload of every "data: " line r gives (without
// the prefix, with its newline), until r ends or fails. The payload is
// valid only until fn returns. It returns r's error, nil at its end.
func Each(r io.Reader, fn func(data []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		l, err := br.ReadSlice('\n')
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if data, ok := bytes.CutPrefix(l, []byte("data: ")); ok {
			fn(data)
		}
	}
}

// Member is the value of the string member key (`"type":"`, its opening
// quote included) in b, up to its closing quote, or nil when b has none:
// escapes are not read.
func Member(b []byte, key string) []byte {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return nil
	}
	b = b[i+len(key):]
	if j := bytes.IndexByte(b, '"'); j >= 0 {
		return b[:j]
	}
	return b
}
