package conform

// This file holds the Level 3 tests: the subscriptions that ask for terms
// (rate, filters, coalescing, languages, a renegotiation, a signed
// manifest, a version no one speaks) and the judging of what each saw.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/manifest"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// The terms the Level 3 subscriptions ask for.
const testRate = 10

var (
	filterInclude = []string{"aaep:agent.session.*", "aaep:agent.tool.*", protocol.TypeStateChanged}
	filterExclude = []string{protocol.TypeStateChanged}
	renegExclude  = []string{protocol.TypeStateChanged, protocol.TypeProgressUpdated}
	testLanguages = []string{"en-US"}
	testBoundary  = []string{"sentence", "completion"}
)

// reasonCodes are the reason codes of subscription.rejected the spec
// defines.
var reasonCodes = []string{"version_unsupported", "manifest_signature_required", "capabilities_incompatible",
	"rate_limit", "authentication_required", "authorization_denied", "transport_unavailable", "unknown"}

// openL3 checks main's acceptance and opens the subscriptions of the terms
// tests.
func (r *prun) openL3(ctx context.Context, a *protocol.SubscriptionAccepted, af seen) error {
	r.judgeAccepted(a, af)
	var err error
	open := func(name string, caps protocol.Capabilities) *psub {
		if err != nil {
			return nil
		}
		var s *psub
		s, err = dialSub(ctx, r.ep, r.o.Transport, name, request(name, caps))
		return s
	}
	r.rate = open("rate", protocol.Capabilities{MaxEventsPerSecond: testRate})
	r.filt = open("filters", protocol.Capabilities{EventFilters: &protocol.EventFilters{Include: filterInclude, Exclude: filterExclude}})
	r.coal = open("coalescing", protocol.Capabilities{CoalesceBoundaries: testBoundary, Languages: testLanguages})
	r.reneg = open("renegotiate", protocol.Capabilities{})
	if err != nil {
		return err
	}
	r.renegotiate(ctx)
	r.probeVersion(ctx)
	r.probeSigned(ctx)
	r.judgeManifest(ctx, a)
	return nil
}

// judgeAccepted checks the shape of an acceptance.
func (r *prun) judgeAccepted(a *protocol.SubscriptionAccepted, f seen) {
	switch {
	case f.data == nil:
		r.result(PAnswerShape, Fail, "The producer did not answer the subscription request.")
	case !f.hand:
		r.result(PAnswerShape, Fail, "The producer sent events without answering the subscription request.", r.frame(f, "the first frame"))
	case a == nil:
		r.result(PAnswerShape, Fail, "The producer refused a plain subscription request, or its answer is not a subscription.accepted.", r.frame(f, "the answer"))
	default:
		var raw map[string]json.RawMessage
		_ = json.Unmarshal(f.data, &raw)
		var caps map[string]json.RawMessage
		switch {
		case a.SubscriptionID == "":
			r.result(PAnswerShape, Fail, "The subscription.accepted has no subscription_id.", r.frame(f, "the answer"))
		case a.AAEPVersion == "":
			r.result(PAnswerShape, Fail, "The subscription.accepted has no aaep_version.", r.frame(f, "the answer"))
		case json.Unmarshal(raw["honored_capabilities"], &caps) != nil || caps == nil:
			r.result(PAnswerShape, Fail, "The subscription.accepted has no honored_capabilities object.", r.frame(f, "the answer"))
		default:
			r.result(PAnswerShape, Pass, "Every subscription request was answered with a well formed acceptance or rejection.", r.frame(f, "an acceptance"))
		}
	}
}

// probeVersion subscribes asking for a version no producer speaks: the
// answer must be a rejection with a known reason code.
func (r *prun) probeVersion(ctx context.Context) {
	req := request("version-probe", protocol.Capabilities{})
	req.AAEPVersion = "99.0.0"
	s, err := dialSub(ctx, r.ep, r.o.Transport, "version-probe", req)
	if err != nil {
		r.result(PAnswerShape, Fail, fmt.Sprintf("A request for AAEP 99.0.0 was not answered with a subscription.rejected: %s.", protocol.Sanitize(err.Error())))
		return
	}
	defer s.close(context.WithoutCancel(ctx))
	f, ok := s.answer(ctx, handshakeWait)
	var rej protocol.SubscriptionRejected
	switch {
	case !ok:
		r.result(PAnswerShape, Fail, "A request for AAEP 99.0.0 was not answered at all.")
	case f.typ != protocol.TypeSubscriptionRejected:
		r.result(PAnswerShape, Fail, "A request for AAEP 99.0.0 was not rejected.", r.frame(f, "the answer"))
	case json.Unmarshal(f.data, &rej) != nil || !slices.Contains(reasonCodes, rej.ReasonCode):
		r.result(PAnswerShape, Fail, "A rejection has no reason_code the spec defines.", r.frame(f, "the rejection"))
	case strings.TrimSpace(rej.ReasonMessage) == "":
		r.result(PAnswerShape, Fail, "A rejection has no reason_message.", r.frame(f, "the rejection"))
	default:
		r.result(PAnswerShape, Pass, "Every subscription request was answered with a well formed acceptance or rejection.", r.frame(f, "the rejection of AAEP 99.0.0"))
	}
}

// probeSigned subscribes accepting signed manifests only.
func (r *prun) probeSigned(ctx context.Context) {
	caps := protocol.Capabilities{AcceptSignedManifestsOnly: true}
	s, err := dialSub(ctx, r.ep, r.o.Transport, "signed-manifest", request("signed-manifest", caps))
	if err != nil {
		r.result(PSignedManifest, Fail, fmt.Sprintf("A subscription accepting signed manifests only was not answered: %s.", protocol.Sanitize(err.Error())))
		return
	}
	defer s.close(context.WithoutCancel(ctx))
	f, ok := s.answer(ctx, handshakeWait)
	var a protocol.SubscriptionAccepted
	var rej protocol.SubscriptionRejected
	switch {
	case !ok || !f.hand:
		r.result(PSignedManifest, Fail, "A subscription accepting signed manifests only was not answered.")
	case f.typ == protocol.TypeSubscriptionRejected:
		if json.Unmarshal(f.data, &rej) == nil && rej.ReasonCode == "manifest_signature_required" {
			r.result(PSignedManifest, Pass, "The producer, which does not sign its manifest, refused with manifest_signature_required.", r.frame(f, "the rejection"))
		} else {
			r.result(PSignedManifest, Fail, "A subscription accepting signed manifests only was refused for another reason than manifest_signature_required.", r.frame(f, "the rejection"))
		}
	case json.Unmarshal(f.data, &a) != nil || a.SignedManifest == "":
		r.result(PSignedManifest, Fail, "A subscription accepting signed manifests only was accepted without a signed manifest.", r.frame(f, "the acceptance"))
	case r.o.ManifestKeys == nil || r.o.ManifestKeys.Len() == 0:
		r.result(PSignedManifest, Skip, "The producer signs its manifest, but no trusted key was given to verify it with.", r.frame(f, "the acceptance"))
	default:
		if _, err := manifest.Verify(a.SignedManifest, r.o.ManifestKeys, time.Now()); err != nil {
			why := protocol.Sanitize(err.Error()) + "."
			var me *manifest.Error
			if errors.As(err, &me) {
				why = me.Words // a sentence, the producer's words sanitized
			}
			r.result(PSignedManifest, Fail, "The signed manifest does not verify. "+why, r.frame(f, "the acceptance"))
			return
		}
		r.result(PSignedManifest, Pass, "The signed manifest verified with a trusted key.", r.frame(f, "the acceptance"))
	}
}

// judgeManifest looks for the manifest where the spec says it is.
func (r *prun) judgeManifest(ctx context.Context, a *protocol.SubscriptionAccepted) {
	var tried []string
	check := func(where string, b []byte, err error) bool {
		if err != nil {
			tried = append(tried, where+": "+protocol.Sanitize(err.Error()))
			return false
		}
		if _, perr := manifest.Parse(b); perr != nil {
			if jwsManifest(b) == nil {
				return true
			}
			tried = append(tried, where+": "+protocol.Sanitize(perr.Error()))
			return false
		}
		return true
	}
	switch r.ep.Binding {
	case transport.BindingSSE, transport.BindingWebSocket:
		u := *r.ep.URL
		u.Scheme = strings.Replace(strings.Replace(u.Scheme, "wss", "https", 1), "ws", "http", 1)
		u.Path, u.RawQuery = protocol.PathManifest, ""
		b, err := getURL(ctx, r.o.Transport.SSE.HTTPClient, u.String(), r.o.Transport.SSE.Token)
		if check(u.String(), b, err) {
			r.result(PManifest, Pass, "The manifest is published at /.well-known/aaep-manifest.json.", r.note("fetched %s", u.String()))
			return
		}
	case transport.BindingGRPC:
		if g := r.o.Transport.GRPCBinding; g != nil {
			b, err := g.GetManifest(ctx, r.ep, r.o.Transport.GRPCOptions())
			if check("GetManifest", b, err) {
				r.result(PManifest, Pass, "The manifest is published through GetManifest.")
				return
			}
		}
	}
	if a != nil && a.SignedManifest != "" {
		r.result(PManifest, Pass, "The manifest came signed in the subscription.accepted.")
		return
	}
	if m := r.o.Manifest; m != "" {
		var b []byte
		var err error
		if strings.HasPrefix(m, "http://") || strings.HasPrefix(m, "https://") {
			b, err = getURL(ctx, r.o.Transport.SSE.HTTPClient, m, "")
		} else {
			b, err = readLimited(strings.TrimPrefix(m, "file://"), manifest.MaxBytes, "manifest")
		}
		if check(m, b, err) {
			r.result(PManifest, Pass, "The manifest is published where the producer documents it.", r.note("read %s", m))
			return
		}
	}
	if a != nil && a.ManifestURI != "" && (strings.HasPrefix(a.ManifestURI, "http://") || strings.HasPrefix(a.ManifestURI, "https://")) {
		b, err := getURL(ctx, r.o.Transport.SSE.HTTPClient, a.ManifestURI, "")
		if check(a.ManifestURI, b, err) {
			r.result(PManifest, Pass, "The manifest is published at the acceptance's manifest_uri.", r.note("fetched %s", a.ManifestURI))
			return
		}
	}
	r.result(PManifest, Fail, "No manifest was found: "+strings.Join(append(tried, "no manifest_uri or signed_manifest in the acceptance"), "; ")+".")
}

// jwsManifest checks that b is a manifest signed as a compact JWS: three
// base64url parts, a protected header that is a JSON object naming its
// alg, and a payload that is a manifest. The signature itself is judged by
// P3-signed-manifest, against the keys the suite trusts.
func jwsManifest(b []byte) error {
	parts := strings.Split(strings.TrimSpace(string(b)), ".")
	if len(parts) != 3 {
		return errors.New("not a compact JWS: it does not have three parts")
	}
	var raw [3][]byte
	for i, p := range parts {
		d, err := base64.RawURLEncoding.DecodeString(p)
		if err != nil || (i < 2 && len(d) == 0) {
			return errors.New("not a compact JWS: a part is not base64url")
		}
		raw[i] = d
	}
	var head struct {
		Alg string `json:"alg"`
	}
	if err := json.Unmarshal(raw[0], &head); err != nil || head.Alg == "" {
		return errors.New("not a compact JWS: its header is not a JSON object naming alg")
	}
	if _, err := manifest.Parse(raw[1]); err != nil {
		return fmt.Errorf("a JWS whose payload is not a manifest: %w", err)
	}
	return nil
}

// getURL fetches a small document with client (nil: the default client).
func getURL(ctx context.Context, client *http.Client, u, token string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, handshakeWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s", resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, manifest.MaxBytes+1))
}

// renegotiate asks the renegotiate subscription to exclude state changes
// and progress, and notes when the producer agreed.
func (r *prun) renegotiate(ctx context.Context) {
	if _, f := r.reneg.accepted(ctx); f.typ != protocol.TypeSubscriptionAccepted {
		return
	}
	id := r.reneg.subscriptionID()
	r.renegTerms = protocol.Capabilities{EventFilters: &protocol.EventFilters{Exclude: renegExclude}}
	msg := protocol.SubscriptionRenegotiate{Type: protocol.TypeSubscriptionRenegotiate, SubscriptionID: id, Capabilities: r.renegTerms}
	if err := r.reneg.send(ctx, msg); err != nil && !isRefusal(err) {
		r.result(PRenegotiate, Fail, "The renegotiation could not be sent: "+protocol.Sanitize(err.Error())+".")
		return
	}
	count := func(fs []seen) int {
		n := 0
		for _, f := range fs {
			if f.hand && (f.typ == protocol.TypeSubscriptionAccepted || f.typ == protocol.TypeSubscriptionRejected) {
				n++
			}
		}
		return n
	}
	_ = r.reneg.waitFor(ctx, handshakeWait, func(fs []seen) bool { return count(fs) >= 2 })
	fs, _ := r.reneg.snapshot()
	for _, f := range fs {
		if f.hand && count([]seen{f}) == 1 {
			r.renegAt = f.at // the last answer is the renegotiation's
		}
	}
	if count(fs) < 2 {
		r.renegAt = time.Time{}
		r.result(PRenegotiate, Fail, "The producer did not answer the subscription.renegotiate.")
		return
	}
	if last := lastAnswer(fs); last.typ != protocol.TypeSubscriptionAccepted {
		r.renegAt = time.Time{}
		r.result(PRenegotiate, Fail, "The producer refused a renegotiation that only narrows the filters.", r.frame(last, "the answer"))
	}
}

// lastAnswer returns the last handshake message of fs.
func lastAnswer(fs []seen) seen {
	var last seen
	for _, f := range fs {
		if f.hand {
			last = f
		}
	}
	return last
}

// honoredOf returns the capabilities the last acceptance of s honored.
func honoredOf(s *psub) (*protocol.Capabilities, seen) {
	fs, _ := s.snapshot()
	var out *protocol.Capabilities
	var at seen
	for _, f := range fs {
		if f.hand && f.typ == protocol.TypeSubscriptionAccepted {
			var a protocol.SubscriptionAccepted
			if json.Unmarshal(f.data, &a) == nil {
				c := a.HonoredCapabilities
				out, at = &c, f
			}
		}
	}
	return out, at
}

// judgeL3 judges the terms each subscription was granted and kept.
func (r *prun) judgeL3(ctx context.Context) {
	subs := []*psub{r.main, r.obs, r.rate, r.filt, r.coal, r.reneg}
	judged := 0
	for _, s := range subs {
		if s == nil {
			continue
		}
		req := s.req.Capabilities
		if s == r.reneg && !r.renegAt.IsZero() {
			req = req.Merge(r.renegTerms)
		}
		h, f := honoredOf(s)
		if h == nil {
			continue
		}
		judged++
		if why := moreThanAsked(req, *h); why != "" {
			r.result(PHonoredSubset, Fail, why, r.frame(f, "the acceptance of subscription "+s.name))
		}
	}
	if judged == 0 {
		r.result(PHonoredSubset, Skip, "No subscription was accepted with honored capabilities, so nothing negotiated could be compared with what was asked.")
	} else {
		r.result(PHonoredSubset, Pass, fmt.Sprintf("None of the %s was granted more than it asked for.", prose.Count(judged, "subscription accepted", "subscriptions accepted")))
	}
	r.judgeRate()
	r.judgeFilters()
	r.judgeCoalescing()
	r.judgeRenegotiated()
}

// moreThanAsked says how honored goes beyond requested, or "".
func moreThanAsked(req, h protocol.Capabilities) string {
	switch {
	case req.MaxEventsPerSecond > 0 && (h.MaxEventsPerSecond == 0 || h.MaxEventsPerSecond > req.MaxEventsPerSecond):
		return fmt.Sprintf("A subscription asking for %d events a second was granted %d.", req.MaxEventsPerSecond, h.MaxEventsPerSecond)
	case isTrue(h.SupportsConfirmationReply) && !isTrue(req.SupportsConfirmationReply):
		return "A subscription that did not say it can answer confirmations was granted supports_confirmation_reply."
	case isTrue(h.SupportsClarificationReply) && !isTrue(req.SupportsClarificationReply):
		return "A subscription that did not say it can answer clarifications was granted supports_clarification_reply."
	case len(req.Languages) > 0 && !subset(h.Languages, req.Languages):
		return "A subscription was granted languages it did not ask for."
	case req.CoalesceBoundaries != nil && !subset(h.CoalesceBoundaries, req.CoalesceBoundaries):
		return "A subscription was granted coalescing boundaries it did not ask for."
	case !subset(h.SupportedExtensions, req.SupportedExtensions):
		return "A subscription was granted extensions it did not ask for."
	case !subset(intStrings(h.SupportedConformanceLevels), intStrings(req.SupportedConformanceLevels)) && len(req.SupportedConformanceLevels) > 0:
		return "A subscription was granted conformance levels it did not ask for."
	case req.EventFilters != nil && h.EventFilters != nil && req.EventFilters.Include != nil && !subset(h.EventFilters.Include, req.EventFilters.Include):
		return "A subscription was granted event types beyond the include filter it asked for."
	case req.EventFilters != nil && req.EventFilters.Exclude != nil && (h.EventFilters == nil || !subset(req.EventFilters.Exclude, h.EventFilters.Exclude)):
		return "A subscription's exclude filter was dropped from the honored terms."
	}
	return ""
}

func isTrue(b *bool) bool { return b != nil && *b }

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func intStrings(v []int) []string {
	out := make([]string, len(v))
	for i, n := range v {
		out[i] = fmt.Sprint(n)
	}
	return out
}

// rateWindow is the window the rate limit is measured over: long enough
// that a stall of the suite's reader, which delivers what waited in one
// burst, does not read as a burst of the producer.
const rateWindow = 2 * time.Second

// judgeRate counts the rate subscription's non-critical events in every
// window of rateWindow: at most the honored rate over the window, plus a
// full token bucket (one second's worth), plus half a second's worth more
// for a stall of the suite's reader on a loaded machine (what the producer
// sent over a stall arrives at once), plus two for the edges. A producer
// that ignores the rate sends its backlog at once, above that.
func (r *prun) judgeRate() {
	h, _ := honoredOf(r.rate)
	fs, _ := r.rate.snapshot()
	evs := events(fs)
	if h == nil {
		r.result(PRate, Fail, "The rate subscription was not accepted.")
		return
	}
	rate := h.MaxEventsPerSecond
	if rate <= 0 || rate > testRate {
		rate = testRate
	}
	var times []time.Time
	for _, f := range evs {
		if !f.ev.IsCritical() {
			times = append(times, f.at)
		}
	}
	most, at := 0, 0
	for i := range times {
		j := i
		for j < len(times) && times[j].Sub(times[i]) < rateWindow {
			j++
		}
		if j-i > most {
			most, at = j-i, i
		}
	}
	span := time.Duration(0)
	if len(times) > 1 {
		span = times[len(times)-1].Sub(times[0])
	}
	slack := rate + rate/2 + 2
	allowed := int(float64(rate)*rateWindow.Seconds()) + slack
	note := r.note("%d non-critical events over %v; at most %d in %v, from %v into the run", len(times), span.Round(time.Millisecond), most, rateWindow, func() time.Duration {
		if len(times) == 0 {
			return 0
		}
		return times[at].Sub(r.start).Round(time.Millisecond)
	}())
	switch {
	case len(times) <= rate:
		r.result(PRate, Skip, fmt.Sprintf("Only %d events came, too few to measure a limit of %d a second.", len(times), rate), note)
	case most > allowed:
		r.result(PRate, Fail, fmt.Sprintf("%d events came within %v to a subscription granted %d a second.", most, rateWindow, rate), note)
	case span > 0 && float64(len(times)-slack) > float64(rate)*span.Seconds():
		r.result(PRate, Fail, fmt.Sprintf("%d events came in %v to a subscription granted %d a second.", len(times), span.Round(time.Millisecond), rate), note)
	default:
		r.result(PRate, Pass, fmt.Sprintf("The subscription granted %d events a second got at most %d in any %v.", rate, most, rateWindow), note)
	}
	// Critical events: not held back behind the rate limited ones. Each is
	// timed against the unlimited observer's copy when it has one (one
	// clock), else against its own timestamp.
	ofs, _ := r.obs.snapshot()
	byID := map[string]time.Time{}
	for _, f := range events(ofs) {
		byID[f.ev.EventID] = f.at
	}
	crit := 0
	for _, f := range evs {
		if !f.ev.IsCritical() {
			continue
		}
		since, how := f.ev.Timestamp, "after it was stamped"
		if at, ok := byID[f.ev.EventID]; ok {
			since, how = at, "after the unlimited subscription got it"
		}
		if since.IsZero() {
			continue
		}
		crit++
		if late := f.at.Sub(since); late > time.Second {
			r.result(PCriticalOnTime, Fail, fmt.Sprintf("A critical event reached the rate limited subscription %v %s.", late.Round(time.Millisecond), how), r.frame(f, "the critical event"))
		}
	}
	if crit == 0 {
		r.result(PCriticalOnTime, Skip, "No critical event came to the rate limited subscription, so their delay could not be measured.")
		return
	}
	r.result(PCriticalOnTime, Pass, fmt.Sprintf("%s the rate limited subscription within a second.", allOf(crit, "critical event reached", "critical events reached")))
}

// judgeFilters checks the filters subscription saw only what it asked.
func (r *prun) judgeFilters() {
	fs, _ := r.filt.snapshot()
	evs := events(fs)
	for _, f := range evs {
		if !f.ev.IsCritical() && filteredOut(f.ev.Type) {
			r.result(PFilters, Fail, "An event outside the subscription's include and exclude filters was sent to it.", r.frame(f, "the event"))
			return
		}
	}
	if len(evs) == 0 {
		r.result(PFilters, Fail, "The filtered subscription received no event at all, not even the included ones.")
		return
	}
	// The filters pass only if the producer sent, to the subscription
	// without filters, an event they leave out: else they had nothing to do.
	all, _ := r.main.snapshot()
	out := 0
	for _, f := range events(all) {
		if !f.ev.IsCritical() && filteredOut(f.ev.Type) {
			out++
		}
	}
	if out == 0 {
		r.result(PFilters, Skip, "The producer sent no event that the filters leave out, so they could not be seen to apply.")
		return
	}
	r.result(PFilters, Pass, fmt.Sprintf("%s sent to the filtered subscription %s included and not excluded, or critical; %s the producer sent %s left out.", allOf(len(evs), "event", "events"), prose.Plural(len(evs), "was", "were"), prose.Count(out, "other", "others"), prose.Plural(out, "was", "were")))
}

// filteredOut reports whether the filters subscription's filters leave an
// event of type typ out.
func filteredOut(typ string) bool {
	return !matches(filterInclude, typ) || matches(filterExclude, typ)
}

// judgeCoalescing checks the coalescing subscription's streamed output
// and languages.
func (r *prun) judgeCoalescing() {
	h, hf := honoredOf(r.coal)
	fs, _ := r.coal.snapshot()
	evs := events(fs)
	if h == nil {
		r.result(PCoalescing, Fail, "The coalescing subscription was not accepted.")
		r.result(PLanguage, Fail, "The language subscription was not accepted.")
		return
	}
	chunks := 0
	for _, f := range evs {
		if f.ev.Type != protocol.TypeOutputStreaming || f.ev.Complete {
			continue
		}
		chunks++
		bounds := h.CoalesceBoundaries
		switch {
		case len(bounds) == 0:
		case !slices.Contains(bounds, "sentence") && !slices.Contains(bounds, "word") && !slices.Contains(bounds, "token") && !slices.Contains(bounds, "paragraph"):
			r.result(PCoalescing, Fail, "Output was streamed in pieces to a subscription granted completion boundaries only.", r.frame(f, "a piece"), r.frame(hf, "the acceptance"))
		case slices.Contains(bounds, "sentence") && !slices.Contains(bounds, "word") && !slices.Contains(bounds, "token") && !sentenceEnd(string(f.ev.Chunk)):
			r.result(PCoalescing, Fail, "Output was cut in the middle of a sentence for a subscription granted sentence boundaries.", r.frame(f, "the piece"), r.frame(hf, "the acceptance"))
		}
	}
	if chunks == 0 {
		r.result(PCoalescing, Skip, "No output was streamed in pieces to the coalescing subscription, so its boundaries could not be tested.")
	} else {
		r.result(PCoalescing, Pass, fmt.Sprintf("%s at a boundary the subscription was granted.", allOf(chunks, "piece of streamed output ended", "pieces of streamed output ended")))
	}
	langs := h.Languages
	granted := func(l string) bool {
		return slices.ContainsFunc(langs, func(want string) bool { return sameLang(want, l) })
	}
	asked := func(l string) bool {
		return slices.ContainsFunc(testLanguages, func(want string) bool { return sameLang(want, l) })
	}
	for _, f := range evs {
		loc := f.ev.Localization
		switch {
		case loc.PrimaryLanguage == "" || granted(loc.PrimaryLanguage):
		case len(langs) > 0:
			// Granted languages are negotiated terms, which a Level 3
			// producer must honor (spec 9.5.1, 11.2).
			r.result(PLanguage, Fail, fmt.Sprintf("The event %s came in %q, though the subscription was granted %s.", named(f.ev), protocol.Sanitize(loc.PrimaryLanguage), strings.Join(langs, ", ")), r.frame(f, "the event"), r.frame(hf, "the acceptance"))
			return
		case !asked(loc.PrimaryLanguage):
			// The producer granted no language asked for: it said at the
			// handshake it has none, and emitting in another is what it
			// should do then (a SHOULD met as well as it can be).
			r.result(PLanguage, Warn, fmt.Sprintf("The event %s came in %q, a language the subscription did not ask for, and the producer granted none it did.", named(f.ev), protocol.Sanitize(loc.PrimaryLanguage)), r.frame(f, "the event"), r.frame(hf, "the acceptance"))
		}
	}
	r.result(PLanguage, Pass, "Every event came in a language the subscription asked for and was granted.", r.frame(hf, "the acceptance"))
}

// sameLang compares the primary subtags of two language tags.
func sameLang(a, b string) bool {
	pa, _, _ := strings.Cut(strings.ToLower(a), "-")
	pb, _, _ := strings.Cut(strings.ToLower(b), "-")
	return pa == pb
}

// judgeRenegotiated checks that no event stamped after the renegotiation
// was answered breaks its new filters.
func (r *prun) judgeRenegotiated() {
	if r.renegAt.IsZero() {
		if _, ok := r.results[PRenegotiate]; !ok {
			r.result(PRenegotiate, Fail, "The renegotiation was not agreed to.")
		}
		return
	}
	fs, _ := r.reneg.snapshot()
	later := 0
	for _, f := range events(fs) {
		if f.ev.Timestamp.Before(r.renegAt) || f.ev.IsCritical() {
			continue
		}
		later++
		if matches(renegExclude, f.ev.Type) {
			r.result(PRenegotiate, Fail, "An event the renegotiated filters exclude came after the producer agreed to them.", r.note("agreed %v into the run", r.renegAt.Sub(r.start).Round(time.Millisecond)), r.frame(f, "the event"))
			return
		}
	}
	if later == 0 {
		r.result(PRenegotiate, Skip, "No event came after the renegotiation was agreed, so it could not be seen to apply.")
		return
	}
	r.result(PRenegotiate, Pass, fmt.Sprintf("The %s after the renegotiation kept its new filters.", prose.Count(later, "event", "events")), r.note("agreed %v into the run", r.renegAt.Sub(r.start).Round(time.Millisecond)))
}
