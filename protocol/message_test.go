package protocol

import (
	"encoding/json"
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
