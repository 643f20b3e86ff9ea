package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestHandshakeMessagesMatchSchemas(t *testing.T) {
	s := schemas(t)
	yes := true
	retry := 30
	msgs := []any{
		SubscriptionRequest{Type: TypeSubscriptionRequest, AAEPVersion: "1.0.0", SubscriberID: "aaep-term",
			Capabilities: Capabilities{PreferredVerbosity: "terse", Languages: []string{"yo-NG", "en"}, SupportsConfirmationReply: &yes,
				SupportedConformanceLevels: []int{1, 2, 3}, Extra: map[string]json.RawMessage{"sigrpl": json.RawMessage(`{"required":false}`)}}},
		SubscriptionAccepted{Type: TypeSubscriptionAccepted, SubscriptionID: "sub_1", AAEPVersion: "1.0.0",
			Producer: ProducerInfo{AgentID: "demo"}, HonoredCapabilities: Capabilities{MaxEventsPerSecond: 5}},
		SubscriptionRejected{Type: TypeSubscriptionRejected, ReasonCode: "rate_limit", ReasonMessage: "Too many.", RetryAfterSeconds: &retry},
		SubscriptionRenegotiate{Type: TypeSubscriptionRenegotiate, SubscriptionID: "sub_1", Capabilities: Capabilities{CognitiveLoad: "low"}},
		SubscriptionClose{Type: TypeSubscriptionClose, SubscriptionID: "sub_1", ReasonCode: "subscriber_shutdown"},
		ConfirmationReply{Type: TypeConfirmationReply, ReplyToken: "rpl_1", Decision: DecisionReject, SubscriptionID: "sub_1", Timestamp: "2026-06-30T14:22:11.342Z"},
		ClarificationReply{Type: TypeClarificationReply, ReplyToken: "rpl_1", Response: 3.5, SubscriptionID: "sub_1", Timestamp: "2026-06-30T14:22:11.342Z"},
	}
	for _, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(b); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	}
	// Unknown capability members survive a round trip.
	var c Capabilities
	if err := json.Unmarshal([]byte(`{"pace_wpm":180,"sigrpl":{"required":true}}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.PaceWPM != 180 || string(c.Extra["sigrpl"]) != `{"required":true}` {
		t.Errorf("got %+v", c)
	}
	// A reply missing its subscription is refused by the schema.
	if err := s.Check([]byte(`{"type":"confirmation.reply","reply_token":"rpl_1","decision":"accept","timestamp":"2026-06-30T14:22:11Z"}`)); err == nil {
		t.Error("reply without subscription_id accepted")
	}
}

// A message with members its schema does not allow is reported with them
// in one order, the same from run to run: the validator finds them in its
// map's order, which Go changes from one iteration to the next (a check's
// report of protocol/testdata/edge-messages.jsonl differed between runs).
func TestUndefinedMembersInOneOrder(t *testing.T) {
	s, err := NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte(`{"type":"subscription.close","subscription_id":"sub_1","tool":"t","summary_normal":"S","@context":"c","event_id":"e","session_id":"s","zeta":1,"alpha":2}`)
	const want = "'@context', 'alpha', 'event_id', 'session_id', 'summary_normal', 'tool', 'zeta'"
	for range 20 {
		err := s.Check(msg)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Check = %v, want the undefined members in order: %s", err, want)
		}
	}
}
