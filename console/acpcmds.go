package console

// This file wires acp:COMMAND agents: each gets a bridge (package acp) that
// its client dials, and the typed commands tell and cancel reach it.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/command"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// bridgeFor gives an acp: agent its bridge, dialled by its client.
func (l *Listener) bridgeFor(a *agent, spec AgentSpec, cfg *subscriber.Config) {
	cfg.Tasks = true // a producer that takes tasks (aaep-bridge) says so: tell and cancel reach it
	if transport.BindingOf(spec.Endpoint) != transport.BindingACP {
		return
	}
	mode, task := l.cfg.ACPMode, l.cfg.ACPTask
	if spec.ACPMode != "" {
		mode = spec.ACPMode
	}
	if spec.ACPTask != "" {
		task = spec.ACPTask
	}
	a.bridge = acp.New(acp.Options{Name: spec.Label, Mode: mode, Task: task, Dir: spec.ACPDir, Version: l.cfg.Version})
	cfg.Transport.ACP = a.bridge.Dial
}

// acpAgents are the agents started as acp:COMMAND and still running.
func (l *Listener) acpAgents() []*agent {
	var as []*agent
	for _, a := range l.agents() {
		if a.takesTasks() && !a.Ended() {
			as = append(as, a)
		}
	}
	return as
}

// acpCommand carries out tell and cancel; it reports false when no acp:
// agent runs, so the line is taken as text (an answer).
func (l *Listener) acpCommand(c command.Command) bool {
	as := l.acpAgents()
	if len(as) == 0 {
		return false
	}
	switch c.Verb {
	case command.VerbTell:
		a, task := as[0], c.Arg
		if c.Key { // the TUI's task input: the agent is given apart, the text is all task
			return l.tellKey(c, as)
		}
		if first, rest, ok := strings.Cut(c.Arg, " "); ok {
			if m := l.group.Find(first); m != nil && m.Value.(*agent).takesTasks() {
				a, task = m.Value.(*agent), strings.TrimSpace(rest)
			} else if len(as) > 1 {
				l.say(fmt.Sprintf("Several agents take tasks: type tell AGENT TEXT, AGENT one of %s.", tags(as)))
				return true
			}
		} else if len(as) > 1 {
			l.say(fmt.Sprintf("Several agents take tasks: type tell AGENT TEXT, AGENT one of %s.", tags(as)))
			return true
		}
		if err := a.tell(task); err != nil {
			l.taskNotTaken(a, err)
		}
	case command.VerbCancel:
		a := as[0]
		if c.Agent != "" {
			if a = l.find(c.Agent); a == nil {
				return true
			}
		} else if len(as) > 1 {
			l.say(fmt.Sprintf("Several agents run: type cancel AGENT, AGENT one of %s.", tags(as)))
			return true
		}
		if !a.takesTasks() {
			l.say(a.Tag() + " takes no tasks (neither acp:COMMAND nor a producer that takes them): it takes no cancel.")
			return true
		}
		if err := a.cancel(); err != nil {
			l.taskNotTaken(a, err)
		} else {
			l.say("Asked " + a.Tag() + " to cancel its task.")
		}
	default:
		return false
	}
	return true
}

// tellKey gives the task of the TUI's task input to the agent it names,
// or to the one acp: agent when it names none.
func (l *Listener) tellKey(c command.Command, as []*agent) bool {
	a := as[0]
	switch {
	case c.Agent != "":
		if a = l.find(c.Agent); a == nil {
			return true
		}
		if !a.takesTasks() {
			l.say(a.Tag() + " takes no tasks (neither acp:COMMAND nor a producer that takes them).")
			return true
		}
	case len(as) > 1:
		l.say(fmt.Sprintf("Several agents take tasks: type tell AGENT TEXT, AGENT one of %s.", tags(as)))
		return true
	}
	if err := a.tell(c.Arg); err != nil {
		l.taskNotTaken(a, err)
	}
	return true
}

// taskNotTaken says why a's task or cancel was not taken: a producer's refusal
// over HTTP in the words its refusal has on the other bindings, or the
// bridge's of an acp: agent.
func (l *Listener) taskNotTaken(a *agent, err error) {
	var tr *subscriber.TaskRefusedError
	if errors.As(err, &tr) {
		l.sayFor(a, tr.Words())
		return
	}
	if nt, ok := errors.AsType[*acp.NotTaken](err); ok {
		l.sayFor(a, nt.Words())
		return
	}
	l.say(protocol.Line(err.Error()))
}

func tags(as []*agent) string {
	var s []string
	for _, a := range as {
		s = append(s, a.Tag())
	}
	return strings.Join(s, ", ")
}

// takesTasks reports whether tell and cancel reach a: an acp: agent, or a
// producer that takes tasks over AAEP (aaep-bridge: the agent-tasks
// extension).
func (a *agent) takesTasks() bool { return a.bridge != nil || a.c.TakesTasks() }

// tell gives a the task: through its bridge, or over AAEP.
func (a *agent) tell(task string) error {
	if a.bridge != nil {
		return a.bridge.Tell(task)
	}
	return a.c.Tell(context.Background(), task)
}

// cancel cancels a's task: through its bridge, or over AAEP.
func (a *agent) cancel() error {
	if a.bridge != nil {
		return a.bridge.Cancel()
	}
	return a.c.CancelTask(context.Background())
}
