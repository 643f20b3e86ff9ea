package conform

// This file drives the sessions the main subscription sees: each prompt,
// found by its type, is answered as the next step of the plan asks
// (accept, reject, let time out, close), with the replies meant to be
// refused sent first.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// The confirmation steps of the plan. Each confirmation found in the
// stream takes the next step not yet done (nextStep); one past the plan is
// simply accepted.
const (
	stepAccept = iota
	stepReject
	stepTimeout
	stepClose
	steps
)

// drive reads the main subscription until the run is over, answering its
// prompts.
func (r *prun) drive(ctx context.Context) error {
	clarifies := 0
	cursor := 0
	idleSince := time.Now()
	var (
		doneAt   time.Time    // when the plan was done and a session had ended
		planAt   time.Time    // when the plan was done
		progress = time.Now() // when the plan last moved on: a step, an answer
		steps    = r.stepsDone(clarifies)
	)
	after := r.o.afterPlan()
	for ctx.Err() == nil {
		fs, ended := r.main.snapshot()
		now := time.Now()
		if n := r.stepsDone(clarifies); n != steps {
			steps, progress = n, now
		}
		if planAt.IsZero() && r.planDone(clarifies) {
			planAt = now
		}
		if doneAt.IsZero() && !planAt.IsZero() && endedOne(fs) {
			doneAt = now
		}
		// A producer that never stops: enough was seen, and the report
		// says what the run waited for.
		switch {
		case !doneAt.IsZero() && now.Sub(doneAt) > after:
			return nil
		case !planAt.IsZero() && doneAt.IsZero() && now.Sub(planAt) > 3*after:
			r.stopped = fmt.Sprintf("the run stopped after waiting %v, once every planned step was done, for a session to end", 3*after)
			return nil
		case planAt.IsZero() && now.Sub(progress) > 3*after:
			r.stopped = fmt.Sprintf("the run stopped after waiting %v for a prompt to take the next planned step (%s), while the producer went on sending", 3*after, r.wanted(clarifies))
			return nil
		}
		if cursor < len(fs) {
			f := fs[cursor]
			cursor++
			idleSince = time.Now()
			if f.ev == nil && f.bad != nil && f.bad.ReplyToken != "" {
				// An invalid prompt (P1-envelope-schema fails it) is
				// still a prompt: it is driven, not waited out.
				f.ev = f.bad
			}
			if f.ev == nil || r.o.Level < 2 {
				continue
			}
			switch f.ev.Type {
			case protocol.TypeAwaitingConfirmation:
				if err := r.confirm(ctx, f); err != nil {
					return err
				}
				if r.cut != "" {
					return nil // main is closed
				}
			case protocol.TypeAwaitingClarify:
				if err := r.clarify(ctx, f, clarifies); err != nil {
					return err
				}
				clarifies++
			}
			continue
		}
		if ended {
			break
		}
		n := len(fs)
		err := r.main.waitFor(ctx, r.o.Quiet, func(fs []seen) bool { return len(fs) > n })
		if !errors.Is(err, errTimedOut) {
			continue
		}
		if allEnded(fs, "") || len(fs) == 0 {
			if r.planDone(clarifies) || r.trig == nil || r.fired >= maxTriggers {
				if len(fs) > 0 || time.Since(idleSince) > handshakeWait {
					break
				}
				continue
			}
			if err := r.fire(ctx); err != nil {
				return err
			}
			idleSince = time.Now()
			continue
		}
		if time.Since(idleSince) > 10*r.o.Quiet+handshakeWait {
			break // a session that stopped without ending: judged as such
		}
	}
	return nil
}

// DefaultAfterPlan is the default of ProducerOptions.AfterPlan.
const DefaultAfterPlan = 2 * handshakeWait

func (o ProducerOptions) afterPlan() time.Duration {
	if o.AfterPlan <= 0 {
		return DefaultAfterPlan
	}
	return o.AfterPlan
}

// stepsDone counts the steps of the plan taken and the questions answered.
func (r *prun) stepsDone(clarifies int) int {
	n := clarifies
	for _, d := range r.done {
		if d {
			n++
		}
	}
	return n
}

// wanted names what the plan still waits for, in words.
func (r *prun) wanted(clarifies int) string {
	var w []string
	for s, name := range []string{"a confirmation to accept", "one to reject", "one to let time out", "one to close on"} {
		if s <= stepTimeout || r.o.Level >= 3 {
			if !r.done[s] {
				w = append(w, name)
			}
		}
	}
	if clarifies < 1 {
		w = append(w, "a clarification to answer")
	}
	return strings.Join(w, ", ")
}

// endedOne reports whether a session of fs has ended.
func endedOne(fs []seen) bool {
	_, ended := sessions(fs)
	for _, e := range ended {
		if e {
			return true
		}
	}
	return false
}

// planDone reports whether every step of the plan has had its prompt.
func (r *prun) planDone(clarifies int) bool {
	if r.o.Level < 2 {
		return true
	}
	need := stepTimeout
	if r.o.Level >= 3 {
		need = stepClose
	}
	for s := 0; s <= need; s++ {
		if !r.done[s] {
			return false
		}
	}
	return clarifies >= 1
}

// nextStep picks the step of the plan confirmation p takes: the timeout
// step goes to the first prompt short enough to wait for (any, when none
// comes before the others are done), the close step to the last.
func (r *prun) nextStep(p seen) int {
	short := p.ev.TimeoutSeconds > 0 && time.Duration(p.ev.TimeoutSeconds)*time.Second <= fastTimeout
	switch {
	case !r.done[stepTimeout] && short:
		return stepTimeout
	case !r.done[stepAccept]:
		return stepAccept
	case !r.done[stepReject]:
		return stepReject
	case !r.done[stepTimeout]:
		return stepTimeout
	case r.o.Level >= 3 && !r.done[stepClose]:
		return stepClose
	}
	return -1
}

// inSession returns the events of fs after index from that belong to
// session. An invalid event counts, as far as it could be decoded: what
// the producer did is judged here, its schema by P1-envelope-schema.
func inSession(fs []seen, from int, session string) []seen {
	var out []seen
	for i := from; i < len(fs); i++ {
		f := fs[i]
		if f.ev == nil {
			f.ev = f.bad
		}
		if f.ev != nil && f.ev.SessionID == session {
			out = append(out, f)
		}
	}
	return out
}

// indexOf returns the index of the frame seen at the same time with the
// same bytes as p in fs.
func indexOf(fs []seen, p seen) int {
	for i := range fs {
		if fs[i].at.Equal(p.at) && string(fs[i].data) == string(p.data) {
			return i
		}
	}
	return len(fs)
}

// lastBefore returns the event_id of the last event of p's session the
// main subscription saw before p that is not a prompt.
func (r *prun) lastBefore(p seen) (string, bool) {
	fs, _ := r.main.snapshot()
	for i := indexOf(fs, p) - 1; i >= 0; i-- {
		if e := fs[i].ev; e != nil && e.SessionID == p.ev.SessionID && e.Type != protocol.TypeAwaitingConfirmation && e.Type != protocol.TypeAwaitingClarify {
			return e.EventID, true
		}
	}
	return "", false
}

// eventIndex returns the index of the event with the given event_id.
func eventIndex(fs []seen, id string) (int, bool) {
	for i := range fs {
		if fs[i].ev != nil && fs[i].ev.EventID == id {
			return i, true
		}
	}
	return 0, false
}

// anyAfter returns a condition: an event of session after index from
// that match holds for.
func anyAfter(from int, session string, match func(*protocol.Event) bool) func([]seen) bool {
	return func(fs []seen) bool {
		for _, f := range inSession(fs, from, session) {
			if match(f.ev) {
				return true
			}
		}
		return false
	}
}

// firstAfter returns the first event of session after index from that
// match holds for.
func firstAfter(fs []seen, from int, session string, match func(*protocol.Event) bool) (seen, bool) {
	for _, f := range inSession(fs, from, session) {
		if match(f.ev) {
			return f, true
		}
	}
	return seen{}, false
}

func anything(*protocol.Event) bool { return true }

func isTool(e *protocol.Event) bool { return e.Type == protocol.TypeToolInvoked }

// isToolEvent reports whether e shows a tool at work: invoked or completed.
func isToolEvent(e *protocol.Event) bool {
	return e.Type == protocol.TypeToolInvoked || e.Type == protocol.TypeToolCompleted
}

func isIrreversibleTool(e *protocol.Event) bool {
	return e.Type == protocol.TypeToolInvoked && e.Irreversible != nil && *e.Irreversible
}

// settles reports whether e shows where a session went after a prompt:
// its end or its next prompt.
func settles(e *protocol.Event) bool {
	return e.IsTerminal() || e.Type == protocol.TypeAwaitingConfirmation || e.Type == protocol.TypeAwaitingClarify
}

// reply sends a reply to a prompt from main and records it.
func (r *prun) reply(ctx context.Context, p seen, typ, token string, decision string, response any) (Evidence, error) {
	m := map[string]any{
		"type":        typ,
		"reply_token": token,
		"timestamp":   stampNow(),
	}
	if id := r.main.subscriptionID(); id != "" {
		m["subscription_id"] = id
	}
	if typ == protocol.TypeConfirmationReply {
		m["decision"] = decision
	} else {
		m["response"] = response
		decision = "answer"
	}
	b, _ := json.Marshal(m)
	// The reply counts as sent when its write begins: the producer may
	// act on it, and its next frame be received, before the write returns.
	at := time.Now()
	e := Evidence{At: at.Sub(r.start), Dir: "sent", Frame: b}
	err := r.main.send(ctx, m)
	if err == nil || isRefusal(err) {
		r.replies = append(r.replies, sentReply{at: at, session: p.ev.SessionID, token: token, decision: decision})
		return e, nil
	}
	return e, fmt.Errorf("conform: sending a reply: %w", err)
}

// stampLayout writes a timestamp in UTC with milliseconds, as spec 3.2.5
// recommends (3 or 6 fractional digits, never others).
const stampLayout = "2006-01-02T15:04:05.000Z"

// stampNow is the time now as a reply's timestamp.
func stampNow() string { return time.Now().UTC().Format(stampLayout) }

// refusedReply sends a reply meant to be refused: it is not counted as a
// decision.
func (r *prun) refusedReply(ctx context.Context, p seen, typ, token string, decision string) (Evidence, error) {
	e, err := r.reply(ctx, p, typ, token, decision, nil)
	if err == nil {
		r.replies[len(r.replies)-1].refused = true
	}
	return e, err
}

// noted returns e with note.
func noted(e Evidence, note string) Evidence {
	e.Note = note
	return e
}

// isRefusal reports whether err is the producer refusing a message (an
// HTTP status), not a failure to reach it.
func isRefusal(err error) bool {
	var he *transport.HTTPError
	return errors.As(err, &he)
}

// forge returns a reply token the producer never issued, shaped like tok.
func forge(tok string) string {
	if tok == "" {
		return "forged-token-0000000000000000"
	}
	b := []byte(tok)
	for i := len(b) - 1; i >= 0 && i >= len(b)-8; i-- {
		switch {
		case b[i] >= '0' && b[i] <= '8', b[i] >= 'a' && b[i] <= 'y', b[i] >= 'A' && b[i] <= 'Y':
			b[i]++
		case b[i] == '9':
			b[i] = '0'
		case b[i] == 'z':
			b[i] = 'a'
		case b[i] == 'Z':
			b[i] = 'A'
		}
	}
	return string(b)
}

// held waits until d after from and reports the first event of the
// prompt's session that match holds for and came meanwhile, if any.
func (r *prun) held(ctx context.Context, p seen, match func(*protocol.Event) bool, from time.Time, d time.Duration) (seen, bool) {
	fs, _ := r.main.snapshot()
	idx := indexOf(fs, p)
	_ = r.main.waitFor(ctx, time.Until(from.Add(d)), anyAfter(idx+1, p.ev.SessionID, match))
	fs, _ = r.main.snapshot()
	return firstAfter(fs, idx+1, p.ev.SessionID, match)
}

// silenceHold is how long confirmation p is left unanswered from when it
// was received (the suite may come to it later; what came meanwhile was
// recorded and counts): up to its
// timeout, less the watch of the forged reply sent next and a margin for
// the accept to arrive in time (a quarter of the timeout, at least two
// seconds), at most r.o.Hold and at least minHold.
func (r *prun) silenceHold(p seen) time.Duration {
	if p.ev.TimeoutSeconds <= 0 {
		return r.o.Hold // it waits for ever
	}
	limit := time.Duration(p.ev.TimeoutSeconds) * time.Second
	return max(min(limit-max(limit/4, 2*time.Second)-r.refusedHold(), r.o.Hold), min(minHold, r.o.Hold))
}

// minHold is the shortest hold of a confirmation, however soon it times out.
const minHold = 300 * time.Millisecond

// refusedHold is how long a session is watched after a reply meant to be
// refused.
func (r *prun) refusedHold() time.Duration { return min(refusedWatch, r.o.Hold) }

// outcome waits for where the prompt's session goes after a reply: up to
// its end or next prompt, at most d, and returns its events after p.
func (r *prun) outcome(ctx context.Context, p seen, d time.Duration) []seen {
	fs, _ := r.main.snapshot()
	idx := indexOf(fs, p)
	_ = r.main.waitFor(ctx, d, anyAfter(idx+1, p.ev.SessionID, settles))
	fs, _ = r.main.snapshot()
	return inSession(fs, idx+1, p.ev.SessionID)
}

// followUp judges that a settled prompt was followed by an event.
func (r *prun) followUp(p seen, after []seen, how string) {
	if len(after) == 0 {
		r.result(PFollowUp, Fail, fmt.Sprintf("After the prompt %s was %s, the session sent nothing more.", named(p.ev), how), r.frame(p, "the prompt"))
		return
	}
	r.result(PFollowUp, Pass, "Every settled prompt was followed by an event of its session.", r.frame(after[0], "the event after the prompt was "+how))
}

// confirm answers a confirmation as the plan's next step says.
func (r *prun) confirm(ctx context.Context, p seen) error {
	step := r.nextStep(p)
	if step >= 0 {
		r.done[step] = true
	}
	switch step {
	case stepAccept:
		return r.acceptStep(ctx, p)
	case stepReject:
		return r.rejectStep(ctx, p)
	case stepTimeout:
		return r.timeoutStep(ctx, p)
	case stepClose:
		return r.closeStep(ctx, p)
	}
	_, err := r.reply(ctx, p, protocol.TypeConfirmationReply, p.ev.ReplyToken, protocol.DecisionAccept, nil)
	return err
}

// acceptStep holds the prompt (nothing may happen), sends a forged token
// (nothing may happen), then accept and at once reject (accept wins).
func (r *prun) acceptStep(ctx context.Context, p seen) error {
	hold := r.silenceHold(p)
	if f, ok := r.held(ctx, p, isTool, p.at, hold); ok {
		r.result(PConfirmBlocks, Fail, fmt.Sprintf("The tool call %s came %v after the confirmation %s, which had no reply yet.", named(f.ev), f.at.Sub(p.at).Round(time.Millisecond), named(p.ev)), r.frame(p, "the confirmation"), r.frame(f, "the tool invoked before any reply"))
	} else {
		r.result(PConfirmBlocks, Pass, fmt.Sprintf("No tool was invoked while a confirmation waited for its reply (watched %v of its %s).", hold.Round(time.Millisecond), prose.Count(int(p.ev.TimeoutSeconds), "second", "seconds")), r.frame(p, "the confirmation"), r.note("no tool.invoked in the %v the reply was held back", hold))
	}
	if err := r.wrongToken(ctx, p, wrongToken{
		test: PForgedToken, token: forge(p.ev.ReplyToken),
		prompt: "the confirmation", reply: "a forged reply_token", session: "the session",
		fail: "A reply with a reply_token never issued moved the session on.",
		pass: "A reply with a forged reply_token changed nothing.",
	}); err != nil {
		return err
	}
	acc, err := r.reply(ctx, p, protocol.TypeConfirmationReply, p.ev.ReplyToken, protocol.DecisionAccept, nil)
	if err != nil {
		return err
	}
	rej, err := r.refusedReply(ctx, p, protocol.TypeConfirmationReply, p.ev.ReplyToken, protocol.DecisionReject)
	if err != nil {
		return err
	}
	after := r.outcome(ctx, p, handshakeWait)
	r.followUp(p, after, "accepted")
	if t, ok := firstAfter(after, 0, p.ev.SessionID, isToolEvent); ok {
		r.result(PAcceptProceeds, Pass, "An accepted confirmation let its action go ahead.", noted(acc, "accept"), r.frame(t, "the action"))
		r.result(PFirstReplyWins, Pass, "Of an accept and a reject sent one after the other, the first decided.", noted(acc, "first: accept"), noted(rej, "second: reject"), r.frame(t, "the accepted action"))
	} else {
		ev := []Evidence{r.frame(p, "the confirmation"), noted(acc, "first: accept"), noted(rej, "second: reject")}
		r.result(PAcceptProceeds, Fail, fmt.Sprintf("After an accept of %s, no tool was invoked before the session ended or asked again.", named(p.ev)), ev...)
		r.result(PFirstReplyWins, Fail, fmt.Sprintf("An accept of %s followed by a reject did not go ahead: the later reply seems to have decided.", named(p.ev)), ev...)
	}
	return nil
}

// wrongToken is an accept the producer must refuse, sent to a waiting
// confirmation with a token that is not its own, and how its test is told.
type wrongToken struct {
	test  string // the test it decides
	token string // forged, or another prompt's
	// prompt, reply and session name the confirmation, the reply and
	// the session in the evidence; fail and pass are the details.
	prompt, reply, session string
	fail, pass             string
}

// wrongToken sends w to p and judges w.test: it passes when the session
// then sends nothing for refusedHold.
func (r *prun) wrongToken(ctx context.Context, p seen, w wrongToken) error {
	b, err := r.refusedReply(ctx, p, protocol.TypeConfirmationReply, w.token, protocol.DecisionAccept)
	if err != nil {
		return err
	}
	if f, ok := r.held(ctx, p, anything, time.Now(), r.refusedHold()); ok {
		r.result(w.test, Fail, fmt.Sprintf("%s (%s came next, after %s).", strings.TrimSuffix(w.fail, "."), named(f.ev), named(p.ev)), r.frame(p, w.prompt), noted(b, w.reply), r.frame(f, "what the session did next"))
	} else {
		r.result(w.test, Pass, w.pass, noted(b, w.reply), r.note("%s sent nothing for %v", w.session, r.refusedHold()))
	}
	return nil
}

// rejectStep sends the first prompt's token again (nothing may happen),
// then rejects: no irreversible tool may follow.
func (r *prun) rejectStep(ctx context.Context, p seen) error {
	var old string
	for _, rp := range r.replies {
		if rp.decision == protocol.DecisionAccept && !rp.refused {
			old = rp.token
			break
		}
	}
	if old != "" && old != p.ev.ReplyToken {
		if err := r.wrongToken(ctx, p, wrongToken{
			test: PReplayedToken, token: old,
			prompt: "the waiting confirmation", reply: "the replayed reply", session: "the waiting session",
			fail: "A reply reusing the reply_token of a settled prompt moved another session on.",
			pass: "A reply reusing a settled prompt's reply_token changed nothing.",
		}); err != nil {
			return err
		}
	}
	rej, err := r.reply(ctx, p, protocol.TypeConfirmationReply, p.ev.ReplyToken, protocol.DecisionReject, nil)
	if err != nil {
		return err
	}
	after := r.outcome(ctx, p, handshakeWait)
	r.followUp(p, after, "rejected")
	if t, ok := firstAfter(after, 0, p.ev.SessionID, isIrreversibleTool); ok {
		r.result(PRejectPrevents, Fail, fmt.Sprintf("After a reject of %s, the irreversible tool call %s came all the same.", named(p.ev), named(t.ev)), r.frame(p, "the confirmation"), noted(rej, "reject"), r.frame(t, "the tool invoked"))
	} else {
		r.result(PRejectPrevents, Pass, "A rejected confirmation's action was not carried out.", noted(rej, "reject"))
	}
	return nil
}

// timeoutStep leaves the prompt unanswered and sees its default apply, no
// sooner than its timeout and not much later.
func (r *prun) timeoutStep(ctx context.Context, p seen) error {
	limit := time.Duration(p.ev.TimeoutSeconds) * time.Second
	if p.ev.TimeoutSeconds <= 0 {
		r.result(PTimeoutDefault, Fail, fmt.Sprintf("The confirmation %s has no timeout_seconds, so its default can never apply.", named(p.ev)), r.frame(p, "the confirmation"))
		_, err := r.reply(ctx, p, protocol.TypeConfirmationReply, p.ev.ReplyToken, protocol.DecisionReject, nil)
		return err
	}
	if r.o.Fast && limit > fastTimeout {
		r.result(PTimeoutDefault, Skip, "Skipped in fast mode: the confirmation waits "+prose.Count(int(p.ev.TimeoutSeconds), "second", "seconds")+".", r.frame(p, "the confirmation"))
		_, err := r.reply(ctx, p, protocol.TypeConfirmationReply, p.ev.ReplyToken, protocol.DecisionReject, nil)
		if err == nil {
			r.followUp(p, r.outcome(ctx, p, handshakeWait), "rejected")
		}
		return err
	}
	fs, _ := r.main.snapshot()
	idx := indexOf(fs, p)
	_ = r.main.waitFor(ctx, limit+grace, anyAfter(idx+1, p.ev.SessionID, anything))
	fs, _ = r.main.snapshot()
	next, ok := firstAfter(fs, idx+1, p.ev.SessionID, anything)
	if !ok {
		r.result(PTimeoutDefault, Fail, fmt.Sprintf("Nothing happened in the session %v after the confirmation %s, which times out after %d seconds.", limit+grace, named(p.ev), p.ev.TimeoutSeconds), r.frame(p, "the confirmation"))
		if _, err := r.reply(ctx, p, protocol.TypeConfirmationReply, p.ev.ReplyToken, protocol.DecisionReject, nil); err != nil {
			return err
		}
		r.followUp(p, r.outcome(ctx, p, handshakeWait), "rejected after its time had run out")
		return nil
	}
	took := next.at.Sub(p.at)
	// The receive times can come closer than the producer sent them when
	// the prompt was read late; its own timestamps, which must be honest,
	// then tell what it did.
	stamped := time.Duration(0)
	if !next.ev.Timestamp.IsZero() && !p.ev.Timestamp.IsZero() {
		stamped = next.ev.Timestamp.Sub(p.ev.Timestamp)
	}
	if p.ev.DefaultDecision == protocol.DecisionAccept {
		r.replies = append(r.replies, sentReply{at: next.at, session: p.ev.SessionID, token: p.ev.ReplyToken, decision: protocol.DecisionAccept})
	}
	after := r.outcome(ctx, p, handshakeWait)
	r.followUp(p, after, "left to time out")
	ev := []Evidence{r.frame(p, "the confirmation"), r.frame(next, "the first event after it"), r.note("%v passed between them", took.Round(time.Millisecond))}
	switch {
	case max(took, stamped) < limit-limit/10-100*time.Millisecond:
		r.result(PTimeoutDefault, Fail, fmt.Sprintf("The session moved on %v after the confirmation, before its %s were up.", took.Round(time.Millisecond), prose.Count(int(p.ev.TimeoutSeconds), "second", "seconds")), ev...)
	case p.ev.DefaultDecision != protocol.DecisionAccept:
		if t, bad := firstAfter(after, 0, p.ev.SessionID, isIrreversibleTool); bad {
			r.result(PTimeoutDefault, Fail, fmt.Sprintf("The default of %s was reject, yet the irreversible tool call %s came after the timeout.", named(p.ev), named(t.ev)), append(ev, r.frame(t, "the tool invoked"))...)
			return nil
		}
		fallthrough
	default:
		r.result(PTimeoutDefault, Pass, fmt.Sprintf("The default applied %v after the confirmation, once its %s were up.", took.Round(time.Millisecond), prose.Count(int(p.ev.TimeoutSeconds), "second", "seconds")), ev...)
	}
	return nil
}

// closeStep closes the main subscription while the prompt waits: the
// observer must see the session take the default at once.
func (r *prun) closeStep(ctx context.Context, p seen) error {
	limit := time.Duration(p.ev.TimeoutSeconds) * time.Second
	switch {
	case r.ep.Binding == transport.BindingStdio:
		r.result(PCloseDefault, Skip, "Over exec: each subscription is a process of its own, so no other subscription can watch the default apply.", r.frame(p, "the confirmation"))
	case limit <= 2*grace:
		r.result(PCloseDefault, Skip, fmt.Sprintf("The confirmation times out after %d seconds, too soon to tell a default on close from one on timeout.", p.ev.TimeoutSeconds), r.frame(p, "the confirmation"))
	case r.main.subscriptionID() == "":
		r.result(PCloseDefault, Skip, "The producer gave no subscription (no handshake), so no subscription.close could be sent.", r.frame(p, "the confirmation"))
	default:
		// What main saw before the close is no evidence of what the close
		// did: the observer's copy of it is dated before the close.
		before := map[string]bool{}
		mfs, _ := r.main.snapshot()
		for _, f := range events(mfs) {
			before[f.ev.EventID] = true
		}
		fresh := func(e *protocol.Event) bool { return !before[e.EventID] }
		r.cut = p.ev.SessionID
		r.main.close(ctx)
		closed := time.Now()
		// The observer may lag behind the main subscription: what it saw
		// after the session's last event before the confirmation counts,
		// not what came after the moment of the close (events from before
		// the prompt may still be on their way to it). The observer, which
		// cannot answer, is not sent the confirmation itself.
		ofs, _ := r.obs.snapshot()
		from := len(ofs)
		if before, ok := r.lastBefore(p); ok {
			_ = r.obs.waitFor(ctx, grace, func(fs []seen) bool { _, ok := eventIndex(fs, before); return ok })
			ofs, _ = r.obs.snapshot()
			if i, ok := eventIndex(ofs, before); ok {
				from = i + 1
			}
		}
		_ = r.obs.waitFor(ctx, grace, anyAfter(from, p.ev.SessionID, fresh))
		ofs, _ = r.obs.snapshot()
		next, ok := firstAfter(ofs, from, p.ev.SessionID, fresh)
		if !ok {
			r.result(PCloseDefault, Fail, fmt.Sprintf("After the subscription holding a pending confirmation was closed, its session sent nothing for %v.", grace), r.frame(p, "the confirmation"), r.note("subscription.close sent"))
			return nil
		}
		_ = r.obs.waitFor(ctx, grace, anyAfter(from, p.ev.SessionID, settles))
		ofs, _ = r.obs.snapshot()
		ev := []Evidence{r.frame(p, "the confirmation"), r.note("subscription.close sent"), r.frame(next, fmt.Sprintf("seen by another subscription %v after the close", next.at.Sub(closed).Round(time.Millisecond)))}
		if p.ev.DefaultDecision != protocol.DecisionAccept {
			if t, bad := firstAfter(ofs, from, p.ev.SessionID, isIrreversibleTool); bad {
				r.result(PCloseDefault, Fail, fmt.Sprintf("The default of %s was reject, yet the irreversible tool call %s came after the close.", named(p.ev), named(t.ev)), append(ev, r.frame(t, "the tool invoked"))...)
				return nil
			}
		}
		r.result(PCloseDefault, Pass, "Closing the subscription applied the pending confirmation's default at once.", ev...)
		return nil
	}
	_, err := r.reply(ctx, p, protocol.TypeConfirmationReply, p.ev.ReplyToken, protocol.DecisionReject, nil)
	return err
}

// clarify answers the n-th clarification; the first is sent a reply of
// the wrong kind first (nothing may happen).
func (r *prun) clarify(ctx context.Context, p seen, n int) error {
	if n == 0 {
		b, err := r.refusedReply(ctx, p, protocol.TypeConfirmationReply, p.ev.ReplyToken, protocol.DecisionAccept)
		if err != nil {
			return err
		}
		if f, ok := r.held(ctx, p, anything, time.Now(), r.refusedHold()); ok {
			r.result(PWrongKind, Fail, fmt.Sprintf("A confirmation.reply to the clarification %s moved the session on.", named(p.ev)), r.frame(p, "the clarification"), noted(b, "a reply of the wrong kind"), r.frame(f, "what the session did next"))
			return r.answer(ctx, p)
		}
		r.result(PWrongKind, Pass, "A reply of the wrong kind to a clarification changed nothing.", noted(b, "a reply of the wrong kind"), r.note("the session sent nothing for %v", r.refusedHold()))
		if wrong, ok := wrongResponse(p.ev); ok {
			b, err := r.reply(ctx, p, protocol.TypeClarificationReply, p.ev.ReplyToken, "", wrong)
			if err != nil {
				return err
			}
			r.replies[len(r.replies)-1].refused = true
			if f, ok := r.held(ctx, p, anything, time.Now(), r.refusedHold()); ok {
				r.result(PWrongKind, Fail, fmt.Sprintf("A clarification.reply to %s with a response of a kind it does not accept moved the session on.", named(p.ev)), r.frame(p, "the clarification"), noted(b, "a response of the wrong kind"), r.frame(f, "what the session did next"))
				return r.answer(ctx, p)
			}
		}
		if out, ok := outsideChoices(p.ev); ok {
			b, err := r.reply(ctx, p, protocol.TypeClarificationReply, p.ev.ReplyToken, "", out)
			if err != nil {
				return err
			}
			r.replies[len(r.replies)-1].refused = true
			if f, ok := r.held(ctx, p, anything, time.Now(), r.refusedHold()); ok {
				r.result(PWrongKind, Fail, fmt.Sprintf("The clarification %s took an answer outside its choices (%q) and moved on.", named(p.ev), out), r.frame(p, "the clarification"), noted(b, "an answer outside the choices"), r.frame(f, "what the session did next"))
			}
		}
	}
	return r.answer(ctx, p)
}

// outsideChoices picks an answer that is none of a multiple-choice
// clarification's choices, when free text is not also accepted.
func outsideChoices(e *protocol.Event) (string, bool) {
	if len(e.Choices) == 0 || slices.Contains(e.AcceptedResponseKinds, "free_text") || !slices.Contains(e.AcceptedResponseKinds, "multiple_choice") {
		return "", false
	}
	out := "none of these"
	for slices.ContainsFunc(e.Choices, func(c protocol.Choice) bool { return c.Value == out }) {
		out += "!"
	}
	return out, true
}

// answer answers a clarification as it asks and sees what follows.
func (r *prun) answer(ctx context.Context, p seen) error {
	if _, err := r.reply(ctx, p, protocol.TypeClarificationReply, p.ev.ReplyToken, "", answerFor(p.ev)); err != nil {
		return err
	}
	r.followUp(p, r.outcome(ctx, p, handshakeWait), "answered")
	return nil
}

// wrongResponse picks a response of a kind the clarification does not
// accept, when there is one.
func wrongResponse(e *protocol.Event) (any, bool) {
	kinds := e.AcceptedResponseKinds
	switch {
	case len(kinds) == 0:
		return nil, false // the kinds default to what the producer takes
	case !slices.Contains(kinds, "yes_no"):
		return true, true
	case !slices.Contains(kinds, "numeric"):
		return 42.0, true
	}
	return nil, false
}

// answerFor picks an answer the clarification takes.
func answerFor(e *protocol.Event) any {
	if len(e.Choices) > 0 {
		return e.Choices[0].Value
	}
	for _, k := range e.AcceptedResponseKinds {
		switch strings.ToLower(k) {
		case "yes_no", "boolean", "confirmation":
			return true
		case "number", "numeric":
			return 1.0
		}
	}
	return "aaep-conform test answer"
}
