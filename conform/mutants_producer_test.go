package conform

// This file measures the producer catalogue the way test suites are
// measured: our producer, served behind a loopback proxy that breaks
// exactly one MUST of the spec in what it sends or takes (a mutant), is run
// through the suite, and each mutant must be caught by the test its rule
// belongs to; conforming variants (what the spec leaves optional, done
// another way) must pass every test.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// pmutant is one producer breaking one MUST (fails not empty), or a
// conforming variant that must pass (fails empty).
type pmutant struct {
	name string
	// fails are the tests that must fail; empty for a conforming variant.
	fails []string
	// notPass are tests that must not pass, whatever else does (a test
	// that cannot run is a skip, never a pass).
	notPass []string
	// skips are tests a conforming variant may skip.
	skips []string
	level Level // 0 means 2: the Level 3 subscriptions only where needed
	// event rewrites one event the producer emits, the first time any
	// stream carries it; every stream then carries the same result. It
	// returns the events to send in its place (none drops it).
	event func(x *mutation, e jsonObject) []jsonObject
	// reply rewrites a message the suite sends before the producer sees it.
	reply func(x *mutation, m jsonObject) jsonObject
	// silence, if not zero, accepts an irreversible confirmation on the
	// producer's own when no reply came within it.
	silence time.Duration
	// manifest, if not nil, is served at the well-known manifest path.
	manifest []byte
	opts     func(*producer.Options)
	run      func(*ProducerOptions)
	// check, if not nil, asks more of the report.
	check func(t *testing.T, got map[string]Result)
}

// jsonObject is an event or message as decoded, numbers kept as written.
type jsonObject = map[string]any

// mutantHold bounds how long the mutants' prompts are held unanswered:
// the hold lasts up to the prompt's own timeout, which in the target
// scenarios is 20 seconds.
const mutantHold = 2500 * time.Millisecond

// TestProducerMutants runs every mutant at once, each against a producer
// of its own, and judges each in a subtest: the runs spend their time
// waiting on the producers, so they are started together rather than
// gated by -parallel (two at a time on two cores).
func TestProducerMutants(t *testing.T) {
	t.Parallel()
	type outcome struct {
		rep  *Report
		err  error
		took time.Duration
	}
	mutants := producerMutants()
	done := make([]outcome, len(mutants))
	synctest.Test(t, func(t *testing.T) {
		var wg sync.WaitGroup
		for i := range mutants {
			m := &mutants[i]
			opts := producer.Options{Speed: 1, EndWhenDone: true}
			if m.opts != nil {
				m.opts(&opts)
			}
			po := ProducerOptions{Level: m.level, Fast: true, Hold: mutantHold}
			po.Endpoint, po.Transport.SSE.HTTPClient = serveMutation(t, m, opts)
			if po.Level == 0 {
				po.Level = 2
			}
			if m.run != nil {
				m.run(&po)
			}
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
				defer cancel()
				start := time.Now()
				rep, err := TestProducer(ctx, po)
				done[i] = outcome{rep, err, time.Since(start)}
			})
		}
		wg.Wait()
	})
	for i := range mutants {
		m := &mutants[i]
		t.Run(m.name, func(t *testing.T) {
			o := done[i]
			if o.err != nil {
				t.Fatal(o.err)
			}
			if o.rep == nil {
				t.Fatal("the run did not end")
			}
			t.Logf("the run took %v", o.took.Round(time.Millisecond))
			judgeMutant(t, m, o.rep)
		})
	}
}

// judgeMutant fails when a mutant is not caught where it should be, or a
// conforming variant is failed.
func judgeMutant(t *testing.T, m *pmutant, rep *Report) {
	t.Helper()
	got := map[string]Result{}
	for _, r := range rep.Results {
		got[r.ID] = r
	}
	for _, id := range m.fails {
		r, ok := got[id]
		switch {
		case !ok:
			t.Errorf("%s: not in the report", id)
		case r.Status != Fail:
			t.Errorf("MISSED: %s: %s (%s), want fail", id, r.Status, r.Detail)
		default:
			t.Logf("caught by %s: %s", id, r.Detail)
		}
	}
	if m.check != nil {
		m.check(t, got)
	}
	for _, id := range m.notPass {
		if r := got[id]; r.Status == Pass {
			t.Errorf("%s passed, though it could not be tested: %s", id, r.Detail)
		}
	}
	if len(m.fails) > 0 || len(m.notPass) > 0 {
		return
	}
	for _, r := range rep.Results {
		if slices.Contains(m.notPass, r.ID) {
			continue
		}
		if r.Status == Fail || (r.Status == Skip && !slices.Contains(m.skips, r.ID)) {
			t.Errorf("a conforming variant got %s %s: %s", r.Status, r.ID, r.Detail)
			for _, e := range r.Evidence {
				t.Logf("    %v %s %s %s", e.At, e.Dir, e.Note, e.Frame)
			}
		}
	}
}

// mutation is a proxy in front of our producer that applies one mutant.
type mutation struct {
	m    *pmutant
	up   *url.URL
	upc  *http.Client // reaches up
	done chan struct{}

	mu      sync.Mutex
	out     map[string][][]byte // the mutated output of each event_id
	last    map[string]jsonObject
	state   map[string]string   // per session: a state the mutant keeps
	waiting map[string]string   // session → reply token of a prompt waiting
	cut     map[string]bool     // sessions whose prompt waited when main closed
	replied map[string]bool     // reply tokens the suite answered
	choices map[string][]string // reply token → the values a clarification offers
	mainSub string              // the first subscription that may answer
}

// serveMutation serves our producer with opts behind the proxy of m, both
// on memNets in the calling test's bubble, and returns the proxy's URL and
// the client that reaches it.
func serveMutation(t *testing.T, m *pmutant, opts producer.Options) (string, *http.Client) {
	t.Helper()
	up, upc := serveMem(t, opts)
	x := newMutation(t, m, up, upc)
	url, client := serveHandlerMem(t, x)
	t.Cleanup(func() { close(x.done) })
	return url, client
}

// newMutation makes the proxy of m in front of upstream, which client
// reaches.
func newMutation(t *testing.T, m *pmutant, upstream string, client *http.Client) *mutation {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	x := &mutation{m: m, up: u, upc: client, done: make(chan struct{}),
		out: map[string][][]byte{}, last: map[string]jsonObject{}, state: map[string]string{},
		waiting: map[string]string{}, cut: map[string]bool{}, replied: map[string]bool{}, choices: map[string][]string{}}
	return x
}

func (x *mutation) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == protocol.PathManifest && x.m.manifest != nil:
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write(x.m.manifest)
		return
	case r.Method == http.MethodPost && (r.URL.Path == protocol.PathReplies || r.URL.Path == protocol.PathLegacyReplies):
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = x.takeReply(body)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	}
	x.forward(w, r)
}

// forward passes r on to our producer and its answer back, through
// response, writing each read of the body as it comes. (Not
// httputil.ReverseProxy: for an event stream it starts a timer of -1, and
// Go 1.26's race detector crashed, 1 run in 5 under load, on such a timer
// in a synctest bubble: a SIGSEGV in its SlotLock.)
func (x *mutation) forward(w http.ResponseWriter, r *http.Request) {
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host, out.RequestURI = x.up.Scheme, x.up.Host, ""
	resp, err := x.upc.Transport.RoundTrip(out)
	if err == nil {
		if err = x.response(resp); err != nil {
			resp.Body.Close()
		}
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	maps.Copy(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			_ = rc.Flush()
		}
		if err != nil {
			return
		}
	}
}

// response notes the main subscription and mutates event streams.
func (x *mutation) response(resp *http.Response) error {
	if resp.Request.URL.Path == protocol.PathSubscriptions {
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		var a protocol.SubscriptionAccepted
		if json.Unmarshal(body, &a) == nil && isTrue(a.HonoredCapabilities.SupportsConfirmationReply) {
			x.mu.Lock()
			if x.mainSub == "" {
				x.mainSub = a.SubscriptionID
			}
			x.mu.Unlock()
		}
		return nil
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = x.stream(resp.Body)
	}
	return nil
}

// stream rewrites the events of one SSE stream.
func (x *mutation) stream(body io.ReadCloser) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		rd := bufio.NewReader(body)
		var block []string
		for {
			line, err := rd.ReadString('\n')
			if strings.TrimRight(line, "\r\n") == "" && line != "" {
				if _, werr := pw.Write(x.block(block)); werr != nil {
					body.Close()
					return
				}
				block = block[:0]
			} else if line != "" {
				block = append(block, strings.TrimRight(line, "\r\n"))
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return struct {
		io.Reader
		io.Closer
	}{pr, closer(func() error { pr.Close(); return body.Close() })}
}

type closer func() error

func (c closer) Close() error { return c() }

// block rewrites one SSE block.
func (x *mutation) block(lines []string) []byte {
	var data []string
	named := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(l, "data:"), " "))
		case strings.HasPrefix(l, "event:"):
			named = true
		}
	}
	if data == nil {
		return []byte(strings.Join(lines, "\n") + "\n\n")
	}
	var b bytes.Buffer
	for _, ev := range x.transform([]byte(strings.Join(data, "\n"))) {
		if named {
			b.WriteString("event: aaep.event\n")
		}
		var head struct {
			ID string `json:"event_id"`
		}
		if json.Unmarshal(ev, &head) == nil && head.ID != "" {
			b.WriteString("id: " + head.ID + "\n")
		}
		b.WriteString("data: ")
		b.Write(ev)
		b.WriteString("\n\n")
	}
	return b.Bytes()
}

// transform mutates one event, once for every stream.
func (x *mutation) transform(data []byte) [][]byte {
	e, ok := decodeObject(data)
	if !ok {
		return [][]byte{data}
	}
	id, _ := e["event_id"].(string)
	x.mu.Lock()
	defer x.mu.Unlock()
	if out, ok := x.out[id]; ok && id != "" {
		return out
	}
	x.observe(e)
	if sess, ok := e["session_id"].(string); ok {
		defer func() { x.last[sess] = e }()
	}
	if x.m.event == nil {
		x.out[id] = [][]byte{data}
		return x.out[id]
	}
	evs := x.m.event(x, e)
	var out [][]byte
	for _, ev := range evs {
		b, err := json.Marshal(ev)
		if err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	x.out[id] = out
	return out
}

func decodeObject(b []byte) (jsonObject, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m jsonObject
	if dec.Decode(&m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// observe keeps track of prompts as the producer emits them. x.mu is held.
func (x *mutation) observe(e jsonObject) {
	typ := typeOf(e)
	sess, token := strOf(e, "session_id"), strOf(e, "reply_token")
	switch typ {
	case protocol.TypeAwaitingConfirmation, protocol.TypeAwaitingClarify:
		x.waiting[sess] = token
		if cs, ok := e["choices"].([]any); ok {
			for _, c := range cs {
				if c, ok := c.(map[string]any); ok {
					x.choices[token] = append(x.choices[token], fmt.Sprint(c["value"]))
				}
			}
		}
		if x.m.silence > 0 && typ == protocol.TypeAwaitingConfirmation && e["irreversible"] == true {
			go x.actAlone(token)
		}
	default:
		delete(x.waiting, sess)
	}
}

// actAlone accepts the confirmation of token itself when the suite has not
// answered it within the mutant's silence.
func (x *mutation) actAlone(token string) {
	select {
	case <-time.After(x.m.silence):
	case <-x.done:
		return
	}
	x.mu.Lock()
	answered, sub := x.replied[token], x.mainSub
	x.mu.Unlock()
	if answered {
		return
	}
	b, _ := json.Marshal(jsonObject{"type": protocol.TypeConfirmationReply, "reply_token": token, "decision": "accept",
		"subscription_id": sub, "timestamp": time.Now().UTC().Format("2006-01-02T15:04:05.000Z")})
	u := *x.up
	u.Path = protocol.PathReplies
	resp, err := x.upc.Post(u.String(), "application/json", bytes.NewReader(b))
	if err == nil {
		resp.Body.Close()
	}
}

// first reports whether this is the first time what is asked about. x.mu
// is held.
func (x *mutation) first(what string) bool {
	if x.state["first:"+what] != "" {
		return false
	}
	x.state["first:"+what] = "done"
	return true
}

// takeReply notes a message of the suite and lets the mutant rewrite it.
func (x *mutation) takeReply(body []byte) []byte {
	m, ok := decodeObject(body)
	if !ok {
		return body
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	switch strOf(m, "type") {
	case protocol.TypeSubscriptionClose:
		if strOf(m, "subscription_id") == x.mainSub {
			for s := range x.waiting {
				x.cut[s] = true
			}
		}
	case protocol.TypeConfirmationReply, protocol.TypeClarificationReply:
		x.replied[strOf(m, "reply_token")] = true
	}
	if x.m.reply == nil {
		return body
	}
	b, err := json.Marshal(x.m.reply(x, m))
	if err != nil {
		panic(err)
	}
	return b
}

func strOf(m jsonObject, k string) string {
	s, _ := m[k].(string)
	return s
}

// typeOf returns e's type in the compact form.
func typeOf(e jsonObject) string {
	return protocol.NormalizeType(protocol.ExpandType(strOf(e, "type")))
}

// is reports whether e is of type typ.
func is(e jsonObject, typ string) bool { return typeOf(e) == typ }

// stamp shifts e's timestamp by d.
func stamp(e jsonObject, d time.Duration) {
	at, err := time.Parse(time.RFC3339Nano, strOf(e, "timestamp"))
	if err == nil {
		e["timestamp"] = at.Add(d).UTC().Format("2006-01-02T15:04:05.000Z")
	}
}

// only returns an event mutation that changes the events typ with f.
func only(typ string, f func(x *mutation, e jsonObject)) func(*mutation, jsonObject) []jsonObject {
	return func(x *mutation, e jsonObject) []jsonObject {
		if is(e, typ) {
			f(x, e)
		}
		return []jsonObject{e}
	}
}

// copyOf returns a deep copy of e.
func copyOf(e jsonObject) jsonObject {
	b, _ := json.Marshal(e)
	c, _ := decodeObject(b)
	return c
}

// producerMutants are the mutants and conforming variants.
func producerMutants() []pmutant {
	seq := func(e jsonObject) int64 {
		n, _ := e["sequence_number"].(json.Number).Int64()
		return n
	}
	return []pmutant{
		// Level 1: lifecycle, envelope, order.
		{name: "no-session-started", fails: []string{PLifecycle}, event: func(x *mutation, e jsonObject) []jsonObject {
			if is(e, protocol.TypeSessionStarted) && x.first("started") {
				return nil
			}
			return []jsonObject{e}
		}},
		{name: "two-terminal-events", fails: []string{POneTerminal}, event: func(x *mutation, e jsonObject) []jsonObject {
			if is(e, protocol.TypeSessionCompleted) && x.first("completed") {
				c := copyOf(e)
				c["type"], c["event_id"] = protocol.TypeSessionCancelled, strOf(e, "event_id")+"x"
				c["cancelled_by"] = "system"
				delete(c, "tool_invocations_count")
				if n, ok := e["sequence_number"].(json.Number); ok {
					v, _ := n.Int64()
					c["sequence_number"] = v + 1
				}
				return []jsonObject{e, c}
			}
			return []jsonObject{e}
		}},
		{name: "no-terminal-event", fails: []string{POneTerminal}, event: func(x *mutation, e jsonObject) []jsonObject {
			if is(e, protocol.TypeSessionCompleted) && x.first("completed") {
				return nil
			}
			return []jsonObject{e}
		}},
		{name: "state-not-from-idle", fails: []string{PStateChanges}, event: only(protocol.TypeStateChanged, func(_ *mutation, e jsonObject) {
			if strOf(e, "from_state") == "idle" {
				e["from_state"] = "thinking"
			}
		})},
		{name: "state-chain-broken", fails: []string{PStateChanges}, event: only(protocol.TypeStateChanged, func(_ *mutation, e jsonObject) {
			if strOf(e, "from_state") == "calling_tool" && strOf(e, "to_state") == "awaiting_input" {
				e["from_state"] = "thinking"
			}
		})},
		{name: "skips-calling-tool", fails: []string{PStateChanges}, event: func(x *mutation, e jsonObject) []jsonObject {
			sess := strOf(e, "session_id")
			if !is(e, protocol.TypeStateChanged) {
				return []jsonObject{e}
			}
			if strOf(e, "to_state") == "calling_tool" {
				x.state[sess] = strOf(e, "from_state")
				return nil
			}
			if strOf(e, "from_state") == "calling_tool" && x.state[sess] != "" {
				e["from_state"] = x.state[sess]
			}
			return []jsonObject{e}
		}},
		{name: "tool-never-completed", fails: []string{PToolBracketing}, event: func(x *mutation, e jsonObject) []jsonObject {
			if is(e, protocol.TypeToolCompleted) && x.first("tool") {
				return nil
			}
			return []jsonObject{e}
		}},
		{name: "no-context", fails: []string{PEnvelopeSchema}, event: only(protocol.TypeProgressUpdated, func(_ *mutation, e jsonObject) {
			delete(e, "@context")
		})},
		{name: "no-summary-normal", fails: []string{PSummaryNormal}, event: only(protocol.TypeToolInvoked, func(_ *mutation, e jsonObject) {
			delete(e, "summary_normal")
		})},
		{name: "event-id-reused", fails: []string{PEnvelopeRules}, event: only(protocol.TypeProgressUpdated, func(x *mutation, e jsonObject) {
			if prev := x.last[strOf(e, "session_id")]; prev != nil {
				e["event_id"] = prev["event_id"]
			}
		})},
		{name: "sequence-backwards", fails: []string{PEnvelopeRules}, event: only(protocol.TypeProgressUpdated, func(_ *mutation, e jsonObject) {
			e["sequence_number"] = seq(e) - 2
		})},
		{name: "sequence-from-one", fails: []string{PEnvelopeRules}, event: func(_ *mutation, e jsonObject) []jsonObject {
			e["sequence_number"] = seq(e) + 1
			return []jsonObject{e}
		}},
		{name: "sequence-mixed", fails: []string{PEnvelopeRules}, event: only(protocol.TypeProgressUpdated, func(_ *mutation, e jsonObject) {
			delete(e, "sequence_number")
		})},
		{name: "timestamp-backwards", fails: []string{PEnvelopeRules}, event: only(protocol.TypeProgressUpdated, func(_ *mutation, e jsonObject) {
			stamp(e, -10*time.Second)
		})},
		{name: "timestamp-future", fails: []string{PEnvelopeRules}, event: only(protocol.TypeToolCompleted, func(_ *mutation, e jsonObject) {
			stamp(e, time.Hour)
		})},
		{name: "timestamp-nine-digits", fails: []string{PEnvelopeRules}, event: only(protocol.TypeProgressUpdated, func(_ *mutation, e jsonObject) {
			e["timestamp"] = strings.Replace(strOf(e, "timestamp"), "Z", "123456Z", 1)
		})},
		{name: "aaep-version-unpublished", fails: []string{PEnvelopeRules}, event: only(protocol.TypeProgressUpdated, func(_ *mutation, e jsonObject) {
			e["aaep_version"] = "1.7.0"
		})},
		{name: "no-valid-event", fails: []string{PLifecycle, PEnvelopeSchema}, event: func(_ *mutation, e jsonObject) []jsonObject {
			delete(e, "@context")
			return []jsonObject{e}
		}, check: func(t *testing.T, got map[string]Result) {
			if d := got[PLifecycle].Detail; !strings.Contains(d, "dropped as invalid") {
				t.Errorf("%s does not say what was seen and dropped: %s", PLifecycle, d)
			}
		}},
		// Level 2: prompts.
		{name: "invalid-prompts", fails: []string{PEnvelopeSchema}, event: func(_ *mutation, e jsonObject) []jsonObject {
			if is(e, protocol.TypeAwaitingConfirmation) || is(e, protocol.TypeAwaitingClarify) {
				e["asked_by"] = "nobody" // a member the type does not define
			}
			return []jsonObject{e}
		}, check: func(t *testing.T, got map[string]Result) {
			// Invalid prompts are driven all the same, not waited out.
			for _, id := range []string{PAcceptProceeds, PRejectPrevents, PTimeoutDefault} {
				if got[id].Status != Pass {
					t.Errorf("%s: %s (%s), want pass: an invalid prompt is still answered", id, got[id].Status, got[id].Detail)
				}
			}
			if d := got[PEnvelopeSchema].Detail; !strings.Contains(d, "awaiting") {
				t.Errorf("%s does not name the event: %s", PEnvelopeSchema, d)
			}
		}},
		{name: "acts-after-silence", fails: []string{PConfirmBlocks}, silence: 1500 * time.Millisecond},
		{name: "accept-default-high-risk", fails: []string{PSafeDefault}, event: only(protocol.TypeAwaitingConfirmation, func(_ *mutation, e jsonObject) {
			if strOf(e, "risk_level") == "high" && e["irreversible"] == true && fmt.Sprint(e["timeout_seconds"]) != "1" { // the prompt left to time out keeps its default
				e["default_decision"] = "accept"
			}
		}), check: func(t *testing.T, got map[string]Result) {
			// A Level 2 rule: reported there, not as a Level 1 schema failure.
			if r := got[PEnvelopeSchema]; r.Status != Pass {
				t.Errorf("%s: %s (%s), want pass: the default is a Level 2 rule", r.ID, r.Status, r.Detail)
			}
		}},
		{name: "answer-outside-choices", fails: []string{PWrongKind}, reply: func(x *mutation, m jsonObject) jsonObject {
			if cs := x.choices[strOf(m, "reply_token")]; len(cs) > 0 && strOf(m, "type") == protocol.TypeClarificationReply {
				if s, ok := m["response"].(string); ok && !slices.Contains(cs, s) {
					m["response"] = cs[0]
				}
			}
			return m
		}},
		// Level 3: terms.
		{name: "never-ends-after-close", level: 3, fails: []string{POneTerminal}, event: func(x *mutation, e jsonObject) []jsonObject {
			if x.cut[strOf(e, "session_id")] && (is(e, protocol.TypeSessionCompleted) || is(e, protocol.TypeSessionErrored) || is(e, protocol.TypeSessionCancelled)) {
				return nil
			}
			return []jsonObject{e}
		}},
		{name: "language-not-granted", level: 3, fails: []string{PLanguage}, event: func(_ *mutation, e jsonObject) []jsonObject {
			if h, ok := e["localization_hints"].(map[string]any); ok {
				h["primary_language"] = "fr-FR"
			}
			return []jsonObject{e}
		}},
		{name: "manifest-html", level: 3, fails: []string{PManifest},
			manifest: []byte("<!doctype html><html><head><title>docs.example.org</title></head><body>Manifest moved.</body></html>\n")},
		// Conforming variants.
		{name: "no-tool-call-id", event: func(_ *mutation, e jsonObject) []jsonObject {
			delete(e, "tool_call_id")
			return []jsonObject{e}
		}},
		{name: "no-sequence-numbers", event: func(_ *mutation, e jsonObject) []jsonObject {
			delete(e, "sequence_number")
			return []jsonObject{e}
		}},
		{name: "microsecond-timestamps", event: func(_ *mutation, e jsonObject) []jsonObject {
			e["timestamp"] = strings.Replace(strOf(e, "timestamp"), "Z", "250Z", 1)
			return []jsonObject{e}
		}},
		{name: "full-uri-types", event: func(_ *mutation, e jsonObject) []jsonObject {
			e["type"] = "https://aaep-protocol.org/types/" + strings.TrimPrefix(typeOf(e), "aaep:")
			return []jsonObject{e}
		}},
		// The deployed layout has no handshake: what needs one cannot pass.
		{name: "no-handshake", level: 3, notPass: []string{PCloseDefault, PHonoredSubset, PAnswerShape},
			run: func(o *ProducerOptions) { o.Transport.SSE.Layout = transport.LayoutLegacy }},
	}
}

// TestProducerHoldsToTimeout: with the default hold (in fast mode, up to 5
// seconds of the target's 20-second prompt), a producer that goes ahead on
// its own after 1.5 seconds of silence is caught.
func TestProducerHoldsToTimeout(t *testing.T) {
	t.Parallel()
	m := &pmutant{name: "acts-after-silence", silence: 1500 * time.Millisecond}
	var rep *Report
	synctest.Test(t, func(t *testing.T) {
		o := ProducerOptions{Level: 2, Fast: true, Quiet: time.Second}
		o.Endpoint, o.Transport.SSE.HTTPClient = serveMutation(t, m, producer.Options{Speed: 1, EndWhenDone: true})
		rep = runWith(t, o)
	})
	if rep == nil {
		t.FailNow()
	}
	for _, r := range rep.Results {
		if r.ID == PConfirmBlocks {
			if r.Status != Fail {
				t.Fatalf("%s: %s (%s), want fail", r.ID, r.Status, r.Detail)
			}
			t.Logf("%s: %s", r.ID, r.Detail)
		}
	}
}
