package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/term"
)

// The flags of what a recording does are read into record.Options, whose
// own tests (capture/record) record with them: --filter with
// aaep-listen's --include and --exclude is one filter, and values that
// name nothing are refused with the flag's name.
func TestRecordingFlags(t *testing.T) {
	tio, _, _, _ := term.Test()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--include", "tool.*"}, "tool.*"},
		{[]string{"--exclude", "progress.*, output.*"}, "-progress.*,-output.*"},
		{[]string{"--filter", "tool.*", "--include", "session.*", "--exclude", "tool.completed"}, "tool.*,session.*,-tool.completed"},
	} {
		o, err := parseFlags(append([]string{"--endpoint", "x", "-o", "-"}, tc.args...), tio)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
		} else if o.Filter.String() != tc.want {
			t.Errorf("%q: filter %q, want %q", tc.args, o.Filter.String(), tc.want)
		}
	}
	o, err := parseFlags([]string{"--endpoint", "x", "-o", "f", "--rotate-size", "2K", "--auto-reply", "reject", "--format", "jsonl"}, tio)
	if err != nil || o.RotateSize != 2048 || !o.AutoReply || !o.JSONL {
		t.Errorf("options %+v, %v", o, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--filter", "tool.["}, "--filter"},
		{[]string{"--rotate-size", "1Q"}, "--rotate-size"},
		{[]string{"--auto-reply", "accept"}, "never automatic"},
	} {
		if _, err := parseFlags(append([]string{"--endpoint", "x", "-o", "f"}, tc.args...), tio); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}

// The command line: a bad value is refused with its flag's name, what
// the recording cannot do by record.Options.Check, and --help names every
// flag and endpoint form.
func TestFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--endpoint", "http://x", "-o", "-", "--format", "xml"}, "--format"},
		{[]string{"--endpoint", "http://x", "-o", "-", "--layout", "sideways"}, "layout"},
		// What the recording cannot do is refused by record.Options.Check
		// (its test, TestCheck, has every case), before anything is sent.
		{[]string{"--output", "x"}, "--endpoint"},
		{[]string{"--endpoint", "http://x", "-o", t.TempDir()}, "is a directory"},
	} {
		tio, _, _, _ := term.Test()
		o, err := parseFlags(tt.args, tio)
		if err == nil {
			err = o.Check()
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one mentioning %s", tt.args, err, tt.want)
		}
	}
	tio, _, out, _ := term.Test()
	if _, err := parseFlags([]string{"--help"}, tio); err != errHelp {
		t.Fatal(err)
	}
	for _, want := range []string{"ws://", "wss://", "grpc://", "grpcs://", "unix:PATH", "exec:COMMAND", "file:PATH", "-endpoint", "-output", "-format", "-no-redact", "-duration", "-max-events", "-no-handshake", "never", "-filter", "-rotate-size", "-auto-reply", "-no-progress"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help does not mention %s", want)
		}
	}
}

// captureFrom records url with aaep-capture and extra flags to a file and
// returns its path and what the command said on standard error.
func captureFrom(t *testing.T, url string, flags ...string) (path, stderr string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "session.aaep")
	tio, _, _, errOut := term.Test()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	args := append([]string{"--endpoint", url, "--output", path}, flags...)
	if code := run(ctx, args, tio); code != 0 {
		t.Fatalf("aaep-capture exit %d: %s", code, errOut)
	}
	return path, errOut.String()
}
