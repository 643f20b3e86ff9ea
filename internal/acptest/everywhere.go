package acptest

// The script "everywhere": the text TextEnv names in every string of
// every message an agent may send, for the hostile-output table.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// TextEnv names the text the script "everywhere" puts in every string an
// agent may send: its name, modes, commands, thoughts, plan, tool calls
// (titles, kinds, paths, commands, diffs, output), permission options,
// questions (forms and addresses), unknown kinds and methods, standard
// error and its answer.
const TextEnv = "AAEP_ACPTEST_TEXT"

// Everywhere is the script that puts the text of TextEnv everywhere.
const Everywhere = "everywhere"

// text is the hostile text, "" when TextEnv is not set.
func text() string { return os.Getenv(TextEnv) }

// everywhere plays the script: after the permission request, a form of
// three fields and a question in URL mode.
func (a *fake) everywhere() string {
	h := text()
	// Standard error is read a line at a time: each line of h is a line
	// of its own, said apart, so h goes there on one line.
	fmt.Fprintln(os.Stderr, strings.ReplaceAll(h, "\n", " "))
	a.update(map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": []map[string]any{{"name": h, "description": h}}})
	a.update(map[string]any{"sessionUpdate": "agent_thought_chunk", "content": map[string]any{"type": "text", "text": h}})
	a.update(map[string]any{"sessionUpdate": "plan", "entries": []map[string]string{
		{"content": h, "status": "completed", "priority": "low"},
		{"content": h, "status": "in_progress", "priority": h},
	}})
	a.update(map[string]any{"sessionUpdate": h, "content": h})
	a.send(map[string]any{"method": h, "params": map[string]any{h: h}})
	_, _ = a.ask("fs/read_text_file", map[string]any{"sessionId": "s1", "path": h})
	call := map[string]any{
		"toolCallId": "t1", "title": h, "kind": "execute", "status": "pending",
		"rawInput":  map[string]any{"command": h, "description": h},
		"locations": []map[string]any{{"path": h, "line": 3}},
		"content": []map[string]any{
			{"type": "diff", "path": h, "oldText": "a\n" + h + "\nc\n", "newText": "a\n" + h + "\n" + h + "\nc\n"},
			{"type": "diff", "path": h, "newText": h},
			{"type": "content", "content": map[string]any{"type": "text", "text": h}},
		},
	}
	a.update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": "t1", "title": h, "kind": h, "status": "pending",
		"rawInput": map[string]any{"command": h}, "locations": []map[string]any{{"path": h}}})
	options := []map[string]string{
		{"optionId": "yes", "name": h, "kind": "allow_once"},
		{"optionId": h, "name": h, "kind": "allow_always"},
		{"optionId": "no", "name": h, "kind": "reject_once"},
	}
	if a.permission(call, options) == "allow_once" {
		_ = os.WriteFile(ProofFile, []byte("ok\n"), 0o600)
		a.update(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "title": h,
			"rawOutput": map[string]any{"output": h, "exit_code": 1, "stderr": h},
			"content":   []map[string]any{{"type": "content", "content": map[string]any{"type": "text", "text": h}}}})
	}
	a.elicit(map[string]any{"mode": "form", "message": h, "requestedSchema": json.RawMessage(fmt.Sprintf(`{
		"type": "object",
		"properties": {
			"pick": {"type": "string", "title": %[1]s, "description": %[1]s, "enum": [%[1]s, "b"], "enumNames": [%[1]s, %[1]s]},
			"sure": {"type": "boolean", "title": %[1]s, "description": %[1]s},
			"count": {"type": "integer", "title": %[1]s, "minimum": 1, "maximum": 8}
		},
		"required": ["pick", "sure", "count"]
	}`, quote(h)))})
	a.elicit(map[string]any{"mode": "url", "message": h, "url": "https://example.com/" + h, "elicitationId": h})
	a.update(map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": h})
	a.say(h)
	return "end_turn"
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
