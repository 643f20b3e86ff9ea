package tui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/safefile"
)

// writeJSONL writes the entries numbered seqs to name, one JSON object a
// line: the event as received when there is one, else a record of the line.
func writeJSONL(name string, m *Model, seqs []uint64) (int, error) {
	f, err := safefile.Create(name)
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

// copySelected puts the selected event's JSON on the clipboard through OSC
// 52 when the terminal allows it, else writes it to a file and says where.
func (m *Model) copySelected() string {
	e := m.ring.get(m.selected)
	if e == nil || e.Event == nil || len(e.Event.Raw) == 0 {
		return "Nothing to copy: the selected line is not an event."
	}
	if m.opts.Clipboard != nil {
		m.opts.Clipboard(string(e.Event.Raw))
		return fmt.Sprintf("Copied the event JSON (%d bytes) to the clipboard through %s.", len(e.Event.Raw), m.opts.ClipboardVia)
	}
	name := filepath.Join(m.opts.SaveDir, "aaep-event-"+safeName(e.Event.EventID)+".json")
	if err := writeFile(name, append(append([]byte{}, e.Event.Raw...), '\n')); err != nil {
		return fmt.Sprintf("Could not save the event: %v.", err)
	}
	if m.opts.ClipboardVia != "" {
		// The reason first: a long path may not fit on the line.
		return "No clipboard (" + m.opts.ClipboardVia + "): saved the event JSON to " + name + "."
	}
	return "Saved the event JSON to " + name + "."
}

// saveVisible writes the shown entries as JSON Lines.
func (m *Model) saveVisible() string {
	name := filepath.Join(m.opts.SaveDir, "aaep-list-"+m.opts.Now().Format("20060102-150405")+".jsonl")
	n, err := writeJSONL(name, m, m.visible[:m.shown()])
	if err != nil {
		return fmt.Sprintf("Could not save the list: %v.", err)
	}
	return fmt.Sprintf("Saved %d lines to %s.", n, name)
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// writeFile writes data to a new or truncated file readable by its owner
// only, never through a symbolic link.
func writeFile(name string, data []byte) error {
	f, err := safefile.Create(name)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	return f.Close()
}
