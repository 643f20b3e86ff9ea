package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// geminiVersion is the Gemini CLI the tests drive; scripts/test installs
// it into the agents cache (AAEP_AGENTS_CACHE, else the user's cache
// folder's aaep-term/agents).
const geminiVersion = "0.61.0"

// geminiCLI returns the command that starts Gemini CLI over ACP with a
// scripted model (its built-in fake responses, nothing leaves the
// machine), and the clean environment to start it in. Without the package
// (or node) the test is skipped, and fails when CI is set.
func geminiCLI(t *testing.T) (endpoint string, env []string, dir string) {
	t.Helper()
	js := filepath.Join(agentsCache(t), "gemini-cli-"+geminiVersion, "package", "bundle", "gemini.js")
	node := needAgent(t, "Gemini CLI "+geminiVersion, js)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	settings := `{"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false},` +
		`"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},` +
		`"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}},` +
		`"ide":{"enabled":false,"hasSeenNudge":true}}`
	fake := `{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[` +
		`{"functionCall":{"name":"run_shell_command","args":{"command":"echo ok > proof.txt","description":"Write the proof file"}}}]},` +
		`"finishReason":"STOP","index":0}]}]}` + "\n" +
		`{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[` +
		`{"text":"I am finished."}]},"finishReason":"STOP","index":0}]}]}` + "\n"
	for name, body := range map[string]string{filepath.Join(home, ".gemini", "settings.json"): settings, filepath.Join(home, "fake.jsonl"): fake} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env = []string{"PATH=" + filepath.Dir(node) + ":/usr/bin:/bin", "HOME=" + home, "GEMINI_CLI_HOME=" + home, "GEMINI_API_KEY=fake-key"}
	endpoint = "acp:'" + node + "' '" + js + "' --acp --fake-responses-non-strict '" + filepath.Join(home, "fake.jsonl") + "'"
	return endpoint, env, home
}

// The real Gemini CLI, with a scripted model, asks before it runs a shell
// command: accept runs it (the file exists) and its answer and the end of
// the task are said; reject runs nothing, and Gemini sends no tool update.
func TestGeminiCLI(t *testing.T) {
	t.Parallel()
	for _, decision := range []string{protocol.DecisionAccept, protocol.DecisionReject} {
		t.Run(decision, func(t *testing.T) {
			t.Parallel()
			endpoint, env, _ := geminiCLI(t)
			var sd *speechdtest.Daemon
			var sinks []announce.Sink
			if decision == protocol.DecisionAccept { // heard through a real speech-dispatcher too
				sd, sinks = spoken(t)
			}
			r := proofTask(t, endpoint, acp.Options{Env: env}, decision, sinks...)
			all := r.text()
			if !strings.Contains(all, "is ready, in mode default.") || !strings.Contains(all, "is done and waiting for you.") {
				t.Errorf("the mode or the end of the task was not said:\n%s", all)
			}
			switch decision {
			case protocol.DecisionAccept:
				if !strings.Contains(all, "echo ok > proof.txt: done") || !strings.Contains(all, "I am finished.") {
					t.Errorf("the completion or the answer was not said:\n%s", all)
				}
				// The capture module says punctuation its own way: "echo ok   proof txt".
				waitSpoken(t, sd, "Confirmation needed, prompt 1", "proof txt: done", "I am finished.", "is done and waiting for you")
			default:
				if strings.Contains(all, ": done") {
					t.Errorf("a completion was said after reject:\n%s", all)
				}
			}
			r.checkValid(t)
		})
	}
}
