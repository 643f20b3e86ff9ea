package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// aaep-listen --demo --agents 3 --demo-speed 0, nobody answering: lines of
// the three demo agents, each named, each finished and ended, and the run
// ends once, by itself, with status 0.
func TestDemoThreeAgentsThroughTheBinary(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(listenerBinary(t), "--plain", "--no-time", "--demo", "--agents", "3", "--demo-speed", "0")
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "TZ=UTC")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output() // standard input is /dev/null: nobody answers
	out := string(b)
	if err != nil {
		t.Fatalf("%v\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	for _, agent := range []string{"code", "mail", "browser"} {
		for _, want := range []string{agent + ": Listening to", agent + ": Finished: "} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		if !strings.Contains(out, agent+" has ended; still listening to") && !strings.HasSuffix(out, "Every agent has ended.\n") {
			t.Errorf("%s was not said to end:\n%s", agent, out)
		}
	}
	if strings.Count(out, " has ended; still listening to") != 2 || strings.Count(out, "Every agent has ended.") != 1 {
		t.Errorf("the agents' ends were not said once each:\n%s", out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		l = strings.TrimPrefix(l, "CRITICAL ")
		if !strings.HasPrefix(l, "code") && !strings.HasPrefix(l, "mail") && !strings.HasPrefix(l, "browser") &&
			!strings.HasPrefix(l, "Standard input is closed") && l != "Every agent has ended." {
			t.Errorf("a line names no agent: %q", l)
		}
	}
}

// --demo --agents N takes a number of demo agents, and not the demo flags
// that choose one producer's scenarios or binding: usage errors.
func TestDemoAgentsFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--demo", "--agents", "0"},
		{"--demo", "--agents", "9"},
		{"--demo", "--agents", "3", "--demo-grpc"},
		{"--demo", "--agents", "3", "--demo-quirks"},
		{"--demo", "--agents", "3", "--demo-scenarios", "happy"},
	} {
		if _, err := parseFlags(args, testIO(), noEnv); err == nil {
			t.Errorf("%v taken", args)
		}
	}
	o, err := parseFlags([]string{"--demo", "--agents", "3"}, testIO(), noEnv)
	if err != nil || o.DemoAgents != 3 {
		t.Fatalf("--demo --agents 3: %v, %d agents", err, o.DemoAgents)
	}
}
