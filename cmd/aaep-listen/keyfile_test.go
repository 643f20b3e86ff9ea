package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/term"
)

// A signing key other users can read is used with a warning on stderr that
// names the fix, both by "aaep-listen key" and when the listener loads it;
// a key behind a symbolic link is refused, saying why.
func TestKeyFileWarnings(t *testing.T) {
	path, _ := keyFile(t)
	os.Chmod(path, 0o644)
	tio, _, out, errOut := term.Test()
	if code := runKey([]string{"--key", path}, tio); code != 0 {
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
	if code := runKey([]string{"--key", link}, tio); code != 1 || !strings.Contains(errOut.String(), "symbolic link") {
		t.Errorf("a key behind a link: exit %d: %s", code, errOut)
	}
}
