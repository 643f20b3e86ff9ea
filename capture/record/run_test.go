package record

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/capture/capturetest"
	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// cleanJSONL is a plain JSONL capture of the corpus, recorded from as the
// endpoint file:PATH.
const cleanJSONL = "../testdata/corpus/clean.jsonl"

// recordFrom records endpoint (or, for "", o.Agents) as o says (into a
// new file unless o.Output names one), checked first as aaep-capture checks it, and returns the
// output and what was said on standard error.
func recordFrom(t *testing.T, endpoint string, o Options) (path, stderr string) {
	t.Helper()
	if o.Output == "" {
		o.Output = filepath.Join(t.TempDir(), "session.aaep")
	}
	var errOut bytes.Buffer
	o.Err, o.Now = &errOut, time.Now
	if endpoint != "" {
		o.Agents = []agentspec.Spec{{Endpoint: endpoint}}
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := o.Check()
	if err == nil {
		err = Run(ctx, &o)
	}
	if err != nil {
		t.Fatalf("record %s: %v\n%s", endpoint, err, errOut.String())
	}
	return o.Output, errOut.String()
}

// A filter (--filter) keeps the matching event types, every critical
// event and every message that is not an event, and the start line says so.
func TestFilter(t *testing.T) {
	t.Parallel()
	f, err := capture.ParseTypeFilter("tool.*")
	if err != nil {
		t.Fatal(err)
	}
	path, stderr := recordFrom(t, "file:"+cleanJSONL, Options{NoRedact: true, Filter: f})
	if !strings.Contains(stderr, `Only event types matching "tool.*" are kept`) || !strings.Contains(stderr, "left out by --filter") {
		t.Errorf("stderr: %s", stderr)
	}
	_, recs := capturetest.ReadAll(t, path)
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
}

// RotateSize (--rotate-size) spreads the recording over FILE, FILE.1, …:
// each file a capture with its own header, none larger than the limit,
// and together every message once, in order.
func TestRotateSize(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"aaep", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			path, stderr := recordFrom(t, "file:"+cleanJSONL, Options{NoRedact: true, RotateSize: 2048, JSONL: format == "jsonl"})
			_, want := capturetest.ReadAll(t, cleanJSONL)
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
				r, recs := capturetest.ReadAll(t, name)
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
}

// AutoReply (--auto-reply reject) answers every confirmation with a
// rejection that the producer receives, and records it; the start message
// says so.
func TestAutoReplyReject(t *testing.T) {
	t.Parallel()
	p, url := capturetest.PromptingProducer(t)
	path, stderr := recordFrom(t, url, Options{AutoReply: true})
	if !strings.Contains(stderr, "every confirmation is rejected (--auto-reply reject)") || !strings.Contains(stderr, "Your --auto-reply policy rejected:") {
		t.Errorf("stderr: %s", stderr)
	}
	_, recs := capturetest.ReadAll(t, path)
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
}

// Recording the same input as .aaep and as JSONL gives the same messages,
// byte for byte, and both read back as the input.
func TestFormatsAgree(t *testing.T) {
	t.Parallel()
	aaep, _ := recordFrom(t, "file:"+cleanJSONL, Options{NoRedact: true})
	jsonl, _ := recordFrom(t, "file:"+cleanJSONL, Options{NoRedact: true, JSONL: true})
	_, want := capturetest.ReadAll(t, cleanJSONL)
	_, a := capturetest.ReadAll(t, aaep)
	_, b := capturetest.ReadAll(t, jsonl)
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

// MaxEvents (--max-events) stops after that many messages; the output "-"
// is Out (standard output).
func TestMaxEventsStdout(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	_, stderr := recordFrom(t, cleanJSONL, Options{Output: "-", Out: &out, MaxEvents: 3, JSONL: true})
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Errorf("%d lines on standard output, want 3", n)
	}
	if !strings.Contains(stderr, "Reached --max-events 3") || !strings.Contains(stderr, "Recorded 3 messages") {
		t.Errorf("stderr: %s", stderr)
	}
}

// Duration (--duration) stops a recording of a producer that is still
// talking.
func TestDuration(t *testing.T) {
	t.Parallel()
	all, err := producer.LoadScenarios(demo.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	p := producer.New(producer.Options{Scenarios: all, Speed: 1, EndWhenDone: true})
	srv := httptest.NewServer(p)
	defer func() { p.Close(); srv.Close() }()
	start := time.Now()
	path, stderr := recordFrom(t, srv.URL, Options{Duration: 300 * time.Millisecond})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	if !strings.Contains(stderr, "--duration is over") {
		t.Errorf("stderr: %s", stderr)
	}
	r, recs := capturetest.ReadAll(t, path)
	if r.Kind() != capture.KindCapture || len(recs) == 0 {
		t.Errorf("kind %s, %d records", r.Kind(), len(recs))
	}
}
