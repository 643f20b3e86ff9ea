package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docPolicy is the example policy file of docs/policy.md, the first JSON
// block under "The policy file", written to a file.
func docPolicy(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "## The policy file")
	if !ok {
		t.Fatal("docs/policy.md has no section The policy file")
	}
	_, rest, ok = strings.Cut(rest, "```json\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/policy.md has no JSON example under The policy file")
	}
	path := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(path, []byte(example), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The policy example in docs/policy.md can be tried on the demo, as the
// page says: it decides the demo's payment, in both layouts, and the line
// the page quotes is the one printed.
func TestPolicyExampleDecidesTheDemo(t *testing.T) {
	t.Parallel()
	policy := docPolicy(t)
	for _, tc := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"spec layout", nil, "Your policy rule final-and-high rejects prompt 1."},
		{"deployed layout", []string{"--demo-quirks"}, "Your policy rule never-pay rejects prompt 1."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--plain", "--no-sign", "--demo", "--demo-speed", "0", "--demo-scenarios", "confirm", "--policy", policy}, tc.extra...)
			r := startListener(t, args...)
			r.stdin.Close()
			if err := <-r.done; err != nil {
				t.Fatalf("listener: %v\n%s\n%s", err, r.stdout(), r.stderr())
			}
			if !strings.Contains(r.stdout(), tc.want) {
				t.Errorf("the doc's policy did not decide the demo's prompt (want %q):\n%s\n%s", tc.want, r.stdout(), r.stderr())
			}
		})
	}
}
