package acp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/protocol"
)

// Titles and answers full of escape sequences, bidi overrides and line
// breaks are said as plain, single lines: no byte of them reaches the
// terminal raw.
func TestHostileTitles(t *testing.T) {
	t.Parallel()
	r := start(t, "hostile", acp.Options{Task: "go"})
	if err := r.c.Confirm(acptest.Context(t), r.prompt(t), protocol.DecisionAccept); err != nil {
		t.Fatal(err)
	}
	r.waitText(t, "waiting for you")
	all := r.text()
	for _, bad := range []string{"\x1b", "\a", "\u202e", "\r", "\nFAKE LINE"} {
		if strings.Contains(all, bad) {
			t.Errorf("%q reached the lines:\n%q", bad, all)
		}
	}
	if !strings.Contains(all, "everything") || !strings.Contains(all, "red") {
		t.Errorf("the words themselves were lost:\n%s", all)
	}
	r.checkValid(t)
}

// A flood of updates is carried whole, in order, with the agent held back
// rather than dropped; thinking is said once a run, usage not at all.
func TestFlood(t *testing.T) {
	t.Parallel()
	r := start(t, "flood", acp.Options{Task: "go"})
	r.waitText(t, "code is done and waiting for you.")
	r.mu.Lock()
	var text strings.Builder
	for _, ev := range r.events {
		if ev.Type == protocol.TypeOutputStreaming {
			text.WriteString(ev.Chunk.Unsafe())
		}
	}
	r.mu.Unlock()
	got := text.String()
	for _, w := range []string{"word0 ", "word1500 ", "word2999 Flood over."} {
		if !strings.Contains(got, w) {
			t.Fatalf("the streamed answer lost %q (%d bytes)", w, len(got))
		}
	}
	if n := strings.Count(got, "word"); n != 3000 {
		t.Errorf("%d words streamed, want 3000", n)
	}
	if strings.Contains(r.text(), "100000") {
		t.Error("usage updates were said")
	}
	r.checkValid(t)
}

// What the bridge does not know or cannot read is reported, bounded, and
// the session goes on: unknown update kinds and methods, lines that are
// not JSON-RPC, updates of the wrong shape, answers to nothing.
func TestUnknownAndMalformed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ script, said string }{
		{"unknown", "Still here."},
		{"malformed", "Still standing."},
	} {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			r := start(t, tc.script, acp.Options{Task: "go"})
			r.waitText(t, "code is done and waiting for you.")
			all := r.text()
			if !strings.Contains(all, tc.said) {
				t.Errorf("never said %q:\n%s", tc.said, all)
			}
			if tc.script == "unknown" && !strings.Contains(all, "brand_new_kind") {
				t.Errorf("the unknown update kind was not reported:\n%s", all)
			}
			if tc.script == "unknown" && strings.Contains(all, "_vendor") {
				t.Errorf("an extension notification was reported:\n%s", all)
			}
			if tc.script == "malformed" && !strings.Contains(all, "not JSON-RPC 2.0") {
				t.Errorf("the bad lines were not reported:\n%s", all)
			}
			r.checkValid(t)
		})
	}
}

// The bridge advertises no file system and no terminal, and refuses
// every fs/* and terminal/* request with a JSON-RPC error, saying so.
func TestFsAndTerminalRefused(t *testing.T) {
	t.Parallel()
	r := start(t, "fsterm", acp.Options{Task: "go"})
	r.waitText(t, "code is done and waiting for you.")
	refused, _ := r.file(acptest.RefusedFile)
	for _, m := range []string{"fs/read_text_file", "fs/write_text_file", "terminal/create"} {
		if !strings.Contains(refused, m+` {"code":-32601`) {
			t.Errorf("%s was not refused with an error: %q", m, refused)
		}
	}
	if !strings.Contains(r.text(), "Refused the agent's request fs/read_text_file") {
		t.Errorf("the refusal was not said:\n%s", r.text())
	}
	init, _ := r.file(acptest.InitFile)
	var p struct {
		Capabilities struct {
			Fs          map[string]bool `json:"fs"`
			Terminal    bool            `json:"terminal"`
			Elicitation struct {
				Form *struct{} `json:"form"`
			} `json:"elicitation"`
		} `json:"clientCapabilities"`
	}
	if err := json.Unmarshal([]byte(init), &p); err != nil {
		t.Fatal(err)
	}
	if p.Capabilities.Fs["readTextFile"] || p.Capabilities.Fs["writeTextFile"] || p.Capabilities.Terminal || p.Capabilities.Elicitation.Form == nil {
		t.Errorf("capabilities advertised: %s", init)
	}
}

// An agent that dies while it asks for permission: the task is said lost,
// the question void, and nothing is accepted.
func TestAgentDiesMidRequest(t *testing.T) {
	t.Parallel()
	r := start(t, "die", acp.Options{Task: "go"})
	r.waitText(t, "code ended before finishing the task; the task is lost.")
	acptest.Wait(t, "the subscription", r.ended)
	all := r.text()
	if strings.Contains(all, "Sent your answer") {
		t.Errorf("an answer was sent:\n%s", all)
	}
	if !strings.Contains(all, "exit status 3") {
		t.Errorf("how the agent ended was not said:\n%s", all)
	}
	if err := r.c.Confirm(acptest.Context(t), 1, protocol.DecisionAccept); err == nil {
		t.Error("the lost prompt could still be accepted")
	}
	r.checkValid(t)
}

// A switch to a mode in which the agent acts without asking is said as a
// warning every time it becomes current.
func TestModeWarnings(t *testing.T) {
	t.Parallel()
	r := start(t, "modes", acp.Options{Task: "go"})
	r.waitText(t, "code is done and waiting for you.")
	all := r.text()
	if n := strings.Count(all, "Warning: in mode yolo the agent acts without asking you."); n != 2 {
		t.Errorf("the yolo warning was said %d times, want 2:\n%s", n, all)
	}
	if !strings.Contains(all, "code is now in mode default.") {
		t.Errorf("the switch back was not said:\n%s", all)
	}
	if mode, auto := r.bridge.Mode(); mode != "yolo" || !auto {
		t.Errorf("Mode() = %q, %v", mode, auto)
	}
	r.checkValid(t)
}

// --agent-mode chooses a mode; one the agent does not offer is said, and
// the agent stays where it was (here auto: warned).
func TestChosenMode(t *testing.T) {
	t.Parallel()
	r := start(t, "happy", acp.Options{Mode: "plan"})
	r.waitText(t, `The agent offers no mode "plan"; it stays in mode "auto".`)
	r.waitText(t, "Warning: in mode auto the agent acts without asking you.")
}

// The agent's standard error never reaches the lines raw: each line is
// sanitized and cut, and after the first 200 lines none is said (their
// count comes when the agent ends). A line of its log (Claude Code's
// adapter writes ten as it opens a session) is a quiet status, not a
// warning; a line that says something went wrong is a warning.
func TestStderrBounded(t *testing.T) {
	t.Parallel()
	r := start(t, "stderr", acp.Options{Task: "go"})
	r.waitText(t, "line 196")
	r.waitText(t, "code is done and waiting for you.")
	all := r.text()
	for _, bad := range []string{"\x1b", "\a", "\u202e"} {
		if strings.Contains(all, bad) {
			t.Errorf("%q reached the lines", bad)
		}
	}
	var warned, logged []string
	for _, l := range strings.Split(all, "\n") {
		if len(l) > 600 {
			t.Errorf("a line of %d bytes: %.80s…", len(l), l)
		}
		switch {
		case strings.HasPrefix(l, "warning"):
			warned = append(warned, l)
		case strings.HasPrefix(l, "The producer's log: "):
			logged = append(logged, l)
		}
	}
	if !strings.Contains(all, "line 196") || strings.Contains(all, "line 197") {
		t.Errorf("not the first 200 lines said:\n%s", all)
	}
	if len(logged) < 190 || !strings.Contains(logged[0], "[session/create] sessionId=s1 phase=settings") {
		t.Errorf("the agent's log lines are not quiet statuses (%d of them):\n%s", len(logged), all)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "Producer: warning evil") {
		t.Errorf("warnings %q, want only the line that says something is wrong", warned)
	}
}

// An agent that writes more on standard error while it starts than the
// client can queue before it has the connection still opens (Dial waited
// on a Recv nobody could call before, and the test hung): its first lines
// are said, as many as from any agent.
func TestStderrWhileStarting(t *testing.T) {
	t.Parallel()
	r := start(t, "stderr-start", acp.Options{})
	r.waitText(t, "code is ready")
	r.waitText(t, "starting, step 199")
	if strings.Contains(r.text(), "starting, step 200") {
		t.Errorf("more than 200 lines said:\n%s", r.text())
	}
}
