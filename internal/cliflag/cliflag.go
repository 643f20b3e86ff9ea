// Package cliflag holds what the aaep-term commands share about their
// command lines: the values, each checked as it is parsed; the dispatch of
// subcommands with their usage errors and exit codes; the --json document;
// and serving a producer on the bindings asked for.
package cliflag

import (
	"fmt"
	"net/http"
	"strings"
)

// Header is a repeatable NAME:VALUE flag collected into HTTP headers. A
// value without a colon or with an empty name is refused when parsed.
type Header http.Header

// String implements flag.Value.
func (h Header) String() string {
	var parts []string
	for name, values := range h {
		for _, v := range values {
			parts = append(parts, name+": "+v)
		}
	}
	return strings.Join(parts, ", ")
}

// Set implements flag.Value.
func (h Header) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return fmt.Errorf("want NAME:VALUE, not %q", s)
	}
	http.Header(h).Add(name, strings.TrimSpace(value))
	return nil
}
