// fields.go lists the top-level members the decoder knows.

package protocol

import "encoding/binary"

// field identifies a top-level member of an event.
type field uint8

// Known members, envelope first.
const (
	fAtContext field = iota
	fAaepVersion
	fType
	fEventID
	fSessionID
	fSequenceNumber
	fTimestamp
	fProducer
	fVerbosity
	fUrgency
	fLocalizationHints
	fCorrelationID
	fExtensions
	fSummaryTerse
	fSummaryNormal
	fSummaryDetailed
	fExpectedDurationMS
	fRequestedBy
	fRequestText
	fToolsAvailable
	fDurationMS
	fToolInvocationsCount
	fOutputSummary
	fResultURI
	fErrorCategory
	fErrorCode
	fErrorURI
	fRecoverable
	fRemediationHint
	fCancelledBy
	fCancellationReason
	fPartialResult
	fFromState
	fToState
	fProgress
	fEtaMS
	fTool
	fToolCallID
	fDescription
	fArgsSummary
	fRiskLevel
	fIrreversible
	fStatus
	fErrorMessage
	fChunk
	fPosition
	fComplete
	fCoalesceHint
	fOutputID
	fContentType
	fLanguage
	fReplyToken
	fTimeoutSeconds
	fAction
	fConsequence
	fDefaultDecision
	fReversibility
	fAllowedReplies
	fExtraContext
	fQuestion
	fAcceptedResponseKinds
	fChoices
	fContext
	fDefaultResponse
	fReason
	fTargetKind
	fTargetURI
	fPackagedContext
	fUrgencyForHandoff
	nField
	noField field = 255
)

// fieldNames are the members' JSON names, indexed by field.
var fieldNames = [nField]string{
	fAtContext:             "@context",
	fAaepVersion:           "aaep_version",
	fType:                  "type",
	fEventID:               "event_id",
	fSessionID:             "session_id",
	fSequenceNumber:        "sequence_number",
	fTimestamp:             "timestamp",
	fProducer:              "producer",
	fVerbosity:             "verbosity",
	fUrgency:               "urgency",
	fLocalizationHints:     "localization_hints",
	fCorrelationID:         "correlation_id",
	fExtensions:            "extensions",
	fSummaryTerse:          "summary_terse",
	fSummaryNormal:         "summary_normal",
	fSummaryDetailed:       "summary_detailed",
	fExpectedDurationMS:    "expected_duration_ms",
	fRequestedBy:           "requested_by",
	fRequestText:           "request_text",
	fToolsAvailable:        "tools_available",
	fDurationMS:            "duration_ms",
	fToolInvocationsCount:  "tool_invocations_count",
	fOutputSummary:         "output_summary",
	fResultURI:             "result_uri",
	fErrorCategory:         "error_category",
	fErrorCode:             "error_code",
	fErrorURI:              "error_uri",
	fRecoverable:           "recoverable",
	fRemediationHint:       "remediation_hint",
	fCancelledBy:           "cancelled_by",
	fCancellationReason:    "cancellation_reason",
	fPartialResult:         "partial_result",
	fFromState:             "from_state",
	fToState:               "to_state",
	fProgress:              "progress",
	fEtaMS:                 "eta_ms",
	fTool:                  "tool",
	fToolCallID:            "tool_call_id",
	fDescription:           "description",
	fArgsSummary:           "args_summary",
	fRiskLevel:             "risk_level",
	fIrreversible:          "irreversible",
	fStatus:                "status",
	fErrorMessage:          "error_message",
	fChunk:                 "chunk",
	fPosition:              "position",
	fComplete:              "complete",
	fCoalesceHint:          "coalesce_hint",
	fOutputID:              "output_id",
	fContentType:           "content_type",
	fLanguage:              "language",
	fReplyToken:            "reply_token",
	fTimeoutSeconds:        "timeout_seconds",
	fAction:                "action",
	fConsequence:           "consequence",
	fDefaultDecision:       "default_decision",
	fReversibility:         "reversibility",
	fAllowedReplies:        "allowed_replies",
	fExtraContext:          "extra_context",
	fQuestion:              "question",
	fAcceptedResponseKinds: "accepted_response_kinds",
	fChoices:               "choices",
	fContext:               "context",
	fDefaultResponse:       "default_response",
	fReason:                "reason",
	fTargetKind:            "target_kind",
	fTargetURI:             "target_uri",
	fPackagedContext:       "packaged_context",
	fUrgencyForHandoff:     "urgency_for_handoff",
}

// lookupField returns the field named by a member's key, or noField.
func lookupField(key []byte) field {
	switch string(key) {
	case "@context":
		return fAtContext
	case "aaep_version":
		return fAaepVersion
	case "type":
		return fType
	case "event_id":
		return fEventID
	case "session_id":
		return fSessionID
	case "sequence_number":
		return fSequenceNumber
	case "timestamp":
		return fTimestamp
	case "producer":
		return fProducer
	case "verbosity":
		return fVerbosity
	case "urgency":
		return fUrgency
	case "localization_hints":
		return fLocalizationHints
	case "correlation_id":
		return fCorrelationID
	case "extensions":
		return fExtensions
	case "summary_terse":
		return fSummaryTerse
	case "summary_normal":
		return fSummaryNormal
	case "summary_detailed":
		return fSummaryDetailed
	case "expected_duration_ms":
		return fExpectedDurationMS
	case "requested_by":
		return fRequestedBy
	case "request_text":
		return fRequestText
	case "tools_available":
		return fToolsAvailable
	case "duration_ms":
		return fDurationMS
	case "tool_invocations_count":
		return fToolInvocationsCount
	case "output_summary":
		return fOutputSummary
	case "result_uri":
		return fResultURI
	case "error_category":
		return fErrorCategory
	case "error_code":
		return fErrorCode
	case "error_uri":
		return fErrorURI
	case "recoverable":
		return fRecoverable
	case "remediation_hint":
		return fRemediationHint
	case "cancelled_by":
		return fCancelledBy
	case "cancellation_reason":
		return fCancellationReason
	case "partial_result":
		return fPartialResult
	case "from_state":
		return fFromState
	case "to_state":
		return fToState
	case "progress":
		return fProgress
	case "eta_ms":
		return fEtaMS
	case "tool":
		return fTool
	case "tool_call_id":
		return fToolCallID
	case "description":
		return fDescription
	case "args_summary":
		return fArgsSummary
	case "risk_level":
		return fRiskLevel
	case "irreversible":
		return fIrreversible
	case "status":
		return fStatus
	case "error_message":
		return fErrorMessage
	case "chunk":
		return fChunk
	case "position":
		return fPosition
	case "complete":
		return fComplete
	case "coalesce_hint":
		return fCoalesceHint
	case "output_id":
		return fOutputID
	case "content_type":
		return fContentType
	case "language":
		return fLanguage
	case "reply_token":
		return fReplyToken
	case "timeout_seconds":
		return fTimeoutSeconds
	case "action":
		return fAction
	case "consequence":
		return fConsequence
	case "default_decision":
		return fDefaultDecision
	case "reversibility":
		return fReversibility
	case "allowed_replies":
		return fAllowedReplies
	case "extra_context":
		return fExtraContext
	case "question":
		return fQuestion
	case "accepted_response_kinds":
		return fAcceptedResponseKinds
	case "choices":
		return fChoices
	case "context":
		return fContext
	case "default_response":
		return fDefaultResponse
	case "reason":
		return fReason
	case "target_kind":
		return fTargetKind
	case "target_uri":
		return fTargetURI
	case "packaged_context":
		return fPackagedContext
	case "urgency_for_handoff":
		return fUrgencyForHandoff
	}
	return noField
}

// keyPattern is a member's name as it is usually written, `"name":`, in
// words of eight bytes: where the members of a stream's events come in the
// same order, the decoder compares the next bytes with the name the last
// event had at that place, instead of scanning the name and looking it up.
type keyPattern struct {
	n     int       // bytes of `"name":`
	words int       // words to compare: n rounded up to eight bytes
	w     [4]uint64 // the words, the last filled with zeros past n
	mask  [4]uint64 // which bytes of each word are compared
}

// keyPatterns are the patterns of the known members, indexed by field;
// commaKeyPatterns, the same after the comma that ends the member before,
// `,"name":`.
var keyPatterns, commaKeyPatterns = patterns(""), patterns(",")

// patterns makes the known members' patterns, each after prefix.
func patterns(prefix string) (ps [nField]keyPattern) {
	for f, name := range fieldNames {
		q := prefix + `"` + name + `":`
		p := &ps[f]
		p.n, p.words = len(q), (len(q)+7)/8
		for k := range len(q) {
			p.w[k/8] |= uint64(q[k]) << (8 * (k % 8))
			p.mask[k/8] |= 0xff << (8 * (k % 8))
		}
	}
	return ps
}

// at reports whether b holds the pattern at i. It reads two or four whole
// words, without a branch a word, so it says false, not knowing, when
// fewer than 16 or 32 bytes are left.
func (p *keyPattern) at(b []byte, i int) bool {
	if p.words <= 2 {
		if i < 0 || i > len(b)-16 {
			return false
		}
		w := b[i : i+16]
		return (binary.LittleEndian.Uint64(w)^p.w[0])&p.mask[0]|
			(binary.LittleEndian.Uint64(w[8:])^p.w[1])&p.mask[1] == 0
	}
	if i < 0 || i > len(b)-32 {
		return false
	}
	w := b[i : i+32]
	return (binary.LittleEndian.Uint64(w)^p.w[0])&p.mask[0]|
		(binary.LittleEndian.Uint64(w[8:])^p.w[1])&p.mask[1]|
		(binary.LittleEndian.Uint64(w[16:])^p.w[2])&p.mask[2]|
		(binary.LittleEndian.Uint64(w[24:])^p.w[3])&p.mask[3] == 0
}

// match is at for the 32 bytes at i (i ≤ len(b)-32): all four words,
// those past the pattern's masked to nothing, without a call (it is
// inlined where the next member is predicted).
func (p *keyPattern) match(w *[32]byte) bool {
	return (binary.LittleEndian.Uint64(w[:8])^p.w[0])&p.mask[0]|
		(binary.LittleEndian.Uint64(w[8:16])^p.w[1])&p.mask[1]|
		(binary.LittleEndian.Uint64(w[16:24])^p.w[2])&p.mask[2]|
		(binary.LittleEndian.Uint64(w[24:32])^p.w[3])&p.mask[3] == 0
}

// fieldSet is a set of fields, a bit each.
type fieldSet [(nField + 63) / 64]uint64

// has reports whether f is in s.
func (s *fieldSet) has(f field) bool { return s[f/64]&(1<<(f%64)) != 0 }

// add puts f in s.
func (s *fieldSet) add(f field) { s[f/64] |= 1 << (f % 64) }

// hasAll reports whether every field of t is in s.
func (s *fieldSet) hasAll(t fieldSet) bool {
	for i := range s {
		if s[i]&t[i] != t[i] {
			return false
		}
	}
	return true
}
