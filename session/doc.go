// Package session is the subscriber's state machine: it dedupes and reorders
// events, tracks each session's lifecycle and pending prompts, builds replies,
// and finds and verifies the producer's (signed) manifest.
package session
