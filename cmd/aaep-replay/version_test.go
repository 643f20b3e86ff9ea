package main

import (
	"context"
	"testing"

	"github.com/aaep-term/aaep-term/cmd/internal/buildinfo/buildinfotest"
	"github.com/aaep-term/aaep-term/internal/term"
)

// --version, -version and version print the build's version, commit, Go
// version and AAEP version, and exit 0.
func TestVersion(t *testing.T) {
	buildinfotest.Check(t, "aaep-replay", func(args []string, tio *term.IO) int { return run(context.Background(), args, tio) })
}
