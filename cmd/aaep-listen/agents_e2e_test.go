package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/transport"
)

// childPIDFileEnv names a file the stdio producer (childProducer) writes
// its process id to, so a test can kill it.
const childPIDFileEnv = "AAEP_TEST_CHILD_PID_FILE"

var promptLine = regexp.MustCompile(`(?m)^(?:CRITICAL )?(.+?): Confirmation needed, prompt (\d+):`)

// promptsBy reads the confirmations announced: the agent each line names,
// by prompt number.
func promptsBy(out string) map[string]string {
	got := map[string]string{}
	for _, m := range promptLine.FindAllStringSubmatch(out, -1) {
		got[m[2]] = m[1]
	}
	return got
}

// numberOf is the prompt number the line naming agent gave, waiting for it.
func (r *listenerRun) numberOf(t *testing.T, agent string) string {
	t.Helper()
	r.waitOutput(t, agent+": Confirmation needed")
	for n, a := range promptsBy(r.stdout()) {
		if a == agent {
			return n
		}
	}
	t.Fatalf("no prompt of %s:\n%s", agent, r.stdout())
	return ""
}

// Two producers on two bindings (Server-Sent Events and WebSocket) in one
// run: each asks, the prompts get numbers unique across the two, every
// line names its agent, and each answer reaches the producer that asked.
func TestTwoAgentsTwoBindingsAnswersReachTheirProducer(t *testing.T) {
	t.Parallel()
	pa, urlA := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	pb, urlB := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	wsB := "ws" + strings.TrimPrefix(urlB, "http") + "/aaep/v1/ws"
	r := startListener(t, "--plain", "--no-time", "bank="+urlA, "shop="+wsB)
	na, nb := r.numberOf(t, "bank"), r.numberOf(t, "shop")
	if na == nb {
		t.Fatalf("both prompts numbered %s:\n%s", na, r.stdout())
	}
	fmt.Fprintf(r.stdin, "pending\n")
	r.waitOutput(t, "bank: Prompt "+na)
	r.waitOutput(t, "shop: Prompt "+nb)
	fmt.Fprintf(r.stdin, "accept %s\nyes\nreject %s\n", na, nb)
	r.wait(t)
	out := r.stdout()
	if oa := pa.Outcomes(); len(oa) != 1 || oa[0].Resolution != producer.Accepted {
		t.Errorf("bank's producer: %+v, want accepted\n%s", oa, out)
	}
	if ob := pb.Outcomes(); len(ob) != 1 || ob[0].Resolution != producer.Rejected {
		t.Errorf("shop's producer: %+v, want rejected\n%s", ob, out)
	}
	for _, want := range []string{"bank: Listening to", "shop: Listening to", "Every agent has ended."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "Every agent has ended.") != 1 {
		t.Errorf("the end of the run was said more than once:\n%s", out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "bank") && !strings.HasPrefix(l, "shop") && !strings.HasPrefix(l, "CRITICAL") &&
			!strings.HasPrefix(l, "Every agent") {
			t.Errorf("a line names no agent: %q", l)
		}
	}
}

// One producer killed while its prompt waits: the other keeps announcing
// and its prompt is still answered; the dead one's prompt is said to be
// left, and answering it says it can no longer be answered.
func TestAgentKilledMidPromptOtherGoesOn(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	// env(1) sets the producer's environment, not this process's: the test
	// runs in parallel. env execs the producer, which keeps its process ID.
	dies := transport.JoinCommand([]string{"env", childProducerEnv + "=1", childPIDFileEnv + "=" + pidFile, exe, "-test.run=^$"})
	pb, urlB := serve(t, producer.Options{Scenarios: scenarios(t, "confirm", "happy")})
	r := startListener(t, "--plain", "--no-time", "dies=exec:"+dies, "lives="+urlB)
	nd, nl := r.numberOf(t, "dies"), r.numberOf(t, "lives")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r.waitOutput(t, "dies has ended; still listening to lives.")
	fmt.Fprintf(r.stdin, "accept %s\nyes\n", nd)
	r.waitOutput(t, "Prompt "+nd+" was asked by dies, which has ended: it can no longer be answered.")
	fmt.Fprintf(r.stdin, "accept %s\nyes\n", nl)
	if code := r.exitCode(t); code != 1 { // one agent failed: the run says so
		t.Errorf("exit status %d, want 1\n%s", code, r.stdout())
	}
	out := r.stdout()
	if ob := pb.Outcomes(); len(ob) != 1 || ob[0].Resolution != producer.Accepted {
		t.Errorf("the living producer: %+v, want accepted\n%s", ob, out)
	}
	if !strings.Contains(out, "CRITICAL dies: The agent went away before prompt "+nd+" was answered") &&
		!strings.Contains(out, "CRITICAL dies: The agent's stream ended before prompt "+nd+" was answered") {
		t.Errorf("the dead agent's prompt was not said to be left:\n%s", out)
	}
	after := out[strings.Index(out, "dies has ended"):]
	if !strings.Contains(after, "lives: Finished: Transfer done") {
		t.Errorf("the living agent said nothing more after the other died:\n%s", out)
	}
}

// One agent refuses the subscription, another cannot be reached: the third
// is still heard and answered, and the run's exit status says something
// failed.
func TestRefusingAndUnreachableAgentsDoNotSilenceOthers(t *testing.T) {
	_, refusing := serve(t, producer.Options{Scenarios: scenarios(t, "happy"), Refuse: &producer.Refusal{Code: "unauthorized", RetryAfter: -1}})
	pb, ok := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	r := startListener(t, "--plain", "--no-time", "--connect-timeout", "2s", "no="+refusing, "gone=http://127.0.0.1:1", "ok="+ok)
	n := r.numberOf(t, "ok")
	r.waitOutput(t, "no has ended; still listening to")
	fmt.Fprintf(r.stdin, "reject %s\n", n)
	r.waitOutput(t, "ok: Sent your answer to prompt "+n)
	fmt.Fprintf(r.stdin, "quit gone\n")
	if code := r.exitCode(t); code != 1 {
		t.Errorf("exit status %d, want 1\n%s", code, r.stdout())
	}
	if ob := pb.Outcomes(); len(ob) != 1 || ob[0].Resolution != producer.Rejected {
		t.Errorf("the answering producer: %+v\n%s", ob, r.stdout())
	}
	if out := r.stdout(); strings.Count(out, "Every agent has ended.") != 1 {
		t.Errorf("the end of the run was not said once:\n%s", out)
	}
}

// With several agents, every --audit record names the agent it came from,
// as the lines do; the prompts and decisions of both agents are there.
func TestAuditNamesTheAgent(t *testing.T) {
	_, urlA := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	_, urlB := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	r := startListener(t, "--plain", "--no-time", "--no-sign", "--auto-reply", "reject", "--audit", log, "bank="+urlA, "shop="+urlB)
	if code := r.exitCode(t); code != 0 {
		t.Fatalf("exit status %d:\n%s", code, r.stdout())
	}
	seen := map[string]int{}
	for _, rec := range readAudit(t, log) {
		if rec.Agent != "bank" && rec.Agent != "shop" {
			t.Errorf("record names agent %q: %+v", rec.Agent, rec)
		}
		seen[rec.Agent+" "+rec.What]++
	}
	for _, want := range []string{"bank prompt", "bank decision", "shop prompt", "shop decision"} {
		if seen[want] == 0 {
			t.Errorf("no %q record; records: %v\n%s", want, seen, r.stdout())
		}
	}
}
