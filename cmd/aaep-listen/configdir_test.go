package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/tui"
)

// TestConfigDirOneAnswer: the signing key, announce.json, the TUI key map
// and the subscriber id all come from the one config directory the
// environment names, whatever the process's own environment says.
func TestConfigDirOneAnswer(t *testing.T) {
	t.Parallel()
	config := t.TempDir()
	env := func(k string) string {
		switch k {
		case "XDG_CONFIG_HOME":
			return config
		case "HOME":
			return t.TempDir() // must not be used while XDG_CONFIG_HOME is set
		case "USER":
			return "ada"
		}
		return ""
	}
	dir := filepath.Join(config, "aaep-term")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "announce.json"), []byte(`{"verbosity":"terse"}`), 0o600)

	tio, _, _, errOut := term.Test()
	o, err := parseFlags([]string{"--demo"}, tio, env)
	if err != nil {
		t.Fatal(err)
	}
	if err := loadSignKey(o); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "sigrpl-key.pem")
	if _, err := os.Stat(key); err != nil || !strings.Contains(errOut.String(), key) {
		t.Errorf("the signing key was not made in %s: %v; stderr %q", key, err, errOut)
	}
	if c := o.announceConfig(nil); c.Verbosity != "terse" {
		t.Errorf("announce.json in %s was not read: %+v", dir, c)
	}
	if want := session.SubscriberID(dir, "ada"); o.SubscriberID != want {
		t.Errorf("subscriber id %q, want %q (from %s)", o.SubscriberID, want, dir)
	}
	// The TUI key map: a broken one in the directory is read, and refused.
	os.WriteFile(filepath.Join(dir, "tui-keys"), []byte("no-such-action x\n"), 0o600)
	if _, err := tui.LoadKeyMap("", env); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("tui-keys in %s was not read: %v", dir, err)
	}
	// The trusted manifest keys: a broken key file there is read, and refused.
	os.MkdirAll(filepath.Join(dir, "trusted-keys"), 0o700)
	os.WriteFile(filepath.Join(dir, "trusted-keys", "broken.jwk"), []byte("not a key"), 0o600)
	if err := loadSecurity(o); err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("trusted-keys in %s was not read: %v", dir, err)
	}
	// aaep-listen key shows the same key.
	tio, _, out, _ := term.Test()
	if code := runKey(nil, tio, env); code != 0 || !strings.Contains(out.String(), "Key file: "+key+"\n") {
		t.Errorf("aaep-listen key: exit %d, %q; want the key in %s", code, out, key)
	}
}
