package conform

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// fakeEnv names the fault the test binary, run as a subscriber, commits.
const fakeEnv = "AAEP_CONFORM_FAKE_SUBSCRIBER"

// fakeCommand is the --exec line that runs the test binary as a subscriber
// committing fault mode; the mode goes in its environment through env(1),
// not through this process's, so the tests using it may run in parallel.
func fakeCommand(mode string) string {
	return "env " + fakeEnv + "=" + mode + " " + os.Args[0] + " {endpoint}"
}

// TestMain runs the test binary as a small faulty subscriber when asked:
// the subscriber tests then run it with --exec, as any subscriber.
// runFake runs the test binary as a fake subscriber when the environment
// says so (TestMain, producer_test.go), and reports whether it did.
func runFake() bool {
	mode := os.Getenv(fakeEnv)
	if mode == "" {
		return false
	}
	if err := fakeSubscriber(os.Args[1], mode); err != nil {
		fmt.Fprintln(os.Stderr, "fake subscriber:", err)
		os.Exit(1)
	}
	return true
}

// fakeSubscriber is a subscriber of the HTTP binding that reads the lines
// aaep-listen reads and behaves well, except for the one fault mode names:
// "token" (a changed reply_token), "kind" (a response no choice offers),
// "storm" (renegotiations unasked), "unknown" (reconnects on an unknown
// type), "noclose" (no subscription.close), "silent-reneg" (ignores a
// change of terms), "override" (rejects whatever the user said), "mute"
// (does not declare it can reply), "flood" (a storm of more messages than
// the suite keeps), "honest" (none).
func fakeSubscriber(endpoint, mode string) error {
	post := func(path string, v any) (map[string]json.RawMessage, error) {
		b, _ := json.Marshal(v)
		resp, err := http.Post(endpoint+path, "application/json", bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		var m map[string]json.RawMessage
		json.NewDecoder(resp.Body).Decode(&m) //nolint:errcheck // nil
		return m, nil
	}
	acc, err := post(protocol.PathSubscriptions, map[string]any{
		"type": protocol.TypeSubscriptionRequest, "aaep_version": "1.0.0", "subscriber_id": "fake-" + mode,
		"capabilities": map[string]any{"supports_confirmation_reply": mode != "mute", "supports_clarification_reply": mode != "mute", "max_events_per_second": 10}})
	if err != nil {
		return err
	}
	sub, _ := str(acc, "subscription_id")
	if mode == "storm" || mode == "flood" {
		n := 3
		if mode == "flood" {
			n = maxHeard + 200
		}
		for range n {
			post(protocol.PathReplies, map[string]any{"type": protocol.TypeSubscriptionRenegotiate, "subscription_id": sub, //nolint:errcheck // a storm
				"capabilities": map[string]any{"max_events_per_second": 10}})
		}
	}
	var mu sync.Mutex
	var tokens []string
	go func() {
		last := ""
		for {
			req, _ := http.NewRequest(http.MethodGet, endpoint+protocol.PathEvents+"?subscription_id="+sub, nil)
			if last != "" {
				req.Header.Set("Last-Event-ID", last)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			sc := bufio.NewScanner(resp.Body)
			reconnect := false
			for sc.Scan() && !reconnect {
				data, ok := strings.CutPrefix(sc.Text(), "data: ")
				if !ok {
					continue
				}
				var ev map[string]json.RawMessage
				json.Unmarshal([]byte(data), &ev) //nolint:errcheck // skipped
				typ, _ := str(ev, "type")
				last, _ = str(ev, "event_id")
				if tok, ok := str(ev, "reply_token"); ok {
					mu.Lock()
					tokens = append(tokens, tok)
					mu.Unlock()
				}
				reconnect = mode == "unknown" && typ == "aaep:agent.conformance.probe"
			}
			resp.Body.Close()
			if !reconnect {
				return
			}
		}
	}()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.Atoi(f[1])
		mu.Lock()
		tok := ""
		if n >= 1 && n <= len(tokens) {
			tok = tokens[n-1]
		}
		mu.Unlock()
		if mode == "token" {
			tok = strings.ToUpper(tok)
		}
		now := time.Now().UTC().Format(time.RFC3339Nano)
		switch f[0] {
		case "accept":
			decision := "accept"
			if mode == "override" {
				decision = "reject"
			}
			post(protocol.PathReplies, map[string]any{"type": protocol.TypeConfirmationReply, "reply_token": tok, //nolint:errcheck // judged by the suite
				"decision": decision, "subscription_id": sub, "timestamp": now})
		case "answer":
			resp := strings.Join(f[2:], " ")
			if mode == "kind" {
				resp = "purple"
			}
			post(protocol.PathReplies, map[string]any{"type": protocol.TypeClarificationReply, "reply_token": tok, //nolint:errcheck // judged by the suite
				"response": resp, "subscription_id": sub, "timestamp": now})
		case "set":
			if mode != "silent-reneg" {
				post(protocol.PathReplies, map[string]any{"type": protocol.TypeSubscriptionRenegotiate, "subscription_id": sub, //nolint:errcheck // judged by the suite
					"capabilities": map[string]any{"max_events_per_second": 2}})
			}
		}
	}
	if mode != "noclose" {
		_, err = post(protocol.PathReplies, map[string]any{"type": protocol.TypeSubscriptionClose, "subscription_id": sub})
	}
	return err
}

// Each faulty subscriber fails exactly the test of its fault; the honest
// one fails none.
func TestSubscriberFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode, fails string
		skips       []string
	}{
		{"honest", "", nil},
		{"token", idSubTokenEcho, nil},
		{"kind", idSubReplyKind, nil},
		{"storm", idSubLowerTerms, nil},
		{"unknown", idSubUnknown, nil},
		{"noclose", idSubClose, nil},
		{"silent-reneg", idSubRenegotiate, nil},
		{"override", idSubNoAuto, nil},
		// No prompt goes to a subscriber that cannot answer: the tests of
		// replies cannot run.
		{"mute", idSubDeclares, []string{idSubNoAuto, idSubTokenEcho, idSubReplyKind}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			got := runSubscriber(t, SubscriberOptions{Level: 3, Exec: fakeCommand(tc.mode), Patience: 3 * time.Second})
			for id, r := range got {
				want := Pass
				switch {
				case id == tc.fails:
					want = Fail
				case slices.Contains(tc.skips, id):
					want = Skip
				}
				if r.Status != want {
					t.Errorf("%s: %s, want %s: %s", id, r.Status, want, r.Detail)
				}
			}
		})
	}
}

// A subscriber that floods the suite is counted, not kept: the suite ends,
// keeps at most maxHeard messages, and says how many more came.
func TestSubscriberFlood(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := TestSubscriber(ctx, SubscriberOptions{Level: 3, Exec: fakeCommand("flood"),
		Only: []string{idSubConnect, idSubLowerTerms}}) // the default Patience: the test binary opens its stream slowly on a busy machine
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 {
		t.Fatalf("%d results, want the 2 asked for", len(rep.Results))
	}
	session := rep.Results[0].Evidence
	if len(session) > 4*maxHeard+1 {
		t.Errorf("the session kept %d entries, more than %d", len(session), 4*maxHeard+1)
	}
	if last := session[len(session)-1].Note; !strings.Contains(last, "more messages from the subscriber were counted, not kept") {
		t.Errorf("the session does not end by counting what it dropped: %q", last)
	}
	if r := rep.Results[1]; r.Status != Fail || !strings.Contains(r.Detail, "999 subscription.renegotiate messages") ||
		!strings.Contains(r.Detail, "more messages, counted, not kept") {
		t.Errorf("%s: %s, %s; want a failure counting the storm", r.ID, r.Status, r.Detail)
	}
}
