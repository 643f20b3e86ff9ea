// Package session is the subscriber's state machine: it dedupes and reorders
// events, tracks each session's lifecycle and pending prompts, and builds replies.
package session
