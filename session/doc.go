// Package session is the subscriber's state machine: it dedupes and reorders
// events, tracks each session's lifecycle and pending prompts, and builds
// replies. It is pure: bytes and a clock in, updates out (no network, files
// or flags; the producer's manifest is package manifest's).
package session
