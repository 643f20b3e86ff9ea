package subscriber

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/spectest"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// verdict is what one side made of one message.
type verdict struct {
	kind     string   // "event", or the type of a handshake or reply message
	valid    bool     // for events: no problem at all
	pointers []string // for events: where the problems are, sorted
}

func (v verdict) String() string {
	if v.kind != "event" {
		return v.kind
	}
	return fmt.Sprintf("event valid=%v problems at %q", v.valid, v.pointers)
}

// The listener and aaep-replay check never disagree on a single message:
// over the official fixtures and our own hostile and edge cases, both
// find the same kind of message (event or not), the same validity, and
// problems at the same JSON pointers. The listener's side is exactly
// what it does with a frame (decode, then the diagnostic it shows); the
// checker's is its schema-only check.
func TestListenerAndCheckerAgree(t *testing.T) {
	corpus := agreementCorpus(t)
	if len(corpus) < 40 {
		t.Fatalf("only %d messages in the corpus", len(corpus))
	}
	chk, err := capture.NewChecker(capture.CheckOptions{SchemaOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var dec protocol.Decoder
	invalid, notEvents := 0, 0
	for i, msg := range corpus {
		lis := agree(t, &dec, chk, i+1, msg)
		if lis.kind != "event" {
			notEvents++
		} else if !lis.valid {
			invalid++
		}
	}
	t.Logf("%d messages: %d invalid events, %d not events", len(corpus), invalid, notEvents)
}

// FuzzListenerAndCheckerAgree: whatever the message, the listener and the
// checker agree on it.
func FuzzListenerAndCheckerAgree(f *testing.F) {
	for _, msg := range agreementCorpus(f) {
		f.Add(msg)
	}
	chk, err := capture.NewChecker(capture.CheckOptions{SchemaOnly: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		if !json.Valid(msg) || !bytes.HasPrefix(msg, []byte("{")) || bytes.ContainsAny(msg, "\r\n") {
			return // a capture record holds one JSON object on one line
		}
		var dec protocol.Decoder
		agree(t, &dec, chk, 1, msg)
	})
}

// agreementCorpus is the official fixtures, on one line each, and our own
// hostile and edge cases.
func agreementCorpus(t testing.TB) [][]byte {
	var corpus [][]byte
	for _, f := range spectest.Fixtures(t, spectest.Dir(t)) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, f.Data); err != nil {
			t.Fatal(err)
		}
		corpus = append(corpus, compact.Bytes())
	}
	edge, err := os.Open("../protocol/testdata/edge-messages.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer edge.Close()
	sc := bufio.NewScanner(edge)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		corpus = append(corpus, bytes.Clone(sc.Bytes()))
	}
	return corpus
}

// agree runs the listener's decoding and the checker over one message and
// fails t when they disagree; it returns the listener's verdict.
func agree(t *testing.T, dec *protocol.Decoder, chk *capture.Checker, line int, msg []byte) verdict {
	t.Helper()
	lis := listenerVerdict(t, decode(dec, transport.Frame{Data: msg}))
	st := chk.Check(capture.Record{Line: line, Dir: capture.In, Msg: msg})
	got := checkerVerdict(t, st)
	if lis.kind != got.kind || lis.valid != got.valid || !slices.Equal(lis.pointers, got.pointers) {
		t.Errorf("message %d %.120s:\nlistener: %v\nchecker:  %v\n%v", line, msg, lis, got, st.Violations)
	}
	return lis
}

// listenerVerdict is what the listener made of a decoded frame; it checks
// that the diagnostic the listener would show names the problems.
func listenerVerdict(t *testing.T, d decoded) verdict {
	if d.message != "" {
		return verdict{kind: d.message}
	}
	v := verdict{kind: "event", valid: d.err == nil}
	var ve *protocol.ValidationError
	if errors.As(d.err, &ve) {
		for _, p := range ve.Problems {
			v.pointers = append(v.pointers, strings.Join(strings.Fields(protocol.Sanitize(p.Pointer)), " ")) // as the user reads it
		}
		slices.Sort(v.pointers)
		v.pointers = slices.Compact(v.pointers)
		if text := DecodeProblem(d.ev, d.err, len(d.frame.Data)); !strings.Contains(text, "announced anyway") {
			t.Errorf("the listener would not announce an event it decoded: %s", text)
		}
	}
	return v
}

// checkerVerdict is what aaep-replay check made of a message: violations,
// not warnings, make it invalid.
func checkerVerdict(t *testing.T, st capture.Step) verdict {
	if st.Msg != nil {
		return verdict{kind: st.Type}
	}
	v := verdict{kind: "event", valid: true}
	for _, vi := range st.Violations {
		if vi.Severity != capture.SeverityViolation {
			continue
		}
		v.valid = false
		for _, p := range vi.Pointers {
			v.pointers = append(v.pointers, strings.Join(strings.Fields(p), " "))
		}
		if strings.ContainsAny(vi.Message, "\n\r") {
			t.Errorf("a violation message holds a line break: %q", vi.Message)
		}
	}
	slices.Sort(v.pointers)
	v.pointers = slices.Compact(v.pointers)
	return v
}
