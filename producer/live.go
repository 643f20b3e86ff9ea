package producer

// This file holds the live mode: a producer that serves the events of a
// running agent (Options.Live), made elsewhere (package acp bridges an ACP
// agent), with the same handshake, terms and bindings as the scenarios.
// The producer checks each reply against the prompt it answers, then hands
// it to the source, which alone decides and keeps each prompt's time. The
// one thing the producer settles itself is what spec §5.8.2 asks: once no
// subscription that can answer a prompt is left, it tells the source
// (Live.Gone), whose default then applies at once, as when time runs out.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// Live is a running agent a Producer serves (Options.Live). Every
// subscriber shares its one run and joins it live: a new stream gets what
// is sent from then on, and the prompts still waiting for an answer.
type Live struct {
	// Agent is the producer's identity in subscription.accepted.
	Agent Agent
	// Next returns the source's next event, whole (envelope and payload),
	// waiting for one until ctx ends. Its error ends the run, and with it
	// every stream: io.EOF when the agent ended cleanly.
	Next func(ctx context.Context) ([]byte, error)
	// Reply is handed each confirmation or clarification reply the
	// producer took for a prompt of the source, once checked against it
	// (type, token, decision or answer, subscription, signature), as the
	// subscriber sent it (a signed reply unwrapped). Its error refuses the
	// reply (409 Conflict) and settles the prompt as abandoned.
	Reply func(msg []byte) error
	// Messages take the extension messages subscribers send, by type
	// ("agtask:task"); a type must lie outside the aaep: namespace. Each
	// is handed the message as sent; its error refuses it (409 Conflict
	// on HTTP; on the other bindings, for agtask:task and agtask:cancel,
	// an agtask:refused message on the connection it came by). The
	// error's text is the reason the subscriber is told.
	Messages map[string]func(msg []byte) error
	// Gone, when not nil, is called once for a prompt of the source that
	// nobody left can answer: every subscription that could answer it
	// closed or lost its connection (spec §5.8.2). The source applies the
	// prompt's default, as when its time runs out. Nil: the prompt waits
	// for its time, or for a subscriber to come back.
	Gone func(token string)
	// Watched, when not nil, is called once, when the first stream
	// begins, after its place in the run is fixed: everything the source
	// sends from then on reaches that stream. A source that should not
	// begin unwatched (a task given on the command line) begins then. It
	// must not block.
	Watched func()
	// Honored, by extension prefix ("agtask"), is what
	// honored_capabilities says of each extension a subscription asks for
	// in its capabilities; an extension not asked for is not said.
	Honored map[string]json.RawMessage
}

// maxLivePrompts bounds the prompts a live producer remembers; settled
// ones are forgotten first.
const maxLivePrompts = 4096

// runLive publishes the source's events until it ends or the producer
// closes.
func (p *Producer) runLive() {
	l := p.opts.Live
	for {
		msg, err := l.Next(p.ctx)
		if err != nil {
			if p.ctx.Err() == nil {
				p.opts.Logf("producer: the live source ended: %v", err)
			}
			return
		}
		var b bytes.Buffer
		if json.Compact(&b, msg) != nil {
			p.opts.Logf("producer: skipped a live event that is not JSON")
			continue
		}
		data := b.Bytes()
		m := readMeta(data)
		rec := m.rec
		rec.data = data
		switch rec.typ {
		case protocol.TypeAwaitingConfirmation, protocol.TypeAwaitingClarify:
			rec.token = p.openLive(rec, data)
		case protocol.TypeSessionCompleted, protocol.TypeSessionErrored, protocol.TypeSessionCancelled:
			p.endLive(rec.session)
		}
		p.publish(rec)
	}
}

// openLive registers the prompt data is, before any stream can send it,
// and returns its reply token ("" when it has none).
func (p *Producer) openLive(rec record, data []byte) string {
	var ev Payload
	if json.Unmarshal(data, &ev) != nil {
		return ""
	}
	token, _ := ev.str("reply_token")
	if !tokenPattern.MatchString(token) {
		return ""
	}
	at := p.opts.Now()
	if s, ok := ev.str("timestamp"); ok {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			at = t
		}
	}
	pr := newPrompt(ev, token, "", rec.session, at)
	p.mu.Lock()
	if len(p.prompts) >= maxLivePrompts {
		for t, old := range p.prompts {
			if old.outcome.Resolution != 0 {
				delete(p.prompts, t)
			}
		}
	}
	p.prompts[token] = pr
	p.mu.Unlock()
	p.sentPrompt(token, data)
	if l := p.opts.Live; l.Gone != nil {
		def := Outcome{}
		if ev.Type == protocol.TypeAwaitingConfirmation {
			def.Decision, _ = ev.str("default_decision")
		} else {
			def.Answer, _ = ev.str("default_response")
		}
		go p.whenGone(pr, def, l.Gone)
	}
	return token
}

// whenGone settles pr with its default and tells the source, once nobody
// left can answer it; it returns when pr is settled otherwise or the
// producer closes.
func (p *Producer) whenGone(pr *prompt, def Outcome, gone func(token string)) {
	select {
	case <-pr.gone:
		p.mu.Lock()
		def.Resolution = pr.goneAs
		p.mu.Unlock()
		if p.settle(pr, def, "") {
			gone(pr.token)
		}
	case <-pr.settled:
	case <-p.ctx.Done():
	}
}

// endLive settles, as abandoned, the prompts of a session that has ended:
// nobody is asked them any more, and a subscriber that comes later is not
// sent them.
func (p *Producer) endLive(sess string) {
	p.mu.Lock()
	var open []*prompt
	for _, pr := range p.prompts {
		if pr.session == sess && pr.outcome.Resolution == 0 {
			open = append(open, pr)
		}
	}
	p.mu.Unlock()
	for _, pr := range open {
		p.settle(pr, Outcome{Resolution: Abandoned}, "")
	}
}

// liveReply hands a checked reply to a live source once its prompt is
// settled by it (so that what the agent does at once, such as ending the
// session, cannot settle it first), with the decision the producer took
// it as (a modified action is a reject); nil when the producer is not
// live. When the source refuses it, the prompt is settled as abandoned
// instead.
func (p *Producer) liveReply(pr *prompt, m map[string]json.RawMessage, decision string) error {
	l := p.opts.Live
	if l == nil || l.Reply == nil {
		return nil
	}
	fwd := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		fwd[k] = v
	}
	if decision != "" {
		fwd["decision"] = jsonString(decision)
		delete(fwd, "modified_action")
	}
	if err := l.Reply(marshal(fwd)); err != nil {
		p.mu.Lock()
		pr.outcome.Resolution = Abandoned
		for i := len(p.outcomes) - 1; i >= 0; i-- {
			if p.outcomes[i].ReplyToken == pr.token {
				p.outcomes[i].Resolution = Abandoned
				break
			}
		}
		p.mu.Unlock()
		return refuse(http.StatusConflict, "the agent refused the reply: %v", err)
	}
	return nil
}

// liveMessage hands an extension message to the live source that takes
// it. It reports false when typ is no such message. It must name an open
// subscription (subscription_id): the deployed layout, which has none,
// cannot send one.
func (p *Producer) liveMessage(typ string, m map[string]json.RawMessage) (bool, error) {
	l := p.opts.Live
	if l == nil || strings.HasPrefix(typ, "aaep:") {
		return false, nil
	}
	take, ok := l.Messages[typ]
	if !ok {
		return false, nil
	}
	subID, hasSub := stringField(m, "subscription_id")
	if !hasSub {
		return true, refuse(http.StatusBadRequest, `"subscription_id" is missing: %s is taken on a subscription only`, typ)
	}
	p.mu.Lock()
	sub := p.subs[subID]
	p.mu.Unlock()
	if sub == nil {
		return true, refuse(http.StatusBadRequest, "no subscription %s", subID)
	}
	if err := take(marshal(m)); err != nil {
		return true, refuse(http.StatusConflict, "%v", err)
	}
	return true, nil
}

// liveHonored is what honored_capabilities says of the extensions the
// live source offers and requested asks for.
func (p *Producer) liveHonored(requested map[string]json.RawMessage) map[string]json.RawMessage {
	l := p.opts.Live
	if l == nil {
		return nil
	}
	var out map[string]json.RawMessage
	for prefix, v := range l.Honored {
		if _, asked := requested[prefix]; asked {
			if out == nil {
				out = map[string]json.RawMessage{}
			}
			out[prefix] = v
		}
	}
	return out
}

// MarshalJSON writes h with the extensions it honours (Live.Honored)
// beside the core members.
func (h honored) MarshalJSON() ([]byte, error) {
	type plain honored
	b, err := json.Marshal(plain(h))
	if err != nil || len(h.extra) == 0 {
		return b, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	for k, v := range h.extra {
		if _, core := all[k]; !core {
			all[k] = v
		}
	}
	return json.Marshal(all)
}
