package tui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// writeJSONL writes the entries numbered seqs to name, one JSON object a
// line: the event as received when there is one, else a record of the line.
func writeJSONL(name string, m *Model, seqs []uint64) (int, error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("create %s: %w", name, err)
	}
	w := bufio.NewWriter(f)
	n := 0
	for _, seq := range seqs {
		e := m.ring.get(seq)
		if e == nil {
			continue
		}
		if e.Event != nil && len(e.Event.Raw) > 0 && json.Valid(e.Event.Raw) {
			w.Write(e.Event.Raw)
		} else {
			b, _ := json.Marshal(struct {
				At      time.Time `json:"at"`
				Kind    string    `json:"kind"`
				Code    string    `json:"code,omitempty"`
				Session string    `json:"session_id,omitempty"`
				Agent   string    `json:"agent,omitempty"`
				Text    string    `json:"text"`
			}{e.At, e.Kind, e.Code, e.SessionID, e.Agent, e.Text})
			w.Write(b)
		}
		w.WriteByte('\n')
		n++
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return n, fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return n, fmt.Errorf("close %s: %w", name, err)
	}
	return n, nil
}
