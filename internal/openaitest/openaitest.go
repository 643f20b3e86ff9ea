// Package openaitest is a scripted model behind the OpenAI Responses API,
// on a loopback port, for tests that run a real agent (Codex, through
// codex-acp) offline. Given a task, the model calls the agent's shell tool
// with a command; once the tool's output comes back it answers in words.
// Every answer is streamed as server-sent events: response.created, the
// output items (response.output_item.done), response.completed. What the
// agent sent back is kept, so a test can see what its model was told.
package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/aaep-term/aaep-term/internal/modeltest"
)

// Script is what the model does.
type Script struct {
	// Tools names the function the model calls, in order of preference:
	// the first one the agent offers is called (Codex's shell is
	// exec_command).
	Tools []string
	// Arguments are the function call's arguments.
	Arguments map[string]any
	// Answer is what the model says once the call's output came back.
	Answer string
}

// Shell is the script of a model that runs command through Codex's shell
// tool (exec_command), outside Codex's sandbox, so that Codex asks before
// it runs (justification is the reason given), then says answer.
func Shell(command, justification, answer string) Script {
	return Script{Tools: []string{"exec_command"}, Answer: answer, Arguments: map[string]any{
		"cmd": command, "sandbox_permissions": "require_escalated", "justification": justification}}
}

// Server is a running scripted model. Close it when done. Requests lists
// the requests it served.
type Server struct {
	*modeltest.Server
	// URL is the base URL to give the agent (http://127.0.0.1:PORT/v1).
	URL string

	script Script

	mu      sync.Mutex
	outputs []string // the function_call_output texts the agent sent back
	called  int      // function calls sent
}

// Start serves the script on a loopback port.
func Start(script Script) (*Server, error) {
	s := &Server{script: script}
	var err error
	if s.Server, err = modeltest.Start("openaitest", http.HandlerFunc(s.serve)); err != nil {
		return nil, err
	}
	s.URL = s.Server.URL + "/v1"
	return s, nil
}

// Outputs returns the outputs of the function call the agent sent back,
// in order.
func (s *Server) Outputs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.outputs...)
}

// Called returns how many times the model called the tool.
func (s *Server) Called() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.called
}

// request is the part of a Responses API request the script reads.
type request struct {
	Model string `json:"model"`
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
	Input []struct {
		Type   string          `json:"type"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"` // a string or content items
	} `json:"input"`
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
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
		s.respond(w, req, tools)
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
	default:
		http.Error(w, `{"error":{"type":"not_found","message":"not here"}}`, http.StatusNotFound)
	}
}

// respond answers one Responses API request by the script: a function
// call first, the answer once the call's output is the last input.
func (s *Server) respond(w http.ResponseWriter, req request, offered []string) {
	tool := ""
	for _, want := range s.script.Tools {
		for _, t := range offered {
			if t == want && tool == "" {
				tool = want
			}
		}
	}
	var output *string
	if n := len(req.Input); n > 0 && req.Input[n-1].Type == "function_call_output" {
		text := outputText(req.Input[n-1].Output)
		output = &text
	}
	var item map[string]any
	s.mu.Lock()
	switch {
	case output != nil:
		s.outputs = append(s.outputs, *output)
		item = message(s.script.Answer)
	case tool != "":
		s.called++
		args, _ := json.Marshal(s.script.Arguments)
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%03d", s.called),
			"call_id": fmt.Sprintf("call_%03d", s.called), "name": tool, "arguments": string(args), "status": "completed"}
	default: // a request on the side: a title, a summary
		item = message("OK")
	}
	s.mu.Unlock()
	stream(w, req.Model, item)
}

// message is an assistant message item saying text.
func message(text string) map[string]any {
	return map[string]any{"type": "message", "id": "msg_scripted", "role": "assistant", "status": "completed",
		"content": []map[string]any{{"type": "output_text", "text": text, "annotations": []any{}}}}
}

// stream writes item as the Responses API's server-sent events.
func stream(w http.ResponseWriter, model string, item map[string]any) {
	if model == "" {
		model = "gpt-scripted"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	seq := 0
	send := func(event string, data map[string]any) {
		data["type"] = event
		data["sequence_number"] = seq
		seq++
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	response := func(status string, output []any) map[string]any {
		return map[string]any{"id": "resp_scripted", "object": "response", "model": model, "status": status, "output": output}
	}
	send("response.created", map[string]any{"response": response("in_progress", []any{})})
	if item["type"] == "message" {
		added := map[string]any{"type": "message", "id": item["id"], "role": "assistant", "status": "in_progress", "content": []any{}}
		send("response.output_item.added", map[string]any{"output_index": 0, "item": added})
		text := item["content"].([]map[string]any)[0]["text"]
		send("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": text})
	}
	send("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	done := response("completed", []any{item})
	done["usage"] = map[string]any{
		"input_tokens": 10, "input_tokens_details": map[string]int{"cached_tokens": 0},
		"output_tokens": 10, "output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 20,
	}
	send("response.completed", map[string]any{"response": done})
}

// outputText returns a function_call_output's output as text.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &items)
	var parts []string
	for _, it := range items {
		parts = append(parts, it.Text)
	}
	return strings.Join(parts, "\n")
}
