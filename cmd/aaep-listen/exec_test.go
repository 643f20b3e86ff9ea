package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/transport"
)

func TestExecEndpoint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--exec"}, "--exec needs the producer's command"},
		{[]string{"http://x", "--exec", "agent"}, "give the endpoint once"},
		{[]string{"--connect", "http://x", "--exec", "agent"}, "give the endpoint once"},
		{[]string{"--demo", "--exec", "agent"}, "not both"},
	} {
		_, err := parseFlags(tc.args, testIO(), noEnv)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
	o, err := parseFlags([]string{"--plain", "--exec", "my agent", "--stdio"}, testIO(), noEnv)
	if err != nil || o.Endpoint != `exec:my\ agent --stdio` {
		t.Fatalf("endpoint %q, %v", o.Endpoint, err)
	}
}

// --exec starts the producer (this test binary in its stdio mode, from a
// directory whose name has a space) and the session runs to its end.
func TestExecFlag(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "my producer")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "agent")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv(childProducerEnv, "1")
	r := startListener(t, "--plain", "--auto-reply", "reject", "--exec", link, "-test.run=^$")
	r.waitOutput(t, "Listening to exec:")
	r.waitOutput(t, "Your --auto-reply policy rejects prompt 1")
	r.wait(t)
	if !strings.Contains(r.stdout(), "Confirmation needed") {
		t.Errorf("no confirmation announced:\n%s", r.stdout())
	}
}

func testIO() *term.IO {
	tio, _, _, _ := term.Test()
	return tio
}

// "aaep-listen manifest --exec" subscribes over stdio, closes, and says
// that a stdio producer without a signed manifest gives none.
func TestManifestCommandExec(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(childProducerEnv, "1")
	tio, _, out, errOut := term.Test()
	code := runManifest(context.Background(), []string{"--exec", exe, "-test.run=^$"}, tio, noEnv)
	if code != 1 || !strings.Contains(out.String(), "The producer gives no manifest: none in its acceptance") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// Over stdio the signed manifest comes inline in the acceptance: verified
// with the producer's key trusted, refused (and the run ended) without.
func TestRequireSignedManifestStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	key, dir := manifestKey(t, "EdDSA")
	private, err := json.Marshal(jose.JSONWebKey{Key: key.Signer, KeyID: key.KID})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(childProducerEnv, "1")
	t.Setenv(childManifestKeyEnv, string(private))
	r := startListener(t, "--plain", "--auto-reply", "reject", "--require-signed-manifest", "--trusted-keys", dir, "--exec", exe, "-test.run=^$")
	r.waitOutput(t, "The producer's manifest is signed by key "+key.KID+" and verified.")
	r.waitOutput(t, "Your --auto-reply policy rejects prompt 1")
	r.wait(t)

	r = startListener(t, "--plain", "--require-signed-manifest", "--trusted-keys", t.TempDir(), "--exec", exe, "-test.run=^$")
	r.waitOutput(t, "which is not among your trusted keys")
	if code := r.exitCode(t); code != 1 {
		t.Fatalf("exit %d\n%s", code, r.stdout())
	}
}

// A command's environment given through env(1) in the endpoint keeps its
// values out of what is said: they are often keys.
func TestEndpointEnvValuesNotSaid(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	endpoint := func(key string) string {
		return "exec:" + transport.JoinCommand([]string{"env", "AAEP_TEST_KEY=" + key, childProducerEnv + "=1", exe, "-test.run=^$"})
	}
	// Two agents without labels: each line names its agent by its endpoint.
	r := startListener(t, "--plain", "--auto-reply", "reject", endpoint("hunter2"), endpoint("hunter3"))
	r.waitOutput(t, "Listening to exec:env AAEP_TEST_KEY=… "+childProducerEnv+"=… ")
	r.wait(t)
	if out := r.stdout() + r.stderr(); strings.Contains(out, "hunter3") {
		t.Errorf("the second key was said:\n%s", out)
	}
	if out := r.stdout() + r.stderr(); strings.Contains(out, "hunter2") {
		t.Errorf("the key was said:\n%s", out)
	}
}
