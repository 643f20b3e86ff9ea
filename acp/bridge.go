package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/internal/wire"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// DefaultMode is the mode chosen when the agent offers it and Options.Mode
// names none: the one in which agents ask before acting.
const DefaultMode = "default"

// Limits of one bridge.
const (
	maxLine    = 16 << 20 // bytes of one line from the agent; longer ones are skipped
	queueLen   = 256      // AAEP messages waiting for the subscriber
	maxPending = 64       // permission requests waiting for an answer
	maxTools   = 4096     // tool calls remembered
	maxReports = 32       // reports of one kind of oddity from the agent
	maxEarly   = 256      // updates kept that come before the session is open
)

// Options configure a Bridge. The zero value is usable.
type Options struct {
	// Name is the agent's id in events (producer.agent_id) and in lines;
	// empty means the command's base name.
	Name string
	// Dir is the agent's working directory and the session's cwd; empty
	// means this process's.
	Dir string
	// Env is the agent's whole environment; nil means this process's.
	Env []string
	// Mode is the session mode to select at the start; empty means
	// DefaultMode when the agent offers it.
	Mode string
	// Task, when not empty, is given to the agent as soon as its session
	// is open; a served agent's (Serve), once its first subscriber
	// listens.
	Task string
	// KillWait is how long Close lets the agent exit by itself once its
	// input is closed, before killing its process group. Zero: one second.
	KillWait time.Duration
	// Version is the client version told to the agent in initialize.
	Version string
	// RawFile, when not empty, is a file every raw ACP line to and from
	// the agent is appended to, one JSON object a line (raw.go).
	RawFile string
	// PromptWindow is how long a permission request waits for the user
	// before the bridge rejects it (never accepts), as the confirmation's
	// timeout_seconds says. Zero means a day, the longest AAEP allows; it
	// is rounded up to whole seconds.
	PromptWindow time.Duration
}

// Bridge is one ACP agent as an AAEP producer. Dial starts it; the
// Conn it returns carries the agent's events and takes replies back.
type Bridge struct {
	opts Options
	q    *queue
	ctx  context.Context // ends when the bridge closes
	stop context.CancelFunc

	emitMu sync.Mutex // one event built and queued at a time, in order

	repMu   sync.Mutex     // guards reports
	reports map[string]int // oddities reported, by kind; bounded

	mu        sync.Mutex // guards the fields below
	ag        *agent
	diag      func(string) // set before the agent starts, then never
	name      string       // agent_id
	title     string       // agent_name, from the agent
	version   string
	session   string          // the ACP session
	early     []sessionUpdate // updates that came before the session was open
	opened    bool            // the session is open: updates are mapped as they come
	modes     []mode
	mode      string
	commands  []string
	usage     string
	aaep      aaepSession
	turn      *turn
	perms     map[string]*permission  // by reply_token
	elicits   map[string]*elicitation // forms being filled in, by the reply_token of the field asked
	noClarify bool                    // the subscriber said it takes no clarifications
	tools     map[string]*tool        // by ACP toolCallId
	toolSeq   int
	closed    bool
	dead      bool // the agent's output has ended
	turns     sync.WaitGroup

	// served: subscribers come and go (Serve), so the AAEP session opens
	// at the first task, when someone is there to hear it. Set before the
	// agent starts, then never.
	served bool
}

// New returns a bridge that Dial starts.
func New(opts Options) *Bridge {
	ctx, stop := context.WithCancel(context.Background())
	return &Bridge{
		opts: opts, q: newQueue(queueLen), ctx: ctx, stop: stop, diag: func(string) {},
		perms: map[string]*permission{}, elicits: map[string]*elicitation{}, tools: map[string]*tool{}, reports: map[string]int{},
	}
}

// Dial starts the agent argv and returns a Conn that speaks AAEP for it:
// it is the transport.Options ACP hook. ctx bounds the start (initialize,
// session/new, the mode). A bridge is dialled once.
func (b *Bridge) Dial(ctx context.Context, argv []string, opts transport.LinkOptions) (transport.Conn, error) {
	return transport.DialLink(ctx, "ACP", func(ctx context.Context, diag func(string)) (transport.Link, error) {
		if err := b.start(ctx, argv, diag); err != nil {
			b.Close()
			return nil, err
		}
		return link{b}, nil
	}, opts)
}

// start runs the agent and opens its session.
func (b *Bridge) start(ctx context.Context, argv []string, diag func(string)) error {
	if len(argv) == 0 {
		return errors.New("acp: no agent command to run")
	}
	b.mu.Lock()
	if b.ag != nil || b.closed {
		b.mu.Unlock()
		return errors.New("acp: the bridge was started already")
	}
	if diag != nil {
		b.diag = diag // before any goroutine reads it
	}
	b.name = b.opts.Name
	if b.name == "" {
		b.name = filepath.Base(argv[0])
	}
	b.mu.Unlock()
	dir := b.opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("acp: the working directory: %w", err)
		}
		dir = wd
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	env := b.opts.Env
	if env == nil {
		env = os.Environ()
	}
	wait := b.opts.KillWait
	if wait <= 0 {
		wait = time.Second
	}
	var raw *rawLog
	if b.opts.RawFile != "" {
		var err error
		if raw, err = openRaw(b.opts.RawFile, b.name); err != nil {
			return err
		}
	}
	ag, err := startAgent(argv, dir, env, maxLine, wait, b.say)
	if err != nil {
		raw.close()
		return err
	}
	ag.raw = raw
	b.mu.Lock()
	b.ag = ag
	b.mu.Unlock()
	go b.serve(ag)
	if err := b.open(ctx, dir); err != nil {
		return err
	}
	if b.opts.Task != "" && !b.served { // served: at the first stream (Serve)
		return b.Tell(b.opts.Task)
	}
	return nil
}

// say tells a line of the bridge's own, as a problem note. It may wait
// for the subscriber: never call it holding b.mu.
func (b *Bridge) say(s string) { b.diag(s) }

// report tells an oddity from the agent, at most maxReports times a kind.
func (b *Bridge) report(kind, s string) {
	b.repMu.Lock()
	n := b.reports[kind]
	if n <= maxReports && (n > 0 || len(b.reports) < maxReports) {
		b.reports[kind] = n + 1
	}
	b.repMu.Unlock()
	switch {
	case n < maxReports:
		b.say(s)
	case n == maxReports:
		b.say("The agent keeps doing this; further cases are not reported: " + s)
	}
}

// open initializes the agent, opens its session and selects the mode.
func (b *Bridge) open(ctx context.Context, dir string) error {
	version := b.opts.Version
	if version == "" {
		version = "dev"
	}
	res, err := b.ag.call(ctx, "initialize", map[string]any{
		"protocolVersion": 1,
		"clientCapabilities": map[string]any{
			"fs":          map[string]bool{"readTextFile": false, "writeTextFile": false},
			"terminal":    false,
			"elicitation": map[string]any{"form": map[string]any{}},
		},
		"clientInfo": map[string]string{"name": "aaep-term", "title": "aaep-term", "version": version},
	})
	if err != nil {
		return fmt.Errorf("acp: initialize: %w", err)
	}
	var init initializeResult
	_ = json.Unmarshal(res, &init)
	if v := strings.TrimSpace(string(init.ProtocolVersion)); v != "1" {
		b.say("The agent speaks ACP version " + clip(protocol.Line(v), 40) + "; this bridge speaks version 1.")
	}
	b.mu.Lock()
	if i := init.AgentInfo; i != nil {
		b.title = clip(firstNonEmpty(i.Title, i.Name), 200)
		b.version = clip(i.Version, 100)
	}
	if b.opts.Name != "" {
		b.title = b.opts.Name // the user's name for it comes first
	}
	b.mu.Unlock()
	res, err = b.ag.call(ctx, "session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	if err != nil {
		return fmt.Errorf("acp: session/new: %w", err)
	}
	var ns newSessionResult
	if json.Unmarshal(res, &ns) != nil || ns.SessionID == "" {
		return errors.New("acp: session/new: the agent's answer names no session")
	}
	b.mu.Lock()
	b.session = ns.SessionID
	if ns.Modes != nil {
		b.modes = ns.Modes.Available
		b.mode = ns.Modes.Current
	}
	want := b.opts.Mode
	offered := b.offers(want)
	if want == "" && b.offers(DefaultMode) {
		want, offered = DefaultMode, true
	}
	current := b.mode
	b.mu.Unlock()
	switch {
	case want == "" || want == current:
	case !offered:
		b.say(fmt.Sprintf("The agent offers no mode %q; it stays in mode %q.", want, current))
	default:
		if _, err := b.ag.call(ctx, "session/set_mode", map[string]string{"sessionId": ns.SessionID, "modeId": want}); err != nil {
			b.say(fmt.Sprintf("The agent refused mode %q (%v); it stays in mode %q.", want, err, current))
		} else {
			b.mu.Lock()
			b.mode = want
			b.mu.Unlock()
		}
	}
	b.emitMu.Lock()
	b.mu.Lock()
	ready := b.readyWords()
	var msgs [][]byte
	if !b.served {
		msgs = b.startSession(ready)
	}
	b.mu.Unlock()
	b.queue(msgs)
	b.emitMu.Unlock()
	if b.served {
		b.say(ready) // to whoever runs the bridge: no subscriber is there yet
	}
	// The updates that came meanwhile, in order; the session counts as
	// open only once none is left, so later ones cannot pass them.
	for {
		b.mu.Lock()
		early := b.early
		b.early = nil
		b.opened = len(early) == 0
		b.mu.Unlock()
		if len(early) == 0 {
			return nil
		}
		for _, e := range early {
			if e.session != ns.SessionID {
				b.report("other-session", "Ignored a session update for another session.")
				continue
			}
			b.update(e.u)
		}
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

// offers reports whether the agent offers mode id. b.mu is held.
func (b *Bridge) offers(id string) bool {
	for _, m := range b.modes {
		if m.ID == id && id != "" {
			return true
		}
	}
	return false
}

// serve reads the agent's messages until its output ends.
func (b *Bridge) serve(ag *agent) {
	for {
		line, err := ag.rd.Next()
		var tl *wire.TooLargeError
		if errors.As(err, &tl) {
			b.report("large", fmt.Sprintf("Skipped a line from the agent of %d bytes; the limit is %d.", tl.Size, tl.Limit))
			continue
		}
		if err != nil {
			break
		}
		ag.raw.record("i", line)
		m, err := wire.Parse(line)
		if err != nil {
			b.report("malformed", fmt.Sprintf("Skipped a line from the agent that is not JSON-RPC 2.0 (%d bytes).", len(line)))
			continue
		}
		switch {
		case m.IsResponse():
			if !ag.answered(m) {
				b.report("response", "The agent answered a request nobody made; ignored.")
			}
		case m.IsRequest():
			b.request(ag, m)
		default:
			b.notification(m)
		}
	}
	ag.end()
	ag.raw.close() // what is written to a dead agent goes nowhere
	b.mu.Lock()
	b.dead = true // no task starts now: Tell adds to turns under b.mu
	b.mu.Unlock()
	b.turns.Wait() // the task that was going on is said lost first
	b.q.finish(ag.exitError())
}

// request answers one request from the agent.
func (b *Bridge) request(ag *agent, m *wire.Message) {
	method := protocol.Line(clip(m.Method, 80))
	switch {
	case m.Method == "session/request_permission":
		b.permission(ag, m)
	case m.Method == "elicitation/create":
		b.elicit(ag, m)
	case strings.HasPrefix(m.Method, "fs/"), strings.HasPrefix(m.Method, "terminal/"):
		b.report("refused", "Refused the agent's request "+method+": this client offers it no file system and no terminal.")
		_ = ag.write(wire.Fail(m.ID, wire.CodeMethodNotFound, "this client offers no file system and no terminal: "+m.Method+" refused", nil))
	default:
		b.report("unknown-request", "Refused the agent's request "+method+", which this bridge does not know.")
		_ = ag.write(wire.Fail(m.ID, wire.CodeMethodNotFound, "method not found: "+m.Method, nil))
	}
}

// notification handles one notification from the agent.
func (b *Bridge) notification(m *wire.Message) {
	if m.Method != "session/update" {
		if !strings.HasPrefix(m.Method, "_") { // extensions are ignored silently, as ACP says
			b.report("unknown-notification", "Ignored the agent's notification "+protocol.Line(clip(m.Method, 80))+".")
		}
		return
	}
	n, u, ok := decodeUpdate(m.Params)
	if !ok {
		b.report("bad-update", "Ignored a session update from the agent that says no kind.")
		return
	}
	b.mu.Lock()
	if !b.opened { // an agent may speak before it answers session/new
		full := len(b.early) >= maxEarly
		if !full {
			b.early = append(b.early, sessionUpdate{n.SessionID, u})
		}
		b.mu.Unlock()
		if full {
			b.report("early", "Ignored a session update that came before the session was open, after many others.")
		}
		return
	}
	other := n.SessionID != b.session
	b.mu.Unlock()
	if other {
		b.report("other-session", "Ignored a session update for another session.")
		return
	}
	b.update(u)
}

// sessionUpdate is one update and the session it names.
type sessionUpdate struct {
	session string
	u       update
}

// Tell gives the agent a task (session/prompt). It returns at once, never
// waiting for the subscriber; what the agent does comes as events, and its
// end as the session's end. The agent takes one task at a time.
func (b *Bridge) Tell(task string) error {
	if strings.TrimSpace(task) == "" {
		return &NotTaken{"There is no task to give."}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed || b.dead || b.ag == nil || b.session == "":
		return &NotTaken{"The agent is not running."}
	case b.turn != nil:
		return &NotTaken{b.who() + " is still working on a task; cancel it or wait for its end."}
	}
	t := &turn{task: task}
	b.turn = t
	ag, sess := b.ag, b.session
	b.turns.Add(1)
	go func() {
		defer b.turns.Done()
		b.emitMu.Lock()
		b.mu.Lock()
		var msgs [][]byte
		if b.aaep.open {
			msgs = append(msgs, b.stateEvent("waiting", "working", b.taskWords(task), protocol.UrgencyNormal))
		} else {
			msgs = b.startSession(b.taskWords(task))
		}
		b.mu.Unlock()
		b.queue(msgs)
		b.emitMu.Unlock()
		res, err := ag.call(b.ctx, "session/prompt", map[string]any{
			"sessionId": sess,
			"prompt":    []map[string]string{{"type": "text", "text": task}},
		})
		b.endTurn(t, res, err)
	}()
	return nil
}

// Cancel cancels the task the agent is doing (session/cancel) and answers
// every permission request still waiting "cancelled", as ACP requires.
func (b *Bridge) Cancel() error {
	b.mu.Lock()
	ag, sess, t := b.ag, b.session, b.turn
	if ag == nil || b.closed {
		b.mu.Unlock()
		return &NotTaken{"The agent is not running."}
	}
	if t == nil {
		b.mu.Unlock()
		return &NotTaken{b.who() + " is doing no task."}
	}
	t.cancelled = true
	perms := b.takePermissions()
	forms := b.takeElicitations()
	b.mu.Unlock()
	for _, p := range perms {
		_ = ag.write(cancelledOutcome(p.id))
	}
	for _, e := range forms {
		_ = ag.write(cancelledElicitation(e.id))
	}
	if err := ag.notify("session/cancel", map[string]string{"sessionId": sess}); err != nil {
		return &NotTaken{"The cancel could not be sent to the agent: " + err.Error() + "."}
	}
	return nil
}

// NotTaken is a task or a cancel the bridge did not take (Tell, Cancel),
// with why in words for the person who gave it.
type NotTaken struct{ words string }

func (e *NotTaken) Error() string { return "acp: " + e.words }

// Words say why, in one sanitized line: the agent's name is its own.
func (e *NotTaken) Words() string { return protocol.Line(e.words) }

// Mode returns the agent's current mode, and whether in it the agent
// acts without asking.
func (b *Bridge) Mode() (id string, autoApproves bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.mode, approvesByItself(b.mode)
}

// Close stops the agent (its process group is killed if it does not exit
// by itself) and ends the Conn.
func (b *Bridge) Close() {
	b.mu.Lock()
	b.closed = true
	ag := b.ag
	b.takePermissions() // their timers stop: nothing is answered after the end
	b.takeElicitations()
	b.mu.Unlock()
	b.stop()
	if ag != nil {
		ag.close()
	} else {
		b.q.finish(io.EOF)
	}
}

// queue queues events, in order, waiting for room. b.emitMu is held.
func (b *Bridge) queue(msgs [][]byte) {
	for _, m := range msgs {
		if !b.q.push(m) {
			return
		}
	}
}

// link is a Bridge as transport.DialLink sees it.
type link struct{ b *Bridge }

func (l link) Read() ([]byte, error) { return l.b.q.pop(nil) }
func (l link) Close()                { l.b.Close() }
func (l link) Write(_ context.Context, msg []byte) error {
	return l.b.fromSubscriber(msg)
}
