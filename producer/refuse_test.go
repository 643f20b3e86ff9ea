package producer

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// Every reason code, and one no spec knows, can be made to come back, with
// retry_after_seconds when asked for and a 4xx status the subscriber reads
// as a rejection; after Times refusals the producer accepts again.
func TestRefuseEveryReason(t *testing.T) {
	req := map[string]any{"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "t", "capabilities": map[string]any{}}
	for _, code := range append(ReasonCodes, "too_sunny_today") {
		t.Run(code, func(t *testing.T) {
			p := New(Options{Refuse: &Refusal{Code: code, RetryAfter: 7, Times: 1}})
			srv := httptest.NewServer(p)
			defer func() { p.Close(); srv.Close() }()
			status, _, body := post(t, srv.URL+protocol.PathSubscriptions, req)
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			if status/100 != 4 || m["type"] != "subscription.rejected" || m["reason_code"] != code ||
				m["retry_after_seconds"] != 7.0 || m["reason_message"] == "" {
				t.Errorf("status %d, answer %s", status, body)
			}
			if status, _, body := post(t, srv.URL+protocol.PathSubscriptions, req); status != http.StatusCreated {
				t.Errorf("after the one refusal asked for: status %d, %s", status, body)
			}
		})
	}
	p := New(Options{Refuse: &Refusal{Code: "rate_limit", RetryAfter: -1}})
	srv := httptest.NewServer(p)
	defer func() { p.Close(); srv.Close() }()
	for range 2 {
		if _, _, body := post(t, srv.URL+protocol.PathSubscriptions, req); json.Valid(body) && string(body) != "" {
			var m map[string]any
			_ = json.Unmarshal(body, &m)
			if _, ok := m["retry_after_seconds"]; ok || m["reason_code"] != "rate_limit" {
				t.Errorf("Times 0, RetryAfter -1: %s", body)
			}
		}
	}
}
