package main

import (
	"context"
	"io"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/console"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// testPlayer is console.Player as the tests of this package drive it.
type testPlayer struct{ *console.Player }

// newPlayer is a player telling w as play does (asJSON: --json).
func newPlayer(w, errs io.Writer, asJSON bool, verbosity string, noTime bool) testPlayer {
	var out console.Output = line.NewWriter(w, errs, line.WriterOptions{Location: time.UTC, NoTime: noTime})
	if asJSON {
		out = line.NewJSON(w)
	}
	return testPlayer{console.NewPlayer(console.PlayConfig{Name: "aaep-replay", ErrOut: errs, Verbosity: verbosity}, out)}
}

func (p testPlayer) play(ctx context.Context, rd *capture.Reader, speed float64, idle time.Duration) error {
	return p.Play(ctx, rd, speed, idle)
}

// track is the one connection of a capture of version 1.
func (p testPlayer) track(string) struct{} { return struct{}{} }

func (p testPlayer) hear(ctx context.Context, _ struct{}, c *subscriber.Client) error {
	return p.Hear(ctx, c)
}

func (p testPlayer) flush() { p.Flush() }

func termsOf(c protocol.Capabilities) session.Terms { return console.TermsOf(c) }

// maxBurst is the most frames play hands its client as one burst.
const maxBurst = console.MaxBurst
