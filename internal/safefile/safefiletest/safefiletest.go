// Package safefiletest helps test that a file is never written through a
// symbolic link: it plants a link to a victim file and checks the victim
// afterwards.
package safefiletest

import (
	"os"
	"path/filepath"
	"testing"
)

const precious = "precious\n"

// Link makes a file of someone else's (mode 0644) in a new directory and
// symbolic links to it at each of names in dir; it returns the victim's path.
func Link(t testing.TB, dir string, names ...string) (victim string) {
	t.Helper()
	victim = filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte(precious), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(victim, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.Symlink(victim, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return victim
}

// Intact fails the test unless the victim holds what it held, with its mode.
func Intact(t testing.TB, victim string) {
	t.Helper()
	b, err := os.ReadFile(victim)
	st, serr := os.Stat(victim)
	if err != nil || serr != nil || string(b) != precious || st.Mode().Perm() != 0o644 {
		t.Errorf("the file behind the link changed: %.80q, %v", b, st.Mode())
	}
}

// Loose makes a file at path with mode 0644, as another program might have left it.
func Loose(t testing.TB, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Private fails the test unless the file at path has mode 0600.
func Private(t testing.TB, path string) {
	t.Helper()
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, %v; want 0600", filepath.Base(path), st.Mode(), err)
	}
}
