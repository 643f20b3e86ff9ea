package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 12: a frame too large to read (number 6) was dropped, state.changed 7
// waited for it, session.errored 8 went ahead, and the listener then blamed
// the producer for a state change after the session's end. The error comes
// last now, after the gap is declared and event 7 is told.
func TestCriticalEventDoesNotOvertakeHeldOnes(t *testing.T) {
	t.Parallel()
	event := func(seq int, typ, summary string, extra map[string]any) string {
		ev := map[string]any{"@context": "https://aaep-protocol.org/context/v1", "type": "aaep:agent." + typ,
			"event_id": fmt.Sprintf("evt_order%04d", seq), "session_id": "sess_order",
			"timestamp": fmt.Sprintf("2026-06-30T14:22:%02dZ", seq), "producer": map[string]any{"agent_id": "agent", "agent_name": "Helper"},
			"sequence_number": seq, "summary_normal": summary}
		for k, v := range extra {
			ev[k] = v
		}
		b, _ := json.Marshal(ev)
		return string(b) + "\n"
	}
	var in strings.Builder
	in.WriteString(event(0, "session.started", "Starting the task.", nil))
	for i := 1; i <= 5; i++ {
		in.WriteString(event(i, "progress.updated", fmt.Sprintf("Step %d of 9.", i), nil))
	}
	in.WriteString(event(6, "progress.updated", strings.Repeat("x", 2<<20), nil)) // over the frame limit: dropped
	in.WriteString(event(7, "state.changed", "Giving up on the upload.", map[string]any{"from_state": "calling_tool", "to_state": "idle"}))
	in.WriteString(event(8, "session.errored", "The upload failed.", map[string]any{"urgency": "critical",
		"error_code": "upload_failed", "error_message": "The server refused the file.", "recoverable": false}))
	path := filepath.Join(t.TempDir(), "order.jsonl")
	if err := os.WriteFile(path, []byte(in.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startListener(t, "--plain", "file://"+path)
	r.wait(t)
	out := r.stdout()
	state, errored := strings.Index(out, "Giving up on the upload."), strings.Index(out, "The upload failed.")
	if state < 0 || errored < 0 || state > errored {
		t.Fatalf("the state change is not told before the error:\n%s", out)
	}
	if strings.Contains(out, "already ended") {
		t.Fatalf("the producer is blamed for our own order:\n%s", out)
	}
	if diag := r.stderr(); !strings.Contains(diag, "event 6 never arrived") || strings.Contains(diag, "already ended") {
		t.Fatalf("the gap is not declared, or the producer is blamed:\n%s", diag)
	}
}
