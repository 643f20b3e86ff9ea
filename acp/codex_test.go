package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/internal/openaitest"
	"github.com/aaep-term/aaep-term/protocol"
)

// codexACPVersion is the codex-acp (Codex through ACP) the opt-in test
// drives.
const codexACPVersion = "0.16.0" // @zed-industries/codex-acp-linux-x64

// codexACP fetches codex-acp into the agents cache when it is missing and
// returns its binary.
func codexACP(t *testing.T) string {
	t.Helper()
	dir := fetchAgent(t, "codex-acp-"+codexACPVersion, "@zed-industries/codex-acp-linux-x64@"+codexACPVersion)
	bin := filepath.Join(dir, "package", "bin", "codex-acp")
	if err := os.Chmod(bin, 0o755); err != nil { // npm pack keeps no mode bits
		t.Fatal(err)
	}
	return bin
}

// codexCommand is the acp: endpoint that runs codex-acp with the scripted
// model at base (the Responses API), and the clean environment to start
// it in: nothing leaves the machine.
func codexCommand(t *testing.T, bin, base string) (endpoint string, env []string) {
	t.Helper()
	home := t.TempDir()
	env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "CODEX_HOME=" + filepath.Join(home, ".codex"), "CODEX_API_KEY=dummy"}
	if err := os.Mkdir(filepath.Join(home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	endpoint = "acp:'" + bin + "'" +
		` -c model_provider=fake -c model_providers.fake.name=fake` +
		` -c model_providers.fake.base_url=` + base +
		` -c model_providers.fake.wire_api=responses -c model_providers.fake.env_key=CODEX_API_KEY`
	return endpoint, env
}

// The real Codex, through codex-acp, offline against our scripted
// Responses API model, in its mode read-only: the model asks to run its
// shell tool (exec_command) outside Codex's sandbox, so Codex asks first.
// Accept runs the command, and its end and the answer are said; reject
// (Codex's option abort) runs nothing and ends the whole task, said
// cancelled, and the model is never told of it.
func TestCodex(t *testing.T) {
	optIn(t)
	t.Parallel()
	bin := codexACP(t)
	for _, decision := range []string{protocol.DecisionAccept, protocol.DecisionReject} {
		t.Run(decision, func(t *testing.T) {
			t.Parallel()
			model, err := openaitest.Start(openaitest.Shell("echo ok > proof.txt", "Write the proof file", "I am finished."))
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			endpoint, env := codexCommand(t, bin, model.URL)
			r := proofTask(t, endpoint, acp.Options{Name: "codex", Env: env, Mode: "read-only"}, decision)
			all := r.text()
			if !strings.Contains(all, "codex is ready, in mode read-only.") {
				t.Errorf("the mode was not said:\n%s", all)
			}
			if !strings.Contains(all, "Consequence: Write the proof file. Runs the command: /bin/bash -lc echo ok > proof.txt, in the folder ") ||
				strings.Contains(all, "Available Decisions") {
				t.Errorf("the consequence does not say the reason and the command in words, or says Codex's lists:\n%s", all)
			}
			outputs := model.Outputs()
			switch decision {
			case protocol.DecisionAccept:
				for _, want := range []string{"echo ok > proof.txt: done, exit status 0.", "I am finished.", "codex is done and waiting for you."} {
					if !strings.Contains(all, want) {
						t.Errorf("never said %q:\n%s", want, all)
					}
				}
				if len(outputs) != 1 || !strings.Contains(outputs[0], "exited with code 0") {
					t.Errorf("the model was not told the command ran: %q", outputs)
				}
			default:
				if !strings.Contains(all, "The task was cancelled. codex is waiting for you.") {
					t.Errorf("the end of the task after reject was not said cancelled:\n%s", all)
				}
				if strings.Contains(all, ": done") || strings.Contains(all, "I am finished.") || strings.Contains(all, "is done and waiting") {
					t.Errorf("after reject something was said done or answered:\n%s", all)
				}
				if len(outputs) != 0 {
					t.Errorf("after abort the model was told %q, want nothing: the turn ends", outputs)
				}
			}
			if t.Failed() {
				t.Logf("requests to the scripted model: %q", model.Requests())
			}
			r.checkValid(t)
		})
	}
}
