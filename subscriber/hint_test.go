package subscriber_test

// hint_test.go: the library's words name no program, flag or command —
// a library user's program is not aaep-listen — and a program's Hints
// reach every place the library once put aaep-listen's hints.

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/internal/hostile"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// programWords finds a flag ("--token") or a command's name in our words.
var programWords = regexp.MustCompile(`(^|[^\pL\pN-])--[a-z]|aaep-(listen|capture|replay|conform)`)

// ours is s without the producer's words (those Theirs marked), which
// may say anything.
func ours(s string) string {
	plain, spans := protocol.SplitTheirs(s)
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(plain[at:sp.Start])
		b.WriteString(" … ")
		at = sp.End
	}
	b.WriteString(plain[at:])
	return b.String()
}

// texts is every text c hands out up to its End: status and other
// update texts, diagnostics, the End's error and reply errors.
func texts(t *testing.T, c *subscriber.Client) []string {
	t.Helper()
	defer c.Close()
	var out []string
	eachUpdate(t, c, func(u subscriber.Update) {
		out = append(out, u.Text)
		if u.Kind == subscriber.KindDiagnostic {
			out = append(out, u.Diagnostic.Message)
		}
		if u.Err != nil {
			out = append(out, u.Err.Error())
		}
		if u.Reply != nil && u.Reply.Err != nil {
			out = append(out, u.Reply.Err.Error())
		}
	})
	return out
}

// hintRuns runs the client, with hints, over every situation the library
// words: a refusal with every reason code (real producer), a manifest
// signed by a key not trusted, required and not, strict terms broken, a
// confirmation the gate rejects (real producer), and the hostile
// handshake streams with strict terms and automatic rejection.
// It returns every text handed out.
func hintRuns(t *testing.T, hints subscriber.Hints) []string {
	var all []string
	spec := transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutSpec}}
	dial := func(p *producer.Producer, cfg subscriber.Config) {
		t.Cleanup(func() { p.Close() })
		cfg.Identity, cfg.Transport, cfg.Hints = session.Identity{ID: "test"}, spec, hints
		c, err := subscriber.Dial(context.Background(), httpServe(t, p), cfg)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, texts(t, c)...)
	}
	for _, code := range append(producer.ReasonCodes, "too_sunny_today") {
		dial(producer.New(producer.Options{Scenarios: loadScenarios(t, "happy"), EndWhenDone: true,
			Refuse: &producer.Refusal{Code: code, Message: "Because.", RetryAfter: -1}}), subscriber.Config{})
	}
	key, err := producer.NewManifestKey("ES256")
	if err != nil {
		t.Fatal(err)
	}
	for _, require := range []bool{false, true} {
		dial(producer.New(producer.Options{Scenarios: loadScenarios(t, "happy"), EndWhenDone: true, ManifestKey: key}),
			subscriber.Config{Manifest: subscriber.ManifestConfig{Require: require, Hints: hints}})
	}
	// A producer granting more than strict terms asked for; a confirmation
	// the gate rejects by itself.
	dial(producer.New(producer.Options{Scenarios: loadScenarios(t, "happy"), EndWhenDone: true, Break: producer.BreakHonorsMore}),
		subscriber.Config{Terms: session.Terms{Verbosity: "normal", Rate: 5, Strict: true}})
	dial(producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm"), EndWhenDone: true}),
		subscriber.Config{Terms: session.Terms{CanConfirm: true}, Gate: policy.NewGate(nil, true)})
	for _, c := range hostile.Cases {
		for which := uint8(0); which < 3; which++ {
			conn := transport.NewNDJSONConn(strings.NewReader(hostileFrames(c.S, which)), transport.FileOptions{})
			all = append(all, texts(t, subscriber.New(context.Background(), conn, "file:hostile.jsonl", subscriber.Config{
				Terms: session.Terms{CanConfirm: true, CanClarify: true, Strict: true},
				Gate:  policy.NewGate(nil, true), Hints: hints,
			}))...)
		}
	}
	for _, code := range append(producer.ReasonCodes, "too_sunny_today") {
		all = append(all, subscriber.RejectionWords(code), hints.RejectionWords(code))
	}
	return all
}

// Without hints, nothing the client says names a flag or a program: not a
// refusal of any reason, a manifest's key or requirement, strict terms,
// an automatic reply, nor anything a hostile handshake brings out.
func TestLibraryWordsNameNoProgram(t *testing.T) {
	said := hintRuns(t, nil)
	if len(said) < 100 {
		t.Fatalf("only %d texts: the runs said too little to prove anything", len(said))
	}
	for _, s := range said {
		if m := programWords.FindString(ours(s)); m != "" {
			t.Errorf("the library names a program or flag (%q): %q", m, s)
		}
	}
}

// A program's Hints reach every situation the library words for it, and
// what they return is said.
func TestHintsAreSaid(t *testing.T) {
	var mu sync.Mutex
	seen := map[subscriber.Hint]bool{}
	said := hintRuns(t, func(h subscriber.Hint, words string) string {
		mu.Lock()
		seen[h] = true
		mu.Unlock()
		return strings.TrimSuffix(words, ".") + " (HINT)."
	})
	for _, h := range []subscriber.Hint{subscriber.HintAuthenticate, subscriber.HintAuthorize, subscriber.HintManifestKey,
		subscriber.HintManifestRequired, subscriber.HintStrict, subscriber.HintAutoReply} {
		if !seen[h] {
			t.Errorf("hint %d was never asked for", h)
		}
	}
	n := 0
	for _, s := range said {
		n += strings.Count(s, "(HINT)")
	}
	if n == 0 {
		t.Error("no hint was said")
	}
}
