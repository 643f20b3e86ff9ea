package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/audit"
	"github.com/aaep-term/aaep-term/protocol"
)

// A reply the transport could not take is announced, logged as not
// delivered, and can be given again while the prompt is live; once
// delivered, it is not sent again.
func TestFailedReplyCanBeRetried(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	l, out, conn := testListener(t, now, false)
	conn.setDown(true)
	var auditBuf bytes.Buffer
	l.SetAudit(audit.New(&auditBuf))
	yes := true
	l.handle(&protocol.Event{Type: protocol.TypeAwaitingConfirmation, EventID: "evt_1", SessionID: "sess_1",
		Producer: protocol.Producer{AgentID: "a"}, Urgency: protocol.UrgencyCritical, Action: "Pay.", Consequence: "Paid.",
		ReplyToken: "rpl_1", TimeoutSeconds: 60, DefaultDecision: "reject", RiskLevel: "high", Irreversible: &yes, Timestamp: now})

	l.command(context.Background(), "accept 1")
	l.sure() // a payment that cannot be undone: the second step
	if len(conn.sent) != 0 || !strings.Contains(strings.Join(out.lines, "\n"),
		"Could not send your answer to prompt 1: connection refused. The prompt is still waiting; try again.") {
		t.Fatalf("failure not announced: sent %d\n%s", len(conn.sent), strings.Join(out.lines, "\n"))
	}
	conn.setDown(false)
	l.command(context.Background(), "accept 1")
	l.sure()
	l.command(context.Background(), "accept 1")
	if len(conn.sent) != 1 {
		t.Fatalf("sent %d replies, want 1", len(conn.sent))
	}
	if last := out.lines[len(out.lines)-1]; last != "Prompt 1 is already answered." {
		t.Errorf("second answer: %q", last)
	}
	logged := auditBuf.String()
	for _, want := range []string{`"what":"decision","prompt":1`, `"delivered":false,"error":"connection refused"`, `"delivered":true`} {
		if !strings.Contains(logged, want) {
			t.Errorf("audit log lacks %s:\n%s", want, logged)
		}
	}
	if n := strings.Count(logged, `"what":"decision"`); n != 2 {
		t.Errorf("%d decision records, want 2 (failed, then delivered)", n)
	}
}
