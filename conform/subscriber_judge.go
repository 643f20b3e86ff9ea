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
			return v.set(Fail, "No subscriber came: nothing was POSTed to %s and no event stream was opened in time.", protocol.PathSubscriptions)
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
	if !exec && announces(t.ID) {
		return v.set(Skip, "This test reads what the subscriber announces; run it with --exec.")
	}
	switch t.ID {
	case idSubConnect:
		if f.bare {
			return v.set(Pass, "It opened the event stream without a subscription.request, which Level 1 allows; the evidence is the whole session.")
		}
		return v.set(Pass, "It subscribed and opened the event stream of subscription sub_conform01; the evidence is the whole session.")

	case idSubAnnounces:
		if r, done := v.mustSay(f, "", markStarted, markTool, markCompleted); r.Status != Pass || done {
			return r
		}
		return v.set(Pass, "It announced agent.session.started, agent.tool.invoked and agent.session.completed.")

	case idSubTerminals:
		if r, done := v.mustSay(f, "", markCompleted, markErrored, markCancelled); r.Status != Pass || done {
			return r
		}
		said := map[string]string{}
		for _, role := range []string{markCompleted, markErrored, markCancelled} {
			m := f.marks[role]
			line := firstLine(f.output, m.word)
			v.note(0, fmt.Sprintf("%s announced as %q", typeName(m.typ), protocol.Line(truncate(line, 200))))
			key := plainWords(line, m.word)
			if other, ok := said[key]; ok {
				return v.set(Fail, "It announced a session that ended with %s in the same words as one that ended with %s.", typeName(m.typ), typeName(other))
			}
			said[key] = m.typ
		}
		return v.set(Pass, "It announced the three ways a session ends in three different ways, though their summaries were the same.")

	case idSubCritical:
		var filters struct{ Exclude []string }
		json.Unmarshal(capabilities(f.request)["event_filters"], &filters) //nolint:errcheck // none
		if len(filters.Exclude) > 0 {
			v.note(0, fmt.Sprintf("the subscriber's filters exclude %q; critical events were sent all the same", filters.Exclude))
		}
		if r, _ := v.mustSay(f, " though it is critical", markErrored); r.Status != Pass {
			return r
		}
		return v.set(Pass, "It announced agent.session.errored, a critical event.")

	case idSubUnknown:
		if f.streamsAfter > f.streamsBefore {
			v.note(0, fmt.Sprintf("streams opened: %d before the unknown events, %d at the end", f.streamsBefore, f.streamsAfter))
			return v.set(Fail, "The subscriber dropped its stream and opened another after an event of an unknown type or with unknown extensions.")
		}
		if f.endedEarly {
			return v.set(Fail, "The subscriber ended before it was told to stop, after the unknown events had been sent.")
		}
		if !exec {
			return v.set(Pass, "It kept its stream open after the unknown events, to the end of the session (what it announced was not read: no --exec).")
		}
		if r, _ := v.mustSay(f, "", markUnknown, markExtension, markAfter); r.Status != Pass {
			return r
		}
		return v.set(Pass, "It announced the event of an unknown type and the one with unknown extensions, kept its stream and announced the events after them.")

	case idSubDedupe:
		if r, done := v.mustSay(f, "", markDuplicate, markTool); r.Status != Pass || done {
			return r
		}
		dup, once := strings.Count(f.output, f.marks[markDuplicate].word), strings.Count(f.output, f.marks[markTool].word)
		v.note(0, fmt.Sprintf("the event sent twice is named %d times in what the subscriber wrote, an event of the same type sent once %d times", dup, once))
		if dup > once {
			return v.set(Fail, "It announced an event delivered twice (the same event_id) %d times, where an event of the same type delivered once is named %d times.", dup, once)
		}
		return v.set(Pass, "It announced the event delivered twice once.")

	case idSubPressure:
		if r, done := v.mustSay(f, " though it is critical", markErrored); r.Status != Pass || done {
			return r
		}
		if f.erroredSent == 0 {
			return v.set(Fail, "The critical event after the burst was not written to the subscriber's stream within %v.", o.Patience)
		}
		window := o.Window.Round(time.Millisecond)
		if f.erroredSaid == 0 {
			return v.set(Fail, "It announced the critical agent.session.errored only after the %v it was watched, queued behind a burst of %d background events.", window, f.burst)
		}
		return v.set(Pass, "It announced the critical agent.session.errored %v after it arrived behind a burst of %d background events (watched %v).",
			(f.erroredSaid - f.erroredSent).Round(time.Millisecond), f.burst, window)

	case idSubOrder:
		if r, done := v.mustSay(f, "", markFirst, markSecond); r.Status != Pass || done {
			return r
		}
		first, second := strings.Index(f.output, f.marks[markFirst].word), strings.Index(f.output, f.marks[markSecond].word)
		if second < first {
			return v.set(Fail, "It announced the events in the order they came, not in the order of their sequence_number: the later one first.")
		}
		return v.set(Pass, "It announced two events delivered out of order in the order of their sequence_number.")

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
		if len(f.prompts) == 0 {
			return v.set(Skip, "No prompt was sent: the subscriber did not declare it can answer one.")
		}
		for _, p := range f.prompts {
			v.sent(p.sent, p.frame, fmt.Sprintf("prompt %d, watched %v before the user acted", p.n, p.watched.Round(time.Millisecond)))
			for _, h := range p.early {
				v.got(h, fmt.Sprintf("a reply %v after prompt %d was flushed, before any user action", (h.at-p.sent).Round(time.Millisecond), p.n))
				return v.set(Fail, "It replied to prompt %d %v after it was sent, before the user did anything (prompt %d was watched %v).",
					p.n, (h.at - p.sent).Round(time.Millisecond), p.n, p.watched.Round(time.Millisecond))
			}
		}
		p := f.prompts[0]
		return v.set(Pass, "No reply came to prompt 1 in the %v it was watched (its timeout_seconds and a second more), nor to any other prompt before the user acted.", p.watched.Round(time.Millisecond))

	case idSubAsTyped:
		if r, skip := needUser(); skip {
			return r
		}
		for _, p := range f.prompts {
			if p.answer == "" {
				continue
			}
			if !p.replied {
				return v.set(Fail, "No reply to prompt %d came within %v of the user's answer.", p.n, o.Patience)
			}
			v.got(p.reply, fmt.Sprintf("the reply to prompt %d", p.n))
			if said := decision(p); wrongKind(p) == "" && said != p.answer {
				return v.set(Fail, "Its reply to prompt %d says %q, while the user answered %q.", p.n, said, p.answer)
			}
		}
		return v.set(Pass, "Each reply said what the user typed: reject, accept, the choice that is not the default and a line of text.")

	case idSubTokenEcho:
		if r, skip := needUser(); skip {
			return r
		}
		for _, p := range f.prompts {
			if p.answer == "" {
				continue // nobody answered it
			}
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
		return v.set(Pass, "Each of %d replies echoed its reply_token exactly.", len(f.prompts)-1)

	case idSubReplyKind:
		if r, skip := needUser(); skip {
			return r
		}
		for _, p := range f.prompts {
			if p.answer == "" {
				continue // nobody answered it
			}
			if !p.replied {
				return v.set(Fail, "No reply to prompt %d came within %v of the user's answer.", p.n, o.Patience)
			}
			v.got(p.reply, fmt.Sprintf("the reply to prompt %d", p.n))
			if why := wrongKind(p); why != "" {
				return v.set(Fail, "The reply to prompt %d %s.", p.n, why)
			}
		}
		return v.set(Pass, "Each confirmation got a confirmation.reply with an allowed decision and each clarification a clarification.reply with a choice offered or a text.")

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
		if json.Unmarshal(h.m["response"], &resp) != nil {
			return fmt.Sprintf("has response %s, not a string", truncate(string(h.m["response"]), 80))
		}
		if p.choices != nil && !slices.Contains(p.choices, resp) {
			return fmt.Sprintf("has response %q, not one of the choices %q", truncate(resp, 80), p.choices)
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

// announces reports whether test id reads what the subscriber wrote.
func announces(id string) bool {
	switch id {
	case idSubAnnounces, idSubTerminals, idSubCritical, idSubDedupe, idSubOrder, idSubPressure:
		return true
	}
	return false
}

// mustSay checks that the marked events of roles were announced: their
// words are in what the subscriber wrote. It returns a failure naming the
// first that is not (why is added to the sentence), or a pass with done
// set when none of them could be sent (the subscriber's filters kept them
// back), or a pass to go on from.
func (v *verdict) mustSay(f *facts, why string, roles ...string) (Result, bool) {
	judged := 0
	for _, role := range roles {
		m := f.marks[role]
		if m == nil || !m.sent {
			continue
		}
		judged++
		if !strings.Contains(f.output, m.word) {
			v.note(0, fmt.Sprintf("%d bytes of output read; the last marked event was announced before shutdown: %t", len(f.output), f.lastSeen))
			return v.set(Fail, "It did not announce the %s event marked %s%s: that word is nowhere in what it wrote.", typeName(m.typ), m.word, why), false
		}
	}
	if judged == 0 {
		return v.set(Skip, "The subscriber's own event filters kept back every event this test reads."), true
	}
	return Result{Status: Pass}, false
}

// firstLine is the first line of out holding word.
func firstLine(out, word string) string {
	for l := range strings.Lines(out) {
		if strings.Contains(l, word) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// plainWords is line without word, digits and IDs, lower-cased: what is
// left to tell one announcement from another.
func plainWords(line, word string) string {
	var keep []string
	for _, w := range strings.Fields(strings.ReplaceAll(line, word, "")) {
		if strings.Contains(w, "sess_") || strings.Contains(w, "evt_") {
			continue
		}
		w = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, strings.ToLower(w))
		keep = append(keep, w)
	}
	return strings.Join(keep, " ")
}

// typeName is an event type as the results name it: the compact form
// without its "aaep:" prefix.
func typeName(typ string) string {
	return strings.TrimPrefix(protocol.NormalizeType(typ), "aaep:")
}
