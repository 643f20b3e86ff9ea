package conform

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// verdict builds one result.
type verdict struct {
	r Result
}

func (v *verdict) got(h heard, note string) {
	v.r.Evidence = append(v.r.Evidence, Evidence{At: h.at, Dir: "received", Frame: jsonOrNil(h.raw), Note: note + ", on " + h.path})
}

func (v *verdict) sent(at time.Duration, frame json.RawMessage, note string) {
	v.r.Evidence = append(v.r.Evidence, Evidence{At: at, Dir: "sent", Frame: frame, Note: note})
}

func (v *verdict) note(at time.Duration, note string) {
	v.r.Evidence = append(v.r.Evidence, Evidence{At: at, Dir: "note", Note: note})
}

func (v *verdict) set(s Status, format string, args ...any) Result {
	v.r.Status, v.r.Detail = s, protocol.Line(fmt.Sprintf(format, args...))
	return v.r
}

func jsonOrNil(b []byte) json.RawMessage {
	if json.Valid(b) {
		return b
	}
	return nil
}

// judge decides one test from what the session observed. exec says
// whether the suite could act as the user.
func judge(t Test, f *facts, o SubscriberOptions, exec bool) Result {
	v := &verdict{r: Result{Test: t}}
	if t.ID == idSubConnect {
		v.r.Evidence = f.transcript // the whole session
	} else if f.request.m != nil {
		v.got(f.request, "the subscription request")
	}
	if !f.connected {
		if f.request.m == nil {
			return v.set(Fail, "No subscriber subscribed: nothing was POSTed to %s in time.", protocol.PathSubscriptions)
		}
		return v.set(Fail, "The subscriber was accepted but never opened the event stream it was given.")
	}
	needUser := func() (Result, bool) {
		if !exec {
			return v.set(Skip, "This test needs the suite to act as the user; run it with --exec."), true
		}
		if len(f.prompts) == 0 && t.ID != idSubRenegotiate && t.ID != idSubClose {
			return v.set(Skip, "No prompt was sent: the subscriber did not declare it can answer one."), true
		}
		return Result{}, false
	}
	switch t.ID {
	case idSubConnect:
		return v.set(Pass, "It subscribed and opened the event stream of subscription sub_conform01; the evidence is the whole session.")

	case idSubUnknown:
		if f.streamsAfter > f.streamsBefore {
			v.note(0, fmt.Sprintf("streams opened: %d before the unknown events, %d at the end", f.streamsBefore, f.streamsAfter))
			return v.set(Fail, "The subscriber dropped its stream and opened another after an event of an unknown type or with unknown extensions.")
		}
		if n := len(f.prompts); n > 0 && f.prompts[n-1].sent > f.unknownAt && exec {
			p := f.prompts[n-1]
			if !f.afterUnknown {
				return v.set(Fail, "After an event of an unknown type and one with unknown extensions, the subscriber no longer replied to a prompt.")
			}
			v.got(p.reply, "the reply after the unknown events")
			return v.set(Pass, "It kept its stream and still replied to the next prompt after the unknown events.")
		}
		return v.set(Pass, "It kept its stream open after the unknown events, to the end of the session (no reply after them was tested: no prompt followed them, or no --exec).")

	case idSubDeclares:
		caps := capabilities(f.request)
		conf, clar := boolCap(caps, "supports_confirmation_reply"), boolCap(caps, "supports_clarification_reply")
		if !conf {
			return v.set(Fail, "The subscription request does not declare supports_confirmation_reply true.")
		}
		for _, p := range f.prompts {
			if p.replied && p.typ == protocol.TypeAwaitingClarify && !clar {
				v.got(p.reply, "a clarification reply")
				return v.set(Fail, "It answered a clarification without declaring supports_clarification_reply true.")
			}
		}
		return v.set(Pass, "It declared supports_confirmation_reply true (supports_clarification_reply %t).", clar)

	case idSubNoAuto:
		window := o.Window.Round(time.Millisecond)
		for _, p := range f.prompts {
			v.sent(p.sent, p.frame, fmt.Sprintf("prompt %d", p.n))
			for _, h := range p.early {
				v.got(h, fmt.Sprintf("a reply %v after prompt %d was flushed, before any user action", (h.at-p.sent).Round(time.Millisecond), p.n))
				return v.set(Fail, "It replied to prompt %d %v after it was sent, before the user did anything (window %v).",
					p.n, (h.at - p.sent).Round(time.Millisecond), window)
			}
		}
		if len(f.prompts) == 0 {
			return v.set(Skip, "No prompt was sent: the subscriber did not declare it can answer one.")
		}
		for _, p := range f.prompts {
			if said := decision(p); p.replied && wrongKind(p) == "" && said != p.answer {
				v.got(p.reply, fmt.Sprintf("the reply to prompt %d", p.n))
				return v.set(Fail, "Its reply to prompt %d says %q, while the user answered %q.", p.n, said, p.answer)
			}
		}
		how := "before the suite typed an answer"
		if !exec {
			how = "with nobody acting (a person at the subscriber could have; no reply came)"
		}
		return v.set(Pass, "No reply came in the %v after each of %d prompts, %s; the window is a measured wait, kept short.", window, len(f.prompts), how)

	case idSubTokenEcho:
		if r, skip := needUser(); skip {
			return r
		}
		for _, p := range f.prompts {
			v.sent(p.sent, p.frame, fmt.Sprintf("prompt %d", p.n))
			if !p.replied {
				return v.set(Fail, "No reply to prompt %d came within %v of the user's answer.", p.n, o.Patience)
			}
			v.got(p.reply, fmt.Sprintf("the reply to prompt %d", p.n))
			tok, _ := str(p.reply.m, "reply_token")
			if tok != p.token {
				return v.set(Fail, "The reply to prompt %d carries reply_token %q, not %q as sent.", p.n, tok, p.token)
			}
			if sub, ok := str(p.reply.m, "subscription_id"); ok && sub != "sub_conform01" {
				return v.set(Fail, "The reply to prompt %d names subscription %q, not sub_conform01.", p.n, sub)
			}
		}
		return v.set(Pass, "Each of %d replies echoed its reply_token exactly.", len(f.prompts))

	case idSubReplyKind:
		if r, skip := needUser(); skip {
			return r
		}
		for _, p := range f.prompts {
			if !p.replied {
				return v.set(Fail, "No reply to prompt %d came within %v of the user's answer.", p.n, o.Patience)
			}
			v.got(p.reply, fmt.Sprintf("the reply to prompt %d", p.n))
			if why := wrongKind(p); why != "" {
				return v.set(Fail, "The reply to prompt %d %s.", p.n, why)
			}
		}
		return v.set(Pass, "The confirmation got a confirmation.reply with an allowed decision and the clarification a clarification.reply with a choice offered.")

	case idSubHandshake:
		var caps map[string]json.RawMessage
		if json.Unmarshal(f.request.m["capabilities"], &caps) != nil || caps == nil {
			return v.set(Fail, "The subscription request's capabilities is not an object.")
		}
		if id, _ := str(f.request.m, "subscriber_id"); id == "" {
			return v.set(Fail, "The subscription request has no subscriber_id.")
		}
		if ver, _ := str(f.request.m, "aaep_version"); !strings.HasPrefix(ver, "1.") {
			return v.set(Fail, "The subscription request names aaep_version %q, not a 1.x version.", ver)
		}
		return v.set(Pass, "The request names the subscriber, AAEP 1.x and a capabilities object of %d terms.", len(caps))

	case idSubLowerTerms:
		v.note(0, fmt.Sprintf("renegotiations sent unasked: %d", f.unaskedRenegos))
		if f.unaskedRenegos > 0 {
			more := ""
			if f.dropped > 0 {
				more = fmt.Sprintf(" (and %d more messages, counted, not kept)", f.dropped)
			}
			return v.set(Fail, "It sent %d subscription.renegotiate messages nobody asked for after lower terms were honored%s.", f.unaskedRenegos, more)
		}
		if f.streamsBefore > 1 {
			return v.set(Fail, "It opened the stream %d times: lower terms were not simply accepted.", f.streamsBefore)
		}
		asked := "no limit"
		var rate float64
		if json.Unmarshal(capabilities(f.request)["max_events_per_second"], &rate) == nil {
			asked = fmt.Sprintf("%g events a second", rate)
		}
		return v.set(Pass, "It asked for %s and accepted the %v events a second honored: one stream, no renegotiation unasked.",
			asked, lowerTerms(capabilities(f.request))["max_events_per_second"])

	case idSubRenegotiate:
		if r, skip := needUser(); skip {
			return r
		}
		v.note(f.renegAskedAt, fmt.Sprintf("typed %q", o.RenegotiateLine))
		if !f.renegHeard {
			return v.set(Fail, "No subscription.renegotiate came within %v of the user asking to change the terms.", o.Patience)
		}
		v.got(f.reneg, "the renegotiation")
		if sub, _ := str(f.reneg.m, "subscription_id"); sub != "sub_conform01" {
			return v.set(Fail, "The renegotiation names subscription %q, not sub_conform01.", sub)
		}
		var caps map[string]json.RawMessage
		if json.Unmarshal(f.reneg.m["capabilities"], &caps) != nil || len(caps) == 0 {
			return v.set(Fail, "The renegotiation carries no capabilities object with the change.")
		}
		return v.set(Pass, "It sent subscription.renegotiate %v after the user asked.", (f.reneg.at - f.renegAskedAt).Round(time.Millisecond))

	case idSubClose:
		if r, skip := needUser(); skip {
			return r
		}
		if !f.closeHeard {
			return v.set(Fail, "No subscription.close came on shutdown (%s).", f.closeHow)
		}
		v.got(f.closeMsg, "the close")
		if sub, _ := str(f.closeMsg.m, "subscription_id"); sub != "sub_conform01" {
			return v.set(Fail, "The subscription.close names subscription %q, not sub_conform01.", sub)
		}
		return v.set(Pass, "It sent subscription.close on shutdown (%s).", f.closeHow)
	}
	return v.set(Skip, "This test is not known to this suite.")
}

// decision is what the reply to p says: its decision or its response.
func decision(p *prompt) string {
	name := "decision"
	if p.typ == protocol.TypeAwaitingClarify {
		name = "response"
	}
	d, _ := str(p.reply.m, name)
	return d
}

// wrongKind says what is wrong with the reply to p, or "".
func wrongKind(p *prompt) string {
	h := p.reply
	switch p.typ {
	case protocol.TypeAwaitingConfirmation:
		if h.typ != protocol.TypeConfirmationReply {
			return fmt.Sprintf("is a %q, not a %s", h.typ, protocol.TypeConfirmationReply)
		}
		d, _ := str(h.m, "decision")
		if d != protocol.DecisionAccept && d != protocol.DecisionReject {
			return fmt.Sprintf("has decision %q, not one the prompt allows (accept, reject)", d)
		}
	case protocol.TypeAwaitingClarify:
		if h.typ != protocol.TypeClarificationReply {
			return fmt.Sprintf("is a %q, not a %s", h.typ, protocol.TypeClarificationReply)
		}
		var resp string
		if json.Unmarshal(h.m["response"], &resp) != nil || !slices.Contains(p.choices, resp) {
			return fmt.Sprintf("has response %q, not one of the choices %q", truncate(string(h.m["response"]), 80), p.choices)
		}
	}
	return ""
}

func capabilities(h heard) map[string]json.RawMessage {
	var caps map[string]json.RawMessage
	json.Unmarshal(h.m["capabilities"], &caps) //nolint:errcheck // none
	return caps
}

func boolCap(caps map[string]json.RawMessage, name string) bool {
	var b bool
	return json.Unmarshal(caps[name], &b) == nil && b
}
