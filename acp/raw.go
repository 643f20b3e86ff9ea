package acp

// This file records the raw ACP lines of a bridge (Options.RawFile): each
// JSON-RPC message to and from the agent, as it went, for aaep-capture
// --acp-raw (docs/capture.md).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/transport"
)

// Dialer returns a transport.Options.ACP hook that bridges each acp:
// endpoint it opens with a bridge of its own, made with opts: for a
// program that only records or follows acp: agents (aaep-capture) and
// needs no handle on their bridges.
func Dialer(opts Options) func(ctx context.Context, argv []string, lo transport.LinkOptions) (transport.Conn, error) {
	return func(ctx context.Context, argv []string, lo transport.LinkOptions) (transport.Conn, error) {
		return New(opts).Dial(ctx, argv, lo)
	}
}

// rawLog appends the raw lines of one agent to a file, one JSON object a
// line: {"t": time, "agent": name, "dir": "i" (from the agent) or "o" (to
// it), "msg": the message as it went, or "text" for a line that is not
// JSON}. Several bridges may append to one file: each record is one write.
type rawLog struct {
	name string
	mu   sync.Mutex
	f    *os.File // nil once closed
}

// openRaw opens path for appending (made 0600: the lines hold the
// agent's whole conversation, unredacted).
func openRaw(path, name string) (*rawLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("acp: the raw ACP file: %w", err)
	}
	return &rawLog{name: name, f: f}, nil
}

// record appends one line that went in dir ("i" or "o"). A nil log
// records nothing.
func (r *rawLog) record(dir string, line []byte) {
	if r == nil {
		return
	}
	rec := struct {
		T     string          `json:"t"`
		Agent string          `json:"agent"`
		Dir   string          `json:"dir"`
		Msg   json.RawMessage `json:"msg,omitempty"`
		Text  string          `json:"text,omitempty"`
	}{T: time.Now().UTC().Format(time.RFC3339Nano), Agent: r.name, Dir: dir}
	if json.Valid(line) {
		rec.Msg = line
	} else {
		rec.Text = string(line) // json.Marshal makes it valid UTF-8
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f != nil {
		_, _ = r.f.Write(append(b, '\n'))
	}
}

// close closes the file; later lines are not recorded.
func (r *rawLog) close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
}
