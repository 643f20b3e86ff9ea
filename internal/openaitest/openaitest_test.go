package openaitest_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/openaitest"
)

// event is one server-sent event of a streamed response.
type event struct {
	name string
	data map[string]any
}

// post sends a Responses API request and reads its stream whole.
func post(t *testing.T, s *openaitest.Server, body string) []event {
	t.Helper()
	resp, err := http.Post(s.URL+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	var events []event
	sc := bufio.NewScanner(resp.Body)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data); err != nil {
				t.Fatalf("event %s: %v", name, err)
			}
			if data["type"] != name {
				t.Errorf("event %s has type %v", name, data["type"])
			}
			events = append(events, event{name, data})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return events
}

// names returns the events' names in order.
func names(events []event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.name)
	}
	return out
}

// item returns the item of the stream's response.output_item.done.
func item(t *testing.T, events []event) map[string]any {
	t.Helper()
	for _, e := range events {
		if e.name == "response.output_item.done" {
			it, _ := e.data["item"].(map[string]any)
			return it
		}
	}
	t.Fatalf("no response.output_item.done in %v", names(events))
	return nil
}

// text returns what a message item says.
func text(it map[string]any) string {
	content, _ := it["content"].([]any)
	if len(content) != 1 {
		return ""
	}
	part, _ := content[0].(map[string]any)
	s, _ := part["text"].(string)
	return s
}

// A task: the model calls the shell tool the agent offers with the
// command, outside the sandbox; once the call's output is the last input
// it answers; a request on the side (no tools) gets a short text. Each
// answer is one stream: created, the item, completed.
func TestScript(t *testing.T) {
	t.Parallel()
	s, err := openaitest.Start(openaitest.Shell("echo ok > proof.txt", "Write the proof file", "I am finished."))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := `"tools":[{"type":"function","name":"write_stdin"},{"type":"function","name":"exec_command"}]`

	call := post(t, s, `{"model":"gpt-test","stream":true,`+tools+`,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"write the proof file"}]}]}`)
	if got, want := names(call), []string{"response.created", "response.output_item.done", "response.completed"}; !reflect.DeepEqual(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	fc := item(t, call)
	var args map[string]string
	if s, _ := fc["arguments"].(string); json.Unmarshal([]byte(s), &args) != nil {
		t.Fatalf("arguments %v are not a JSON object", fc["arguments"])
	}
	if fc["type"] != "function_call" || fc["name"] != "exec_command" || fc["call_id"] == "" ||
		!reflect.DeepEqual(args, map[string]string{"cmd": "echo ok > proof.txt", "sandbox_permissions": "require_escalated", "justification": "Write the proof file"}) {
		t.Errorf("the call is %v", fc)
	}
	done := call[len(call)-1].data["response"].(map[string]any)
	if done["status"] != "completed" || done["usage"] == nil {
		t.Errorf("response.completed carries %v", done)
	}

	answer := post(t, s, `{"model":"gpt-test","stream":true,`+tools+`,"input":[{"type":"message","role":"user","content":[]},`+
		`{"type":"function_call","call_id":"`+fc["call_id"].(string)+`","name":"exec_command","arguments":"{}"},`+
		`{"type":"function_call_output","call_id":"`+fc["call_id"].(string)+`","output":"Process exited with code 0"}]}`)
	if got := item(t, answer); got["type"] != "message" || got["role"] != "assistant" || text(got) != "I am finished." {
		t.Errorf("after the output the model said %v", got)
	}
	if got := names(answer); got[0] != "response.created" || got[len(got)-1] != "response.completed" {
		t.Errorf("events %v", got)
	}

	side := post(t, s, `{"model":"gpt-test","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"a title"}]}]}`)
	if got := item(t, side); text(got) != "OK" {
		t.Errorf("a request on the side was answered %v", got)
	}

	if got := s.Outputs(); !reflect.DeepEqual(got, []string{"Process exited with code 0"}) {
		t.Errorf("Outputs() = %q", got)
	}
	if got := s.Called(); got != 1 {
		t.Errorf("Called() = %d, want 1", got)
	}
	if got := s.Requests(); len(got) != 3 || got[0] != "POST /v1/responses gpt-test [write_stdin exec_command]" {
		t.Errorf("Requests() = %q", got)
	}
}

// Paths other than the Responses API's: the model list is empty, anything
// else is not found.
func TestOtherPaths(t *testing.T) {
	t.Parallel()
	s, err := openaitest.Start(openaitest.Shell("true", "", "done"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/models", http.StatusOK},
		{"/chat/completions", http.StatusNotFound},
	} {
		resp, err := http.Get(s.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("GET %s: %d, want %d", tc.path, resp.StatusCode, tc.code)
		}
	}
}
