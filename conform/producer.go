package conform

// This file holds the producer catalogue: every test's stable ID, the
// requirement it checks (in our words) and the spec section it comes from.

// The producer test IDs.
const (
	PLifecycle      = "P1-lifecycle-bracketing"
	POneTerminal    = "P1-one-terminal"
	PStateChanges   = "P1-state-changes"
	PToolBracketing = "P1-tool-bracketing"
	PEnvelopeSchema = "P1-envelope-schema"
	PEnvelopeRules  = "P1-envelope-rules"
	PSummaryNormal  = "P1-summary-normal"
	PNoSecrets      = "P1-no-secrets-in-args"
	PConfirmBlocks  = "P2-confirm-blocks-tool"
	PAcceptProceeds = "P2-accept-proceeds"
	PRejectPrevents = "P2-reject-prevents"
	PTimeoutDefault = "P2-timeout-default"
	PForgedToken    = "P2-forged-token-refused"
	PReplayedToken  = "P2-replayed-token-refused"
	PFirstReplyWins = "P2-first-reply-wins"
	PWrongKind      = "P2-clarify-wrong-kind-refused"
	PSafeDefault    = "P2-safe-default"
	PFollowUp       = "P2-follow-up-after-resolution"
	PAnswerShape    = "P3-answer-shape"
	PHonoredSubset  = "P3-honored-subset"
	PRate           = "P3-rate-limit"
	PCriticalOnTime = "P3-critical-not-delayed"
	PFilters        = "P3-filters"
	PCoalescing     = "P3-coalescing"
	PLanguage       = "P3-language"
	PRenegotiate    = "P3-renegotiate"
	PCloseDefault   = "P3-close-applies-default"
	PManifest       = "P3-manifest"
	PSignedManifest = "P3-signed-manifest"
)

// producerCatalogue is the producer catalogue in the order the tests are
// reported. The requirements are our own sentences; the sections are those
// of spec chapter 09 that ask for them.
var producerCatalogue = []Test{
	{PLifecycle, RoleProducer, 1, "Every session begins with agent.session.started and nothing of it comes after its terminal event.", "9.3.1"},
	{POneTerminal, RoleProducer, 1, "Every session ends with exactly one terminal event (completed, errored or cancelled).", "9.3.1"},
	{PStateChanges, RoleProducer, 1, "State changes are announced with agent.state.changed, each starting from the state the last one reached.", "9.3.1"},
	{PToolBracketing, RoleProducer, 1, "Every tool call is announced by agent.tool.invoked before, and agent.tool.completed after, whatever its outcome.", "9.3.1"},
	{PEnvelopeSchema, RoleProducer, 1, "Every event carries a valid envelope and matches the schema of its type.", "9.3.1"},
	{PEnvelopeRules, RoleProducer, 1, "Envelope rules beyond the schemas hold: event_id is never reused for other content, sequence_number starts at 0 and rises by one (or is never sent), timestamps have 3 or 6 fractional digits, never go back within a session nor lie in the future, and aaep_version is a published one.", "3.2"},
	{PSummaryNormal, RoleProducer, 1, "Every event likely to be announced carries a non-empty summary_normal: all but streamed output (which announces its chunk) and background events (a warning for those).", "9.3.1"},
	{PNoSecrets, RoleProducer, 1, "Tool argument summaries do not show secrets such as keys, tokens or passwords (a warning).", "9.3.1"},
	{PConfirmBlocks, RoleProducer, 2, "An irreversible action is asked about first, and its tool is not invoked until a reply arrives.", "9.4.1"},
	{PAcceptProceeds, RoleProducer, 2, "Accepting a confirmation lets the action go ahead.", "9.4.1"},
	{PRejectPrevents, RoleProducer, 2, "Rejecting a confirmation stops the action: its tool is never invoked.", "9.4.1"},
	{PTimeoutDefault, RoleProducer, 2, "A prompt left unanswered takes its default once timeout_seconds have passed, and not before.", "9.4.1"},
	{PForgedToken, RoleProducer, 2, "A reply with a reply_token the producer never issued changes nothing.", "9.4.1"},
	{PReplayedToken, RoleProducer, 2, "A reply reusing the reply_token of a settled prompt changes nothing.", "9.4.1"},
	{PFirstReplyWins, RoleProducer, 2, "When two replies arrive for one prompt, the first one decides.", "9.4.1"},
	{PWrongKind, RoleProducer, 2, "A reply of the wrong kind to a clarification (a confirmation.reply, or a response of a kind it does not accept) changes nothing.", "9.4.1"},
	{PSafeDefault, RoleProducer, 2, "An irreversible confirmation of medium or high risk defaults to reject (a warning for the cases the spec only recommends).", "6.4.1"},
	{PFollowUp, RoleProducer, 2, "Every settled prompt is followed by an event saying what the session does next.", "9.4.1"},
	{PAnswerShape, RoleProducer, 3, "A subscription request is answered with a well formed subscription.accepted or subscription.rejected with a known reason code.", "9.5.1"},
	{PHonoredSubset, RoleProducer, 3, "The honored capabilities are never more permissive than those requested.", "9.5.1"},
	{PRate, RoleProducer, 3, "A subscription is sent no more events per second than honored, critical events aside.", "9.5.1"},
	{PCriticalOnTime, RoleProducer, 3, "Critical events are not held back by a rate limit.", "9.5.1"},
	{PFilters, RoleProducer, 3, "Include and exclude filters are kept, critical events aside.", "9.5.1"},
	{PCoalescing, RoleProducer, 3, "Streamed output is cut only at the honored coalescing boundaries.", "9.5.1"},
	{PLanguage, RoleProducer, 3, "Events are written in a language the subscription asked for and was granted, whenever the producer has one (a warning when it has none).", "9.5.1"},
	{PRenegotiate, RoleProducer, 3, "Terms changed by subscription.renegotiate hold for the events that follow.", "9.5.1"},
	{PCloseDefault, RoleProducer, 3, "Closing a subscription while it holds a pending confirmation applies that confirmation's default.", "9.5.1"},
	{PManifest, RoleProducer, 3, "A manifest is published at /.well-known/aaep-manifest.json or at the manifest_uri of the acceptance.", "9.5.1"},
	{PSignedManifest, RoleProducer, 3, "When a subscription accepts signed manifests only, the producer gives one or refuses with manifest_signature_required.", "9.5.1"},
}

// ProducerTests is the producer catalogue, in the order the tests are
// reported.
func ProducerTests() []Test {
	return append([]Test(nil), producerCatalogue...)
}

// producerTest returns the catalogue entry of id.
func producerTest(id string) Test {
	for _, t := range producerCatalogue {
		if t.ID == id {
			return t
		}
	}
	panic("conform: no producer test " + id)
}
