package main

import (
	"context"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/term"
)

// --layout is checked the same way by aaep-listen and aaep-listen
// manifest: a misspelt layout is a usage error, never quietly "auto".
func TestLayoutChecked(t *testing.T) {
	t.Parallel()
	tio, _, _, errOut := term.Test()
	code := runManifest(context.Background(), []string{"--layout", "spek", "http://127.0.0.1:1"}, tio, noEnv)
	if code != 2 || !strings.Contains(errOut.String(), `layout must be auto, spec or legacy, not "spek"`) {
		t.Errorf("manifest --layout spek: exit %d, stderr %q", code, errOut)
	}
	tio, _, _, _ = term.Test()
	if _, err := parseFlags([]string{"--layout", "spek", "http://127.0.0.1:1"}, tio, noEnv); err == nil ||
		!strings.Contains(err.Error(), `layout must be auto, spec or legacy, not "spek"`) {
		t.Errorf("--layout spek: %v", err)
	}
}
