package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func agentsFile(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "policy.json"), []byte(`{"rules": [{"name": "never-pay", "tool": "transfer_*", "decision": "reject"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agents.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// --agents FILE: a list, or {"agents": [...]}; each entry's settings are
// its own, a relative policy path is the file's; errors name the entry and
// the key.
func TestAgentsFile(t *testing.T) {
	t.Parallel()
	good := `[{"endpoint": "http://127.0.0.1:1", "label": "mail", "verbosity": "terse", "rate": 5, "lang": ["yo", "en"],
	   "include": ["tool.*"], "policy": "policy.json", "mute": true, "token": "t1", "headers": {"X-Team": "a"}},
	  {"endpoint": "ws://127.0.0.1:2/aaep/v1/ws"}]`
	for _, body := range []string{good, `{"agents": ` + good + `}`} {
		o, err := parseFlags([]string{"--plain", "--verbosity", "detailed", "--agents", agentsFile(t, body)}, testIO(), noEnv)
		if err != nil {
			t.Fatal(err)
		}
		specs := o.agentSpecs()
		if len(specs) != 2 {
			t.Fatalf("%d agents", len(specs))
		}
		m, w := specs[0], specs[1]
		if m.Label != "mail" || m.Verbosity != "terse" || m.Terms.Rate != 5 || strings.Join(m.Terms.Languages, ",") != "yo,en" ||
			!m.Muted || m.Policy == nil || m.Token != "t1" || m.Header.Get("X-Team") != "a" || !m.Terms.CanConfirm {
			t.Errorf("mail: %+v", m)
		}
		if w.Label != "" || w.Terms.Verbosity != "detailed" || w.Policy != nil || !w.Terms.CanConfirm {
			t.Errorf("second agent: %+v", w)
		}
		if o.Endpoint != "http://127.0.0.1:1" {
			t.Errorf("endpoint %q", o.Endpoint)
		}
	}
	for _, tc := range []struct{ body, want string }{
		{`[{"endpoint": "http://h", "colour": "red"}]`, `entry 1: unknown key "colour"`},
		{`[{"endpoint": "http://h"}, {"endpoint": "http://i", "label": "web", "rate": "fast"}]`, `entry 2: rate must be a int`},
		{`[{"endpoint": "http://h", "label": "\u001b[31mred"}]`, `entry 1 (red): label "red" must be`},
		{`[{"endpoint": "http://h", "label": "a\u202eb"}]`, `must be 1 to 64 letters`},
		{`[{"label": "x"}]`, `entry 1 (x): no endpoint`},
		{`[{"endpoint": "http://h", "label": "x"}, {"endpoint": "http://i", "label": "X"}]`, `entry 2 (X): the label X is given twice`},
		{`[{"endpoint": "http://h", "label": "p", "policy": "missing.json"}]`, `entry 1 (p): policy:`},
		{`[{"endpoint": "http://h", "verbosity": "loud"}]`, `entry 1: verbosity:`},
		{`{"agent": []}`, `unknown key "agent"`},
		{`[]`, `not a list of agents`},
	} {
		_, err := parseFlags([]string{"--agents", agentsFile(t, tc.body)}, testIO(), noEnv)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.body, err, tc.want)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\x1b\u202e") {
			t.Errorf("%s: the error carries the escape: %q", tc.body, err)
		}
	}
}

// An entry may not take the label of an agent on the command line; the
// error names the entry, and "-" does not go with a file.
func TestAgentsFileAndCommandLine(t *testing.T) {
	t.Parallel()
	file := agentsFile(t, `[{"endpoint": "http://127.0.0.1:2", "label": "MAIL"}]`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--agents", file, "mail=http://127.0.0.1:1"}, `--agents ` + file + `: entry 1 (MAIL): the label MAIL is given twice`},
		{[]string{"--agents", file, "-"}, `- (events on standard input) cannot be listened to with other endpoints`},
		{[]string{"--agents", file + ".missing"}, `--agents ` + file + `.missing: no such file`},
	} {
		_, err := parseFlags(tc.args, testIO(), noEnv)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := parseFlags([]string{"--agents", file, "web=http://127.0.0.1:1"}, testIO(), noEnv); err != nil {
		t.Errorf("another label: %v", err)
	}
}
