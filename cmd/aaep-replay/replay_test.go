package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/spectest"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/internal/ttytest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const corpus = "../../capture/testdata/corpus/"

func TestMain(m *testing.M) { os.Exit(ttytest.Main(m)) } // the binaries the tests build

// runReplay runs aaep-replay with args and returns its exit code and output.
func runReplay(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	tio, _, out, errOut := term.Test()
	code = run(context.Background(), args, tio)
	return code, out.String(), errOut.String()
}

func TestCheckExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check", corpus + "clean.aaep"}, 0, "0 violations and 0 warnings"},
		{[]string{"check", corpus + "clean.jsonl.gz", corpus + "clean.jsonl"}, 0, "18 messages checked"},
		{[]string{"check", corpus + "truncated.aaep"}, 0, "cut short"},
		{[]string{"check", corpus + "after-reject.aaep"}, 1, "line 5, session sess_reject01: violation (confirmation, spec section 4.5.3)"},
		{[]string{"check", corpus + "clean.aaep", corpus + "output.aaep"}, 1, "output.aaep: 7 messages checked, 3 violations"},
		{[]string{"check", "no-such-file.aaep"}, 2, ""},
		{[]string{"check", "replay_test.go"}, 2, "no AAEP message could be read"},
		{[]string{"check", "--schema-only", "replay_test.go"}, 2, "no AAEP message could be read"},
		{[]string{"check", corpus + "urgency.aaep", "no-such-file.aaep"}, 2, "critical-urgency"},
		{[]string{"check"}, 2, ""},
		{[]string{"check", "--bogus", "x"}, 2, ""},
		{[]string{"frobnicate"}, 2, ""},
		{[]string{}, 2, ""},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runReplay(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			if !strings.Contains(out+errOut, tt.want) {
				t.Errorf("output lacks %q:\n%s%s", tt.want, out, errOut)
			}
			if tt.code == 2 && errOut == "" {
				t.Error("exit 2 without a word on stderr")
			}
		})
	}
}

func TestCheckJSON(t *testing.T) {
	code, out, _ := runReplay(t, "check", "--json", corpus+"sequence.aaep", corpus+"clean.aaep")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var rep struct {
		Files []struct {
			File       string `json:"file"`
			Violations int    `json:"violations"`
			Problems   []struct {
				Line    int    `json:"line"`
				Session string `json:"session"`
				Rule    string `json:"rule"`
				Section string `json:"section"`
				Message string `json:"message"`
			} `json:"problems"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Files) != 2 || rep.Files[0].Violations != 4 || rep.Files[1].Violations != 0 {
		t.Fatalf("report %+v", rep)
	}
	p := rep.Files[0].Problems[0]
	if p.Line != 3 || p.Session != "sess_seq01" || p.Rule != "sequence-number" || p.Section != "3.4.1" || p.Message == "" {
		t.Errorf("first problem %+v", p)
	}
}

// Every official valid fixture passes --schema-only, every invalid one but
// duplicate-completion-streaming (a fault only between two events) fails it.
func TestSchemaOnlyFixtures(t *testing.T) {
	dir := spectest.Dir(t)
	for _, kind := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join(dir, "fixtures", kind, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no %s fixtures", kind)
		}
		for _, f := range files {
			code, out, errOut := runReplay(t, "check", "--schema-only", f)
			want := 1
			if kind == "valid" || strings.Contains(f, "duplicate-completion") {
				want = 0
			}
			if code != want {
				t.Errorf("%s: exit %d, want %d\n%s%s", filepath.Base(f), code, want, out, errOut)
			}
		}
	}
	// All of them at once, as one JSON array, and pretty-printed.
	var all []json.RawMessage
	files, _ := filepath.Glob(filepath.Join(dir, "fixtures", "valid", "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b)
	}
	arr, _ := json.MarshalIndent(all, "", "  ")
	path := filepath.Join(t.TempDir(), "all.json")
	if err := os.WriteFile(path, arr, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runReplay(t, "check", "--schema-only", path)
	if code != 0 || !strings.Contains(out, "5 messages checked") {
		t.Errorf("array of valid fixtures: exit %d\n%s", code, out)
	}
}

// trace and the guide's --input --visualize form write the same text,
// which matches the golden file; --html writes the report.
func TestTrace(t *testing.T) {
	code, out, errOut := runReplay(t, "trace", corpus+"after-reject.aaep")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "testdata/after-reject.trace.txt", out)
	html := filepath.Join(t.TempDir(), "out.html")
	code, out2, errOut := runReplay(t, "--input", corpus+"after-reject.aaep", "--visualize", "--html", html)
	if code != 0 || out2 != out {
		t.Fatalf("--input --visualize: exit %d, output differs:\n%s%s", code, out2, errOut)
	}
	b, err := os.ReadFile(html)
	if err != nil || !bytes.Contains(b, []byte("<strong>VIOLATION</strong>")) {
		t.Errorf("HTML report: %v", err)
	}
	if code, _, _ := runReplay(t, "--input", corpus+"clean.aaep"); code != 2 {
		t.Errorf("--input without --visualize: exit %d, want 2", code)
	}
	if code, _, _ := runReplay(t, "trace", "missing.aaep"); code != 2 {
		t.Errorf("missing file: exit %d, want 2", code)
	}
}

// play --json goes through the listener's engine and announcer: every event
// of the capture is delivered, prompts are never answered.
func TestPlayJSON(t *testing.T) {
	code, out, errOut := runReplay(t, "play", "--speed", "0", "--json", corpus+"clean.aaep")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	kinds := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("not JSON: %s", sc.Text())
		}
		k, _ := rec["kind"].(string)
		kinds[k]++
	}
	if len(kinds) == 0 {
		t.Fatalf("no records:\n%s", out)
	}
	if strings.Contains(out, "accepted your") {
		t.Error("a prompt was answered")
	}
	t.Logf("record kinds: %v", kinds)
}

func TestPlayLines(t *testing.T) {
	code, out, errOut := runReplay(t, "play", "--speed", "0", corpus+"clean.aaep")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"prompts are shown but not answered", "The recorded subscriber sent a confirmation reply: accept", "End of the capture: 20 messages replayed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsRune(out, 0x1b) {
		t.Error("escape sequence in plain output")
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"check", "--help"}, {"trace", "--help"}, {"play", "--help"}} {
		code, out, _ := runReplay(t, args...)
		if code != 0 || !strings.Contains(out, "Usage: aaep-replay") {
			t.Errorf("%v: exit %d\n%s", args, code, out)
		}
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file:\n%s", path, got)
	}
}
