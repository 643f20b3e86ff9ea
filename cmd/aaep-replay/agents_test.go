package main

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/ttytest"
)

// twoAgents is a real capture of two agents made by aaep-capture with
// --auto-reply reject from two aaep-replay serve of corpus clean.aaep, one
// over SSE (labelled mail), one over WebSocket (labelled code): the same
// sessions, event IDs and reply tokens on both. serve ignores replies, so
// each agent invokes transfer_funds after its rejection: one violation each.
const twoAgents = "testdata/two-agents.aaep"

// check judges each connection on its own and names the agent on each line.
func TestCheckTwoAgents(t *testing.T) {
	code, out, _ := runReplay(t, "check", twoAgents)
	if code != exitViolations {
		t.Errorf("exit %d, want %d", code, exitViolations)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		twoAgents + ": line 26, agent code, session sess_clean01: violation (confirmation, spec section 4.5.3): ",
		twoAgents + ": line 27, agent mail, session sess_clean01: violation (confirmation, spec section 4.5.3): ",
		twoAgents + ": 44 messages checked, 2 violations and 0 warnings.",
	}
	if len(lines) != len(want) {
		t.Fatalf("check said:\n%s", out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want %q…", i+1, lines[i], w)
		}
	}
	_, js, _ := runReplay(t, "check", "--json", twoAgents)
	var doc struct {
		Files []struct {
			Connections []struct{ ID, Label string }
			Problems    []struct {
				Connection string
			}
		}
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	f := doc.Files[0]
	if len(f.Connections) != 2 || f.Connections[0].Label != "mail" || len(f.Problems) != 2 || f.Problems[0].Connection != "c2" || f.Problems[1].Connection != "c1" {
		t.Errorf("JSON: %+v", f)
	}
}

// stats counts per agent and in all; trace groups the sessions by agent.
func TestStatsTraceTwoAgents(t *testing.T) {
	_, out, _ := runReplay(t, "stats", twoAgents)
	for _, w := range []string{
		": 51 records, 4 sessions, 2 agents.\n",
		"\nIn all:\nDuration: 1.771 seconds.\nEvents: 36.\n",
		"\nAgent Bank Helper (bank-agent) on connection code, 2 sessions:\nDuration: 0.910 seconds.\nEvents: 18.\n",
		"\nAgent Bank Helper (bank-agent) on connection mail, 2 sessions:\n",
		"\nSession sess_clean01 of agent bank-agent on connection mail, ended with agent.session.completed:\n",
		"Confirmations: 4 asked; 0 accepted, 4 rejected, 0 timed out, 0 unanswered.\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("stats lack %q:\n%s", w, out)
		}
	}
	_, out, _ = runReplay(t, "trace", twoAgents)
	mail, code := strings.Index(out, "\nConnection mail: 2 sessions.\n"), strings.Index(out, "\nConnection code: 2 sessions.\n")
	if mail < 0 || code < 0 || strings.Count(out, "\nSession sess_clean01, agent Bank Helper on connection ") != 2 {
		t.Errorf("trace:\n%s", out)
	}
}

// play gives each connection its own client and names the agent on every
// line it tells, in the order recorded.
func TestPlayTwoAgents(t *testing.T) {
	code, out, errOut := runReplay(t, "play", "--speed", "0", twoAgents)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains(lines[1], "The capture holds 2 agents, each played by its own client: mail (http://127.0.0.1:18473), code (ws://127.0.0.1:18474/aaep/v1/ws).") {
		t.Errorf("second line: %q", lines[1])
	}
	per := map[string]int{}
	for _, l := range lines[2:] {
		_, text, _ := strings.Cut(l, " ") // the time
		text = strings.TrimPrefix(text, "CRITICAL ")
		agent, _, ok := strings.Cut(text, ": ")
		if !ok || agent != "mail" && agent != "code" {
			t.Errorf("a line names no agent: %q", l)
		}
		per[agent]++
	}
	if per["mail"] != per["code"] || per["mail"] < 20 {
		t.Errorf("lines per agent: %v\n%s", per, out)
	}
	first := func(s string) int { return strings.Index(out, s) }
	// code's session started first in the recording (line 14), mail's after.
	if a, b := first("code: Bank Helper is starting."), first("mail: Bank Helper is starting."); a < 0 || b < 0 || a > b {
		t.Errorf("out of recorded order:\n%s", out)
	}
	if n := strings.Count(out, "CRITICAL code: Confirmation needed") + strings.Count(out, "CRITICAL mail: Confirmation needed"); n != 4 {
		t.Errorf("%d prompts told, want 4:\n%s", n, out)
	}
}

// serve serves one agent of a capture of several: the first, or --agent's.
func TestServeOneAgent(t *testing.T) {
	t.Parallel()
	code, _, errOut := runReplay(t, "serve", "--agent", "nosuch", twoAgents)
	if code != exitUnreadable || !strings.Contains(errOut, "--agent nosuch: the capture holds no such agent; it holds mail, code") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	code, _, errOut = runReplay(t, "serve", "--agent", "mail", corpus+"clean.aaep")
	if code != exitUnreadable || !strings.Contains(errOut, "holds the messages of one agent only") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	bin := ttytest.Build(t, ".", "aaep-replay")
	for _, tc := range []struct {
		flags []string
		name  string
	}{{nil, "mail"}, {[]string{"--agent", "code"}, "code"}} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		srv := startServe(t, ctx, bin, append(append([]string{"serve", "--speed", "0", "--once", "--linger", "0s"}, tc.flags...), twoAgents)...)
		await(t, ctx, srv.said, "The capture holds 2 agents (mail, code); serving "+tc.name+" only (--agent NAME serves another).", "serve")
		await(t, ctx, srv.said, "Serving 18 messages of ", "serve")
		at := srv.bindings(t, ctx)
		body, err := httpGet(ctx, strings.Fields(at["HTTP, deployed layout: "])[0])
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(body), `"session_id":"sess_clean0`); n != 18 {
			t.Errorf("%s: %d events served, want one agent's 18:\n%s", tc.name, n, body)
		}
		srv.stop(t, ctx, false)
	}
}

// A hostile capture's connection names (label, endpoint) reach no line
// unsanitized: no escape sequence, no line break, no forged line.
func TestHostileConnectionNames(t *testing.T) {
	bad := `x\u001b]0;pwn\u0007\nCRITICAL forged\u202e`
	ev := `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.session.started","event_id":"e1","session_id":"s1","sequence_number":0,"timestamp":"2026-06-30T14:00:00Z","producer":{"agent_id":"a"},"summary_normal":"Hi."}`
	capture := `{"aaep_capture":2,"started_at":"2026-06-30T14:00:00Z","connections":[{"id":"c1","label":"` + bad + `","endpoint":"` + bad + `"},{"id":"c2","endpoint":"` + bad + `"}]}` + "\n" +
		`[0.1,"i",` + ev + `,"c1"]` + "\n" + `[0.2,"i",` + ev + `,"c2"]` + "\n" +
		`[0.3,"i",{"type":"aaep:agent.tool.completed","session_id":"s1"},"c2"]` + "\n"
	path := t.TempDir() + "/hostile.aaep"
	if err := os.WriteFile(path, []byte(capture), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"play", "--speed", "0"}, {"check"}, {"stats"}, {"trace"}, {"serve", "--agent", "nosuch"}} {
		_, out, errOut := runReplay(t, append(args, path)...)
		all := out + errOut
		if strings.ContainsAny(all, "\x1b\x07\u202e") || strings.Contains(all, "\nCRITICAL forged") {
			t.Errorf("%s let the name through:\n%q", args[0], all)
		}
		if !strings.Contains(all, "CRITICAL forged") && args[0] != "check" {
			t.Errorf("%s does not name the agent at all:\n%s", args[0], all)
		}
	}
}

// Playing a capture of several agents numbers prompts uniquely across
// them, as aaep-listen did when they were recorded: no two agents' prompts
// are told under the same number.
func TestPlayTwoAgentsPromptNumbersUnique(t *testing.T) {
	code, out, errOut := runReplay(t, "play", "--speed", "0", twoAgents)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	owner := map[string]string{}
	for _, m := range playPrompt.FindAllStringSubmatch(out, -1) {
		agent, n := m[1], m[2]
		if o, ok := owner[n]; ok && o != agent {
			t.Errorf("prompt %s told as %s's and %s's:\n%s", n, o, agent, out)
		}
		owner[n] = agent
	}
	if len(owner) != 4 {
		t.Errorf("%d prompt numbers, want 4: %v\n%s", len(owner), owner, out)
	}
}

var playPrompt = regexp.MustCompile(`(?m)CRITICAL (\w+): Confirmation needed, prompt (\d+)`)

// The names a capture's header gives its connections cannot make one
// agent pass for another: a label that is not letters, digits, '-' and
// '_' (one that holds ": CRITICAL", say) is not used, and two connections
// the header names alike (the same label in another case, a label that is
// another's endpoint) are told apart, in play, check, stats and trace.
func TestCaptureNamesToldApart(t *testing.T) {
	ev := `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.session.started","event_id":"evt_1","session_id":"sess_1","sequence_number":0,"timestamp":"2026-06-30T14:00:00Z","producer":{"agent_id":"a"},"summary_normal":"Hi."}`
	capture := `{"aaep_capture":2,"started_at":"2026-06-30T14:00:00Z","connections":[` +
		`{"id":"c1","label":"mail","endpoint":"http://127.0.0.1:1"},{"id":"c2","label":"MAIL","endpoint":"http://127.0.0.1:2"},` +
		`{"id":"c3","label":"code: CRITICAL","endpoint":"mail"},{"id":"c4","endpoint":"mail"},{"id":"mail","endpoint":"http://127.0.0.1:1"}]}` + "\n"
	for _, c := range []string{"c1", "c2", "c3", "c4", "mail"} {
		capture += `[0.1,"i",` + ev + `,"` + c + `"]` + "\n"
	}
	path := t.TempDir() + "/alike.aaep"
	if err := os.WriteFile(path, []byte(capture), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		name *regexp.Regexp // the agent named on a line about it
	}{
		{[]string{"play", "--speed", "0"}, regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d (.*): Hi\.$`)},
		{[]string{"check"}, regexp.MustCompile(`(?m), agent (.*), session sess_1: .*started on line`)},
		{[]string{"stats"}, regexp.MustCompile(`(?m)^Agent a on connection (.*), 1 session:$`)},
		{[]string{"trace"}, regexp.MustCompile(`(?m)^Connection (.*): 1 session\.$`)},
	} {
		_, out, errOut := runReplay(t, append(c.args, path)...)
		seen := map[string]bool{}
		for _, m := range c.name.FindAllStringSubmatch(out, -1) {
			n := strings.ToLower(m[1])
			if seen[n] {
				t.Errorf("%s: two agents named %q:\n%s", c.args[0], m[1], out)
			}
			seen[n] = true
			if strings.Contains(m[1], "CRITICAL") || strings.Contains(m[1], ":") && !strings.Contains(m[1], "127.0.0.1") {
				t.Errorf("%s: the header's label %q is used:\n%s", c.args[0], m[1], out)
			}
		}
		if len(seen) != 5 {
			t.Errorf("%s: %d agents named, want 5:\n%s%s", c.args[0], len(seen), out, errOut)
		}
	}
}
