package subscriber

// sign.go: signed replies (the sigrpl extension) through a Signer.

import (
	"fmt"
	"net/http"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/sigrpl"
	"github.com/aaep-term/aaep-term/transport"
)

// Signer signs replies for the signed-replies extension. *sigrpl.Key
// implements it. Its methods are called from the client's goroutines one at
// a time.
type Signer interface {
	// KID is the key's thumbprint.
	KID() string
	// Offer is the public key as offered in the subscription request.
	Offer() (sigrpl.Offer, error)
	// SignDetached signs body, addressed to aud, for the HTTP back
	// channel's header.
	SignDetached(body []byte, aud sigrpl.Audience, at time.Time) (string, error)
	// Wrap returns the sigrpl:signed.reply message carrying body,
	// addressed to aud.
	Wrap(body []byte, aud sigrpl.Audience, at time.Time) ([]byte, error)
}

var _ Signer = (*sigrpl.Key)(nil)

// signState is what the connection learned about signing. A reply is
// signed only for a producer that honoured the extension in its
// acceptance, and only addressed to it: its agent_id, the subscription it
// accepted and the prompt event answered, so that a producer that relays
// the reply elsewhere relays a signature that is refused there.
type signState struct {
	honored  bool   // the producer said it checks signatures
	producer string // its agent_id, from its acceptance
	sub      string // the subscription it accepted
	// pending is the audience of the reply being POSTed, which
	// sendHeader signs; nil signs nothing (a renegotiation, a close, a
	// reply to a producer that takes no signatures).
	pending  *sigrpl.Audience
	inHeader bool // the last Send signed its message in a header
	told     bool // the user was told that answers to this producer go unsigned
}

// accepted notes whether the producer's acceptance honours signed replies,
// and whom its replies are addressed to.
func (s *signState) accepted(m protocol.SubscriptionAccepted) {
	_, s.honored = m.HonoredCapabilities.Extra[sigrpl.Prefix]
	s.producer, s.sub = m.Producer.AgentID, m.SubscriptionID
}

// audience is whom reply r is signed for; ok is false when it is not to be
// signed: no key, a producer that did not honour the extension (or did not
// say who it is), or no prompt event to name.
func (c *Client) audience(r session.Reply) (aud sigrpl.Audience, ok bool) {
	s := &c.sign
	if c.cfg.Signer == nil || !s.honored || s.producer == "" || s.sub == "" ||
		r.Prompt == nil || r.Prompt.Event == nil || len(r.Prompt.Event.Raw) == 0 {
		return aud, false
	}
	return sigrpl.Audience{Producer: s.producer, Subscription: s.sub, Prompt: sigrpl.PromptDigest(r.Prompt.Event.Raw)}, true
}

// sendHeader signs a reply POSTed on the HTTP back channel for the
// audience wrap set. It runs on the owner goroutine, inside Send.
func (c *Client) sendHeader(msg []byte) (http.Header, error) {
	c.sign.inHeader = false
	if c.cfg.Signer == nil || c.sign.pending == nil {
		return nil, nil
	}
	sig, err := c.cfg.Signer.SignDetached(msg, *c.sign.pending, time.Now()) // iat is the wall clock, whatever Now says
	if err != nil {
		return nil, fmt.Errorf("sign the answer: %w", err)
	}
	c.sign.inHeader = true
	return http.Header{sigrpl.Header: {sig}}, nil
}

// wrap returns the message to Send for reply r to a producer that
// honours signed replies: on a framed connection, the sigrpl:signed.reply
// wrapping it; on HTTP the body, which sendHeader then signs. Otherwise it
// is the body, unsigned.
func (c *Client) wrap(r session.Reply) (msg []byte, wrapped bool, err error) {
	c.sign.inHeader, c.sign.pending = false, nil
	aud, ok := c.audience(r)
	if !ok {
		return r.Body, false, nil
	}
	if c.ep.Binding == transport.BindingSSE {
		c.sign.pending = &aud
		return r.Body, false, nil
	}
	msg, err = c.cfg.Signer.Wrap(r.Body, aud, time.Now())
	if err != nil {
		return nil, false, fmt.Errorf("sign the answer: %w", err)
	}
	return msg, true, nil
}

// signed reports whether the reply just sent went with a signature; the
// audience it was signed for is forgotten.
func (c *Client) signed(wrapped bool) bool {
	c.sign.pending = nil
	return c.cfg.Signer != nil && (c.sign.inHeader || wrapped)
}

// signedWords tells whether the answer just sent was signed. That a
// producer takes no signed answers is said once, with the first answer.
func (c *Client) signedWords(wrapped bool) string {
	kid := ""
	if c.cfg.Signer != nil {
		kid = c.cfg.Signer.KID()
		kid = kid[:min(8, len(kid))]
	}
	switch {
	case c.cfg.Signer == nil && c.cfg.NoSignerWords != "":
		return "The answer was sent unsigned (" + c.cfg.NoSignerWords + ")."
	case c.cfg.Signer == nil:
		return "The answer was sent unsigned: no signing key."
	case c.sign.inHeader || wrapped:
		return "The answer was signed with your key " + kid + " for this producer and this prompt only; the producer checks signatures."
	case c.sign.told:
		return ""
	}
	c.sign.told = true
	if c.sign.honored {
		return "The answer was sent unsigned: the producer did not say who it is, so your key signs nothing for it. Later answers to it go unsigned too."
	}
	return "The answer was sent unsigned: the producer did not agree to check signed answers, so your key signs nothing for it. Later answers to it go unsigned too."
}
