// Package anthropictest is a scripted model behind the Anthropic Messages
// API, on a loopback port, for tests that run a real agent (Claude Code,
// Copilot CLI) offline. Given a task, the model calls one of the agent's
// own tools (its shell, to run a command; its question tool); once the
// tool's result comes back it answers in words. Requests the agent makes on the side (titles,
// summaries, quota checks) get a short text answer. What the agent sent is
// kept, so a test can see what its model was told.
package anthropictest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/aaep-term/aaep-term/internal/modeltest"
)

// Script is what the model does.
type Script struct {
	// Tools names the tool the model calls, in order of preference: the
	// first one the agent offers is called (Claude Code's shell is Bash,
	// Copilot CLI's bash).
	Tools []string
	// Input is the tool call's input.
	Input map[string]any
	// Answer is what the model says once the tool's result came back.
	Answer string
}

// Shell is the script of a model that runs command through the agent's
// shell tool (Claude Code's Bash, Copilot CLI's bash), then says answer.
func Shell(command, description, answer string) Script {
	return Script{Tools: []string{"Bash", "bash"}, Input: map[string]any{"command": command, "description": description}, Answer: answer}
}

// ToolResult is what the agent told its model the command did.
type ToolResult struct {
	ID      string // the tool_use_id it answers
	Content string // the tool_result's text
	IsError bool   // the agent marked it an error (a reject, a failure)
}

// Server is a running scripted model. Close it when done. Its URL is
// the base URL to give the agent (http://127.0.0.1:PORT); Requests lists
// the requests it served.
type Server struct {
	*modeltest.Server

	script Script

	mu      sync.Mutex
	results []ToolResult
	asked   int // tool_use answers sent
}

// Start serves the script on a loopback port.
func Start(script Script) (*Server, error) {
	s := &Server{script: script}
	var err error
	if s.Server, err = modeltest.Start("anthropictest", http.HandlerFunc(s.serve)); err != nil {
		return nil, err
	}
	return s, nil
}

// Results returns the tool results the agent sent back, in order, each
// once however often the agent sent it.
func (s *Server) Results() []ToolResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ToolResult(nil), s.results...)
}

// Asked returns how many times the model called the tool.
func (s *Server) Asked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked
}

// request is the part of a Messages API request the script reads.
type request struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or a list of blocks
	} `json:"messages"`
}

type block struct {
	Type      string          `json:"type"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // tool_result: a string or text blocks
	IsError   bool            `json:"is_error"`
	Text      string          `json:"text"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var req request
	_ = json.Unmarshal(body, &req)
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	s.Served(r, req.Model, tools)
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"input_tokens":10}`)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages"):
		s.messages(w, req)
	default:
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not here"}}`, http.StatusNotFound)
	}
}

// messages answers one Messages API request by the script.
func (s *Server) messages(w http.ResponseWriter, req request) {
	tool := ""
	for _, want := range s.script.Tools {
		for _, t := range req.Tools {
			if t.Name == want && tool == "" {
				tool = want
			}
		}
	}
	var last []block
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "user" {
		_ = json.Unmarshal(req.Messages[n-1].Content, &last) // a plain string leaves it empty
	}
	var result *ToolResult
	for _, b := range last {
		if b.Type == "tool_result" {
			result = &ToolResult{ID: b.ToolUseID, Content: resultText(b.Content), IsError: b.IsError}
		}
	}
	var blocks []map[string]any
	stop := "end_turn"
	switch {
	case result != nil:
		s.mu.Lock()
		// An agent that sends its request again (a retry, when the
		// answer was slow) tells the same result again: it counts once.
		if !slices.ContainsFunc(s.results, func(r ToolResult) bool { return r.ID != "" && r.ID == result.ID }) {
			s.results = append(s.results, *result)
		}
		s.mu.Unlock()
		blocks = []map[string]any{{"type": "text", "text": s.script.Answer}}
	case tool != "":
		s.mu.Lock()
		s.asked++
		id := fmt.Sprintf("toolu_%03d", s.asked)
		s.mu.Unlock()
		blocks = []map[string]any{{"type": "tool_use", "id": id, "name": tool, "input": s.script.Input}}
		stop = "tool_use"
	default: // a request on the side: a title, a summary, a check
		blocks = []map[string]any{{"type": "text", "text": "OK"}}
	}
	model := req.Model
	if model == "" {
		model = "claude-scripted"
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_scripted", "type": "message", "role": "assistant", "model": model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": 10, "output_tokens": 10},
		})
		return
	}
	stream(w, model, blocks, stop)
}

// stream writes blocks as the Messages API's server-sent events: a
// tool_use's input as one input_json_delta, a text as one text_delta.
func stream(w http.ResponseWriter, model string, blocks []map[string]any, stop string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	send := func(event string, data map[string]any) {
		data["type"] = event
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("message_start", map[string]any{"message": map[string]any{
		"id": "msg_scripted", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1},
	}})
	for i, b := range blocks {
		switch b["type"] {
		case "tool_use":
			input, _ := json.Marshal(b["input"])
			send("content_block_start", map[string]any{"index": i, "content_block": map[string]any{
				"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			send("content_block_delta", map[string]any{"index": i, "delta": map[string]any{
				"type": "input_json_delta", "partial_json": string(input)}})
		default:
			send("content_block_start", map[string]any{"index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			send("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		}
		send("content_block_stop", map[string]any{"index": i})
	}
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 10}})
	send("message_stop", map[string]any{})
}

// resultText returns a tool_result's content as text.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []block
	_ = json.Unmarshal(raw, &bs)
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
