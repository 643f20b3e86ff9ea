package subscriber

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// FuzzWithoutClash: whatever a producer's message says and whatever the
// request holds, the fixed request is JSON and no longer offers the
// prefixes it names.
func FuzzWithoutClash(f *testing.F) {
	f.Add([]byte(`{"type":"subscription.request","capabilities":{"sigrpl":{"required":false}},"extensions":{"sigrpl":{"alg":"ES256"}}}`), "prefix sigrpl is taken")
	f.Add([]byte(`{"extensions":{"a":{},"b":{}}}`), "a PREFIX clash")
	f.Add([]byte(`{"extensions":[]}`), "prefix")
	f.Fuzz(func(t *testing.T, raw []byte, message string) {
		var req protocol.SubscriptionRequest
		if json.Unmarshal(raw, &req) != nil {
			return
		}
		fixed, prefix, ok := withoutClash(req, message)
		if !ok {
			return
		}
		b, err := json.Marshal(fixed)
		if err != nil {
			t.Fatalf("fixed request does not marshal: %v", err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("fixed request is not a JSON object: %v: %s", err, b)
		}
		var ext, caps map[string]json.RawMessage
		_ = json.Unmarshal(m["extensions"], &ext)
		_ = json.Unmarshal(m["capabilities"], &caps)
		for _, p := range strings.Split(prefix, ", ") {
			if _, ok := ext[p]; ok {
				t.Fatalf("extension %q still offered: %s", p, b)
			}
			if _, ok := caps[p]; ok && p != "" {
				t.Fatalf("capability %q still asked for: %s", p, b)
			}
		}
	})
}
