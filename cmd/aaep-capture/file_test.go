package main

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
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
	all, err := producer.LoadScenarios(demo.Scenarios, "scenarios")
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

// An endpoint that cannot be reached is exit 1 with the reason, and leaves
// no file behind: neither a stub capture nor a truncated earlier file.
func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	for _, tt := range []struct{ name, endpoint, before string }{
		{"closed port", closed, ""},
		{"closed port, file exists", closed, "an earlier capture\n"},
		{"closed port, rotating", closed + " --rotate-size 1MB", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x.aaep")
			if tt.before != "" {
				if err := os.WriteFile(out, []byte(tt.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			fields := strings.Fields(tt.endpoint)
			args := append([]string{"--endpoint", fields[0], "-o", out, "--connect-timeout", "5s"}, fields[1:]...)
			tio, _, _, errOut := term.Test()
			code := run(context.Background(), args, tio)
			if code != 1 || !strings.Contains(errOut.String(), "connect to "+fields[0]) {
				t.Errorf("exit %d: %s", code, errOut)
			}
			got, err := os.ReadFile(out)
			switch {
			case tt.before == "" && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("a file was left behind (%v): %q", err, got)
			case tt.before != "" && string(got) != tt.before:
				t.Errorf("the earlier file now holds %q", got)
			}
		})
	}
}

// A file endpoint that does not exist is a usage error: exit 2, saying so,
// and no capture file is made.
func TestMissingFileIsUsageError(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.aaep")
	tio, _, _, errOut := term.Test()
	code := run(context.Background(), []string{"--endpoint", "no-such-file.jsonl", "-o", out}, tio)
	if code != 2 || !strings.Contains(errOut.String(), `no such file "no-such-file.jsonl"`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file was left behind: %v", err)
	}
}
