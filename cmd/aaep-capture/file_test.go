package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	aaepterm "github.com/aaep-term/aaep-term"
	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"net/http/httptest"
)

const cleanJSONL = "../../capture/testdata/corpus/clean.jsonl"

// Recording the same input as .aaep and as JSONL gives the same messages,
// byte for byte, and both read back as the input.
func TestFormatsAgree(t *testing.T) {
	aaep, _ := captureFrom(t, "file:"+cleanJSONL, "--no-redact")
	jsonl, _ := captureFrom(t, "file:"+cleanJSONL, "--no-redact", "--format", "jsonl")
	_, want := readAll(t, cleanJSONL)
	_, a := readAll(t, aaep)
	_, b := readAll(t, jsonl)
	var got []string
	for _, r := range a {
		if !r.Note {
			got = append(got, string(r.Msg))
		}
	}
	if len(got) != len(want) || len(b) != len(want) {
		t.Fatalf("%d messages in .aaep, %d in jsonl, want %d", len(got), len(b), len(want))
	}
	for i := range want {
		if got[i] != string(want[i].Msg) || string(b[i].Msg) != string(want[i].Msg) {
			t.Errorf("message %d differs", i)
		}
	}
}

// --max-events stops after that many messages; -o - writes to standard output.
func TestMaxEventsStdout(t *testing.T) {
	tio, _, out, errOut := term.Test()
	code := run(context.Background(), []string{"--endpoint", cleanJSONL, "-o", "-", "--max-events", "3", "--format", "jsonl"}, tio)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Errorf("%d lines on standard output, want 3", n)
	}
	if !strings.Contains(errOut.String(), "Reached --max-events 3") || !strings.Contains(errOut.String(), "Recorded 3 messages") {
		t.Errorf("stderr: %s", errOut)
	}
}

// --duration stops a recording of a producer that is still talking.
func TestDuration(t *testing.T) {
	all, err := producer.LoadScenarios(aaepterm.Scenarios, "testdata/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	p := producer.New(producer.Options{Scenarios: all, Speed: 1, EndWhenDone: true})
	srv := httptest.NewServer(p)
	defer func() { p.Close(); srv.Close() }()
	path := filepath.Join(t.TempDir(), "short.aaep")
	tio, _, _, errOut := term.Test()
	start := time.Now()
	if code := run(context.Background(), []string{"--endpoint", srv.URL, "-o", path, "--duration", "300ms"}, tio); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	if !strings.Contains(errOut.String(), "--duration is over") {
		t.Errorf("stderr: %s", errOut)
	}
	r, recs := readAll(t, path)
	if r.Kind() != capture.KindCapture || len(recs) == 0 {
		t.Errorf("kind %s, %d records", r.Kind(), len(recs))
	}
}

// A file endpoint that does not exist is a usage error: exit 2, saying
// so (issue 15; this once expected exit 1 and "connect to").
func TestUnreachable(t *testing.T) {
	tio, _, _, errOut := term.Test()
	code := run(context.Background(), []string{"--endpoint", "no-such-file.jsonl", "-o", filepath.Join(t.TempDir(), "x.aaep")}, tio)
	if code != 2 || !strings.Contains(errOut.String(), `no such file "no-such-file.jsonl"`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
