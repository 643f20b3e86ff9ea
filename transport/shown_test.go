package transport

import "testing"

// An endpoint's environment values are not said; its names, options and
// command are.
func TestShownHidesEnvValues(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"acp:env -i HOME=/tmp/h ANTHROPIC_API_KEY=sk-ant-123 claude-agent-acp", "acp:env -i HOME=… ANTHROPIC_API_KEY=… claude-agent-acp"},
		{"exec:/usr/bin/env -u PATH KEY=s3cret ./agent --aaep-stdio", "exec:/usr/bin/env -u PATH KEY=… ./agent --aaep-stdio"},
		{"acp:env KEY='a b' agent X=1", "acp:env KEY=… agent X=1"}, // the agent's own arguments stay
		{"acp:gemini --acp", "acp:gemini --acp"},
		{"exec:./agent KEY=1", "exec:./agent KEY=1"}, // no env: the agent's arguments
		{"http://localhost:8080/?token=x", "http://localhost:8080/?token=x"},
		{"acp:env", "acp:env"},
		{"acp:'unclosed", "acp:'unclosed"},
	} {
		if got := Shown(tt.in); got != tt.want {
			t.Errorf("Shown(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
