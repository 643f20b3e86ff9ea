package agentsfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/agentspec"
)

// An agents file is a list, or {"agents": [...]}; each entry keeps its own
// settings, a relative policy path is the file's, and headers are checked.
func TestParseFile(t *testing.T) {
	good := `[{"endpoint": "http://127.0.0.1:1", "label": "mail", "verbosity": "terse", "rate": 5, "lang": ["yo", "en"],
	   "include": ["tool.*"], "exclude": ["session.*"], "policy": "policy.json", "mute": true, "token": "t1", "headers": {"X-Team": "a"}},
	  {"endpoint": "ws://127.0.0.1:2/aaep/v1/ws", "policy": "/etc/p.json"}]`
	for _, body := range []string{good, `{"agents": ` + good + `}`} {
		es, err := ParseFile([]byte(body), "/home/me")
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 2 {
			t.Fatalf("%d entries", len(es))
		}
		m, w := es[0], es[1]
		if m.Label != "mail" || m.Endpoint != "http://127.0.0.1:1" || m.Name != "entry 1 (mail)" || m.Verbosity != "terse" ||
			m.Rate != 5 || strings.Join(m.Lang, ",") != "yo,en" || strings.Join(m.Include, ",") != "tool.*" ||
			strings.Join(m.Exclude, ",") != "session.*" || !m.Mute || m.Token != "t1" || m.Header.Get("X-Team") != "a" ||
			m.Policy != filepath.Join("/home/me", "policy.json") {
			t.Errorf("mail: %+v", m)
		}
		if w.Label != "" || w.Name != "entry 2" || w.Header != nil || w.Include != nil || w.Rate != 0 || w.Policy != "/etc/p.json" {
			t.Errorf("second: %+v", w)
		}
	}
}

// Errors name the entry and the key, in one clean line: nothing of the
// file reaches them unsanitized.
func TestParseFileErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`[{"endpoint": "http://h", "colour": "red"}]`, `entry 1: unknown key "colour"`},
		{`[{"endpoint": "http://h"}, {"endpoint": "http://i", "label": "web", "rate": "fast"}]`, `entry 2: rate must be a int`},
		{`[{"endpoint": "http://h", "label": "\u001b[31mred"}]`, `entry 1 (red): label "red" must be`},
		{`[{"endpoint": "http://h", "label": "a\u202eb"}]`, `must be 1 to 64 letters`},
		{`[{"endpoint": "http://h", "label": "m\u0430il"}]`, `must be 1 to 64 letters`},
		{`[{"label": "x"}]`, `entry 1 (x): no endpoint`},
		{`[{"endpoint": "-"}]`, `entry 1: - (events on standard input) cannot be an agent`},
		{`[{"endpoint": "gopher://h"}]`, `entry 1: `},
		{`[{"endpoint": "http://h", "headers": {"X-A": "b\r\nX-Evil: 1"}}]`, `entry 1: headers: "X-A" is not a header line`},
		{`[{"endpoint": "http://h", "headers": {"X-A:b": "c"}}]`, `entry 1: headers: "X-A:b" is not`},
		{`[{"endpoint": "http://h", "headers": {"": "c"}}]`, `entry 1: headers:`},
		{`[{"endpoint": "http://h", "label": "x"}, {"endpoint": "http://i", "label": "X"}]`, `entry 2 (X): the label X is given twice`},
		{`[{"endpoint": "http://h", "\u001b]0;x\u0007": 1}]`, `unknown key`},
		{`{"agent": []}`, `unknown key "agent"`},
		{`{"agents": 1`, `unexpected end`},
		{`[]`, `not a list of agents`},
		{`"x"`, `not a list of agents`},
		{strings.Repeat("[", 20000) + strings.Repeat("]", 20000), `not a list of agents`},
	} {
		_, err := ParseFile([]byte(tc.body), ".")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60s: %v, want %q", tc.body, err, tc.want)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\x1b\u202e\r\n\a") {
			t.Errorf("%.60s: the error carries the escape: %q", tc.body, err)
		}
	}
}

// ReadFile refuses an endless or a huge file without reading it whole,
// and names the file in its errors.
func TestReadFileBounds(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, []byte("["+strings.Repeat(" ", MaxFileSize)+`{"endpoint": "http://h"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`[{"endpoint": "http://h", "rate": "x"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "larger than 1048576 bytes"},
		{huge, "larger than"},
		{filepath.Join(dir, "missing.json"), "no such file"},
		{bad, bad + ": entry 1: rate must be"},
	} {
		_, err := ReadFile(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
	ok := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(ok, []byte(`[{"endpoint": "http://h", "policy": "p.json"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	es, err := ReadFile(ok)
	if err != nil || len(es) != 1 || es[0].Policy != filepath.Join(dir, "p.json") {
		t.Fatalf("%+v, %v", es, err)
	}
}

// FuzzParseFile: whatever the file holds, ParseFile does not panic, its
// error is one clean line, and every entry it returns is checked.
func FuzzParseFile(f *testing.F) {
	f.Add([]byte(`[{"endpoint": "http://h", "label": "mail", "headers": {"A": "b"}}]`))
	f.Add([]byte(`{"agents": [{"endpoint": "unix:x", "label": "a\u001b"}]}`))
	f.Add([]byte(`[{"endpoint": "http://h", "lang": ["en"], "rate": -1}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := ParseFile(data, ".")
		if err != nil {
			if strings.ContainsAny(err.Error(), "\x1b\r\n\a\u202e") {
				t.Fatalf("error %q", err)
			}
			return
		}
		for _, e := range es {
			if e.Endpoint == "" || e.Endpoint == "-" || (e.Label != "" && !agentspec.ValidLabel(e.Label)) {
				t.Fatalf("entry %+v", e)
			}
		}
	})
}

// An acp: entry, as on the command line, may give the agent its mode, its
// first task and its working directory (relative to the file); those keys
// are refused for other agents and when they are not what they say.
func TestParseFileACP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "repo"), 0o700); err != nil {
		t.Fatal(err)
	}
	es, err := ParseFile([]byte(`[{"endpoint": "acp:gemini --acp", "label": "code", "mode": "plan", "task": "fix  the test", "dir": "repo"},
		{"endpoint": "acp:'/opt/my agent/run' --acp"}]`), dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := es[0]; c.Endpoint != "acp:gemini --acp" || c.AgentMode != "plan" || c.Task != "fix  the test" || c.Dir != filepath.Join(dir, "repo") {
		t.Errorf("code: %+v", c)
	}
	if o := es[1]; o.Endpoint != "acp:'/opt/my agent/run' --acp" || o.AgentMode != "" || o.Task != "" || o.Dir != "" {
		t.Errorf("second: %+v", o)
	}
	for _, tc := range []struct{ body, want string }{
		{`[{"endpoint": "http://h", "task": "go"}]`, `entry 1: mode, task and dir are for acp: agents only`},
		{`[{"endpoint": "acp:"}]`, `names no command to start`},
		{`[{"endpoint": "acp:x", "mode": "a b"}]`, `is not a mode's name`},
		{`[{"endpoint": "acp:x", "mode": "\u001b[2J"}]`, `is not a mode's name`},
		{`[{"endpoint": "acp:x", "task": "  "}]`, `task must be words`},
		{`[{"endpoint": "acp:x", "dir": "missing"}]`, `is not a directory`},
		{`[{"endpoint": "acp:x", "cwd": "repo"}]`, `unknown key "cwd"; keys are`},
	} {
		_, err := ParseFile([]byte(tc.body), dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60s: %v, want %q", tc.body, err, tc.want)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\x1b\u202e\r\n\a") {
			t.Errorf("%.60s: the error carries the escape: %q", tc.body, err)
		}
	}
}
