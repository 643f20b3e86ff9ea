package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/anthropictest"
	"github.com/aaep-term/aaep-term/internal/realagent"
)

// Two real agents in one aaep-listen, Claude Code labelled code and
// Gemini CLI labelled gem, each with a scripted model that asks to run a
// shell command writing a file of its own. The user accepts code's prompt
// by its number and rejects gem's: only code's file exists, and every
// line about a prompt, a command and an answer names the agent it is about.
func TestListenTwoRealAgents(t *testing.T) {
	t.Parallel()
	model, err := anthropictest.Start(anthropictest.Shell("echo code > code.txt", "Write the code file", "Claude is finished."))
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	claude := realagent.Claude(t, model.URL)
	gem := realagent.Gemini(t, "echo gem > gem.txt", "Write the gem file", "Gemini is finished.")
	dir := t.TempDir()
	r := startScripted(t, dir, "", "--plain", "--no-time", "code="+claude.Alone(), "gem="+gem.Alone())
	r.waitCount(t, "It waits for your task", 2)
	r.typeLine(t, "tell code write the code file")
	r.typeLine(t, "tell gem write the gem file")
	r.waitCount(t, "Confirmation needed, prompt", 2)
	prompts := map[string]string{} // agent → its prompt's number
	for _, m := range regexp.MustCompile(`(?m)^\S+ (\S+): Confirmation needed, prompt (\d+): `).FindAllStringSubmatch(r.text(), -1) {
		prompts[m[1]] = m[2]
	}
	if prompts["code"] == "" || prompts["gem"] == "" {
		t.Fatalf("no prompt from each agent: %v\n%s", prompts, r.text())
	}
	if _, err := os.Stat(filepath.Join(dir, "code.txt")); err == nil {
		t.Fatal("a command ran before the answer")
	}
	r.typeLine(t, "reject "+prompts["gem"])
	r.typeLine(t, "accept "+prompts["code"])
	r.wait(t, "which cannot be undone? Type yes to send")
	r.typeLine(t, "yes")
	r.waitCount(t, "is done and waiting for you.", 2)
	if b, err := os.ReadFile(filepath.Join(dir, "code.txt")); string(b) != "code\n" {
		t.Errorf("code's file after accept: %q (%v)", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gem.txt")); err == nil {
		t.Error("gem's command ran after reject")
	}
	// Each line about a file, an answer or a prompt names its agent.
	all := r.text()
	for _, want := range []string{
		"gem: Sent your answer to prompt " + prompts["gem"] + ": reject.",
		"code: Sent your answer to prompt " + prompts["code"] + ": accept.",
		"code: echo code > code.txt: done", "code: Claude is finished.", "code: Finished: code is done",
		"gem: Gemini is finished.", "gem: Finished: gem is done",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("never said %q", want)
		}
	}
	for _, line := range strings.Split(all, "\n") {
		for mark, agent := range map[string]string{"code.txt": "code", "Claude": "code", "gem.txt": "gem", "Gemini": "gem"} {
			if strings.Contains(line, mark) && !strings.HasPrefix(strings.TrimPrefix(line, "CRITICAL "), agent+": ") {
				t.Errorf("a line about %s does not name %s: %q", mark, agent, line)
			}
		}
	}
	if results := model.Results(); len(results) != 1 || results[0].IsError {
		t.Errorf("Claude's model was told %+v, want the command's output", results)
	}
	if t.Failed() {
		t.Logf("the listener said:\n%s", all)
	}
}
