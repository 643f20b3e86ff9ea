package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/ttytest"
)

// serve → aaep-listen, end to end over WebSocket and both HTTP layouts: the
// real listener, with --auto-reply reject, hears the served capture and its
// rejections of both prompts reach the replaying producer.
func TestServeToListener(t *testing.T) {
	listen := ttytest.Build(t, "../aaep-listen", "aaep-listen")
	f, err := os.Open(corpus + "clean.aaep")
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := capture.ReadDocuments(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, scheme, path, replyPath string
		flags                         []string
	}{
		{"websocket", "ws", capture.PathWebSocket, capture.PathWebSocket, nil},
		{"sse-spec", "http", "", "/aaep/v1/replies", []string{"--layout", "spec"}},
		{"sse-legacy", "http", "", "/messages", []string{"--layout", "legacy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var replies []string
			srv := capture.NewServer(recs, capture.ServeOptions{Speed: 2, Linger: 3 * time.Second,
				OnReply: func(path string, body []byte) {
					mu.Lock()
					defer mu.Unlock()
					replies = append(replies, path+" "+string(body))
				}})
			hs := httptest.NewServer(srv)
			defer hs.Close()
			endpoint := tc.scheme + strings.TrimPrefix(hs.URL, "http") + tc.path
			home := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			args := append([]string{endpoint, "--auto-reply", "reject", "--no-sign", "--plain"}, tc.flags...)
			cmd := exec.CommandContext(ctx, listen, args...)
			cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "TERM=dumb")
			// Standard input stays open until the listener is done: no "end of input".
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			cmd.WaitDelay = 5 * time.Second
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if err := cmd.Run(); err != nil {
				t.Fatalf("aaep-listen: %v\n%s\n%s", err, out.String(), errOut.String())
			}
			mu.Lock()
			defer mu.Unlock()
			for _, tok := range []string{"rpl_clean01token", "rpl_clean02token"} {
				found := false
				for _, r := range replies {
					found = found || (strings.HasPrefix(r, tc.replyPath+" ") && strings.Contains(r, tok) && strings.Contains(r, `"decision":"reject"`))
				}
				if !found {
					t.Errorf("no rejection of %s reached %s; replies: %q\nlistener said:\n%s\n%s", tok, tc.replyPath, replies, out.String(), errOut.String())
				}
			}
			if !strings.Contains(out.String(), "Transfer $500 to savings") {
				t.Errorf("the listener did not announce the prompt:\n%s", out.String())
			}
		})
	}
}
