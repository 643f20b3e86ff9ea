// Package producer is a small AAEP producer that plays scripted scenarios, or
// a recorded session, over HTTP (Server-Sent Events), WebSocket, gRPC, stdio
// JSON-RPC and Unix sockets, for the demo, for tests and for aaep-replay
// serve.
//
// A [Scenario] is a list of timed steps, each one event without its envelope;
// prompts (confirmations and clarifications) carry the steps that follow each
// possible answer. [LoadScenarios] reads them from JSON files. [New] builds a
// [Producer], an [net/http.Handler] serving:
//
//   - the spec's (appendix B): POST /aaep/v1/subscriptions, then the stream
//     GET /aaep/v1/events?subscription_id=…, replies to POST /aaep/v1/replies;
//   - the one deployed producers serve: GET /events and POST /messages;
//   - WebSocket at /aaep/v1/ws (subprotocol aaep.v1), the subscription
//     request first, then events and replies both ways on the connection.
//
// The manifest is served at /.well-known/aaep-manifest.json; with
// [Options].ManifestKey it is signed (a JWS, also sent inline in every
// subscription.accepted), and [Options].ManifestFault spoils it for tests.
//
// [Producer.ServeStdio] serves the same exchange as JSON-RPC 2.0 over a
// process's standard input and output, [Producer.ServeUnix] on a Unix socket
// made by [ListenUnix].
//
// One run of the scenarios is shared by every stream. It starts with the
// first stream (or [Producer.Run]); each scenario is a session of its own, and
// a prompt blocks its scenario until a valid reply arrives or its time runs
// out, when the default applies. Late and reconnecting subscribers get the
// events they missed from a bounded history.
//
// A subscription is sent only what its honored terms allow: its event
// filters, at its rate, and no prompt it declared it cannot answer
// (supports_confirmation_reply or supports_clarification_reply false or
// left out, spec §5.3.1.4). When no one connected can answer a prompt, the
// producer applies its default at once and goes on, as if it had never
// asked; a prompt some can answer waits for them, and the others see only
// what followed.
//
// With [Options].Replay the producer serves a recorded session (a capture)
// instead of scenarios, with the same handshake, terms and bindings: each
// stream plays it for itself, or everyone shares one playing
// ([Replay].Shared). Replies change nothing; [Options].OnMessage reports
// them, on every binding.
//
// With [Options].Live the producer serves a running agent (package acp
// bridges an ACP agent so): its events go to every stream, a new stream
// joins live (with the prompts still waiting), each reply is checked
// against its prompt and handed to the agent, which alone decides, and
// the extension messages it takes (tasks) are handed to it too.
//
// [Options] add what a subscriber must survive: the habits of deployed
// producers (Quirks), and duplicated or reordered events (Duplicate, Shuffle),
// reproducible from a seed. [Flood] writes a fast stream of valid events for
// load tests.
package producer
