package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/sigrpl"
)

// A signing key other users can read is used with a warning on stderr that
// names the fix, both by "aaep-listen key" and when the listener loads it;
// a key behind a symbolic link is refused, saying why.
func TestKeyFileWarnings(t *testing.T) {
	t.Parallel()
	path, _ := keyFile(t)
	os.Chmod(path, 0o644)
	tio, _, out, errOut := term.Test()
	if code := runKey([]string{"--key", path}, tio, noEnv); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "chmod 600 "+path) || !strings.Contains(out.String(), "Thumbprint") {
		t.Errorf("aaep-listen key: no warning naming the fix:\n%s%s", out, errOut)
	}
	tio, _, _, errOut = term.Test()
	o := &options{Endpoint: "http://127.0.0.1:1/events", IO: tio}
	o.Sign.KeyFile = path
	if err := loadSignKey(o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "chmod 600 "+path) {
		t.Errorf("the listener gave no warning naming the fix: %q", errOut)
	}
	link := filepath.Join(t.TempDir(), "link.pem")
	os.Symlink(path, link)
	tio, _, _, errOut = term.Test()
	if code := runKey([]string{"--key", link}, tio, noEnv); code != 1 || !strings.Contains(errOut.String(), "symbolic link") {
		t.Errorf("a key behind a link: exit %d: %s", code, errOut)
	}
}

// --key NEWFILE makes the key at that path, 0600, for the key command and
// for the listener, as the default path does; the next run reads the same key.
func TestKeyFlagMakesNewFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "keys", "new.pem")
	tio, _, out, errOut := term.Test()
	if code := runKey([]string{"--key", path}, tio, noEnv); code != 0 {
		t.Fatalf("key --key NEWFILE: exit %d: %s", code, errOut)
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Perm() != 0o600 || !fi.Mode().IsRegular() {
		t.Fatalf("key file %s: %v %v", path, fi, err)
	}
	k, err := sigrpl.Load(path)
	if err != nil || !strings.Contains(out.String(), "Thumbprint: "+k.KID()) {
		t.Fatalf("printed %q for key %v (%v)", out, k, err)
	}

	listenPath := filepath.Join(dir, "listen.pem")
	tio, _, _, errOut = term.Test()
	o := &options{IO: tio, Endpoint: "http://127.0.0.1:1", Sign: signOptions{KeyFile: listenPath}}
	if err := loadSignKey(o); err != nil {
		t.Fatalf("listener --key NEWFILE: %v", err)
	}
	if fi, err := os.Lstat(listenPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("listener key file: %v %v", fi, err)
	}
	if !strings.Contains(errOut.String(), "made a reply-signing key in "+listenPath) {
		t.Errorf("the new key is not announced: %q", errOut)
	}
	again := &options{IO: tio, Endpoint: "http://127.0.0.1:1", Sign: signOptions{KeyFile: listenPath}}
	if err := loadSignKey(again); err != nil || again.Sign.key.KID() != o.Sign.key.KID() {
		t.Fatalf("second run: %v, key %v then %v", err, o.Sign.key, again.Sign.key)
	}
}
