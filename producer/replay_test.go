package producer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/browsertest"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// A subscriber receives the served capture in both layouts, and its reply
// reaches the server.
func TestReplay(t *testing.T) {
	r, url, replies := serveCorpus(t, Replay{Speed: 100, IdleLimit: 10 * time.Millisecond})
	if r.Len() != 18 {
		t.Fatalf("serving %d messages, want the 18 received events", r.Len())
	}
	for _, tt := range []struct {
		layout    transport.Layout
		request   []byte
		accepted  bool
		replyPath string
	}{
		{transport.LayoutSpec, []byte(testRequest), true, "/aaep/v1/replies"},
		{transport.LayoutLegacy, nil, false, "/messages"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := transport.Dial(ctx, url, transport.Options{SSE: transport.SSEOptions{Layout: tt.layout, SubscriptionRequest: tt.request}})
		if err != nil {
			t.Fatal(err)
		}
		evs, accepted := receive(t, ctx, conn, 0)
		if events := len(evs); events != 18 || (accepted == 1) != tt.accepted {
			t.Errorf("layout %v: %d events, %d acceptances", tt.layout, events, accepted)
		}
		reply := `{"type":"confirmation.reply","reply_token":"rpl_clean01token","decision":"reject"}`
		if err := conn.Send(ctx, []byte(reply)); err != nil {
			t.Errorf("send a reply: %v", err)
		}
		conn.Close()
		cancel()
		got := replies()
		if len(got) == 0 || !strings.HasPrefix(got[len(got)-1], tt.replyPath+" ") || !strings.Contains(got[len(got)-1], "reject") {
			t.Errorf("replies received: %q", got)
		}
	}
}

// cleanRecords reads the records of the capture corpus's clean.aaep.
func cleanRecords(t *testing.T) []capture.Record {
	t.Helper()
	f, err := os.Open("../capture/testdata/corpus/clean.aaep")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, _, err := capture.ReadDocuments(f)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// serveCorpus serves clean.aaep of the capture corpus as r says, collects
// what subscribers send, and returns the replay, the server's URL and
// what subscribers sent so far.
func serveCorpus(t *testing.T, r Replay) (*Replay, string, func() []string) {
	t.Helper()
	r.Records = cleanRecords(t)
	var mu sync.Mutex
	var replies []string
	p := New(Options{Replay: &r, Logf: t.Logf, OnMessage: func(path string, body []byte) {
		mu.Lock()
		defer mu.Unlock()
		replies = append(replies, path+" "+string(body))
	}})
	hs := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); hs.Close() })
	return &r, hs.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(replies)
	}
}

// receive reads events from conn until the end (or max events); it counts
// the handshake answers apart.
func receive(t *testing.T, ctx context.Context, conn transport.Conn, max int) (evs []map[string]any, accepted int) {
	t.Helper()
	for max <= 0 || len(evs) < max {
		fr, err := conn.Recv(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if protocol.PeekType(fr.Data) == protocol.TypeSubscriptionAccepted {
			accepted++
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(fr.Data, &m); err != nil {
			t.Fatalf("not JSON: %s", fr.Data)
		}
		evs = append(evs, m)
	}
	return evs, accepted
}

const testRequest = `{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t","capabilities":{"supports_confirmation_reply":true}}`

// Over WebSocket (subprotocol aaep.v1, handshake first): every event, each
// stamped with the time it was sent; a reply on the socket reaches the server.
func TestReplayWebSocket(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	r := Replay{Speed: 1, Records: cleanRecords(t)}
	var mu sync.Mutex
	var got []string
	p := New(Options{Replay: &r, Logf: t.Logf, Now: func() time.Time { return now }, OnMessage: func(path string, body []byte) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, path+" "+string(body))
	}})
	hs := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); hs.Close() })
	url := hs.URL
	replies := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws := "ws" + strings.TrimPrefix(url, "http") + protocol.PathWebSocket
	conn, err := transport.Dial(ctx, ws, transport.Options{SSE: transport.SSEOptions{SubscriptionRequest: []byte(testRequest)}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	reply := `{"type":"confirmation.reply","reply_token":"rpl_clean01token","decision":"reject"}`
	evs, _ := receive(t, ctx, conn, 6) // the first prompt is the sixth event
	if err := conn.Send(ctx, []byte(reply)); err != nil {
		t.Fatal(err)
	}
	rest, _ := receive(t, ctx, conn, 0)
	evs = append(evs, rest...)
	if len(evs) != 18 {
		t.Fatalf("%d events over WebSocket, want 18", len(evs))
	}
	for _, e := range evs {
		if e["timestamp"] != "2030-05-06T07:08:09.000Z" {
			t.Errorf("timestamp %v, want the time of sending", e["timestamp"])
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(replies()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := replies(); len(got) != 1 || got[0] != protocol.PathWebSocket+" "+reply {
		t.Errorf("replies %q", got)
	}
	// Without the subprotocol the upgrade is refused.
	resp, err := http.Get(url + protocol.PathWebSocket)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("plain GET of the WebSocket path: %d", resp.StatusCode)
	}
}

// --loop plays round after round, each with new event IDs, session IDs and
// reply tokens; --keep-timestamps sends the recorded timestamps.
func TestReplayLoop(t *testing.T) {
	_, url, _ := serveCorpus(t, Replay{Loop: true, KeepTimestamps: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := transport.Dial(ctx, url, transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutLegacy}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	evs, _ := receive(t, ctx, conn, 18*3)
	ids, sessions := map[string]bool{}, map[string]bool{}
	for i, e := range evs {
		id, _ := e["event_id"].(string)
		if ids[id] {
			t.Errorf("event %d: event_id %s sent before", i, id)
		}
		ids[id] = true
		sessions[e["session_id"].(string)] = true
		if round := i/18 + 1; round > 1 && !strings.HasSuffix(id, fmt.Sprintf("r%d", round)) {
			t.Errorf("event %d of round %d has event_id %s", i, round, id)
		}
		if tok, ok := e["reply_token"].(string); ok && i >= 18 && !strings.Contains(tok, "r") {
			t.Errorf("reply token %s not made new", tok)
		}
		if ts, _ := e["timestamp"].(string); !strings.HasPrefix(ts, "2026-06-30T14:22:") {
			t.Errorf("timestamp %s is not the recorded one", ts)
		}
	}
	if len(sessions) != 6 {
		t.Errorf("%d sessions in three rounds of two", len(sessions))
	}
	// Every round checks clean: new IDs make new sessions.
	var lines []string
	for _, e := range evs {
		b, _ := json.Marshal(e)
		lines = append(lines, string(b))
	}
	rd, err := capture.NewReader(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := capture.BuildTrace(rd, "loop", capture.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Violations != 0 {
		var b strings.Builder
		_ = tr.WriteText(&b)
		t.Errorf("three rounds have %d violations:\n%s", tr.Violations, b.String())
	}
}

func TestRoundID(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, tt := range []struct {
		id    string
		round int
		want  string
	}{
		{"evt_abc", 2, "evt_abcr2"},
		{"sess_x1", 10, "sess_x1r10"},
		{"evt_" + long, 3, "evt_" + long[:62] + "r3"},
		{"plain", 2, "plainr2"},
	} {
		got := roundID(tt.id, tt.round)
		if got != tt.want {
			t.Errorf("roundID(%q, %d) = %q, want %q", tt.id, tt.round, got, tt.want)
		}
	}
}

// --no-wait plays at once: a subscriber joining late gets only what is
// sent from then on, the stream ends with the playing, and a stream asked
// for after that is told not to reconnect. The capture pauses 5 s after
// its third event: the late subscriber joins in that pause, once the first
// has heard three events, so what each gets does not depend on how fast
// the machine is.
func TestReplayShared(t *testing.T) {
	t.Parallel()
	const before, pause = 3, 5.0
	recs := cleanRecords(t)
	served := 0
	for i := range recs {
		if served >= before {
			recs[i].T += pause
		}
		if recs[i].Dir == capture.In && !recs[i].Note {
			served++
		}
	}
	done := make(chan struct{})
	// The pause lasts until the second subscriber is in, however long
	// that takes on a busy machine.
	resume := make(chan time.Time)
	after := func(d time.Duration) <-chan time.Time {
		if d >= pause*time.Second {
			return resume
		}
		return time.After(d)
	}
	r := Replay{Speed: 1, Shared: true, OnDone: func() { close(done) }, Records: recs, after: after}
	p := New(Options{Replay: &r, Logf: t.Logf})
	hs := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); hs.Close() })
	url := hs.URL
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dial := func() transport.Conn {
		conn, err := transport.Dial(ctx, url, transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutLegacy}})
		if err != nil {
			t.Fatal(err)
		}
		return conn
	}
	first := dial()
	defer first.Close()
	go func() { _ = p.Run(ctx) }()
	early, _ := receive(t, ctx, first, before)
	conn := dial()
	close(resume)
	evs, _ := receive(t, ctx, conn, 0)
	conn.Close()
	if want := r.Len() - before; len(evs) != want {
		t.Errorf("a subscriber joining after %d events got %d, want the %d sent after", before, len(evs), want)
	} else if evs[0]["event_id"] == early[0]["event_id"] {
		t.Errorf("the late subscriber got the first event, %v", evs[0]["event_id"])
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("OnDone was never called")
	}
	resp, err := http.Get(url + "/events")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("stream after the end: %d, want 204", resp.StatusCode)
	}
}

// On the deployed layout, which has no subscription to tell subscribers
// apart, every new subscriber gets the capture from its start; a subscriber
// that resumes after the last event is told the stream has ended (204).
func TestReplayLegacyEverySubscriber(t *testing.T) {
	_, url, _ := serveCorpus(t, Replay{})
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := transport.Dial(ctx, url, transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutLegacy}})
		if err != nil {
			t.Fatal(err)
		}
		evs, _ := receive(t, ctx, conn, 0)
		conn.Close()
		cancel()
		if len(evs) != 18 {
			t.Errorf("subscriber %d got %d events, want all 18", i+1, len(evs))
		}
	}
}

// A browser subscriber using EventSource.onmessage against the deployed
// layout's /events of aaep-replay serve receives every event.
func TestReplayLegacyReachesOnmessage(t *testing.T) {
	p := New(Options{Replay: &Replay{Records: cleanRecords(t)}, Logf: t.Logf})
	browsertest.Onmessage(t, p, 18, func() { p.Close() })
}

// A replay honours the subscription's terms on every binding, as the live
// producer does: a subscription that cannot answer confirmations is sent
// none, its event filters apply, and subscription.accepted reports the real
// honored terms (the second server this replaces sent every prompt and
// answered honored_capabilities {}). Replies on each binding are reported
// with the binding they came by.
func TestReplayHonoursTerms(t *testing.T) {
	// The linger keeps each stream open after its last event until the
	// test has sent its reply; the test ends it.
	r := Replay{Records: cleanRecords(t), Linger: time.Hour}
	told := make(chan string, 10)
	p := New(Options{Replay: &r, Logf: t.Logf, OnMessage: func(via string, msg []byte) { told <- via }})
	hs := httptest.NewServer(p)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := p.GRPCServer()
	go func() { _ = gs.Serve(ln) }()
	t.Cleanup(func() { p.Close(); hs.Close(); gs.Stop() })

	req := `{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t","capabilities":` +
		`{"supports_confirmation_reply":false,"max_events_per_second":500,"event_filters":{"exclude":["aaep:agent.state.changed"]}}}`
	want := 18 - 2 - countType(t, protocol.TypeStateChanged) // the 2 confirmations and the state changes are left out
	for _, tc := range []struct{ name, endpoint, via string }{
		{"sse", hs.URL, protocol.PathReplies},
		{"websocket", "ws" + strings.TrimPrefix(hs.URL, "http") + protocol.PathWebSocket, protocol.PathWebSocket},
		{"grpc", "grpc://" + ln.Addr().String(), "gRPC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := transport.Dial(ctx, tc.endpoint, transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutSpec, SubscriptionRequest: []byte(req)}, GRPCBinding: grpcbind.Binding{}})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var evs []map[string]any
			var accepted map[string]any
			for len(evs) < want {
				fr, err := conn.Recv(ctx)
				if err != nil {
					t.Fatalf("after %d events: %v", len(evs), err)
				}
				var m map[string]any
				if err := json.Unmarshal(fr.Data, &m); err != nil {
					t.Fatalf("not JSON: %s", fr.Data)
				}
				if m["type"] == protocol.TypeSubscriptionAccepted {
					accepted = m
					continue
				}
				evs = append(evs, m)
			}
			h, _ := accepted["honored_capabilities"].(map[string]any)
			if h["supports_confirmation_reply"] != false || h["max_events_per_second"] != 500.0 || h["event_filters"] == nil {
				t.Errorf("honored %v, want the real terms", h)
			}
			if who, _ := accepted["producer"].(map[string]any); who["agent_id"] != "bank-agent" || !strings.Contains(fmt.Sprint(accepted["negotiation_notes"]), "recorded session") {
				t.Errorf("accepted as %v (%v), want the recorded producer and a note that this is a replay", who, accepted["negotiation_notes"])
			}
			for _, e := range evs {
				if typ := e["type"]; typ == protocol.TypeAwaitingConfirmation || typ == protocol.TypeStateChanged {
					t.Errorf("sent a %s against the terms", typ)
				}
			}
			sub, _ := accepted["subscription_id"].(string)
			reply := `{"type":"clarification.reply","reply_token":"rpl_x","response":"a","subscription_id":"` + sub + `"}`
			if err := conn.Send(ctx, []byte(reply)); err != nil {
				t.Fatal(err)
			}
			select {
			case via := <-told:
				if via != tc.via {
					t.Errorf("the reply was reported as sent by %q, want %q", via, tc.via)
				}
			case <-ctx.Done():
				t.Fatal("the reply was not reported")
			}
		})
	}
}

// countType counts the events of type typ in clean.aaep.
func countType(t *testing.T, typ string) int {
	n := 0
	for _, rec := range cleanRecords(t) {
		if rec.Dir == capture.In && protocol.PeekType(rec.Msg) == typ {
			n++
		}
	}
	return n
}

// A recorded event cannot forge lines of the SSE stream it is served on:
// it is compacted to one line, and an event_id with a line break is not
// written as the id.
func TestReplayCannotForgeSSELines(t *testing.T) {
	msg := "{\"type\":\"aaep:agent.state.changed\",\n\"event_id\":\"evt_1\\nid: forged\",\r\n\"summary_normal\":\"a\\n\\ndata: {}\"}"
	r := Replay{Records: []capture.Record{{Dir: capture.In, Msg: []byte(msg)}}}
	p := New(Options{Replay: &r, Logf: t.Logf})
	hs := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); hs.Close() })
	for _, path := range []string{protocol.PathLegacyEvents, protocol.PathLegacyEvents + "?named=1"} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(string(body), "\n"), "\n")
		var data []string
		for _, l := range lines {
			if strings.HasPrefix(l, "data:") {
				data = append(data, l)
			}
			if strings.Contains(l, "forged") && !strings.HasPrefix(l, "data: {") {
				t.Errorf("%s: a forged line %q", path, l)
			}
		}
		if len(data) != 1 || strings.Contains(string(body), "\r") {
			t.Errorf("%s: the event is not one data line:\n%s", path, body)
		}
	}
}

// A stream's own playing of an endless loop never gets more than
// ownBacklog events ahead of its reader, and the reader misses none: the
// playing waits for it instead of dropping what it has not read.
func TestReplayOwnLogBackpressure(t *testing.T) {
	r, url, _ := serveCorpus(t, Replay{Loop: true, KeepTimestamps: true})
	// A bound, not a wait: the run takes 2 s on a quiet machine, 20 s at
	// load 24.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// At 1,000 events a second the reader is slower than the playing.
	req := `{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t",` +
		`"capabilities":{"supports_confirmation_reply":true,"max_events_per_second":1000}}`
	conn, err := transport.Dial(ctx, url, transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutSpec, SubscriptionRequest: []byte(req)}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	n := r.Len()
	evs, _ := receive(t, ctx, conn, 2*ownBacklog) // more than the backlog
	// Critical events are never held behind the rate limit, so they may
	// overtake others: each kind, apart, comes whole and in order.
	var want, got [2][]string
	for _, e := range evs {
		k := 0
		if readMeta([]byte(fmt.Sprintf(`{"type":%q}`, e["type"]))).rec.critical || e["urgency"] == "critical" {
			k = 1
		}
		id, _ := e["event_id"].(string)
		got[k] = append(got[k], id)
	}
	// The critical events may run far ahead of the others: play the
	// capture's rounds until each kind's expected list is as long as what
	// came.
	for i := 0; len(want[0]) < len(got[0]) || len(want[1]) < len(got[1]); i++ {
		id := r.meta[i%n].rec.id
		if round := i/n + 1; round > 1 {
			id = roundID(id, round)
		}
		k := 0
		if r.meta[i%n].rec.critical {
			k = 1
		}
		want[k] = append(want[k], id)
	}
	for k := range 2 {
		if !slices.Equal(got[k], want[k][:len(got[k])]) {
			t.Errorf("critical=%v: events skipped or out of order:\n got %q\nwant %q", k == 1, got[k], want[k][:len(got[k])])
		}
	}

	var lg eventLog
	lg.own = true
	for i := range ownBacklog {
		if _, full := lg.full(); full {
			t.Fatalf("full after %d events", i)
		}
		lg.add(record{id: fmt.Sprint(i)})
	}
	room, full := lg.full()
	if !full {
		t.Fatal("not full after ownBacklog unread events")
	}
	recs, next := lg.from(0)
	if len(recs) != ownBacklog || next != ownBacklog {
		t.Fatalf("read %d events up to %d", len(recs), next)
	}
	select {
	case <-room:
	default:
		t.Fatal("reading did not wake the waiting writer")
	}
	lg.add(record{id: "after"})
	if len(lg.recs) != 1 || lg.base != ownBacklog {
		t.Errorf("the own log kept %d events from %d; what was read must go", len(lg.recs), lg.base)
	}
}

// Each spec-layout subscription hears the capture once: once its stream
// has played it to the end, asking for the stream again is answered 204 No
// Content (do not reconnect); a new subscription hears it from the start.
func TestReplaySpecStreamOnce(t *testing.T) {
	_, url, _ := serveCorpus(t, Replay{})
	for range 2 { // a second subscription is a new subscriber
		code, h, body := post(t, url+protocol.PathSubscriptions, testRequest)
		if code != http.StatusCreated {
			t.Fatalf("subscribe: %d %s", code, body)
		}
		if evs := open(t, url+h.Get("Location"), "").all(t); len(evs) != 18 {
			t.Errorf("%d events, want 18", len(evs))
		}
		resp, err := http.Get(url + h.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("the stream asked for again after its end: %s, want 204", resp.Status)
		}
	}
}

// OnDone means a stream has sent the whole capture, not that its playing
// has queued it: a server that shuts down from OnDone (aaep-replay serve
// --once) still delivers every event, on every binding.
func TestReplayOnDoneAfterSent(t *testing.T) {
	t.Parallel()
	for _, binding := range []string{"sse", "websocket"} {
		for run := range 40 {
			var p *Producer
			r := Replay{Records: cleanRecords(t)}
			r.OnDone = func() { p.Close() }
			p = New(Options{Replay: &r, Logf: t.Logf})
			hs := httptest.NewServer(p)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			endpoint, opts := hs.URL, transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutLegacy}}
			if binding == "websocket" {
				endpoint = "ws" + strings.TrimPrefix(hs.URL, "http") + protocol.PathWebSocket
				opts.SSE = transport.SSEOptions{SubscriptionRequest: []byte(testRequest)}
			}
			conn, err := transport.Dial(ctx, endpoint, opts)
			if err != nil {
				t.Fatal(err)
			}
			evs, _ := receive(t, ctx, conn, 0)
			conn.Close()
			cancel()
			hs.Close()
			if len(evs) != 18 {
				t.Fatalf("%s, run %d: the stream held %d events, want 18", binding, run, len(evs))
			}
		}
	}
}
