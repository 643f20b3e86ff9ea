package main

import (
	"net"
	"sync"
	"testing"

	"google.golang.org/grpc"

	"github.com/aaep-term/aaep-term/internal/aaeppb"
)

// benchGRPC is the gRPC producer of the benchmarks: the first Subscribe
// stream gets the acceptance, then stream's messages, then the close;
// later streams are refused.
type benchGRPC struct {
	aaeppb.UnimplementedAaepServiceServer
	stream func(send func([]byte) error)
	once   sync.Once
}

func (s *benchGRPC) Subscribe(st grpc.BidiStreamingServer[aaeppb.AaepMessage, aaeppb.AaepMessage]) error {
	first := false
	s.once.Do(func() { first = true })
	if !first {
		return nil
	}
	if _, err := st.Recv(); err != nil { // the subscription request
		return err
	}
	go func() { // drain what the listener sends (its close)
		for {
			if _, err := st.Recv(); err != nil {
				return
			}
		}
	}()
	send := func(m []byte) error { return st.Send(&aaeppb.AaepMessage{Json: m}) }
	if send([]byte(benchAccepted)) != nil {
		return nil
	}
	s.stream(send)
	_ = send([]byte(`{"type":"subscription.close","subscription_id":"sub_bench1","reason_code":"producer_shutdown"}`))
	return nil
}

// grpcBenchProducer serves a benchGRPC on loopback; it returns the
// endpoint and the function that stops it.
func grpcBenchProducer(b *testing.B, stream func(send func([]byte) error)) (string, func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := grpc.NewServer()
	aaeppb.RegisterAaepServiceServer(srv, &benchGRPC{stream: stream})
	go func() { _ = srv.Serve(ln) }()
	return "grpc://" + ln.Addr().String(), srv.Stop
}

// BenchmarkEndToEndGRPC is BenchmarkEndToEndWebSocket over gRPC.
func BenchmarkEndToEndGRPC(b *testing.B) {
	endToEnd(b, grpcBenchProducer)
}
