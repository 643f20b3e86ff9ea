package record

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/capture/capturetest"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// A demo session captured from a real loopback producer, over SSE and over
// gRPC, checks clean and traces every session to its end.
func TestCaptureCheckTrace(t *testing.T) {
	t.Parallel()
	t.Run("sse", func(t *testing.T) { checkTrace(t, capturetest.StartDemo(t, false), "sse") })
	t.Run("grpc", func(t *testing.T) { checkTrace(t, capturetest.StartDemoGRPC(t), "grpc") })
}

// checkTrace captures url, whose binding is named binding in the header.
func checkTrace(t *testing.T, url, binding string) {
	t.Helper()
	path, stderr := recordFrom(t, url, Options{Transport: transport.Options{GRPCBinding: grpcbind.Binding{}}})
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

// JSONL (--format jsonl) writes plain events that read back as the same messages.
func TestCaptureJSONL(t *testing.T) {
	t.Parallel()
	url := capturetest.StartDemo(t, true) // deployed layout: no handshake
	aaep, _ := recordFrom(t, url, Options{NoHandshake: true})
	url2 := capturetest.StartDemo(t, true)
	jsonl, _ := recordFrom(t, url2, Options{NoHandshake: true, JSONL: true})
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

// JSONL (--format jsonl) against the Level-3 layout writes events only, so readers
// of plain event JSONL accept it; the .aaep capture of the same run keeps
// the handshake.
func TestCaptureJSONLEventsOnly(t *testing.T) {
	t.Parallel()
	jsonl, _ := recordFrom(t, capturetest.StartDemo(t, false), Options{JSONL: true, AutoReply: true})
	_, recs := capturetest.ReadAll(t, jsonl)
	if len(recs) == 0 {
		t.Fatal("no events")
	}
	for _, rec := range recs {
		if typ := protocol.PeekType(rec.Msg); protocol.KindOf(typ) != protocol.KindEvent {
			t.Errorf("a %s in the JSONL capture: %s", typ, rec.Msg)
		}
	}
	aaep, _ := recordFrom(t, capturetest.StartDemo(t, false), Options{})
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
	t.Parallel()
	_, url := capturetest.PromptingProducer(t)
	path, _ := recordFrom(t, url, Options{NoHandshake: true, AutoReply: true})
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
