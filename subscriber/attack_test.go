package subscriber_test

// attack_test.go: the library's promise to whoever prints its updates —
// every text it hands out is already one clean line, whatever a hostile
// producer or capture put in its handshake, rejection, renegotiation and
// close frames — and the package never prints anything itself.

import (
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/internal/hostile"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// hostileFrames is a producer's (or a capture's) stream with h in every
// string of its handshake answers: acceptance (ids, versions, notes, agent
// names, manifest addresses, extensions), an event and a prompt, a
// renegotiation answer, a refusal, and a line that is no frame at all.
// which picks the refusal's place: before or after the acceptance.
func hostileFrames(h string, which uint8) string {
	var b strings.Builder
	put := func(m map[string]any) {
		j, _ := json.Marshal(m)
		b.Write(j)
		b.WriteByte('\n')
	}
	rejected := map[string]any{"type": protocol.TypeSubscriptionRejected, "reason_code": h, "reason_message": h,
		"alternative_manifest_uri": h}
	if which%3 == 1 {
		rejected["retry_after_seconds"] = 0
	}
	if which%2 == 0 {
		put(rejected)
	}
	prod := map[string]any{"agent_id": h, "agent_name": h, "agent_version": h, "model": h, "manifest_uri": h}
	put(map[string]any{"type": protocol.TypeSubscriptionAccepted, "subscription_id": h, "aaep_version": h,
		"producer": prod, "manifest_uri": h, "signed_manifest": h, "negotiation_notes": h,
		"extensions": map[string]any{h: h},
		"honored_capabilities": map[string]any{"languages": []string{h}, "preferred_verbosity": h,
			"supported_extensions": []string{h}, "coalesce_boundaries": []string{h}, "cognitive_load": h,
			"max_events_per_second": 1000, "supports_confirmation_reply": true,
			"event_filters": map[string]any{"include": []string{h}, "exclude": []string{h}}}})
	ev := func(m map[string]any) {
		m["@context"] = "https://aaep-protocol.org/context/v1"
		m["timestamp"] = "2026-06-30T14:22:10.100Z"
		m["producer"] = map[string]any{"agent_id": "bank", "agent_name": h}
		m["session_id"] = "sess_1"
		put(m)
	}
	ev(map[string]any{"type": protocol.TypeSessionStarted, "event_id": "evt_1", "sequence_number": 0, "summary_normal": h})
	ev(map[string]any{"type": protocol.TypeAwaitingConfirmation, "event_id": "evt_2", "sequence_number": 1,
		"action": h, "consequence": h, "reply_token": h, "timeout_seconds": 120, "default_decision": "reject",
		"risk_level": "high", "irreversible": true, "allowed_replies": []string{"accept", "reject"}})
	put(map[string]any{"type": protocol.TypeSubscriptionAccepted, "subscription_id": h, "aaep_version": h,
		"negotiation_notes": h, "producer": prod, "honored_capabilities": map[string]any{"languages": []string{h}}})
	ev(map[string]any{"type": h, "event_id": h, "sequence_number": 2, "summary_normal": h, "error_code": h})
	put(map[string]any{"type": h, "reason_code": h, "message": h, "error": h})
	// A refusal of a task never sent (the agent-tasks extension), on a
	// subscription that takes tasks: a diagnostic.
	put(map[string]any{"type": protocol.TypeSubscriptionAccepted, "subscription_id": "sub_tasks", "aaep_version": "1.0.0",
		"producer": prod, "honored_capabilities": map[string]any{protocol.TasksPrefix: map[string]any{"task": true}}})
	put(map[string]any{"type": protocol.TypeTaskRefused, "refused": protocol.TypeTask, "reason": h, "subscription_id": h})
	b.WriteString(h + "\n")
	if which%2 == 1 {
		put(rejected)
	}
	put(map[string]any{"type": "subscription.closed", "reason": h, "reason_code": h, "message": h})
	return b.String()
}

// cleanLine reports what is wrong with s as one line of ours: the producer's
// words may sit inside our isolate marks, and nothing else may survive.
func cleanLine(s string) string {
	plain, _ := protocol.SplitTheirs(s)
	switch {
	case !utf8.ValidString(s):
		return "invalid UTF-8"
	case protocol.Line(plain) != plain:
		return "not a sanitized single line"
	case strings.ContainsAny(plain, "\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d\u202e"):
		return "a bidi control outside our marks"
	}
	return ""
}

// checkUpdates runs the client over frames and fails on any text it hands
// out that is not one clean line.
func checkUpdates(t *testing.T, frames string) {
	t.Helper()
	ctx := context.Background()
	conn := transport.NewNDJSONConn(strings.NewReader(frames), transport.FileOptions{})
	c := subscriber.New(ctx, conn, "file:hostile.jsonl", subscriber.Config{
		Terms: session.Terms{CanConfirm: true, CanClarify: true},
		Tasks: true,
		Gate:  policy.NewGate(nil, true),
	})
	defer c.Close()
	check := func(what, s string) {
		if why := cleanLine(s); why != "" {
			t.Errorf("%s: %s: %.300q", what, why, s)
		}
	}
	eachUpdate(t, c, func(u subscriber.Update) {
		check(u.Kind.String()+" text", u.Text)
		if u.Kind == subscriber.KindDiagnostic {
			check("diagnostic", u.Diagnostic.Message)
		}
		if u.Err != nil {
			check("end error", u.Err.Error())
		}
		if u.Reply != nil && u.Reply.Err != nil {
			check("reply error", u.Reply.Err.Error())
		}
	})
}

// eachUpdate hands f every update of c up to its End.
func eachUpdate(t *testing.T, c *subscriber.Client, f func(subscriber.Update)) {
	t.Helper()
	for {
		u, err := c.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		f(u)
	}
}

func TestHostileHandshakeUpdatesAreCleanLines(t *testing.T) {
	cases := append([]hostile.Case{}, hostile.Cases...)
	cases = append(cases, hostile.Case{Name: "24 KB grapheme run", S: hostile.GraphemeRun(24 << 10)})
	for _, c := range cases {
		for which := uint8(0); which < 3; which++ {
			checkUpdates(t, hostileFrames(c.S, which))
		}
	}
}

func FuzzHostileHandshake(f *testing.F) {
	for i, c := range hostile.Cases {
		f.Add(c.S, uint8(i))
	}
	f.Add(hostile.GraphemeRun(4<<10), uint8(1))
	f.Fuzz(func(t *testing.T, h string, which uint8) {
		checkUpdates(t, hostileFrames(h, which))
	})
}

// TestSubscriberNeverPrints holds the library's other half of the promise:
// no file of the package writes to the process's terminal (os.Stdout,
// os.Stderr, fmt.Print*, log, print, println); everything goes through
// updates, which a program prints as it chooses.
func TestSubscriberNeverPrints(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				pkg, ok := n.X.(*ast.Ident)
				if !ok {
					return true
				}
				switch {
				case pkg.Name == "os" && (n.Sel.Name == "Stdout" || n.Sel.Name == "Stderr"),
					pkg.Name == "fmt" && strings.HasPrefix(n.Sel.Name, "Print"),
					pkg.Name == "log":
					t.Errorf("%s: the library prints: %s.%s", fset.Position(n.Pos()), pkg.Name, n.Sel.Name)
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") {
					t.Errorf("%s: the library prints: %s", fset.Position(n.Pos()), id.Name)
				}
			}
			return true
		})
	}
}
