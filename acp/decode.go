package acp

// This file decodes what an ACP agent sends: only the members the bridge
// uses, leniently (a member of the wrong type is left out, never fatal).

import (
	"encoding/json"
	"strings"
)

// update is one session/update's "update" member.
type update struct {
	Kind       string          `json:"sessionUpdate"`
	Content    json.RawMessage `json:"content"` // a content block, or a tool call's content list
	ToolCallID string          `json:"toolCallId"`
	Title      *string         `json:"title"`
	ToolKind   string          `json:"kind"`
	Status     string          `json:"status"`
	Locations  []location      `json:"locations"`
	RawInput   json.RawMessage `json:"rawInput"`
	RawOutput  json.RawMessage `json:"rawOutput"`
	Entries    []planEntry     `json:"entries"`
	ModeID     string          `json:"currentModeId"`
	Commands   []struct {
		Name string `json:"name"`
	} `json:"availableCommands"`
	Used json.RawMessage `json:"used"`
	Size json.RawMessage `json:"size"`
}

type location struct {
	Path string `json:"path"`
	Line *int   `json:"line"`
}

type planEntry struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// contentBlock is an ACP content block: text, image, resource….
type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// toolContent is one item of a tool call's content.
type toolContent struct {
	Type    string       `json:"type"` // content, diff, terminal
	Content contentBlock `json:"content"`
	Path    string       `json:"path"`
	OldText *string      `json:"oldText"`
	NewText string       `json:"newText"`
}

// toolCall is a tool call as a permission request names it.
type toolCall struct {
	ToolCallID string          `json:"toolCallId"`
	Title      string          `json:"title"`
	Kind       string          `json:"kind"`
	Content    json.RawMessage `json:"content"`
	Locations  []location      `json:"locations"`
	RawInput   json.RawMessage `json:"rawInput"`
}

// option is one answer a permission request offers.
type option struct {
	ID   string `json:"optionId"`
	Name string `json:"name"`
	Kind string `json:"kind"` // allow_once, allow_always, reject_once, reject_always
}

type permissionRequest struct {
	SessionID string   `json:"sessionId"`
	ToolCall  toolCall `json:"toolCall"`
	Options   []option `json:"options"`
}

type sessionNotification struct {
	SessionID string          `json:"sessionId"`
	Update    json.RawMessage `json:"update"`
}

type mode struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type newSessionResult struct {
	SessionID string `json:"sessionId"`
	Modes     *struct {
		Current   string `json:"currentModeId"`
		Available []mode `json:"availableModes"`
	} `json:"modes"`
}

type initializeResult struct {
	ProtocolVersion json.RawMessage `json:"protocolVersion"`
	AgentInfo       *struct {
		Name    string `json:"name"`
		Title   string `json:"title"`
		Version string `json:"version"`
	} `json:"agentInfo"`
}

type promptResult struct {
	StopReason string `json:"stopReason"`
}

// decodeUpdate reads a session/update's params. ok is false when they
// are not an object with an update object of a named kind.
func decodeUpdate(params []byte) (sessionNotification, update, bool) {
	var whole struct { // one pass, in the usual case
		SessionID string  `json:"sessionId"`
		Update    *update `json:"update"`
	}
	if json.Unmarshal(params, &whole) == nil && whole.Update != nil {
		return sessionNotification{SessionID: whole.SessionID}, *whole.Update, whole.Update.Kind != ""
	}
	var n sessionNotification
	var u update
	if json.Unmarshal(params, &n) != nil || len(n.Update) == 0 {
		return n, u, false
	}
	if err := json.Unmarshal(n.Update, &u); err != nil {
		// A member of an unexpected type: keep what the kind says.
		var k struct {
			Kind string `json:"sessionUpdate"`
		}
		if json.Unmarshal(n.Update, &k) != nil {
			return n, u, false
		}
		u = update{Kind: k.Kind}
	}
	return n, u, u.Kind != ""
}

// text returns a content block's text; other blocks are named in words.
func (u update) text() string {
	var b contentBlock
	if json.Unmarshal(u.Content, &b) != nil {
		return ""
	}
	switch b.Type {
	case "text":
		return b.Text
	case "":
		return ""
	}
	return "[" + b.Type + "] "
}

// contents decodes a tool call's content list, leniently.
func contents(raw json.RawMessage) []toolContent {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []toolContent
	for _, it := range items {
		var c toolContent
		if json.Unmarshal(it, &c) == nil {
			out = append(out, c)
		}
	}
	return out
}

// command returns the command a tool's raw input names, if any.
func command(raw json.RawMessage) string {
	var in map[string]json.RawMessage
	if json.Unmarshal(raw, &in) != nil {
		return ""
	}
	for _, k := range []string{"command", "cmd"} {
		v, ok := in[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		var words []string
		if json.Unmarshal(v, &words) == nil {
			return strings.Join(words, " ")
		}
	}
	return ""
}
