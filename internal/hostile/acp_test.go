package hostile_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aaep-term/aaep-term/internal/acptest"
)

// acpAgent runs aaep-listen on a scripted ACP agent (this test binary)
// that puts h in every string it sends: its name and modes, thoughts,
// plan, tool calls (titles, paths, commands, diffs, output), permission
// options, unknown update kinds and methods, a form of three fields and a
// question in URL mode, and its standard error. The listener accepts the
// permission request (both steps), reads it in full, answers the form
// with one answer that does not fit (refused, asked again), and asks for
// the pending and agents lists, the terms and help.
func acpAgent(t *testing.T, h string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "aaep-listen"), "--plain", "--no-sign", "--task", "go", "acp:'"+exe+"' -test.run=^$")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", acptest.Env+"="+acptest.Everywhere, acptest.TextEnv+"="+h)
	out := newPrinted()
	cmd.Stdout, cmd.Stderr = out, out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	for _, step := range []struct{ want, typed string }{
		{"type: accept 1", "details 1\naccept 1\n"},
		{"Type yes to send", "yes\n"},
		{"type: answer 2,", "answer 2 1\n"},
		{"type: answer 3,", "answer 3 yes\n"},
		{"type: answer 4,", "answer 4 99\n"}, // does not fit: refused, asked again
		{"type: answer 5,", "pending\nanswer 5 2\n"},
		{"waiting for you", "agents\nterms\nhelp tell\nhelp answer\nquit\n"},
	} {
		if !out.waitFor(step.want) {
			t.Errorf("the listener never said %q:\n%s", step.want, clip(out.String()))
			return out.String()
		}
		stdin.Write([]byte(step.typed))
	}
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(cmd.Dir, acptest.ProofFile)); err != nil {
		t.Errorf("the accept never reached the agent: %v", err)
	}
	return out.String()
}
