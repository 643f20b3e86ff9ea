package record

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/agentspec"
)

// The start line says only what is known before connecting: a producer
// without a handshake cannot be told that nobody answers, so it never
// claims the producer applies each prompt's default at once (the
// reference producers waited out their timeouts).
func TestStartMessageClaimsOnlyWhatIsKnown(t *testing.T) {
	t.Parallel()
	msg := startMessage(&Options{Agents: []agentspec.Spec{{Endpoint: "http://127.0.0.1:8080"}}, Output: "run.aaep"})
	if strings.Contains(msg, "at once") || !strings.Contains(msg, "a producer that takes a subscription is told so") {
		t.Errorf("start line: %s", msg)
	}
}
