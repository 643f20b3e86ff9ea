package main

import (
	"reflect"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/tui"
)

func TestTransportWords(t *testing.T) {
	for _, tt := range []struct{ endpoint, want string }{
		{"http://127.0.0.1:8080", "SSE"},
		{"HTTPS://example.org/aaep", "SSE"},
		{"ws://127.0.0.1:9/aaep", "WebSocket"},
		{"wss://example.org", "WebSocket"},
		{"unix:/run/agent.sock", "Unix socket"},
		{"grpcs://example.org:443", "gRPC"},
		{"exec:my-agent --aaep", "standard input and output of"},
		{"file:///tmp/run.aaep", "file"},
		{"-", "standard input"},
		{"capture.aaep", "file"},
		{`C:\runs\capture.aaep`, "file"},
		// Dial reads any other form as a file (CheckEndpoint refuses it
		// first when there is no such file): one classification, BindingOf.
		{"odd:name.jsonl", "file"},
		{"gopher://old", "file"},
	} {
		if got := transportWords(tt.endpoint); got != tt.want {
			t.Errorf("transportWords(%q) = %q, want %q", tt.endpoint, got, tt.want)
		}
	}
}

// The TUI shows what the producer honours, sanitized.
func TestTermsOf(t *testing.T) {
	got := termsOf(protocol.Capabilities{
		MaxEventsPerSecond: 20, PreferredVerbosity: "terse\x1b[2J", Languages: []string{"yo", "en"},
		EventFilters: &protocol.EventFilters{Include: []string{"aaep:agent.tool.*"}, Exclude: []string{"\x1b]0;x\x07"}},
	})
	want := tui.Terms{Rate: 20, Verbosity: "terse", Languages: []string{"yo", "en"}, Include: []string{"aaep:agent.tool.*"}, Exclude: []string{}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got := termsOf(protocol.Capabilities{}); got.Rate != 0 || got.Include != nil || len(got.Languages) != 0 {
		t.Errorf("empty capabilities: %+v", got)
	}
}
