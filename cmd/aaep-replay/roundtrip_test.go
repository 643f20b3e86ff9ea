package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/internal/ttytest"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// records returns the records of JSON output.
func records(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var recs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %s", sc.Text())
		}
		recs = append(recs, m)
	}
	return recs
}

// announcements returns the kind, event and text of every announcement in
// JSON output, one string each.
func announcements(t *testing.T, out []byte) []string {
	t.Helper()
	var got []string
	for _, m := range records(t, out) {
		if id, _ := m["event_id"].(string); m["record"] == "announcement" && id != "" {
			got = append(got, fmt.Sprintf("%s %s %s", m["kind"], id, m["text"]))
		}
	}
	return got
}

// A demo session captured while a live engine announces it plays back with
// the same announcements, and checks clean.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	all, err := producer.LoadScenarios(demo.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	// A prompt's default comes a second after it, so no prompt is settled
	// among the frames a live client takes as one burst while it connects
	// (its receive times in the capture do not show that burst).
	p := producer.New(producer.Options{Scenarios: all, Speed: 0, EndWhenDone: true, PromptTimeout: time.Second})
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
	// The live run is the subscriber client aaep-listen runs, recording
	// through its tap as aaep-capture does, announced by the player's words.
	var live bytes.Buffer
	lp := newPlayer(&live, io.Discard, true, "normal", false)
	// The live client's clock is the time of the last frame the tap
	// recorded, the clock play reads back: a prompt's time left is then the
	// same live and replayed however late a busy machine handles its frame
	// (with the wall clock, live said "1 minute 59 seconds" where the
	// replay said "2 minutes").
	var clock atomic.Int64
	clock.Store(start.UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := subscriber.Dial(ctx, srv.URL, subscriber.Config{
		Identity: session.Identity{ID: "roundtrip", Name: "roundtrip"},
		Terms:    session.Terms{CanConfirm: true, CanClarify: true},
		Now:      func() time.Time { return time.Unix(0, clock.Load()) },
		// The manifest is not looked for: frames would wait for the
		// check, live, and come as one burst that the capture's receive
		// times do not show.
		Manifest: subscriber.ManifestConfig{HTTPClient: &http.Client{Transport: refuse{}}},
		Tap: func(dir subscriber.Direction, data []byte, at time.Time) {
			clock.Store(at.UnixNano())
			d := capture.In
			if dir == subscriber.Sent {
				d = capture.Out
			}
			if err := w.Write(d, data, at); err != nil {
				t.Error(err)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := lp.hear(ctx, lp.track(""), c); err != nil {
		t.Fatal(err)
	}
	lp.flush()
	f.Close()

	code, out, errOut := runReplay(t, "play", "--speed", "0", "--json", path)
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
	if code, out, _ := runReplay(t, "check", path); code != 0 {
		t.Errorf("check: exit %d\n%s", code, out)
	}
}

// The round trip with the real tools: aaep-capture records a demo session
// while aaep-listen --json announces the same session live; the capture
// checks clean, and play --json makes the same deliveries (kind and event,
// in order) as the live run.
func TestRoundTripRealTools(t *testing.T) {
	t.Parallel()
	captureBin := ttytest.Build(t, "../aaep-capture", "aaep-capture")
	listenBin := ttytest.Build(t, "../aaep-listen", "aaep-listen")
	all, err := producer.LoadScenarios(demo.Scenarios, "scenarios")
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
	if code, out, _ := runReplay(t, "check", path); code != 0 {
		t.Errorf("check of the capture: exit %d\n%s", code, out)
	}
	code, out, errOut := runReplay(t, "play", "--speed", "0", "--json", path)
	if code != 0 {
		t.Fatalf("play: exit %d: %s", code, errOut)
	}
	// aaep-capture declares it cannot answer, so the producer sends it no
	// prompts (spec §5.3.1.4): the capture holds the listener's stream but
	// for the prompts and what became of them. Sessions interleave by the
	// producer's pace, and a gap the withheld prompt leaves is waited on
	// (reordering), so each session's deliveries are compared in order.
	withheld := map[string]bool{"confirmation": true, "clarification": true, "prompt-resolved": true}
	deliveries := func(b []byte, all bool) map[string][]string {
		d := map[string][]string{}
		for _, m := range records(t, b) {
			id, _ := m["event_id"].(string)
			kind, _ := m["kind"].(string)
			if m["record"] != "announcement" || id == "" || (!all && withheld[kind]) {
				continue
			}
			sess, _ := m["session_id"].(string)
			d[sess] = append(d[sess], kind+" "+id)
		}
		return d
	}
	want, got := deliveries(live.Bytes(), false), deliveries([]byte(out), true)
	if n := len(deliveries(live.Bytes(), true)); n < 5 {
		t.Fatalf("only %d live sessions:\n%s\n%s", n, live.String(), listenErr.String())
	}
	prompts := 0
	for _, ds := range deliveries(live.Bytes(), true) {
		for _, d := range ds {
			kind, _, _ := strings.Cut(d, " ")
			if withheld[kind] {
				prompts++
			}
		}
	}
	if prompts == 0 {
		t.Error("the live listener was asked nothing: the test shows nothing of withheld prompts")
	}
	for sess, w := range want {
		if g := got[sess]; strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("session %s: replayed deliveries differ from the live ones:\nlive:\n%s\nreplay:\n%s", sess, strings.Join(w, "\n"), strings.Join(g, "\n"))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d sessions replayed, %d live", len(got), len(want))
	}
}

// refuse is an http.RoundTripper that makes no request.
type refuse struct{}

func (refuse) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("no manifest is looked for in this test")
}
