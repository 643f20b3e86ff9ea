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
// reply body (whose members are m) and returns the audience it names, or
// nil for an unsigned reply. Both reply paths call it: the spec one and the
// deployed /messages one, where a reply may name no subscription. The key
// is the one offered by exactly one subscription: the one the reply names,
// or, when it names none, the one the signature is addressed to; when both
// are named they must be the same. A signature is never ignored: one that
// cannot be checked, or does not hold, is refused. An unsigned reply passes
// unless signed replies are required. In Quirks mode the producer plays one
// that does not know the extension and ignores the header.
func (p *Producer) checkSignature(sig string, body []byte, m map[string]json.RawMessage) (*sigrpl.Audience, error) {
	switch {
	case p.opts.Quirks && !p.opts.RequireSignedReplies:
		return nil, nil
	case sig == "" && p.opts.RequireSignedReplies:
		return nil, refuse(http.StatusUnauthorized, "this producer takes only signed replies: add an %s header", sigrpl.Header)
	case sig == "":
		return nil, nil
	}
	v, err := p.replyKey(sig, body, m)
	if err != nil {
		return nil, err
	}
	aud, err := v.Verify(sig, body, p.now())
	if err != nil {
		return nil, refuse(http.StatusUnauthorized, "the reply signature is refused: %v", err)
	}
	return &aud, nil
}

// replyKey finds the key to check the signature sig of the reply m with:
// that of the one subscription the reply is bound to. It never searches
// the subscriptions for one that offered the key the signature names: a
// key offered on two subscriptions (or to two producers) must not let a
// reply given on one be taken on another.
func (p *Producer) replyKey(sig string, body []byte, m map[string]json.RawMessage) (*sigrpl.Verifier, error) {
	aud, err := sigrpl.Addressed(sig, body)
	if err != nil {
		return nil, refuse(http.StatusUnauthorized, "the reply signature is refused: %v", err)
	}
	id := aud.Subscription
	if named, ok := stringField(m, "subscription_id"); ok && named != id {
		return nil, refuse(http.StatusUnauthorized, "the reply signature is refused: the reply names the subscription %s, its signature %s (%v)",
			named, id, sigrpl.ErrAudience)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	sub := p.subs[id]
	switch {
	case sub == nil:
		return nil, refuse(http.StatusUnauthorized, "the reply signature is refused: it is addressed to no live subscription of this producer (%s)", id)
	case sub.signer == nil:
		return nil, refuse(http.StatusUnauthorized, "the reply is signed, but its subscription offered no key (%v)", sigrpl.ErrUnknownKey)
	}
	return sub.signer, nil
}

// checkAudience refuses a signed reply to the prompt pr, taken on the
// subscription subID, whose audience is not this producer, that
// subscription and the very prompt event pr was sent as.
func (p *Producer) checkAudience(aud *sigrpl.Audience, subID string, pr *prompt) error {
	if aud == nil {
		return nil
	}
	p.mu.Lock()
	digest := pr.digest
	p.mu.Unlock()
	if err := aud.Check(sigrpl.Audience{Producer: p.agent().ID, Subscription: subID, Prompt: digest}); err != nil {
		return refuse(http.StatusUnauthorized, "the signed reply is refused: %v", err)
	}
	return nil
}

// unwrapSigned checks a sigrpl:signed.reply from sub's connection and
// returns the reply it carries and the audience it names, which must be
// sub.
func (p *Producer) unwrapSigned(sub *subscription, msg []byte) (map[string]json.RawMessage, string, *sigrpl.Audience, error) {
	if sub.signer == nil {
		return nil, "", nil, refuse(http.StatusUnauthorized, "a signed reply on %s, which offered no key (%v)", sub.id, sigrpl.ErrUnknownKey)
	}
	body, aud, err := sub.signer.Unwrap(msg, p.now())
	if err != nil {
		return nil, "", nil, refuse(http.StatusUnauthorized, "the signed reply is refused: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, "", nil, refuse(http.StatusBadRequest, "the signed reply does not carry a JSON object")
	}
	if id, ok := stringField(m, "subscription_id"); ok && id != sub.id {
		return nil, "", nil, refuse(http.StatusBadRequest, "the signed reply names subscription %s, not %s", id, sub.id)
	}
	if aud.Subscription != sub.id {
		return nil, "", nil, refuse(http.StatusUnauthorized, "the signed reply is refused: %v: it was signed for the subscription %q, not %q",
			sigrpl.ErrAudience, aud.Subscription, sub.id)
	}
	typ, _ := stringField(m, "type")
	return m, typ, &aud, nil
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
	m, typ, aud, err := p.unwrapSigned(sub, msg)
	if err != nil {
		return err
	}
	return p.reply(typ, m, false, aud)
}
