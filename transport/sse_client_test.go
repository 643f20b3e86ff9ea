package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder collects status reports and diagnostics.
type recorder struct {
	mu     sync.Mutex
	status []string
	diags  []string
}

func (r *recorder) onStatus(s Status, detail string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = append(r.status, strings.TrimSpace(s.String()+" "+detail))
}

func (r *recorder) onDiag(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.diags = append(r.diags, msg)
}

func (r *recorder) statuses() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.status...)
}

func (r *recorder) diagnostics() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.diags...)
}

func (r *recorder) opts(o SSEOptions) SSEOptions {
	o.OnStatus, o.OnDiagnostic = r.onStatus, r.onDiag
	if o.InitialBackoff == 0 {
		o.InitialBackoff = 5 * time.Millisecond
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 20 * time.Millisecond
	}
	return o
}

// streamHeaders starts an event stream response.
func streamHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

func write(w http.ResponseWriter, s string) {
	io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

// recvN receives n frames or fails.
func recvN(t *testing.T, c Conn, n int) []Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out []Frame
	for range n {
		f, err := c.Recv(ctx)
		if err != nil {
			t.Fatalf("Recv after %d frames: %v", len(out), err)
		}
		out = append(out, f)
	}
	return out
}

// recvErr receives until an error and returns it, failing on frames.
func recvErr(t *testing.T, c Conn) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	f, err := c.Recv(ctx)
	if err == nil {
		t.Fatalf("unexpected frame %q", f.Data)
	}
	return err
}

func dial(t *testing.T, base string, o SSEOptions) Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := DialSSE(ctx, base, o)
	if err != nil {
		t.Fatalf("DialSSE: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestSSELegacy(t *testing.T) {
	type seen struct{ accept, cache, auth, extra, lastID string }
	got := make(chan seen, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.Header.Get("Accept"), r.Header.Get("Cache-Control"), r.Header.Get("Authorization"),
			r.Header.Get("X-Extra"), r.Header.Get("Last-Event-ID")}
		streamHeaders(w)
		write(w, ": connected\n\n")
		for i := range 3 {
			write(w, fmt.Sprintf("data: {\"n\":%d}\n\n", i))
		}
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	var rec recorder
	c := dial(t, srv.URL, rec.opts(SSEOptions{
		Layout: LayoutLegacy, Token: "tok", Header: http.Header{"X-Extra": {"yes"}},
	}))
	frames := recvN(t, c, 3)
	for i, f := range frames {
		if want := fmt.Sprintf(`{"n":%d}`, i); string(f.Data) != want || f.Event != "" || f.ID != "" || f.At.IsZero() {
			t.Errorf("frame %d: %+v", i, f)
		}
	}
	h := <-got
	if h != (seen{"text/event-stream", "no-cache", "Bearer tok", "yes", ""}) {
		t.Errorf("request headers %+v", h)
	}
	if s := rec.statuses(); strings.Join(s, "|") != "connecting|connected" {
		t.Errorf("statuses %q", s)
	}
}

// specServer is a producer in the appendix B layout under prefix.
type specServer struct {
	prefix   string
	location func(r *http.Request) string // default: relative
	reqBody  chan []byte
	events   []string
}

func (s *specServer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+s.prefix+"/aaep/v1/subscriptions", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "content type", http.StatusUnsupportedMediaType)
			return
		}
		s.reqBody <- b
		loc := s.prefix + "/aaep/v1/events?subscription_id=sub_1"
		if s.location != nil {
			loc = s.location(r)
		}
		w.Header().Set("Location", loc)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"type":"subscription.accepted","subscription_id":"sub_1"}`)
	})
	mux.HandleFunc("GET "+s.prefix+"/aaep/v1/events", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("subscription_id") != "sub_1" {
			http.Error(w, "no such subscription", http.StatusNotFound)
			return
		}
		streamHeaders(w)
		for i, e := range s.events {
			write(w, fmt.Sprintf("event: aaep.event\nid: evt_%d\ndata: %s\n\n", i, e))
		}
		<-r.Context().Done()
	})
	return mux
}

func TestSSESpecLayout(t *testing.T) {
	for _, tc := range []struct {
		name   string
		layout Layout
		loc    string // "" relative, "abs", "none"
	}{
		{"spec relative Location", LayoutSpec, ""},
		{"auto absolute Location", LayoutAuto, "abs"},
		{"no Location", LayoutSpec, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &specServer{prefix: "/agent1", reqBody: make(chan []byte, 1), events: []string{`{"a":1}`, `{"b":2}`}}
			srv := httptest.NewServer(s.handler())
			t.Cleanup(srv.Close)
			switch tc.loc {
			case "abs":
				s.location = func(*http.Request) string { return srv.URL + "/agent1/aaep/v1/events?subscription_id=sub_1" }
			case "none":
				s.location = func(*http.Request) string { return "" }
			}
			var rec recorder
			c := dial(t, srv.URL+"/agent1/", rec.opts(SSEOptions{Layout: tc.layout, SubscriptionRequest: []byte(`{"type":"subscription.request"}`)}))
			frames := recvN(t, c, 3)
			if f := frames[0]; f.Event != EventHandshake || string(f.Data) != `{"type":"subscription.accepted","subscription_id":"sub_1"}` {
				t.Errorf("handshake frame %+v", f)
			}
			if f := frames[1]; f.Event != "aaep.event" || f.ID != "evt_0" || string(f.Data) != `{"a":1}` {
				t.Errorf("frame 1 %+v", f)
			}
			if f := frames[2]; f.ID != "evt_1" || string(f.Data) != `{"b":2}` {
				t.Errorf("frame 2 %+v", f)
			}
			if b := <-s.reqBody; string(b) != `{"type":"subscription.request"}` {
				t.Errorf("request body %q", b)
			}
			if s := rec.statuses(); strings.Join(s, "|") != "connecting|connected" {
				t.Errorf("statuses %q", s)
			}
		})
	}
}

func TestSSEAutoFallback(t *testing.T) {
	for _, tc := range []struct {
		name string
		sub  http.HandlerFunc
		why  string
	}{
		{"404", http.NotFound, "answered 404 Not Found"},
		{"405", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", http.StatusMethodNotAllowed)
		}, "answered 405 Method Not Allowed"},
		{"HTML page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<!doctype html><title>app</title>")
		}, "without a JSON body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("/p/aaep/v1/subscriptions", tc.sub)
			mux.HandleFunc("GET /p/events", func(w http.ResponseWriter, r *http.Request) {
				streamHeaders(w)
				write(w, "data: {\"x\":1}\n\n")
				<-r.Context().Done()
			})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			var rec recorder
			c := dial(t, srv.URL+"/p", rec.opts(SSEOptions{SubscriptionRequest: []byte(`{}`)}))
			if f := recvN(t, c, 1)[0]; string(f.Data) != `{"x":1}` || f.Event != "" {
				t.Errorf("frame %+v", f)
			}
			s := rec.statuses()
			if len(s) != 2 || s[0] != "connecting" || !strings.HasPrefix(s[1], "connected This producer does not offer subscription negotiation") ||
				!strings.Contains(s[1], tc.why) {
				t.Errorf("statuses %q", s)
			}
			if d := rec.diagnostics(); len(d) != 0 {
				t.Errorf("diagnostics %q", d)
			}
		})
	}
}

func TestSSESpecLayoutNoFallback(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	_, err := DialSSE(context.Background(), srv.URL, SSEOptions{Layout: LayoutSpec, SubscriptionRequest: []byte(`{}`)})
	var nn *noNegotiation
	if !errors.As(err, &nn) {
		t.Fatalf("got %v", err)
	}
	if _, err := DialSSE(context.Background(), srv.URL, SSEOptions{Layout: LayoutSpec}); err == nil {
		t.Fatal("spec layout without a request: no error")
	}
}

func TestSSERejected(t *testing.T) {
	var gets int
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc("POST /aaep/v1/subscriptions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"type":"subscription.rejected","reason":"authorization_denied"}`)
	})
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gets++
		mu.Unlock()
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	var rec recorder
	c := dial(t, srv.URL, rec.opts(SSEOptions{SubscriptionRequest: []byte(`{}`)}))
	f := recvN(t, c, 1)[0]
	if f.Event != EventHandshake || !strings.Contains(string(f.Data), "subscription.rejected") {
		t.Errorf("frame %+v", f)
	}
	if err := recvErr(t, c); err != io.EOF || EndReasonOf(c, err) != EndRejected {
		t.Errorf("after rejection: %v, %v", err, EndReasonOf(c, err))
	}
	mu.Lock()
	defer mu.Unlock()
	if gets != 0 {
		t.Errorf("%d stream requests after a rejection", gets)
	}
	if s := rec.statuses(); strings.Join(s, "|") != "connecting|closed The producer rejected the subscription." {
		t.Errorf("statuses %q", s)
	}
}

// resumeServer serves events evt_1…evt_n from a fixed log, resuming after
// Last-Event-ID, and ends each connection after perConn events. cut, when
// set, makes every connection end in the middle of the next event instead,
// abruptly.
type resumeServer struct {
	n, perConn int
	cut        bool
	mu         sync.Mutex
	lastIDs    []string // Last-Event-ID of every request
	sent       []int    // event numbers written (or being written), in order
}

func (s *resumeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	last := r.Header.Get("Last-Event-ID")
	s.lastIDs = append(s.lastIDs, last)
	s.mu.Unlock()
	next := 1
	if last != "" {
		fmt.Sscanf(last, "evt_%d", &next)
		next++
	}
	streamHeaders(w)
	write(w, "retry: 5\n: hello\n\n")
	for i := next; i < next+s.perConn && i <= s.n; i++ {
		// Recorded before the write: the client may have the event (and the
		// test may read sent) before the write call returns here.
		s.mu.Lock()
		s.sent = append(s.sent, i)
		s.mu.Unlock()
		write(w, fmt.Sprintf("event: aaep.event\nid: evt_%d\ndata: {\"n\":%d}\n\n", i, i))
	}
	if next+s.perConn > s.n {
		<-r.Context().Done()
		return
	}
	if s.cut {
		i := next + s.perConn
		write(w, fmt.Sprintf("event: aaep.event\nid: evt_%d\ndata: {\"n\":", i))
		panic(http.ErrAbortHandler) // drop the TCP connection mid-event
	}
}

func TestSSEReconnect(t *testing.T) {
	for _, cut := range []bool{false, true} {
		t.Run(fmt.Sprintf("cut=%v", cut), func(t *testing.T) {
			s := &resumeServer{n: 10, perConn: 3, cut: cut}
			srv := httptest.NewServer(s)
			t.Cleanup(srv.Close)
			var rec recorder
			// A long backoff that the stream's "retry: 5" overrides.
			c := dial(t, srv.URL, rec.opts(SSEOptions{Layout: LayoutLegacy, InitialBackoff: time.Minute, MaxBackoff: time.Minute}))
			frames := recvN(t, c, 10)
			for i, f := range frames {
				if want := fmt.Sprintf(`{"n":%d}`, i+1); string(f.Data) != want || f.ID != fmt.Sprintf("evt_%d", i+1) {
					t.Errorf("frame %d: %q id %q", i, f.Data, f.ID)
				}
			}
			s.mu.Lock()
			if got := strings.Join(s.lastIDs, ","); got != ",evt_3,evt_6,evt_9" {
				t.Errorf("Last-Event-ID headers %q", got)
			}
			if got := fmt.Sprint(s.sent); got != "[1 2 3 4 5 6 7 8 9 10]" {
				t.Errorf("server sent %s", got)
			}
			s.mu.Unlock()
			want := "The producer closed the event stream."
			if cut {
				want = "The producer went away in the middle of a message."
			}
			st := rec.statuses()
			if len(st) != 8 || st[2] != "reconnecting "+want || st[3] != "connected" {
				t.Errorf("statuses %q", st)
			}
		})
	}
}

func TestSSEGiveUp(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 {
			streamHeaders(w)
			write(w, "data: {}\n\n")
			return
		}
		http.Error(w, `{"error":"overloaded"}`, http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	var rec recorder
	c := dial(t, srv.URL, rec.opts(SSEOptions{Layout: LayoutLegacy, MaxReconnects: 2}))
	recvN(t, c, 1)
	err := recvErr(t, c)
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 503 || he.Code != "overloaded" {
		t.Fatalf("got %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 3 {
		t.Errorf("%d requests, want 1 + 2 reconnects", calls)
	}
}

func TestSSEFatalAndStop(t *testing.T) {
	for _, tc := range []struct {
		code   int
		want   func(error) bool
		reason EndReason
	}{
		{http.StatusUnauthorized, func(err error) bool {
			var he *HTTPError
			return errors.As(err, &he) && he.StatusCode == 401
		}, EndFailed},
		{http.StatusNoContent, func(err error) bool { return err == io.EOF }, EndNormal},
	} {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				calls++
				n := calls
				mu.Unlock()
				if n == 1 {
					streamHeaders(w)
					return
				}
				w.WriteHeader(tc.code)
			}))
			t.Cleanup(srv.Close)
			c := dial(t, srv.URL, (&recorder{}).opts(SSEOptions{}))
			err := recvErr(t, c)
			if !tc.want(err) {
				t.Fatalf("got %v", err)
			}
			if r := EndReasonOf(c, err); r != tc.reason {
				t.Errorf("end reason %v, want %v", r, tc.reason)
			}
			c.Close()
			if r := EndReasonOf(c, err); r != tc.reason {
				t.Errorf("after Close, end reason %v, want %v", r, tc.reason)
			}
			mu.Lock()
			defer mu.Unlock()
			if calls != 2 {
				t.Errorf("%d requests, want 2", calls)
			}
		})
	}
}

func TestSSEOversizeFrame(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		write(w, "data: "+strings.Repeat("x", 3000)+"\n\n")
		write(w, "data: {\"ok\":true}\n\n")
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	var rec recorder
	c := dial(t, srv.URL, rec.opts(SSEOptions{MaxFrameBytes: 1000}))
	if f := recvN(t, c, 1)[0]; string(f.Data) != `{"ok":true}` {
		t.Errorf("frame %q", f.Data)
	}
	if d := rec.diagnostics(); len(d) != 1 || d[0] != "Skipped a message from the producer that is too large: 3000 bytes, the limit is 1000 bytes." {
		t.Errorf("diagnostics %q", d)
	}
}

func TestSSESend(t *testing.T) {
	type post struct{ path, ctype, auth, extra, body string }
	posts := make(chan post, 4)
	mux := http.NewServeMux()
	stream := func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		<-r.Context().Done()
	}
	record := func(r *http.Request) string {
		b, _ := io.ReadAll(r.Body)
		posts <- post{r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Authorization"), r.Header.Get("X-Extra"), string(b)}
		return string(b)
	}
	mux.HandleFunc("GET /events", stream)
	mux.HandleFunc("GET /aaep/v1/events", stream)
	mux.HandleFunc("POST /aaep/v1/subscriptions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/aaep/v1/events")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"type":"subscription.accepted"}`)
	})
	mux.HandleFunc("POST /messages", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		io.WriteString(w, `{"status":"received"}`)
	})
	mux.HandleFunc("POST /aaep/v1/replies", func(w http.ResponseWriter, r *http.Request) {
		if record(r) == `{"bad":true}` {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"invalid_token","message":"Reply token does not match any outstanding confirmation."}`)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	o := SSEOptions{Token: "t0k", Header: http.Header{"X-Extra": {"e"}}}

	legacy := dial(t, srv.URL, o)
	if err := legacy.Send(ctx, []byte(`{"type":"confirmation.reply"}`)); err != nil {
		t.Fatalf("legacy send: %v", err)
	}
	if p := <-posts; p != (post{"/messages", "application/json", "Bearer t0k", "e", `{"type":"confirmation.reply"}`}) {
		t.Errorf("legacy post %+v", p)
	}

	o.SubscriptionRequest = []byte(`{}`)
	spec := dial(t, srv.URL, o)
	if err := spec.Send(ctx, []byte(`{"good":true}`)); err != nil {
		t.Fatalf("spec send: %v", err)
	}
	if p := <-posts; p != (post{"/aaep/v1/replies", "application/json", "Bearer t0k", "e", `{"good":true}`}) {
		t.Errorf("spec post %+v", p)
	}
	err := spec.Send(ctx, []byte(`{"bad":true}`))
	<-posts
	var he *HTTPError
	if !errors.As(err, &he) {
		t.Fatalf("got %v, want an HTTPError", err)
	}
	if he.StatusCode != 400 || he.Code != "invalid_token" || he.Message != "Reply token does not match any outstanding confirmation." ||
		he.Method != "POST" || he.URL != srv.URL+"/aaep/v1/replies" {
		t.Errorf("error %+v", he)
	}
	if !strings.Contains(err.Error(), "400 Bad Request: invalid_token: Reply token") {
		t.Errorf("error text %q", err)
	}
	spec.Close()
	if err := spec.Send(ctx, []byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Errorf("send after close: %v", err)
	}
}

func TestSSEDialErrors(t *testing.T) {
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html></html>")
	}))
	t.Cleanup(html.Close)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	for _, tc := range []struct{ name, base, want string }{
		{"not http", "ftp://x/", "unknown scheme"},
		{"no host", "http:///x", "names no host"},
		{"refused", deadURL, "open the event stream"},
		{"html stream", html.URL, "answered with text/html, not an event stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := DialSSE(context.Background(), tc.base, SSEOptions{Layout: LayoutLegacy})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v", c, err)
			}
		})
	}
	// The dial context bounds the first connection.
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(hang.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := DialSSE(ctx, hang.URL, SSEOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("dial with a deadline: %v", err)
	}
}

// transportGoroutines lists goroutines of this package's connections and of
// HTTP client connections.
func transportGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		s := string(g)
		if strings.Contains(s, "transport.(*sseConn)") || strings.Contains(s, "transport.(*fileConn)") ||
			strings.Contains(s, "net/http.(*persistConn)") {
			out = append(out, s)
		}
	}
	return out
}

func TestSSECloseIdle(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			io.WriteString(w, `{}`) // leaves an idle keep-alive connection behind
			return
		}
		streamHeaders(w)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	before := len(transportGoroutines())
	var rec recorder
	c, err := DialSSE(context.Background(), srv.URL, rec.opts(SSEOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(context.Background(), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := c.Recv(context.Background())
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond) // let Recv block on the idle stream
	start := time.Now()
	c.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, net.ErrClosed) || !errors.Is(err, ErrClosed) {
			t.Errorf("Recv after Close: %v", err)
		}
		// Close ends the read at once, not after a timeout; the bound is
		// loose so that a busy machine does not fail the test.
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Recv took %v to return after Close", d)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Recv still blocked 30s after Close")
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		left := transportGoroutines()
		if len(left) <= before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines left after Close:\n%s", strings.Join(left, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	st := rec.statuses()
	if st[len(st)-1] != "closed" {
		t.Errorf("statuses %q", st)
	}
}

// TestSSERecvContext: Recv's own context ends only that call.
func TestSSERecvContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		time.Sleep(100 * time.Millisecond)
		write(w, "data: {}\n\n")
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	c := dial(t, srv.URL, SSEOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := c.Recv(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	recvN(t, c, 1)
}

func TestSSEBackoff(t *testing.T) {
	c := &sseConn{o: SSEOptions{InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}.withDefaults()}
	check := func(n int, lo, hi time.Duration) {
		t.Helper()
		for range 200 {
			if d := c.backoff(n); d < lo || d > hi {
				t.Fatalf("attempt %d: %v not in [%v, %v]", n, d, lo, hi)
			}
		}
	}
	check(1, 50*time.Millisecond, 100*time.Millisecond)
	check(2, 100*time.Millisecond, 200*time.Millisecond)
	check(4, 400*time.Millisecond, 800*time.Millisecond)
	check(10, 500*time.Millisecond, time.Second)
	check(1000, 500*time.Millisecond, time.Second)
	c.retry = 3 * time.Second // the stream's retry: wins over MaxBackoff
	check(1, 1500*time.Millisecond, 3*time.Second)
	check(5, 1500*time.Millisecond, 3*time.Second)
	// Jittered: not always the same delay.
	seen := map[time.Duration]bool{}
	for range 50 {
		seen[c.backoff(1)] = true
	}
	if len(seen) < 10 {
		t.Errorf("only %d distinct delays", len(seen))
	}
}

// TestSSESpecResubscribe: a stream URL the producer forgot (404) is renewed
// with a new subscription request, and the new answer is delivered.
func TestSSESpecResubscribe(t *testing.T) {
	var mu sync.Mutex
	subs := 0
	mux := http.NewServeMux()
	mux.HandleFunc("POST /aaep/v1/subscriptions", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		subs++
		n := subs
		mu.Unlock()
		w.Header().Set("Location", fmt.Sprintf("/aaep/v1/events?subscription_id=sub_%d", n))
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"subscription_id":"sub_%d"}`, n)
	})
	mux.HandleFunc("GET /aaep/v1/events", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		current := fmt.Sprintf("sub_%d", subs)
		mu.Unlock()
		id := r.URL.Query().Get("subscription_id")
		if id != current || (id == "sub_1" && r.Header.Get("Last-Event-ID") != "") {
			http.NotFound(w, r) // sub_1 is forgotten after its first stream
			return
		}
		streamHeaders(w)
		write(w, fmt.Sprintf("id: evt_%s\ndata: {\"on\":%q}\n\n", id, id))
		if id == "sub_1" {
			return
		}
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := dial(t, srv.URL, (&recorder{}).opts(SSEOptions{Layout: LayoutSpec, SubscriptionRequest: []byte(`{}`)}))
	var got []string
	for _, f := range recvN(t, c, 4) {
		got = append(got, f.Event+" "+string(f.Data))
	}
	want := []string{
		`aaep.handshake {"subscription_id":"sub_1"}`, ` {"on":"sub_1"}`,
		`aaep.handshake {"subscription_id":"sub_2"}`, ` {"on":"sub_2"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q", got)
	}
}

// A producer that answers 200 and ends the stream at once, again and again:
// each empty stream is one status report (no "connected" between them),
// and after MaxEmptyStreams in a row the connection gives up, saying why.
func TestSSEEmptyStreamsGiveUp(t *testing.T) {
	var mu sync.Mutex
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	type report struct {
		s      Status
		detail string
	}
	reports := make(chan report, 100)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := DialSSE(ctx, srv.URL, SSEOptions{Layout: LayoutLegacy,
		InitialBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, MaxEmptyStreams: 3,
		OnStatus: func(s Status, detail string) { reports <- report{s, detail} }})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Recv(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("Recv: %v, want io.EOF", err)
	} else if r := EndReasonOf(conn, err); r != EndFailed {
		t.Errorf("end reason %v: giving up is no normal end", r)
	}
	counts := map[Status]int{}
	for r := range reports {
		counts[r.s]++
		t.Logf("%v: %s", r.s, r.detail)
		if r.s == StatusClosed {
			if !strings.Contains(r.detail, "4 times in a row") {
				t.Errorf("the give-up line %q does not say why", r.detail)
			}
			break
		}
	}
	if counts[StatusConnected] != 1 || counts[StatusReconnecting] != 3 {
		t.Errorf("reports %v: want one connected, then one line per empty stream", counts)
	}
	mu.Lock()
	defer mu.Unlock()
	if requests != 4 {
		t.Errorf("%d requests, want 4: the first and 3 reconnects", requests)
	}
}

// The stream's whole address, pasted in place of the producer's, reaches
// the producer, and a diagnostic says which address to give.
func TestSSEEventsPathPasted(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /agent/events", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		write(w, "data: {\"n\":0}\n\n")
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	for _, pasted := range []string{srv.URL + "/agent/events", srv.URL + "/agent/events/"} {
		var rec recorder
		c := dial(t, pasted, rec.opts(SSEOptions{Layout: LayoutLegacy}))
		if f := recvN(t, c, 1)[0]; string(f.Data) != `{"n":0}` {
			t.Errorf("%s: frame %+v", pasted, f)
		}
		if d := strings.Join(rec.diagnostics(), "|"); !strings.Contains(d, "listening to the producer at "+srv.URL+"/agent,") {
			t.Errorf("%s: diagnostics %q", pasted, d)
		}
	}
}
