// Package announce turns the session engine's deliveries into announcements:
// words at the chosen verbosity, a priority from urgency, streamed output
// coalesced into sentences. It fans them out to Sinks and knows no sink in particular.
package announce
