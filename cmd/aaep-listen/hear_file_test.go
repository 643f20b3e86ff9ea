package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// recordedCorpus writes the clean capture corpus as plain event JSON lines,
// every event naming manifestURI as its producer's manifest_uri.
func recordedCorpus(t *testing.T, manifestURI string) string {
	t.Helper()
	raw, err := os.ReadFile("../../capture/testdata/corpus/clean.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		if manifestURI != "" {
			ev["producer"].(map[string]any)["manifest_uri"] = manifestURI
		}
		b, _ := json.Marshal(ev)
		out = append(out, string(b))
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Reading a file (by path, file:PATH, or - on standard input) makes no
// network request: the manifest_uri the recording names is not fetched
// (and, nothing being amiss, not said at the quiet start). The end of the input is told after the last event, and the
// whole line output is in the order of the file.
func TestReadingAFileAsksNoNetwork(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	uri := srv.URL + "/manifest.json"
	path := recordedCorpus(t, uri)
	colon := filepath.Join(filepath.Dir(path), "run:1.jsonl")
	if err := os.Link(path, colon); err != nil {
		t.Fatal(err)
	}
	stamp := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d `)
	for _, tc := range []struct{ name, endpoint, shown string }{
		{"path", path, path},
		{"file URL", "file:" + path, "file:" + path},
		{"path with a colon", colon, colon},
		{"standard input", "-", "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startListener(t, "--plain", "--no-sign", tc.endpoint)
			if tc.endpoint == "-" {
				b, _ := os.ReadFile(path)
				r.stdin.Write(b)
			}
			r.stdin.Close()
			r.wait(t)
			got := stamp.ReplaceAllString(r.stdout(), "")
			want := "Reading " + tc.shown + ".\n" +
				`Bank Helper: Bank Helper is starting.
Bank Helper: Now thinking.
Bank Helper: Calling fetch_balance.
Bank Helper: Finished fetch balance.
Bank Helper: Now awaiting_input.
Bank Helper: An earlier prompt is already settled and cannot be answered: Transfer $500 to savings.
Bank Helper: Now calling_tool.
Bank Helper: Calling transfer_funds. High risk, cannot be undone. Started after a confirmation that was settled before you could answer it.
Bank Helper: Finished transfer funds.
Bank Helper: Now writing_output.
Bank Helper: Transferred $500.
Bank Helper: New balance: $12,000.
Bank Helper: Finished: Done.
Bank Helper: Bank Helper is starting.
Bank Helper: Now awaiting_input.
Bank Helper: An earlier prompt is already settled and cannot be answered: Transfer $500 to savings.
Bank Helper: Now thinking.
Bank Helper: Finished: Done.
End of the input.
`
			if got != want {
				t.Errorf("line output:\n%s\nwant:\n%s\nstderr:\n%s", got, want, r.stderr())
			}
			if n := requests.Load(); n != 0 {
				t.Errorf("reading a file made %d network requests", n)
			}
		})
	}
}
