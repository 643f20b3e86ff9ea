// record.go: one recording: dial, write every frame, stop when told.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// version is this build's version, written into capture headers.
const version = "0.1.0"

// record runs one capture from start to end.
func record(ctx context.Context, o *options) error {
	if o.Token == "" {
		o.Token = os.Getenv("AAEP_TOKEN")
	}
	out, closeOut, err := openOutput(o)
	if err != nil {
		return err
	}
	defer closeOut()
	var red *capture.Redactor
	if !o.NoRedact {
		red = capture.NewRedactor()
	}
	start := o.Now()
	w, err := capture.NewWriter(out, capture.Header{
		Endpoint:   o.Endpoint,
		Transport:  transportName(o.Endpoint),
		Subscriber: "aaep-capture",
		Tool:       "aaep-capture " + version,
	}, start, capture.WriterOptions{JSONL: o.JSONL, Redactor: red})
	if err != nil {
		return fmt.Errorf("start %s: %w", o.Output, err)
	}
	redaction := "Secrets are redacted (--no-redact keeps them)."
	if o.NoRedact {
		redaction = "Secrets are kept as sent: keep this file private."
	}
	fmt.Fprintf(o.IO.ErrOut, "Recording %s to %s. Prompts are recorded but never answered. %s\n", o.Endpoint, outputName(o.Output), redaction)

	if o.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	var req []byte
	if !o.NoHandshake {
		req = subscriptionRequest()
	}
	layout := transport.LayoutAuto
	switch {
	case o.NoHandshake || o.Layout == "legacy":
		layout = transport.LayoutLegacy
	case o.Layout == "spec":
		layout = transport.LayoutSpec
	}
	status := func(s transport.Status, detail string) {
		_ = w.Note(s.String(), detail, time.Now()) // a failed write shows on the next frame
	}
	conn, err := transport.Dial(ctx, o.Endpoint, transport.Options{SSE: transport.SSEOptions{
		Layout:              layout,
		Token:               o.Token,
		Header:              o.Header,
		SubscriptionRequest: req,
		OnStatus:            status,
		OnDiagnostic: func(msg string) {
			fmt.Fprintf(o.IO.ErrOut, "aaep-capture: %s\n", protocol.Sanitize(msg))
		},
	}})
	if err != nil {
		return fmt.Errorf("connect to %s: %w", o.Endpoint, err)
	}
	defer conn.Close()

	n, why, err := loop(ctx, o, conn, w, req)
	fmt.Fprintf(o.IO.ErrOut, "%s Recorded %d %s to %s in %s.\n", why, n, plural(n, "message", "messages"),
		outputName(o.Output), time.Since(start).Round(time.Millisecond))
	return err
}

// loop writes frames until the end; it returns how many messages were
// recorded and why it stopped.
func loop(ctx context.Context, o *options, conn transport.Conn, w *capture.Writer, req []byte) (int, string, error) {
	n := 0
	first := true
	for {
		f, err := conn.Recv(ctx)
		switch {
		case errors.Is(err, io.EOF):
			return n, "The producer ended the stream.", nil
		case err != nil && ctx.Err() != nil:
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return n, "The --duration is over.", nil
			}
			return n, "Stopped.", nil
		case err != nil:
			return n, "The connection was lost for good.", fmt.Errorf("receive: %w", err)
		}
		at := f.At
		if at.IsZero() {
			at = time.Now()
		}
		if first && req != nil {
			// The handshake was answered: record the request it answers,
			// at the time of the answer (the transport sent it while dialing).
			switch protocol.PeekType(f.Data) {
			case protocol.TypeSubscriptionAccepted, protocol.TypeSubscriptionRejected:
				if err := w.Write(capture.Out, req, at); err != nil {
					return n, "The file could not be written.", err
				}
			}
		}
		first = false
		if err := w.Write(capture.In, f.Data, at); err != nil {
			return n, "The file could not be written.", err
		}
		n++
		if o.MaxEvents > 0 && n >= o.MaxEvents {
			return n, fmt.Sprintf("Reached --max-events %d.", o.MaxEvents), nil
		}
	}
}

// subscriptionRequest is the handshake of a recorder: it says who it is and
// that it answers no prompts.
func subscriptionRequest() []byte {
	req := map[string]any{
		"type":               protocol.TypeSubscriptionRequest,
		"aaep_version":       "1.0.0",
		"subscriber_id":      "aaep-term-capture",
		"subscriber_name":    "aaep-capture",
		"subscriber_version": version,
		"capabilities": map[string]any{
			"preferred_verbosity":          "detailed",
			"supports_confirmation_reply":  false,
			"supports_clarification_reply": false,
			"supported_conformance_levels": []int{1, 2, 3},
		},
	}
	b, _ := json.Marshal(req) // a map of plain values always marshals
	return b
}

// openOutput opens the file to write; captures may hold secrets, so it is
// readable by its owner only.
func openOutput(o *options) (io.Writer, func(), error) {
	if o.Output == "-" {
		return o.IO.Out, func() {}, nil
	}
	f, err := os.OpenFile(o.Output, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open the output: %w", err)
	}
	return f, func() {
		if err := f.Close(); err != nil {
			fmt.Fprintf(o.IO.ErrOut, "aaep-capture: close %s: %v\n", o.Output, err)
		}
	}, nil
}

func outputName(path string) string {
	if path == "-" {
		return "standard output"
	}
	return path
}

// transportName names the binding an endpoint uses, for the header.
func transportName(endpoint string) string {
	for _, p := range []struct{ prefix, name string }{
		{"http:", "sse"}, {"https:", "sse"}, {"ws:", "websocket"}, {"wss:", "websocket"},
		{"unix:", "unix"}, {"exec:", "stdio"}, {"stdio:", "stdio"},
	} {
		if len(endpoint) >= len(p.prefix) && endpoint[:len(p.prefix)] == p.prefix {
			return p.name
		}
	}
	return "file"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
