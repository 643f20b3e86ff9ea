package subscriber

// sign.go: signed replies (the sigrpl extension) through a Signer.

import (
	"fmt"
	"net/http"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
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
	// SignDetached signs body for the HTTP back channel's header.
	SignDetached(body []byte, at time.Time) (string, error)
	// Wrap returns the sigrpl:signed.reply message carrying body.
	Wrap(body []byte, at time.Time) ([]byte, error)
}

var _ Signer = (*sigrpl.Key)(nil)

// signState is what the connection learned about signing.
type signState struct {
	honored  bool // the producer said it checks signatures
	inHeader bool // the last Send signed its message in a header
}

// accepted notes whether the producer's acceptance honours signed replies.
func (s *signState) accepted(honored protocol.Capabilities) {
	_, s.honored = honored.Extra[sigrpl.Prefix]
}

// sendHeader signs a message POSTed on the HTTP back channel. It runs on
// the owner goroutine, inside Send.
func (c *Client) sendHeader(msg []byte) (http.Header, error) {
	c.sign.inHeader = false
	if c.cfg.Signer == nil {
		return nil, nil
	}
	sig, err := c.cfg.Signer.SignDetached(msg, time.Now()) // iat is the wall clock, whatever Now says
	if err != nil {
		return nil, fmt.Errorf("sign the answer: %w", err)
	}
	c.sign.inHeader = true
	return http.Header{sigrpl.Header: {sig}}, nil
}

// wrap returns the message to Send for a reply body: on a framed
// connection to a producer that honours signed replies, the
// sigrpl:signed.reply wrapping it; otherwise the body itself.
func (c *Client) wrap(body []byte) (msg []byte, wrapped bool, err error) {
	c.sign.inHeader = false
	if c.cfg.Signer == nil || !c.sign.honored || transport.BindingOf(c.endpoint) == transport.BindingSSE {
		return body, false, nil
	}
	msg, err = c.cfg.Signer.Wrap(body, time.Now())
	if err != nil {
		return nil, false, fmt.Errorf("sign the answer: %w", err)
	}
	return msg, true, nil
}

// signed reports whether the reply just sent went with a signature.
func (c *Client) signed(wrapped bool) bool {
	return c.cfg.Signer != nil && (c.sign.inHeader || wrapped)
}

// signedWords tells whether the answer just sent was signed.
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
	case (c.sign.inHeader || wrapped) && c.sign.honored:
		return "The answer was signed with your key " + kid + "; the producer checks signatures."
	case c.sign.inHeader:
		return "The answer was signed with your key " + kid + ", but the producer did not say it checks signatures."
	}
	return "The answer was sent unsigned: the producer does not take signed answers on this connection."
}
