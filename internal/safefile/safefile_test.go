package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/safefile/safefiletest"
)

var opens = []struct {
	name string
	open func(string) error
}{
	{"Create", func(p string) error { return closeAfter(Create(p)) }},
	{"OpenAppend", func(p string) error { return closeAfter(OpenAppend(p)) }},
	{"CreateNew", func(p string) error { return closeAfter(CreateNew(p)) }},
	{"ReadPrivate", func(p string) error { _, _, err := ReadPrivate(p, 1<<20); return err }},
}

func closeAfter(f *os.File, err error) error {
	if err == nil {
		f.Close()
	}
	return err
}

// A link, to an existing file or to none, is refused with a line that
// says why; the file it points at is not touched.
func TestRefusesSymlink(t *testing.T) {
	for _, tt := range opens {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			target := safefiletest.Link(t, dir, "out")
			link := filepath.Join(dir, "out")
			err := tt.open(link)
			if err == nil || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), link) {
				t.Errorf("error %v; want a refusal naming the link", err)
			}
			safefiletest.Intact(t, target)
			dangling := filepath.Join(dir, "dangling")
			os.Symlink(filepath.Join(dir, "new"), dangling)
			if err := tt.open(dangling); err == nil {
				t.Error("a link to no file was followed")
			}
			if _, err := os.Lstat(filepath.Join(dir, "new")); err == nil {
				t.Error("a file was made where the link points")
			}
		})
	}
}

// New files are 0600 whatever the umask; an existing file opened for
// writing is made 0600.
// An output path through a directory that is a symbolic link is refused,
// at any depth; nothing is written in the directory it points at.
func TestRefusesSymlinkedDirectory(t *testing.T) {
	t.Parallel()
	for _, tt := range opens[:2] { // Create, OpenAppend: the outputs
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, victim := t.TempDir(), t.TempDir()
			if err := os.Symlink(victim, filepath.Join(dir, "linked")); err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{
				filepath.Join(dir, "linked", "out"),
				filepath.Join(dir, "linked", "sub", "..", "out"),
			} {
				if err := os.MkdirAll(filepath.Join(victim, "sub"), 0o700); err != nil {
					t.Fatal(err)
				}
				err := tt.open(path)
				if err == nil || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), filepath.Join(dir, "linked")) {
					t.Errorf("%s: error %v; want a refusal naming the linked directory", path, err)
				}
			}
			if entries, _ := os.ReadDir(victim); len(entries) != 1 {
				t.Errorf("the linked directory holds %d entries, want only sub", len(entries))
			}
			// The real path is written.
			if err := tt.open(filepath.Join(victim, "out")); err != nil {
				t.Errorf("the real path: %v", err)
			}
		})
	}
}

func TestPrivate(t *testing.T) {
	for _, tt := range opens[:2] {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			fresh := filepath.Join(dir, "fresh")
			if err := tt.open(fresh); err != nil {
				t.Fatal(err)
			}
			old := filepath.Join(dir, "old")
			safefiletest.Loose(t, old)
			if err := tt.open(old); err != nil {
				t.Fatal(err)
			}
			safefiletest.Private(t, fresh)
			safefiletest.Private(t, old)
		})
	}
}

// ReadPrivate warns about a file other users can read, naming the fix.
func TestReadPrivateWarns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "my key.pem")
	os.WriteFile(path, []byte("secret"), 0o600)
	for _, tt := range []struct {
		mode os.FileMode
		warn string
	}{
		{0o600, ""},
		{0o400, ""},
		{0o640, "chmod 600 '" + path + "'"},
		{0o604, "chmod 600 '" + path + "'"},
	} {
		os.Chmod(path, tt.mode)
		b, warn, err := ReadPrivate(path, 1<<20)
		if err != nil || string(b) != "secret" {
			t.Fatalf("mode %v: %q, %v", tt.mode, b, err)
		}
		if tt.warn == "" && warn != "" || !strings.Contains(warn, tt.warn) {
			t.Errorf("mode %v: warning %q, want %q", tt.mode, warn, tt.warn)
		}
	}
	if _, _, err := ReadPrivate(path, 3); err == nil {
		t.Error("a file over the limit was read")
	}
}
