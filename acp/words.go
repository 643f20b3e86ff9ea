package acp

// words.go: what a tool call changes and what it gave back, in words, for
// the details of a permission request and the line of a tool's end: each
// diff line by line, the command, the exit status and the output.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// hunk is the part of a diff that changes: the line it starts at (from
// 0), the lines removed and the lines added, after the lines both
// versions share at their start and end. A new file adds every line.
func hunk(c toolContent) (at int, removed, added []string) {
	newLines := lines(c.NewText)
	if c.OldText == nil {
		return 0, nil, newLines
	}
	oldLines := lines(*c.OldText)
	i := 0
	for i < len(oldLines) && i < len(newLines) && oldLines[i] == newLines[i] {
		i++
	}
	j := 0
	for j < len(oldLines)-i && j < len(newLines)-i && oldLines[len(oldLines)-1-j] == newLines[len(newLines)-1-j] {
		j++
	}
	return i, oldLines[i : len(oldLines)-j], newLines[i : len(newLines)-j]
}

// maxDetailLines is how many lines removed, added or output the details
// quote; the rest are counted.
const maxDetailLines = 40

// changes says each diff of a tool call line by line, for its details:
// the file, the line the change starts at, the lines removed and added.
func changes(tc toolCall) string {
	var parts []string
	for _, c := range contents(tc.Content) {
		if c.Type != "diff" {
			continue
		}
		if len(parts) == 8 {
			parts = append(parts, "and more files")
			break
		}
		at, removed, added := hunk(c)
		s := fmt.Sprintf("%s from line %d", nonEmpty(c.Path, "a file"), at+1)
		if c.OldText == nil {
			s = nonEmpty(c.Path, "a file") + ", a new file"
		}
		if len(removed) > 0 {
			s += ", removed: " + lineList(removed)
		}
		if len(added) > 0 {
			s += ", added: " + lineList(added)
		}
		if len(removed)+len(added) == 0 {
			s = nonEmpty(c.Path, "a file") + ", no line changed"
		}
		parts = append(parts, s)
	}
	return clip(strings.Join(parts, "; "), 8000)
}

// lineList quotes lines one after another, " / " between them, each cut
// to 200 bytes, at most maxDetailLines of them.
func lineList(ls []string) string {
	var out []string
	for i, l := range ls {
		if i == maxDetailLines {
			out = append(out, "and "+count(len(ls)-i, "more line"))
			break
		}
		if strings.TrimSpace(l) == "" {
			l = "(a blank line)"
		}
		out = append(out, clip(l, 200))
	}
	return strings.Join(out, " / ")
}

// result says what a finished tool call gave back: its exit status when
// its raw output names one, and how many lines of output it wrote; detail
// quotes the output too. Both are "" when the agent says nothing of it.
func result(raw, content json.RawMessage) (words, detail string) {
	var out map[string]json.RawMessage
	_ = json.Unmarshal(raw, &out)
	var parts []string
	for _, k := range []string{"exit_code", "exitCode", "exit_status", "exitStatus", "returncode", "returnCode"} {
		var code int64
		if json.Unmarshal(out[k], &code) == nil && out[k] != nil {
			parts = append(parts, fmt.Sprintf("exit status %d", code))
			break
		}
	}
	var text []string
	for _, k := range []string{"output", "stdout", "aggregated_output", "formatted_output", "stderr"} {
		var s string
		if json.Unmarshal(out[k], &s) == nil && strings.TrimSpace(s) != "" {
			text = append(text, lines(s)...)
		}
	}
	if len(text) == 0 {
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			text = lines(s)
		}
	}
	if len(text) == 0 {
		for _, c := range contents(content) {
			if c.Type == "content" && c.Content.Type == "text" && strings.TrimSpace(c.Content.Text) != "" {
				text = append(text, lines(c.Content.Text)...)
			}
		}
	}
	if len(text) > 0 {
		parts = append(parts, count(len(text), "line")+" of output")
	}
	words = strings.Join(parts, ", ")
	if len(text) > 0 {
		detail = "Output: " + clip(lineList(text), 4000)
	}
	return words, detail
}

// codexLists are the headings under which codex-acp appends to a
// permission request's text what its raw input and options say already:
// the command again, as the rule it proposes for "don't ask again", and
// its decisions by their internal names.
var codexLists = []string{"Proposed Amendment:", "Proposed Execpolicy Amendment:", "Proposed Network Policy Amendment", "Available Decisions:"}

// ownWords is the text of a permission request's content as the user
// hears it: Codex's (its raw input lists available_decisions) without
// the lists it appends, from the first line that starts one; the command
// and the options are said from the raw input and the options instead.
// Any other agent's text is kept whole.
func ownWords(text string, raw json.RawMessage) string {
	var in map[string]json.RawMessage
	if json.Unmarshal(raw, &in) != nil || in["available_decisions"] == nil {
		return strings.TrimSpace(text)
	}
	var kept []string
	for _, l := range strings.Split(text, "\n") {
		if slices.ContainsFunc(codexLists, func(h string) bool { return strings.HasPrefix(strings.TrimSpace(l), h) }) {
			break
		}
		kept = append(kept, l)
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}

// stringField is raw's field name when it is a string, else "".
func stringField(raw json.RawMessage, name string) string {
	var in map[string]json.RawMessage
	var s string
	if json.Unmarshal(raw, &in) != nil || json.Unmarshal(in[name], &s) != nil {
		return ""
	}
	return s
}
