// record.go: the header and records of a capture.

package capture

// Dir is the direction of a recorded message.
type Dir string

// Directions of a record.
const (
	In  Dir = "i" // received from the producer
	Out Dir = "o" // sent to the producer
)

// FormatVersion is the aaep_capture value this package writes.
const FormatVersion = 1

// Header is the first line of a .aaep capture. Empty fields are left out.
type Header struct {
	Capture    int    `json:"aaep_capture"`
	StartedAt  string `json:"started_at"`
	Endpoint   string `json:"endpoint,omitempty"`
	Transport  string `json:"transport,omitempty"`
	Subscriber string `json:"subscriber,omitempty"`
	Redacted   bool   `json:"redacted"`
	Tool       string `json:"tool,omitempty"`
}

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
	// Note is true for a transport note ({"transport":…}: connects and
	// disconnects), which is not an AAEP message.
	Note bool
}

// IsText reports whether the record holds a frame that was not JSON, kept as
// a JSON string.
func (r Record) IsText() bool { return len(r.Msg) > 0 && r.Msg[0] == '"' }
