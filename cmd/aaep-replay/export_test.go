package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/term"
)

// stats writes the golden figures, in words and as JSON, for captures that
// exercise tools, confirmations, output and violations.
func TestStatsGolden(t *testing.T) {
	for _, name := range []string{"clean.aaep", "clean.jsonl", "tool-pairing.aaep", "output.aaep", "after-reject.aaep"} {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runReplay(t, "stats", corpus+name)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "testdata/"+name+".stats.txt", out)
			if strings.ContainsRune(out, 0x1b) {
				t.Error("escape character in plain output")
			}
			code, js, errOut := runReplay(t, "stats", "--json", corpus+name)
			if code != 0 {
				t.Fatalf("--json: exit %d: %s", code, errOut)
			}
			golden(t, "testdata/"+name+".stats.json", js)
		})
	}
}

// The figures of clean.aaep, which the corpus generator wrote with known
// content: two confirmations (one accepted, one rejected), a tool call
// answered by each, one output of two chunks.
func TestStatsFigures(t *testing.T) {
	code, js, errOut := runReplay(t, "stats", "--json", corpus+"clean.aaep")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var st capture.Stats
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		t.Fatal(err)
	}
	tot := st.Total
	if len(st.Sessions) == 0 || len(st.Agents) != 1 || st.Agents[0].ID != "bank-agent" || st.Agents[0].Name != "Bank Helper" {
		t.Fatalf("sessions %d agents %+v", len(st.Sessions), st.Agents)
	}
	if tot.Confirmations.Asked < 2 || tot.Confirmations.Accepted < 1 || tot.Confirmations.Rejected < 1 {
		t.Errorf("confirmations %+v", tot.Confirmations)
	}
	if tot.Tools.Calls < 2 || tot.Tools.Success != tot.Tools.Calls || tot.Tools.SuccessPct != 100 {
		t.Errorf("tools %+v", tot.Tools)
	}
	if tot.Output.Bytes != len("Transferred $500. New balance: $12,000.") || tot.Output.Outputs != 1 || tot.Output.Complete != 1 {
		t.Errorf("output %+v", tot.Output)
	}
	if tot.Violations != 0 {
		t.Errorf("%d violations in a clean capture", tot.Violations)
	}
	s := st.Sessions[0]
	if s.ID != "sess_clean01" || s.DurationS != 0.65 || s.Ended != "aaep:agent.session.completed" {
		t.Errorf("first session %+v", s)
	}
	if got := s.Confirmations.DecideMS; got.N != 1 || got.P50 < 49 || got.P50 > 51 {
		t.Errorf("time to decide %+v, want 50 ms (0.30 s to 0.35 s)", got)
	}
	code, js, _ = runReplay(t, "stats", "--json", corpus+"tool-pairing.aaep")
	if code != 0 || json.Unmarshal([]byte(js), &st) != nil || st.Total.Violations == 0 {
		t.Errorf("tool-pairing: exit %d, violations %d", code, st.Total.Violations)
	}
	if code, _, _ := runReplay(t, "stats", "missing.aaep"); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
}

// export --format jsonl writes the received messages, which read back
// identically; text is the transcript; html the report.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "clean.jsonl")
	code, _, errOut := runReplay(t, "export", "--format", "jsonl", "--output", out, corpus+"clean.aaep")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := received(t, corpus+"clean.aaep")
	got := received(t, out)
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d messages exported, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d differs:\n%s\n%s", i, got[i], want[i])
		}
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "aaep_capture") || strings.Contains(string(raw), "confirmation.reply") {
		t.Error("the JSONL export holds the header or a sent message")
	}
	// Exporting the export again changes nothing.
	code, again, _ := runReplay(t, "export", "--format", "jsonl", out)
	if code != 0 || again != string(raw) {
		t.Errorf("second export differs (exit %d)", code)
	}

	code, text, errOut := runReplay(t, "export", "--format", "text", corpus+"after-reject.aaep")
	if code != 0 {
		t.Fatalf("text: exit %d: %s", code, errOut)
	}
	golden(t, "testdata/after-reject.transcript.txt", text)

	code, html, _ := runReplay(t, "export", "--format", "html", corpus+"after-reject.aaep")
	if code != 0 || !strings.HasPrefix(html, "<!DOCTYPE html>") || !strings.Contains(html, "VIOLATION") {
		t.Errorf("html: exit %d, %.80s", code, html)
	}
	for _, args := range [][]string{
		{"export", corpus + "clean.aaep"},
		{"export", "--format", "xml", corpus + "clean.aaep"},
		{"export", "--format", "text"},
	} {
		if code, _, errOut := runReplay(t, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// received returns the received messages of a capture, as text.
func received(t *testing.T, path string) []string {
	t.Helper()
	r, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if !rec.Note && rec.Dir == capture.In && !rec.IsText() {
			out = append(out, string(rec.Msg))
		}
	}
}

// play steered by typed commands: start paused, step, jump to critical
// events both ways, seek, mark, change speed, refuse a bad command, then
// play to the end. The whole transcript is a golden file: seeks forward say
// nothing of what they skip, and a jump back replays from a fresh engine.
func TestPlaySteered(t *testing.T) {
	tio, in, out, errOut := term.Test()
	in.WriteString(strings.Join([]string{
		"step", "where", "next critical", "previous critical", "next critical", "next critical",
		"seek 0:00.5", "mark", "seek +0.2s", "previous mark", "speed 2", "speed", "frobnicate",
		"next", "seek -1m", "pm", "nm", "step", "help", "faster", "slower", "speed 0.001", "toggle", "toggle", "pause", "speed 0", "faster", "resume",
	}, "\n") + "\n")
	code := run(context.Background(), []string{"play", "--paused", "--speed", "0", corpus + "clean.aaep"}, tio)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "testdata/clean.steered.txt", out.String())
	if strings.ContainsRune(out.String(), 0x1b) {
		t.Error("escape sequence in plain output")
	}
}

// export --format jsonl writes the events of a capture only: its handshake
// and replies stay in the .aaep file, which readers of plain event JSONL
// would refuse.
func TestExportJSONLEventsOnly(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "handshake.aaep")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	w, err := capture.NewWriter(f, capture.Header{Endpoint: "http://127.0.0.1:1"}, time.Now(), capture.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	event := `{"type":"aaep:agent.session.started","event_id":"evt_1","session_id":"sess_1","timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"},"summary_normal":"Hi."}`
	for _, m := range []struct {
		d   capture.Dir
		msg string
	}{
		{capture.Out, `{"type":"subscription.request","aaep_version":"1.0.0"}`},
		{capture.In, `{"type":"subscription.accepted","subscription_id":"sub_1"}`},
		{capture.In, event},
		{capture.In, `{"type":"confirmation.reply","reply_token":"rpl_1","decision":"reject"}`},
		{capture.In, `{"type":"subscription.close","subscription_id":"sub_1"}`},
	} {
		if err := w.Write(m.d, []byte(m.msg), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runReplay(t, "export", "--format", "jsonl", in)
	if code != 0 || out != event+"\n" {
		t.Errorf("exit %d, exported %q, want the event alone: %s", code, out, errOut)
	}
}
