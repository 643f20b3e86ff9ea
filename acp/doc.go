// Package acp runs an agent that speaks the Agent Client Protocol (ACP:
// JSON-RPC 2.0 on a child's standard input and output) as an AAEP
// producer: what the agent says becomes AAEP events, its permission
// requests become confirmations, and replies go back as its options.
//
// A [Bridge] starts the agent when [transport.Dial] opens an acp:COMMAND
// endpoint ([Bridge.Dial] is the [transport.Options] ACP hook), so the
// subscriber engine — dedupe, decision gate, announcements, replies —
// applies unchanged. [Bridge.Tell] gives the agent a task and
// [Bridge.Cancel] cancels the one it is doing.
//
// [Bridge.Serve] makes the agent the live source of a producer
// ([producer.Live]), which serves it to any number of subscribers on every
// binding; [ServeAgent] puts it on HTTP, WebSocket, gRPC and a Unix socket
// in the local agents' directory (aaep-bridge). Tasks then come over AAEP,
// as the agent-tasks extension's messages ([protocol.TypeTask]).
// [Options].RawFile records the raw ACP lines (aaep-capture --acp-raw).
//
// Each task (ACP prompt turn) is one AAEP session: session.started when it
// is given, session.completed, errored or cancelled by the turn's stop
// reason, whose summary says the agent is waiting for the user. The bridge
// never accepts a permission request by itself: one nobody answers within
// its window (Options.PromptWindow, a day unless set) is rejected, as the
// confirmation's timeout and default say.
package acp
