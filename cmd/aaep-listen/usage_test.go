package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every usage error exits with status 2 and says what is wrong; --version,
// version and key --help exit 0. The real binary runs, with standard input
// and output not a terminal. Nothing is made (a signing key, a demo) before
// a usage error is found.
func TestUsageErrorsExitTwo(t *testing.T) {
	t.Parallel()
	bin := listenerBinary(t)
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		code     int
		say      string // on stderr (stdout for code 0)
		notSayIn string
	}{
		{"missing file", []string{filepath.Join(dir, "nosuch.jsonl")}, 2, "no such file", "cannot tell how to reach"},
		{"missing relative file", []string{"events-not-here.jsonl"}, 2, "no such file", ""},
		{"scheme typo", []string{"htp://localhost:8080"}, 2, `unknown scheme "htp://"`, ""},
		{"URL without host", []string{"http://"}, 2, "names no host", ""},
		{"ws URL without host", []string{"ws://"}, 2, "names no host", ""},
		{"tui without a terminal", []string{"--tui", "--demo"}, 2, "--tui needs a terminal", ""},
		{"tui with json", []string{"--tui", "--json", "--demo"}, 2, "cannot be combined", ""},
		{"unknown demo scenario", []string{"--demo", "--demo-scenarios", "bogus"}, 2, `no scenario named "bogus"`, ""},
		{"cert without client key", []string{"--cert", filepath.Join(dir, "c.pem"), "https://localhost:1"}, 2, "--cert needs --client-key", ""},
		{"client key without cert", []string{"--client-key", filepath.Join(dir, "k.pem"), "https://localhost:1"}, 2, "--client-key needs --cert", ""},
		{"unknown flag", []string{"--no-such-flag"}, 2, "not defined", ""},
		{"bad verbosity", []string{"--verbosity", "loud", "--demo"}, 2, "--verbosity", ""},
		{"key with an argument", []string{"key", "EXTRA"}, 2, "key takes no arguments", ""},
		{"key help", []string{"key", "--help"}, 0, "Shows your reply-signing key", ""},
		{"--version", []string{"--version"}, 0, "AAEP version: ", ""},
		{"version", []string{"version"}, 0, "Go version: go", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := t.TempDir()
			cmd := exec.Command(bin, tt.args...)
			cmd.Env = append(os.Environ(), "NO_COLOR=1", "XDG_CONFIG_HOME="+config)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			said := errOut.String()
			if tt.code == 0 {
				said = out.String()
			}
			if code != tt.code || !strings.Contains(said, tt.say) {
				t.Errorf("exit %d, want %d saying %q\nstdout: %s\nstderr: %s", code, tt.code, tt.say, &out, &errOut)
			}
			if made, _ := os.ReadDir(config); tt.code == 2 && len(made) > 0 {
				t.Errorf("a usage error made %s in the config directory first", made[0].Name())
			}
			if tt.notSayIn != "" && strings.Contains(said, tt.notSayIn) {
				t.Errorf("says %q:\n%s", tt.notSayIn, said)
			}
		})
	}
}
