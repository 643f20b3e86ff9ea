package protocol

import (
	"encoding/json"
	"time"
)

// Core event types in their compact form.
const (
	TypeSessionStarted       = "aaep:agent.session.started"
	TypeSessionCompleted     = "aaep:agent.session.completed"
	TypeSessionErrored       = "aaep:agent.session.errored"
	TypeSessionCancelled     = "aaep:agent.session.cancelled"
	TypeStateChanged         = "aaep:agent.state.changed"
	TypeProgressUpdated      = "aaep:agent.progress.updated"
	TypeToolInvoked          = "aaep:agent.tool.invoked"
	TypeToolCompleted        = "aaep:agent.tool.completed"
	TypeOutputStreaming      = "aaep:agent.output.streaming"
	TypeAwaitingConfirmation = "aaep:agent.awaiting.confirmation"
	TypeAwaitingClarify      = "aaep:agent.awaiting.clarification"
	TypeHandoffRequested     = "aaep:agent.handoff.requested"
)

// ContextURL is the AAEP core JSON-LD context every event names first.
const ContextURL = "https://aaep-protocol.org/context/v1"

// Urgency is the producer's recommended priority of an event.
type Urgency string

// Urgency values. The empty Urgency means the producer sent none (normal).
const (
	UrgencyBackground Urgency = "background"
	UrgencyNormal     Urgency = "normal"
	UrgencyCritical   Urgency = "critical"
)

// Producer identifies who emitted an event.
type Producer struct {
	AgentID      string
	AgentVersion string
	AgentName    Text
	Model        string
	ManifestURI  string
}

// LocalizationHints describe the language and direction of an event's text.
type LocalizationHints struct {
	PrimaryLanguage    string
	TextDirection      string // "ltr", "rtl", "auto" or "" when absent
	AvailableLanguages []string
	FallbackChain      []string
	Script             string
	Calendar           string
}

// Progress is the payload object of agent.progress.updated.
type Progress struct {
	Percent     float64
	HasPercent  bool
	Step        int64 // 0 when absent
	TotalSteps  int64 // 0 when absent
	Description Text
}

// Choice is one offered answer of a clarification.
type Choice struct {
	Value string
	Label Text
}

// Extension is one member of an event's extensions object: the name of an
// extension (its namespace prefix) and its data as sent.
type Extension struct {
	Name string
	Data json.RawMessage
}

// Event is one decoded AAEP event. It is a flat union of the envelope and the
// payload fields of all 12 core types; fields a type does not use stay zero.
// Fields holding producer prose are [Text] so they are sanitized when printed.
type Event struct {
	// Raw is the event exactly as received. It is never sanitized; write it
	// only to machine outputs (captures, --json), never to a terminal.
	Raw []byte
	// undoTwice is set when irreversible or reversibility came more than
	// once: the event contradicts itself, whatever value was kept (Undo).
	undoTwice bool

	// Envelope.
	Context       []string
	AAEPVersion   string
	Type          string // normalized to the compact "aaep:" form for core types
	EventID       string
	SessionID     string
	Seq           int64 // sequence_number; meaningful only when HasSeq
	HasSeq        bool
	Timestamp     time.Time // zero when absent or unparsable
	Producer      Producer
	Verbosity     string
	Urgency       Urgency // as sent; "" when absent
	Localization  LocalizationHints
	CorrelationID string
	// Extensions are the members of the event's extensions object, in the
	// order sent, each name once (a repeated name keeps its last value);
	// see [Event.Extension].
	Extensions []Extension

	SummaryTerse    Text
	SummaryNormal   Text
	SummaryDetailed Text

	// agent.session.started
	ExpectedDurationMS int64
	RequestedBy        Text
	RequestText        Text
	ToolsAvailable     []string

	// agent.session.completed
	DurationMS           int64 // also agent.tool.completed
	ToolInvocationsCount int64
	OutputSummary        Text
	ResultURI            string

	// agent.session.errored
	ErrorCategory   string
	ErrorCode       string
	ErrorURI        string
	Recoverable     *bool
	RemediationHint Text

	// agent.session.cancelled
	CancelledBy        string
	CancellationReason string
	PartialResult      Text

	// agent.state.changed
	FromState string
	ToState   string

	// agent.progress.updated
	Progress Progress
	EtaMS    int64

	// agent.tool.invoked and agent.tool.completed
	Tool         string
	ToolCallID   string
	Description  Text
	ArgsSummary  Text
	RiskLevel    string // also awaiting.confirmation
	Irreversible *bool  // also awaiting.confirmation
	Status       string
	ErrorMessage Text

	// agent.output.streaming
	Chunk        Text
	Position     int64
	Complete     bool
	CoalesceHint string
	OutputID     string
	ContentType  string
	Language     string

	// agent.awaiting.confirmation and agent.awaiting.clarification
	ReplyToken      string
	TimeoutSeconds  int64
	Action          Text
	Consequence     Text
	DefaultDecision string
	Reversibility   string
	AllowedReplies  []string
	ExtraContext    json.RawMessage

	Question              Text
	AcceptedResponseKinds []string
	Choices               []Choice
	ClarifyContext        Text // the clarification's "context" field
	DefaultResponse       Text
	HasDefaultResponse    bool

	// agent.handoff.requested
	Reason            Text
	TargetKind        string
	TargetURI         string
	PackagedContext   json.RawMessage
	UrgencyForHandoff string
}

// Extension returns the data of the extension named name, and whether the
// event carries it.
func (e *Event) Extension(name string) (json.RawMessage, bool) {
	for _, x := range e.Extensions {
		if x.Name == name {
			return x.Data, true
		}
	}
	return nil, false
}

// IsCritical reports whether the event must never be filtered, rate limited,
// held back or dropped: it says so itself, or its type is critical by nature.
func (e *Event) IsCritical() bool {
	return e.Urgency == UrgencyCritical || CriticalType(e.Type)
}

// IsTerminal reports whether the event ends its session.
func (e *Event) IsTerminal() bool {
	switch e.Type {
	case TypeSessionCompleted, TypeSessionErrored, TypeSessionCancelled:
		return true
	}
	return false
}

// Summary returns the summary written at verbosity v ("terse", "normal" or
// "detailed"), falling back to the nearest other level, or "" when none exists.
func (e *Event) Summary(v string) Text {
	order := [3]Text{e.SummaryNormal, e.SummaryTerse, e.SummaryDetailed}
	switch v {
	case "terse":
		order = [3]Text{e.SummaryTerse, e.SummaryNormal, e.SummaryDetailed}
	case "detailed":
		order = [3]Text{e.SummaryDetailed, e.SummaryNormal, e.SummaryTerse}
	}
	for _, s := range order {
		if s != "" {
			return s
		}
	}
	return ""
}
