package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/aaep-term/aaep-term/internal/procgroup"
	"github.com/aaep-term/aaep-term/internal/wire"
)

// FuzzStdioRead feeds arbitrary producer output to the stdio decoder: it
// must never panic, deliver only JSON objects, and end with the end of the
// input.
func FuzzStdioRead(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","method":"aaep.event","params":{"type":"aaep:agent.session.started"}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{"type":"subscription.accepted"}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"no","data":{"type":"subscription.rejected"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":9,"method":"aaep.ping"}` + "\n" + `garbage` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"aaep.close","params":[1]}`))
	// A child that has exited at once: the end of the input is its clean
	// exit, and what the reader answers goes to a closed pipe.
	child, err := procgroup.Start([]string{"true"}, procgroup.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(child.Close)
	f.Fuzz(func(t *testing.T, in []byte) {
		l := &stdioLink{
			rd: wire.NewReader(bytes.NewReader(in), wire.FramingLines, 1<<16), child: child,
			diag: func(string) {}, name: "fuzz",
		}
		for range len(in) + 1 {
			msg, err := l.read()
			if errors.As(err, new(*FrameTooLargeError)) {
				continue
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("end of input: %v", err)
				}
				return
			}
			if len(msg) == 0 || msg[0] != '{' || !json.Valid(msg) {
				t.Fatalf("delivered %q", msg)
			}
		}
		t.Fatal("the reader never ended")
	})
}
