package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// stats of a file that is not there is input that cannot be read.
func TestStatsMissing(t *testing.T) {
	if code, _, errOut := runReplay(t, "stats", "missing.aaep"); code != 2 || errOut == "" {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
}

// export --format jsonl writes what capture.ExportJSONL does (its test,
// TestExportJSONL, says what that is) to --output; text is the
// transcript; html the report.
func TestExport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "clean.jsonl")
	code, _, errOut := runReplay(t, "export", "--format", "jsonl", "--output", out, corpus+"clean.aaep")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	r, err := capture.Open(corpus + "clean.aaep")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var want strings.Builder
	if err := capture.ExportJSONL(r, &want); err != nil || string(raw) != want.String() || len(raw) == 0 {
		t.Errorf("--output holds %q, want %q (%v)", raw, want.String(), err)
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
