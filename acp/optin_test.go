package acp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/internal/anthropictest"
	"github.com/aaep-term/aaep-term/internal/realagent"
	"github.com/aaep-term/aaep-term/protocol"
)

// OptInEnv, set to 1, runs the tests of real agents too large or too slow
// for every run (Copilot CLI, Codex): they fetch their package from npm into the
// agents cache when it is missing. CI does not set it.
const OptInEnv = "AAEP_OPTIN_AGENTS"

// copilotVersion is the Copilot CLI the opt-in test drives.
const copilotVersion = "1.0.102" // @github/copilot-linux-x64

// optIn skips t unless OptInEnv is 1.
func optIn(t *testing.T) {
	t.Helper()
	if os.Getenv(OptInEnv) != "1" {
		t.Skipf("an opt-in real-agent test: set %s=1 to run it (it may fetch the agent from npm)", OptInEnv)
	}
}

// fetchAgent unpacks the npm package pkg@version into the agents cache
// folder name, unless it is there, and returns the folder.
func fetchAgent(t *testing.T, name, pkg string) string {
	t.Helper()
	dir := filepath.Join(realagent.Cache(t), name)
	if _, err := os.Stat(filepath.Join(dir, "package")); err == nil {
		return dir
	}
	tmp, err := os.MkdirTemp(realagent.Cache(t), name+".partial-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	out, err := exec.Command("sh", "-c", `cd "$1" && tgz=$(npm pack --silent "$2") && tar -xzf "$tgz" && rm "$tgz"`, "sh", tmp, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("could not fetch %s from npm: %v\n%s", pkg, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
	return dir
}

// The real Copilot CLI (copilot --acp --stdio), offline, against our
// scripted Anthropic model: it asks before its bash tool runs; accept runs
// the command, reject does not, and what it says next is said.
func TestCopilotCLI(t *testing.T) {
	optIn(t)
	t.Parallel()
	bin := filepath.Join(fetchAgent(t, "copilot-"+copilotVersion, "@github/copilot-linux-x64@"+copilotVersion), "package", "copilot")
	for _, decision := range []string{protocol.DecisionAccept, protocol.DecisionReject} {
		t.Run(decision, func(t *testing.T) {
			t.Parallel()
			model, err := anthropictest.Start(anthropictest.Shell("echo ok > proof.txt", "Write the proof file", "I am finished."))
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			home := t.TempDir()
			env := []string{"PATH=/usr/bin:/bin", "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
				"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_TYPE=anthropic", "COPILOT_PROVIDER_BASE_URL=" + model.URL,
				"COPILOT_PROVIDER_API_KEY=scripted", "COPILOT_MODEL=claude-sonnet-4"}
			r := proofTask(t, "acp:'"+bin+"' --acp --stdio", acp.Options{Name: "copilot", Env: env}, decision)
			// Copilot CLI 1.0.102: after an accept it answers; after a reject
			// the tool call fails and it ends the turn ("Operation cancelled").
			want := map[string]string{protocol.DecisionAccept: "I am finished.", protocol.DecisionReject: "Write the proof file: failed."}[decision]
			if all := r.text(); !strings.Contains(all, want) {
				t.Errorf("after %s never said %q:\n%s", decision, want, all)
			}
			r.checkValid(t)
		})
	}
}
