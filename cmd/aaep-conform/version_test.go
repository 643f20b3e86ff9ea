package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/cmd/internal/buildinfo"
	"github.com/aaep-term/aaep-term/cmd/internal/buildinfo/buildinfotest"
	"github.com/aaep-term/aaep-term/conform"
	"github.com/aaep-term/aaep-term/internal/term"
)

// --version, -version and version print the build's version, commit, Go
// version and AAEP version, and exit 0.
func TestVersion(t *testing.T) {
	buildinfotest.Check(t, "aaep-conform", func(args []string, tio *term.IO) int {
		return run(context.Background(), args, systemDeps(tio, func(string) string { return "" }))
	})
}

// A build without version control stamping (-buildvcs=false) made by
// scripts/build still names its commit: in --version and in the version a
// claim names.
func TestVersionStampedByScript(t *testing.T) {
	t.Parallel()
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	commit := strings.TrimSpace(string(head))
	bin := t.TempDir()
	build := exec.Command("../../scripts/build", "./cmd/aaep-conform")
	build.Env = append(os.Environ(), "BINDIR="+bin, "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/build: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "aaep-conform"), "--version").Output()
	if err != nil {
		t.Fatalf("aaep-conform --version: %v", err)
	}
	if !strings.Contains(string(out), "\nCommit: "+commit) {
		t.Errorf("--version does not name commit %s:\n%s", commit, out)
	}
}

// A build that recorded neither a version nor a commit says so plainly in
// its claims instead of "version devel".
func TestSuiteVersion(t *testing.T) {
	for _, tc := range []struct {
		info buildinfo.Info
		want string
	}{
		{buildinfo.Info{Version: "v1.2.0", Commit: "abc"}, "v1.2.0"},
		{buildinfo.Info{Version: "(devel)", Commit: "0123456789abcdef0123"}, "devel+0123456789ab"},
		{buildinfo.Info{Version: "(devel)", Commit: "0123456789abcdef0123", Modified: true}, "devel+0123456789ab-dirty"},
		{buildinfo.Info{Version: "(devel)", Commit: "unknown"}, conform.Unversioned},
		{buildinfo.Info{Version: "(devel)", Commit: "unknown"}.Stamped("v1.3.0", "fedcba", false), "v1.3.0"},
		{buildinfo.Info{Version: "(devel)", Commit: "unknown"}.Stamped("", "fedcba", true), "devel+fedcba-dirty"},
	} {
		if got := suiteVersion(tc.info); got != tc.want {
			t.Errorf("suiteVersion(%+v) = %q, want %q", tc.info, got, tc.want)
		}
	}
	claim := conform.ClaimSentence("x", 1, conform.Suite{Name: "aaep-conform", Version: conform.Unversioned}, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	if want := "x is AAEP Level 1 conformant, verified by aaep-conform (an unversioned build: no version or commit was recorded) on 2026-01-02"; claim != want {
		t.Errorf("claim %q, want %q", claim, want)
	}
}
