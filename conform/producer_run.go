package conform

// This file holds the run of the producer tests: the subscriptions held
// open, the trigger, the driving of prompts, and the report.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/manifest"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// ProducerOptions say how to test a producer.
type ProducerOptions struct {
	Endpoint string // as aaep-listen takes it: http(s)://, ws(s)://, unix:, exec:, grpc://
	Level    Level
	// Fast skips waits longer than a few seconds (prompt timeouts): the
	// tests that need them are skipped and say so.
	Fast bool
	// Trigger, if not empty, starts a session: "METHOD URL [BODY]". It is
	// sent with Transport.SSE.HTTPClient when that is set.
	Trigger string
	// Only, if not empty, keeps just these test IDs in the report (verify
	// --recheck). The run is the same either way: every test is judged
	// from one set of sessions driven together, so Only filters the
	// results afterwards and saves no time.
	Only []string
	// Seed, if not zero, shuffles the order of the results in the report
	// (and of Progress); the sessions are driven in the same order
	// whatever it is.
	Seed uint64
	// Transport carries tokens, headers and TLS for the endpoint.
	Transport transport.Options
	// Progress, if not nil, is told each result once the run is over, in
	// the order of the report: a result can change until the whole stream
	// has been seen (a late event can fail a test that had passed).
	Progress func(Result)
	// ManifestKeys are the keys a signed manifest must verify with; nil
	// means none is trusted, and a signed manifest cannot be judged.
	ManifestKeys *manifest.Keys
	// Hold bounds how long a confirmation is left unanswered to see that
	// the producer waits for it: the hold lasts up to the prompt's own
	// timeout (less a margin of a quarter of it, at least two seconds, so
	// that the reply still comes in time), at most Hold. Zero means
	// DefaultHold, or fastTimeout in Fast mode. A refused reply is watched
	// for a second at most (refusedWatch).
	Hold time.Duration
	// Manifest, if not empty, is where the producer documents its manifest
	// for local transports (unix:, exec:), which have no well-known URL: a
	// file path, or an http(s) URL.
	Manifest string
	// Quiet is how long the producer may send nothing before the run,
	// with every session seen ended, is taken as over; zero means
	// DefaultQuiet.
	Quiet time.Duration
	// AfterPlan is how long the run goes on once every planned step is
	// done and a session has ended, for a producer that never stops
	// sending; three times as long when no session has ended by then, or
	// while the producer sends on without the prompts the plan needs.
	// Zero means DefaultAfterPlan. Every run is bounded by it, and a run
	// stopped so says what it waited for in the tests it did not reach.
	AfterPlan time.Duration
}

// Waits of the producer tests.
const (
	// DefaultHold is the default of ProducerOptions.Hold.
	DefaultHold = time.Minute
	// refusedWatch is how long the session is watched after a reply meant
	// to be refused (forged, replayed, of the wrong kind, outside the
	// choices), at most ProducerOptions.Hold.
	refusedWatch = time.Second
	// DefaultQuiet is the default of ProducerOptions.Quiet.
	DefaultQuiet = 2 * time.Second
	// fastTimeout is the longest prompt timeout waited for in Fast mode.
	fastTimeout = 5 * time.Second
	// handshakeWait bounds the wait for the producer's answer to a
	// subscription request.
	handshakeWait = 10 * time.Second
	// grace is the time a producer is given beyond a prompt's timeout, or
	// after a close, to show what it did.
	grace = 3 * time.Second
	// maxRun bounds a whole run.
	maxRun = 10 * time.Minute
	// maxTriggers bounds how many sessions the trigger starts.
	maxTriggers = 8
)

// TestProducer runs the producer tests up to o.Level against o.Endpoint.
// An error means the suite could not run at all (exit 2); a report with
// failures is not an error.
//
// It holds several subscriptions open at once, each asking for other
// terms: "main" (which answers prompts, from Level 2), "observer" (asks
// nothing, answers nothing), and from Level 3 "rate" (10 events a second),
// "filters" (include and exclude), "coalescing" (sentence boundaries,
// en-US), "renegotiate" (excludes state changes once accepted), plus two
// probes answered at once (a request for AAEP 99.0.0, one accepting signed
// manifests only). Sessions start on their own or through o.Trigger, fired
// again while the plan needs prompts. Each confirmation main finds in the
// stream, by its type, takes the next step of the plan: accept (held back
// first, then a forged token, then accept and reject at once), reject (a
// settled token replayed first), timeout (the first prompt short enough to
// wait for; skipped in fast mode when longer than 5 s), and at Level 3
// close (main closes while the prompt waits; the observer must see the
// default apply). The first clarification is sent a reply of the wrong
// kind before its answer. What every subscription saw is then judged.
// Waits are measured (o.Hold, o.Quiet, a prompt's own timeout), since a
// producer that does nothing can only be seen to do nothing for a while.
func TestProducer(ctx context.Context, o ProducerOptions) (*Report, error) {
	if o.Level < 1 || o.Level > 3 {
		return nil, fmt.Errorf("conform: level %d does not exist (1, 2 or 3)", o.Level)
	}
	ep, err := transport.ParseEndpoint(o.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("conform: %w", err)
	}
	var trig *trigger
	if o.Trigger != "" {
		t, err := parseTrigger(o.Trigger)
		if err != nil {
			return nil, err
		}
		trig = t
	}
	if o.Hold <= 0 {
		o.Hold = DefaultHold
		if o.Fast {
			o.Hold = fastTimeout
		}
	}
	if o.Quiet <= 0 {
		o.Quiet = DefaultQuiet
	}
	ctx, cancel := context.WithTimeout(ctx, maxRun)
	defer cancel()
	r := &prun{o: o, ep: ep, trig: trig, start: time.Now(), results: map[string]*Result{}}
	rep := &Report{
		Role:    RoleProducer,
		Level:   o.Level,
		Fast:    o.Fast,
		Started: r.start.UTC(),
		Target:  Target{Endpoint: o.Endpoint, Binding: string(ep.Binding)},
	}
	if err := r.run(ctx); err != nil {
		return nil, err
	}
	rep.Finished = time.Now().UTC()
	if a := r.mainAccepted; a != nil {
		// The producer's own words, one sanitized line each: the report,
		// its claim and a receipt carry them, and `jq -r` prints them as
		// they are.
		rep.Target.AgentID = protocol.Line(a.Producer.AgentID)
		rep.Target.AgentName = protocol.Line(a.Producer.AgentName)
		rep.Target.AgentVersion = protocol.Line(a.Producer.AgentVersion)
	}
	tests := ProducerTests()
	if o.Seed != 0 {
		rng := rand.New(rand.NewPCG(o.Seed, o.Seed>>1|1))
		rng.Shuffle(len(tests), func(i, j int) { tests[i], tests[j] = tests[j], tests[i] })
	}
	for _, t := range tests {
		if t.Level > o.Level || (len(o.Only) > 0 && !slices.Contains(o.Only, t.ID)) {
			continue
		}
		res, ok := r.results[t.ID]
		if !ok {
			res = &Result{Test: t, Status: Skip, Detail: "The run never reached a point where this could be tested."}
			if r.stopped != "" {
				res.Detail = "Not reached: " + r.stopped + "."
			}
		}
		res.Test = t
		rep.Results = append(rep.Results, *res)
		if o.Progress != nil {
			o.Progress(*res)
		}
	}
	return rep, nil
}

// trigger starts a session on the producer: "METHOD URL [BODY]".
type trigger struct {
	method, url, body string
}

// parseTrigger splits s at its first two spaces.
func parseTrigger(s string) (*trigger, error) {
	parts := strings.SplitN(strings.TrimSpace(s), " ", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return nil, fmt.Errorf("conform: the trigger %q is not METHOD URL [BODY]", s)
	}
	t := &trigger{method: strings.ToUpper(parts[0]), url: parts[1]}
	if len(parts) == 3 {
		t.body = parts[2]
	}
	if !strings.HasPrefix(t.url, "http://") && !strings.HasPrefix(t.url, "https://") {
		return nil, fmt.Errorf("conform: the trigger's URL %q is not http:// or https://", t.url)
	}
	return t, nil
}

// fire sends the trigger's request with client (nil: the default client);
// any status but 2xx is an error.
func (t *trigger) fire(ctx context.Context, client *http.Client) error {
	var body io.Reader
	if t.body != "" {
		body = strings.NewReader(t.body)
	}
	req, err := http.NewRequestWithContext(ctx, t.method, t.url, body)
	if err != nil {
		return fmt.Errorf("conform: trigger: %w", err)
	}
	if t.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("conform: trigger: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("conform: trigger %s %s answered %s", t.method, t.url, resp.Status)
	}
	return nil
}

// prun is one run of the producer tests.
type prun struct {
	o     ProducerOptions
	ep    transport.Endpoint // o.Endpoint, parsed once
	trig  *trigger
	start time.Time
	fired int

	results map[string]*Result

	main, obs    *psub // main answers prompts; obs sees everything and answers nothing
	rate, filt   *psub // L3: a low rate; include and exclude filters
	coal, reneg  *psub // L3: coalescing and languages; renegotiation
	mainAccepted *protocol.SubscriptionAccepted
	renegAt      time.Time // when the renegotiation was answered
	renegTerms   protocol.Capabilities

	replies []sentReply // replies sent by main, in order
	done    [steps]bool // the confirmation steps taken
	cut     string      // the session whose prompt was left pending by the close
	endAt   time.Time   // when the watching ended and the judging began
	// stopped, when set, says what the run waited for when it stopped a
	// producer that never stopped sending (see ProducerOptions.AfterPlan).
	stopped string
}

// sentReply is one reply main sent.
type sentReply struct {
	at       time.Time
	session  string
	token    string
	decision string // accept, reject or answer
	refused  bool   // a reply meant to be refused (forged, replayed, of the wrong kind)
}

// result records the outcome of test id, keeping the first failure: a
// test judged at several places fails if any of them does.
func (r *prun) result(id string, st Status, detail string, ev ...Evidence) {
	t := producerTest(id)
	if old, ok := r.results[id]; ok {
		switch {
		case old.Status == Fail:
			old.Evidence = append(old.Evidence, ev[:min(len(ev), max(0, maxEvidence-len(old.Evidence)))]...)
			return
		case st == Pass && old.Status != Pass, st == Skip:
			return // a pass does not hide a warning or a skip; a skip hides nothing
		}
	}
	r.results[id] = &Result{Test: t, Status: st, Detail: protocol.Line(detail), Evidence: ev, Took: time.Since(r.start)}
}

// maxEvidence bounds the evidence one result keeps.
const maxEvidence = 20

// frame makes evidence of a received frame. A frame that is not JSON is
// kept as a JSON string of its bytes, so the report stays valid JSON.
func (r *prun) frame(f seen, note string) Evidence {
	data := append([]byte(nil), f.data...)
	if !json.Valid(data) {
		data, _ = json.Marshal(strings.ToValidUTF8(string(f.data), "\uFFFD"))
		note += " (not JSON: kept as a string)"
	}
	return Evidence{At: f.at.Sub(r.start), Dir: "received", Frame: data, Note: note}
}

// note makes evidence of an observation.
func (r *prun) note(format string, args ...any) Evidence {
	return Evidence{At: time.Since(r.start), Dir: "note", Note: fmt.Sprintf(format, args...)}
}

// run subscribes, drives the sessions and judges what was seen.
func (r *prun) run(ctx context.Context) error {
	yes := true
	mainCaps := protocol.Capabilities{}
	if r.o.Level >= 2 {
		mainCaps.SupportsConfirmationReply, mainCaps.SupportsClarificationReply = &yes, &yes
	}
	var err error
	// main first: a producer may settle at once a prompt nobody connected
	// can answer.
	if r.main, err = dialSub(ctx, r.ep, r.o.Transport, "main", request("main", mainCaps)); err != nil {
		return err
	}
	defer r.main.close(context.WithoutCancel(ctx))
	a, af := r.main.accepted(ctx)
	r.mainAccepted = a
	if r.obs, err = dialSub(ctx, r.ep, r.o.Transport, "observer", request("observer", protocol.Capabilities{})); err != nil {
		return err
	}
	defer r.obs.close(context.WithoutCancel(ctx))
	if r.o.Level >= 3 {
		if err := r.openL3(ctx, a, af); err != nil {
			return err
		}
		defer func() {
			for _, s := range []*psub{r.rate, r.filt, r.coal, r.reneg} {
				if s != nil {
					s.close(context.WithoutCancel(ctx))
				}
			}
		}()
	}
	if err := r.fire(ctx); err != nil {
		return err
	}
	if err := r.drive(ctx); err != nil {
		return err
	}
	// Let every subscription receive what was sent to it: the rate
	// limited one may still be catching up.
	var wg sync.WaitGroup
	for _, s := range []*psub{r.obs, r.rate, r.filt, r.coal, r.reneg} {
		if s != nil {
			wg.Add(1)
			// The observer must see the session the close settled end too.
			except := r.cut
			if s == r.obs {
				except = ""
			}
			go func() { defer wg.Done(); r.quiet(ctx, s, except, min(4*r.o.Quiet+2*grace, r.o.afterPlan())) }()
		}
	}
	wg.Wait()
	r.endAt = time.Now()
	r.judgeL1()
	if r.o.Level >= 2 {
		r.judgeL2()
	}
	if r.o.Level >= 3 {
		r.judgeL3(ctx)
	}
	return nil
}

// fire starts a session through the trigger, if there is one and it has
// not started too many.
func (r *prun) fire(ctx context.Context) error {
	if r.trig == nil || r.fired >= maxTriggers {
		return nil
	}
	r.fired++
	return r.trig.fire(ctx, r.o.Transport.SSE.HTTPClient)
}

// sessions returns the sessions of fs in the order they were first seen,
// and whether each has ended, invalid events included: they are judged
// by P1-envelope-schema, not waited out.
func sessions(fs []seen) (order []string, ended map[string]bool) {
	ended = map[string]bool{}
	for _, f := range fs {
		e := f.ev
		if e == nil {
			e = f.bad // an invalid event still says where its session is
		}
		if e == nil || e.SessionID == "" {
			continue
		}
		id := e.SessionID
		if _, ok := ended[id]; !ok {
			order = append(order, id)
			ended[id] = false
		}
		if e.IsTerminal() {
			ended[id] = true
		}
	}
	return order, ended
}

// allEnded reports whether fs holds a session and every one has ended.
func allEnded(fs []seen, except string) bool {
	order, ended := sessions(fs)
	if len(order) == 0 {
		return false
	}
	for _, id := range order {
		if !ended[id] && id != except {
			return false
		}
	}
	return true
}

// quiet waits until s received nothing for r.o.Quiet with every session
// ended (but except), or until limit.
func (r *prun) quiet(ctx context.Context, s *psub, except string, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		fs, ended := s.snapshot()
		if ended {
			return
		}
		n := len(fs)
		err := s.waitFor(ctx, r.o.Quiet, func(fs []seen) bool { return len(fs) > n })
		switch {
		case errors.Is(err, errTimedOut):
			if fs, _ := s.snapshot(); allEnded(fs, except) {
				return
			}
		case err != nil:
			return
		}
	}
}

// errClosedByTest is the cause of the main subscription's end at the close
// step.
var errClosedByTest = errors.New("conform: closed by the test")
