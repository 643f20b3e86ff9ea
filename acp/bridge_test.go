package acp_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/protocol"
)

// Accepting the permission lets the tool run: the proof file exists, the
// agent's allow_once option was selected, and the completion and the
// answer are said.
func TestAcceptRunsTool(t *testing.T) {
	t.Parallel()
	r := start(t, "happy", acp.Options{Task: "write the proof file"})
	p := r.nthPrompt(t, 1)
	n := p.Number
	if _, ok := r.file(acptest.ProofFile); ok {
		t.Fatal("the tool ran before the user answered")
	}
	// details N reads the diff line by line and the command whole.
	for _, want := range []string{
		"Consequence: \u2068Changes notes.txt: 1 line removed, 2 added. Runs the command: echo ok > proof.txt\u2069",
		"changes: notes.txt from line 2, removed: b, added: B / B2; command: echo ok > proof.txt;",
	} {
		if d := announce.PromptDetails(p, time.Now()); !strings.Contains(d, want) {
			t.Errorf("details lack %q:\n%s", want, d)
		}
	}
	if err := r.c.Confirm(acptest.Context(t), n, protocol.DecisionAccept); err != nil {
		t.Fatal(err)
	}
	r.waitText(t, "code is done and waiting for you.")
	if _, ok := r.file(acptest.ProofFile); !ok {
		t.Errorf("no proof file after accept:\n%s", r.text())
	}
	if out, _ := r.file(acptest.OutcomeFile); !strings.Contains(out, `"optionId":"yes"`) {
		t.Errorf("outcome %q, want the allow_once option", out)
	}
	all := r.text()
	if strings.Contains(all, "another session") {
		t.Errorf("an update sent before session/new was answered was taken for another session's:\n%s", all)
	}
	for _, want := range []string{"The proof file is written.", "Write the proof file: done, exit status 0, 1 line of output.", "step 2 of 3: Write the proof file", "code is thinking."} {
		if !strings.Contains(all, want) {
			t.Errorf("never said %q:\n%s", want, all)
		}
	}
	if mode, _ := r.file(acptest.ModeFile); strings.TrimSpace(mode) != "default" {
		t.Errorf("modes set %q, want default (the agent started in auto)", mode)
	}
	r.checkValid(t)
}

// Rejecting selects the agent's reject_once option: the tool never runs,
// and what the agent did next is said.
func TestRejectRunsNothing(t *testing.T) {
	t.Parallel()
	r := start(t, "happy", acp.Options{Task: "write the proof file"})
	if err := r.c.Confirm(acptest.Context(t), r.prompt(t), protocol.DecisionReject); err != nil {
		t.Fatal(err)
	}
	r.waitText(t, "code is done and waiting for you.")
	if _, ok := r.file(acptest.ProofFile); ok {
		t.Error("the tool ran after reject")
	}
	if out, _ := r.file(acptest.OutcomeFile); !strings.Contains(out, `"optionId":"no"`) {
		t.Errorf("outcome %q, want the reject_once option", out)
	}
	for _, want := range []string{"You said no, so I wrote nothing.", "Write the proof file: failed."} {
		if !strings.Contains(r.text(), want) {
			t.Errorf("never said %q:\n%s", want, r.text())
		}
	}
	r.checkValid(t)
}

// A permission request nobody answers is rejected when its window ends,
// never accepted.
func TestUnansweredIsRejected(t *testing.T) {
	t.Parallel()
	r := start(t, "happy", acp.Options{Task: "write the proof file", PromptWindow: time.Second})
	r.prompt(t)
	r.waitText(t, "code is done and waiting for you.")
	if _, ok := r.file(acptest.ProofFile); ok {
		t.Error("the tool ran with nobody answering")
	}
	if out, _ := r.file(acptest.OutcomeFile); !strings.Contains(out, `"optionId":"no"`) {
		t.Errorf("outcome %q, want the reject_once option", out)
	}
}

// The agent's permission options decide what accept can pick: with no
// allow_once, accept is answered "cancelled" (never allow_always, never a
// reject); among forty options, allow_once is found wherever it is.
func TestPermissionOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ script, outcome, proof string }{
		{"noallow", `{"outcome":{"outcome":"cancelled"}}`, ""},
		{"forty", `"optionId":"opt38"`, "ok\n"},
	} {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			r := start(t, tc.script, acp.Options{Task: "go"})
			if err := r.c.Confirm(acptest.Context(t), r.prompt(t), protocol.DecisionAccept); err != nil {
				t.Fatal(err)
			}
			r.waitFor(t, "the task's end", func(s string) bool { return strings.Contains(s, "waiting for you") })
			if out, _ := r.file(acptest.OutcomeFile); !strings.Contains(out, tc.outcome) {
				t.Errorf("outcome %q, want %s", out, tc.outcome)
			}
			if proof, _ := r.file(acptest.ProofFile); proof != tc.proof {
				t.Errorf("proof file %q, want %q", proof, tc.proof)
			}
			r.checkValid(t)
		})
	}
}

// Cancel sends session/cancel and answers the waiting permission request
// "cancelled"; the task ends cancelled by the user.
func TestCancel(t *testing.T) {
	t.Parallel()
	r := start(t, "happy", acp.Options{Task: "write the proof file"})
	r.prompt(t)
	if err := r.bridge.Cancel(); err != nil {
		t.Fatal(err)
	}
	r.waitText(t, "The task was cancelled. code is waiting for you.")
	if out, _ := r.file(acptest.OutcomeFile); !strings.Contains(out, `"cancelled"`) {
		t.Errorf("outcome %q, want cancelled", out)
	}
	if _, ok := r.file(acptest.ProofFile); ok {
		t.Error("the tool ran after cancel")
	}
	if err := r.bridge.Cancel(); !isNotTaken(err, "code is doing no task.") {
		t.Errorf("a second cancel with no task: %v", err)
	}
	r.checkValid(t)
}

// isNotTaken reports whether err is the bridge not taking a task or a
// cancel, in words.
func isNotTaken(err error, words string) bool {
	nt, ok := errors.AsType[*acp.NotTaken](err)
	return ok && nt.Words() == words && err.Error() == "acp: "+words
}

// Tell gives a task; a second one while the first goes on is refused.
func TestTell(t *testing.T) {
	t.Parallel()
	r := start(t, "happy", acp.Options{})
	r.waitText(t, "It waits for your task")
	if err := r.bridge.Tell("write the proof file"); err != nil {
		t.Fatal(err)
	}
	r.prompt(t)
	err := r.bridge.Tell("another")
	if !isNotTaken(err, "code is still working on a task; cancel it or wait for its end.") {
		t.Errorf("a second task while one goes on: %v", err)
	}
	if err := r.bridge.Tell(" \t"); !isNotTaken(err, "There is no task to give.") {
		t.Errorf("a blank task: %v", err)
	}
	if err := r.c.Confirm(acptest.Context(t), r.prompt(t), protocol.DecisionAccept); err != nil {
		t.Fatal(err)
	}
	r.waitText(t, "code is done and waiting for you.")
	if err := r.bridge.Tell("again"); err != nil {
		t.Errorf("a task after the first ended: %v", err)
	}
	r.checkValid(t)
}

// Each stop reason ends the task as the table says, and says the agent
// waits for the user.
func TestStopReasons(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ script, said string }{
		{"max_tokens", "code stopped: it reached its limit of tokens. code is waiting for you."},
		{"max_turn_requests", "code stopped: it reached its limit of model requests for one task."},
		{"refusal", "code refused to go on with the task. code is waiting for you."},
	} {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			r := start(t, tc.script, acp.Options{Task: "go"})
			r.waitText(t, tc.said)
			r.mu.Lock()
			last := r.events[len(r.events)-1]
			r.mu.Unlock()
			if last.Type != protocol.TypeSessionErrored {
				t.Errorf("the task ended with %s, want session.errored", last.Type)
			}
			r.checkValid(t)
		})
	}
}

// A permission request for a tool call not announced yet (Gemini CLI
// asks first) announces the call before the confirmation, so its
// completion follows an invocation.
func TestAskedBeforeAnnounced(t *testing.T) {
	t.Parallel()
	r := start(t, "asksfirst", acp.Options{Task: "go"})
	if err := r.c.Confirm(acptest.Context(t), r.prompt(t), protocol.DecisionAccept); err != nil {
		t.Fatal(err)
	}
	r.waitText(t, "code is done and waiting for you.")
	all := r.text()
	if strings.Contains(all, "without an earlier tool.invoked") {
		t.Errorf("the completion came without an invocation:\n%s", all)
	}
	r.mu.Lock()
	var types []string
	for _, ev := range r.events {
		types = append(types, ev.Type)
	}
	r.mu.Unlock()
	if got := strings.Join(types, " "); !strings.Contains(got, protocol.TypeToolInvoked+" "+protocol.TypeAwaitingConfirmation) {
		t.Errorf("events %s", got)
	}
	r.checkValid(t)
}

// An agent that announces a call it asked about only once allowed
// (Codex) has it announced once; one that ends its turn cancelled after a
// reject without a word on the call (Codex again) has the call said to
// have no result. Neither leaves a tool call "still running".
func TestCallAnnouncedAfterAskingOrLeftOpen(t *testing.T) {
	t.Parallel()
	for _, decision := range []string{protocol.DecisionAccept, protocol.DecisionReject} {
		t.Run(decision, func(t *testing.T) {
			t.Parallel()
			r := start(t, "codexlike", acp.Options{Task: "go"})
			if err := r.c.Confirm(acptest.Context(t), r.prompt(t), decision); err != nil {
				t.Fatal(err)
			}
			end := "code is done and waiting for you."
			if decision == protocol.DecisionReject {
				end = "The task was cancelled. code is waiting for you."
			}
			r.waitText(t, end)
			all := r.text()
			if strings.Contains(all, "still running") {
				t.Errorf("a tool call was left running:\n%s", all)
			}
			r.mu.Lock()
			invoked, completed := 0, 0
			for _, ev := range r.events {
				switch ev.Type {
				case protocol.TypeToolInvoked:
					invoked++
				case protocol.TypeToolCompleted:
					completed++
				}
			}
			r.mu.Unlock()
			if invoked != 1 || completed != 1 {
				t.Errorf("%d tool.invoked and %d tool.completed, want one each:\n%s", invoked, completed, all)
			}
			r.checkValid(t)
		})
	}
}

// Codex (codex-acp) appends to its permission request's text the command
// again, as the rule it proposes, and its decisions by their internal
// names. Its consequence is said in words: its reason, the command and
// the folder it runs in, without those lists.
func TestCodexConsequenceInWords(t *testing.T) {
	t.Parallel()
	r := start(t, "codexlike", acp.Options{Task: "go"})
	r.prompt(t)
	all := r.text()
	want := "Consequence: Write the proof file. Runs the command: /bin/bash -lc echo ok > proof.txt, in the folder " + acptest.CodexDir + "."
	if !strings.Contains(all, want) {
		t.Errorf("the consequence is not %q:\n%s", want, all)
	}
	for _, raw := range []string{"Proposed Amendment", "Available Decisions", "ApprovedExecpolicyAmendment"} {
		if strings.Contains(all, raw) {
			t.Errorf("Codex's list %q was said:\n%s", raw, all)
		}
	}
}
