package transport

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckEndpoint names what is wrong with an endpoint before any connection,
// and Dial says the same.
func TestCheckEndpoint(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	colon := filepath.Join(dir, "a:b.jsonl")
	if err := os.WriteFile(colon, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nosuch.jsonl")
	tests := []struct {
		endpoint string
		want     string // "" for no error
	}{
		{"-", ""},
		{file, ""},
		{"file:" + file, ""},
		{"file://" + file, ""},
		{"file://localhost" + file, ""},
		{colon, ""},
		{"http://localhost:8080", ""},
		{"https://agent.example/aaep", ""},
		{"ws://localhost:8080", ""},
		{"grpc://127.0.0.1:1", ""},
		{"unix:/run/x.sock", ""},
		{"exec:./agent --stdio", ""},
		{"acp:gemini --acp", ""},
		{"", "empty"},
		{missing, "no such file"},
		{"nosuch.jsonl", "no such file"},
		{"file:" + missing, "no such file"},
		{"file:", "names no file"},
		{dir, "is a directory"},
		{"http://", "names no host"},
		{"https:///path", "names no host"},
		{"ws://", "names no host"},
		{"grpc://", "names no host"},
		{"unix:", "names no socket"},
		{"exec:", "names no command"},
		{"acp: ", "names no command"},
		{"htp://x", `unknown scheme "htp://"`},
		{"nosuch:thing", "no such file"},
	}
	for _, tt := range tests {
		err := CheckEndpoint(tt.endpoint)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckEndpoint(%q) = %v, want nil", tt.endpoint, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckEndpoint(%q) = %v, want it to say %q", tt.endpoint, err, tt.want)
		case tt.want != "":
			if _, derr := Dial(context.Background(), tt.endpoint, Options{}); derr == nil || derr.Error() != err.Error() {
				t.Errorf("Dial(%q) = %v, want %v", tt.endpoint, derr, err)
			}
		}
	}
}
