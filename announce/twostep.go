// twostep.go holds the rule and the words of the second step an accept takes
// when it cannot be undone: line mode, the TUI and braille ask it alike.

package announce

import (
	"fmt"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// TwoSteps reports whether accepting ev, a prompt event, takes a second,
// explicit step: a confirmation of high risk that cannot be undone
// (risk_level "high" and irreversible true, or reversibility
// "irreversible"). Rejecting never does, nor does any other prompt.
func TwoSteps(ev *protocol.Event) bool {
	if ev == nil || ev.Type != protocol.TypeAwaitingConfirmation || ev.RiskLevel != "high" {
		return false
	}
	return ev.Irreversible != nil && *ev.Irreversible || ev.Reversibility == "irreversible"
}

// SecondStep is the question asked before an accept of p that takes two
// steps is sent, naming the action, ending with how to send it:
// "Transfer 86.40 euros to Lisbon Energy, which cannot be undone? Type yes to send."
// how is what the user does to send ("Type yes to send").
func SecondStep(p *session.Prompt, how string) string {
	action := strings.TrimRight(PromptTopic(p), ".!? ")
	if action == "" {
		action = fmt.Sprintf("Accept prompt %d", p.Number)
	}
	return fmt.Sprintf("%s, which cannot be undone? %s.", protocol.Theirs(action), how)
}
