package transport

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/aaep-term/aaep-term/internal/wire"
	"github.com/aaep-term/aaep-term/protocol"
)

// benchEvent is an event of a typical size (about 500 bytes).
var benchEvent = []byte(`{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.output.streaming",` +
	`"event_id":"evt_0123456789abcdef0123456789abcdef","session_id":"sess_0123456789abcdef0123456789abcdef","sequence_number":12,` +
	`"timestamp":"2026-05-24T14:22:11.342Z","producer":{"agent_id":"aaep-term-demo","agent_name":"Demo Assistant"},` +
	`"verbosity":"normal","urgency":"normal","output_id":"out_1","chunk":"` + strings.Repeat("words ", 30) + `","position":120}`)

// recvAll receives n frames from c.
func recvAll(b *testing.B, c Conn, n int) {
	ctx := context.Background()
	for range n {
		if _, err := c.Recv(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWebSocketRecv measures frames through a WebSocket Conn on
// loopback, from the producer's write to Recv.
func BenchmarkWebSocketRecv(b *testing.B) {
	url, _ := wsServer(b, []string{protocol.Subprotocol}, func(_ int, c *websocket.Conn) {
		_, _, _ = c.ReadMessage()
		for range b.N {
			if err := c.WriteMessage(websocket.TextMessage, benchEvent); err != nil {
				return
			}
		}
		closeWith(c, protocol.CloseSubscriptionEnded, "")
	})
	b.SetBytes(int64(len(benchEvent)))
	b.ReportAllocs()
	b.ResetTimer()
	c, err := DialWebSocket(context.Background(), url, WSOptions{LinkOptions: LinkOptions{SubscriptionRequest: []byte(wsReq)}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	recvAll(b, c, b.N)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkUnixRecv does the same on a Unix socket, one message a line.
func BenchmarkUnixRecv(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		rd := wire.NewReader(c, wire.FramingUnknown, 1<<16)
		if _, err := rd.Next(); err != nil {
			return
		}
		var buf []byte
		for i := range b.N {
			buf, _ = wire.Append(buf, wire.FramingLines, benchEvent)
			if len(buf) > 32<<10 || i == b.N-1 {
				if _, err := c.Write(buf); err != nil {
					return
				}
				buf = buf[:0]
			}
		}
		_, _ = c.Read(make([]byte, 1)) // until the subscriber leaves
	}()
	b.SetBytes(int64(len(benchEvent)))
	b.ReportAllocs()
	b.ResetTimer()
	c, err := DialUnix(context.Background(), path, UnixOptions{LinkOptions: LinkOptions{SubscriptionRequest: []byte(wsReq)}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	recvAll(b, c, b.N)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
