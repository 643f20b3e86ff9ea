package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// readAllFrames receives until an error.
func readAllFrames(t *testing.T, c Conn) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out []string
	for {
		f, err := c.Recv(ctx)
		if err != nil {
			return out, err
		}
		out = append(out, string(f.Data))
	}
}

func TestNDJSON(t *testing.T) {
	long := `{"long":"` + strings.Repeat("x", 200) + `"}`
	tests := []struct {
		name  string
		in    string
		want  []string
		diags []string
	}{
		{name: "lines", in: "{\"a\":1}\n\n   \n{\"b\":2}\r\n{\"c\":3}", want: []string{`{"a":1}`, `{"b":2}`, `{"c":3}`}},
		{
			name: "capture",
			in: `{"aaep_capture":1,"started_at":"2026-01-01T00:00:00Z","tool":"aaep-capture v1"}` + "\n" +
				`[0.0, "i", {"transport":"connected"}]` + "\n" +
				`[0.1,"i",{"type":"aaep:agent.session.started"}]` + "\r\n" +
				`[0.2,"o",{"type":"confirmation.reply"}]` + "\n" +
				` [0.3, "i", {"type":"x", "transport":"y"}]` + "\n",
			want: []string{`{"type":"aaep:agent.session.started"}`, `{"type":"x", "transport":"y"}`},
		},
		{
			// Version 2 holds several connections, each record naming its own:
			// a file endpoint plays them all, in the order recorded.
			name: "capture of two connections",
			in: `{"aaep_capture":2,"connections":[{"id":"c1","endpoint":"a"},{"id":"c2","endpoint":"b"}]}` + "\n" +
				`[0.1,"i",{"type":"aaep:agent.session.started"},"c2"]` + "\n" +
				`[0.2,"i",{"transport":"connected"},"c1"]` + "\n" +
				`[0.3,"i",{"type":"aaep:agent.session.completed"},"c1"]` + "\n",
			want: []string{`{"type":"aaep:agent.session.started"}`, `{"type":"aaep:agent.session.completed"}`},
		},
		{
			name:  "bad capture records",
			in:    "[1,2]\n[0,1,{}]\n[0,\"i\",3]\n{\"ok\":1}\n",
			want:  []string{`{"ok":1}`},
			diags: []string{"line 1", "line 2", "line 3"},
		},
		{name: "header only first", in: "{\"a\":1}\n{\"aaep_capture\":1}\n", want: []string{`{"a":1}`, `{"aaep_capture":1}`}},
		{name: "not json passed on", in: "hello\n", want: []string{"hello"}},
		{
			name:  "over-long line skipped",
			in:    "{\"a\":1}\n" + long + "\n" + long + "\r\n{\"b\":2}\n" + long,
			want:  []string{`{"a":1}`, `{"b":2}`},
			diags: []string{"line 2", "line 3", "line 5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, wrap := range []func(io.Reader) io.Reader{
				func(r io.Reader) io.Reader { return r },
				iotest.OneByteReader,
			} {
				var rec recorder
				c := NewNDJSONConn(wrap(strings.NewReader(tt.in)), FileOptions{MaxLineBytes: 100, OnDiagnostic: rec.onDiag, OnStatus: rec.onStatus})
				got, err := readAllFrames(t, c)
				if err != io.EOF || EndReasonOf(c, err) != EndNormal {
					t.Errorf("end: %v, %v", err, EndReasonOf(c, err))
				}
				if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
					t.Errorf("got %q, want %q", got, tt.want)
				}
				d := rec.diagnostics()
				if len(d) != len(tt.diags) {
					t.Errorf("diagnostics %q, want %q", d, tt.diags)
				}
				for i := range min(len(d), len(tt.diags)) {
					if !strings.HasPrefix(d[i], "Skipped "+tt.diags[i]+":") {
						t.Errorf("diagnostic %q, want about %s", d[i], tt.diags[i])
					}
				}
				if s := rec.statuses(); strings.Join(s, "|") != "connected|closed End of the input." {
					t.Errorf("statuses %q", s)
				}
				if err := c.Send(context.Background(), []byte("{}")); !errors.Is(err, ErrNoBackChannel) {
					t.Errorf("Send: %v", err)
				}
				if _, err := c.Recv(context.Background()); err != io.EOF {
					t.Errorf("Recv after the end: %v", err)
				}
				c.Close()
			}
		})
	}
}

// TestNDJSONHugeLine: a 10 MB line is skipped without being kept.
func TestNDJSONHugeLine(t *testing.T) {
	src := &hugeEventReader{head: `{"big":"`, tail: `{"after":1}` + "\n", n: 10 << 20}
	var rec recorder
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := NewNDJSONConn(src, FileOptions{OnDiagnostic: rec.onDiag})
	got, err := readAllFrames(t, c)
	runtime.ReadMemStats(&after)
	if err != io.EOF || len(got) != 1 || got[0] != `{"after":1}` {
		t.Fatalf("got %q, %v", got, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 6*DefaultMaxFrameBytes {
		t.Errorf("allocated %d bytes skipping a 10 MB line", grew)
	}
	// hugeEventReader ends the line with "\n\n": one blank line follows.
	if d := rec.diagnostics(); len(d) != 1 || !strings.Contains(d[0], "10485768 bytes") {
		t.Errorf("diagnostics %q", d)
	}
}

// TestNDJSONClose: Close makes a blocked Recv return and closes the source.
func TestNDJSONClose(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	c := NewNDJSONConn(pr, FileOptions{})
	errc := make(chan error, 1)
	go func() {
		_, err := c.Recv(context.Background())
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)
	c.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Recv after Close: %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Recv still blocked after Close")
	}
	if _, err := pw.Write([]byte("x\n")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("source not closed: %v", err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for len(transportGoroutines()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines left:\n%s", strings.Join(transportGoroutines(), "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDial(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(path, []byte("{\"a\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		write(w, "data: {\"sse\":1}\n\n")
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	for _, ep := range []string{path, "file:" + path, "file://" + path, "file://localhost" + path, srv.URL, strings.Replace(srv.URL, "http", "HTTP", 1)} {
		t.Run(ep, func(t *testing.T) {
			var rec recorder
			c, err := Dial(context.Background(), ep, Options{SSE: SSEOptions{OnDiagnostic: rec.onDiag, OnStatus: rec.onStatus}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			f := recvN(t, c, 1)[0]
			if string(f.Data) != `{"a":1}` && string(f.Data) != `{"sse":1}` {
				t.Errorf("frame %q", f.Data)
			}
			if s := rec.statuses(); len(s) == 0 {
				t.Error("no status reported through the SSE callbacks")
			}
		})
	}
	// The message bindings are dialed: here, to nothing.
	for _, tc := range []struct{ ep, want string }{
		{"ws://127.0.0.1:1/aaep/v1/ws", "connect to ws://127.0.0.1:1/aaep/v1/ws"},
		{"unix:" + filepath.Join(dir, "agent.sock"), "no producer socket at"},
		{"exec:" + filepath.Join(dir, "no-such-agent") + " --stdio", "start the producer"},
		{`exec:agent "unfinished`, "unfinished quote"},
	} {
		_, err := Dial(context.Background(), tc.ep, Options{})
		if err == nil || errors.Is(err, errors.ErrUnsupported) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.ep, err)
		}
	}
	for _, ep := range []string{filepath.Join(dir, "missing"), dir, "file:", "file://otherhost/x", "localhost:8080"} {
		if c, err := Dial(context.Background(), ep, Options{}); err == nil {
			c.Close()
			t.Errorf("%s: no error", ep)
		}
	}
}
