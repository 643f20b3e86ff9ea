// binding.go: what an endpoint names — the one classification Dial,
// CheckEndpoint and the commands share — and the HTTP layout a user picks.

package transport

import (
	"fmt"
	"strings"
)

// Binding is the transport binding an endpoint names, in the words
// manifests ("transports_supported") and capture headers use.
type Binding string

// Bindings Dial knows.
const (
	BindingSSE       Binding = "sse"       // http://, https://
	BindingWebSocket Binding = "websocket" // ws://, wss://
	BindingGRPC      Binding = "grpc"      // grpc://, grpcs://
	BindingUnix      Binding = "unix"      // unix:PATH, unix:ID
	BindingStdio     Binding = "stdio"     // exec:COMMAND, stdio:COMMAND
	// BindingACP is an agent speaking the Agent Client Protocol, started
	// as acp:COMMAND and bridged to AAEP by Options.ACP.
	BindingACP Binding = "acp"
	// BindingFile is a file of events: file:PATH, a path, or - for
	// standard input. Nothing is at the other end to answer.
	BindingFile Binding = "file"
)

// BindingOf says which binding Dial uses for endpoint, from its form alone:
// it reads and resolves nothing. Schemes are case-insensitive, as in URLs.
// An endpoint of no known scheme (a path, a drive letter, a name with a
// colon) is BindingFile: Dial reads it as a file or says why it cannot.
func BindingOf(endpoint string) Binding {
	scheme, _, ok := strings.Cut(endpoint, ":")
	if !ok || len(scheme) <= 1 { // a path, or a drive letter
		return BindingFile
	}
	switch strings.ToLower(scheme) {
	case "http", "https":
		return BindingSSE
	case "ws", "wss":
		return BindingWebSocket
	case "grpc", "grpcs":
		return BindingGRPC
	case "unix":
		return BindingUnix
	case "exec", "stdio":
		return BindingStdio
	case "acp":
		return BindingACP
	}
	return BindingFile
}

// Answers reports whether a producer is at the other end of the binding, to
// which replies, renegotiations and manifest requests can go. Only a file
// has none.
func (b Binding) Answers() bool { return b != BindingFile }

// String returns the binding's name as manifests write it.
func (b Binding) String() string { return string(b) }

// ParseLayout reads a layout as a user names it: "auto" (or empty),
// "spec" or "legacy".
func ParseLayout(s string) (Layout, error) {
	switch s {
	case "auto", "":
		return LayoutAuto, nil
	case "spec":
		return LayoutSpec, nil
	case "legacy":
		return LayoutLegacy, nil
	}
	return LayoutAuto, fmt.Errorf("layout must be auto, spec or legacy, not %q", s)
}

// Set implements flag.Value with ParseLayout, so a command can take
// --layout straight into a Layout.
func (l *Layout) Set(s string) error {
	v, err := ParseLayout(s)
	if err != nil {
		return err
	}
	*l = v
	return nil
}
