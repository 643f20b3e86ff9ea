package userdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirFor(t *testing.T) {
	tests := []struct {
		goos string
		env  map[string]string
		want string // "" for an error
	}{
		{"linux", map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/aaep-term"},
		{"linux", map[string]string{"HOME": "/h"}, "/h/.config/aaep-term"},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "rel", "HOME": "/h"}, ""},
		{"linux", nil, ""},
		{"freebsd", map[string]string{"HOME": "/h"}, "/h/.config/aaep-term"},
		// macOS: the system's place, whatever XDG_CONFIG_HOME says, so that
		// keys and settings never part.
		{"darwin", map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/Users/a"}, "/Users/a/Library/Application Support/aaep-term"},
		{"darwin", nil, ""},
		{"windows", map[string]string{"AppData": `/c/Users/a/AppData/Roaming`}, "/c/Users/a/AppData/Roaming/aaep-term"},
		{"windows", map[string]string{"HOME": "/h"}, ""},
		{"plan9", map[string]string{"home": "/usr/a"}, "/usr/a/lib/aaep-term"},
	}
	for _, tt := range tests {
		got, err := dirFor(tt.goos, func(k string) string { return tt.env[k] })
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("%s %v: %q, want an error", tt.goos, tt.env, got)
		case tt.want != "" && (err != nil || got != filepath.FromSlash(tt.want)):
			t.Errorf("%s %v: %q, %v; want %q", tt.goos, tt.env, got, err, tt.want)
		}
	}
}

// With the process's environment, Dir answers as os.UserConfigDir does on
// this system.
func TestDirAgreesWithOS(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	want, err := os.UserConfigDir()
	if err != nil {
		t.Skip(err)
	}
	got, err := Dir(os.Getenv)
	if err != nil || got != filepath.Join(want, Name) {
		t.Errorf("Dir = %q, %v; os.UserConfigDir = %q", got, err, want)
	}
	if f, err := File(os.Getenv, "announce.json"); err != nil || f != filepath.Join(want, Name, "announce.json") {
		t.Errorf("File = %q, %v", f, err)
	}
}
