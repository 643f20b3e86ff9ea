package transport

import (
	"flag"
	"io"
	"testing"
)

// TestBindingOf holds the one classification of endpoints: schemes in any
// case, drive letters and paths as files, and Dial agreeing with it.
func TestBindingOf(t *testing.T) {
	tests := []struct {
		endpoint string
		want     Binding
	}{
		{"http://localhost:8080", BindingSSE},
		{"HTTPS://example.org/aaep", BindingSSE},
		{"ws://h/aaep/v1/ws", BindingWebSocket},
		{"WSS://h", BindingWebSocket},
		{"grpc://127.0.0.1:50051", BindingGRPC},
		{"GRPCS://h:1", BindingGRPC},
		{"unix:/run/aaep.sock", BindingUnix},
		{"unix:planner", BindingUnix},
		{"exec:producer --demo", BindingStdio},
		{"stdio:producer", BindingStdio},
		{"acp:gemini --acp", BindingACP},
		{"ACP:copilot --acp --stdio", BindingACP},
		{"file:session.aaep", BindingFile},
		{"file:///tmp/s.jsonl", BindingFile},
		{"-", BindingFile},
		{"session.aaep", BindingFile},
		{`C:\captures\s.aaep`, BindingFile},
		{"odd:name.jsonl", BindingFile},
		{"", BindingFile},
	}
	for _, tt := range tests {
		got := BindingOf(tt.endpoint)
		if got != tt.want {
			t.Errorf("BindingOf(%q) = %q, want %q", tt.endpoint, got, tt.want)
		}
		if got.Answers() == (tt.want == BindingFile) {
			t.Errorf("BindingOf(%q).Answers() = %v", tt.endpoint, got.Answers())
		}
	}
}

func TestParseLayout(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Layout
		bad  bool
	}{
		{"auto", LayoutAuto, false}, {"", LayoutAuto, false}, {"spec", LayoutSpec, false},
		{"legacy", LayoutLegacy, false}, {"Spec", LayoutAuto, true}, {"b", LayoutAuto, true},
	} {
		got, err := ParseLayout(tt.in)
		if got != tt.want || (err != nil) != tt.bad {
			t.Errorf("ParseLayout(%q) = %v, %v; want %v, bad=%v", tt.in, got, err, tt.want, tt.bad)
		}
		// The same through flag.Value, and String reads back.
		var l Layout
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(&l, "layout", "")
		err = fs.Parse([]string{"--layout", tt.in})
		if (err != nil) != tt.bad || l != tt.want {
			t.Errorf("--layout %q: %v, %v", tt.in, l, err)
		}
		if !tt.bad && tt.in != "" && l.String() != tt.in {
			t.Errorf("Layout %v String %q, want %q", l, l.String(), tt.in)
		}
	}
}
