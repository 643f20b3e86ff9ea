package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/audit"
	"github.com/aaep-term/aaep-term/producer"
)

// toolConfirm is the confirm scenario with its confirmation naming the tool
// transfer_money, as some deployed producers do.
func toolConfirm(t *testing.T) []producer.Scenario {
	t.Helper()
	data, err := os.ReadFile("../../demo/scenarios/confirm.json")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), `"type": "agent.awaiting.confirmation",`,
		`"type": "agent.awaiting.confirmation", "tool": "transfer_money",`, 1)
	sc, err := producer.ParseScenario([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return []producer.Scenario{sc}
}

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func readAudit(t *testing.T, name string) []audit.Record {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []audit.Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r audit.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

func sha(s string) string { sum := sha256.Sum256([]byte(s)); return hex.EncodeToString(sum[:]) }

// A policy rule decides without the user, says so every time, and the
// reply names the rule; the audit log has the prompt and the decision.
func TestPolicyDecides(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, rule string
		want       producer.Resolution
		say        string
	}{
		{"accept irreversible high, allowed", `{"name":"bills","tool":"transfer_*","decision":"accept","allow_irreversible_high":true}`,
			producer.Accepted, "Safety warning: Your policy rule bills accepts prompt 1 without asking you, although it cannot be undone and its risk is high"},
		{"reject", `{"name":"no-money","tool":"transfer_money","decision":"reject"}`,
			producer.Rejected, "Your policy rule no-money rejects prompt 1."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := writeFile(t, "policy.json", `{"rules":[`+tc.rule+`]}`)
			log := filepath.Join(t.TempDir(), "audit.jsonl")
			p, url := serve(t, producer.Options{Scenarios: toolConfirm(t)})
			r := startListener(t, "--plain", "--no-sign", "--policy", pol, "--audit", log, url)
			r.wait(t)
			outs := p.Outcomes()
			if len(outs) != 1 || outs[0].Resolution != tc.want {
				t.Fatalf("outcomes %+v, want %v\n%s", outs, tc.want, r.stdout())
			}
			if !strings.Contains(r.stdout(), tc.say) {
				t.Errorf("the policy's decision was not announced as %q:\n%s", tc.say, r.stdout())
			}
			if tc.want == producer.Accepted && !strings.Contains(r.stdout(), "Started after your policy accepted prompt 1.") {
				t.Errorf("the tool call was not linked to the policy's acceptance:\n%s", r.stdout())
			}
			recs := readAudit(t, log)
			if len(recs) != 2 || recs[0].What != "prompt" || recs[1].What != "decision" {
				t.Fatalf("audit records %+v", recs)
			}
			d := recs[1]
			rule := strings.Split(tc.rule, `"`)[3]
			if d.DecidedBy != "auto:policy:"+rule || d.Decision != outs[0].Decision || d.Delivered == nil || !*d.Delivered ||
				d.Signed == nil || *d.Signed || d.TokenSHA256 != sha(outs[0].ReplyToken) || d.Tool != "transfer_money" {
				t.Errorf("decision record %+v", d)
			}
			raw, _ := os.ReadFile(log)
			if strings.Contains(string(raw), outs[0].ReplyToken) {
				t.Error("the raw reply token is in the audit log")
			}
		})
	}
}

// A rule that would accept irreversible high-risk actions without saying so
// is refused before anything connects.
func TestPolicyRefusedAtLoad(t *testing.T) {
	t.Parallel()
	pol := writeFile(t, "policy.json", `{"rules":[{"name":"yes-to-all","decision":"accept"}]}`)
	cmd := exec.Command(listenerBinary(t), "--plain", "--policy", pol, "http://127.0.0.1:1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want status 2; output:\n%s", err, out)
	}
	if want := `rule "yes-to-all": it accepts and could match an action that cannot be undone`; !strings.Contains(string(out), want) {
		t.Errorf("output does not say %q:\n%s", want, out)
	}
}

// draftsScenario is one session asking twice to save a draft (low risk,
// reversible), named name.
func draftsScenario(t *testing.T, name string) producer.Scenario {
	t.Helper()
	ask := `{"after_ms": 50, "event": {"type": "agent.awaiting.confirmation", "tool": "save_draft",
	  "action": "Save the draft.", "consequence": "The draft is kept.", "timeout_seconds": 120,
	  "default_decision": "reject", "risk_level": "low", "irreversible": false},
	 "on_accept": [{"after_ms": 20, "event": {"type": "agent.tool.invoked", "tool": "save_draft",
	   "risk_level": "low", "irreversible": false, "summary_normal": "Saving the draft."}},
	   {"after_ms": 20, "event": {"type": "agent.tool.completed", "tool": "save_draft", "status": "success",
	   "summary_normal": "Saved."}}],
	 "on_reject": [{"after_ms": 20, "event": {"type": "agent.state.changed", "from_state": "awaiting_input",
	   "to_state": "thinking", "summary_normal": "Not saving."}}]}`
	sc, err := producer.ParseScenario([]byte(`{"name": "` + name + `", "title": "Drafts",
	  "agent": {"agent_id": "drafter", "agent_name": "Drafter"},
	  "steps": [{"after_ms": 0, "event": {"type": "agent.session.started", "summary_normal": "Writing."}},
	  ` + ask + `, ` + ask + `,
	  {"after_ms": 50, "event": {"type": "agent.session.completed", "summary_normal": "Done."}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// "accept always" answers the prompt and every later one about the same
// tool in that session, and only that session; the audit log says who
// decided each.
func TestAcceptAlways(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	p, url := serve(t, producer.Options{Scenarios: []producer.Scenario{draftsScenario(t, "one"), draftsScenario(t, "two")}})
	r := startListener(t, "--plain", "--no-sign", "--audit", log, url)
	r.waitOutput(t, "Confirmation needed, prompt 1")
	fmt.Fprintln(r.stdin, "accept always 1")
	r.waitOutput(t, "Confirmation needed, prompt 3") // the next session asks again
	fmt.Fprintln(r.stdin, "reject 3")
	r.waitOutput(t, "Confirmation needed, prompt 4")
	fmt.Fprintln(r.stdin, "reject 4")
	r.wait(t)
	var got []string
	for _, o := range p.Outcomes() {
		got = append(got, o.Decision)
	}
	if strings.Join(got, ",") != "accept,accept,reject,reject" {
		t.Fatalf("decisions %v\n%s", got, r.stdout())
	}
	for _, want := range []string{"From now on in this session, confirmations about save_draft from this agent are accepted without asking; you are asked again about one riskier than prompt 1.",
		"Your always answer for save_draft in this session accepts prompt 2."} {
		if !strings.Contains(r.stdout(), want) {
			t.Errorf("output does not say %q:\n%s", want, r.stdout())
		}
	}
	var by []string
	for _, rec := range readAudit(t, log) {
		if rec.What == "decision" {
			by = append(by, rec.DecidedBy)
		}
	}
	if strings.Join(by, ",") != "user,auto:always,user,user" {
		t.Errorf("decided by %v", by)
	}
}
