package main

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// TestPendingSummaryOneStop: a prompt's own closing mark is never followed
// by another full stop ("…book the table for?." and "…Lisbon Energy..").
func TestPendingSummaryOneStop(t *testing.T) {
	q := &session.Prompt{Number: 2, Event: &protocol.Event{Type: protocol.TypeAwaitingClarify, Question: "Which time should I book the table for?"}}
	c := &session.Prompt{Number: 1, Event: &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Transfer 86.40 euros to Lisbon Energy."}}
	for _, p := range [][]*session.Prompt{{q}, {c}, {c, q}, {q, c}} {
		got := pendingSummary(p)
		for _, bad := range []string{"..", "?.", "!.", ".;"} {
			if strings.Contains(got, bad) {
				t.Errorf("pendingSummary = %q: has %q", got, bad)
			}
		}
	}
}
