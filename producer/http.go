package producer

// This file holds the HTTP side: routes, the subscription handshake, and the
// validation of replies.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/sigrpl"
)

// Limits of the HTTP side.
const (
	maxBody          = 64 << 10 // bytes of a request body
	maxSubscriptions = 256      // live subscriptions; idle ones are evicted first
	maxRate          = 1000     // events per second honored at most
	maxReplayRate    = 100000   // the same for a replay, which keeps to its recorded pace (the most a request may ask)
)

var (
	tokenPattern = regexp.MustCompile(`^rpl_[A-Za-z0-9]{1,64}$`)
	subPattern   = regexp.MustCompile(`^sub_[A-Za-z0-9]{1,64}$`)
)

// ServeHTTP serves the endpoints of both layouts (only the legacy one in
// Quirks mode), each behind the same credentials (auth.go).
func (p *Producer) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.mux.ServeHTTP(w, r) }

func (p *Producer) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+protocol.PathLegacyEvents, p.legacyStream)
	mux.HandleFunc("POST "+protocol.PathLegacyReplies, func(w http.ResponseWriter, r *http.Request) {
		p.handleReply(w, r, false)
	})
	if p.opts.Quirks {
		return mux // deployed producers have no handshake
	}
	mux.HandleFunc("POST "+protocol.PathSubscriptions, p.handleSubscribe)
	mux.HandleFunc("GET "+protocol.PathEvents, p.handleSpecStream)
	mux.HandleFunc("POST "+protocol.PathReplies, func(w http.ResponseWriter, r *http.Request) {
		p.handleReply(w, r, true)
	})
	mux.HandleFunc("GET "+protocol.PathManifest, p.handleManifest)
	mux.HandleFunc("GET "+protocol.PathWebSocket, p.handleWebSocket)
	return mux
}

// agent is the producer's identity: the recorded one of a replay, else the
// first scenario's agent.
func (p *Producer) agent() Agent {
	if r := p.opts.Replay; r != nil {
		return Agent{ID: r.agent.AgentID, Name: r.agent.AgentName, Version: r.agent.AgentVersion}
	}
	if l := p.opts.Live; l != nil {
		return l.Agent
	}
	if len(p.opts.Scenarios) > 0 {
		return p.opts.Scenarios[0].Agent
	}
	return Agent{ID: "aaep-term-producer", Version: protocol.Version}
}

// subscription is one accepted subscription.request.
type subscription struct {
	id         string
	subscriber string
	requested  map[string]json.RawMessage // capabilities as requested, renegotiations merged
	terms      terms                      // guarded by Producer.mu
	streams    int                        // open streams; guarded by Producer.mu
	lastUsed   time.Time                  // guarded by Producer.mu
	closed     chan struct{}              // closed by subscription.close
	played     bool                       // a replay was played to its end on a stream of it; guarded by Producer.mu
	signer     *sigrpl.Verifier           // the offered reply key, or nil
}

// terms are the honored capabilities a stream applies.
type terms struct {
	rate             int // events per second
	include, exclude []string
	// confirm and clarify say whether the subscription can answer
	// confirmations and clarifications. It is sent no prompt it cannot
	// answer (spec §5.3.1.4, §5.3.1.5); absent means it cannot.
	confirm, clarify bool
}

// capabilities is the part of a capability declaration the producer reads.
type capabilities struct {
	MaxEventsPerSecond         *int     `json:"max_events_per_second"`
	PreferredVerbosity         string   `json:"preferred_verbosity"`
	Languages                  []string `json:"languages"`
	SupportsConfirmationReply  *bool    `json:"supports_confirmation_reply"`
	SupportsClarificationReply *bool    `json:"supports_clarification_reply"`
	CoalesceBoundaries         []string `json:"coalesce_boundaries"`
	EventFilters               *filters `json:"event_filters"`
	SupportedConformanceLevels []int    `json:"supported_conformance_levels"`
}

type filters struct {
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// honored is the honored_capabilities member of subscription.accepted.
type honored struct {
	MaxEventsPerSecond         int            `json:"max_events_per_second"`
	PreferredVerbosity         string         `json:"preferred_verbosity,omitempty"`
	Languages                  []string       `json:"languages,omitempty"`
	SupportsConfirmationReply  *bool          `json:"supports_confirmation_reply,omitempty"`
	SupportsClarificationReply *bool          `json:"supports_clarification_reply,omitempty"`
	CoalesceBoundaries         []string       `json:"coalesce_boundaries,omitempty"`
	EventFilters               *filters       `json:"event_filters,omitempty"`
	SupportedConformanceLevels []int          `json:"supported_conformance_levels,omitempty"`
	Sigrpl                     *sigrplHonored `json:"sigrpl,omitempty"`

	extra map[string]json.RawMessage // extensions a live source offers (live.go)
}

// Rejection is a subscription.rejected message with the HTTP status it is
// answered with.
type Rejection struct {
	status int
	code   string
	text   string
	retry  *int // retry_after_seconds, when the subscriber may try again
}

func (e *Rejection) Error() string { return e.code + ": " + e.text }

func reject(status int, code, format string, args ...any) *Rejection {
	return &Rejection{status, code, fmt.Sprintf(format, args...), nil}
}

func (p *Producer) handleSubscribe(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r)
	if err != nil {
		p.writeRejection(w, reject(http.StatusBadRequest, "unknown", "%v", err))
		return
	}
	sub, acc, rej := p.subscribe(body, manifestURL(r))
	if rej != nil {
		p.writeRejection(w, rej)
		return
	}
	w.Header().Set("Location", protocol.PathEvents+"?subscription_id="+sub.id)
	writeJSON(w, http.StatusCreated, acc)
}

// manifestURL is where the manifest is served to the client of r.
func manifestURL(r *http.Request) string {
	if r.Host == "" {
		return ""
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + protocol.PathManifest
}

// subscribe evaluates a subscription.request on any binding and stores the
// subscription it makes; it returns the subscription.accepted message, or
// the rejection. manifest, if not empty, is the manifest_uri to announce.
func (p *Producer) subscribe(body []byte, manifest string) (*subscription, any, *Rejection) {
	r, rej := ReadRequest(body)
	if rej != nil {
		return nil, nil, rej
	}
	if rej := p.refusal(); rej != nil { // Options.Refuse (refuse.go)
		return nil, nil, rej
	}
	req, subscriber, requested := r.Members, r.SubscriberID, r.Capabilities
	h, t, notes, rej := p.negotiate(requested)
	if rej != nil {
		return nil, nil, rej
	}
	h, t = p.breakTerms(h, t) // breaks.go
	signer, signed, rej := p.signerOffer(req)
	if rej != nil {
		return nil, nil, rej
	}
	h.Sigrpl = signed
	h.extra = p.liveHonored(requested) // live.go
	sub := &subscription{
		id: "sub_" + randomHex(12), subscriber: subscriber, requested: requested,
		terms: t, lastUsed: time.Now(), closed: make(chan struct{}), signer: signer,
	}
	if rej := p.addSubscription(sub); rej != nil {
		return nil, nil, rej
	}
	p.opts.Logf("producer: %s subscribed as %s", subscriber, sub.id)
	return sub, p.accepted(manifest, sub.id, h, notes), nil
}

// accepted builds a subscription.accepted message.
func (p *Producer) accepted(manifest, id string, h honored, notes []string) any {
	type producer struct {
		AgentID      string `json:"agent_id"`
		AgentName    string `json:"agent_name,omitempty"`
		AgentVersion string `json:"agent_version,omitempty"`
	}
	msg := struct {
		Type     string   `json:"type"`
		ID       string   `json:"subscription_id"`
		Version  string   `json:"aaep_version"`
		Producer producer `json:"producer"`
		Honored  honored  `json:"honored_capabilities"`
		Manifest string   `json:"manifest_uri,omitempty"`
		Signed   string   `json:"signed_manifest,omitempty"`
		Notes    string   `json:"negotiation_notes,omitempty"`
	}{
		Type: protocol.TypeSubscriptionAccepted, ID: id, Version: protocol.Version, Honored: h,
		Notes: strings.Join(notes, " "), Manifest: manifest, Signed: p.signedManifest(),
	}
	a := p.agent()
	msg.Producer = producer{a.ID, a.Name, a.Version}
	if p.opts.Replay != nil {
		msg.Notes = strings.TrimSpace(replayNote + " " + msg.Notes)
	}
	return msg
}

// addSubscription stores sub, evicting the longest idle subscription without
// a stream when there are too many.
func (p *Producer) addSubscription(sub *subscription) *Rejection {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.subs) >= maxSubscriptions {
		var idle *subscription
		for _, s := range p.subs {
			if s.streams == 0 && (idle == nil || s.lastUsed.Before(idle.lastUsed)) {
				idle = s
			}
		}
		if idle == nil {
			return &Rejection{http.StatusTooManyRequests, "rate_limit", "too many open subscriptions", nil}
		}
		delete(p.subs, idle.id)
		close(idle.closed)
	}
	p.subs[sub.id] = sub
	p.unanswerableLocked() // the first subscription may be one that cannot answer
	return nil
}

// negotiate checks requested capabilities and returns what the producer
// honors (never more than requested), the terms its streams apply, and notes
// on what it could not honor.
func (p *Producer) negotiate(requested map[string]json.RawMessage) (honored, terms, []string, *Rejection) {
	c, rej := readCapabilities(requested)
	if rej == nil {
		rej = CheckSignedManifest(requested, p.signsManifest())
	}
	if rej != nil {
		return honored{}, terms{}, nil, rej
	}
	var h honored
	var notes []string
	t := terms{rate: p.rateCap(), include: p.defaultInclude()}

	h.MaxEventsPerSecond = t.rate
	if n := c.MaxEventsPerSecond; n != nil {
		h.MaxEventsPerSecond = min(*n, t.rate)
	}
	t.rate = h.MaxEventsPerSecond

	switch c.PreferredVerbosity {
	case "", "normal":
		h.PreferredVerbosity = "normal"
	default:
		notes = append(notes, "Events are written at normal verbosity only.")
	}

	langs := c.Languages
	if _, ok := requested["languages"]; !ok {
		langs = []string{"en-US"}
	}
	for _, l := range langs {
		if slices.ContainsFunc(p.langs, func(have string) bool { return sameLanguage(have, l) }) && !slices.Contains(h.Languages, l) {
			h.Languages = append(h.Languages, l)
		}
	}
	if len(h.Languages) < len(p.langs) {
		notes = append(notes, "Some sessions are in "+strings.Join(p.langs, ", ")+" only.")
	}

	// The spec's default for both is false: a subscription that does not
	// say it can answer is sent no prompt, and each one's default applies.
	t.confirm = c.SupportsConfirmationReply != nil && *c.SupportsConfirmationReply
	t.clarify = c.SupportsClarificationReply != nil && *c.SupportsClarificationReply
	h.SupportsConfirmationReply, h.SupportsClarificationReply = &t.confirm, &t.clarify

	for _, b := range c.CoalesceBoundaries {
		if (b == "sentence" || b == "completion") && !slices.Contains(h.CoalesceBoundaries, b) {
			h.CoalesceBoundaries = append(h.CoalesceBoundaries, b)
		}
	}
	if _, ok := requested["coalesce_boundaries"]; ok && len(h.CoalesceBoundaries) == 0 {
		notes = append(notes, "Streamed output is cut at sentences and completion only.")
	}

	if f := c.EventFilters; f != nil {
		h.EventFilters = f
		if f.Include != nil {
			t.include = f.Include
		}
		t.exclude = f.Exclude
	}

	for _, l := range c.SupportedConformanceLevels {
		if !slices.Contains(h.SupportedConformanceLevels, l) {
			h.SupportedConformanceLevels = append(h.SupportedConformanceLevels, l)
		}
	}
	return h, t, notes, nil
}

// rateCap is the most events per second a stream is sent: a replay keeps
// to the pace of its recording (and --speed), so only a subscriber's own
// limit holds it back.
func (p *Producer) rateCap() int {
	if p.opts.Replay != nil {
		return maxReplayRate
	}
	return maxRate
}

// CheckCapabilities rejects requested capabilities that no producer can
// honour because they are malformed: a rate out of range, an unknown
// verbosity or coalescing boundary, a bad language tag, event filter or
// conformance level ("capabilities_incompatible").
func CheckCapabilities(requested map[string]json.RawMessage) *Rejection {
	_, rej := readCapabilities(requested)
	return rej
}

// readCapabilities decodes and checks requested capabilities.
func readCapabilities(requested map[string]json.RawMessage) (capabilities, *Rejection) {
	raw, _ := json.Marshal(requested)
	var c capabilities
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, reject(http.StatusBadRequest, "capabilities_incompatible", "capabilities: %v", err)
	}
	bad := func(format string, args ...any) (capabilities, *Rejection) {
		return c, reject(http.StatusBadRequest, "capabilities_incompatible", format, args...)
	}
	if n := c.MaxEventsPerSecond; n != nil && (*n < 1 || *n > 100000) {
		return bad("max_events_per_second must be from 1 to 100000")
	}
	switch c.PreferredVerbosity {
	case "", "terse", "normal", "detailed":
	default:
		return bad("preferred_verbosity %q is not terse, normal or detailed", c.PreferredVerbosity)
	}
	for _, l := range c.Languages {
		if !isLanguageTag(l) {
			return bad("languages: %q is not a language tag", l)
		}
	}
	for _, b := range c.CoalesceBoundaries {
		if !slices.Contains([]string{"none", "word", "sentence", "paragraph", "completion"}, b) {
			return bad("coalesce_boundaries: %q is not a boundary", b)
		}
	}
	if f := c.EventFilters; f != nil {
		for _, pat := range slices.Concat(f.Include, f.Exclude) {
			if pat == "" || len(pat) > 256 || strings.Contains(strings.TrimSuffix(pat, "*"), "*") {
				return bad("event_filters: %q is not a type or a prefix ending in *", pat)
			}
		}
	}
	for _, l := range c.SupportedConformanceLevels {
		if l < 1 || l > 3 {
			return bad("supported_conformance_levels: %d is not 1, 2 or 3", l)
		}
	}
	return c, nil
}

// sameLanguage reports whether two language tags share their primary subtag.
func sameLanguage(a, b string) bool {
	pa, _, _ := strings.Cut(a, "-")
	pb, _, _ := strings.Cut(b, "-")
	return strings.EqualFold(pa, pb)
}

func (p *Producer) writeRejection(w http.ResponseWriter, rej *Rejection) {
	p.opts.Logf("producer: subscription rejected: %v", rej)
	writeJSON(w, rej.status, rej.message())
}

// message is the subscription.rejected message.
func (e *Rejection) message() map[string]any {
	if e == nil {
		return nil
	}
	m := map[string]any{
		"type":           protocol.TypeSubscriptionRejected,
		"reason_code":    e.code,
		"reason_message": e.text,
	}
	if e.retry != nil {
		m["retry_after_seconds"] = *e.retry
	}
	return m
}

func (p *Producer) handleSpecStream(w http.ResponseWriter, r *http.Request) {
	if p.ended() {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	id := r.URL.Query().Get("subscription_id")
	if id == "" {
		writeError(w, http.StatusBadRequest, "the subscription_id query parameter is missing; POST a subscription.request to "+protocol.PathSubscriptions+" first")
		return
	}
	p.mu.Lock()
	sub := p.subs[id]
	p.mu.Unlock()
	if sub == nil {
		writeError(w, http.StatusNotFound, "no subscription "+id)
		return
	}
	p.serveStream(w, r, sub)
}

// replyError is a refused reply with its HTTP status.
type replyError struct {
	status  int
	message string
}

func (e *replyError) Error() string { return e.message }

func refuse(status int, format string, args ...any) *replyError {
	return &replyError{status, fmt.Sprintf(format, args...)}
}

// handleReply serves both reply endpoints. The spec one requires
// subscription_id; in Quirks mode the legacy one answers every JSON object
// {"status":"received"}, but still acts on valid replies.
func (p *Producer) handleReply(w http.ResponseWriter, r *http.Request, spec bool) {
	body, err := readBody(w, r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	p.told(r.URL.Path, body)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		writeError(w, http.StatusBadRequest, "the body is not a JSON object")
		return
	}
	typ, _ := stringField(m, "type")
	switch typ {
	case protocol.TypeSubscriptionRenegotiate:
		p.renegotiate(w, r, m)
		return
	case protocol.TypeSubscriptionClose:
		p.closeSubscription(w, m)
		return
	}
	if p.forgeable(r) { // cors.go
		p.opts.Logf("producer: refused an unsigned reply from a page of %s", r.Header.Get("Origin"))
		writeError(w, http.StatusForbidden, "an unsigned reply from a page of "+r.Header.Get("Origin")+
			" is refused: any page could send it. Sign it ("+sigrpl.Namespace+"), or name the origin to the producer (--allow-origin)")
		return
	}
	if p.opts.Replay != nil { // received, reported, and changes nothing
		writeJSON(w, http.StatusAccepted, map[string]string{"status": "received"})
		return
	}
	aud, err := p.checkSignature(r.Header.Get(sigrpl.Header), body, m)
	if err == nil {
		err = p.reply(typ, m, spec, aud)
	}
	if p.opts.Quirks {
		if err != nil {
			p.opts.Logf("producer: reply ignored: %v", err)
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "received"})
		return
	}
	var re *replyError
	if errors.As(err, &re) {
		p.opts.Logf("producer: reply refused (%d): %s", re.status, re.message)
		writeError(w, re.status, re.message)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"status": "accepted"})
}

// replyFields are the members each reply type may have.
var replyFields = map[string][]string{
	protocol.TypeConfirmationReply: {"type", "reply_token", "decision", "subscription_id", "timestamp",
		"decided_by", "decision_rationale", "modified_action", "correlation_id"},
	protocol.TypeClarificationReply: {"type", "reply_token", "response", "subscription_id", "timestamp",
		"decided_by", "confidence", "correlation_id"},
}

// reply validates a confirmation or clarification reply and settles its
// prompt. needSub requires a subscription_id. aud, when not nil, is the
// audience of the reply's signature, checked already: the reply is bound
// to the subscription it names, and must answer this producer's prompt.
func (p *Producer) reply(typ string, m map[string]json.RawMessage, needSub bool, aud *sigrpl.Audience) error {
	if ok, err := p.liveMessage(typ, m); ok { // live.go
		return err
	}
	allowed, ok := replyFields[typ]
	if !ok {
		return refuse(http.StatusBadRequest, `"type" must be %q or %q (or a subscription message)`,
			protocol.TypeConfirmationReply, protocol.TypeClarificationReply)
	}
	for name := range m {
		if !slices.Contains(allowed, name) {
			return refuse(http.StatusBadRequest, "%s has no member %q", typ, name)
		}
	}
	token, _ := stringField(m, "reply_token")
	if !tokenPattern.MatchString(token) {
		return refuse(http.StatusBadRequest, `"reply_token" is missing or is not a reply token`)
	}
	subID, hasSub := stringField(m, "subscription_id")
	if _, present := m["subscription_id"]; present && !hasSub {
		return refuse(http.StatusBadRequest, `"subscription_id" must be a string`)
	}
	if needSub && !hasSub {
		return refuse(http.StatusBadRequest, `"subscription_id" is missing`)
	}
	if aud != nil && !hasSub { // bound by its signature to one subscription
		subID, hasSub = aud.Subscription, true
	}
	if hasSub {
		p.mu.Lock()
		sub := p.subs[subID]
		p.mu.Unlock()
		if !subPattern.MatchString(subID) || sub == nil {
			return refuse(http.StatusBadRequest, "no subscription %s", subID)
		}
	}
	stamp, _ := stringField(m, "timestamp")
	at, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		return refuse(http.StatusBadRequest, `"timestamp" is missing or is not an RFC 3339 time`)
	}

	p.mu.Lock()
	pr := p.prompts[token]
	if pr == nil {
		pr = p.forgedPromptLocked() // breaks.go
	}
	p.mu.Unlock()
	if pr == nil {
		return refuse(http.StatusNotFound, "reply_token %s matches no prompt of this producer", token)
	}
	wantType := protocol.TypeConfirmationReply
	if pr.typ == protocol.TypeAwaitingClarify {
		wantType = protocol.TypeClarificationReply
	}
	if typ != wantType {
		return refuse(http.StatusBadRequest, "reply_token %s belongs to a %s; answer it with a %s", token, pr.typ, wantType)
	}
	if err := p.checkAudience(aud, subID, pr); err != nil {
		return err
	}
	select {
	case <-pr.settled:
		return refuse(http.StatusConflict, "the prompt %s is settled already (%s)", token, pr.outcomeNow(p))
	default:
	}

	o := Outcome{SubscriptionID: subID}
	label := ""
	if typ == protocol.TypeConfirmationReply {
		d, _ := stringField(m, "decision")
		if d != protocol.DecisionAccept && d != protocol.DecisionReject || !slices.Contains(pr.allowed, d) {
			return refuse(http.StatusBadRequest, `"decision" must be one of %s`, strings.Join(pr.allowed, ", "))
		}
		if _, ok := m["modified_action"]; ok {
			d = protocol.DecisionReject // modified actions are not supported: that is a reject
		}
		o.Decision, o.Resolution = d, Rejected
		o.Rationale, _ = stringField(m, "decision_rationale")
		if d == protocol.DecisionAccept {
			o.Resolution = Accepted
		}
	} else {
		value, l, err := pr.answer(m["response"])
		if err != nil && p.broken(BreakWrongKind) && m["response"] != nil { // breaks.go
			value, l, err = string(m["response"]), string(m["response"]), nil
		}
		if err != nil {
			return err
		}
		o.Answer, o.Resolution, label = value, Answered, l
	}
	p.mu.Lock()
	expires := pr.expires
	p.mu.Unlock()
	if at.After(expires) && !p.broken(BreakNoTimeout) { // breaks.go: a prompt that never times out
		return refuse(http.StatusBadRequest, "the reply is dated %s, after the prompt expired at %s",
			at.UTC().Format(time.RFC3339), expires.Format(time.RFC3339))
	}
	if !p.settle(pr, o, label) {
		return refuse(http.StatusConflict, "the prompt %s is settled already (%s)", token, pr.outcomeNow(p))
	}
	return p.liveReply(pr, m, o.Decision) // live.go: the agent decides
}

// outcomeNow says how a settled prompt was settled.
func (pr *prompt) outcomeNow(p *Producer) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return pr.outcome.Resolution.String()
}

// answer checks a clarification response against what the prompt accepts
// and returns its value and how it reads.
func (pr *prompt) answer(raw json.RawMessage) (value, label string, err error) {
	if raw == nil {
		return "", "", refuse(http.StatusBadRequest, `"response" is missing`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", "", refuse(http.StatusBadRequest, `"response" is not JSON`)
	}
	kinds := strings.Join(pr.kinds, ", ")
	switch v := v.(type) {
	case string:
		if slices.Contains(pr.kinds, "multiple_choice") {
			for _, c := range pr.choices {
				if c.Value == v {
					return v, c.Label, nil
				}
			}
		}
		if v != "" && len(v) <= 16384 && slices.Contains(pr.kinds, "freetext") {
			return v, v, nil
		}
		if slices.Contains(pr.kinds, "multiple_choice") {
			values := make([]string, len(pr.choices))
			for i, c := range pr.choices {
				values[i] = c.Value
			}
			return "", "", refuse(http.StatusBadRequest, "the response %q is not one of the choices %s", v, strings.Join(values, ", "))
		}
	case bool:
		if slices.Contains(pr.kinds, "yes_no") {
			if v {
				return "true", "yes", nil
			}
			return "false", "no", nil
		}
	case json.Number:
		if slices.Contains(pr.kinds, "numeric") {
			return v.String(), v.String(), nil
		}
	}
	return "", "", refuse(http.StatusBadRequest, "the response is not of a kind the question accepts (%s)", kinds)
}

func (p *Producer) renegotiate(w http.ResponseWriter, r *http.Request, m map[string]json.RawMessage) {
	status, answer, refused := p.renegotiateMsg(m, manifestURL(r))
	if refused != nil {
		p.dropSubscription(refused) // a refused renegotiation ends the subscription
	}
	writeJSON(w, status, answer)
}

// renegotiateMsg applies a subscription.renegotiate on any binding and
// returns the answer: subscription.accepted with the new terms, a rejection,
// or an error when it names no subscription. After a rejection, refused is
// the subscription, which the caller must end once it has answered.
func (p *Producer) renegotiateMsg(m map[string]json.RawMessage, manifest string) (status int, answer any, refused *subscription) {
	id, _ := stringField(m, "subscription_id")
	p.mu.Lock()
	sub := p.subs[id]
	p.mu.Unlock()
	if sub == nil {
		return http.StatusNotFound, map[string]string{"error": "no subscription " + id}, nil
	}
	var changes map[string]json.RawMessage
	if err := json.Unmarshal(m["capabilities"], &changes); err != nil || changes == nil {
		return http.StatusBadRequest, map[string]string{"error": `"capabilities" must be an object`}, nil
	}
	p.mu.Lock()
	merged := make(map[string]json.RawMessage, len(sub.requested)+len(changes))
	for k, v := range sub.requested {
		merged[k] = v
	}
	p.mu.Unlock()
	for k, v := range changes {
		merged[k] = v
	}
	h, t, notes, rej := p.negotiate(merged)
	h.extra = p.liveHonored(merged) // live.go
	if rej != nil {
		p.opts.Logf("producer: subscription rejected: %v", rej)
		return rej.status, rej.message(), sub
	}
	p.mu.Lock()
	if !p.broken(BreakRenegotiate) {
		sub.requested, sub.terms = merged, t
	}
	p.unanswerableLocked()
	p.broadcastLocked()
	p.mu.Unlock()
	p.opts.Logf("producer: %s renegotiated", id)
	return http.StatusOK, p.accepted(manifest, id, h, notes), nil
}

// dropSubscription forgets sub and ends its streams; it reports whether sub
// was still there.
func (p *Producer) dropSubscription(sub *subscription) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.subs[sub.id] != sub {
		return false
	}
	delete(p.subs, sub.id)
	close(sub.closed)
	p.subscribersGoneLocked()
	return true
}

func (p *Producer) closeSubscription(w http.ResponseWriter, m map[string]json.RawMessage) {
	status, answer := p.closeMsg(m)
	writeJSON(w, status, answer)
}

// closeMsg applies a subscription.close on any binding.
func (p *Producer) closeMsg(m map[string]json.RawMessage) (int, any) {
	id, _ := stringField(m, "subscription_id")
	p.mu.Lock()
	sub := p.subs[id]
	p.mu.Unlock()
	if sub == nil || !p.dropSubscription(sub) {
		return http.StatusNotFound, map[string]string{"error": "no subscription " + id}
	}
	p.opts.Logf("producer: %s closed", id)
	return http.StatusAccepted, map[string]string{"status": "closed"}
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("cannot read the body: %w", err)
	}
	return b, nil
}

// stringField returns m[name] when it is a JSON string.
func stringField(m map[string]json.RawMessage, name string) (string, bool) {
	var s string
	if err := json.Unmarshal(m[name], &s); err != nil {
		return "", false
	}
	return s, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // our own values always encode
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]string{"error": message})
}
