package main

// live_test.go: play announces a capture exactly as the subscriber client
// announced the same frames live, over a real Unix socket.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture/replay"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// heard returns every announcement and diagnostic of JSON output (not the
// notes, which differ between a live run and a replay), without times.
func heard(t *testing.T, out []byte) []string {
	t.Helper()
	var got []string
	for _, m := range records(t, out) {
		if m["record"] == "note" {
			continue
		}
		delete(m, "time")
		b, _ := json.Marshal(m)
		got = append(got, string(b))
	}
	return got
}

// TestPlayIsLive: the frames of a capture whose recorded producer broke its
// honored terms (a filtered type, a flood beyond the rate) are sent by a
// producer on a Unix socket, at their recorded times on the client's clock,
// to the subscriber client with the recorded request; play --json of the
// capture announces and warns exactly as that live client did.
func TestPlayIsLive(t *testing.T) {
	path := termsCapture(t)
	rd, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := time.Parse(time.RFC3339Nano, rd.Header().StartedAt)
	var recs []capture.Record
	var request protocol.SubscriptionRequest
	for {
		r, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Dir == capture.Out {
			if err := json.Unmarshal(r.Msg, &request); err != nil {
				t.Fatal(err)
			}
			continue
		}
		recs = append(recs, r)
	}
	rd.Close()

	// The producer: it answers the request with the recorded acceptance,
	// then sends each recorded frame once the client has handled the one
	// before (told by the tap), with the client's clock at its recorded time.
	sock := filepath.Join(t.TempDir(), "p.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	clock := &replay.Clock{}
	clock.Set(base)
	handled := make(chan struct{}, len(recs))
	var sent atomic.Int32 // frames the producer wrote
	served := make(chan error, 1)
	go func() {
		served <- func() error {
			c, err := ln.Accept()
			if err != nil {
				return err
			}
			defer c.Close()
			if _, err := bufio.NewReader(c).ReadBytes('\n'); err != nil { // the subscription request
				return err
			}
			for _, r := range recs {
				clock.Set(base.Add(time.Duration(r.T * float64(time.Second))))
				if _, err := c.Write(append(bytes.Clone(r.Msg), '\n')); err != nil {
					return err
				}
				sent.Add(1)
				<-handled
			}
			return nil
		}()
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var live bytes.Buffer
	lp := newPlayer(&live, io.Discard, true, "normal", false)
	opts := transport.Options{}
	opts.Unix.MaxReconnects = -1
	c, err := subscriber.Dial(ctx, "unix:"+sock, subscriber.Config{
		Identity:  session.Identity{ID: "live", Name: "live"},
		Terms:     termsOf(request.Capabilities),
		Transport: opts,
		Now:       clock.Now,
		Tap: func(dir subscriber.Direction, _ []byte, _ time.Time) {
			if dir == subscriber.Received {
				handled <- struct{}{}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := lp.hear(ctx, lp.track(""), c); err != nil {
		lp.flush()
		t.Fatalf("%v, after the producer wrote %d of %d frames and the client told:\n%s", err, sent.Load(), len(recs), live.String())
	}
	lp.flush()
	if err := <-served; err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runReplay(t, "play", "--speed", "0", "--json", path)
	if code != 0 {
		t.Fatalf("play: exit %d: %s", code, errOut)
	}
	want, got := heard(t, live.Bytes()), heard(t, []byte(out))
	if len(want) < 8 {
		t.Fatalf("only %d live announcements and warnings:\n%s", len(want), live.String())
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("play differs from the live client:\nlive:\n%s\nplay:\n%s", bytes.Join(asBytes(want), []byte("\n")), bytes.Join(asBytes(got), []byte("\n")))
	}
}

func asBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}
