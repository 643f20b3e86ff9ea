// record.go: the header and records of a capture.

package capture

import (
	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/protocol"
)

// Dir is the direction of a recorded message.
type Dir string

// Directions of a record.
const (
	In  Dir = "i" // received from the producer
	Out Dir = "o" // sent to the producer
)

// Format versions: a capture of one connection is written as version 1,
// one of several connections as version 2, whose header names the
// connections and whose records each say which connection they came from.
const (
	FormatVersion1 = 1
	FormatVersion  = 2 // the newest version this package reads and writes
)

// Header is the first line of a .aaep capture. Empty fields are left out.
type Header struct {
	Capture    int    `json:"aaep_capture"`
	StartedAt  string `json:"started_at"`
	Endpoint   string `json:"endpoint,omitempty"`
	Transport  string `json:"transport,omitempty"`
	Subscriber string `json:"subscriber,omitempty"`
	Redacted   bool   `json:"redacted"`
	Tool       string `json:"tool,omitempty"`
	// Connections names the connections of a version-2 capture, in the
	// order they were given; empty in version 1, which has one.
	Connections []Connection `json:"connections,omitempty"`
}

// Connection is one connection of a version-2 capture: one subscription to
// one producer.
type Connection struct {
	// ID is what each record of the connection names as its fourth
	// element: letters, digits, '-' and '_', unique in the capture.
	ID         string `json:"id"`
	Label      string `json:"label,omitempty"` // the user's name for the agent, "" when none was given
	Endpoint   string `json:"endpoint"`
	Transport  string `json:"transport,omitempty"`
	Subscriber string `json:"subscriber,omitempty"`
}

// Name is how the connection is named to the user: its label, else its
// endpoint, on one line with nothing invisible (protocol.Name): a file may
// hold any bytes there. Reader.ConnName names a connection apart from the
// others of its capture.
func (c Connection) Name() string {
	if c.Label != "" {
		return protocol.Name(c.Label)
	}
	return protocol.Name(c.Endpoint)
}

// ValidConnID reports whether id may name a connection: 1 to 64 letters,
// digits, '-' and '_', the rule of an agent's label (which a tool may use
// as the ID).
func ValidConnID(id string) bool { return agentspec.ValidLabel(id) }

// Record is one recorded message.
type Record struct {
	Line int     // line number in the file, from 1
	T    float64 // seconds since the capture started; meaningful when HasT
	HasT bool    // false for plain JSONL events, which carry no receive time
	Dir  Dir
	// Msg is the message as it was on the wire: a JSON object, or, for a
	// frame that was not JSON, the JSON string holding its text. It is
	// valid JSON, on one line.
	Msg []byte
	// Conn is the ID of the connection the record came from, in a
	// version-2 capture; "" in version 1 and plain JSONL (one connection).
	Conn string
	// Note is true for a transport note ({"transport":…}: connects and
	// disconnects), which is not an AAEP message.
	Note bool

	// late marks a record of CheckAll's reading (Reader.late) whose
	// reader's checks are left to CheckAll (lateChecks); diags is how many
	// diagnostics the reader had made before it, and line, when not nil,
	// the whole line of a record whose message was not validated (it is
	// a part of line), which CheckAll's decoding validates; it also tells
	// whether the message is a transport note (Note is not set yet).
	late  bool
	diags int
	line  []byte
}

// IsText reports whether the record holds a frame that was not JSON, kept as
// a JSON string.
func (r Record) IsText() bool { return len(r.Msg) > 0 && r.Msg[0] == '"' }
