// Package browsertest finds a headless Chromium for tests that need a real
// browser (the HTML report, EventSource subscribers).
package browsertest

import (
	"os"
	"os/exec"
	"testing"
)

// Chromium returns the path of a Chromium to run headless. Under CI a
// missing browser fails the test (scripts/test installs it); elsewhere it
// skips it.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is needed for this test (scripts/test installs it)")
	}
	t.Skip("chromium not installed")
	return ""
}

// Flags are the command-line flags of a quiet headless run with a profile
// of its own in a temporary directory; the page and any extra flags follow.
func Flags(t testing.TB) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir()}
}
