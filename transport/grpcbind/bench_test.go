package grpcbind

import (
	"context"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"

	"github.com/aaep-term/aaep-term/internal/aaeppb"
	"github.com/aaep-term/aaep-term/transport"
)

// benchEvent is a streamed chunk of about 500 bytes, as transport's
// benchmarks send.
var benchEvent = []byte(`{"aaep_version":"1.0.0","type":"aaep:agent.output.streaming","event_id":"evt_0123456789abcdef0123456789abcdef",` +
	`"session_id":"sess_0123456789abcdef0123456789abcdef","sequence_number":12,"timestamp":"2026-05-24T14:22:11.342Z",` +
	`"producer":{"agent_id":"aaep-term-demo"},"output_id":"out_1","chunk":"` + strings.Repeat("words ", 50) + `"}`)

// BenchmarkGRPCRecv receives events over a gRPC Subscribe stream, as
// transport's BenchmarkWebSocketRecv does over a WebSocket.
func BenchmarkGRPCRecv(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := grpc.NewServer()
	aaeppb.RegisterAaepServiceServer(srv, benchService{n: b.N})
	go func() { _ = srv.Serve(ln) }()
	defer srv.Stop()
	b.SetBytes(int64(len(benchEvent)))
	b.ReportAllocs()
	b.ResetTimer()
	req := []byte(`{"type":"aaep:subscription.request"}`)
	c, err := Dial(context.Background(), "grpc://"+ln.Addr().String(), transport.GRPCOptions{LinkOptions: transport.LinkOptions{SubscriptionRequest: req}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for range b.N {
		if _, err := c.Recv(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// benchService sends n benchEvents after the subscription request.
type benchService struct {
	aaeppb.UnimplementedAaepServiceServer
	n int
}

func (s benchService) Subscribe(st grpc.BidiStreamingServer[aaeppb.AaepMessage, aaeppb.AaepMessage]) error {
	if _, err := st.Recv(); err != nil {
		return err
	}
	for range s.n {
		if err := st.Send(&aaeppb.AaepMessage{Json: benchEvent}); err != nil {
			return err
		}
	}
	_, _ = st.Recv() // until the subscriber leaves
	return nil
}
