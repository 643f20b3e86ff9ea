package acp

// This file turns the agent's permission requests into confirmations and
// the user's replies into the agent's options. Nothing here answers by
// itself: a request waits for a reply, a cancel, or the end of its task.

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/wire"
	"github.com/aaep-term/aaep-term/protocol"
)

// permission is a permission request waiting for the user.
type permission struct {
	id      json.RawMessage // the JSON-RPC request's id
	options []option
	title   string
	expiry  *time.Timer // rejects the request when its window ends
}

// window returns the seconds a permission request waits for the user.
func (b *Bridge) window() int {
	w := b.opts.PromptWindow
	if w <= 0 || w > 24*time.Hour {
		return 86400
	}
	return int((w + time.Second - 1) / time.Second)
}

func cancelledOutcome(id json.RawMessage) []byte {
	return wire.Result(id, []byte(`{"outcome":{"outcome":"cancelled"}}`))
}

// takePermissions removes and returns every request waiting. b.mu is held.
func (b *Bridge) takePermissions() []*permission {
	var ps []*permission
	for tok, p := range b.perms {
		p.expiry.Stop()
		ps = append(ps, p)
		delete(b.perms, tok)
	}
	return ps
}

// permission puts one permission request to the user as a confirmation.
func (b *Bridge) permission(ag *agent, m *wire.Message) {
	var req permissionRequest
	if json.Unmarshal(m.Params, &req) != nil {
		b.report("bad-permission", "Refused a permission request from the agent that could not be read.")
		_ = ag.write(wire.Fail(m.ID, wire.CodeInvalidParams, "the permission request could not be read", nil))
		return
	}
	b.emitMu.Lock()
	defer b.emitMu.Unlock()
	b.mu.Lock()
	if len(b.perms) >= maxPending || req.SessionID != b.session {
		b.mu.Unlock()
		b.report("permission-refused", "Answered a permission request from the agent \"cancelled\": too many wait already, or it names another session.")
		_ = ag.write(cancelledOutcome(m.ID))
		return
	}
	msgs := b.ensureSession()
	tc := req.ToolCall
	_, known := b.tools[tc.ToolCallID]
	if !known { // asked before announced (Gemini CLI): announce it first
		msgs = append(msgs, b.toolCall(update{ToolCallID: tc.ToolCallID, Title: &tc.Title, ToolKind: tc.Kind, Locations: tc.Locations, RawInput: tc.RawInput})...)
	}
	t := b.rememberTool(tc.ToolCallID, tc.Kind, tc.Title)
	if tc.Title != "" {
		t.title = tc.Title
	}
	token := "rpl_" + randomID(16)
	window := b.window()
	b.perms[token] = &permission{id: m.ID, options: req.Options, title: t.title,
		expiry: time.AfterFunc(time.Duration(window)*time.Second, func() { b.expire(token) })}
	risk, irreversible := riskOf(tc.Kind)
	action := nonEmpty(t.title, "a tool call of kind "+t.name)
	fields := map[string]any{
		"action":           action,
		"consequence":      consequence(tc),
		"summary_normal":   b.who() + " asks to: " + action,
		"reply_token":      token,
		"timeout_seconds":  window, // then the default: reject, never accept
		"default_decision": "reject",
		"risk_level":       risk,
		"irreversible":     irreversible,
		"extra_context":    extraContext(t.id, tc, req.Options),
	}
	if irreversible {
		fields["reversibility"] = "irreversible"
	}
	msgs = append(msgs, b.event(protocol.TypeAwaitingConfirmation, protocol.UrgencyCritical, fields))
	b.mu.Unlock()
	b.queue(msgs)
}

// extraContext is what details say of a permission request beyond its
// consequence: the agent's options, each diff line by line, the command
// whole.
func extraContext(id string, tc toolCall, opts []option) map[string]any {
	ctx := map[string]any{"tool_call_id": id, "agent_options": optionWords(opts)}
	if c := changes(tc); c != "" {
		ctx["changes"] = c
	}
	if cmd := command(tc.RawInput); cmd != "" {
		ctx["command"] = clip(cmd, 4000)
	}
	return ctx
}

// optionWords lists the agent's options, bounded, for the details.
func optionWords(opts []option) string {
	var ws []string
	for i, o := range opts {
		if i == 8 {
			ws = append(ws, fmt.Sprintf("and %d more", len(opts)-8))
			break
		}
		ws = append(ws, clip(o.Name, 80)+" ("+clip(o.Kind, 20)+")")
	}
	if len(ws) == 0 {
		return "none"
	}
	return strings.Join(ws, ", ")
}

// consequence says in words what a tool call would change: which files a
// diff changes and by how many lines, the command it runs, or its text.
func consequence(tc toolCall) string {
	var parts []string
	for _, c := range contents(tc.Content) {
		if len(parts) == 8 {
			parts = append(parts, "and more")
			break
		}
		switch c.Type {
		case "diff":
			parts = append(parts, diffWords(c))
		case "content":
			if text := ownWords(c.Content.Text, tc.RawInput); c.Content.Type == "text" && text != "" {
				parts = append(parts, sentence(clip(text, 1000)))
			}
		}
	}
	if cmd := command(tc.RawInput); cmd != "" {
		run := "Runs the command: " + clip(cmd, 2000)
		if dir := stringField(tc.RawInput, "cwd"); dir != "" {
			run += ", in the folder " + clip(dir, 500)
		}
		parts = append(parts, run)
	}
	if len(parts) == 0 && len(tc.Locations) > 0 {
		parts = append(parts, "Touches "+details("", tc.Locations, nil)+".")
	}
	if len(parts) == 0 {
		return "The agent does not say what this changes."
	}
	return strings.Join(parts, " ")
}

// sentence ends s with a full stop unless it ends a sentence already, so
// the parts of a consequence read apart.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "…") {
		return s
	}
	return s + "."
}

// diffWords says what one diff does: the file, the lines removed and
// added (after the lines both versions share at their start and end).
func diffWords(c toolContent) string {
	path := nonEmpty(c.Path, "a file")
	_, removed, added := hunk(c)
	if c.OldText == nil {
		return fmt.Sprintf("Creates %s with %s.", path, count(len(added), "line"))
	}
	return fmt.Sprintf("Changes %s: %s removed, %d added.", path, count(len(removed), "line"), len(added))
}

// count says n things, in the singular for one.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// fromSubscriber takes one AAEP message from the subscriber.
func (b *Bridge) fromSubscriber(msg []byte) error {
	var m struct {
		Type         string          `json:"type"`
		Capabilities json.RawMessage `json:"capabilities"`
		ReplyToken   string          `json:"reply_token"`
		Decision     string          `json:"decision"`
		Response     json.RawMessage `json:"response"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		return fmt.Errorf("acp: the message is not a JSON object: %w", err)
	}
	switch m.Type {
	case protocol.TypeSubscriptionRequest, protocol.TypeSubscriptionRenegotiate:
		b.q.pushFront(b.accepted(m.Capabilities))
		return nil
	case protocol.TypeSubscriptionClose:
		go b.Close() // the agent ends with the subscription
		return nil
	case protocol.TypeConfirmationReply:
		return b.answer(m.ReplyToken, m.Decision)
	case protocol.TypeClarificationReply:
		return b.clarified(m.ReplyToken, m.Response)
	}
	b.say("Ignored a message of type " + protocol.Line(clip(m.Type, 80)) + " from the subscriber.")
	return nil
}

// accepted answers a subscription request: the bridge honours the reply
// terms asked, and nothing it does not apply.
func (b *Bridge) accepted(caps json.RawMessage) []byte {
	var req map[string]json.RawMessage
	_ = json.Unmarshal(caps, &req)
	honored := map[string]any{}
	clarify := false
	for _, k := range []string{"supports_confirmation_reply", "supports_clarification_reply"} {
		var v bool
		if json.Unmarshal(req[k], &v) == nil {
			honored[k] = v
			clarify = clarify || (v && k == "supports_clarification_reply")
		}
	}
	b.mu.Lock()
	b.noClarify = !clarify
	var void []*elicitation
	if b.noClarify { // the questions waiting can no longer be answered
		void = b.takeElicitations()
	}
	ag := b.ag
	producer := map[string]string{"agent_id": nonEmpty(b.name, "acp")}
	if b.title != "" {
		producer["agent_name"] = b.title
	}
	if b.version != "" {
		producer["agent_version"] = b.version
	}
	b.mu.Unlock()
	for _, e := range void {
		_ = ag.write(cancelledElicitation(e.id))
	}
	if len(void) > 0 {
		b.say(fmt.Sprintf("The agent's %s waiting were answered cancelled: nothing can answer them now.", count(len(void), "question")))
	}
	out, _ := json.Marshal(map[string]any{
		"type": protocol.TypeSubscriptionAccepted, "subscription_id": "sub_" + randomID(12),
		"aaep_version": protocol.Version, "producer": producer, "honored_capabilities": honored,
		"negotiation_notes": "An ACP agent, bridged by aaep-term: no filters, no rate limit; a form the agent asks to fill in comes one question a field.",
	})
	return out
}

// expire rejects a permission request nobody answered in its window, as
// the confirmation's default says.
func (b *Bridge) expire(token string) {
	if b.answer(token, protocol.DecisionReject) == nil {
		b.say("Nobody answered in time; the agent was told no.")
	}
}

// answer sends the user's decision on a permission request: accept picks
// the agent's allow_once option, reject its reject_once; when it offers
// no such option the request is answered "cancelled", never with an
// option the user did not choose (allow_always included).
func (b *Bridge) answer(token, decision string) error {
	b.mu.Lock()
	p, ok := b.perms[token]
	if ok {
		p.expiry.Stop()
		delete(b.perms, token)
	}
	ag := b.ag
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("acp: no permission request waits for the reply token %q", clip(protocol.Line(token), 80))
	}
	want := "reject_once"
	if decision == protocol.DecisionAccept {
		want = "allow_once"
	}
	for _, o := range p.options {
		if o.Kind == want {
			sel, _ := json.Marshal(map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": o.ID}})
			return ag.write(wire.Result(p.id, sel))
		}
	}
	b.say(fmt.Sprintf("The agent offered no %s option for %q; its request was answered \"cancelled\".", want, clip(protocol.Line(p.title), 200)))
	return ag.write(cancelledOutcome(p.id))
}
