package transport

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/aaep-term/aaep-term/internal/hostile"
)

// An HTTP refusal carries the producer's reason phrase and JSON body as
// untrusted text: its message is one sanitized line whatever they hold.
func TestHTTPErrorIsOneSanitizedLine(t *testing.T) {
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/messages", nil)
	for _, c := range hostile.Cases {
		body := []byte(`{"error":{"code":` + quote(c.S) + `,"message":` + quote(c.S) + `}}`)
		err := httpError(req, "400 "+c.S, 400, body)
		if p := hostile.Problems(err.Error() + "\n"); len(p) > 0 {
			t.Errorf("%s: %v: %q", c.Name, p, err.Error())
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
