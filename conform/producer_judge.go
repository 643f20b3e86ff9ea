package conform

// This file judges what the subscriptions saw: the Level 1 rules of every
// session, the Level 2 rule that no irreversible tool runs before its
// reply, and the Level 3 terms of each subscription.

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
)

// streams returns the subscriptions whose events Level 1 judges: the
// observer, and main (which saw the prompts and what followed them).
func (r *prun) streams() []*psub {
	return []*psub{r.obs, r.main}
}

// judgeL1 judges every session seen against the Level 1 rules.
func (r *prun) judgeL1() {
	total := 0
	var dropped []seen
	for _, s := range r.streams() {
		fs, _ := s.snapshot()
		total += len(events(fs))
		for _, f := range fs {
			if !f.hand && f.ev == nil {
				dropped = append(dropped, f)
			}
		}
		r.judgeEnvelope(s, fs)
		fs = once(fs)
		r.judgeFrames(s, fs)
		r.judgeSessions(s, fs)
	}
	if total == 0 {
		why := "The producer sent no event at all."
		var ev []Evidence
		if len(dropped) > 0 {
			why = fmt.Sprintf("The producer sent no valid event: the %s seen %s dropped as invalid, the first (%s) because %s.", prose.Count(len(dropped), "message", "messages"), prose.Plural(len(dropped), "was", "were"), seenName(dropped[0]), protocol.Sanitize(fmt.Sprint(dropped[0].err)))
			ev = append(ev, r.frame(dropped[0], "the first message dropped"))
		}
		for _, id := range []string{PLifecycle, POneTerminal, PStateChanges, PToolBracketing, PEnvelopeSchema, PEnvelopeRules, PSummaryNormal, PNoSecrets} {
			r.result(id, Fail, why, ev...)
		}
		return
	}
	// A rule with nothing to judge it on is not passed: it passes only
	// where a stream showed what it is about.
	for id, why := range map[string]string{
		PStateChanges:   "The producer announced no state change, so their order could not be tested.",
		PToolBracketing: "The producer announced no tool call, so its bracketing could not be tested.",
		PNoSecrets:      "The producer announced no tool call with an args_summary, so none could be checked for secrets.",
	} {
		if _, ok := r.results[id]; !ok {
			r.result(id, Skip, why)
		}
	}
}

// secretPattern finds what looks like a credential in an args_summary.
var secretPattern = regexp.MustCompile(`(?i)(pass(word|wd)?|secret|api[_-]?key|access[_-]?key|private[_-]?key|token|bearer|authorization)\s*[:=]\s*\S{4,}|\bsk-[A-Za-z0-9]{16,}|\bAKIA[0-9A-Z]{16}\b|-----BEGIN [A-Z ]*PRIVATE KEY-----`)

// judgeFrames checks each frame on its own: envelope and schema,
// summary_normal, secrets.
func (r *prun) judgeFrames(s *psub, fs []seen) {
	n, args := 0, 0
	for _, f := range fs {
		if f.hand {
			continue
		}
		if f.ev == nil {
			what := "An event"
			if f.bad != nil {
				what = "The event " + named(f.bad)
				r.judgeSummary(f.bad, f, s)
			}
			r.result(PEnvelopeSchema, Fail, fmt.Sprintf("%s is not valid: %s.", what, protocol.Sanitize(fmt.Sprint(f.err))), r.frame(f, "seen by subscription "+s.name))
			continue
		}
		n++
		r.judgeSummary(f.ev, f, s)
		if f.ev.Type == protocol.TypeToolInvoked && f.ev.ArgsSummary != "" {
			args++
			if secretPattern.MatchString(string(f.ev.ArgsSummary)) {
				r.result(PNoSecrets, Warn, "A tool's args_summary seems to show a secret.", r.frame(f, "seen by subscription "+s.name))
			}
		}
	}
	if n > 0 {
		r.result(PEnvelopeSchema, Pass, "Every event seen matched the envelope and the schema of its type.")
		r.result(PSummaryNormal, Pass, "Every event seen carried a summary_normal.")
	}
	if args > 0 {
		r.result(PNoSecrets, Pass, fmt.Sprintf("None of the %d args_summary seen looked like it held a secret.", args))
	}
}

// once returns fs without the copies of an event already in it (the same
// event_id and content): a producer may deliver an event twice, and a
// subscriber drops the copy. An event_id reused for other content stays,
// and judgeEnvelope fails it.
func once(fs []seen) []seen {
	byID := map[string][]byte{}
	out := make([]seen, 0, len(fs))
	for _, f := range fs {
		if f.ev != nil {
			if old, ok := byID[f.ev.EventID]; ok && sameJSON(old, f.data) {
				continue
			}
			byID[f.ev.EventID] = f.data
		}
		out = append(out, f)
	}
	return out
}

// seenName names a frame for a detail line: its event when it could be
// decoded (valid or not), else its type as written, else "not an event".
func seenName(f seen) string {
	switch {
	case f.ev != nil:
		return named(f.ev)
	case f.bad != nil:
		return named(f.bad)
	case f.typ != "":
		return "a message of type " + protocol.Line(f.typ)
	}
	return "a message that is not an event"
}

// judgeSummary checks that e, seen as f by s, has a summary_normal if it
// is likely to be announced (spec 9.3.1): every event but streamed output
// (which announces its chunk) and background events (which subscribers may
// leave unsaid: progress, and state changes sent as background or with no
// urgency, spec 3.3.2), for which a missing one is a warning.
func (r *prun) judgeSummary(e *protocol.Event, f seen, s *psub) {
	if e.Type == protocol.TypeOutputStreaming || strings.TrimSpace(string(e.SummaryNormal)) != "" {
		return
	}
	background := e.Urgency == protocol.UrgencyBackground ||
		e.Urgency == "" && (e.Type == protocol.TypeProgressUpdated || e.Type == protocol.TypeStateChanged)
	if background {
		r.result(PSummaryNormal, Warn, fmt.Sprintf("The background event %s has no summary_normal: a subscriber that announces it has nothing to say.", named(e)), r.frame(f, "seen by subscription "+s.name))
		return
	}
	r.result(PSummaryNormal, Fail, fmt.Sprintf("The event %s, likely to be announced, has no summary_normal, or an empty one.", named(e)), r.frame(f, "seen by subscription "+s.name))
}

// judgeSessions checks each session's order: bracketing, one terminal
// event, state changes, tool bracketing.
func (r *prun) judgeSessions(s *psub, fs []seen) {
	type sess struct {
		first    seen
		terminal []seen
		state    string // the state the last change reached
		tools    map[string]seen
		done     map[string]bool
		// unnamed are the keys of the calls invoked without a
		// tool_call_id (it is optional), by tool, oldest first.
		unnamed map[string][]string
		calls   int
	}
	all := map[string]*sess{}
	var order []string
	changes, tools := 0, 0
	who := "seen by subscription " + s.name
	for _, f := range fs {
		if f.ev == nil || f.ev.SessionID == "" {
			continue
		}
		e := f.ev
		ss, ok := all[e.SessionID]
		if !ok {
			ss = &sess{first: f, tools: map[string]seen{}, done: map[string]bool{}, unnamed: map[string][]string{}}
			all[e.SessionID] = ss
			order = append(order, e.SessionID)
			if e.Type != protocol.TypeSessionStarted {
				r.result(PLifecycle, Fail, fmt.Sprintf("The first event of a session, %s, is not agent.session.started.", named(e)), r.frame(f, who))
			}
		} else if e.Type == protocol.TypeSessionStarted {
			r.result(PLifecycle, Fail, fmt.Sprintf("The session of %s was started twice.", named(e)), r.frame(ss.first, who), r.frame(f, who))
		}
		if len(ss.terminal) > 0 {
			if e.IsTerminal() {
				r.result(POneTerminal, Fail, fmt.Sprintf("The session of %s has more than one terminal event: %s came after %s.", named(e), named(e), named(ss.terminal[0].ev)), r.frame(ss.terminal[0], who), r.frame(f, who))
			} else {
				r.result(PLifecycle, Fail, fmt.Sprintf("The event %s came after its session's terminal event %s.", named(e), named(ss.terminal[0].ev)), r.frame(ss.terminal[0], who), r.frame(f, who))
			}
		}
		switch e.Type {
		case protocol.TypeStateChanged:
			changes++
			switch {
			case ss.state == "" && e.FromState != "idle":
				r.result(PStateChanges, Fail, fmt.Sprintf("The first state change of a session, %s, starts from %q, not \"idle\".", named(e), protocol.Sanitize(e.FromState)), r.frame(f, who))
			case ss.state != "" && e.FromState != ss.state:
				r.result(PStateChanges, Fail, fmt.Sprintf("The state change %s starts from %q, but the last one reached %q.", named(e), protocol.Sanitize(e.FromState), protocol.Sanitize(ss.state)), r.frame(f, who))
			}
			ss.state = e.ToState
		case protocol.TypeToolInvoked:
			tools++
			if ss.state != "" && ss.state != "calling_tool" {
				r.result(PStateChanges, Fail, fmt.Sprintf("The tool call %s came in state %q: the change to \"calling_tool\" was not announced.", named(e), protocol.Sanitize(ss.state)), r.frame(f, who))
			}
			key := e.ToolCallID
			if key == "" {
				ss.calls++
				key = fmt.Sprintf("\x00%d", ss.calls)
				ss.unnamed[e.Tool] = append(ss.unnamed[e.Tool], key)
			}
			if _, dup := ss.tools[key]; dup {
				r.result(PToolBracketing, Fail, fmt.Sprintf("The tool_call_id of %s was invoked before.", named(e)), r.frame(f, who))
			}
			ss.tools[key] = f
		case protocol.TypeToolCompleted:
			key := e.ToolCallID
			if key == "" && len(ss.unnamed[e.Tool]) > 0 {
				key = ss.unnamed[e.Tool][0]
				ss.unnamed[e.Tool] = ss.unnamed[e.Tool][1:]
			}
			if _, ok := ss.tools[key]; !ok {
				r.result(PToolBracketing, Fail, fmt.Sprintf("The tool call %s completed without being announced as invoked.", named(e)), r.frame(f, who))
			} else if ss.done[key] {
				r.result(PToolBracketing, Fail, fmt.Sprintf("The tool call %s completed twice.", named(e)), r.frame(f, who))
			}
			ss.done[key] = true
		}
		if e.IsTerminal() {
			ss.terminal = append(ss.terminal, f)
			for id, inv := range ss.tools {
				if !ss.done[id] {
					r.result(PToolBracketing, Fail, fmt.Sprintf("The session ended (%s) with the tool call %s never completed.", named(e), named(inv.ev)), r.frame(inv, who), r.frame(f, who))
				}
			}
		}
	}
	for _, id := range order {
		ss := all[id]
		// main was closed at the close step: its sessions could not be
		// seen to end there; every other stream must see them end, the
		// one whose prompt the close settled included.
		if len(ss.terminal) == 0 && !(s == r.main && r.cut != "") {
			detail := fmt.Sprintf("The session %s never sent a terminal event.", protocol.Sanitize(id))
			switch {
			case id == r.cut:
				detail = fmt.Sprintf("The session %s, settled by closing the subscription that held its confirmation, never ended (watched until %v into the run).", protocol.Sanitize(id), r.endAt.Sub(r.start).Round(time.Second))
			case r.stopped != "":
				detail = fmt.Sprintf("The session %s never sent a terminal event: %s.", protocol.Sanitize(id), r.stopped)
			}
			r.result(POneTerminal, Fail, detail, r.frame(ss.first, who))
		}
	}
	if len(order) > 0 {
		r.result(PLifecycle, Pass, fmt.Sprintf("%s began with agent.session.started and sent nothing after %s end.", allOf(len(order), "session seen", "sessions seen"), prose.Plural(len(order), "its", "their")))
		r.result(POneTerminal, Pass, "Every session seen ended with exactly one terminal event.")
	}
	if changes > 0 {
		r.result(PStateChanges, Pass, fmt.Sprintf("All %d state changes seen started from the state the one before reached.", changes))
	}
	if tools > 0 {
		r.result(PToolBracketing, Pass, fmt.Sprintf("All %d tool calls seen were announced before and completed after.", tools))
	}
}

// judgeL2 checks, on main, that no irreversible tool was invoked before
// an accepted reply to a confirmation of its session.
func (r *prun) judgeL2() {
	fs, _ := r.main.snapshot()
	asked := map[string]bool{}
	for _, f := range fs {
		switch {
		case f.ev == nil:
			if f.bad != nil && f.bad.Type == protocol.TypeAwaitingConfirmation {
				asked[f.bad.SessionID] = true // asked, though invalid: driven all the same
			}
		case f.ev.Type == protocol.TypeAwaitingConfirmation:
			asked[f.ev.SessionID] = true
		case isIrreversibleTool(f.ev):
			if !asked[f.ev.SessionID] {
				r.result(PConfirmBlocks, Fail, fmt.Sprintf("The irreversible tool call %s came without a confirmation before it.", named(f.ev)), r.frame(f, "the tool invoked"))
				continue
			}
			if !r.acceptedBefore(f.ev.SessionID, f.at) {
				r.result(PConfirmBlocks, Fail, fmt.Sprintf("The irreversible tool call %s came before any accept was sent for its confirmation.", named(f.ev)), r.frame(f, "the tool invoked"))
			}
		}
	}
	if len(asked) == 0 {
		r.result(PConfirmBlocks, Skip, "The producer asked for no confirmation, so its waiting could not be tested.")
	}
	r.judgeDefaults(fs)
}

// judgeDefaults checks the default_decision of every confirmation main saw
// against spec 6.4.1: reject is a MUST for an irreversible action of
// medium or high risk, a SHOULD for an irreversible low-risk one and for
// a reversible high-risk one.
func (r *prun) judgeDefaults(fs []seen) {
	n := 0
	for _, f := range fs {
		e := f.ev
		if e == nil {
			e = f.bad
		}
		if e == nil || e.Type != protocol.TypeAwaitingConfirmation {
			continue
		}
		n++
		irr := e.Irreversible != nil && *e.Irreversible
		switch {
		case unsafeDefault(e):
			r.result(PSafeDefault, Fail, fmt.Sprintf("The confirmation %s of an irreversible action of %s risk defaults to %q, not reject.", named(e), protocol.Sanitize(e.RiskLevel), protocol.Sanitize(e.DefaultDecision)), r.frame(f, "the confirmation"))
		case e.DefaultDecision == protocol.DecisionAccept && (irr && e.RiskLevel == "low" || !irr && e.RiskLevel == "high"):
			r.result(PSafeDefault, Warn, fmt.Sprintf("The confirmation %s of a %s action of %s risk defaults to accept; reject is recommended.", named(e), map[bool]string{true: "irreversible", false: "reversible"}[irr], protocol.Sanitize(e.RiskLevel)), r.frame(f, "the confirmation"))
		}
	}
	if n == 0 {
		r.result(PSafeDefault, Skip, "The producer asked for no confirmation, so no default_decision could be checked.")
		return
	}
	r.result(PSafeDefault, Pass, fmt.Sprintf("%s a default_decision the spec allows for its risk.", allOf(n, "confirmation seen had", "confirmations seen had")))
}

// acceptedBefore reports whether an accept of a confirmation of session
// was sent (even one meant to be refused: the producer had a reply), or
// applied as its default, before t.
func (r *prun) acceptedBefore(session string, t time.Time) bool {
	for _, rp := range r.replies {
		if rp.session == session && rp.at.Before(t) && rp.decision == protocol.DecisionAccept {
			return true
		}
	}
	return false
}

// matches reports whether typ matches any of the patterns.
func matches(patterns []string, typ string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(protocol.ExpandType(p), typ); ok {
			return true
		}
	}
	return false
}

// sentenceEnd reports whether chunk ends where a sentence may.
func sentenceEnd(chunk string) bool {
	c := strings.TrimRight(chunk, " \t\n\"')]”’")
	return c == "" || strings.ContainsAny(c[len(c)-1:], ".!?:;…") || strings.HasSuffix(c, "。") || strings.HasSuffix(c, "…")
}
