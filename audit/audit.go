package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/internal/safefile"
)

// Record is one line of the audit log. Fields that do not apply are left out.
type Record struct {
	// Time is when it happened, by the subscriber's clock (RFC 3339, UTC,
	// milliseconds).
	Time string `json:"time"`
	// What happened: "prompt" (offered to the user), "stale" (arrived
	// already settled, never offered), "decision" (a reply was sent or tried),
	// "expired" (its time ran out), "quit" (the user quit and the producer
	// was told), "quit-untold" (the user quit and the producer could not be
	// told), "agent-gone" (the agent ended its stream or went away),
	// "subscription-ended" (ended for another reason, the producer told),
	// "cancelled" (withdrawn by the agent), "resolved" (settled
	// elsewhere), "not-offered" (announced but not answerable) or
	// "left-unanswered" (the listener stopped and the agent still waits).
	What string `json:"what"`

	Prompt int    `json:"prompt,omitempty"` // the number the user saw
	Type   string `json:"type,omitempty"`   // "confirmation" or "question"
	// Agent is the label of the agent the prompt came from, as the
	// listener's lines name it, when one listener watches several agents;
	// left out with one agent.
	Agent       string `json:"agent,omitempty"`
	AgentID     string `json:"agent_id,omitempty"`
	SessionID   string `json:"session_id,omitempty"`
	EventID     string `json:"event_id,omitempty"`
	TokenSHA256 string `json:"reply_token_sha256,omitempty"`
	Tool        string `json:"tool,omitempty"`
	Action      string `json:"action,omitempty"` // the action or question, as announced
	Risk        string `json:"risk_level,omitempty"`
	// Irreversible is set when the prompt said whether it can be undone.
	Irreversible *bool  `json:"irreversible,omitempty"`
	Default      string `json:"default_decision,omitempty"`

	// For "decision": the decision or answer sent, who decided (the reply's
	// decided_by, or "user"), whether the reply went signed, whether the
	// transport took it, and why not.
	Decision  string `json:"decision,omitempty"`
	DecidedBy string `json:"decided_by,omitempty"`
	Signed    *bool  `json:"signed,omitempty"`
	Delivered *bool  `json:"delivered,omitempty"`
	Error     string `json:"error,omitempty"`
}

// TimeLayout is the layout of Record.Time.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Stamp formats t for Record.Time.
func Stamp(t time.Time) string { return t.UTC().Format(TimeLayout) }

// HashToken is the hex SHA-256 of a reply token: enough to match a line to
// the producer's own log, useless for answering the prompt.
func HashToken(token string) string {
	if token == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Log appends records to a writer, one whole line per Write call. It is safe
// for concurrent use.
type Log struct {
	mu sync.Mutex
	w  io.Writer
	c  io.Closer
}

// Open appends to the file name, creating it readable by its owner only;
// an existing file is made so. A symbolic link is refused (see safefile).
func Open(name string) (*Log, error) {
	f, err := safefile.OpenAppend(name)
	if err != nil {
		return nil, fmt.Errorf("open the audit log: %w", err)
	}
	return &Log{w: f, c: f}, nil
}

// New returns a Log writing to w.
func New(w io.Writer) *Log { return &Log{w: w} }

// Write appends r as one line. A nil Log writes nothing.
func (l *Log) Write(r Record) error {
	if l == nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(b); err != nil {
		return fmt.Errorf("write the audit log: %w", err)
	}
	return nil
}

// Close closes the file Open opened.
func (l *Log) Close() error {
	if l == nil || l.c == nil {
		return nil
	}
	if err := l.c.Close(); err != nil {
		return fmt.Errorf("close the audit log: %w", err)
	}
	return nil
}
