package cliflag

import (
	"context"
	"fmt"
	"net"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// Where says where a command serves a producer's runs: HTTP (both layouts)
// and WebSocket on Addr, as an --addr flag gave it; gRPC too, on a free
// port of the same host, with GRPC; the Unix socket binding too at Unix,
// when it is not "".
type Where struct {
	Addr string
	GRPC bool
	Unix string
}

// Served is where the runs are served, once every binding listens: the
// address of HTTP and WebSocket, and those of gRPC and the Unix socket
// ("" when not served).
type Served struct {
	HTTP, GRPC, Unix string
}

// Lines say where each binding listens, one line each. An address is never
// followed by punctuation, so it can be copied as printed.
func (s Served) Lines() []string {
	a := s.HTTP
	lines := []string{
		fmt.Sprintf("HTTP, spec layout: http://%s (POST %s, then the stream it names; replies to POST %s)", a, protocol.PathSubscriptions, protocol.PathReplies),
		fmt.Sprintf("HTTP, deployed layout: http://%s%s (unnamed events; ?named=1 names them); replies to POST http://%s%s", a, protocol.PathLegacyEvents, a, protocol.PathLegacyReplies),
		fmt.Sprintf("WebSocket: ws://%s%s (subprotocol aaep.v1)", a, protocol.PathWebSocket),
	}
	if s.GRPC != "" {
		lines = append(lines, "gRPC: grpc://"+s.GRPC)
	}
	if s.Unix != "" {
		lines = append(lines, "Unix socket: unix:"+s.Unix)
	}
	return lines
}

// Serve serves runs where w says. It calls started once every binding
// listens, and serves until ctx ends (SIGINT, SIGTERM) or stop is closed
// or sent on. A wrong address is a usage error (Listen).
func Serve(ctx context.Context, runs *producer.Runs, w Where, stop <-chan struct{}, started func(Served)) error {
	ln, err := Listen(w.Addr)
	if err != nil {
		return err
	}
	ls := producer.Listeners{HTTP: ln}
	at := Served{HTTP: ln.Addr().String(), Unix: w.Unix}
	if w.GRPC {
		ls.GRPC, err = producer.ListenBeside(ln)
	}
	if err == nil && w.Unix != "" {
		ls.Unix, err = producer.ListenUnix(w.Unix)
	}
	if err != nil {
		for _, l := range []net.Listener{ls.HTTP, ls.GRPC} {
			if l != nil {
				l.Close()
			}
		}
		return err
	}
	if ls.GRPC != nil {
		at.GRPC = ls.GRPC.Addr().String()
	}
	srv, err := producer.ServeBindings(runs, ls)
	if err != nil {
		return err
	}
	started(at)
	if err := srv.Wait(ctx, stop); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
