package main

import (
	"bytes"
	"context"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/capture/capturetest"
	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// demoProducer is the demo producer playing every scenario at once.
func demoProducer(t testing.TB, quirks bool) *producer.Producer {
	t.Helper()
	all, err := producer.LoadScenarios(demo.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	return producer.New(producer.Options{Scenarios: all, Speed: 0, Quirks: quirks, EndWhenDone: true,
		PromptTimeout: 50 * time.Millisecond})
}

// startProducer serves the demo producer on loopback and returns its URL.
func startProducer(t *testing.T, quirks bool) string {
	t.Helper()
	p := demoProducer(t, quirks)
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		p.Close()
		srv.Close()
	})
	return srv.URL
}

// startProducerGRPC serves the demo producer over gRPC on loopback and
// returns its grpc:// endpoint.
func startProducerGRPC(t *testing.T) string {
	t.Helper()
	p := demoProducer(t, false)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := p.GRPCServer()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		p.Close()
		srv.Stop()
	})
	return "grpc://" + ln.Addr().String()
}

// captureFrom records url to a file with extra flags and returns its path.
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

// A demo session captured from a real loopback producer, over SSE and over
// gRPC, checks clean and traces every session to its end.
func TestCaptureCheckTrace(t *testing.T) {
	t.Run("sse", func(t *testing.T) { checkTrace(t, startProducer(t, false), "sse") })
	t.Run("grpc", func(t *testing.T) { checkTrace(t, startProducerGRPC(t), "grpc") })
}

// checkTrace captures url, whose binding is named binding in the header.
func checkTrace(t *testing.T, url, binding string) {
	t.Helper()
	path, stderr := captureFrom(t, url)
	if !strings.Contains(stderr, "never answered") {
		t.Errorf("the start message does not say prompts are not answered: %q", stderr)
	}
	r, recs := capturetest.ReadAll(t, path)
	if r.Kind() != capture.KindCapture || r.Header() == nil || !r.Header().Redacted {
		t.Fatalf("kind %q header %+v", r.Kind(), r.Header())
	}
	if got := r.Header().Transport; got != binding {
		t.Errorf("the header names the binding %q, want %q", got, binding)
	}
	c, err := capture.NewChecker(capture.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	events, out := 0, 0
	for _, rec := range recs {
		if rec.Dir == capture.Out {
			out++
		}
		st := c.Check(rec)
		if st.Event != nil {
			events++
		}
		for _, v := range st.Violations {
			t.Errorf("%s", v)
		}
	}
	for _, v := range c.Finish() {
		t.Errorf("%s", v)
	}
	if events < 20 {
		t.Errorf("only %d events recorded", events)
	}
	if out != 1 {
		t.Errorf("%d sent messages recorded, want the subscription request", out)
	}
	r2, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	tr, err := capture.BuildTrace(r2, "session.aaep", capture.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := tr.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if tr.Violations != 0 || len(tr.Sessions) < 5 {
		t.Errorf("trace: %d violations, %d sessions\n%s", tr.Violations, len(tr.Sessions), text.String())
	}
	for _, s := range tr.Sessions {
		if s.Ended == "" {
			t.Errorf("session %s did not end", s.ID)
		}
	}
	if bytes.ContainsRune(text.Bytes(), 0x1b) {
		t.Error("the trace holds an escape character")
	}
}

// --format jsonl writes plain events that read back as the same messages.
func TestCaptureJSONL(t *testing.T) {
	url := startProducer(t, true) // deployed layout: no handshake
	aaep, _ := captureFrom(t, url, "--no-handshake")
	url2 := startProducer(t, true)
	jsonl, _ := captureFrom(t, url2, "--no-handshake", "--format", "jsonl")
	_, a := capturetest.ReadAll(t, aaep)
	r, b := capturetest.ReadAll(t, jsonl)
	if r.Kind() != capture.KindJSONL {
		t.Fatalf("kind %q", r.Kind())
	}
	var msgs []string
	for _, rec := range a {
		if !rec.Note && rec.Dir == capture.In {
			msgs = append(msgs, string(rec.Msg))
		}
	}
	if len(msgs) != len(b) {
		t.Fatalf("%d messages in .aaep, %d in jsonl", len(msgs), len(b))
	}
	raw, err := os.ReadFile(jsonl)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(`"aaep_capture"`)) {
		t.Error("jsonl output has a header")
	}
}

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

// --format jsonl against the Level-3 layout writes events only, so readers
// of plain event JSONL accept it; the .aaep capture of the same run keeps
// the handshake.
func TestCaptureJSONLEventsOnly(t *testing.T) {
	jsonl, _ := captureFrom(t, startProducer(t, false), "--format", "jsonl", "--auto-reply", "reject")
	_, recs := capturetest.ReadAll(t, jsonl)
	if len(recs) == 0 {
		t.Fatal("no events")
	}
	for _, rec := range recs {
		if typ := protocol.PeekType(rec.Msg); protocol.KindOf(typ) != protocol.KindEvent {
			t.Errorf("a %s in the JSONL capture: %s", typ, rec.Msg)
		}
	}
	aaep, _ := captureFrom(t, startProducer(t, false))
	_, recs = capturetest.ReadAll(t, aaep)
	kept := 0
	for _, rec := range recs {
		if !rec.Note && protocol.PeekType(rec.Msg) == protocol.TypeSubscriptionAccepted {
			kept++
		}
	}
	if kept != 1 {
		t.Errorf("the .aaep capture holds %d subscription.accepted, want 1", kept)
	}
}

// A capture of the deployed layout with our own replies in it (--auto-reply
// reject) checks clean: a reply on that layout has no subscription to name,
// which is no violation; at most a note that the capture has no handshake.
func TestCheckOwnLegacyReplies(t *testing.T) {
	_, url := capturetest.PromptingProducer(t)
	path, _ := captureFrom(t, url, "--no-handshake", "--auto-reply", "reject")
	_, recs := capturetest.ReadAll(t, path)
	c, err := capture.NewChecker(capture.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	replies := 0
	for _, rec := range recs {
		if rec.Dir == capture.Out && protocol.PeekType(rec.Msg) == protocol.TypeConfirmationReply {
			replies++
		}
		for _, v := range c.Check(rec).Violations {
			if v.Severity == capture.SeverityViolation {
				t.Errorf("%s", v)
			}
		}
	}
	for _, v := range c.Finish() {
		if v.Severity == capture.SeverityViolation {
			t.Errorf("%s", v)
		}
	}
	if replies == 0 {
		t.Error("no reply was recorded")
	}
}
