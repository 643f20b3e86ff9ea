package conform

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// mutant is a small subscriber of the HTTP binding, run by the test
// binary itself (runFake) or in the suite's process (inProcess), that reads the lines aaep-listen reads and
// announces events one line each. Its mode is either a conforming
// variant, or a mutant breaking exactly one MUST of the spec.
type mutant struct {
	endpoint, mode string
	sub            string // the subscription ID; "" without a handshake
	client         *http.Client
	out            io.Writer     // its standard output
	crash          func()        // ends it at once, as exit status 3
	done           chan struct{} // closed when it has ended

	mu      sync.Mutex
	prompts []map[string]json.RawMessage // in the order they came: prompt n is prompts[n-1]
	seen    map[string]bool              // event IDs announced
	next    map[string]int64             // per session, the sequence_number expected next
	held    map[string]map[int64]map[string]json.RawMessage
	queue   chan string // the announcements waiting, in the mode "paced"
}

// The fields of an event the mutant reads.
func field(ev map[string]json.RawMessage, name string) string {
	s, _ := str(ev, name)
	return s
}

func (m *mutant) post(path string, v any) (map[string]json.RawMessage, error) {
	b, _ := json.Marshal(v)
	resp, err := m.client.Post(m.endpoint+path, "application/json", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var a map[string]json.RawMessage
	json.NewDecoder(resp.Body).Decode(&a) //nolint:errcheck // nil
	return a, nil
}

// fakeSubscriber runs the mutant of mode against endpoint until its
// standard input ends.
func fakeSubscriber(endpoint, mode string) error {
	return runMutant(context.Background(), endpoint, mode, http.DefaultClient, os.Stdin, os.Stdout, func() { os.Exit(3) })
}

// errCrashed is how a mutant run in the suite's process ends when its
// process would have exited with status 3.
var errCrashed = errors.New("exit status 3")

// inProcess runs the mutant of mode in the suite's process
// (SubscriberOptions.run), reaching the suite with client.
func inProcess(mode string, client *http.Client) func(context.Context, string, io.Reader, io.Writer) error {
	return func(ctx context.Context, endpoint string, stdin io.Reader, stdout io.Writer) error {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		crash := func() {
			cancel(errCrashed)
			if c, ok := stdin.(io.Closer); ok {
				c.Close()
			}
		}
		err := runMutant(ctx, endpoint, mode, client, stdin, stdout, crash)
		if ctx.Err() != nil {
			return context.Cause(ctx) // ended as a process would be: no close sent
		}
		return err
	}
}

// runMutant runs the mutant of mode against endpoint until stdin ends or
// ctx does, reaching it with client and announcing on stdout; crash ends
// it at once.
func runMutant(ctx context.Context, endpoint, mode string, client *http.Client, stdin io.Reader, stdout io.Writer, crash func()) error {
	m := &mutant{endpoint: endpoint, mode: mode, client: client, out: stdout, crash: crash, done: make(chan struct{}),
		seen: map[string]bool{}, next: map[string]int64{}, held: map[string]map[int64]map[string]json.RawMessage{}}
	defer close(m.done)
	if mode != "l1-bare" && mode != "bare" {
		caps := map[string]any{"supports_confirmation_reply": mode != "mute", "supports_clarification_reply": mode != "mute", "max_events_per_second": 100}
		if mode == "filters" || mode == "filter-critical" {
			caps["event_filters"] = map[string]any{"include": []string{"aaep:agent.*", "conformprobe:*"}, "exclude": []string{protocol.TypeSessionErrored}}
		}
		req := map[string]any{"type": protocol.TypeSubscriptionRequest, "aaep_version": "1.0.0", "subscriber_id": "mutant-" + mode, "capabilities": caps}
		switch mode {
		case "no-caps":
			delete(req, "capabilities")
		case "no-subscriber-id":
			delete(req, "subscriber_id")
		}
		acc, err := m.post(protocol.PathSubscriptions, req)
		if err != nil {
			return err
		}
		m.sub = field(acc, "subscription_id")
	}
	if mode == "storm" || mode == "flood" {
		n := 3
		if mode == "flood" {
			n = maxHeard + 200
		}
		for range n {
			m.post(protocol.PathReplies, map[string]any{"type": protocol.TypeSubscriptionRenegotiate, "subscription_id": m.sub, //nolint:errcheck // a storm
				"capabilities": map[string]any{"max_events_per_second": 10}})
		}
	}
	go m.stream()
	in := bufio.NewScanner(stdin)
	for in.Scan() {
		m.typed(strings.Fields(in.Text()))
	}
	if ctx.Err() != nil || m.sub == "" || mode == "noclose" {
		return nil
	}
	sub := m.sub
	if mode == "close-wrong-sub" {
		sub = "sub_someone_else"
	}
	_, err := m.post(protocol.PathReplies, map[string]any{"type": protocol.TypeSubscriptionClose, "subscription_id": sub})
	return err
}

// stream reads the event stream, reconnecting only when the mode says.
func (m *mutant) stream() {
	last := ""
	for {
		url := m.endpoint + protocol.PathEvents
		if m.sub != "" {
			url += "?subscription_id=" + m.sub
		}
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		resp, err := m.client.Do(req)
		if err != nil {
			return
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, maxMessage)
		reconnect := false
		for sc.Scan() && !reconnect {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var ev map[string]json.RawMessage
			if json.Unmarshal([]byte(data), &ev) != nil {
				continue
			}
			last = field(ev, "event_id")
			unknown := !slices.Contains(protocol.CoreTypes, protocol.NormalizeType(field(ev, "type")))
			if unknown && m.mode == "crash-unknown" {
				resp.Body.Close()
				m.crash()
				return
			}
			reconnect = unknown && m.mode == "unknown"
			m.receive(ev)
		}
		resp.Body.Close()
		if !reconnect {
			return
		}
	}
}

// timestampOK holds the two precisions §3.2.5 allows.
var timestampOK = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}|\.\d{6})?(Z|[+-]\d\d:\d\d)$`)

// receive dedupes, reorders and announces one event.
func (m *mutant) receive(ev map[string]json.RawMessage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id, session, typ := field(ev, "event_id"), field(ev, "session_id"), protocol.NormalizeType(field(ev, "type"))
	if m.mode == "strict" { // validates the envelope, and drops what breaks it
		var seq int64 = -1
		json.Unmarshal(ev["sequence_number"], &seq) //nolint:errcheck // absent
		if !timestampOK.MatchString(field(ev, "timestamp")) || (typ == protocol.TypeSessionStarted && seq != 0) {
			fmt.Fprintf(m.out, "invalid event dropped: %s\n", id)
			return
		}
	}
	if m.seen[id] && m.mode != "no-dedupe" {
		return
	}
	m.seen[id] = true
	critical := field(ev, "urgency") == "critical" || protocol.CriticalType(typ)
	var seq int64
	if json.Unmarshal(ev["sequence_number"], &seq) != nil || m.mode == "no-reorder" {
		m.announce(ev)
		return
	}
	if m.held[session] == nil {
		m.held[session] = map[int64]map[string]json.RawMessage{}
	}
	if critical { // never held back: announced now, and counted in its place
		m.announce(ev)
		ev = nil
	}
	want, known := m.next[session]
	if known && seq > want { // held until the ones before it come
		m.held[session][seq] = ev
		return
	}
	if ev != nil {
		m.announce(ev)
	}
	m.next[session] = seq + 1
	for {
		h, ok := m.held[session][m.next[session]]
		if !ok {
			return
		}
		delete(m.held[session], m.next[session])
		if h != nil {
			m.announce(h)
		}
		m.next[session]++
	}
}

// announce writes one line for an event, as the mode says.
func (m *mutant) announce(ev map[string]json.RawMessage) {
	typ := protocol.NormalizeType(field(ev, "type"))
	critical := field(ev, "urgency") == "critical" || protocol.CriticalType(typ)
	switch {
	case critical && m.mode == "no-critical",
		typ == protocol.TypeSessionErrored && m.mode == "filter-critical",
		typ == protocol.TypeSessionStarted && m.mode == "no-started",
		typ == protocol.TypeToolInvoked && m.mode == "no-tool",
		!slices.Contains(protocol.CoreTypes, typ) && m.mode == "silent-unknown":
		return
	}
	word := map[string]string{protocol.TypeSessionCompleted: "Done", protocol.TypeSessionErrored: "Failed", protocol.TypeSessionCancelled: "Cancelled"}[typ]
	if word != "" && m.mode == "same-ending" {
		word = "Ended"
	}
	if word == "" {
		word = "Event"
	}
	if critical {
		word = "URGENT " + word
	}
	m.say(fmt.Sprintf("%s: %s", word, field(ev, "summary_normal")))
	if field(ev, "reply_token") == "" {
		return
	}
	m.prompts = append(m.prompts, ev)
	switch m.mode {
	case "auto-now":
		go m.reply(ev, protocol.DecisionReject, "")
	case "auto-late":
		go func() {
			time.Sleep(1500 * time.Millisecond) // the fault: an answer on its own, after a while
			m.reply(ev, protocol.DecisionAccept, "")
		}()
	}
}

// say writes one announcement: at once, or in the mode "paced" through a
// queue that speaks one line each 60 ms, critical ones included (3 s
// behind the burst of 50 background events).
func (m *mutant) say(line string) {
	if m.mode != "paced" {
		fmt.Fprintln(m.out, line)
		return
	}
	if m.queue == nil {
		m.queue = make(chan string, 1000)
		go func() {
			for {
				select {
				case l := <-m.queue:
					fmt.Fprintln(m.out, l)
					time.Sleep(60 * time.Millisecond) // the fault: a pace critical events wait behind
				case <-m.done:
					return
				}
			}
		}()
	}
	m.queue <- line
}

// typed carries out one line the user typed: accept n, reject n,
// answer n text, set ….
func (m *mutant) typed(f []string) {
	if len(f) < 2 {
		return
	}
	if f[0] == "set" {
		if m.mode != "silent-reneg" {
			m.post(protocol.PathReplies, map[string]any{"type": protocol.TypeSubscriptionRenegotiate, "subscription_id": m.sub, //nolint:errcheck // judged by the suite
				"capabilities": map[string]any{"max_events_per_second": 2}})
		}
		return
	}
	n, _ := strconv.Atoi(f[1])
	m.mu.Lock()
	var ev map[string]json.RawMessage
	if n >= 1 && n <= len(m.prompts) {
		ev = m.prompts[n-1]
	}
	m.mu.Unlock()
	if ev == nil || m.mode == "no-reply" {
		return
	}
	decision := f[0]
	switch m.mode {
	case "override":
		decision = protocol.DecisionReject
	case "always-accept":
		decision = protocol.DecisionAccept
	}
	text := strings.Join(f[2:], " ")
	switch m.mode {
	case "kind":
		text = "purple"
	case "default-choice":
		text = field(ev, "default_response")
	case "first-word":
		if len(f) > 2 {
			text = f[2]
		}
	}
	m.reply(ev, decision, text)
}

// reply answers the prompt ev: a confirmation with decision, a question
// with text.
func (m *mutant) reply(ev map[string]json.RawMessage, decision, text string) {
	tok, sub := field(ev, "reply_token"), m.sub
	switch m.mode {
	case "token":
		tok = strings.ToUpper(tok)
	case "wrong-sub":
		sub = "sub_someone_else"
	}
	r := map[string]any{"type": protocol.TypeConfirmationReply, "reply_token": tok, "decision": decision,
		"subscription_id": sub, "timestamp": time.Now().UTC().Format(timestampLayout)}
	if protocol.NormalizeType(field(ev, "type")) == protocol.TypeAwaitingClarify || m.mode == "conf-as-clar" {
		delete(r, "decision")
		r["type"], r["response"] = protocol.TypeClarificationReply, text
	}
	m.post(protocol.PathReplies, r) //nolint:errcheck // judged by the suite
}

// The subscriber mutants, each breaking one MUST, and the conforming
// variants, run through the suite at once: each mutant fails the test of
// its MUST and is claimed no level above the one below that test's (a
// Level 2 fault leaves a Level 1 claim standing); each conforming variant
// passes every test of its level.
func TestSubscriberMutants(t *testing.T) {
	t.Parallel()
	type row struct {
		mode  string
		level Level  // the level tested
		fails string // the test the mutant must fail; "" for a conforming variant
		claim Level  // the level it is conformant at
	}
	rows := []row{
		{"honest", 3, "", 3},
		{"l1-bare", 1, "", 1}, // Level 1 without a handshake (§9.3.3)
		{"strict", 3, "", 3},  // drops events whose envelope breaks §3.2.5 or §3.4.1
		{"filters", 3, "", 3}, // excludes session.errored, announces it all the same
		{"token", 3, idSubTokenEcho, 1},
		{"wrong-sub", 3, idSubTokenEcho, 1},
		{"kind", 3, idSubReplyKind, 1},
		{"conf-as-clar", 3, idSubReplyKind, 1},
		{"override", 3, idSubAsTyped, 1},
		{"always-accept", 3, idSubAsTyped, 1},
		{"default-choice", 3, idSubAsTyped, 1},
		{"no-reply", 3, idSubAsTyped, 1},
		{"first-word", 3, idSubAsTyped, 1}, // answers a question with the first word typed
		{"mute", 3, idSubDeclares, 1},
		{"auto-late", 3, idSubNoAuto, 1},
		{"auto-now", 3, idSubNoAuto, 1},
		{"bare", 3, idSubDeclares, 1},
		{"no-critical", 3, idSubCritical, 0},
		{"filter-critical", 3, idSubCritical, 0},
		{"no-started", 3, idSubAnnounces, 0},
		{"no-tool", 3, idSubAnnounces, 0},
		{"same-ending", 3, idSubTerminals, 0},
		{"unknown", 3, idSubUnknown, 0},
		{"crash-unknown", 3, idSubUnknown, 0},
		{"silent-unknown", 3, idSubUnknown, 0},
		{"storm", 3, idSubLowerTerms, 2},
		{"noclose", 3, idSubClose, 2},
		{"close-wrong-sub", 3, idSubClose, 2},
		{"silent-reneg", 3, idSubRenegotiate, 2},
		{"no-caps", 3, idSubDeclares, 1},
		{"no-subscriber-id", 3, idSubHandshake, 2},
		{"no-dedupe", 3, idSubDedupe, 2},
		{"no-reorder", 3, idSubOrder, 2},
		{"paced", 3, idSubPressure, 2},
	}
	// Each mutant runs in this process, on a network in memory, all of
	// them together in a synctest bubble: the windows and patience the
	// suite waits out pass on the bubble's clock. TestStagePassesCheck runs
	// the fake as a process of its own, as --exec does.
	reports := make([]*Report, len(rows))
	errs := make([]error, len(rows))
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		var wg sync.WaitGroup
		for i, r := range rows {
			o := SubscriberOptions{Level: r.level, Window: 2 * time.Second, Patience: 5 * time.Second}
			o.listener, o.run = memSubscriber(t, r.mode)
			wg.Go(func() { reports[i], errs[i] = TestSubscriber(ctx, o) })
		}
		wg.Wait()
	})
	for i, r := range rows {
		if errs[i] == nil {
			t.Logf("%s: %v", r.mode, reports[i].Finished.Sub(reports[i].Started).Round(100*time.Millisecond))
		}
	}
	mutants := 0
	for i, r := range rows {
		if r.fails != "" {
			mutants++
		}
		t.Run(r.mode, func(t *testing.T) {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			rep := reports[i]
			failed := map[string]string{}
			for _, res := range rep.Results {
				if res.Status != Pass {
					failed[res.ID] = fmt.Sprintf("%s: %s", res.Status, res.Detail)
				}
			}
			if r.fails == "" && len(failed) > 0 {
				t.Errorf("a conforming subscriber is failed: %v", failed)
			}
			if r.fails != "" {
				if _, ok := failed[r.fails]; !ok {
					t.Errorf("the mutant passes %s: %v", r.fails, failed)
				}
				if rep.Conforming() {
					t.Errorf("the mutant gets a claim: %q", rep.Claim())
				}
			}
			if got := rep.ConformingLevel(); got != r.claim {
				t.Errorf("conformant at Level %d, want %d: %v", got, r.claim, failed)
			}
		})
	}
	if mutants < 20 {
		t.Errorf("%d mutants, want at least 20", mutants)
	}
}
