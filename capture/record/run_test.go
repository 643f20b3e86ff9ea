package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// --filter keeps the matching event types, every critical event and every
// message that is not an event.
func TestFilter(t *testing.T) {
	path, stderr := captureFrom(t, "file:"+cleanJSONL, "--no-redact", "--filter", "tool.*")
	if !strings.Contains(stderr, `Only event types matching "tool.*" are kept`) || !strings.Contains(stderr, "left out by --filter") {
		t.Errorf("stderr: %s", stderr)
	}
	_, recs := readAll(t, path)
	kinds := map[string]int{}
	for _, r := range recs {
		if !r.Note {
			kinds[protocol.PeekType(r.Msg)]++
		}
	}
	want := map[string]int{protocol.TypeToolInvoked: 2, protocol.TypeToolCompleted: 2, protocol.TypeAwaitingConfirmation: 2}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("recorded %v, want %v", kinds, want)
	}
	tio, _, _, _ := term.Test()
	if _, err := parseFlags([]string{"--endpoint", "x", "-o", "-", "--filter", "tool.["}, tio); err == nil || !strings.Contains(err.Error(), "--filter") {
		t.Errorf("bad pattern: %v", err)
	}
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
}

// --rotate-size spreads the recording over FILE, FILE.1, …: each file a
// capture with its own header, none larger than the limit, and together
// every message once, in order.
func TestRotateSize(t *testing.T) {
	for _, format := range []string{"aaep", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			path, stderr := captureFrom(t, "file:"+cleanJSONL, "--no-redact", "--rotate-size", "2K", "--format", format)
			_, want := readAll(t, cleanJSONL)
			var got []string
			files, _ := filepath.Glob(path + "*")
			if len(files) < 3 {
				t.Fatalf("%d files: %v\n%s", len(files), files, stderr)
			}
			for i := range files {
				name := path
				if i > 0 {
					name = fmt.Sprintf("%s.%d", path, i)
				}
				st, err := os.Stat(name)
				if err != nil {
					t.Fatal(err)
				}
				if st.Size() > 2048 {
					t.Errorf("%s has %d bytes", name, st.Size())
				}
				if st.Mode().Perm() != 0o600 {
					t.Errorf("%s mode %v", name, st.Mode().Perm())
				}
				r, recs := readAll(t, name)
				if format == "aaep" && (r.Kind() != capture.KindCapture || r.Header() == nil) {
					t.Errorf("%s: kind %s, header %v", name, r.Kind(), r.Header())
				}
				if d, _ := r.Diagnostics(); len(d) > 0 {
					t.Errorf("%s: %v", name, d)
				}
				for _, rec := range recs {
					if !rec.Note {
						got = append(got, string(rec.Msg))
					}
				}
				if i > 0 && !strings.Contains(stderr, "Continuing in "+name+".") {
					t.Errorf("stderr does not name %s: %s", name, stderr)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d messages in all files, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != string(want[i].Msg) {
					t.Errorf("message %d differs", i)
				}
			}
		})
	}
	tio, _, _, _ := term.Test()
	if _, err := parseFlags([]string{"--endpoint", "x", "-o", "f", "--rotate-size", "1Q"}, tio); err == nil || !strings.Contains(err.Error(), "--rotate-size") {
		t.Errorf("--rotate-size 1Q: %v", err)
	}
}

// --auto-reply reject answers every confirmation with a rejection that the
// producer receives, and records it; the start message says so.
func TestAutoReplyReject(t *testing.T) {
	p, url := promptingProducer(t)
	path, stderr := captureFrom(t, url, "--auto-reply", "reject")
	if !strings.Contains(stderr, "every confirmation is rejected (--auto-reply reject)") || !strings.Contains(stderr, "Your --auto-reply policy rejected:") {
		t.Errorf("stderr: %s", stderr)
	}
	_, recs := readAll(t, path)
	prompts, rejections := 0, 0
	for _, r := range recs {
		switch typ := protocol.PeekType(r.Msg); {
		case r.Dir == capture.In && typ == protocol.TypeAwaitingConfirmation:
			prompts++
		case r.Dir == capture.Out && typ == protocol.TypeConfirmationReply:
			if !bytes.Contains(r.Msg, []byte(`"decision":"reject"`)) || !bytes.Contains(r.Msg, []byte(`"subscription_id":"sub_`)) {
				t.Errorf("reply %s", r.Msg)
			}
			rejections++
		}
	}
	if prompts == 0 || rejections != prompts {
		t.Errorf("%d prompts, %d rejections recorded", prompts, rejections)
	}
	settled := 0
	for _, o := range p.Outcomes() {
		if o.Type == protocol.TypeAwaitingConfirmation {
			settled++
			if o.Resolution != producer.Rejected {
				t.Errorf("the producer settled %s as %s, want rejected by the reply", o.ReplyToken, o.Resolution)
			}
		}
	}
	if settled != prompts {
		t.Errorf("the producer settled %d confirmations, %d were recorded", settled, prompts)
	}
	tio, _, _, _ := term.Test()
	if _, err := parseFlags([]string{"--endpoint", "x", "-o", "-", "--auto-reply", "accept"}, tio); err == nil || !strings.Contains(err.Error(), "never automatic") {
		t.Errorf("--auto-reply accept: %v", err)
	}
}
