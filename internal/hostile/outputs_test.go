package hostile_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/braille"
	"github.com/aaep-term/aaep-term/internal/hostile"
	"github.com/aaep-term/aaep-term/internal/testpar"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/notify"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/speech"
)

// output is one way text reaches a person. run pushes the hostile string
// h through it and returns what the person would get.
type output struct {
	name string
	json bool // the output is JSON lines: decoded strings are checked too
	html bool // the output is HTML: line breaks do not make lines
	// hides is set where the output does not (yet) show the hostile text at
	// all, so its absence is not a failure of the test.
	hides bool
	run   func(t *testing.T, h string) string
}

// outputs is every output path. A new output is added here, or it is not
// tested for hostile text.
var outputs = []output{
	{"plain lines (stdout and stderr)", false, false, false, viaAnnouncer(plainSink)},
	{"--json", true, false, false, viaAnnouncer(jsonSink)},
	{"speech text", false, false, false, viaAnnouncer(speechSink)},
	{"braille windows", false, false, false, viaAnnouncer(brailleSink)},
	{"speech text, naming agents", false, false, false, viaAnnouncer(sayingAgents(speechSink))},
	{"braille windows, naming agents", false, false, false, viaAnnouncer(sayingAgents(brailleSink))},
	{"notification title and body", false, false, false, viaAnnouncer(notifySink)},
	{"aaep-listen stderr, refused subscription", false, false, false, refused("aaep-listen")},
	{"aaep-capture stderr, refused subscription", false, false, false, refused("aaep-capture")},
	{"aaep-listen stderr, gRPC status of a refusal", false, false, false, grpcRefused},
	{"aaep-listen stdout, refused reply", false, false, false, refusedReply},
	{"aaep-listen, two agents named alike (hostile name)", false, false, false, twoAgents},
	{"aaep-listen, answers without a number refused (prompts said again)", false, false, false, bareAnswers},
	{"aaep-listen --tui in tmux", false, false, false, tuiScreen},
	{"the second step of an accept that cannot be undone (announce.SecondStep)", false, false, false, secondStep},
	{"aaep-listen manifest", false, false, false, manifestCmd()},
	{"aaep-listen manifest --json", true, false, false, manifestCmd("--json")},
	{"aaep-capture --auto-reply stderr", false, false, false, autoReply},
	{"aaep-replay stats", false, false, false, replay("stats")},
	{"aaep-replay stats --json", true, false, false, replay("stats", "--json")},
	{"aaep-replay trace", false, false, false, replay("trace")},
	{"aaep-replay check", false, false, false, replay("check")},
	{"aaep-replay check --json", true, false, false, replay("check", "--json")},
	{"aaep-replay play", false, false, false, replay("play", "--speed", "0")},
	{"aaep-replay play --json", true, false, false, replay("play", "--speed", "0", "--json")},
	{"aaep-replay play, steered (--interactive)", false, false, false, replay("play", "--interactive", "--speed", "0")},
	{"aaep-replay play --tui in tmux", false, false, false, replayTUI},
	{"aaep-replay serve log", false, false, false, serveLog},
	{"aaep-replay serve --stdio log", false, false, false, serveStdioLog},
	{"aaep-replay play, recorded handshake answers", false, false, false, playHandshake()},
	{"aaep-replay play --json, recorded handshake answers", true, false, false, playHandshake("--json")},
	{"aaep-capture stderr, hostile handshake answers", false, false, false, captureHandshake},
	{"aaep-replay trace --html (report)", false, true, false, replayHTML},
	{"aaep-listen --local, hostile socket and agent names", false, false, false, localAgents},
	{"aaep-capture stderr, two agents (hostile answers)", false, false, false, captureAgents},
	{"aaep-replay play, several agents", false, false, false, replayAgents("play", "--speed", "0")},
	{"aaep-replay play --json, several agents", true, false, false, replayAgents("play", "--speed", "0", "--json")},
	{"aaep-replay trace, several agents", false, false, false, replayAgents("trace")},
	{"aaep-replay trace --html, several agents", false, true, false, replayAgentsHTML},
	{"aaep-replay stats, several agents", false, false, false, replayAgents("stats")},
	{"aaep-replay stats --json, several agents", true, false, false, replayAgents("stats", "--json")},
	{"aaep-replay check, several agents", false, false, false, replayAgents("check")},
	{"aaep-replay check --json, several agents", true, false, false, replayAgents("check", "--json")},
	{"aaep-conform producer lines", false, false, false, conformLines},
	{"aaep-conform producer --json report (the file)", false, false, false, conformJSON},
	{"aaep-conform producer --json report, its own strings decoded", true, false, false, conformJSONWords},
	{"aaep-conform producer --html report", false, true, false, conformHTML},
	{"aaep-conform verify, hostile receipt", false, false, false, conformVerifyForged()},
	{"aaep-conform verify --json, hostile receipt", true, false, false, conformVerifyForged("--json")},
	{"aaep-conform subscriber --show-output, hostile subscriber", false, false, false, conformSubscriber},
	{"aaep-listen, an ACP agent (permission, form, address, stderr, details, agents, terms, help)", false, false, false, acpAgent()},
	{"aaep-listen --verbosity detailed, an ACP agent (quiet statuses, the producer's log)", false, false, false, acpAgent("--verbosity", "detailed")},
	{"aaep-listen, two agents sharing a plain name (Group.DisplayNote)", false, false, false, sharedPlainName},
	{"aaep-listen --tui task input (Task for AGENT:), hostile agent name (tui.Model in this process)", false, false, false, tuiTaskInput},
	{"aaep-bridge, its endpoint lines and its log lines naming the agent (--name and the agent hostile)", false, false, false, bridgeLines},
	{"aaep-listen, a task refused (agtask:refused over the Unix socket, 409 over HTTP), hostile reason", false, false, false, refusedTask},
}

// together are the outputs whose runs mostly wait (on a peer's patience,
// not on the processor): so many of their cases run at once.
var together = map[string]int{
	"aaep-conform subscriber --show-output, hostile subscriber": 4,
}

// runTogether runs o for every case, together[o.name] at a time, and
// returns the outputs in the cases' order; nil when o runs one by one.
func runTogether(t *testing.T, o output, cases []hostile.Case) []string {
	n := together[o.name]
	if n == 0 {
		return nil
	}
	outs := make([]string, len(cases))
	turns := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Go(func() {
			turns <- struct{}{}
			defer func() { <-turns }()
			outs[i] = o.run(t, c.S)
		})
	}
	wg.Wait()
	return outs
}

// paddingGaps are the outputs still open to padding (issue 23 item 9) for
// a reason outside the sanitizer, which folds blanks for every single-line
// place: their padding problems are logged, not failed. Remove an entry
// once its output passes.
var paddingGaps = map[string]string{}

func TestHostileOutput(t *testing.T) {
	cases := append([]hostile.Case{}, hostile.Cases...)
	// A 24 KB cluster (the sanitizer's own test takes 1 MB): as much as two
	// fields of one message may carry within the listener's 64 KB limit.
	cases = append(cases, hostile.Case{Name: "24 KB grapheme run", S: hostile.GraphemeRun(24 << 10)})
	for _, o := range outputs {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel() // each output runs its own commands and servers
			outs := runTogether(t, o, cases)
			for i, c := range cases {
				var out string
				if outs != nil {
					out = outs[i]
				} else {
					out = o.run(t, c.S)
				}
				if !o.hides && !strings.Contains(out, hostile.Anchor) {
					t.Errorf("%s: the hostile text did not reach the output at all; the test proves nothing:\n%s", c.Name, clip(out))
				}
				p := hostile.Problems(out)
				if o.json {
					p = hostile.ProblemsJSON(out)
				}
				if o.html {
					p = slices.DeleteFunc(p, func(s string) bool { return strings.HasPrefix(s, "forged line") })
				}
				if o.json || o.html {
					// Padding only forges a row where a terminal wraps text:
					// JSON strings are data for programs, and HTML folds
					// blanks itself. The TUI cuts its rows to the screen's
					// width, but the lines it prints above them wrap.
					p = slices.DeleteFunc(p, func(s string) bool { return strings.Contains(s, "padded line") })
				}
				if why := paddingGaps[o.name]; why != "" && strings.HasSuffix(c.Name, "padding") && len(p) > 0 {
					t.Logf("known gap, %s: %s: %v", why, c.Name, p)
					continue
				}
				if len(p) > 0 {
					t.Errorf("%s: %v\n%s", c.Name, p, clip(out))
				}
			}
		})
	}
}

func clip(s string) string {
	if len(s) > 2000 {
		return fmt.Sprintf("%q…", s[:2000])
	}
	return fmt.Sprintf("%q", s)
}

// events are a hostile producer's: h in every field a person hears.
func events(h string) []session.Delivery {
	at := time.Date(2026, 6, 30, 14, 22, 11, 0, time.UTC)
	prod := protocol.Producer{AgentID: "bank", AgentName: protocol.Text(h)}
	yes := true
	evs := []*protocol.Event{
		{Type: protocol.TypeSessionStarted, SummaryNormal: protocol.Text(h)},
		{Type: protocol.TypeToolInvoked, Tool: h, SummaryNormal: protocol.Text(h), RiskLevel: "high", Irreversible: &yes},
		{Type: protocol.TypeAwaitingConfirmation, Urgency: "critical", Action: protocol.Text(h), Consequence: protocol.Text(h), DefaultDecision: "reject"},
		{Type: h, SummaryNormal: protocol.Text(h)},
	}
	var ds []session.Delivery
	for i, ev := range evs {
		ev.Producer, ev.SessionID, ev.EventID = prod, h, h
		ev.Raw, _ = json.Marshal(map[string]any{"type": ev.Type, "session_id": h, "summary_normal": h})
		d := session.Delivery{At: at.Add(time.Duration(i) * time.Second), Event: ev}
		if ev.Type == protocol.TypeAwaitingConfirmation {
			d.Prompt = &session.Prompt{Number: 1, Deadline: at.Add(time.Minute), State: session.PromptPending}
		}
		ds = append(ds, d)
	}
	return ds
}

// viaAnnouncer announces a hostile producer's events and a diagnostic
// carrying h to the sink mk makes; mk's result reports what was written.
func viaAnnouncer(mk func() (announce.Sink, func() string)) func(*testing.T, string) string {
	return func(t *testing.T, h string) string {
		sink, result := mk()
		a := announce.New(announce.Config{}, sink)
		for _, d := range events(h) {
			a.Deliver(d)
		}
		a.Diagnose(session.Diagnostic{Code: h, SessionID: h, EventID: h, Message: "Event of session " + h + " never arrived."})
		a.Flush(time.Date(2026, 6, 30, 15, 0, 0, 0, time.UTC))
		return result()
	}
}

// secondStep is the question asked before an accept that cannot be
// undone is sent, written as aaep-listen writes it: one plain line.
func secondStep(t *testing.T, h string) string {
	sink, result := plainSink()
	for _, d := range events(h) {
		if d.Prompt == nil {
			continue
		}
		p := *d.Prompt
		p.Event = d.Event
		if err := sink.Announce(announce.Announcement{Priority: announce.Normal, Kind: "status", Text: announce.SecondStep(&p, "Type yes to send")}); err != nil {
			t.Fatal(err)
		}
	}
	return result()
}

func plainSink() (announce.Sink, func() string) {
	var out, diag strings.Builder
	w := line.NewWriter(&out, &diag, line.WriterOptions{Location: time.UTC})
	return w, func() string { w.Flush(); return out.String() + diag.String() }
}

func jsonSink() (announce.Sink, func() string) {
	var out strings.Builder
	j := line.NewJSON(&out)
	return j, func() string { j.Flush(); return out.String() }
}

type spoken struct{ texts []string }

func (s *spoken) Speak(_ context.Context, u speech.Utterance) error {
	s.texts = append(s.texts, u.Text)
	return nil
}
func (s *spoken) Cancel(context.Context) error { return nil }
func (s *spoken) Close() error                 { return nil }
func (s *spoken) Name() string                 { return "recorder" }

func speechSink() (announce.Sink, func() string) {
	rec := &spoken{}
	return &speech.Sink{Backend: rec}, func() string { return strings.Join(rec.texts, "\n") + "\n" }
}

// sayingAgents puts the sink mk makes behind a Pacer that says who speaks,
// as speech and braille are when several agents are watched: the agent's
// name (here the hostile text) comes before the announcements.
func sayingAgents(mk func() (announce.Sink, func() string)) func() (announce.Sink, func() string) {
	return func() (announce.Sink, func() string) {
		sink, result := mk()
		p := announce.NewPacer(announce.PaceConfig{SayAgents: true}, sink)
		return p, func() string { p.Close(); return result() } // Close passes on everything queued
	}
}

type shown struct {
	mu    sync.Mutex
	lines []string
}

func (s *shown) Notify(title, body string) error { return s.Alert(title, body) }
func (s *shown) Alert(title, body string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, title, body)
	return nil
}

func notifySink() (announce.Sink, func() string) {
	rec := &shown{}
	s := notify.NewSink(rec, notify.Config{Level: notify.On, Window: time.Hour})
	return s, func() string {
		s.Close()
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return strings.Join(rec.lines, "\n") + "\n"
	}
}

var bin string // directory of the built commands

func TestMain(m *testing.M) {
	if hostileTestMain() {
		return
	}
	dir, err := os.MkdirTemp("", "hostile")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	cmd := exec.Command("go", "build", "-o", dir, "github.com/aaep-term/aaep-term/cmd/aaep-listen",
		"github.com/aaep-term/aaep-term/cmd/aaep-capture", "github.com/aaep-term/aaep-term/cmd/aaep-replay",
		"github.com/aaep-term/aaep-term/cmd/aaep-conform", "github.com/aaep-term/aaep-term/cmd/aaep-bridge")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	testpar.Widen(4) // its tests mostly wait on peers and processes
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs a built command and returns its stdout and stderr.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	return runEnv(t, nil, name, args...)
}

// runEnv is run with env added to the command's environment.
func runEnv(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Env = append(append(os.Environ(), "TERM=xterm-256color"), env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Errorf("%s %v did not end", name, args)
	}
	return out.String() + errOut.String()
}

// refused runs the command against a loopback producer that refuses every
// request with h in its reason phrase and in its JSON error body.
func refused(name string) func(*testing.T, string) string {
	return func(t *testing.T, h string) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func(c net.Conn) {
					defer c.Close()
					r := bufio.NewReader(c)
					req, err := http.ReadRequest(r)
					if err != nil {
						return
					}
					if req.ContentLength > 0 {
						req.Body.Read(make([]byte, req.ContentLength))
					}
					// No subscriptions endpoint (404), then a refused event
					// stream (403), both with h in the reason phrase, the
					// second with h in its JSON error body too.
					reason := strings.NewReplacer("\r", "", "\n", "").Replace(h)
					code := 403
					if req.Method == http.MethodPost {
						code = 404
					}
					body, _ := json.Marshal(map[string]string{"error": h, "message": h})
					fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
						code, reason, len(body), body)
				}(c)
			}
		}()
		url := "http://" + ln.Addr().String() + "/"
		if name == "aaep-capture" {
			return run(t, name, "--endpoint", url, "--output", filepath.Join(t.TempDir(), "c.aaep"))
		}
		return run(t, name, "--plain", url)
	}
}

// captureFile writes a capture whose events carry h in every string a
// person may be shown.
func captureFile(t *testing.T, h string) string {
	t.Helper()
	return writeCapture(t, h, `{"aaep_capture": 1, "started_at": "2026-06-30T14:22:10.000Z", "endpoint": "http://127.0.0.1:8080", "transport": "sse"}`, nil)
}

// captureFileAgents writes a capture of several agents (format 2) whose
// header names them with h (a label, endpoints, transports, a connection
// ID that is not valid), and whose events, as captureFile's, carry h,
// taken in turn from each connection and from one the header does not name.
func captureFileAgents(t *testing.T, h string) string {
	t.Helper()
	conns := []map[string]any{
		{"id": "c1", "label": h, "endpoint": h, "transport": h, "subscriber": h},
		{"id": "c2", "label": "mail", "endpoint": h, "transport": "sse"},
		{"id": h, "label": h, "endpoint": h},
	}
	header, _ := json.Marshal(map[string]any{"aaep_capture": 2, "started_at": "2026-06-30T14:22:10.000Z", "subscriber": h, "tool": h, "connections": conns})
	return writeCapture(t, h, string(header), []string{"c1", "c2", h})
}

// writeCapture writes a capture of header and records carrying h; with
// conns, each record names the next of them in turn.
func writeCapture(t *testing.T, h, header string, conns []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hostile.aaep")
	var b strings.Builder
	b.WriteString(header + "\n")
	n := 0
	record := func(at float64, m map[string]any) {
		r := []any{at, "i", m}
		if len(conns) > 0 {
			r = append(r, conns[n%len(conns)])
			n++
		}
		rec, _ := json.Marshal(r)
		b.Write(rec)
		b.WriteByte('\n')
	}
	ev := func(at float64, m map[string]any) {
		m["@context"] = "https://aaep-protocol.org/context/v1"
		m["timestamp"] = "2026-06-30T14:22:10.100Z"
		m["producer"] = map[string]any{"agent_id": "bank", "agent_name": h}
		record(at, m)
	}
	ev(0.1, map[string]any{"type": "aaep:agent.session.started", "event_id": "evt_1", "session_id": "sess_1", "sequence_number": 0, "summary_normal": h})
	ev(0.2, map[string]any{"type": "aaep:agent.tool.invoked", "event_id": "evt_2", "session_id": "sess_1", "sequence_number": 1,
		"summary_normal": h, "tool": h, "tool_call_id": "call_1"})
	ev(0.3, map[string]any{"type": h, "event_id": "evt_3", "session_id": "sess_1", "sequence_number": 2, "summary_normal": h})
	ev(0.4, map[string]any{"type": "aaep:agent.session.started", "event_id": h, "session_id": h, "sequence_number": 0, "summary_normal": h})
	// Every other string a check, trace or stats line may name: another
	// agent whose agent_id is h, error and reason codes, states, output
	// ids, language tags, extension names, tool results.
	other := func(at float64, m map[string]any) {
		m["@context"] = "https://aaep-protocol.org/context/v1"
		m["timestamp"] = "2026-06-30T14:22:10.600Z"
		m["producer"] = map[string]any{"agent_id": h, "agent_name": h, "agent_version": h, "model": h}
		m["extensions"] = map[string]any{h: h}
		m["localization_hints"] = map[string]any{"primary_language": h, "fallback_chain": []string{h}}
		record(at, m)
	}
	other(0.5, map[string]any{"type": "aaep:agent.session.started", "event_id": "evt_5", "session_id": "sess_1", "sequence_number": 0, "summary_normal": h, "language": h})
	other(0.6, map[string]any{"type": "aaep:agent.state.changed", "event_id": "evt_6", "session_id": "sess_1", "sequence_number": 1, "from_state": h, "to_state": h})
	other(0.7, map[string]any{"type": "aaep:agent.tool.completed", "event_id": "evt_7", "session_id": "sess_1", "sequence_number": 2,
		"tool": h, "tool_call_id": h, "status": h, "error_message": h})
	other(0.8, map[string]any{"type": "aaep:agent.output.streaming", "event_id": "evt_8", "session_id": "sess_1", "sequence_number": 3,
		"output_id": h, "chunk": h, "position": 0, "complete": true, "content_type": h, "language": h})
	other(0.9, map[string]any{"type": "aaep:agent.session.errored", "event_id": "evt_9", "session_id": "sess_1", "sequence_number": 4,
		"error_code": h, "error_category": h, "error_uri": h, "remediation_hint": h, "urgency": "critical"})
	other(1.0, map[string]any{"type": "aaep:agent.session.cancelled", "event_id": "evt_10", "session_id": h, "sequence_number": 0,
		"cancelled_by": h, "cancellation_reason": h, "urgency": "critical"})
	b.WriteString(h + "\n") // a line that is not a record at all
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func replay(sub string, flags ...string) func(*testing.T, string) string {
	return replayOf(captureFile, sub, flags...)
}

// replayAgents runs aaep-replay on a capture of several agents.
func replayAgents(sub string, flags ...string) func(*testing.T, string) string {
	return replayOf(captureFileAgents, sub, flags...)
}

func replayOf(capture func(*testing.T, string) string, sub string, flags ...string) func(*testing.T, string) string {
	return func(t *testing.T, h string) string {
		return run(t, "aaep-replay", append(append([]string{sub}, flags...), capture(t, h))...)
	}
}

func replayHTML(t *testing.T, h string) string {
	return replayHTMLOf(t, captureFile(t, h))
}

func replayAgentsHTML(t *testing.T, h string) string {
	return replayHTMLOf(t, captureFileAgents(t, h))
}

func replayHTMLOf(t *testing.T, capture string) string {
	out := filepath.Join(t.TempDir(), "r.html")
	run(t, "aaep-replay", "trace", "--html", out, capture)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// producer is a hostile loopback producer in the deployed layout: no
// subscriptions endpoint, an SSE stream whose events carry h in every
// field a person hears, a manifest made of h, and every reply refused with
// h in the reason phrase and in the JSON error body. The stream stays open
// until the client leaves, or ends after the events when end is set.
func producer(t *testing.T, h string, end bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	reason := strings.NewReplacer("\r", "", "\n", "").Replace(h)
	errBody, _ := json.Marshal(map[string]string{"error": h, "message": h})
	m := map[string]any{"agent_id": "bank", "agent_name": h, "agent_version": h,
		"event_types_emitted": []string{h}, "transports_supported": []string{h}, "contact": h,
		"aaep_versions_supported": []string{"1.0.0", h}, "languages_supported": []string{h}, "extensions_supported": []string{h},
		"default_verbosity": h, "capabilities": map[string]any{h: h}}
	if len(h) > 8<<10 { // within the 256 KB a manifest may have
		m = map[string]any{"agent_id": "bank", "agent_name": h}
	}
	manifest, _ := json.Marshal(m)
	no := false
	// A long h goes in two fields of an event at most, to stay within the
	// 64 KB a listener takes in one message.
	more := h
	if len(h) > 8<<10 {
		more = "x"
	}
	evs := []map[string]any{
		{"type": "aaep:agent.session.started", "summary_normal": h},
		{"type": "aaep:agent.tool.invoked", "tool": more, "tool_call_id": "call_1", "summary_normal": h, "risk_level": "low", "irreversible": no},
		{"type": more, "summary_normal": h},
		{"type": "aaep:agent.awaiting.confirmation", "action": h, "consequence": more, "summary_normal": more, "reply_token": "rpl_1",
			"timeout_seconds": 120, "default_decision": "reject", "risk_level": "low", "irreversible": no, "allowed_replies": []string{"accept", "reject"}},
	}
	var stream strings.Builder
	for i, ev := range evs {
		ev["@context"] = "https://aaep-protocol.org/context/v1"
		ev["event_id"] = fmt.Sprintf("evt_%d", i+1)
		ev["session_id"] = "sess_1"
		ev["sequence_number"] = i
		ev["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
		ev["producer"] = map[string]any{"agent_id": "bank", "agent_name": h}
		b, _ := json.Marshal(ev)
		fmt.Fprintf(&stream, "data: %s\n\n", b)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse := func(code int, body []byte) {
			// A raw answer: net/http would not send our reason phrase.
			conn, buf, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
				code, reason, len(body), body)
			buf.Flush()
		}
		switch {
		case r.URL.Path == "/.well-known/aaep-manifest.json":
			w.Header().Set("Content-Type", "application/json")
			w.Write(manifest)
		case r.Method == http.MethodPost && strings.Contains(r.URL.Path, "subscriptions"):
			refuse(http.StatusNotFound, errBody)
		case r.Method == http.MethodPost:
			refuse(http.StatusBadRequest, errBody)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte(stream.String()))
			w.(http.Flusher).Flush()
			if !end {
				<-r.Context().Done()
			}
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// refusedReply answers the hostile producer's prompt and returns all the
// listener printed once it said the answer could not be sent.
func refusedReply(t *testing.T, h string) string {
	url := producer(t, h, false)
	cmd := exec.Command(filepath.Join(bin, "aaep-listen"), "--plain", url)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	out := newPrinted()
	cmd.Stdout, cmd.Stderr = out, out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	waitFor := func(want string) bool {
		if out.waitFor(want) {
			return true
		}
		t.Errorf("the listener never said %q:\n%s", want, clip(out.String()))
		return false
	}
	if waitFor("reject 1") {
		stdin.Write([]byte("reject 1\n"))
		waitFor("Could not send your answer")
	}
	return out.String()
}

// twoAgents runs aaep-listen on two producers that give the same hostile
// agent name: every line names its agent, told apart by endpoint, and the
// pending and agents lists name them too.
func twoAgents(t *testing.T, h string) string {
	return listenTwoPrompts(t, nil, producer(t, h, false), producer(t, h, false))
}

// bareAnswers runs aaep-listen on two producers giving the hostile name
// and action, and answers without a number: nothing is sent, and the
// prompts waiting are said again, each with its agent and what it asks.
func bareAnswers(t *testing.T, h string) string {
	return listenTwoPromptsTyping(t, "accept\nyes\na\nanswer\n", nil, producer(t, h, false), producer(t, h, false))
}

// listenTwoPrompts runs aaep-listen --plain --no-sign with args and env
// added, until it offers a second prompt; then asks for the pending and
// agents lists, quits, and returns all it printed.
func listenTwoPrompts(t *testing.T, env []string, args ...string) string {
	return listenTwoPromptsTyping(t, "", env, args...)
}

// listenTwoPromptsTyping is listenTwoPrompts typing typed first.
func listenTwoPromptsTyping(t *testing.T, typed string, env []string, args ...string) string {
	cmd := exec.Command(filepath.Join(bin, "aaep-listen"), append([]string{"--plain", "--no-sign"}, args...)...)
	cmd.Env = append(append(os.Environ(), "TERM=xterm-256color"), env...)
	out := newPrinted()
	cmd.Stdout, cmd.Stderr = out, out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if !out.waitFor("reject 2") {
		t.Errorf("the listener never offered a second prompt:\n%s", clip(out.String()))
		return out.String()
	}
	stdin.Write([]byte(typed + "pending\nagents\nquit\n"))
	cmd.Wait()
	return out.String()
}

// printed is what a command has written so far, from any of its
// goroutines; a test waits on its writes, never for a while.
type printed struct {
	mu    sync.Mutex
	out   strings.Builder
	wrote chan struct{} // closed, and replaced, at every write
}

func newPrinted() *printed { return &printed{wrote: make(chan struct{})} }

func (p *printed) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.Write(b)
	close(p.wrote)
	p.wrote = make(chan struct{})
	return len(b), nil
}

func (p *printed) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitFor waits until what was written holds want, matches it when it is
// a *regexp.Regexp, or makes it true when it is a func(string) bool, and
// reports whether it did. It looks at each write; after 20 seconds it
// gives up.
func (p *printed) waitFor(want any) bool {
	give := time.NewTimer(20 * time.Second)
	defer give.Stop()
	for {
		p.mu.Lock()
		s, wrote := p.out.String(), p.wrote
		p.mu.Unlock()
		switch w := want.(type) {
		case string:
			if strings.Contains(s, w) {
				return true
			}
		case *regexp.Regexp:
			if w.MatchString(s) {
				return true
			}
		case func(string) bool:
			if w(s) {
				return true
			}
		}
		select {
		case <-wrote:
		case <-give.C:
			return false
		}
	}
}

func manifestCmd(flags ...string) func(*testing.T, string) string {
	return func(t *testing.T, h string) string {
		return run(t, "aaep-listen", append(append([]string{"manifest"}, flags...), producer(t, h, false))...)
	}
}

func autoReply(t *testing.T, h string) string {
	return run(t, "aaep-capture", "--endpoint", producer(t, h, true), "--output", filepath.Join(t.TempDir(), "c.aaep"),
		"--auto-reply", "reject", "--no-progress", "--max-events", "4")
}

// sgr matches the colour and attribute sequences the TUI writes itself.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// tuiScreen runs aaep-listen --tui against the hostile producer in a real
// terminal (tmux, 250 columns so no short row wraps) and returns the
// screen once the prompt is shown: as text, then, with its own colour
// sequences removed, as captured with attributes. The pane title must not
// have changed.
func tuiScreen(t *testing.T, h string) string {
	return inTerminal(t, filepath.Join(bin, "aaep-listen")+" --tui "+producer(t, h, false), "prompt(s) waiting")
}

// replayTUI plays a hostile capture in aaep-replay's debug view, in a real
// terminal, to its end.
func replayTUI(t *testing.T, h string) string {
	return inTerminal(t, filepath.Join(bin, "aaep-replay")+" play --tui --speed 0 "+captureFile(t, h), "End of the capture")
}

// inTerminal runs command in tmux until the screen shows until, and
// returns the screen as text and, without the colour sequences the TUI
// writes itself, with its attributes. The pane title must not change.
func inTerminal(t *testing.T, command, until string) string {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is needed for the real-terminal tests")
		}
		t.Skip("tmux not installed")
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tmux := func(args ...string) string {
		out, _ := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		return string(out)
	}
	tmux("new-session", "-d", "-s", "t", "-x", "250", "-y", "40",
		"TERM=xterm-256color "+command+"; sleep 60")
	defer tmux("kill-server")
	// What the command writes to the terminal is copied to wrote through a
	// FIFO: the screen is looked at again each time it wrote. (What it
	// wrote before the copying began is on the screen the first look sees.)
	fifo := filepath.Join(filepath.Dir(sock), "pane.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(fifo, os.O_RDWR, 0) // RDWR: opening does not wait for tmux
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wrote := newPrinted()
	go io.Copy(wrote, f) //nolint:errcheck // ends when f is closed
	tmux("pipe-pane", "-O", "-t", "t", "cat > "+fifo)
	if !wrote.waitFor(func(string) bool { return strings.Contains(tmux("capture-pane", "-p", "-t", "t"), until) }) {
		t.Errorf("the screen never showed %q:\n%s", until, tmux("capture-pane", "-p", "-t", "t"))
	}
	// The screen is read with what scrolled off its top (-S -), so a line
	// printed above the view is read whole, and -J makes a line longer than
	// the screen one line, as the terminal knows it: a soft wrap is the
	// terminal's, not a line forged. It is read again until two reads
	// agree, so a frame the terminal has taken in only part of is not
	// judged (a screen read halfway through a redraw once showed the tail
	// of a printed line on its top row, its start scrolled off).
	var text, attrs string
	for range 100 {
		text = tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t")
		attrs = sgr.ReplaceAllString(tmux("capture-pane", "-p", "-J", "-S", "-", "-e", "-t", "t"), "")
		if text == tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t") {
			break
		}
	}
	if title := tmux("display", "-p", "-t", "t", "#{pane_title}"); strings.Contains(title, "pwned") {
		t.Errorf("the producer set the terminal title: %q", title)
	}
	return text + attrs
}

// serveLog runs aaep-replay serve on a hostile capture, posts h as a
// subscriber's reply and returns what serve printed once it logged it.
func serveLog(t *testing.T, h string) string {
	return serveLogOf(t, h, "serve", "--addr", "127.0.0.1:0", captureFile(t, h))
}

// serveLogOf runs aaep-replay with args, a producer on loopback, posts h as
// a subscriber's reply and returns what it printed once it logged it.
func serveLogOf(t *testing.T, h string, args ...string) string {
	cmd := exec.Command(filepath.Join(bin, "aaep-replay"), args...)
	out := newPrinted()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	addr := regexp.MustCompile(`http://(127\.0\.0\.1:[0-9]+)`)
	if !out.waitFor(addr) {
		t.Fatalf("serve never said where it listens:\n%s", clip(out.String()))
	}
	m := addr.FindStringSubmatch(out.String())
	resp, err := http.Post("http://"+m[1]+"/messages", "application/json", strings.NewReader(h))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !out.waitFor("Received on") {
		t.Errorf("serve never logged the reply:\n%s", clip(out.String()))
	}
	return out.String()
}

// shownBraille keeps the display windows braille.Sink would show.
type shownBraille struct{ windows []string }

func (s *shownBraille) Announce(an announce.Announcement) error {
	// Wide enough that no short case is split across two windows.
	s.windows = append(s.windows, braille.Windows(an, 400)...)
	return nil
}

func brailleSink() (announce.Sink, func() string) {
	rec := &shownBraille{}
	return rec, func() string { return strings.Join(rec.windows, "\n") + "\n" }
}

// rawJSONString is h as a JSON string that escapes only what JSON must
// (quote, backslash, C0): C1, bidi controls and Unicode line separators
// stay raw, as a hostile subscriber may send them.
func rawJSONString(h string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range h {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// serveStdioLog runs aaep-replay serve --stdio on a hostile capture,
// subscribes on its standard input, sends a reply carrying h and returns
// what serve said once it logged the reply.
func serveStdioLog(t *testing.T, h string) string {
	cmd := exec.Command(filepath.Join(bin, "aaep-replay"), "serve", "--stdio", "--speed", "0", captureFile(t, h))
	out := newPrinted()
	cmd.Stderr, cmd.Stdout = out, io.Discard // stdout is the JSON-RPC stream, for the subscriber
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":1,"method":"aaep.subscribe","params":{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"sub","capabilities":{"supports_confirmation_reply":true}}}`+"\n")
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","method":"aaep.reply","params":{"type":"confirmation.reply","reply_token":%s,"decision":%s}}`+"\n",
		rawJSONString(h), rawJSONString(h))
	if !out.waitFor("Received on") {
		t.Errorf("serve never logged the reply:\n%s", clip(out.String()))
	}
	return out.String()
}

// handshakeCapture is a capture whose recorded handshake answers carry h
// in every string: the acceptance (ids, version, agent names, notes, the
// manifest's address), a renegotiation's answer, a producer's close and a
// refusal, with a prompt between them.
func handshakeCapture(t *testing.T, h string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "handshake.aaep")
	var b strings.Builder
	b.WriteString(`{"aaep_capture": 1, "started_at": "2026-06-30T14:22:10.000Z", "endpoint": "ws://127.0.0.1:8080/aaep/v1/ws", "transport": "websocket"}` + "\n")
	rec := func(at float64, dir string, m map[string]any) {
		j, _ := json.Marshal([]any{at, dir, m})
		b.Write(j)
		b.WriteByte('\n')
	}
	prod := map[string]any{"agent_id": h, "agent_name": h, "agent_version": h, "model": h}
	rec(0.05, "o", map[string]any{"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "sub", "capabilities": map[string]any{}})
	rec(0.1, "i", map[string]any{"type": "subscription.accepted", "subscription_id": "sub_1", "aaep_version": "1.0.0", "producer": prod,
		"manifest_uri": h, "negotiation_notes": h, "extensions": map[string]any{h: h},
		"honored_capabilities": map[string]any{"languages": []string{h}, "preferred_verbosity": h, "supports_confirmation_reply": true,
			"supported_extensions": []string{h}, "event_filters": map[string]any{"include": []string{h}}}})
	ev := func(at float64, m map[string]any) {
		m["@context"] = "https://aaep-protocol.org/context/v1"
		m["timestamp"] = "2026-06-30T14:22:10.100Z"
		m["producer"] = map[string]any{"agent_id": "bank", "agent_name": h}
		m["session_id"] = "sess_1"
		rec(at, "i", m)
	}
	ev(0.2, map[string]any{"type": "aaep:agent.session.started", "event_id": "evt_1", "sequence_number": 0, "summary_normal": h})
	ev(0.3, map[string]any{"type": "aaep:agent.awaiting.confirmation", "event_id": "evt_2", "sequence_number": 1,
		"action": h, "consequence": h, "reply_token": "rpl_1", "timeout_seconds": 120, "default_decision": "reject",
		"risk_level": "low", "irreversible": false, "allowed_replies": []string{"accept", "reject"}})
	rec(0.4, "i", map[string]any{"type": "subscription.accepted", "subscription_id": h, "aaep_version": h, "producer": prod,
		"negotiation_notes": h + " again", "honored_capabilities": map[string]any{"languages": []string{h}}})
	rec(0.5, "i", map[string]any{"type": h, "reason_code": h, "message": h})
	rec(0.6, "i", map[string]any{"type": "subscription.rejected", "reason_code": h, "reason_message": h, "alternative_manifest_uri": h})
	rec(0.7, "i", map[string]any{"type": "subscription.close", "reason_code": h, "reason_message": h})
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func playHandshake(flags ...string) func(*testing.T, string) string {
	return func(t *testing.T, h string) string {
		return run(t, "aaep-replay", append(append([]string{"play", "--speed", "0"}, flags...), handshakeCapture(t, h))...)
	}
}

// captureHandshake records from a hostile producer in the spec's HTTP
// layout whose answers to the subscription carry h (notes, agent names,
// ids), and whose stream ends with a refusal and a close carrying h.
func captureHandshake(t *testing.T, h string) string {
	return run(t, "aaep-capture", "--endpoint", handshakeProducer(t, h), "--output", filepath.Join(t.TempDir(), "c.aaep"),
		"--no-progress", "--max-events", "1")
}

// handshakeProducer serves such a producer on loopback and returns its
// endpoint.
func handshakeProducer(t *testing.T, h string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	prod := map[string]any{"agent_id": h, "agent_name": h, "agent_version": h, "model": h}
	accepted, _ := json.Marshal(map[string]any{"type": "subscription.accepted", "subscription_id": "sub_1", "aaep_version": "1.0.0",
		"producer": prod, "negotiation_notes": h, "honored_capabilities": map[string]any{"languages": []string{h}}})
	var stream strings.Builder
	for _, m := range []map[string]any{
		{"type": "subscription.accepted", "subscription_id": "sub_1", "aaep_version": h, "producer": prod,
			"negotiation_notes": h + " again", "honored_capabilities": map[string]any{}},
		{"type": h, "reason_code": h, "message": h},
		{"type": "subscription.rejected", "reason_code": h, "reason_message": h},
		{"type": "subscription.close", "reason_code": h, "reason_message": h},
	} {
		j, _ := json.Marshal(m)
		fmt.Fprintf(&stream, "data: %s\n\n", j)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/subscriptions"):
			w.Header().Set("Content-Type", "application/json")
			w.Write(accepted)
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusNoContent)
		case strings.Contains(r.URL.Path, "events"):
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte(stream.String()))
		default:
			http.NotFound(w, r)
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}
