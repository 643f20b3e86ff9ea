package demo

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// The demo agents load, each with an identity of its own shared by all its
// scenarios, and asking for fewer gives the first ones.
func TestDemoAgents(t *testing.T) {
	all, err := Agents(MaxAgents)
	if err != nil {
		t.Fatal(err)
	}
	if MaxAgents < 3 {
		t.Fatalf("only %d demo agents are built in; the demo needs three", MaxAgents)
	}
	labels := map[string]bool{}
	ids := map[string]bool{}
	names := map[string]bool{}
	for _, a := range all {
		if a.Label == "" || labels[a.Label] || ids[a.Agent.ID] || names[a.Agent.Name] {
			t.Errorf("agent %q (%q, %q): a label, agent_id and agent_name of its own, please", a.Label, a.Agent.ID, a.Agent.Name)
		}
		labels[a.Label], ids[a.Agent.ID], names[a.Agent.Name] = true, true, true
		if !a.Options.EndWhenDone || a.Options.Speed != 1 || len(a.Options.Scenarios) == 0 {
			t.Errorf("agent %s: options %+v", a.Label, a.Options)
		}
		for _, sc := range a.Options.Scenarios {
			if sc.Agent != a.Agent {
				t.Errorf("agent %s: scenario %s is played by %+v", a.Label, sc.Name, sc.Agent)
			}
		}
	}
	for n := 1; n <= MaxAgents; n++ {
		some, err := Agents(n)
		if err != nil {
			t.Fatal(err)
		}
		if len(some) != n {
			t.Fatalf("Agents(%d) gave %d", n, len(some))
		}
		for i := range some {
			if some[i].Label != all[i].Label {
				t.Errorf("Agents(%d)[%d] is %s, not %s", n, i, some[i].Label, all[i].Label)
			}
		}
	}
}

func TestDemoAgentsOutOfRange(t *testing.T) {
	for _, n := range []int{-1, 0, MaxAgents + 1} {
		_, err := Agents(n)
		if err == nil || !strings.Contains(err.Error(), "ask for 1 to") {
			t.Errorf("Agents(%d): %v", n, err)
		}
	}
}

// The single demo keeps its six scenarios; the agents' are not among them.
func TestSingleDemoUnchanged(t *testing.T) {
	all, err := Pick(nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sc := range all {
		got = append(got, sc.Name)
		if sc.Agent.ID != "aaep-term-demo" {
			t.Errorf("scenario %s is played by %q", sc.Name, sc.Agent.ID)
		}
	}
	want := []string{"happy", "confirm", "clarify", "error", "cancel", "rtl"}
	if !slices.Equal(got, want) {
		t.Errorf("the single demo plays %v, want %v", got, want)
	}
}

// paths returns every sequence of events a scenario can play: each prompt
// forks into its branches, followed by the steps after it.
func paths(steps []producer.Step) [][]producer.Payload {
	for i, st := range steps {
		var branches [][]producer.Step
		switch st.Event.Type {
		case protocol.TypeAwaitingConfirmation:
			branches = [][]producer.Step{st.OnAccept, st.OnReject}
		case protocol.TypeAwaitingClarify:
			branches = [][]producer.Step{st.OnAnswer}
			if st.OnTimeout != nil {
				branches = append(branches, st.OnTimeout)
			}
		default:
			continue
		}
		head := make([]producer.Payload, i+1)
		for j := range head {
			head[j] = steps[j].Event
		}
		var out [][]producer.Payload
		for _, b := range branches {
			for _, tail := range paths(slices.Concat(b, steps[i+1:])) {
				out = append(out, slices.Concat(head, tail))
			}
		}
		return out
	}
	evs := make([]producer.Payload, len(steps))
	for i, st := range steps {
		evs[i] = st.Event
	}
	return [][]producer.Payload{evs}
}

func str(p producer.Payload, name string) string {
	v, ok := p.Get(name)
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// plainSentence reports whether s reads as a sentence: a capital or digit first,
// a full stop, question mark or colon last, no control characters.
func plainSentence(s string) bool {
	r := []rune(strings.TrimSpace(s))
	return len(r) > 1 && (unicode.IsUpper(r[0]) || unicode.IsDigit(r[0])) && strings.ContainsRune(".?:", r[len(r)-1]) &&
		!strings.ContainsFunc(s, unicode.IsControl)
}

// Every path through every demo agent's scenario brackets each tool call
// (invoked, then completed with the same tool and call ID, before the end),
// uses only the tools its session said it has, asks at least one question,
// and says every event but streamed output in a plain English sentence.
func TestDemoAgentScenariosWellMade(t *testing.T) {
	agents, err := Agents(MaxAgents)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		for _, sc := range a.Options.Scenarios {
			var tools []string
			if v, ok := sc.Steps[0].Event.Get("tools_available"); !ok || json.Unmarshal(v, &tools) != nil {
				t.Errorf("%s/%s: the session does not list its tools", a.Label, sc.Name)
			}
			for pi, evs := range paths(sc.Steps) {
				at := func(i int) string {
					return a.Label + "/" + sc.Name + " path " + string(rune('A'+pi)) + " event " + evs[i].Type
				}
				open := map[string]string{} // tool_call_id → tool
				seen := map[string]bool{}
				prompts := 0
				for i, ev := range evs {
					switch ev.Type {
					case protocol.TypeToolInvoked:
						id, tool := str(ev, "tool_call_id"), str(ev, "tool")
						if id == "" || seen[id] {
							t.Errorf("%s: tool_call_id %q missing or used twice", at(i), id)
						}
						if !slices.Contains(tools, tool) {
							t.Errorf("%s: tool %s is not in tools_available %v", at(i), tool, tools)
						}
						seen[id], open[id] = true, tool
					case protocol.TypeToolCompleted:
						id, tool := str(ev, "tool_call_id"), str(ev, "tool")
						if open[id] != tool {
							t.Errorf("%s: %s (%s) completes no open call", at(i), id, tool)
						}
						delete(open, id)
					case protocol.TypeAwaitingConfirmation, protocol.TypeAwaitingClarify:
						prompts++
						if len(open) > 0 {
							t.Errorf("%s: asks while tool calls %v are open", at(i), open)
						}
					}
					if ev.Type != protocol.TypeOutputStreaming && !plainSentence(str(ev, "summary_normal")) {
						t.Errorf("%s: summary_normal %q is not a plain sentence", at(i), str(ev, "summary_normal"))
					}
				}
				if len(open) > 0 {
					t.Errorf("%s/%s: the session ends with tool calls %v open", a.Label, sc.Name, open)
				}
				if prompts == 0 {
					t.Errorf("%s/%s: a path asks nothing", a.Label, sc.Name)
				}
			}
		}
	}
}

// At natural speed the agents' first prompts come within two seconds of
// each other, so a listener who takes a moment to answer hears them pending
// together. (That they are pending together whatever the pace is held by
// structure: a prompt holds its scenario until it is answered; see
// TestDemoAgentsTogether in cmd/aaep-listen.)
func TestDemoAgentPromptsOverlap(t *testing.T) {
	agents, err := Agents(MaxAgents)
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]int{}
	for _, a := range agents {
		ms := 0
		for _, st := range a.Options.Scenarios[0].Steps {
			ms += st.AfterMS
			if st.Event.Type == protocol.TypeAwaitingConfirmation || st.Event.Type == protocol.TypeAwaitingClarify {
				first[a.Label] = ms
				break
			}
		}
	}
	lo, hi := 1<<31, 0
	for _, ms := range first {
		lo, hi = min(lo, ms), max(hi, ms)
	}
	if len(first) != len(agents) || hi-lo > 2000 || lo < 1000 {
		t.Errorf("first prompts at %v ms: want each agent's, after a second of work, within 2000 ms of each other", first)
	}
}
