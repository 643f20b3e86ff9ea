// Package acptest is a scripted ACP agent for tests: a test binary runs
// Main when Env is set, and so becomes an agent that speaks the Agent
// Client Protocol on its standard input and output and plays the script
// Env names at each prompt. What it was answered it writes to files in its
// working directory (see the scripts), so tests see what reached it.
package acptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Env names the script; a test binary whose environment sets it runs Main.
const Env = "AAEP_ACPTEST_SCRIPT"

// CodexDir is the working folder the codexlike script's command says it
// runs in, as Codex says it.
const CodexDir = "/home/user/project"

// Files the agent writes in its working directory.
const (
	ProofFile   = "proof.txt"   // the tool "ran": written only after an allow
	OutcomeFile = "outcome.txt" // each permission answer, one JSON line each
	RefusedFile = "refused.txt" // the errors fs/* and terminal/* requests got
	InitFile    = "init.json"   // the initialize params the client sent
	ModeFile    = "mode.txt"    // the modes the client set, one a line
	ElicitFile  = "elicit.txt"  // each elicitation answer, one JSON line each
)

// Main plays the agent on in and out until in ends; it returns the exit
// code.
func Main(script string, in io.Reader, out io.Writer) int {
	a := &fake{script: script, w: out, waits: map[string]chan json.RawMessage{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Method == "":
			a.answered(string(m.ID), m.Result, m.Error)
		case m.Method == "session/cancel":
			a.mu.Lock()
			a.cancelled = true
			a.mu.Unlock()
		case m.Method == "session/prompt":
			go a.prompt(m.ID, m.Params)
		default:
			a.handle(m.ID, m.Method, m.Params)
		}
	}
	return 0
}

type fake struct {
	script string
	wmu    sync.Mutex
	w      io.Writer

	mu        sync.Mutex
	next      int
	waits     map[string]chan json.RawMessage
	cancelled bool
}

func (a *fake) send(v map[string]any) {
	v["jsonrpc"] = "2.0"
	b, _ := json.Marshal(v)
	a.raw(string(b))
}

func (a *fake) raw(line string) {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	fmt.Fprintln(a.w, line)
}

func (a *fake) result(id json.RawMessage, v any) { a.send(map[string]any{"id": id, "result": v}) }

// ask sends a request and waits for its answer: the result, or the error
// object.
func (a *fake) ask(method string, params any) (result, errObj json.RawMessage) {
	return a.request(method, params)()
}

// request sends a request and returns the wait for its answer.
func (a *fake) request(method string, params any) func() (result, errObj json.RawMessage) {
	a.mu.Lock()
	a.next++
	id := "a" + strconv.Itoa(a.next)
	ch := make(chan json.RawMessage, 2)
	a.waits[id] = ch
	a.mu.Unlock()
	a.send(map[string]any{"id": id, "method": method, "params": params})
	return func() (json.RawMessage, json.RawMessage) {
		r := <-ch
		e := <-ch
		return r, e
	}
}

func (a *fake) answered(id string, result, errObj json.RawMessage) {
	var key string
	if json.Unmarshal([]byte(id), &key) != nil {
		return
	}
	a.mu.Lock()
	ch := a.waits[key]
	delete(a.waits, key)
	a.mu.Unlock()
	if ch != nil {
		ch <- result
		ch <- errObj
	}
}

func (a *fake) update(u map[string]any) {
	a.send(map[string]any{"method": "session/update", "params": map[string]any{"sessionId": "s1", "update": u}})
}

func (a *fake) say(text string) {
	a.update(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}})
}

func appendFile(name, line string) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

func (a *fake) handle(id json.RawMessage, method string, params json.RawMessage) {
	switch method {
	case "initialize":
		_ = os.WriteFile(InitFile, params, 0o600)
		if a.script == "stderr-start" {
			// A noisy start: more lines than the client's queue holds,
			// before the client can take any (Dial is still running).
			for i := 0; i < 300; i++ {
				fmt.Fprintf(os.Stderr, "starting, step %d\n", i)
			}
		}
		info := map[string]any{"name": "fake-agent", "title": "Fake agent", "version": "1.0"}
		if a.script == Everywhere {
			info = map[string]any{"name": text(), "title": text(), "version": text()}
		}
		a.result(id, map[string]any{
			"protocolVersion": 1, "agentCapabilities": map[string]any{}, "authMethods": []any{}, "agentInfo": info,
		})
	case "session/new":
		// Claude Code's adapter tells its commands before it answers.
		a.update(map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": []map[string]any{{"name": "review", "description": "Review"}}})
		modes := []map[string]string{{"id": "default", "name": "Ask first"}, {"id": "auto", "name": "Auto"}, {"id": "yolo", "name": "YOLO"}}
		if a.script == Everywhere {
			modes = append(modes, map[string]string{"id": text(), "name": text(), "description": text()})
		}
		a.result(id, map[string]any{"sessionId": "s1", "modes": map[string]any{"currentModeId": "auto", "availableModes": modes}})
	case "session/set_mode":
		var p struct {
			ModeID string `json:"modeId"`
		}
		_ = json.Unmarshal(params, &p)
		appendFile(ModeFile, p.ModeID)
		a.result(id, map[string]any{})
	default:
		if id != nil {
			a.send(map[string]any{"id": id, "error": map[string]any{"code": -32601, "message": "no method " + method}})
		}
	}
}

// permission asks for one tool call and records the outcome; it returns
// the kind of the option selected, or "cancelled".
func (a *fake) permission(call map[string]any, options []map[string]string) string {
	return a.permissionWhile(call, options, func() {})
}

// permissionWhile is permission, doing meanwhile after the request is sent
// and before its answer is read.
func (a *fake) permissionWhile(call map[string]any, options []map[string]string, meanwhile func()) string {
	wait := a.request("session/request_permission", map[string]any{"sessionId": "s1", "toolCall": call, "options": options})
	meanwhile()
	res, _ := wait()
	appendFile(OutcomeFile, string(res))
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	_ = json.Unmarshal(res, &r)
	if r.Outcome.Outcome != "selected" {
		return "cancelled"
	}
	for _, o := range options {
		if o["optionId"] == r.Outcome.OptionID {
			return o["kind"]
		}
	}
	return "unknown"
}

// elicit asks the client a question and records the answer, or the
// error.
func (a *fake) elicit(params map[string]any) {
	params["sessionId"] = "s1"
	res, e := a.ask("elicitation/create", params)
	if len(res) == 0 || string(res) == "null" {
		res = e
	}
	appendFile(ElicitFile, string(res))
}

var usual = []map[string]string{
	{"optionId": "yes", "name": "Allow", "kind": "allow_once"},
	{"optionId": "always", "name": "Always allow", "kind": "allow_always"},
	{"optionId": "no", "name": "Reject", "kind": "reject_once"},
}

func (a *fake) prompt(id json.RawMessage, params json.RawMessage) {
	stop := a.play()
	a.mu.Lock()
	if a.cancelled {
		stop = "cancelled"
	}
	a.cancelled = false
	a.mu.Unlock()
	a.result(id, map[string]any{"stopReason": stop})
}

// play plays the script and returns the stop reason.
func (a *fake) play() string {
	if stop, ok := a.bench(a.script); ok {
		return stop
	}
	title := "Write the proof file"
	switch a.script {
	case Everywhere:
		return a.everywhere()
	}
	if seed, ok := strings.CutPrefix(a.script, "consent:"); ok {
		n, _ := strconv.ParseUint(seed, 10, 64)
		return a.consent(n, true)
	}
	if seed, ok := strings.CutPrefix(a.script, "consent-asks:"); ok {
		n, _ := strconv.ParseUint(seed, 10, 64)
		return a.consent(n, false)
	}
	switch a.script {
	case "hostile":
		title = "Delete \x1b[2J\x1b]0;pwned\x07everything \u202egnp.exe\u202c now\r\nFAKE LINE"
	case "flood":
		for i := 0; i < 3000; i++ {
			a.say(fmt.Sprintf("word%d ", i))
			if i%100 == 0 {
				a.update(map[string]any{"sessionUpdate": "agent_thought_chunk", "content": map[string]any{"type": "text", "text": "hmm"}})
				a.update(map[string]any{"sessionUpdate": "usage_update", "used": i, "size": 100000})
			}
		}
		a.say("Flood over.")
		return "end_turn"
	case "unknown":
		a.update(map[string]any{"sessionUpdate": "brand_new_kind", "stuff": 1})
		a.send(map[string]any{"method": "mystery/notice", "params": map[string]any{}})
		a.send(map[string]any{"method": "_vendor/extension", "params": map[string]any{}})
		a.say("Still here.")
		return "end_turn"
	case "malformed":
		a.raw("this is not json")
		a.raw(`{"jsonrpc":"1.0","method":"session/update"}`)
		a.raw(`{"jsonrpc":"2.0"}`)
		a.raw(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":7}}}`)
		a.raw(`{"jsonrpc":"2.0","id":"zz","result":{}}`)
		a.say("Still standing.")
		return "end_turn"
	case "fsterm":
		for _, m := range []string{"fs/read_text_file", "fs/write_text_file", "terminal/create"} {
			_, e := a.ask(m, map[string]any{"sessionId": "s1", "path": "/etc/passwd", "command": "id"})
			appendFile(RefusedFile, m+" "+string(e))
		}
		a.say("Nothing read.")
		return "end_turn"
	case "modes":
		a.update(map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": "yolo"})
		a.update(map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": "default"})
		a.update(map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": "yolo"})
		return "end_turn"
	case "stderr":
		// Claude Code's adapter logs each phase of opening a session.
		fmt.Fprintf(os.Stderr, "[session/create] sessionId=s1 phase=settings durationMs=8 totalMs=12\n")
		fmt.Fprintf(os.Stderr, "\x1b[2J\x1b]0;pwned\x07warning \u202eevil\n%s\n", strings.Repeat("long ", 5000))
		for i := 0; i < 300; i++ {
			fmt.Fprintf(os.Stderr, "line %d\n", i)
		}
		a.say("Said my piece.")
		return "end_turn"
	case "elicit":
		a.elicit(map[string]any{"mode": "form", "message": "How shall I set up the project?", "requestedSchema": json.RawMessage(`{
			"type": "object",
			"properties": {
				"db": {"type": "string", "title": "Database", "oneOf": [{"const": "pg", "title": "Postgres"}, {"const": "my", "title": "MySQL"}]},
				"tests": {"type": "boolean", "title": "Write tests"},
				"workers": {"type": "integer", "title": "Workers", "minimum": 1, "maximum": 8},
				"name": {"type": "string", "title": "Project name", "minLength": 3}
			},
			"required": ["db", "tests", "workers"]
		}`)})
		a.say("Form received.")
		return "end_turn"
	case "elicit-url":
		a.elicit(map[string]any{"mode": "url", "message": "Sign in to continue", "url": "https://example.com/login?\x1b[2J", "elicitationId": "e1"})
		a.say("Went on without it.")
		return "end_turn"
	case "elicit-nested":
		a.elicit(map[string]any{"mode": "form", "message": "Fill in the address", "requestedSchema": map[string]any{
			"type": "object", "properties": map[string]any{"address": map[string]any{"type": "object"}}}})
		a.say("Went on without it.")
		return "end_turn"
	case "max_tokens", "refusal", "max_turn_requests":
		a.say("Partial answer.")
		return a.script
	}
	a.update(map[string]any{"sessionUpdate": "agent_thought_chunk", "content": map[string]any{"type": "text", "text": "Let me think."}})
	a.update(map[string]any{"sessionUpdate": "agent_thought_chunk", "content": map[string]any{"type": "text", "text": " More."}})
	a.update(map[string]any{"sessionUpdate": "plan", "entries": []map[string]string{
		{"content": "Look around", "status": "completed", "priority": "low"},
		{"content": "Write the proof file", "status": "in_progress", "priority": "high"},
		{"content": "Report", "status": "pending", "priority": "low"},
	}})
	old := "a\nb\nc\n"
	call := map[string]any{
		"toolCallId": "t1", "title": title, "kind": "execute", "status": "pending",
		"rawInput":  map[string]any{"command": "echo ok > proof.txt"},
		"locations": []map[string]any{{"path": "proof.txt"}},
		"content":   []map[string]any{{"type": "diff", "path": "notes.txt", "oldText": old, "newText": "a\nB\nB2\nc\n"}},
	}
	// Gemini CLI asks before it announces the call; Codex (codexlike)
	// announces it once allowed, and ends the turn cancelled on a reject.
	if a.script != "asksfirst" && a.script != "codexlike" {
		a.update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": "t1", "title": title, "kind": "execute", "status": "pending",
			"rawInput": map[string]any{"command": "echo ok > proof.txt"}})
	}
	options := usual
	if a.script == "codexlike" { // as codex-acp 0.16.0 asks (TestCodex's raw ACP lines)
		argv := []string{"/bin/bash", "-lc", "echo ok > proof.txt"}
		call["content"] = []map[string]any{{"type": "content", "content": map[string]any{"type": "text",
			"text": "Write the proof file\nProposed Amendment: /bin/bash\n-lc\necho ok > proof.txt\nAvailable Decisions: Approved\nApprovedExecpolicyAmendment\nAbort"}}}
		call["rawInput"] = map[string]any{"call_id": "call_001", "command": argv, "cwd": CodexDir, "reason": "Write the proof file",
			"proposed_execpolicy_amendment": argv,
			"available_decisions":           []any{"approved", map[string]any{"approved_execpolicy_amendment": map[string]any{"proposed_execpolicy_amendment": argv}}, "abort"},
			"parsed_cmd":                    []map[string]string{{"type": "unknown", "cmd": "echo ok > proof.txt"}}}
		delete(call, "locations")
		options = []map[string]string{{"optionId": "approved", "name": "Yes, proceed", "kind": "allow_once"},
			{"optionId": "approved-execpolicy-amendment", "name": "Yes, and don't ask again for commands that start with `/bin/bash -lc echo ok > proof.txt`", "kind": "allow_always"},
			{"optionId": "abort", "name": "No, and tell Codex what to do differently", "kind": "reject_once"}}
	}
	switch a.script {
	case "die":
		a.send(map[string]any{"id": "last", "method": "session/request_permission",
			"params": map[string]any{"sessionId": "s1", "toolCall": call, "options": usual}})
		a.update(map[string]any{"sessionUpdate": "agent_thought_chunk", "content": map[string]any{"type": "text", "text": "waiting"}})
		a.say("About to vanish.")
		os.Exit(3)
	case "noallow":
		options = []map[string]string{{"optionId": "no", "name": "Reject", "kind": "reject_once"}, {"optionId": "never", "name": "Never", "kind": "reject_always"}}
	case "forty":
		options = nil
		for i := 0; i < 40; i++ {
			kind := "reject_always"
			switch i {
			case 38:
				kind = "allow_once"
			case 39:
				kind = "reject_once"
			case 0:
				kind = "allow_always"
			}
			options = append(options, map[string]string{"optionId": "opt" + strconv.Itoa(i), "name": "Option " + strconv.Itoa(i), "kind": kind})
		}
	}
	meanwhile := func() {}
	if a.script == "streams" {
		// As ACP agents do: it goes on talking and thinking while its
		// permission request waits (AAEP's non-blocked work, spec §6.1).
		meanwhile = func() {
			a.say("While you decide, ")
			a.update(map[string]any{"sessionUpdate": "agent_thought_chunk", "content": map[string]any{"type": "text", "text": "Still thinking it over."}})
			a.say("I keep looking around.")
		}
	}
	switch a.permissionWhile(call, options, meanwhile) {
	case "allow_once", "allow_always":
		if a.script == "codexlike" {
			a.update(map[string]any{"sessionUpdate": "tool_call", "toolCallId": "t1", "title": title, "kind": "execute", "status": "in_progress"})
		}
		_ = os.WriteFile(ProofFile, []byte("ok\n"), 0o600)
		a.update(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed",
			"rawOutput": map[string]any{"exit_code": 0, "output": "wrote proof.txt\n"}})
		a.say("All done. ")
		a.say("The proof file is written.")
	case "cancelled":
		return "cancelled"
	default:
		if a.script == "codexlike" {
			return "cancelled"
		}
		a.update(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "failed"})
		a.say("You said no, so I wrote nothing.")
	}
	if strings.HasPrefix(a.script, "hostile") {
		a.say("\x1b[31mred\x1b[0m and \u202etxt.exe")
	}
	return "end_turn"
}
