package main

import (
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/subscriber"
)

// waitOutputCount waits until want was printed n times, as waitOutput does
// for once.
func (r *listenerRun) waitOutputCount(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(r.stdout(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("output never showed %q %d times:\n%s\nstderr:\n%s", want, n, r.stdout(), r.stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestManifestNotFoundSaysTried: after a failed fetch the address is where
// the manifest was looked for, not where it was found.
func TestManifestNotFoundSaysTried(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	writeManifest(&out, subscriber.ManifestReport{From: "http://127.0.0.1:1/manifest.json", Summary: "The producer's manifest could not be fetched."})
	if got := out.String(); strings.Contains(got, "Found:") || !strings.Contains(got, "Tried: http://127.0.0.1:1/manifest.json") {
		t.Errorf("writeManifest:\n%s", got)
	}
}
