package acp_test

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/internal/acptest"
)

// A form the agent asks to fill in (elicitation/create, form mode) comes
// as one question a field, its choices from the schema; an answer that
// does not fit the schema is said and asked again, and the agent gets
// the whole form only once every field fits.
func TestElicitationForm(t *testing.T) {
	t.Parallel()
	r := start(t, "elicit", acp.Options{Task: "set up the project"})
	answers := []struct {
		text  string
		words string // said with the question
	}{
		{"mysql", "Choices: 1, Postgres; 2, MySQL"},
		{"yes", "Write tests"},
		{"12", "A whole number from 1 up to 8"}, // the schema's maximum is 8
		{"4", "asked again"},
		{"-", "Answer - to leave it out"},
	}
	for i, a := range answers {
		p := r.nthPrompt(t, i+1)
		r.waitText(t, a.words)
		if err := r.c.Answer(acptest.Context(t), p.Number, a.text); err != nil {
			t.Fatalf("answer %q to prompt %d: %v", a.text, p.Number, err)
		}
	}
	r.waitText(t, "code is done and waiting for you.")
	got, _ := r.file(acptest.ElicitFile)
	if want := `{"action":"accept","content":{"db":"my","tests":true,"workers":4}}`; strings.TrimSpace(got) != want {
		t.Errorf("the agent got %s, want %s:\n%s", got, want, r.text())
	}
	if all := r.text(); !strings.Contains(all, "Your answer does not fit the agent's question") || !strings.Contains(all, "Form received.") {
		t.Errorf("the wrong answer or the agent's words after the form were not said:\n%s", all)
	}
	if true {
		t.Log(r.text())
	}
	r.checkValid(t)
}

// A question in URL mode is said with its address, sanitized, and
// declined: nothing opens it. A form of a kind the bridge cannot ask is
// answered cancelled, and said.
func TestElicitationRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ script, result, words string }{
		{"elicit-url", `{"action":"decline"}`, "opens no address"},
		{"elicit-nested", `{"action":"cancel"}`, "of a type this bridge cannot ask"},
	} {
		t.Run(c.script, func(t *testing.T) {
			t.Parallel()
			r := start(t, c.script, acp.Options{Task: "go"})
			r.waitText(t, "code is done and waiting for you.")
			if got, _ := r.file(acptest.ElicitFile); strings.TrimSpace(got) != c.result {
				t.Errorf("the agent got %s, want %s", got, c.result)
			}
			all := r.text()
			if !strings.Contains(all, c.words) || strings.Contains(all, "\x1b") {
				t.Errorf("not said (%q), or said raw:\n%q", c.words, all)
			}
			r.checkValid(t)
		})
	}
}
