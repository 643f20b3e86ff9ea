package transport

// Words says in words how Dial reaches endpoint, for a status line: "SSE",
// "WebSocket", "gRPC", "Unix socket", "standard input and output of" (a
// command follows), "standard input" or "file".
func Words(endpoint string) string {
	switch BindingOf(endpoint) {
	case BindingSSE:
		return "SSE"
	case BindingWebSocket:
		return "WebSocket"
	case BindingGRPC:
		return "gRPC"
	case BindingUnix:
		return "Unix socket"
	case BindingStdio:
		return "standard input and output of"
	}
	if endpoint == "-" {
		return "standard input"
	}
	return "file"
}
