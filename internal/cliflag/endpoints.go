package cliflag

// Endpoints is the list of endpoint forms every command that connects to
// a producer accepts, for its --help: one binding a line.
const Endpoints = `  http://HOST:PORT[/PREFIX]   Server-Sent Events; tries the Level-3 layout
                              (POST /aaep/v1/subscriptions) and falls back to
                              the deployed layout (GET /events, POST /messages)
  https://…                   the same over TLS (--ca, --cert, --client-key)
  ws://HOST:PORT[/PATH]       WebSocket (default path /aaep/v1/ws); wss:// over TLS
  grpc://HOST:PORT            gRPC (AaepService.Subscribe); grpcs:// over TLS
  unix:PATH, unix:ID          a Unix socket; an ID is looked up as
                              $XDG_RUNTIME_DIR/aaep/ID.sock
  exec:COMMAND ARGS…          start the producer and speak JSON-RPC with it on
                              its standard input and output
  file:PATH, PATH             newline-delimited JSON events or an .aaep capture
  -                           newline-delimited JSON events on standard input
                              (alone: not with other endpoints)
`
