package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	aaepterm "github.com/aaep-term/aaep-term"
	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/ttytest"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// announcements returns the kind, event and text of every announcement in
// JSON output, one string each.
func announcements(t *testing.T, out []byte) []string {
	t.Helper()
	var got []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			Record, Kind, EventID, Text string
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %s", sc.Text())
		}
		r.Record, _ = m["record"].(string)
		r.Kind, _ = m["kind"].(string)
		r.EventID, _ = m["event_id"].(string)
		r.Text, _ = m["text"].(string)
		if r.Record == "announcement" && r.EventID != "" {
			got = append(got, fmt.Sprintf("%s %s %s", r.Kind, r.EventID, r.Text))
		}
	}
	return got
}

// A demo session captured while a live engine announces it plays back with
// the same announcements, and checks clean.
func TestRoundTrip(t *testing.T) {
	all, err := producer.LoadScenarios(aaepterm.Scenarios, "testdata/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	p := producer.New(producer.Options{Scenarios: all, Speed: 0, EndWhenDone: true, PromptTimeout: 50 * time.Millisecond})
	srv := httptest.NewServer(p)
	defer func() { p.Close(); srv.Close() }()

	path := filepath.Join(t.TempDir(), "demo.aaep")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	w, err := capture.NewWriter(f, capture.Header{Endpoint: srv.URL}, start, capture.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var live bytes.Buffer
	lp := &player{errs: io.Discard, out: line.NewJSON(&live)}
	lp.ann = announce.New(announce.Config{}, lp.out)
	lp.eng = session.New(session.Config{}, lp)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := transport.Dial(ctx, srv.URL, transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutLegacy}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	n := 0
	var last time.Time
	for {
		fr, err := conn.Recv(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(capture.In, fr.Data, fr.At); err != nil {
			t.Fatal(err)
		}
		n++
		// The live run's clock is the receive time, as the replay's is.
		last = fr.At
		lp.eng.Tick(last)
		lp.record(capture.Record{Line: n, Dir: capture.In, Msg: fr.Data}, last)
	}
	lp.finish(last, "end")
	f.Close()

	code, out, errOut := replay(t, "play", "--speed", "0", "--json", path)
	if code != 0 {
		t.Fatalf("play: exit %d: %s", code, errOut)
	}
	want, got := announcements(t, live.Bytes()), announcements(t, []byte(out))
	if len(want) < 20 {
		t.Fatalf("only %d live announcements", len(want))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("replayed announcements differ from the live ones:\nlive:\n%s\nreplay:\n%s", want, got)
	}
	if code, out, _ := replay(t, "check", path); code != 0 {
		t.Errorf("check: exit %d\n%s", code, out)
	}
}

// The round trip with the real tools: aaep-capture records a demo session
// while aaep-listen --json announces the same session live; the capture
// checks clean, and play --json makes the same deliveries (kind and event,
// in order) as the live run.
func TestRoundTripRealTools(t *testing.T) {
	captureBin := ttytest.Build(t, "../aaep-capture", "aaep-capture")
	listenBin := ttytest.Build(t, "../aaep-listen", "aaep-listen")
	all, err := producer.LoadScenarios(aaepterm.Scenarios, "testdata/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	// Paced, so both subscribers are there before the run ends; each stream
	// gets the run's history from its start.
	p := producer.New(producer.Options{Scenarios: all, Speed: 0.3, EndWhenDone: true, PromptTimeout: 300 * time.Millisecond})
	srv := httptest.NewServer(p)
	defer func() { p.Close(); srv.Close() }()
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.aaep")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	capCmd := exec.CommandContext(ctx, captureBin, "--endpoint", srv.URL, "-o", path)
	var capErr bytes.Buffer
	capCmd.Stderr = &capErr
	listenCmd := exec.CommandContext(ctx, listenBin, srv.URL, "--json", "--no-sign")
	listenCmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir)
	stdin, err := listenCmd.StdinPipe() // open until the end: no "end of input"
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var live, listenErr bytes.Buffer
	listenCmd.Stdout, listenCmd.Stderr = &live, &listenErr
	listenCmd.WaitDelay, capCmd.WaitDelay = 5*time.Second, 5*time.Second
	if err := capCmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := listenCmd.Run(); err != nil {
		t.Fatalf("aaep-listen: %v\n%s", err, listenErr.String())
	}
	if err := capCmd.Wait(); err != nil {
		t.Fatalf("aaep-capture: %v\n%s", err, capErr.String())
	}
	if code, out, _ := replay(t, "check", path); code != 0 {
		t.Errorf("check of the capture: exit %d\n%s", code, out)
	}
	code, out, errOut := replay(t, "play", "--speed", "0", "--json", path)
	if code != 0 {
		t.Fatalf("play: exit %d: %s", code, errOut)
	}
	deliveries := func(b []byte) []string {
		var d []string
		for _, a := range announcements(t, b) {
			kind, rest, _ := strings.Cut(a, " ")
			id, _, _ := strings.Cut(rest, " ")
			d = append(d, kind+" "+id)
		}
		return d
	}
	want, got := deliveries(live.Bytes()), deliveries([]byte(out))
	if len(want) < 20 {
		t.Fatalf("only %d live deliveries:\n%s\n%s", len(want), live.String(), listenErr.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replayed deliveries differ from the live ones:\nlive:\n%s\nreplay:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
}
