package producer

// request.go: reading a subscription.request, shared with every producer in
// this module (aaep-replay serve among them), so that they all refuse what
// they cannot honour with the same reason codes (spec §5.5.3).

import (
	"encoding/json"
	"net/http"
	"regexp"

	"github.com/aaep-term/aaep-term/protocol"
)

// semver is an aaep_version; its first group is the major version.
var semver = regexp.MustCompile(`^([0-9]+)\.[0-9]+\.[0-9]+(-[A-Za-z0-9.-]+)?$`)

// Request is a subscription.request that ReadRequest found well formed.
type Request struct {
	Members      map[string]json.RawMessage // every member, as sent
	SubscriberID string
	Capabilities map[string]json.RawMessage // empty when none were sent
}

// ReadRequest reads a subscription.request and rejects what no producer
// speaking AAEP 1.x can honour: a body that is not one, an aaep_version of
// another major version ("version_unsupported"), a missing subscriber_id,
// capabilities that are not an object.
func ReadRequest(body []byte) (*Request, *Rejection) {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil || req == nil {
		return nil, reject(http.StatusBadRequest, "unknown", "the body is not a JSON object")
	}
	if typ, _ := stringField(req, "type"); typ != protocol.TypeSubscriptionRequest {
		return nil, reject(http.StatusBadRequest, "unknown", `"type" must be %q`, protocol.TypeSubscriptionRequest)
	}
	version, _ := stringField(req, "aaep_version")
	m := semver.FindStringSubmatch(version)
	switch {
	case m == nil:
		return nil, reject(http.StatusBadRequest, "version_unsupported", `"aaep_version" must be a version such as "`+protocol.Version+`"`)
	case m[1] != "1":
		return nil, reject(http.StatusBadRequest, "version_unsupported", "this producer speaks AAEP 1.x, not %s", version)
	}
	subscriber, _ := stringField(req, "subscriber_id")
	if subscriber == "" || len(subscriber) > 256 {
		return nil, reject(http.StatusBadRequest, "unknown", `"subscriber_id" must be a string of 1 to 256 bytes`)
	}
	requested := map[string]json.RawMessage{}
	if raw, ok := req["capabilities"]; ok {
		if err := json.Unmarshal(raw, &requested); err != nil || requested == nil {
			return nil, reject(http.StatusBadRequest, "capabilities_incompatible", `"capabilities" must be an object`)
		}
	}
	return &Request{Members: req, SubscriberID: subscriber, Capabilities: requested}, nil
}

// CheckSignedManifest rejects capabilities that demand a signed manifest
// (accept_signed_manifests_only) from a producer that has none (spec
// §5.3: "manifest_signature_required").
func CheckSignedManifest(capabilities map[string]json.RawMessage, signed bool) *Rejection {
	var demand bool
	if raw, ok := capabilities["accept_signed_manifests_only"]; ok && json.Unmarshal(raw, &demand) != nil {
		return reject(http.StatusBadRequest, "capabilities_incompatible", "accept_signed_manifests_only must be true or false")
	}
	if demand && !signed {
		return reject(http.StatusBadRequest, "manifest_signature_required", "this producer has no signed manifest")
	}
	return nil
}

// Status is the HTTP status the rejection is answered with.
func (e *Rejection) Status() int { return e.status }

// Code is the rejection's reason_code.
func (e *Rejection) Code() string { return e.code }

// Message is the subscription.rejected message, as JSON.
func (e *Rejection) Message() []byte {
	b, _ := json.Marshal(e.message()) // a map of plain values always marshals
	return b
}
