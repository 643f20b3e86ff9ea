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
	for _, s := range r.streams() {
		fs, _ := s.snapshot()
		total += len(events(fs))
		r.judgeFrames(s, fs)
		r.judgeSessions(s, fs)
	}
	if total == 0 {
		for _, id := range []string{PLifecycle, POneTerminal, PStateChanges, PToolBracketing, PEnvelopeSchema, PSummaryNormal, PNoSecrets} {
			r.result(id, Fail, "The producer sent no event at all.")
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
			r.result(PEnvelopeSchema, Fail, fmt.Sprintf("An event is not valid: %s.", protocol.Sanitize(fmt.Sprint(f.err))), r.frame(f, "seen by subscription "+s.name))
			continue
		}
		n++
		if f.ev.Type != protocol.TypeOutputStreaming && strings.TrimSpace(string(f.ev.SummaryNormal)) == "" {
			r.result(PSummaryNormal, Fail, "An event has no summary_normal, or an empty one.", r.frame(f, "seen by subscription "+s.name))
		}
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

// judgeSessions checks each session's order: bracketing, one terminal
// event, state changes, tool bracketing.
func (r *prun) judgeSessions(s *psub, fs []seen) {
	type sess struct {
		first    seen
		terminal []seen
		state    string // the state the last change reached
		tools    map[string]seen
		done     map[string]bool
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
			ss = &sess{first: f, tools: map[string]seen{}, done: map[string]bool{}}
			all[e.SessionID] = ss
			order = append(order, e.SessionID)
			if e.Type != protocol.TypeSessionStarted {
				r.result(PLifecycle, Fail, "A session's first event is not agent.session.started.", r.frame(f, who))
			}
		} else if e.Type == protocol.TypeSessionStarted {
			r.result(PLifecycle, Fail, "A session was started twice.", r.frame(ss.first, who), r.frame(f, who))
		}
		if len(ss.terminal) > 0 {
			if e.IsTerminal() {
				r.result(POneTerminal, Fail, "A session has more than one terminal event.", r.frame(ss.terminal[0], who), r.frame(f, who))
			} else {
				r.result(PLifecycle, Fail, "An event came after its session's terminal event.", r.frame(ss.terminal[0], who), r.frame(f, who))
			}
		}
		switch e.Type {
		case protocol.TypeStateChanged:
			changes++
			if ss.state != "" && e.FromState != ss.state {
				r.result(PStateChanges, Fail, fmt.Sprintf("A state change starts from %q, but the last one reached %q.", protocol.Sanitize(e.FromState), protocol.Sanitize(ss.state)), r.frame(f, who))
			}
			ss.state = e.ToState
		case protocol.TypeToolInvoked:
			tools++
			if _, dup := ss.tools[e.ToolCallID]; dup {
				r.result(PToolBracketing, Fail, "A tool_call_id was invoked twice.", r.frame(f, who))
			}
			ss.tools[e.ToolCallID] = f
		case protocol.TypeToolCompleted:
			if _, ok := ss.tools[e.ToolCallID]; !ok {
				r.result(PToolBracketing, Fail, "A tool completed that was never announced as invoked.", r.frame(f, who))
			} else if ss.done[e.ToolCallID] {
				r.result(PToolBracketing, Fail, "A tool call completed twice.", r.frame(f, who))
			}
			ss.done[e.ToolCallID] = true
		}
		if e.IsTerminal() {
			ss.terminal = append(ss.terminal, f)
			for id, inv := range ss.tools {
				if !ss.done[id] {
					r.result(PToolBracketing, Fail, "A session ended with a tool invoked but never completed.", r.frame(inv, who), r.frame(f, who))
				}
			}
		}
	}
	for _, id := range order {
		ss := all[id]
		if len(ss.terminal) == 0 && id != r.cut && !(s == r.main && r.cut != "") {
			detail := "A session never sent a terminal event."
			if r.stopped != "" {
				detail = "A session never sent a terminal event: " + r.stopped + "."
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
		if f.ev == nil {
			continue
		}
		switch {
		case f.ev.Type == protocol.TypeAwaitingConfirmation:
			asked[f.ev.SessionID] = true
		case isIrreversibleTool(f.ev):
			if !asked[f.ev.SessionID] {
				r.result(PConfirmBlocks, Fail, "An irreversible tool was invoked without a confirmation before it.", r.frame(f, "the tool invoked"))
				continue
			}
			if !r.acceptedBefore(f.ev.SessionID, f.at) {
				r.result(PConfirmBlocks, Fail, "An irreversible tool was invoked before any accept was sent for its confirmation.", r.frame(f, "the tool invoked"))
			}
		}
	}
	if len(asked) == 0 {
		r.result(PConfirmBlocks, Skip, "The producer asked for no confirmation, so its waiting could not be tested.")
	}
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
