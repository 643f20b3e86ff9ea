package acp

// This file turns what the agent says into AAEP events, by the table in
// docs/agents.md. Every function that builds events runs with b.mu held
// and returns them; the caller queues them (queue) holding b.emitMu only.

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/protocol"
)

// aaepSession is the AAEP session open now: one per task.
type aaepSession struct {
	open     bool
	id       string
	seq      int
	last     time.Time
	output   string // output_id of the answer being streamed; "" when none
	position int    // characters streamed under output
	thinking bool
	tools    int // tool calls in this session
}

// turn is one task the agent is doing.
type turn struct {
	task      string
	cancelled bool // the user cancelled it
}

// tool is a tool call the agent announced.
type tool struct {
	id    string // call_…
	seq   int    // the order it was announced in
	name  string // the AAEP tool name, from its kind
	title string
	done  bool
}

func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Schema bounds of the strings the bridge writes.
const (
	shortText = 4096
	longText  = 16384
)

// event builds one event of typ in the open session. b.mu is held.
func (b *Bridge) event(typ string, urgency protocol.Urgency, fields map[string]any) []byte {
	s := &b.aaep
	now := time.Now().UTC().Truncate(time.Millisecond)
	if now.Before(s.last) {
		now = s.last
	}
	s.last = now
	// Written by hand, not through a map and json.Marshal, which took a
	// third of the bridge's time on a flood of chunks
	// (BenchmarkBridgeUpdate).
	out := make([]byte, 0, 512)
	out = append(out, `{"@context":`...)
	out = appendString(out, protocol.ContextURL)
	out = append(out, `,"aaep_version":`...)
	out = appendString(out, protocol.Version)
	out = append(out, `,"type":`...)
	out = appendString(out, typ)
	out = append(out, `,"event_id":"evt_`...)
	out = append(out, randomID(16)...)
	out = append(out, `","session_id":`...)
	out = appendString(out, s.id)
	out = append(out, `,"sequence_number":`...)
	out = strconv.AppendInt(out, int64(s.seq), 10)
	out = append(out, `,"timestamp":"`...)
	out = now.AppendFormat(out, "2006-01-02T15:04:05.000Z")
	out = append(out, `","producer":{"agent_id":`...)
	out = appendString(out, b.name)
	if b.title != "" {
		out = append(out, `,"agent_name":`...)
		out = appendString(out, b.title)
	}
	if b.version != "" {
		out = append(out, `,"agent_version":`...)
		out = appendString(out, b.version)
	}
	out = append(out, `},"verbosity":"normal","urgency":`...)
	out = appendString(out, string(urgency))
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, ',')
		out = appendString(out, k)
		out = append(out, ':')
		out = appendValue(out, k, fields[k])
	}
	s.seq++
	return append(out, '}')
}

// appendValue appends field k's value v: a string cut to the schema's
// bound for k, a number, a flag, or anything else through json.Marshal.
func appendValue(out []byte, k string, v any) []byte {
	switch v := v.(type) {
	case string:
		limit := longText
		switch k {
		case "summary_terse", "description", "error_message", "remediation_hint", "context":
			limit = shortText
		case "tool", "from_state", "to_state":
			limit = 64
		}
		return appendString(out, clip(v, limit))
	case int:
		return strconv.AppendInt(out, int64(v), 10)
	case bool:
		return strconv.AppendBool(out, v)
	}
	m, err := json.Marshal(v) // the bridge's own maps and lists: they encode
	if err != nil {
		return append(out, "null"...)
	}
	return append(out, m...)
}

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as json.Marshal makes it.
func appendString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			out = append(out, s[start:i]...)
			switch c {
			case '"', '\\':
				out = append(out, '\\', c)
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, s[start:i]...)
			out = append(out, `\ufffd`...)
		case r == '\u2028' || r == '\u2029': // as json.Marshal: safe inside JavaScript
			out = append(out, s[start:i]...)
			out = append(out, `\u202`...)
			out = append(out, hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}

// startSession opens a new AAEP session, closing none. b.mu is held.
func (b *Bridge) startSession(summary string) [][]byte {
	b.aaep = aaepSession{open: true, id: "sess_" + randomID(16)}
	return [][]byte{b.event(protocol.TypeSessionStarted, protocol.UrgencyNormal, map[string]any{
		"summary_normal": nonEmpty(summary, b.who()+" started."),
		"requested_by":   "user",
	})}
}

// ensureSession opens a session for what the agent does on its own,
// between tasks. b.mu is held.
func (b *Bridge) ensureSession() [][]byte {
	if b.aaep.open {
		return nil
	}
	return b.startSession(b.who() + " acts outside a task you gave.")
}

// who names the agent in words: the user's name for it, or its own
// title, or its command's. b.mu is held.
func (b *Bridge) who() string { return nonEmpty(b.title, b.name) }

// readyWords says the agent is ready, its mode and what to do.
func (b *Bridge) readyWords() string {
	s := b.who() + " is ready"
	if b.mode != "" {
		s += ", in mode " + b.mode
	}
	s += "."
	if approvesByItself(b.mode) {
		s += " " + modeWarning(b.mode)
	}
	switch {
	case b.opts.Task == "" && !b.served:
		s += " It waits for your task: type tell and the task."
	case b.opts.Task != "" && b.served:
		s += " It begins its task when the first subscriber listens."
	}
	return s
}

// taskWords opens the session of a task. A served agent's subscribers
// never heard it was ready, so they hear first that it acts without
// asking them, if its mode says so. b.mu is held.
func (b *Bridge) taskWords(task string) string {
	s := "You gave " + b.who() + " a task: " + task
	if b.served && approvesByItself(b.mode) {
		s = modeWarning(b.mode) + " " + s
	}
	return s
}

func nonEmpty(s, dflt string) string {
	if strings.TrimSpace(s) == "" {
		return dflt
	}
	return s
}

// stateEvent builds a state.changed. b.mu is held.
func (b *Bridge) stateEvent(from, to, summary string, u protocol.Urgency) []byte {
	return b.event(protocol.TypeStateChanged, u, map[string]any{"from_state": from, "to_state": to, "summary_normal": summary})
}

// approvesByItself reports whether in mode id the agent acts without
// asking: names agents give such modes (auto, yolo, bypassPermissions,
// acceptEdits, autoEdit, dontAsk, full access…).
func approvesByItself(id string) bool {
	s := strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(id))
	for _, w := range []string{"auto", "yolo", "bypass", "accept", "dontask", "noask", "fullaccess", "skip"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func modeWarning(id string) string {
	return "Warning: in mode " + id + " the agent acts without asking you."
}

// update maps one session update. It queues what it builds.
func (b *Bridge) update(u update) {
	if !knownUpdates[u.Kind] {
		b.report("kind:"+clip(u.Kind, 64), "Ignored a session update of a kind this bridge does not know: "+protocol.Line(clip(u.Kind, 80))+".")
		return
	}
	b.emitMu.Lock()
	defer b.emitMu.Unlock()
	b.mu.Lock()
	msgs := b.mapUpdate(u)
	b.mu.Unlock()
	b.queue(msgs)
}

// mapUpdate builds the events of one update. b.mu is held.
func (b *Bridge) mapUpdate(u update) [][]byte {
	switch u.Kind {
	case "agent_message_chunk":
		text := u.text()
		if text == "" {
			return nil
		}
		msgs := b.ensureSession()
		s := &b.aaep
		s.thinking = false
		if s.output == "" {
			s.output, s.position = "out_"+randomID(12), 0
		}
		for text != "" {
			chunk := clip(text, longText-8)
			chunk = strings.TrimSuffix(chunk, "…")
			if chunk == "" { // a character too long to cut: keep going
				chunk = text
			}
			text = text[len(chunk):]
			msgs = append(msgs, b.event(protocol.TypeOutputStreaming, protocol.UrgencyNormal, map[string]any{
				"chunk": chunk, "position": s.position, "complete": false, "output_id": s.output,
			}))
			s.position += utf8.RuneCountInString(chunk)
		}
		return msgs
	case "agent_thought_chunk":
		if b.aaep.thinking {
			return nil // one line when thinking starts, not one a chunk
		}
		msgs := b.ensureSession()
		b.aaep.thinking = true
		return append(msgs, b.stateEvent("working", "thinking", b.who()+" is thinking.", protocol.UrgencyBackground))
	case "tool_call":
		return b.toolCall(u)
	case "tool_call_update":
		return b.toolUpdate(u)
	case "plan":
		return b.plan(u)
	case "current_mode_update":
		return b.modeChanged(u.ModeID)
	case "available_commands_update":
		b.commands = b.commands[:0]
		for _, c := range u.Commands {
			if len(b.commands) < 256 {
				b.commands = append(b.commands, clip(c.Name, 100))
			}
		}
		return nil
	case "usage_update":
		b.usage = clip(string(u.Used)+" of "+string(u.Size), 100)
		return nil
	case "user_message_chunk", "config_option_update", "session_info_update":
		return nil // state, not news
	}
	return nil
}

// knownUpdates are the session update kinds the bridge maps or keeps.
var knownUpdates = map[string]bool{
	"agent_message_chunk": true, "agent_thought_chunk": true, "tool_call": true, "tool_call_update": true,
	"plan": true, "current_mode_update": true, "available_commands_update": true, "usage_update": true,
	"user_message_chunk": true, "config_option_update": true, "session_info_update": true,
}

// toolName is an AAEP tool name from an ACP tool kind.
func toolName(kind string) string {
	var sb strings.Builder
	for _, r := range kind {
		if r < 128 && (r == '_' || r == '.' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			sb.WriteRune(r)
		}
	}
	s := sb.String()
	if s == "" || !(s[0] == '_' || s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return "tool"
	}
	return clip(s, 64)
}

// riskOf judges a tool kind, conservatively: what changes or runs is high
// risk and taken as irreversible; what only looks is low; anything else
// (other, unknown, missing) is high.
func riskOf(kind string) (risk string, irreversible bool) {
	switch kind {
	case "read", "search", "fetch", "think":
		return "low", false
	}
	return "high", true
}

// rememberTool records a tool call by its ACP id. b.mu is held.
func (b *Bridge) rememberTool(acpID, kind, title string) *tool {
	if t, ok := b.tools[acpID]; ok {
		return t
	}
	if len(b.tools) >= maxTools {
		for k := range b.tools { // forget one: the map stays bounded
			delete(b.tools, k)
			break
		}
	}
	b.toolSeq++
	t := &tool{id: fmt.Sprintf("call_%d%s", b.toolSeq, randomID(4)), seq: b.toolSeq, name: toolName(kind), title: title}
	b.tools[acpID] = t
	return t
}

func (b *Bridge) toolCall(u update) [][]byte {
	if _, known := b.tools[u.ToolCallID]; known && u.ToolCallID != "" {
		// Announced already, when it was asked about (Codex announces a
		// call once allowed): it is an update, not a second call.
		return b.toolUpdate(u)
	}
	msgs := b.ensureSession()
	b.aaep.thinking = false
	title := ""
	if u.Title != nil {
		title = *u.Title
	}
	t := b.rememberTool(u.ToolCallID, u.ToolKind, title)
	b.aaep.tools++
	// No risk here: a call that needs permission is announced before its
	// request, and the request carries the risk.
	fields := map[string]any{
		"tool": t.name, "tool_call_id": t.id,
		"summary_normal": nonEmpty(title, "a tool call of kind "+t.name),
	}
	if d := details(u.ToolKind, u.Locations, u.RawInput); d != "" {
		fields["args_summary"] = d
	}
	msgs = append(msgs, b.event(protocol.TypeToolInvoked, protocol.UrgencyNormal, fields))
	if u.Status == "completed" || u.Status == "failed" {
		msgs = append(msgs, b.toolDone(t, u)...)
	}
	return msgs
}

// details says a tool call's kind, locations and raw input in one line.
func details(kind string, locs []location, raw json.RawMessage) string {
	var parts []string
	if kind != "" {
		parts = append(parts, "kind "+kind)
	}
	if len(locs) > 0 {
		var ps []string
		for i, l := range locs {
			if i == 8 {
				ps = append(ps, fmt.Sprintf("and %d more", len(locs)-8))
				break
			}
			p := l.Path
			if l.Line != nil {
				p += fmt.Sprintf(" line %d", *l.Line)
			}
			ps = append(ps, p)
		}
		parts = append(parts, "at "+strings.Join(ps, ", "))
	}
	if len(raw) > 0 && string(raw) != "null" && string(raw) != "{}" {
		parts = append(parts, "input "+clip(string(raw), 2000))
	}
	return strings.Join(parts, "; ")
}

func (b *Bridge) toolUpdate(u update) [][]byte {
	t, known := b.tools[u.ToolCallID]
	if !known {
		if u.Status != "completed" && u.Status != "failed" {
			return nil
		}
		title := ""
		if u.Title != nil {
			title = *u.Title
		}
		t = b.rememberTool(u.ToolCallID, u.ToolKind, title)
	}
	if u.Title != nil && *u.Title != "" {
		t.title = *u.Title
	}
	if u.Status != "completed" && u.Status != "failed" {
		return nil
	}
	return append(b.ensureSession(), b.toolDone(t, u)...)
}

// closeTools ends, in the order they were announced, the tool calls the
// agent said no end of before its turn ended (Codex, after a reject):
// each gets a tool.completed with no result, status error, so that none
// is left running. b.mu is held.
func (b *Bridge) closeTools() [][]byte {
	var open []*tool
	for _, t := range b.tools {
		if !t.done {
			open = append(open, t)
		}
	}
	slices.SortFunc(open, func(x, y *tool) int { return x.seq - y.seq })
	var msgs [][]byte
	for _, t := range open {
		t.done = true
		msgs = append(msgs, b.event(protocol.TypeToolCompleted, protocol.UrgencyNormal, map[string]any{
			"tool": t.name, "tool_call_id": t.id, "status": "error",
			"summary_normal": nonEmpty(t.title, "The tool call") + ": no result; the task ended before the agent said how it went.",
		}))
	}
	return msgs
}

// toolDone builds a tool.completed, once per call, saying the exit
// status and how much output the update u tells of, the output itself in
// the detailed summary. b.mu is held.
func (b *Bridge) toolDone(t *tool, u update) [][]byte {
	if t.done {
		return nil
	}
	t.done = true
	fields := map[string]any{"tool": t.name, "tool_call_id": t.id, "status": "success"}
	summary := nonEmpty(t.title, "The tool call") + ": done"
	if u.Status == "failed" {
		fields["status"] = "error"
		summary = nonEmpty(t.title, "The tool call") + ": failed"
	}
	words, detail := result(u.RawOutput, u.Content)
	if words != "" {
		summary += ", " + words
	}
	fields["summary_normal"] = summary + "."
	if detail != "" {
		fields["summary_detailed"] = clip(summary+". "+detail, longText)
	}
	return [][]byte{b.event(protocol.TypeToolCompleted, protocol.UrgencyNormal, fields)}
}

func (b *Bridge) plan(u update) [][]byte {
	n := len(u.Entries)
	if n == 0 {
		return nil
	}
	step := n
	if i := slices.IndexFunc(u.Entries, func(e planEntry) bool { return e.Status == "in_progress" }); i >= 0 {
		step = i + 1
	} else if i := slices.IndexFunc(u.Entries, func(e planEntry) bool { return e.Status != "completed" }); i >= 0 {
		step = i + 1
	}
	what := nonEmpty(u.Entries[step-1].Content, "a step without words")
	progress := map[string]any{"step": step, "total_steps": n, "description": clip(what, shortText)}
	return append(b.ensureSession(), b.event(protocol.TypeProgressUpdated, protocol.UrgencyBackground, map[string]any{
		"progress": progress, "summary_normal": fmt.Sprintf("step %d of %d: %s", step, n, what),
	}))
}

// modeChanged keeps the new mode and says it: as a warning when the
// agent acts without asking in it, every time.
func (b *Bridge) modeChanged(id string) [][]byte {
	if id == "" || id == b.mode {
		return nil
	}
	from := b.mode
	b.mode = clip(id, 64)
	msgs := b.ensureSession()
	summary := b.who() + " is now in mode " + b.mode + "."
	urgency := protocol.UrgencyNormal
	if approvesByItself(b.mode) {
		summary += " " + modeWarning(b.mode)
		urgency = protocol.UrgencyCritical
	}
	return append(msgs, b.stateEvent("mode "+nonEmpty(from, "unknown"), "mode "+b.mode, summary, urgency))
}

// endTurn says how a task ended, by the prompt's answer, and that the
// agent waits for the user.
func (b *Bridge) endTurn(t *turn, res json.RawMessage, err error) {
	b.emitMu.Lock()
	defer b.emitMu.Unlock()
	b.mu.Lock()
	if b.turn == t {
		b.turn = nil
	}
	var msgs [][]byte
	if !b.aaep.open {
		msgs = b.startSession(b.taskWords(t.task))
	}
	if s := &b.aaep; s.output != "" {
		msgs = append(msgs, b.event(protocol.TypeOutputStreaming, protocol.UrgencyNormal, map[string]any{
			"chunk": "", "position": s.position, "complete": true, "output_id": s.output,
		}))
		s.output = ""
	}
	msgs = append(msgs, b.closeTools()...)
	lost := b.takePermissions()
	forms := b.takeElicitations()
	waiting := " " + b.who() + " is waiting for you."
	var stop promptResult
	if err == nil {
		_ = json.Unmarshal(res, &stop)
	}
	errored := func(category, code, summary string) []byte {
		f := map[string]any{"error_category": category, "summary_normal": summary + waiting}
		if code != "" {
			f["error_code"] = code
		}
		return b.event(protocol.TypeSessionErrored, protocol.UrgencyCritical, f)
	}
	switch {
	case err != nil && b.closed:
		msgs = nil // the user closed the bridge: nothing more to say
	case err == errAgentEnded:
		words := b.who() + " ended before finishing the task; the task is lost."
		if n := len(lost) + len(forms); n > 0 {
			words += fmt.Sprintf(" Its %d question(s) waiting for you are void: nothing was accepted.", n)
		}
		msgs = append(msgs, b.event(protocol.TypeSessionErrored, protocol.UrgencyCritical, map[string]any{
			"error_category": "permanent", "error_code": "AGENT_ENDED", "summary_normal": words,
		}))
	case err != nil:
		msgs = append(msgs, errored("unknown", "PROMPT_FAILED", b.who()+" could not do the task: "+protocol.Line(err.Error())+"."))
	case stop.StopReason == "end_turn":
		f := map[string]any{"summary_normal": b.who() + " is done and waiting for you.", "tool_invocations_count": b.aaep.tools}
		msgs = append(msgs, b.event(protocol.TypeSessionCompleted, protocol.UrgencyNormal, f))
	case stop.StopReason == "cancelled":
		by := "producer"
		if t.cancelled {
			by = "user"
		}
		msgs = append(msgs, b.event(protocol.TypeSessionCancelled, protocol.UrgencyNormal, map[string]any{
			"cancelled_by": by, "summary_normal": "The task was cancelled." + waiting,
		}))
	case stop.StopReason == "max_tokens":
		msgs = append(msgs, errored("requires_user", "MAX_TOKENS", b.who()+" stopped: it reached its limit of tokens."))
	case stop.StopReason == "max_turn_requests":
		msgs = append(msgs, errored("requires_user", "MAX_TURN_REQUESTS", b.who()+" stopped: it reached its limit of model requests for one task."))
	case stop.StopReason == "refusal":
		msgs = append(msgs, errored("requires_user", "REFUSAL", b.who()+" refused to go on with the task."))
	default:
		msgs = append(msgs, errored("unknown", "", b.who()+" stopped for a reason this bridge does not know: "+protocol.Line(clip(stop.StopReason, 80))+"."))
	}
	b.aaep.open = false
	ag := b.ag
	b.mu.Unlock()
	if err == nil {
		for _, p := range lost { // the task ended: nothing waits for them
			_ = ag.write(cancelledOutcome(p.id))
		}
		for _, e := range forms {
			_ = ag.write(cancelledElicitation(e.id))
		}
	}
	b.queue(msgs)
}
