package transport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aaep-term/aaep-term/transport"
)

// A capture file (or plain newline-delimited JSON) read as a connection:
// only the messages received from the producer come out.
func ExampleNewNDJSONConn() {
	capture := `{"aaep_capture":1,"started_at":"2026-05-24T14:22:11Z","tool":"aaep-capture v0.1.0"}
[0.000,"i",{"type":"aaep:agent.session.started","event_id":"evt_1"}]
[0.250,"o",{"type":"confirmation.reply","decision":"accept"}]
[0.300,"i",{"type":"aaep:agent.session.completed","event_id":"evt_2"}]
`
	conn := transport.NewNDJSONConn(strings.NewReader(capture), transport.FileOptions{})
	defer conn.Close()
	for {
		f, err := conn.Recv(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(string(f.Data))
	}
	// Output:
	// {"type":"aaep:agent.session.started","event_id":"evt_1"}
	// {"type":"aaep:agent.session.completed","event_id":"evt_2"}
}

// Reading an event stream by hand; a too-large event is skipped and the
// reader goes on.
func ExampleSSEReader() {
	stream := "event: aaep.event\nid: evt_1\ndata: {\"n\":1}\n\n" +
		": heartbeat\n\n" +
		"data: " + strings.Repeat("x", 64) + "\n\n" +
		"id: evt_3\ndata: {\"n\":\ndata: 3}\n\n"
	rd := transport.NewSSEReader(strings.NewReader(stream))
	rd.MaxFrameBytes = 32
	rd.OnComment = func(text []byte) { fmt.Printf("comment %q\n", text) }
	for {
		ev, err := rd.Next()
		var tooLarge *transport.FrameTooLargeError
		switch {
		case errors.As(err, &tooLarge):
			fmt.Println("skipped", tooLarge.Size, "bytes")
			continue
		case err == io.EOF:
			return
		case err != nil:
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("%s %s %q\n", ev.Type, ev.ID, ev.Data)
	}
	// Output:
	// aaep.event evt_1 "{\"n\":1}"
	// comment "heartbeat"
	// skipped 64 bytes
	//  evt_3 "{\"n\":\n3}"
}

// An endpoint is parsed once, into the parts its binding needs; Dial and
// DialEndpoint take it from there.
func ExampleParseEndpoint() {
	for _, s := range []string{"https://agent.example:8443/aaep", "ws://127.0.0.1:9000", "unix:my-agent", "exec:./agent --fast", "grpc://"} {
		ep, err := transport.ParseEndpoint(s)
		switch {
		case err != nil:
			fmt.Println("error:", err)
		case ep.URL != nil:
			fmt.Println(ep.Binding, ep.URL.Host)
		case ep.Argv != nil:
			fmt.Println(ep.Binding, ep.Argv)
		default:
			fmt.Println(ep.Binding, ep.Path)
		}
	}
	// Output:
	// sse agent.example:8443
	// websocket 127.0.0.1:9000
	// unix my-agent
	// stdio [./agent --fast]
	// error: transport: "grpc://" names no host: give one, as in grpc://localhost:8080
}
