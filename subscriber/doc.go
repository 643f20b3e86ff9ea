// Package subscriber is the client of one AAEP subscription: it dials a
// producer, subscribes, keeps the terms the producer granted, answers
// prompts (signed when it can), retries a rejection that allows it, closes
// the subscription, and hands its user one ordered stream of what happened.
//
// # Connecting
//
// Dial connects to an endpoint (http(s)://, ws(s)://, grpc(s)://, unix:,
// exec:, a file or "-") and subscribes with the terms in Config; New runs
// the same client over a transport.Conn that is already open (a capture
// being replayed, a test). Status updates flow from the first "Connecting
// to …", before Dial returns.
//
//	c, err := subscriber.Dial(ctx, "http://127.0.0.1:8080", subscriber.Config{
//		Identity: session.Identity{ID: "me", Name: "my-tool", Version: "1.0"},
//		Terms:    session.Terms{CanConfirm: true, CanClarify: true},
//	})
//	if err != nil { … }
//	defer c.Close()
//	for {
//		u, err := c.Next(ctx)
//		if err != nil { break } // io.EOF after the End update
//		switch u.Kind {
//		case subscriber.KindDelivery: // an event or what became of a prompt
//		case subscriber.KindStatus:   // u.Text, plain words
//		…
//		}
//	}
//
// # One ordered stream
//
// Everything the client has to tell comes out of Next (or NextBatch) in the
// order it happened: deliveries from the engine (events, prompts and what
// became of them), diagnostics (invalid events, duplicates, gaps, broken
// terms), status notices (connection, subscription, terms, manifest,
// retries, decisions made without the user, each with a StatusKind and one
// plain sentence), replies sent (by whom, signed or not, and whether they
// were delivered), breaks (where held streamed text must be said) and, last,
// the End, said once. After the End, Next returns io.EOF.
//
// Nothing is dropped. One goroutine owns the client; it queues updates and
// stops reading frames from the producer while more than a few thousand
// wait to be taken, so a slow reader holds the producer back (backpressure)
// instead of losing lines. NextBatch returns every update already waiting:
// a line writer flushes once per batch. No timer decides the order of
// anything: frames, requests and status are handled in the order the owner
// goroutine takes them, and the transport's status notices come after the
// frames it had already queued.
//
// # Answering
//
// Confirm, Answer, Renegotiate, Terms, Pending and Close may be called from
// any goroutine. The first four are carried out by the owner goroutine, in
// turn with the frames, so an answer never overtakes the event that
// settles its prompt. A prompt can only be answered once an update
// offering it has been taken from Next: what the user has not been shown
// cannot be answered (*PromptError). Errors are typed: *PromptError (no
// such prompt, or settled already), *SendError (the reply could not be
// delivered: the prompt is still waiting), *RejectedError (the producer
// refused the subscription), *session.ManifestError inside a
// ManifestRefusedError, and ErrClosed once the client has ended.
//
// Decisions made without the user — the "always" answers, a policy file's
// rules, and automatic rejection — all pass the one policy.Gate in
// Config.Gate, which re-checks risk and reversibility at the moment of use.
// They surface as a Status update naming the decider and a Reply update
// whose DecidedBy says who decided.
//
// # Signing
//
// With a Signer (a *sigrpl.Key is one) the subscription offers its public
// key; replies are then signed in a header on HTTP, or wrapped in a
// sigrpl:signed.reply on framed transports when the producer honours the
// extension. Reply updates say whether each reply was signed.
//
// # Terms
//
// The client checks that the producer honours no more than was requested
// (diagnostics, and with Terms.Strict it closes the subscription), enforces
// the honoured rate and filters itself, and applies the user's filters
// locally where no producer agreed to them. Renegotiate asks for new terms;
// a refusal ends the subscription, as the protocol says.
//
// # Capture
//
// Config.Tap, when set, is told every frame both ways with the time it was
// received or sent, on the owner goroutine, in order: a recorder writes a
// capture through the same client.
package subscriber
