package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

func TestFromBuildInfo(t *testing.T) {
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "aaep-listen version unknown\nCommit: unknown\nGo version: unknown\nAAEP version: " + protocol.Version + "\n"},
		{"no vcs", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}},
			"aaep-listen version (devel)\nCommit: unknown\nGo version: go1.26.0\nAAEP version: " + protocol.Version + "\n"},
		{"clean commit", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}},
			"aaep-listen version v1.2.3\nCommit: abc123\nGo version: go1.26.0\nAAEP version: " + protocol.Version + "\n"},
		{"modified", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}},
			"aaep-listen version (devel)\nCommit: abc123 (with local changes)\nGo version: go1.26.0\nAAEP version: " + protocol.Version + "\n"},
		{"modified without revision", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}},
			"aaep-listen version unknown\nCommit: unknown\nGo version: unknown\nAAEP version: " + protocol.Version + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(FromBuildInfo("aaep-listen", tt.bi).Lines(), "\n") + "\n"; got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestReadNamesTheRunningGo(t *testing.T) {
	i := Read("x")
	if !strings.HasPrefix(i.GoVersion, "go") {
		t.Errorf("Go version %q", i.GoVersion)
	}
}

func TestRequested(t *testing.T) {
	for args, want := range map[string]bool{
		"version": true, "--version": true, "-version": true,
		"--demo --version": true, "check --version": true,
		"": false, "--exec prog --version": false, "-- --version": false, "file version": false, "versions": false, "key": false,
	} {
		if got := Requested(strings.Fields(args)); got != want {
			t.Errorf("Requested(%q) = %v, want %v", args, got, want)
		}
	}
}

type lines []string

func (l *lines) Printf(format string, a ...any) {
	*l = append(*l, strings.TrimSuffix(fmt.Sprintf(format, a...), "\n"))
}

// Answer prints the version only when the command line asks for it.
func TestAnswer(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{{[]string{"version"}, true}, {[]string{"play", "--version"}, true}, {[]string{"play", "x.aaep"}, false}, {nil, false}} {
		var got lines
		if Answer("aaep-x", tc.args, &got) != tc.want || (len(got) > 0) != tc.want || tc.want && !strings.HasPrefix(got[0], "aaep-x version ") {
			t.Errorf("%q: printed %q, want printed %v", tc.args, got, tc.want)
		}
	}
}
