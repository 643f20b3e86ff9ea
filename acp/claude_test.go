package acp_test

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/internal/anthropictest"
	"github.com/aaep-term/aaep-term/internal/realagent"
	"github.com/aaep-term/aaep-term/protocol"
)

// The real Claude Code, through its ACP adapter and with a scripted
// model, starts in mode auto; the bridge selects default, so it asks
// before it runs a shell command. Accept runs it (the file exists) and its
// answer and the end of the task are said; reject runs nothing, the tool
// call is said failed and the agent goes on to its answer.
func TestClaudeCode(t *testing.T) {
	acceptAndReject(t, func(t *testing.T, decision string) (realagent.Agent, acp.Options, []announce.Sink, func(string)) {
		model, err := anthropictest.Start(anthropictest.Shell("echo ok > proof.txt", "Write the proof file", "I am finished."))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(model.Close)
		return realagent.Claude(t, model.URL), acp.Options{Name: "claude"}, nil, func(all string) {
			if !strings.Contains(all, "claude is ready") {
				t.Errorf("the agent was not named claude:\n%s", all)
			}
			if !strings.Contains(all, "Consequence: Write the proof file. Runs the command: echo ok > proof.txt.") {
				t.Errorf("the consequence does not say the command in sentences:\n%s", all)
			}
			results := model.Results()
			switch decision {
			case protocol.DecisionAccept:
				if !strings.Contains(all, ": done") || !strings.Contains(all, "I am finished.") {
					t.Errorf("the completion or the answer was not said:\n%s", all)
				}
			default:
				if strings.Contains(all, ": done") || !strings.Contains(all, ": failed") {
					t.Errorf("after reject the tool call was not said failed (and only that):\n%s", all)
				}
				if !strings.Contains(all, "I am finished.") {
					t.Errorf("the agent's answer after the reject was not said:\n%s", all)
				}
				if len(results) != 1 || !results[0].IsError {
					t.Errorf("the model was not told the command was refused: %+v", results)
				}
			}
			if t.Failed() {
				t.Logf("requests to the scripted model: %q", model.Requests())
			}
		}
	})
}

// Claude Code's question tool (AskUserQuestion) reaches a client that
// takes forms as a form (elicitation/create): the bridge asks its fields
// as questions, the choice from the schema; the answer reaches the model.
func TestClaudeCodeQuestion(t *testing.T) {
	t.Parallel()
	model, err := anthropictest.Start(anthropictest.Script{
		Tools: []string{"AskUserQuestion"},
		Input: map[string]any{"questions": []map[string]any{{
			"question": "Which database shall I use?", "header": "Database", "multiSelect": false,
			"options": []map[string]string{{"label": "Postgres", "description": "The usual one"}, {"label": "MySQL", "description": "The other one"}},
		}}},
		Answer: "I will use the database you chose.",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	claude := realagent.Claude(t, model.URL)
	r := startEndpoint(t, claude.Endpoint, acp.Options{Name: "claude", Env: claude.Env, Task: "set up the database"})
	p := r.nthPrompt(t, 1)
	r.waitText(t, "Choices: 1, Postgres; 2, MySQL")
	if err := r.c.Answer(acptest.Context(t), p.Number, "2"); err != nil {
		t.Fatal(err)
	}
	// The adapter adds a free-text field ("Other") to each question.
	p = r.nthPrompt(t, 2)
	if err := r.c.Answer(acptest.Context(t), p.Number, "-"); err != nil {
		t.Fatal(err)
	}
	r.waitText(t, "is done and waiting for you.")
	results := model.Results()
	if len(results) != 1 || !strings.Contains(results[0].Content, "MySQL") || results[0].IsError {
		t.Errorf("the model was told %+v, want the choice MySQL:\n%s\nrequests: %q", results, r.text(), model.Requests())
	}
	if all := r.text(); !strings.Contains(all, "I will use the database you chose.") {
		t.Errorf("the answer was not said:\n%s", all)
	}
	r.checkValid(t)
}
