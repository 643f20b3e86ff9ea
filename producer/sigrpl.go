package producer

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/aaep-term/aaep-term/sigrpl"
)

// sigrplHonored is honored_capabilities.sigrpl: the producer checks the
// signatures of replies made with the key kid.
type sigrplHonored struct {
	KID      string `json:"kid"`
	Required bool   `json:"required"`
}

// signerOffer reads the key offered in a subscription.request's
// extensions.sigrpl. It returns nil when none is offered; an offer that is
// malformed, or whose key is not pinned when keys are pinned, is rejected.
func (p *Producer) signerOffer(req map[string]json.RawMessage) (*sigrpl.Verifier, *sigrplHonored, *Rejection) {
	var ext map[string]json.RawMessage
	if raw, ok := req["extensions"]; ok {
		if err := json.Unmarshal(raw, &ext); err != nil {
			return nil, nil, reject(http.StatusBadRequest, "unknown", `"extensions" must be an object`)
		}
	}
	raw, ok := ext[sigrpl.Prefix]
	if !ok {
		if p.opts.RequireSignedReplies || len(p.opts.PinnedKeys) > 0 {
			return nil, nil, reject(http.StatusUnauthorized, "authentication_required",
				"this producer takes only signed replies: offer a key in extensions.%s (%s)", sigrpl.Prefix, sigrpl.Namespace)
		}
		return nil, nil, nil
	}
	v, err := sigrpl.ParseOffer(raw)
	if err != nil {
		return nil, nil, reject(http.StatusBadRequest, "capabilities_incompatible", "extensions.%s: %v", sigrpl.Prefix, err)
	}
	if len(p.opts.PinnedKeys) > 0 && !slices.Contains(p.opts.PinnedKeys, v.KID()) {
		return nil, nil, reject(http.StatusForbidden, "authorization_denied",
			"the reply key %s is not pinned on this producer", v.KID())
	}
	return v, &sigrplHonored{KID: v.KID(), Required: p.opts.RequireSignedReplies}, nil
}

// checkSignature checks the AAEP-Reply-Signature header sig of an HTTP
// reply body (whose members are m). Both reply paths call it: the spec one
// and the deployed /messages one, where a reply may name no subscription.
// The key is the one offered by the subscription the reply names or, when
// it names none, the one offered by a live subscription under the kid the
// signature names. A signature is never ignored: one that cannot be
// checked, or does not hold, is refused. An unsigned reply passes unless
// signed replies are required. In Quirks mode the producer plays one that
// does not know the extension and ignores the header.
func (p *Producer) checkSignature(sig string, body []byte, m map[string]json.RawMessage) error {
	switch {
	case p.opts.Quirks && !p.opts.RequireSignedReplies:
		return nil
	case sig == "" && p.opts.RequireSignedReplies:
		return refuse(http.StatusUnauthorized, "this producer takes only signed replies: add an %s header", sigrpl.Header)
	case sig == "":
		return nil
	}
	v, err := p.replyKey(sig, body, m)
	if err != nil {
		return err
	}
	if err := v.Verify(sig, body, p.now()); err != nil {
		return refuse(http.StatusUnauthorized, "the reply signature is refused: %v", err)
	}
	return nil
}

// replyKey finds the key to check the signature sig of the reply m with.
func (p *Producer) replyKey(sig string, body []byte, m map[string]json.RawMessage) (*sigrpl.Verifier, error) {
	id, named := stringField(m, "subscription_id")
	p.mu.Lock()
	defer p.mu.Unlock()
	if named {
		sub := p.subs[id]
		switch {
		case sub == nil:
			return nil, refuse(http.StatusUnauthorized, "the reply signature is refused: the reply names no live subscription (%s)", id)
		case sub.signer == nil:
			return nil, refuse(http.StatusUnauthorized, "the reply is signed, but its subscription offered no key (%v)", sigrpl.ErrUnknownKey)
		}
		return sub.signer, nil
	}
	kid, err := sigrpl.SignedBy(sig, body)
	if err != nil {
		return nil, refuse(http.StatusUnauthorized, "the reply signature is refused: %v", err)
	}
	for _, sub := range p.subs {
		if sub.signer != nil && sub.signer.KID() == kid {
			return sub.signer, nil
		}
	}
	return nil, refuse(http.StatusUnauthorized, "the reply signature is refused: no subscription offered the key %q it names (%v)", kid, sigrpl.ErrUnknownKey)
}

// unwrapSigned checks a sigrpl:signed.reply from sub's connection and
// returns the reply it carries.
func (p *Producer) unwrapSigned(sub *subscription, msg []byte) (map[string]json.RawMessage, string, error) {
	if sub.signer == nil {
		return nil, "", refuse(http.StatusUnauthorized, "a signed reply on %s, which offered no key (%v)", sub.id, sigrpl.ErrUnknownKey)
	}
	body, err := sub.signer.Unwrap(msg, p.now())
	if err != nil {
		return nil, "", refuse(http.StatusUnauthorized, "the signed reply is refused: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, "", refuse(http.StatusBadRequest, "the signed reply does not carry a JSON object")
	}
	if id, ok := stringField(m, "subscription_id"); ok && id != sub.id {
		return nil, "", refuse(http.StatusBadRequest, "the signed reply names subscription %s, not %s", id, sub.id)
	}
	typ, _ := stringField(m, "type")
	return m, typ, nil
}

// errUnsigned refuses a plain reply where only signed ones are taken.
var errUnsigned = errors.New("this producer takes only " + sigrpl.TypeSignedReply + " messages")

// plainAllowed says whether a plain (unsigned) framed reply is taken.
func (p *Producer) plainAllowed() error {
	if p.opts.RequireSignedReplies {
		return refuse(http.StatusUnauthorized, "%v", errUnsigned)
	}
	return nil
}

func (p *Producer) now() time.Time {
	if p.opts.Now != nil {
		return p.opts.Now()
	}
	return time.Now()
}

// framedSigned checks and settles a sigrpl:signed.reply from sub's
// connection.
func (p *Producer) framedSigned(sub *subscription, msg []byte) error {
	m, typ, err := p.unwrapSigned(sub, msg)
	if err != nil {
		return err
	}
	return p.reply(typ, m, false)
}
