package protocol

// Renegotiable reports whether c sets any capability a renegotiation may
// change (rate, verbosity, languages, filters, cognitive load, pace,
// coalescing boundaries, whether confirmations and clarifications can be
// answered).
func (c Capabilities) Renegotiable() bool {
	return c.MaxEventsPerSecond != 0 || c.PreferredVerbosity != "" || c.Languages != nil || c.EventFilters != nil ||
		c.CognitiveLoad != "" || c.PaceWPM != 0 || c.CoalesceBoundaries != nil ||
		c.SupportsConfirmationReply != nil || c.SupportsClarificationReply != nil
}

// Merge returns c with the renegotiable capabilities changes sets applied
// over it; what changes leaves unset stays as in c.
func (c Capabilities) Merge(changes Capabilities) Capabilities {
	if changes.MaxEventsPerSecond != 0 {
		c.MaxEventsPerSecond = changes.MaxEventsPerSecond
	}
	if changes.PreferredVerbosity != "" {
		c.PreferredVerbosity = changes.PreferredVerbosity
	}
	if changes.Languages != nil {
		c.Languages = changes.Languages
	}
	if changes.EventFilters != nil {
		c.EventFilters = changes.EventFilters
	}
	if changes.CognitiveLoad != "" {
		c.CognitiveLoad = changes.CognitiveLoad
	}
	if changes.PaceWPM != 0 {
		c.PaceWPM = changes.PaceWPM
	}
	if changes.CoalesceBoundaries != nil {
		c.CoalesceBoundaries = changes.CoalesceBoundaries
	}
	if changes.SupportsConfirmationReply != nil {
		c.SupportsConfirmationReply = changes.SupportsConfirmationReply
	}
	if changes.SupportsClarificationReply != nil {
		c.SupportsClarificationReply = changes.SupportsClarificationReply
	}
	return c
}
