package hostile_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/hostile"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// fillStrings sets every exported string, and every list of strings, in v to h.
func fillStrings(v reflect.Value, h string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(h)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillStrings(v.Field(i), h)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			v.Set(reflect.ValueOf([]string{h, h}).Convert(v.Type()))
		}
	}
}

// Every string field of every core event type, from a hostile producer,
// through the real engine (its notes, safety warnings and diagnostics
// quote producer text) and announcer, to plain lines and --json: nothing
// survives, and no line is forged. A field added to protocol.Event is in
// this test without anyone adding it.
func TestHostileEveryEventField(t *testing.T) {
	types := []string{protocol.TypeSessionStarted, protocol.TypeStateChanged, protocol.TypeProgressUpdated, protocol.TypeToolInvoked,
		protocol.TypeToolCompleted, protocol.TypeOutputStreaming, protocol.TypeAwaitingConfirmation, protocol.TypeAwaitingClarify,
		protocol.TypeHandoffRequested, protocol.TypeSessionErrored, protocol.TypeSessionCompleted, protocol.TypeSessionCancelled}
	for _, c := range hostile.Cases {
		for _, mk := range []func() (announce.Sink, func() string){plainSink, jsonSink} {
			sink, result := mk()
			a := announce.New(announce.Config{}, sink)
			e := session.New(session.Config{}, a)
			at := time.Date(2026, 6, 30, 14, 22, 11, 0, time.UTC)
			for i, typ := range types {
				ev := &protocol.Event{}
				fillStrings(reflect.ValueOf(ev).Elem(), c.S)
				yes := true
				ev.Type, ev.Seq, ev.HasSeq, ev.Irreversible = typ, int64(i), true, &yes
				ev.SessionID, ev.Producer.AgentID = "sess_1", "bank"
				ev.EventID = c.S + strings.Repeat("x", i)
				ev.Urgency = ""
				ev.SummaryTerse, ev.SummaryNormal, ev.SummaryDetailed = "", "", ""
				ev.DefaultDecision = "accept"
				ev.RiskLevel = "high"
				ev.TimeoutSeconds = 60
				ev.Choices = []protocol.Choice{{Value: c.S, Label: protocol.Text(c.S)}}
				ev.Raw = []byte(`{}`)
				if ev.IsCritical() {
					ev.Urgency = protocol.UrgencyCritical
				}
				e.Handle(ev, at)
			}
			e.Tick(at.Add(time.Hour))
			a.Flush(at.Add(time.Hour))
			out := result()
			p := hostile.Problems(out)
			if strings.HasPrefix(out, "{") {
				p = hostile.ProblemsJSON(out)
			}
			if len(p) > 0 {
				t.Errorf("%s: %v\n%s", c.Name, p, clip(out))
			}
		}
	}
}
