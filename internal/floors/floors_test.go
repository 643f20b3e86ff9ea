package floors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// module is this module's path; imports outside it are not ours to place.
const module = "github.com/aaep-term/aaep-term"

// floors places every package of the module, by its path inside the module.
// A package imports only packages on a lower floor. The numbered floors are
// those of docs/design-notes.md; helpers under internal/ sit between them
// (1.5 is a helper over protocol, 2.5 one over transport), a helper over
// another helper just above it. A package
// that is not here fails the test: give it a floor.
var floors = map[string]float64{
	// Leaf helpers: they import nothing of ours.
	"internal/aaeppb": 0, "internal/browsertest": 0, "internal/connfail": 0, "internal/creds": 0,
	"internal/hostile": 0, "internal/procgroup": 0, "internal/proctest": 0, "internal/prose": 0,
	"internal/safefile": 0, "internal/safefile/safefiletest": 0, "internal/spectest": 0,
	"internal/ttytest": 0, "internal/golden": 0, "internal/userdir": 0, "internal/wire": 0, "internal/floors": 0,
	"internal/keywindow": 0, "internal/gcpace": 0, "internal/modeltest": 0, "internal/realagent": 0, "internal/testpar": 0,
	"internal/ssefloor": 0,

	// 1: messages, schemas, untrusted text; signatures; the audit log; the
	// one command vocabulary (it imports nothing of ours, so the replay
	// controls of capture/replay may give its values too).
	"protocol": 1, "sigrpl": 1, "audit": 1, "command": 1,
	// Helpers over protocol.
	"internal/textout": 1.5, "internal/htmlpage": 1.5, "internal/agentspec": 1.5,
	"internal/term": 1.6,

	// 2: the wire per binding; the pure engine; rules; the capture format.
	"transport": 2, "session": 2, "policy": 2, "capture": 2, "manifest": 2,
	// Helpers over transport.
	"internal/localagents": 2.5, "transport/grpcbind": 2.1,
	// A capture played as a connection: its clock, bursts, seeking.
	"capture/replay": 2.5,

	// 3: wording, urgency, pacing.
	"announce":           3,
	"tui/internal/quiet": 3.5, // the TUI's own helper

	// 4: outputs and sinks.
	"tui": 4, "line": 4, "speech": 4, "braille": 4, "notify": 4,
	"speech/speechdtest": 4, "braille/brltest": 4,

	// 5: the client of one subscription; the one producer.
	"subscriber": 5, "producer": 5,
	"acp":                    5.2, // an ACP agent as the live source of the producer
	"internal/acptest":       0,   // the scripted ACP agent of the tests
	"internal/capturetest":   0,   // the check benchmark's events
	"internal/anthropictest": 0.1, // the scripted model of the real-agent tests (over modeltest)
	"internal/openaitest":    0.1, // the scripted Responses API model of the Codex test
	"demo":                   5.5, // the demo producer's scenarios and agents
	"capture/record":         5.5, // a recording: subscribers whose taps write a capture
	"capture/capturetest":    5.6, // what the tests of recordings share: a file read whole, a prompting demo producer

	// 6: the conformance catalogue.
	"conform": 6,
	// The console: a client's (or a group's) updates to announcements and
	// sinks, and the dispatch of the commands (package command), for
	// listen and replay play. Below the commands' own helpers.
	"console": 6.2,
	// Helpers of the commands: flags, exit codes, opening the outputs.
	"internal/cliflag": 6.5, "internal/outputs": 6.5,

	// top: the commands and the example programs.
	// Helpers only the commands use: build info, the agents file.
	"cmd/internal/buildinfo": 6.5, "cmd/internal/buildinfo/buildinfotest": 6.6, "cmd/internal/agentsfile": 6.6,
	"cmd/aaep-listen": 7, "cmd/aaep-capture": 7, "cmd/aaep-replay": 7, "cmd/aaep-conform": 7, "cmd/aaep-bridge": 7,
	"docs": 7, "docs/minilisten": 7,
}

// forbidden are imports that the floors allow but the design does not:
// what a package must not know about (DESIGN's table), by package. A key
// that is not in the module is a standard library (or foreign) import.
var forbidden = map[string]map[string]string{
	// The engine is pure: it is handed bytes and a clock, and hands back
	// updates. Fetching manifests and reading key files is package manifest's.
	"session": {
		"net/http": "the network (package manifest fetches manifests)",
		"os":       "files and the process (package manifest reads key files)",
		"flag":     "the command line (internal/cliflag declares the flags)",
	},
	"subscriber": {
		"announce": "rendering", "line": "rendering", "tui": "rendering", "speech": "rendering",
		"braille": "rendering", "notify": "rendering",
	},
	"producer": {"session": "the subscriber engine", "subscriber": "the subscriber engine"},
	"capture":  {"transport": "networking: the capture format has none"},
	// The console is configured (console.Config); the commands own the
	// flags that settle it.
	"console": {"flag": "the command line (the commands declare the flags)"},
	"conform": {
		"announce": "UI", "line": "UI", "tui": "UI", "speech": "UI", "braille": "UI", "notify": "UI",
	},
}

// pkg is what go list says of one package: test-only imports are left out.
type pkg struct {
	ImportPath string
	Imports    []string
}

// listPackages lists every package of the module with its imports.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list named no packages")
	}
	return pkgs
}

// local is path inside the module, and whether it is in the module at all.
func local(path string) (string, bool) {
	if path == module {
		return "", true
	}
	rest, ok := strings.CutPrefix(path, module+"/")
	return rest, ok
}

// violations are the imports of pkgs that break the floors or the
// forbidden table, one sentence each, sorted.
func violations(pkgs []pkg, floors map[string]float64, forbidden map[string]map[string]string) []string {
	var bad []string
	for _, p := range pkgs {
		from, ok := local(p.ImportPath)
		if !ok {
			continue
		}
		ff, placed := floors[from]
		if !placed {
			bad = append(bad, fmt.Sprintf("%s has no floor: give it one in floors_test.go and docs/design-notes.md", p.ImportPath))
			continue
		}
		for _, imp := range p.Imports {
			to, ok := local(imp)
			if !ok {
				if why, no := forbidden[from][imp]; no {
					bad = append(bad, fmt.Sprintf("%s imports %s: it must not know about %s", p.ImportPath, imp, why))
				}
				continue
			}
			if why, no := forbidden[from][to]; no {
				bad = append(bad, fmt.Sprintf("%s imports %s: it must not know about %s", p.ImportPath, imp, why))
				continue
			}
			tf, placed := floors[to]
			if placed && tf >= ff {
				bad = append(bad, fmt.Sprintf("%s (floor %g) imports %s (floor %g): a package imports only floors below its own", p.ImportPath, ff, imp, tf))
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// Every package imports only packages on floors below its own, and none
// imports what its floor allows but the design forbids.
func TestFloors(t *testing.T) {
	for _, v := range violations(listPackages(t), floors, forbidden) {
		t.Error(v)
	}
}

// The check itself catches a sideways import, an upward one, a forbidden
// one and an unplaced package, and lets a downward import and a foreign
// one pass.
func TestViolationsFound(t *testing.T) {
	fl := map[string]float64{"a": 1, "b": 2, "c": 2, "d": 3}
	forb := map[string]map[string]string{"d": {"a": "a's business"}, "b": {"os": "files"}}
	pkgs := []pkg{
		{module + "/b", []string{module + "/a", "fmt", "example.com/x"}}, // down: fine
		{module + "/c", []string{module + "/b"}},                         // sideways
		{module + "/a", []string{module + "/d"}},                         // up
		{module + "/d", []string{module + "/a"}},                         // forbidden
		{module + "/e", nil},                                             // no floor
		{module + "/b", []string{"os"}},                                  // forbidden foreign
	}
	got := violations(pkgs, fl, forb)
	want := []string{"/a (floor 1) imports", "/b imports os", "/c (floor 2) imports", "/d imports", "/e has no floor"}
	if len(got) != len(want) {
		t.Fatalf("got %d violations, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("violation %d = %q, want it to hold %q", i, got[i], w)
		}
	}
}
