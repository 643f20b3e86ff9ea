package transport

import "testing"

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
		if got := Words(tt.endpoint); got != tt.want {
			t.Errorf("Words(%q) = %q, want %q", tt.endpoint, got, tt.want)
		}
	}
}
