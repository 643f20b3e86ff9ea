package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/capture"
)

// stats writes the golden figures, in words and as JSON, for captures that
// exercise tools, confirmations, output and violations.
func TestStatsGolden(t *testing.T) {
	for _, name := range []string{"clean.aaep", "clean.jsonl", "tool-pairing.aaep", "output.aaep", "after-reject.aaep"} {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := replay(t, "stats", corpus+name)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "testdata/"+name+".stats.txt", out)
			if strings.ContainsRune(out, 0x1b) {
				t.Error("escape character in plain output")
			}
			code, js, errOut := replay(t, "stats", "--json", corpus+name)
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
	code, js, errOut := replay(t, "stats", "--json", corpus+"clean.aaep")
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
	code, js, _ = replay(t, "stats", "--json", corpus+"tool-pairing.aaep")
	if code != 0 || json.Unmarshal([]byte(js), &st) != nil || st.Total.Violations == 0 {
		t.Errorf("tool-pairing: exit %d, violations %d", code, st.Total.Violations)
	}
	if code, _, _ := replay(t, "stats", "missing.aaep"); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
}

// export --format jsonl writes the received messages, which read back
// identically; text is the transcript; html the report.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "clean.jsonl")
	code, _, errOut := replay(t, "export", "--format", "jsonl", "--output", out, corpus+"clean.aaep")
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
	code, again, _ := replay(t, "export", "--format", "jsonl", out)
	if code != 0 || again != string(raw) {
		t.Errorf("second export differs (exit %d)", code)
	}

	code, text, errOut := replay(t, "export", "--format", "text", corpus+"after-reject.aaep")
	if code != 0 {
		t.Fatalf("text: exit %d: %s", code, errOut)
	}
	golden(t, "testdata/after-reject.transcript.txt", text)

	code, html, _ := replay(t, "export", "--format", "html", corpus+"after-reject.aaep")
	if code != 0 || !strings.HasPrefix(html, "<!DOCTYPE html>") || !strings.Contains(html, "VIOLATION") {
		t.Errorf("html: exit %d, %.80s", code, html)
	}
	for _, args := range [][]string{
		{"export", corpus + "clean.aaep"},
		{"export", "--format", "xml", corpus + "clean.aaep"},
		{"export", "--format", "text"},
	} {
		if code, _, errOut := replay(t, args...); code != 2 || errOut == "" {
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
