// Package subscriber is the client of one AAEP subscription: it dials a
// producer, subscribes, keeps the terms the producer granted, answers
// prompts (signed when it can), retries a rejection that allows it, closes
// the subscription, and hands its user one ordered stream of what happened.
//
// # Connecting
//
// Dial connects to an endpoint (http(s)://, ws(s)://, grpc(s)://, unix:,
// exec:, a file or "-") and subscribes with the terms in Config, returning
// once the connection is made; Start does the same in the background and
// returns at once, so a program can tell "Connecting to …" while a slow
// producer keeps it waiting (a failure to connect is then the End's Err).
// New runs the same client over a transport.Conn that is already open (a
// capture being replayed, a test). A producer's stream of updates begins
// with the first "Connecting to …" the transport says, a file's with
// "Connected to …"; with New, whose conn was opened before, they begin
// with what conn delivers. The context given to Dial, Start or New bounds
// the whole subscription, not only the dialling as net.Dialer's does: when
// it is done the client closes the subscription and ends ("Stopped.").
//
// A gRPC endpoint is reached only when Config.Transport.GRPCBinding is set
// (to grpcbind.Binding{}, package transport/grpcbind): a program that does
// not name that package links no gRPC.
//
// The types a program handles are named here, as aliases of the packages
// beneath the client (Identity, RequestedTerms, Delivery, Event, Text,
// Prompt, the delivery kinds and prompt states, the decisions and core
// event types), so that a program imports subscriber alone.
//
//	c, err := subscriber.Dial(ctx, "http://127.0.0.1:8080", subscriber.Config{
//		Identity: subscriber.Identity{ID: "me", Name: "my-tool", Version: "1.0"},
//		Terms:    subscriber.RequestedTerms{CanConfirm: true, CanClarify: true},
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
// The package's Example is a whole program against the real producer: it
// subscribes, accepts a payment it is asked about, and closes.
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
// instead of losing lines. Methods never wait for the reader, so a reader
// may call them between two reads. NextBatch returns every update already waiting:
// a line writer flushes once per batch. No timer decides the order of
// anything: frames, requests and status are handled in the order the owner
// goroutine takes them, and the transport's status notices come after the
// frames it had already queued. The owner's turn is a lock: the goroutine
// that decodes frames, when it has only a few events and finds the turn
// free with nothing waiting before them, handles them itself, in the same
// order, rather than waking the owner for each (an agent of many sending
// an event at a time); anything else (a note of the connection, a
// handshake message, a prompt, a request) waits for the owner.
//
// # Answering
//
// Confirm, Answer, WhyNot, Renegotiate, Terms, Pending, Sync, Pause and Close
// may be called from any goroutine, the reader's included. All but Close are
// carried out by the owner goroutine, in turn with the frames, so an answer
// never overtakes the event that settles its prompt, and Pending and Terms
// agree with the updates already taken. A prompt can only be answered once an update
// offering it has been taken from Next: what the user has not been shown
// cannot be answered (*PromptError). Errors are typed: *PromptError (no
// such prompt, or settled already), *SendError (the reply could not be
// delivered: the prompt is still waiting), *RejectedError (the producer
// refused the subscription), *manifest.Error inside a
// ManifestRefusedError, and ErrClosed once the client has ended.
//
// Replays and tests step the client with Pause (frames received meanwhile
// are handled together, each in its turn: how frames are grouped never
// changes what is told) and Sync (everything received, and everything due
// by Config.Now, is handled).
//
// Decisions made without the user — the "always" answers, a policy file's
// rules, and automatic rejection — all pass the one policy.Gate in
// Config.Gate, which re-checks risk and reversibility at the moment of use.
// They surface as a Status update naming the decider and a Reply update
// whose DecidedBy says who decided.
//
// Every text an update carries is safe to print: producer text in events is a
// protocol.Text, whose String method sanitizes it; status, reply and end
// sentences and diagnostics are sanitized already, the producer's words in
// them marked with protocol.Theirs; the errors of this package and of
// transport quote the producer sanitized, so they may be printed. Only Event.Raw, SentReply.Body and the Tap see the bytes as
// they were, for machines.
//
// # Rejection, reconnection and the end
//
// A producer that refuses the subscription and names a time
// (retry_after_seconds) is asked again after it, with a countdown in status
// updates, at most five refusals in a row and an hour's wait; one that
// refuses over a clash of extension prefixes is asked again without ours.
// Any other refusal ends the run: a StatusRejected update says why in words,
// and the End's Err is the *RejectedError. A connection that drops is made
// again by the transport (Config.Transport says how often); the
// StatusReconnecting line comes once something else happens, so the
// producer's normal end of its stream never reads as a lost connection.
//
// The End is said once, last, whatever ended the run: Close, the context,
// the producer, a refusal, a manifest that did not verify, a broken
// connection. Prompts still pending are settled first: with a subscription
// the client sends subscription.close and the producer applies their
// defaults (each is told as a session.KindPromptExpired delivery with its
// default decision); without one they are told as session.KindPromptLeft,
// since the agent still waits for an answer. The delivery's Cause says why:
// the user quit (and whether the subscription.close was sent), the producer
// went away, or the subscription ended for another reason.
//
// # Signing
//
// With a Signer (a *sigrpl.Key is one) the subscription offers its public
// key; replies to a producer that honoured the extension are then signed,
// addressed to it (its agent_id, the subscription, the prompt event
// answered), in a header on HTTP or wrapped in a sigrpl:signed.reply on
// framed transports. To any other producer they go unsigned. Reply updates
// say whether each reply was signed.
//
// # Terms
//
// The client checks that the producer honours no more than was requested
// (diagnostics, and with Terms.Strict it closes the subscription), enforces
// the honoured rate and filters itself, and applies the user's filters
// locally where no producer agreed to them. Renegotiate asks for new terms;
// a refusal ends the subscription, as the protocol says.
//
// # Manifests
//
// The producer's manifest is checked once it accepts (or at the first
// event of a producer without a handshake), in the owner's turn, so its
// line comes at the same place every run; frames wait meanwhile, at most two
// seconds when the manifest is not required, as long as the producer takes
// with Manifest.Unbounded (a producer of the same process, whose answer is
// sure to come: then no timer decides the line). With Manifest.Require the
// subscription asks for a signed manifest and is closed unless it verifies
// with a trusted key. Discover finds a manifest without listening.
//
// # Capture
//
// Config.Tap, when set, is told every frame both ways with the time it was
// received or sent, in the owner's turn, in order: a recorder writes a
// capture through the same client.
//
// # Several agents
//
// A Group supervises several clients at once, each a Member with a label
// and an endpoint (Add, or Join over a client of your own). Their updates
// come out of one stream (Group.Next), one member's batch of at most
// GroupConfig.BatchMax updates at a time, the members taking turns: a
// member that floods gets ahead of another's critical update by at most one
// batch. Their prompts share one numbering, so Group.Confirm and
// Group.Answer need only the number and reach the member that asked; a
// number of a member that has ended returns an *EndedError naming it. The
// members share the queue and duplicate-memory budgets and one set of
// compiled schemas. Group.Display is the one place that names a member in
// a line from what its producer calls itself: no producer's name reads as
// another member's tag. Ended members are forgotten after the last
// GroupConfig.KeepEnded, so a group of agents that come and go stays
// bounded.
package subscriber
