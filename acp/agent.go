package acp

// This file runs the agent process and speaks JSON-RPC 2.0 with it, one
// message a line. Reading is the bridge's (serve); this side writes and
// matches responses to the calls waiting for them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/internal/procgroup"
	"github.com/aaep-term/aaep-term/internal/wire"
	"github.com/aaep-term/aaep-term/protocol"
)

// Limits on what is read from the agent.
const (
	stderrWidth = 300 // characters of one stderr line shown
	stderrLines = 200 // stderr lines shown; further ones are counted
	stderrKeep  = 3   // last stderr lines an exit error quotes
)

// errAgentEnded fails calls still waiting when the agent's output ends.
var errAgentEnded = errors.New("the agent ended")

// agent is the running agent process.
type agent struct {
	child *procgroup.Child
	rd    *wire.Reader

	wmu sync.Mutex // one writer at a time
	raw *rawLog    // records the lines (Options.RawFile); nil: none

	mu    sync.Mutex // guards the fields below
	next  int64
	calls map[string]chan *wire.Message
	ended bool
}

// startAgent starts argv in its own process group. Its standard error is
// told through diag as bounded, sanitized lines, the first stderrLines of
// them; further ones are counted when it ends.
func startAgent(argv []string, dir string, env []string, maxLine int, killWait time.Duration, diag func(string)) (*agent, error) {
	shown, hidden := 0, 0 // only readStderr's goroutine touches them
	child, err := procgroup.Start(argv, procgroup.Options{
		Dir: dir, Env: env, KillWait: killWait, Keep: stderrKeep,
		Clean: func(line string) string {
			if s := clip(protocol.Line(line), stderrWidth); strings.TrimSpace(s) != "" {
				return s
			}
			return ""
		},
		OnLine: func(s string) {
			if shown < stderrLines {
				shown++
				diag("The agent wrote on standard error: " + s)
				return
			}
			hidden++
		},
		OnEnd: func() {
			if hidden > 0 {
				diag(fmt.Sprintf("The agent wrote %d more lines on standard error, not shown.", hidden))
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("acp: start the agent %q: %w", argv[0], err)
	}
	return &agent{
		child: child, rd: wire.NewReader(child.Out, wire.FramingLines, maxLine),
		calls: map[string]chan *wire.Message{},
	}, nil
}

// write sends one JSON-RPC message.
func (a *agent) write(line []byte) error {
	b, err := wire.Append(nil, wire.FramingLines, line)
	if err != nil {
		return err
	}
	a.wmu.Lock()
	defer a.wmu.Unlock()
	a.raw.record("o", line)
	_, err = a.child.In.Write(b)
	return err
}

func marshalParams(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("{}") // only our own values come here; they encode
	}
	return b
}

// call sends a request and waits for its answer, ctx, or the agent's end.
func (a *agent) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	a.mu.Lock()
	if a.ended {
		a.mu.Unlock()
		return nil, errAgentEnded
	}
	a.next++
	id := strconv.FormatInt(a.next, 10)
	ch := make(chan *wire.Message, 1)
	a.calls[id] = ch
	a.mu.Unlock()
	forget := func() {
		a.mu.Lock()
		delete(a.calls, id)
		a.mu.Unlock()
	}
	if err := a.write(wire.Request(json.RawMessage(id), method, marshalParams(params))); err != nil {
		forget()
		return nil, fmt.Errorf("acp: send %s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, errAgentEnded
		}
		if m.Error != nil {
			return nil, &rpcError{Method: method, Code: m.Error.Code, Message: m.Error.Message}
		}
		return m.Result, nil
	case <-ctx.Done():
		forget()
		return nil, fmt.Errorf("acp: %s: %w", method, ctx.Err())
	}
}

// rpcError is an error answer from the agent.
type rpcError struct {
	Method  string
	Code    int
	Message string
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("the agent answered %s with error %d: %s", e.Method, e.Code, clip(protocol.Line(e.Message), 500))
}

// notify sends a notification.
func (a *agent) notify(method string, params any) error {
	return a.write(wire.Request(nil, method, marshalParams(params)))
}

// answered hands a response to the call waiting for it; false when none
// waits.
func (a *agent) answered(m *wire.Message) bool {
	a.mu.Lock()
	ch, ok := a.calls[strings.TrimSpace(string(m.ID))]
	delete(a.calls, strings.TrimSpace(string(m.ID)))
	a.mu.Unlock()
	if ok {
		ch <- m
	}
	return ok
}

// end fails every waiting call: the agent's output has ended.
func (a *agent) end() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ended = true
	for id, ch := range a.calls {
		close(ch)
		delete(a.calls, id)
	}
}

// exitError waits for the process and says how it ended: nil for a clean
// exit.
func (a *agent) exitError() error {
	e := a.child.Ended()
	switch {
	case e.Running:
		return errors.New("the agent closed its output but is still running")
	case e.State == "":
		return nil
	}
	s := "the agent ended: " + e.State
	if len(e.Stderr) > 0 {
		s += "; its last words on standard error: " + strings.Join(e.Stderr, " / ")
	}
	return errors.New(s)
}

// close closes the agent's input and kills its process group if it has
// not exited after the wait, helpers it left behind too.
func (a *agent) close() { a.child.Close() }

// clip cuts s to at most n bytes, at a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
