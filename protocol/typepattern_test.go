package protocol

import "testing"

func TestExpandType(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		known    bool
	}{
		{"tool.*", "aaep:agent.tool.*", true},
		{"agent.tool.*", "aaep:agent.tool.*", true},
		{"aaep:agent.tool.*", "aaep:agent.tool.*", true},
		{" progress.updated ", "aaep:agent.progress.updated", true},
		{"awaiting.confirmation", "aaep:agent.awaiting.confirmation", true},
		{"*", "*", true},
		{"*.completed", "*.completed", true},
		{"x-acme:build.done", "x-acme:build.done", true},
		{"tool.invokd", "aaep:agent.tool.invokd", false},
		{"progres*", "aaep:agent.progres*", true},
		{"progres", "aaep:agent.progres", false},
		{"aaep:agent.nothing.*", "aaep:agent.nothing.*", false},
	} {
		got := ExpandType(tc.in)
		if got != tc.want {
			t.Errorf("ExpandType(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if k := MatchesCoreType(got); k != tc.known {
			t.Errorf("MatchesCoreType(%q) = %v, want %v", got, k, tc.known)
		}
	}
}
