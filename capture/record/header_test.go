package record

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/agentspec"
)

// An endpoint's environment values (exec:env KEY=VALUE …, an API key
// given to an agent) are not written in the capture's header, which is
// passed around as secrets in its messages are not, nor said in the start
// line; --no-redact keeps them in the header.
func TestHeaderHidesEnvValues(t *testing.T) {
	const secret = "hunter2-secret"
	one := []agentspec.Spec{{Endpoint: "exec:env API_KEY=" + secret + " ./producer --stdio"}}
	two := append([]agentspec.Spec{{Label: "gem", Endpoint: "acp:env GEMINI_API_KEY=" + secret + " gemini --acp"}}, one...)
	for _, tc := range []struct {
		name  string
		specs []agentspec.Spec
	}{{"one agent", one}, {"two agents", two}} {
		t.Run(tc.name, func(t *testing.T) {
			o := &Options{Agents: tc.specs}
			written := headerEndpoints(header(o, newAgents(o.Agents)))
			if strings.Contains(written, secret) || !strings.Contains(written, "API_KEY=") {
				t.Errorf("header endpoints %q: the value is written, or the name is not", written)
			}
			if msg := startMessage(o); strings.Contains(msg, secret) {
				t.Errorf("the start line says the value: %s", msg)
			}
			o.NoRedact = true
			if written := headerEndpoints(header(o, newAgents(o.Agents))); strings.Count(written, secret) != len(tc.specs) {
				t.Errorf("--no-redact: the header does not keep the endpoints as given: %q", written)
			}
		})
	}
}

// headerEndpoints is every endpoint h names, joined by spaces.
func headerEndpoints(h capture.Header) string {
	s := h.Endpoint
	for _, c := range h.Connections {
		s += " " + c.Endpoint
	}
	return s
}
