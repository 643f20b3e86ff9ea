package capture

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// edgeEnvelope is the envelope of the single events below; %s is the rest.
const edgeEnvelope = `{"@context":"https://aaep-protocol.org/context/v1","event_id":"evt_edge1","session_id":"sess_edge1","timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"},%s}`

// Every schema problem of a single event is reported, whatever its member:
// none is dropped on the guess that an event rule explains it, and one an
// event rule does explain is reported once, by that rule.
func TestEverySchemaProblemReported(t *testing.T) {
	confirm := `"type":"aaep:agent.awaiting.confirmation","urgency":"critical","action":"Pay","consequence":"Money leaves","reply_token":"rpl_1","timeout_seconds":60`
	for _, tt := range []struct {
		name string
		body string
		want []string // "rule section pointer" of each violation (severity violation)
	}{
		{"panic urgency on a normal type", `"type":"aaep:agent.tool.invoked","tool":"t","summary_normal":"S","urgency":"panic"`, []string{"schema 4.3.1 /urgency"}},
		{"panic urgency on an extension type", `"type":"medai:patient.consulted","summary_normal":"S","urgency":"panic"`, []string{"schema 3.9 /urgency"}},
		{"panic urgency on a critical type", confirm + `,"default_decision":"reject","urgency":"panic"`, []string{"critical-urgency 4.4.1 /urgency"}},
		{"maybe default", confirm + `,"default_decision":"maybe"`, []string{"schema 4.4.1 /default_decision"}},
		{"maybe default on an irreversible high-risk action", confirm + `,"default_decision":"maybe","irreversible":true,"risk_level":"high"`, []string{"schema 4.4.1 /default_decision"}},
		{"accept default on an irreversible high-risk action", confirm + `,"default_decision":"accept","irreversible":true,"risk_level":"high"`, []string{"default-decision 6.4.1 /default_decision"}},
		{"undefined top-level member", `"type":"aaep:agent.tool.invoked","tool":"t","summary_normal":"S","colour":"red"`, []string{"top-level-member 7.2 /colour"}},
		{"another type's member", `"type":"aaep:agent.session.started","summary_normal":"S","tool":"t"`, []string{"top-level-member 7.2 /tool"}},
		{"two undefined members and a bad one", `"type":"aaep:agent.tool.invoked","tool":"t","summary_normal":"S","colour":"red","size":3,"risk_level":"extreme"`, []string{"schema 4.3.1 /risk_level", "top-level-member 7.2 /colour,/size"}},
		{"critical type without urgency", `"type":"aaep:agent.session.errored","error_category":"permanent","summary_normal":"S"`, []string{"critical-urgency 4.1.3 /urgency"}},
		{"wrong types", `"type":"aaep:agent.tool.invoked","tool":5,"summary_normal":["S"],"irreversible":"yes"`, []string{"schema 4.3.1 /irreversible,/summary_normal,/tool"}},
		{"language variants of text members", `"type":"aaep:agent.tool.invoked","tool":"t","summary_normal":"S","summary_normal_yo":"Mo ń ṣírò.","args_summary_es_419":"x"`, nil},
		{"a language variant of another type's member", `"type":"aaep:agent.tool.invoked","tool":"t","summary_normal":"S","action_fr":"Payer"`, []string{"top-level-member 7.2 /action_fr"}},
		{"extension data in extensions", `"type":"aaep:agent.tool.invoked","tool":"t","summary_normal":"S","extensions":{"medai":{"colour":"red"}}`, nil},
		{"extension type with its own members", `"type":"medai:patient.consulted","summary_normal":"S","round":4`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewChecker(CheckOptions{SchemaOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			msg := fmt.Sprintf(edgeEnvelope, tt.body)
			st := c.Check(Record{Line: 1, Dir: In, Msg: []byte(msg)})
			var got []string
			for _, v := range st.Violations {
				if v.Severity != SeverityViolation {
					continue
				}
				got = append(got, fmt.Sprintf("%s %s %s", v.Rule, v.Section, strings.Join(v.Pointers, ",")))
				for _, p := range v.Pointers {
					if !strings.Contains(v.Message, p) && v.Rule != "critical-urgency" && v.Rule != "default-decision" {
						t.Errorf("the message does not name %s: %s", p, v.Message)
					}
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("violations\n%q\nwant\n%q\nall: %v", got, tt.want, st.Violations)
			}
		})
	}
}
