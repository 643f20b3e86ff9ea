package main

import "testing"

func TestTransportWords(t *testing.T) {
	for _, tt := range []struct{ endpoint, want string }{
		{"http://127.0.0.1:8080", "SSE"},
		{"HTTPS://example.org/aaep", "SSE"},
		{"ws://127.0.0.1:9/aaep", "WebSocket"},
		{"wss://example.org", "WebSocket"},
		{"unix:/run/agent.sock", "Unix socket"},
		{"exec:my-agent --aaep", "standard input and output of"},
		{"file:///tmp/run.aaep", "file"},
		{"-", "standard input"},
		{"capture.aaep", "file"},
		{`C:\runs\capture.aaep`, "file"},
		{"gopher://old", ""},
	} {
		if got := transportWords(tt.endpoint); got != tt.want {
			t.Errorf("transportWords(%q) = %q, want %q", tt.endpoint, got, tt.want)
		}
	}
}
