// Package realagent starts the real agents the tests drive (Claude Code
// through its ACP adapter, Gemini CLI) offline: each with a scripted
// model, in a clean environment of its own, so nothing leaves the machine.
// scripts/test installs them into the agents cache.
package realagent

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The versions the tests drive; scripts/test installs these.
const (
	ClaudeVersion  = "2.1.332" // @anthropic-ai/claude-code-linux-x64
	AdapterVersion = "0.101.0" // @agentclientprotocol/claude-agent-acp
	GeminiVersion  = "0.61.0"  // @google/gemini-cli
)

// Agent is a real agent ready to start: its acp: endpoint and the clean
// environment to start it in.
type Agent struct {
	Endpoint string   // acp:COMMAND ARGS
	Env      []string // the whole environment, nothing inherited
	Home     string   // its temporary home folder
}

// Alone returns the endpoint with the environment written into it (the
// agent started through env -i), for a listener that starts several
// agents from its own environment: each still gets only its own.
func (a Agent) Alone() string {
	var b strings.Builder
	b.WriteString("acp:/usr/bin/env -i")
	for _, kv := range a.Env {
		b.WriteString(" '" + kv + "'")
	}
	b.WriteString(" " + strings.TrimPrefix(a.Endpoint, "acp:"))
	return b.String()
}

// Cache is the folder scripts/test installs real agents into:
// AAEP_AGENTS_CACHE, else the user's cache folder's aaep-term/agents.
func Cache(t testing.TB) string {
	t.Helper()
	if c := os.Getenv("AAEP_AGENTS_CACHE"); c != "" {
		return c
	}
	c, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(c, "aaep-term", "agents")
}

// Need skips the test when a real agent's files (or node) are missing,
// and fails it when CI is set. It returns node.
func Need(t testing.TB, what string, files ...string) (node string) {
	t.Helper()
	node, err := exec.LookPath("node")
	for _, f := range files {
		if _, serr := os.Stat(f); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed, or node is missing (%v): scripts/test installs it", what, err)
		}
		t.Skipf("%s is not installed (%v): scripts/test installs it", what, err)
	}
	return node
}

// Claude returns Claude Code over ACP, through its adapter, with the
// scripted Anthropic model at model (see internal/anthropictest).
func Claude(t testing.TB, model string) Agent {
	t.Helper()
	cache := Cache(t)
	claude := filepath.Join(cache, "claude-code-"+ClaudeVersion, "package", "claude")
	adapter := filepath.Join(cache, "claude-agent-acp-"+AdapterVersion, "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js")
	node := Need(t, "Claude Code "+ClaudeVersion+" with claude-agent-acp "+AdapterVersion, claude, adapter)
	home := t.TempDir()
	return Agent{
		Endpoint: "acp:'" + node + "' '" + adapter + "'",
		Env: []string{
			"PATH=" + filepath.Dir(node) + ":/usr/bin:/bin", "HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
			"CLAUDE_CODE_EXECUTABLE=" + claude, "ANTHROPIC_BASE_URL=" + model, "ANTHROPIC_API_KEY=scripted",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
		},
		Home: home,
	}
}

// Gemini returns Gemini CLI over ACP with its built-in scripted model
// (fake responses): its first turn asks to run command with description,
// its second says answer.
func Gemini(t testing.TB, command, description, answer string) Agent {
	t.Helper()
	js := filepath.Join(Cache(t), "gemini-cli-"+GeminiVersion, "package", "bundle", "gemini.js")
	node := Need(t, "Gemini CLI "+GeminiVersion, js)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	settings := `{"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false},` +
		`"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},` +
		`"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}},` +
		`"ide":{"enabled":false,"hasSeenNudge":true}}`
	call := map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]string{"command": command, "description": description}}}
	fake := turn(t, call) + turn(t, map[string]string{"text": answer})
	for name, body := range map[string]string{filepath.Join(home, ".gemini", "settings.json"): settings, filepath.Join(home, "fake.jsonl"): fake} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return Agent{
		Endpoint: "acp:'" + node + "' '" + js + "' --acp --fake-responses-non-strict '" + filepath.Join(home, "fake.jsonl") + "'",
		Env:      []string{"PATH=" + filepath.Dir(node) + ":/usr/bin:/bin", "HOME=" + home, "GEMINI_CLI_HOME=" + home, "GEMINI_API_KEY=fake-key"},
		Home:     home,
	}
}

// turn is one model turn of Gemini's fake responses, a line: the model
// says part.
func turn(t testing.TB, part any) string {
	t.Helper()
	line, err := json.Marshal(map[string]any{"method": "generateContentStream", "response": []any{map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(line) + "\n"
}

// PinCache sets AAEP_AGENTS_CACHE to the cache folder of now, unless it
// is set, for a TestMain that moves HOME: the agents are still found.
func PinCache() {
	if os.Getenv("AAEP_AGENTS_CACHE") != "" {
		return
	}
	if c, err := os.UserCacheDir(); err == nil {
		os.Setenv("AAEP_AGENTS_CACHE", filepath.Join(c, "aaep-term", "agents"))
	}
}
