// Package speech owns spoken announcements: a pure-Go SSIP client for speech-dispatcher,
// an espeak-ng fallback, command builders for macOS say and Windows SAPI, and a Sink.
package speech
