package wire

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func readAll(t *testing.T, r *Reader) (msgs []string, skipped int, end error) {
	t.Helper()
	for {
		m, err := r.Next()
		var tl *TooLargeError
		switch {
		case errors.As(err, &tl):
			skipped++
		case err != nil:
			return msgs, skipped, err
		default:
			msgs = append(msgs, string(m))
		}
	}
}

func TestLines(t *testing.T) {
	in := "{\"a\":1}\r\n\n   \n{\"b\":2}\n" + `{"long":"` + strings.Repeat("x", 200) + "\"}\n{\"c\":3}"
	r := NewReader(strings.NewReader(in), FramingUnknown, 100)
	msgs, skipped, err := readAll(t, r)
	if err != io.EOF || skipped != 1 || strings.Join(msgs, "|") != `{"a":1}|{"b":2}|{"c":3}` {
		t.Errorf("%q %d %v", msgs, skipped, err)
	}
	if r.Framing() != FramingLines {
		t.Errorf("framing %v", r.Framing())
	}
}

func TestLongLineOverBuffer(t *testing.T) {
	big := `{"x":"` + strings.Repeat("y", 3*bufSize) + `"}`
	r := NewReader(strings.NewReader(big+"\n"+big+"\n{}\n"), FramingLines, 4*bufSize)
	msgs, skipped, err := readAll(t, r)
	if err != io.EOF || skipped != 0 || len(msgs) != 3 || msgs[0] != big {
		t.Fatalf("%d msgs, %d skipped, %v", len(msgs), skipped, err)
	}
	r = NewReader(strings.NewReader(big+"\n{}\n"), FramingLines, bufSize)
	msgs, skipped, err = readAll(t, r)
	if err != io.EOF || skipped != 1 || len(msgs) != 1 {
		t.Fatalf("%d msgs, %d skipped, %v", len(msgs), skipped, err)
	}
}

func TestLength(t *testing.T) {
	var b []byte
	for _, m := range []string{`{"a":1}`, strings.Repeat("z", 50), `{"b":2}`} {
		b, _ = Append(b, FramingLength, []byte(m))
	}
	r := NewReader(bytes.NewReader(b), FramingUnknown, 20)
	msgs, skipped, err := readAll(t, r)
	if err != io.EOF || skipped != 1 || strings.Join(msgs, "|") != `{"a":1}|{"b":2}` || r.Framing() != FramingLength {
		t.Errorf("%q %d %v %v", msgs, skipped, err, r.Framing())
	}
	// Cut inside a message.
	r = NewReader(bytes.NewReader(b[:9]), FramingLength, 100)
	if _, _, err := readAll(t, r); err != io.ErrUnexpectedEOF {
		t.Errorf("cut: %v", err)
	}
}

func TestAppendCompacts(t *testing.T) {
	b, err := Append(nil, FramingLines, []byte("{\n \"a\": 1\n}"))
	if err != nil || string(b) != "{\"a\":1}\n" {
		t.Errorf("%q %v", b, err)
	}
	if _, err := Append(nil, FramingLines, []byte("not\njson")); err == nil {
		t.Error("no error for a broken message with a newline")
	}
}

func TestParse(t *testing.T) {
	good := []string{
		`{"jsonrpc":"2.0","method":"aaep.event","params":{"type":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"aaep.ping"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}`,
	}
	for _, s := range good {
		if _, err := Parse([]byte(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	bad := []string{
		`{"jsonrpc":"1.0","method":"x"}`,
		`{"jsonrpc":"2.0","id":{},"method":"x"}`,
		`{"jsonrpc":"2.0","method":"x","params":3}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}`,
		`{"jsonrpc":"2.0","method":"x","result":1}`,
		`[1]`, `nonsense`,
	}
	for _, s := range bad {
		if _, err := Parse([]byte(s)); err == nil {
			t.Errorf("%s: no error", s)
		}
	}
	m, _ := Parse(Request(nil, MethodReply, []byte(`{"type":"confirmation.reply"}`)))
	if !m.IsNotification() || m.Method != MethodReply {
		t.Errorf("%+v", m)
	}
	m, _ = Parse(Fail(nil, CodeRejected, "no", []byte(`{"type":"subscription.rejected"}`)))
	if !m.IsResponse() || m.Error == nil || string(m.ID) != "null" {
		t.Errorf("%+v", m)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n\n{\"b\"\r\n"), 16)
	f.Add([]byte("\x00\x00\x00\x02{}\x00\x00\x01\x00"), 8)
	f.Add([]byte("x"), 1)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max < 1 || max > 1<<20 {
			max = 64
		}
		r := NewReader(bytes.NewReader(in), FramingUnknown, max)
		total := 0
		for range len(in) + 2 {
			m, err := r.Next()
			var tl *TooLargeError
			if errors.As(err, &tl) {
				continue
			}
			if err != nil {
				return
			}
			if len(m) > max {
				t.Fatalf("message of %d bytes over the limit %d", len(m), max)
			}
			total += len(m)
			if total > len(in) {
				t.Fatal("more bytes out than in")
			}
		}
		if _, err := r.Next(); err == nil {
			t.Fatal("reader never ended")
		}
	})
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","method":"aaep.event","params":{"type":"x"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":{"type":"subscription.accepted"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","error":{"code":-32001,"message":"m","data":{}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := Parse(in)
		if err != nil {
			return
		}
		if m.IsRequest() && m.IsNotification() || m.IsResponse() && (m.Result == nil) == (m.Error == nil) {
			t.Fatalf("inconsistent %+v", m)
		}
		// What we parse, we can write back and parse again.
		var out []byte
		if m.IsResponse() && m.Error == nil {
			out = Result(m.ID, m.Result)
		} else if m.Method != "" {
			out = Request(m.ID, m.Method, m.Params)
		} else {
			return
		}
		if _, err := Parse(out); err != nil {
			t.Fatalf("re-encoded %s: %v", out, err)
		}
	})
}

func TestPeerUID(t *testing.T) {
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			defer c.Close()
			_, _ = c.Read(make([]byte, 1))
		}
	}()
	c, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	uid, ok, err := PeerUID(c)
	if err != nil || (ok && uid != os.Getuid()) || (runtime.GOOS == "linux" && !ok) {
		t.Errorf("uid %d ok %v err %v", uid, ok, err)
	}
}
