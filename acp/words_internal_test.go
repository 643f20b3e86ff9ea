package acp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// What a diff changes is said line by line for the details, and what a
// finished tool gave back (exit status, lines of output) for its line,
// whatever field the agent puts it in: golden words.
func TestHearingWords(t *testing.T) {
	str := func(s string) *string { return &s }
	diff := func(path string, old *string, new string) json.RawMessage {
		b, _ := json.Marshal([]toolContent{{Type: "diff", Path: path, OldText: old, NewText: new}})
		return b
	}
	var many strings.Builder
	for i := range 45 {
		fmt.Fprintf(&many, "line %d\n", i)
	}
	for _, tt := range []struct {
		name    string
		content json.RawMessage
		want    string
	}{
		{"lines changed", diff("notes.txt", str("a\nb\nc\n"), "a\nB\nB2\nc\n"), "notes.txt from line 2, removed: b, added: B / B2"},
		{"a new file", diff("new.go", nil, "package x\n\nfunc X() {}\n"), "new.go, a new file, added: package x / (a blank line) / func X() {}"},
		{"nothing changed", diff("same.txt", str("a\n"), "a\n"), "same.txt, no line changed"},
		{"a long addition", diff("big.txt", str(""), many.String()), "big.txt from line 1, added: line 0 / line 1"},
		{"no diff", json.RawMessage(`[{"type":"content","content":{"type":"text","text":"hi"}}]`), ""},
	} {
		got := changes(toolCall{Content: tt.content})
		if !strings.HasPrefix(got, tt.want) || tt.want == "" && got != "" {
			t.Errorf("%s: changes %q, want %q", tt.name, got, tt.want)
		}
		if tt.name == "a long addition" && !strings.HasSuffix(got, "line 39 / and 5 more lines") {
			t.Errorf("a long addition ends %q", got[max(len(got)-40, 0):])
		}
	}
	for _, tt := range []struct {
		name, raw, content string
		words, detail      string
	}{
		{"exit status and output", `{"exit_code":1,"output":"a\nb\n"}`, ``, "exit status 1, 2 lines of output", "Output: a / b"},
		{"camel case, standard error", `{"exitCode":0,"stdout":"","stderr":"warn\n"}`, ``, "exit status 0, 1 line of output", "Output: warn"},
		{"output as a string", `"hello\nworld"`, ``, "2 lines of output", "Output: hello / world"},
		{"output as content", `null`, `[{"type":"content","content":{"type":"text","text":"ok"}}]`, "1 line of output", "Output: ok"},
		{"nothing told", ``, ``, "", ""},
	} {
		words, detail := result(json.RawMessage(tt.raw), json.RawMessage(tt.content))
		if words != tt.words || detail != tt.detail {
			t.Errorf("%s: %q, %q; want %q, %q", tt.name, words, detail, tt.words, tt.detail)
		}
	}
}
