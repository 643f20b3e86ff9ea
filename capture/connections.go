// connections.go: a whole capture in memory, and one connection of several.

package capture

import (
	"errors"
	"io"
	"strings"
)

// ReadAll reads every record of src and the capture's header (nil when it
// has none).
func ReadAll(src io.Reader) ([]Record, *Header, error) {
	r, err := NewReader(src)
	if err != nil {
		return nil, nil, err
	}
	recs, err := r.Records()
	if err != nil {
		return nil, nil, err
	}
	return recs, r.Header(), nil
}

// Records reads every record left, up to the end or the first error
// (with the records read before it).
func (r *Reader) Records() ([]Record, error) {
	var recs []Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
}

// FindConnection is the connection of cs that name names (its label or
// ID), or the first when name is empty; false when none is.
func FindConnection(cs []Connection, name string) (Connection, bool) {
	if name == "" && len(cs) > 0 {
		return cs[0], true
	}
	for _, c := range cs {
		if c.Label == name || c.ID == name {
			return c, true
		}
	}
	return Connection{}, false
}

// ConnectionNames lists the agents of a capture, by name (Connection.Name).
func ConnectionNames(cs []Connection) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name()
	}
	return strings.Join(names, ", ")
}

// RecordsOf keeps the records of the connection id, in place.
func RecordsOf(recs []Record, id string) []Record {
	kept := recs[:0]
	for _, r := range recs {
		if r.Conn == id {
			kept = append(kept, r)
		}
	}
	return kept
}
