package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/spectest"
	"github.com/aaep-term/aaep-term/protocol"
)

// evOpt changes a test event.
type evOpt func(*protocol.Event)

func tool(name, id string) evOpt {
	return func(e *protocol.Event) { e.Tool, e.ToolCallID = name, id }
}

func output(id string, complete bool) evOpt {
	return func(e *protocol.Event) { e.OutputID, e.Complete = id, complete }
}

func urgency(u protocol.Urgency) evOpt {
	return func(e *protocol.Event) { e.Urgency = u }
}

func with(e *protocol.Event, opts ...evOpt) *protocol.Event {
	for _, o := range opts {
		o(e)
	}
	return e
}

// spec describes one event of a test session: its type and options.
type spec struct {
	typ  string
	opts []evOpt
}

func TestLifecycle(t *testing.T) {
	tests := []struct {
		name   string
		first  int64 // sequence number of the first event; -1: no numbers
		events []spec
		want   []string // diagnostic messages of code lifecycle or urgency, in order
	}{
		{
			name:  "clean session",
			first: 0,
			events: []spec{{typ: "session.started"}, {typ: "tool.invoked", opts: []evOpt{tool("fetch", "call_1")}},
				{typ: "tool.completed", opts: []evOpt{tool("fetch", "call_1")}},
				{typ: "output.streaming", opts: []evOpt{output("out_1", false)}},
				{typ: "output.streaming", opts: []evOpt{output("out_1", true)}},
				{typ: "session.completed"}},
		},
		{
			name:   "first event is not session.started",
			first:  0,
			events: []spec{{typ: "progress.updated"}, {typ: "session.completed"}},
			want:   []string{"Session s began with progress.updated instead of session.started."},
		},
		{
			name:   "first event is not session.started, without sequence numbers",
			first:  -1,
			events: []spec{{typ: "state.changed"}},
			want:   []string{"Session s began with state.changed instead of session.started."},
		},
		{
			name:   "joined mid-session: no complaint about the start or earlier tools",
			first:  7,
			events: []spec{{typ: "tool.completed", opts: []evOpt{tool("fetch", "call_1")}}, {typ: "session.completed"}},
		},
		{
			name:   "started twice",
			first:  0,
			events: []spec{{typ: "session.started"}, {typ: "session.started"}},
			want:   []string{"Session s started a second time."},
		},
		{
			name:   "event after the end",
			first:  0,
			events: []spec{{typ: "session.started"}, {typ: "session.completed"}, {typ: "progress.updated"}},
			want:   []string{"Session s already ended; progress.updated came after its end."},
		},
		{
			name:   "second terminal event",
			first:  -1,
			events: []spec{{typ: "session.started"}, {typ: "session.completed"}, {typ: "session.cancelled"}},
			want:   []string{"Session s already ended; session.cancelled came after its end."},
		},
		{
			name:   "tool completed without invocation, by call ID",
			first:  0,
			events: []spec{{typ: "session.started"}, {typ: "tool.completed", opts: []evOpt{tool("fetch", "call_9")}}},
			want:   []string{"Session s: tool call call_9 completed without an earlier tool.invoked."},
		},
		{
			name:  "tool completed without invocation, by name",
			first: 0,
			events: []spec{{typ: "session.started"}, {typ: "tool.invoked", opts: []evOpt{tool("search", "")}},
				{typ: "tool.completed", opts: []evOpt{tool("fetch", "")}}},
			want: []string{"Session s: tool fetch completed without an earlier tool.invoked."},
		},
		{
			name:  "tools paired by name when there are no call IDs",
			first: 0,
			events: []spec{{typ: "session.started"}, {typ: "tool.invoked", opts: []evOpt{tool("fetch", "")}},
				{typ: "tool.invoked", opts: []evOpt{tool("fetch", "")}},
				{typ: "tool.completed", opts: []evOpt{tool("fetch", "")}},
				{typ: "tool.completed", opts: []evOpt{tool("fetch", "")}},
				{typ: "session.completed"}},
		},
		{
			name:  "a call ID completes once",
			first: 0,
			events: []spec{{typ: "session.started"}, {typ: "tool.invoked", opts: []evOpt{tool("fetch", "call_1")}},
				{typ: "tool.completed", opts: []evOpt{tool("fetch", "call_1")}},
				{typ: "tool.completed", opts: []evOpt{tool("fetch", "call_1")}}},
			want: []string{"Session s: tool call call_1 completed without an earlier tool.invoked."},
		},
		{
			name:  "tools still running at the end",
			first: 0,
			events: []spec{{typ: "session.started"}, {typ: "tool.invoked", opts: []evOpt{tool("fetch", "call_1")}},
				{typ: "tool.invoked", opts: []evOpt{tool("send", "call_2")}},
				{typ: "session.cancelled"}},
			want: []string{"Session s ended with 2 tool calls still running: no tool.completed arrived for them."},
		},
		{
			name:  "output completed twice",
			first: 0,
			events: []spec{{typ: "session.started"}, {typ: "output.streaming", opts: []evOpt{output("out_1", true)}},
				{typ: "output.streaming", opts: []evOpt{output("out_1", true)}}},
			want: []string{"Session s: output out_1 was completed a second time."},
		},
		{
			name:  "chunk after the final chunk",
			first: 0,
			events: []spec{{typ: "session.started"}, {typ: "output.streaming", opts: []evOpt{output("out_1", true)}},
				{typ: "output.streaming", opts: []evOpt{output("out_1", false)}}},
			want: []string{"Session s: output out_1 got another chunk after its final one."},
		},
		{
			name:  "outputs are told apart by output_id",
			first: 0,
			events: []spec{{typ: "session.started"}, {typ: "output.streaming", opts: []evOpt{output("out_1", true)}},
				{typ: "output.streaming", opts: []evOpt{output("out_2", true)}}},
		},
		{
			name:  "session-wide output completed twice",
			first: 0,
			events: []spec{{typ: "session.started"}, {typ: "output.streaming", opts: []evOpt{output("", true)}},
				{typ: "output.streaming", opts: []evOpt{output("", true)}}},
			want: []string{"Session s: the output was completed a second time."},
		},
		{
			name:   "errored without critical urgency",
			first:  0,
			events: []spec{{typ: "session.started"}, {typ: "session.errored", opts: []evOpt{urgency(protocol.UrgencyNormal)}}},
			want:   []string{"Session s: session.errored must have urgency critical; it was treated as critical anyway."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(Config{})
			for i, sp := range tt.events {
				seq := int64(-1)
				if tt.first >= 0 {
					seq = tt.first + int64(i)
				}
				x := with(ev("s", seq, sp.typ), sp.opts...)
				if seq < 0 {
					x.EventID = "s/" + string(rune('a'+i))
				}
				e.Handle(x, t0)
			}
			e.Flush(t0)
			var got []string
			for _, x := range r.log {
				if x.diag != nil && (x.diag.Code == "lifecycle" || x.diag.Code == "urgency") {
					got = append(got, x.diag.Message)
				}
			}
			if !equal(got, tt.want) {
				t.Fatalf("got\n\t%s\nwant\n\t%s\nlog:%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"), r.dump())
			}
			if n := len(r.events()); n != len(tt.events) {
				t.Fatalf("delivered %d events, want all %d", n, len(tt.events))
			}
		})
	}
}

// fixture reads an official conformance fixture into an Event, with the
// fields the lifecycle checks use.
func fixture(t *testing.T, name string) *protocol.Event {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(spectest.Dir(t), "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Type      string `json:"type"`
		EventID   string `json:"event_id"`
		SessionID string `json:"session_id"`
		Producer  struct {
			AgentID string `json:"agent_id"`
		} `json:"producer"`
		Urgency  protocol.Urgency `json:"urgency"`
		OutputID string           `json:"output_id"`
		Complete bool             `json:"complete"`
		Position int64            `json:"position"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return &protocol.Event{Raw: b, Type: f.Type, EventID: f.EventID, SessionID: f.SessionID,
		Producer: protocol.Producer{AgentID: f.Producer.AgentID}, Urgency: f.Urgency,
		OutputID: f.OutputID, Complete: f.Complete, Position: f.Position}
}

func TestDuplicateCompletionFixture(t *testing.T) {
	second := fixture(t, "invalid/duplicate-completion-streaming.json")
	first := *second
	first.EventID = "evt_firstcomp0001"
	first.Position = 0
	started := &protocol.Event{Type: protocol.TypeSessionStarted, EventID: "evt_start", SessionID: second.SessionID,
		Producer: second.Producer}

	e, r := newTest(Config{})
	e.Handle(started, t0)
	e.Handle(&first, t0)
	if d := r.diags("lifecycle"); len(d) != 0 {
		t.Fatalf("the first completion is fine: %s", r.dump())
	}
	e.Handle(second, t0)
	d := r.diags("lifecycle")
	if len(d) != 1 || d[0].EventID != second.EventID || !strings.Contains(d[0].Message, "out_alreadydone was completed a second time") {
		t.Fatalf("second completion: %s", r.dump())
	}
	if n := len(r.events()); n != 3 {
		t.Fatalf("delivered %d events, want 3: a violation is still announced", n)
	}
}

func TestErroredWithoutCriticalFixture(t *testing.T) {
	bad := fixture(t, "invalid/no-critical-urgency-on-errored.json")
	e, r := newTest(Config{})
	e.Handle(bad, t0)
	if d := r.diags("urgency"); len(d) != 1 || d[0].SessionID != bad.SessionID {
		t.Fatalf("diagnostics: %s", r.dump())
	}
	if n := len(r.events()); n != 1 {
		t.Fatalf("delivered %d events, want 1", n)
	}
}

func TestTooManyToolsInFlight(t *testing.T) {
	e, r := newTest(Config{})
	e.Handle(ev("s", 0, "session.started"), t0)
	for i := range maxTools + 3 {
		e.Handle(with(ev("s", int64(1+i), "tool.invoked"), tool("fetch", "call_"+string(rune('a'+i)))), t0)
	}
	if n := len(e.lookup(sessionKey{"agent", "s"}).tools); n != maxTools {
		t.Fatalf("%d tool calls remembered, want the bound %d", n, maxTools)
	}
	// The forgotten oldest call completes: not reported, it was invoked.
	e.Handle(with(ev("s", maxTools+4, "tool.completed"), tool("fetch", "call_a")), t0)
	e.Flush(t0)
	for _, d := range r.diags("lifecycle") {
		if strings.Contains(d.Message, "without an earlier") {
			t.Fatalf("false report: %s", d.Message)
		}
	}
}
