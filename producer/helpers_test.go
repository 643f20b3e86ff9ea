package producer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/spectest"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// scenarios loads the project's scenario files.
func scenarios(t testing.TB, names ...string) []Scenario {
	t.Helper()
	all, err := LoadScenarios(os.DirFS("../demo/scenarios"), ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		return all
	}
	sel, err := SelectScenarios(all, names)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// serve starts p on a loopback server that ends with the test.
func serve(t testing.TB, opts Options) (*Producer, *httptest.Server) {
	t.Helper()
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	p := New(opts)
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		p.Close()
		srv.Close()
	})
	return p, srv
}

// sseEvent is one event read from a stream, or a comment.
type sseEvent struct {
	comment string // a comment line, without the colon
	event   string
	id      string
	data    string
}

// decoded returns the event's data as a JSON object.
func (e sseEvent) decoded(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(e.data), &m); err != nil {
		t.Fatalf("data %q: %v", e.data, err)
	}
	return m
}

func (e sseEvent) typ(t testing.TB) string {
	s, _ := e.decoded(t)["type"].(string)
	return s
}

// stream is an open SSE stream read by a goroutine.
type stream struct {
	resp   *http.Response
	events chan sseEvent
	done   chan struct{} // closed when the body ends
}

// open GETs url and reads it as a stream. lastID, if not empty, is sent as
// Last-Event-ID.
func open(t testing.TB, url, lastID string) *stream {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("GET %s: %s %s", url, resp.Status, b)
	}
	s := &stream{resp: resp, events: make(chan sseEvent, 100000), done: make(chan struct{})}
	t.Cleanup(func() { resp.Body.Close(); <-s.done })
	go s.read()
	return s
}

func (s *stream) read() {
	defer close(s.done)
	defer close(s.events)
	sc := bufio.NewScanner(s.resp.Body)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	var ev sseEvent
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != nil {
				ev.data = strings.Join(data, "\n")
				s.events <- ev
			}
			ev, data = sseEvent{}, nil
		case strings.HasPrefix(line, ":"):
			s.events <- sseEvent{comment: strings.TrimPrefix(line, ":")}
		default:
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch name {
			case "event":
				ev.event = value
			case "id":
				ev.id = value
			case "data":
				data = append(data, value)
			}
		}
	}
}

// next returns the next event (comments skipped), failing after a while.
func (s *stream) next(t testing.TB) sseEvent {
	t.Helper()
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatal("the stream ended")
			}
			if ev.comment != "" {
				continue
			}
			return ev
		case <-time.After(5 * time.Second):
			t.Fatal("no event within 5 s")
		}
	}
}

// until reads events up to and including the first of type typ.
func (s *stream) until(t testing.TB, typ string) []sseEvent {
	t.Helper()
	var got []sseEvent
	for {
		ev := s.next(t)
		got = append(got, ev)
		if ev.typ(t) == typ {
			return got
		}
	}
}

// quiet reports whether no event arrives for d.
func (s *stream) quiet(t testing.TB, d time.Duration) bool {
	t.Helper()
	timer := time.After(d)
	for {
		select {
		case ev, ok := <-s.events:
			if ok && ev.comment != "" {
				continue
			}
			return false
		case <-timer:
			return true
		}
	}
}

// all reads events until the stream ends.
func (s *stream) all(t testing.TB) []sseEvent {
	t.Helper()
	var got []sseEvent
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return got
			}
			if ev.comment == "" {
				got = append(got, ev)
			}
		case <-timeout:
			t.Fatalf("the stream did not end; %d events so far", len(got))
		}
	}
}

// post sends body as JSON and returns the status and the answer.
func post(t testing.TB, url string, body any) (int, http.Header, []byte) {
	t.Helper()
	var b []byte
	switch v := body.(type) {
	case string:
		b = []byte(v)
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, answer
}

// subscribe makes a spec subscription and opens its stream.
func subscribe(t testing.TB, srv *httptest.Server, caps map[string]any) (string, *stream) {
	t.Helper()
	if caps == nil {
		caps = map[string]any{"supports_confirmation_reply": true, "supports_clarification_reply": true}
	}
	code, h, body := post(t, srv.URL+protocol.PathSubscriptions, map[string]any{
		"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "test", "capabilities": caps,
	})
	if code != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", code, body)
	}
	var acc struct {
		ID string `json:"subscription_id"`
	}
	if err := json.Unmarshal(body, &acc); err != nil {
		t.Fatal(err)
	}
	return acc.ID, open(t, srv.URL+h.Get("Location"), "")
}

// confirmation builds a confirmation.reply.
func confirmation(token, decision, sub string) map[string]any {
	m := map[string]any{
		"type": "confirmation.reply", "reply_token": token, "decision": decision,
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano),
	}
	if sub != "" {
		m["subscription_id"] = sub
	}
	return m
}

// official validates JSON documents against the official AAEP schemas.
type official struct {
	o  *spectest.Official
	mu sync.Mutex
}

func loadOfficial(t testing.TB) *official {
	t.Helper()
	return &official{o: spectest.LoadOfficial(t, spectest.Dir(t))}
}

// validate checks one JSON document and returns the validator's error.
func (o *official) validate(t testing.TB, data []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.o.Validate(v)
}
