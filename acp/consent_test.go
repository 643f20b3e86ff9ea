package acp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// TestNoACPAcceptWithoutConsent is the consent property over the ACP
// bridge: a scripted agent asks several permissions and forms at once,
// with hostile titles, paths and diffs and options of every shape (an
// allow_always named "Allow once", names that lie about their kind, no
// allow option, forty options); the user, at random, accepts (sometimes
// "always"), rejects, answers fields well and badly, answers a prompt with
// the wrong kind of answer, and cancels the rest. The agent gets its
// allow_once option only for a request the user accepted, never its
// allow_always, and a form's content only as the user answered every
// field; everything else is a reject the user chose or "cancelled".
func TestNoACPAcceptWithoutConsent(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 10; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			acpConsentRun(t, seed)
		})
	}
}

var (
	askNumber = regexp.MustCompile(`#(\d+)`)
	askField  = regexp.MustCompile(`#(\d+) (pick|sure)`)
)

func acpConsentRun(t *testing.T, seed uint64) {
	r := start(t, acptest.ConsentScript(seed), acp.Options{Task: "go"})
	rng := rand.New(rand.NewPCG(seed, 7))
	ctx := acptest.Context(t)
	accepted, rejected := map[int]bool{}, map[int]bool{}
	always := map[string]bool{}         // tools the user answered "accept always" for
	answers := map[int]map[string]any{} // each form's fields the user answered
	var trace []string
	done := "Every request was answered."
	r.waitFor(t, "the first prompts", func(all string) bool { return len(r.c.Pending()) > 0 || strings.Contains(all, done) })
	for step := 0; step < 30; step++ {
		pending := r.c.Pending()
		if len(pending) == 0 {
			if strings.Contains(r.text(), done) {
				break
			}
			r.waitFor(t, "a prompt", func(all string) bool { return len(r.c.Pending()) > 0 || strings.Contains(all, done) })
			continue
		}
		p := pending[rng.IntN(len(pending))]
		m := askField.FindStringSubmatch(string(p.Event.Raw))
		if m == nil {
			m = askNumber.FindStringSubmatch(string(p.Event.Raw))
		}
		if m == nil {
			t.Fatalf("prompt %d names no request: %s", p.Number, p.Event.Raw)
		}
		n, _ := strconv.Atoi(m[1])
		confirm := p.Event.Type == protocol.TypeAwaitingConfirmation
		switch op := rng.IntN(5); {
		case op == 0 && confirm: // accept, sometimes "always"
			var opts []subscriber.ConfirmOption
			if rng.IntN(2) == 0 {
				opts = append(opts, subscriber.Always())
			}
			if err := r.c.Confirm(ctx, p.Number, protocol.DecisionAccept, opts...); err == nil {
				accepted[n] = true
				if len(opts) > 0 {
					always[p.Tool] = true // the gate may accept the like of it by itself
				}
			}
			trace = append(trace, fmt.Sprintf("accept %d (#%d, always %v)", p.Number, n, len(opts) > 0))
		case op == 1 && confirm:
			if err := r.c.Confirm(ctx, p.Number, protocol.DecisionReject); err == nil {
				rejected[n] = true
			}
			trace = append(trace, fmt.Sprintf("reject %d (#%d)", p.Number, n))
		case op < 3 && !confirm: // a fitting answer
			text, value := fieldAnswer(rng, m[2])
			if err := r.c.Answer(ctx, p.Number, text); err == nil {
				if answers[n] == nil {
					answers[n] = map[string]any{}
				}
				answers[n][m[2]] = value
			}
			trace = append(trace, fmt.Sprintf("answer %d %q (#%d %s)", p.Number, text, n, m[2]))
		case op == 3 && !confirm: // an answer that does not fit: asked again
			err := r.c.Answer(ctx, p.Number, map[string]string{"pick": "7", "sure": "perhaps"}[m[2]])
			trace = append(trace, fmt.Sprintf("bad answer %d (#%d): %v", p.Number, n, err))
			if err == nil { // the bridge refuses it: the field is asked again under a new number
				r.waitFor(t, "the field asked again", func(string) bool { return !pendingHas(r.c.Pending(), p.Number) })
			}
		default: // the wrong kind of answer: refused, nothing sent
			var err error
			if confirm {
				err = r.c.Answer(ctx, p.Number, "yes")
			} else {
				err = r.c.Confirm(ctx, p.Number, protocol.DecisionAccept)
			}
			if err == nil {
				t.Errorf("seed %d: the wrong kind of answer to prompt %d (#%d) was taken", seed, p.Number, n)
			}
			trace = append(trace, fmt.Sprintf("wrong kind %d (#%d)", p.Number, n))
		}
	}
	if !strings.Contains(r.text(), done) {
		if err := r.bridge.Cancel(); err != nil {
			// The task ended since (every request answered): its last
			// words are on their way.
			r.waitText(t, done)
		}
		trace = append(trace, "cancel")
	}
	r.waitText(t, "waiting for you.") // cancelled, or done and waiting
	got, _ := r.file(acptest.ConsentFile)
	seen := 0
	sc := bufio.NewScanner(strings.NewReader(got))
	for sc.Scan() {
		seen++
		var rec struct {
			N       int                 `json:"n"`
			Form    bool                `json:"form"`
			Kind    string              `json:"kind"`
			Options []map[string]string `json:"options"`
			Result  json.RawMessage     `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if why := consentBroken(rec.N, rec.Form, rec.Options, rec.Result, accepted[rec.N], always[rec.Kind] && lowRisk(rec.Kind), rejected, answers); why != "" {
			t.Errorf("seed %d, request #%d: %s: %s\n%s", seed, rec.N, why, rec.Result, strings.Join(trace, "\n"))
		}
	}
	if seen != acptest.ConsentAsks {
		t.Errorf("seed %d: %d requests answered, want %d:\n%s", seed, seen, acptest.ConsentAsks, r.text())
	}
	r.checkValid(t)
}

// fieldAnswer is a fitting answer to a field of the consent script's
// forms, typed, and the value the agent must get for it.
func fieldAnswer(rng *rand.Rand, field string) (string, any) {
	if field == "sure" {
		if rng.IntN(2) == 0 {
			return "yes", true
		}
		return "no", false
	}
	pick := [][2]string{{"1", "a"}, {"2", "b"}, {"a", "a"}, {"b", "b"}}[rng.IntN(4)]
	return pick[0], pick[1]
}

// lowRisk is the test's own reading of the kinds an "accept always"
// may cover: those that only look.
func lowRisk(kind string) bool {
	return kind == "read" || kind == "search" || kind == "fetch" || kind == "think"
}

func pendingHas(ps []*session.Prompt, n int) bool {
	for _, p := range ps {
		if p.Number == n {
			return true
		}
	}
	return false
}

// consentBroken says how the answer the agent got to request n breaks
// consent, or "" when it is what the user chose.
// accepted is whether the user accepted it; auto, whether the user said
// "accept always" for its tool and it is of low risk. The gate applies an
// "always" to the prompts that come after it, so a request covered by
// one may have been accepted by the gate, or still asked and then
// answered by the user, or cancelled.
func consentBroken(n int, form bool, options []map[string]string, result json.RawMessage, accepted, auto bool, rejected map[int]bool, answers map[int]map[string]any) string {
	if form {
		var f struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content"`
		}
		if err := json.Unmarshal(result, &f); err != nil {
			return "not a form's answer"
		}
		want := answers[n]
		if f.Action == "accept" {
			if len(want) != 2 || fmt.Sprint(f.Content) != fmt.Sprint(want) {
				return fmt.Sprintf("the form was sent with %v, the user answered %v", f.Content, want)
			}
			return ""
		}
		if len(f.Content) > 0 {
			return "content sent without accept"
		}
		return ""
	}
	var res struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if err := json.Unmarshal(result, &res); err != nil {
		return "not a permission's answer"
	}
	kind := ""
	for _, o := range options {
		if o["optionId"] == res.Outcome.OptionID {
			kind = o["kind"]
		}
	}
	has := func(k string) bool {
		for _, o := range options {
			if o["kind"] == k {
				return true
			}
		}
		return false
	}
	want := "cancelled"
	switch {
	case accepted && has("allow_once"):
		want = "allow_once"
	case rejected[n] && has("reject_once"):
		want = "reject_once"
	}
	got := "cancelled"
	if res.Outcome.Outcome == "selected" {
		got = kind
	}
	if auto && !accepted && !rejected[n] && got == "allow_once" {
		return "" // the gate answered it, as the user's "always" said
	}
	if got != want {
		return fmt.Sprintf("the agent got %s, the user chose %s", got, want)
	}
	return ""
}
