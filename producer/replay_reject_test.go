package producer

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/gorilla/websocket"
)

// refusedRequests are subscription requests that a replayed capture cannot
// honour, with the reason code of spec §5.5.3 each must be rejected with.
var refusedRequests = []struct {
	name, body, code string
}{
	{"aaep_version 99", `{"type":"subscription.request","aaep_version":"99.0.0","subscriber_id":"t"}`, "version_unsupported"},
	{"aaep_version 2", `{"type":"subscription.request","aaep_version":"2.1.0","subscriber_id":"t"}`, "version_unsupported"},
	{"aaep_version not a version", `{"type":"subscription.request","aaep_version":"99","subscriber_id":"t"}`, "version_unsupported"},
	{"no aaep_version", `{"type":"subscription.request","subscriber_id":"t"}`, "version_unsupported"},
	{"signed manifests only", `{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t",
		"capabilities":{"accept_signed_manifests_only":true}}`, "manifest_signature_required"},
	{"capabilities not an object", `{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t","capabilities":[]}`, "capabilities_incompatible"},
	{"rate out of range", `{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t",
		"capabilities":{"max_events_per_second":0}}`, "capabilities_incompatible"},
	{"unknown verbosity", `{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t",
		"capabilities":{"preferred_verbosity":"loud"}}`, "capabilities_incompatible"},
	{"conformance level 7", `{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t",
		"capabilities":{"supported_conformance_levels":[7]}}`, "capabilities_incompatible"},
	{"malformed event filter", `{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t",
		"capabilities":{"event_filters":{"include":["a*b*"]}}}`, "capabilities_incompatible"},
	{"no subscriber_id", `{"type":"subscription.request","aaep_version":"1.0.0"}`, "unknown"},
}

// rejectedCode checks a subscription.rejected message and returns its
// reason code.
func rejectedCode(t *testing.T, b []byte) string {
	t.Helper()
	var m struct {
		Type    string `json:"type"`
		Code    string `json:"reason_code"`
		Message string `json:"reason_message"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Type != "subscription.rejected" || m.Message == "" {
		t.Errorf("answer %q is not a subscription.rejected with a reason_message", b)
	}
	return m.Code
}

// TestReplayRejects: aaep-replay serve rejects, over HTTP and WebSocket,
// what it cannot honour with the reason code the built-in producer gives
// for the same request, and accepts nothing it then would not serve.
func TestReplayRejects(t *testing.T) {
	_, replayURL, _ := serveCorpus(t, Replay{})
	p := New(Options{Logf: t.Logf})
	live := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); live.Close() })

	post := func(url, body string) (int, []byte) {
		t.Helper()
		resp, err := http.Post(url+"/aaep/v1/subscriptions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, c := range refusedRequests {
		t.Run(c.name, func(t *testing.T) {
			status, b := post(replayURL, c.body)
			if got := rejectedCode(t, b); status/100 != 4 || got != c.code {
				t.Errorf("HTTP: %d %s, want 4xx with reason_code %q", status, b, c.code)
			}
			liveStatus, lb := post(live.URL, c.body)
			if got := rejectedCode(t, lb); liveStatus != status || got != c.code {
				t.Errorf("the built-in producer answers %d %s, aaep-replay serve %d %s", liveStatus, lb, status, b)
			}

			ws := "ws" + strings.TrimPrefix(replayURL, "http") + protocol.PathWebSocket
			conn, _, err := websocket.DefaultDialer.Dial(ws, http.Header{"Sec-WebSocket-Protocol": {protocol.Subprotocol}})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			if err := conn.WriteMessage(websocket.TextMessage, []byte(c.body)); err != nil {
				t.Fatal(err)
			}
			_, msg, err := conn.ReadMessage()
			if err != nil {
				t.Fatalf("WebSocket: no answer: %v", err)
			}
			if got := rejectedCode(t, msg); got != c.code {
				t.Errorf("WebSocket: %s, want reason_code %q", msg, c.code)
			}
			_, _, err = conn.ReadMessage()
			var ce *websocket.CloseError
			if !asClose(err, &ce) || ce.Code != 4001 {
				t.Errorf("WebSocket: after the rejection %v, want close 4001", err)
			}
		})
	}
	// A request it can honour is still accepted.
	if status, b := post(replayURL, `{"type":"subscription.request","aaep_version":"1.2.0","subscriber_id":"t",
		"capabilities":{"accept_signed_manifests_only":false}}`); status != http.StatusCreated || !bytes.Contains(b, []byte("subscription.accepted")) {
		t.Errorf("a 1.x request: %d %s", status, b)
	}
}

func asClose(err error, ce **websocket.CloseError) bool {
	c, ok := err.(*websocket.CloseError)
	*ce = c
	return ok
}
