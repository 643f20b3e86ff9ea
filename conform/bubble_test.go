package conform

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/aaep-term/aaep-term/producer"
)

// memNet is a network in memory, made of net.Pipe connections: a test in a
// synctest bubble serves our producer (or the suite's stage) on it and the
// suite (or a fake subscriber) dials it, so every wait of the run (a held
// prompt, a timeout, a quiet stream) is on the bubble's clock, which moves
// on at once when every goroutine waits.
// Real sockets would not let it: a goroutine reading one is not durably
// blocked.
type memNet struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newMemNet() *memNet {
	return &memNet{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept returns the server end of the next connection dialed.
func (n *memNet) Accept() (net.Conn, error) {
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and DialContext.
func (n *memNet) Close() error {
	n.once.Do(func() { close(n.done) })
	return nil
}

// Addr names the network.
func (n *memNet) Addr() net.Addr { return memAddr{} }

// DialContext connects to the listener, whatever the address.
func (n *memNet) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	server, client := net.Pipe()
	select {
	case n.conns <- server:
		return client, nil
	case <-n.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type memAddr struct{}

func (memAddr) Network() string { return "mem" }
func (memAddr) String() string  { return "aaep.test:80" }

// serveMem serves our producer with opts (the target scenarios when they
// name none) as serveHandlerMem does, and closes it when the test ends.
func serveMem(t *testing.T, opts producer.Options) (string, *http.Client) {
	t.Helper()
	if opts.Scenarios == nil {
		opts.Scenarios = conformScenarios(t)
	}
	p := producer.New(opts)
	url, client := serveHandlerMem(t, p)
	t.Cleanup(func() { p.Close() }) // before the server's cleanup: its streams end first
	return url, client
}

// serveHandlerMem serves h over HTTP on a memNet of its own, in the calling
// test's bubble, and returns its URL and the client that reaches it. The
// cleanup closes the server and the client's connections, so that no
// goroutine of the bubble is left.
func serveHandlerMem(t *testing.T, h http.Handler) (string, *http.Client) {
	n := newMemNet()
	srv := &http.Server{Handler: h}
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(n) }()
	tr := &http.Transport{DialContext: n.DialContext}
	t.Cleanup(func() {
		_ = srv.Close()
		<-served
		tr.CloseIdleConnections()
	})
	return "http://aaep.test", &http.Client{Transport: tr}
}

// runMem runs o against our producer with popts, served by serveMem and
// ending its streams once played (as serveSSE does), in a
// synctest bubble of its own: o's endpoint and HTTP client are set here.
// The run takes the time the producer and the suite say on the bubble's
// clock, and next to none on the wall's.
func runMem(t *testing.T, popts producer.Options, o ProducerOptions) *Report {
	t.Helper()
	var rep *Report
	popts.EndWhenDone = true
	synctest.Test(t, func(t *testing.T) {
		url, client := serveMem(t, popts)
		o.Endpoint = url
		o.Transport.SSE.HTTPClient = client
		rep = runWith(t, o)
	})
	if rep == nil {
		t.FailNow() // the run failed in the bubble and said why
	}
	return rep
}

// memSubscriber returns a memNet for the suite to serve the subscriber
// tests on and the fake subscriber of mode run in this process, reaching
// it there (SubscriberOptions.listener and run), in the calling test's
// bubble. The cleanup closes the subscriber's connections.
func memSubscriber(t *testing.T, mode string) (net.Listener, func(context.Context, string, io.Reader, io.Writer) error) {
	n := newMemNet()
	tr := &http.Transport{DialContext: n.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return n, inProcess(mode, &http.Client{Transport: tr})
}
