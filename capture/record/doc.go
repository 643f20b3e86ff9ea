// Package record records live AAEP sessions into a capture: one subscriber
// client per endpoint, whose taps hand every frame received or sent, with
// its time, to one writer, with progress and the connection's news said on
// standard error.
package record
