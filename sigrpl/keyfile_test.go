package sigrpl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The key is never read or written through a symbolic link; a key other
// users can read is loaded with a warning that names the fix.
func TestKeyFileSafety(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key.pem")
	k, created, err := LoadOrCreate(path)
	if err != nil || !created || k.Warning() != "" {
		t.Fatalf("created %v, warning %q, error %v", created, k.Warning(), err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("new key mode %v", st.Mode())
	}
	os.Chmod(path, 0o644)
	k, err = Load(path)
	if err != nil || !strings.Contains(k.Warning(), "chmod 600 "+path) {
		t.Errorf("a key readable by others: warning %q, error %v", k.Warning(), err)
	}
	link := filepath.Join(dir, "link.pem")
	os.Symlink(path, link)
	if _, err := Load(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a key read through a link: %v", err)
	}
	victim := filepath.Join(dir, "victim")
	dangling := filepath.Join(dir, "new.pem")
	os.Symlink(victim, dangling)
	if _, _, err := LoadOrCreate(dangling); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a key made through a link: %v", err)
	}
	if _, err := os.Lstat(victim); err == nil {
		t.Error("a key was written where the link points")
	}
}
