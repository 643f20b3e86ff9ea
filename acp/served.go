package acp

// This file puts a served agent (serve.go) on every binding at once:
// HTTP (both layouts) and WebSocket on one port, gRPC on another, and a
// Unix socket in the local agents' directory, where aaep-listen --local
// finds it. aaep-bridge only wires it up.

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"

	"github.com/aaep-term/aaep-term/producer"
)

// Where says where ServeAgent listens; what is empty is not served.
type Where struct {
	// Addr is HOST:PORT for HTTP and WebSocket (port 0 picks a free one);
	// gRPC listens on a free port of the same host.
	Addr string
	// LocalDir is the directory of local agents' sockets
	// (localagents.Dir): the agent's socket there is named after it.
	LocalDir string
}

// Served is an agent served to every subscriber that comes.
type Served struct {
	Name     string // the agent's agent_id, which names its socket too
	Bridge   *Bridge
	Producer *producer.Producer
	// URLs are the endpoints subscribers dial, one a binding: http://…,
	// ws://…/aaep/v1/ws, grpc://…, unix:PATH.
	URLs    []string
	servers *producer.Servers
}

// ServeAgent starts the agent argv with opts and serves it where says.
// logf, if not nil, takes the bridge's problem notes and the producer's
// log lines. Close stops everything; Done is closed once the agent has
// ended.
func ServeAgent(ctx context.Context, argv []string, opts Options, where Where, logf func(string, ...any)) (*Served, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	b := New(opts)
	live, err := b.Serve(ctx, argv, func(s string) { logf("%s", s) })
	if err != nil {
		return nil, err
	}
	s := &Served{Name: live.Agent.ID, Bridge: b, Producer: producer.New(producer.Options{Live: live, Logf: logf})}
	if err := s.listen(where, live.Agent.ID); err != nil {
		s.Close()
		return nil, err
	}
	go func() { _ = s.Producer.Run(context.Background()) }()
	return s, nil
}

// listen serves the producer on each binding where names.
func (s *Served) listen(where Where, name string) error {
	var ls producer.Listeners
	closeAll := func() {
		for _, ln := range []net.Listener{ls.HTTP, ls.GRPC, ls.Unix} {
			if ln != nil {
				ln.Close()
			}
		}
	}
	if where.Addr != "" {
		ln, err := net.Listen("tcp", where.Addr)
		if err != nil {
			return fmt.Errorf("acp: listen on %s: %w", where.Addr, err)
		}
		ls.HTTP = ln
		if ls.GRPC, err = producer.ListenBeside(ln); err != nil {
			closeAll()
			return fmt.Errorf("acp: %w", err)
		}
	}
	if where.LocalDir != "" {
		_, ln, err := localSocket(where.LocalDir, name)
		if err != nil {
			closeAll()
			return err
		}
		ls.Unix = ln
	}
	srv, err := producer.ServeBindings(producer.OneRun(s.Producer), ls)
	if err != nil {
		return err
	}
	s.servers, s.URLs = srv, srv.URLs()
	return nil
}

// localSocket makes the agent's socket in dir, named after it: NAME.sock,
// or NAME-2.sock … NAME-9.sock when another agent of that name listens.
func localSocket(dir, name string) (string, net.Listener, error) {
	base := socketName(name)
	var err error
	for i := 1; i <= 9; i++ {
		n := base
		if i > 1 {
			n = fmt.Sprintf("%s-%d", base, i)
		}
		path := filepath.Join(dir, n+".sock")
		var ln net.Listener
		if ln, err = producer.ListenUnix(path); err == nil {
			return path, ln, nil
		}
	}
	return "", nil, fmt.Errorf("acp: a socket for %s in %s: %w", base, dir, err)
}

// socketName keeps the letters, digits, dots, dashes and underscores of
// name, for a socket's file name; "agent" when none is left.
func socketName(name string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return -1
	}, name)
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		return "agent"
	}
	return s
}

// Done is closed once the agent has ended: every stream is told the
// producer has finished.
func (s *Served) Done() <-chan struct{} { return s.Producer.Done() }

// Err is why a server failed; nil when none did.
func (s *Served) Err() error {
	if s.servers == nil {
		return nil
	}
	return s.servers.Err()
}

// Close stops the agent (its process group is killed if it does not exit
// by itself), ends every stream and connection, and stops the servers.
func (s *Served) Close() {
	s.Bridge.Close()
	if s.servers != nil {
		s.servers.Stop() // closes the producer first
	}
	s.Producer.Close()
}
