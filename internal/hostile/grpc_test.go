package hostile_test

import (
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/aaep-term/aaep-term/internal/aaeppb"
)

// refusingGRPC is a gRPC producer that refuses every subscription with a
// status whose message is the hostile string.
type refusingGRPC struct {
	aaeppb.UnimplementedAaepServiceServer
	h string
}

func (s refusingGRPC) Subscribe(grpc.BidiStreamingServer[aaeppb.AaepMessage, aaeppb.AaepMessage]) error {
	// gRPC carries the message in a header, whose size its client bounds:
	// a longer one never arrives (the stream is reset), so keep 4 KB.
	h := s.h
	if len(h) > 4096 {
		h = h[:4096]
	}
	return status.Error(codes.PermissionDenied, h)
}

// grpcRefused runs aaep-listen against a gRPC producer whose refusal
// (status message) carries h.
func grpcRefused(t *testing.T, h string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	aaeppb.RegisterAaepServiceServer(srv, refusingGRPC{h: h})
	go srv.Serve(ln)
	defer srv.Stop()
	return run(t, "aaep-listen", "--plain", "grpc://"+ln.Addr().String())
}
