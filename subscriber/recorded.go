package subscriber

// recorded.go: a reply the recorded subscriber of a capture sent, told to
// the client that plays the capture back, so that what followed it live
// reads the same when played.

import (
	"context"
	"encoding/json"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// Recorded tells the client that the subscriber of a recording sent msg, a
// confirmation.reply or clarification.reply: the prompt waiting with its
// reply_token is settled as answered, as it was live, so the agent going on
// afterwards is not told as the prompt being settled elsewhere, and a tool
// started after a recorded reject is told as such. Nothing is sent. It
// reports whether a prompt waiting took the reply; the session.KindReplySent
// delivery it causes is the program's to word (the user sent nothing).
func (c *Client) Recorded(ctx context.Context, msg []byte) (bool, error) {
	var m struct {
		Type       string `json:"type"`
		ReplyToken string `json:"reply_token"`
		Decision   string `json:"decision"`
	}
	if err := json.Unmarshal(msg, &m); err != nil || m.ReplyToken == "" {
		return false, nil // an unreadable reply answers no prompt
	}
	m.Type = protocol.NormalizeType(m.Type)
	took := false
	err := c.do(ctx, func() {
		for _, p := range c.eng.Pending() {
			if p.Event.ReplyToken != m.ReplyToken || !answers(m.Type, p.Event.Type) {
				continue
			}
			c.eng.Sent(session.Reply{Prompt: p, Body: msg, Decision: m.Decision, DecidedBy: session.DecidedByRecording}, c.now())
			took = true
			return
		}
	})
	return took, err
}

// answers reports whether a reply of type reply answers a prompt of type
// prompt.
func answers(reply, prompt string) bool {
	switch reply {
	case protocol.TypeConfirmationReply:
		return prompt == protocol.TypeAwaitingConfirmation
	case protocol.TypeClarificationReply:
		return prompt == protocol.TypeAwaitingClarify
	}
	return false
}
