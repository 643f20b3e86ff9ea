package console

// agentcmds.go: the typed commands about agents (agents, mute, unmute,
// only, all, quit AGENT, set … for AGENT) and agents added or gone while
// running.

import (
	"context"
	"fmt"
	"strings"

	"github.com/aaep-term/aaep-term/command"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// AgentChange asks the loop to add an agent (Spec) or to say one has gone
// (Gone, the agent listened to at Spec.Endpoint), or only to say Note (a
// socket not subscribed to, and why): --local's watcher sends them.
type AgentChange struct {
	Spec AgentSpec
	Gone bool
	Note string
}

// find is the agent a command names: by label or tag, endpoint, or the
// name its lines give it, letter case aside. It says which agents there
// are when none matches.
func (l *Listener) find(name string) *agent {
	if m := l.group.Find(name); m != nil {
		return m.Value.(*agent)
	}
	l.say(fmt.Sprintf("No agent is called %s. The agents are: %s.", protocol.Name(name), l.allNames()))
	return nil
}

// allNames lists every agent by its tag, in words.
func (l *Listener) allNames() string {
	var s []string
	for _, a := range l.agents() {
		s = append(s, a.Tag())
	}
	return strings.Join(s, ", ")
}

// agentsFor is the agents a command is for: the one it names, else every
// agent still listened to.
func (l *Listener) agentsFor(c command.Command) []*agent {
	if c.Agent != "" {
		if a := l.find(c.Agent); a != nil {
			return []*agent{a}
		}
		return nil
	}
	var live []*agent
	all := l.agents()
	for _, a := range all {
		if !a.Ended() {
			live = append(live, a)
		}
	}
	if len(live) == 0 && len(all) > 0 {
		live = all[:1] // the run's last agent ended: say so as before
	}
	return live
}

// agentCommand carries out the commands about agents; it reports whether
// c was one.
func (l *Listener) agentCommand(ctx context.Context, c command.Command) bool {
	if !l.multi && (c.Verb == command.VerbAll || c.Verb == command.VerbOnly) && l.questionWaits() {
		return false // with one agent, "all" or "only …" typed while a question waits is its answer
	}
	switch c.Verb {
	case command.VerbTell, command.VerbCancel:
		return l.acpCommand(c)
	case command.VerbAgents:
		for _, a := range l.agents() {
			l.say(l.agentLine(a))
		}
	case command.VerbMute, command.VerbUnmute:
		if a := l.find(c.Agent); a != nil {
			a.muted = c.Verb == command.VerbMute
			if a.muted {
				l.say(fmt.Sprintf("%s is muted: only its critical events and prompts are still said. Type unmute %s to hear all of it.", a.Tag(), a.Tag()))
			} else {
				l.say(fmt.Sprintf("%s is heard again.", a.Tag()) + l.onlyStill(a))
			}
		}
	case command.VerbOnly:
		if a := l.find(c.Agent); a != nil {
			l.only = a
			l.say(fmt.Sprintf("Only %s is heard in full; the other agents' critical events and prompts are still said. Type all to hear every agent.", a.Tag()))
		}
	case command.VerbAll:
		l.only = nil
		for _, a := range l.agents() {
			a.muted = false
		}
		l.say("Every agent is heard in full.")
	case command.VerbQuit:
		if c.Agent == "" {
			return false // quit: every agent
		}
		if a := l.find(c.Agent); a != nil {
			if a.Ended() {
				l.say(fmt.Sprintf("%s has ended already.", a.Tag()))
			} else {
				go a.c.CloseBecause("You quit " + a.Tag() + ".")
			}
		}
	default:
		return false
	}
	return true
}

// onlyStill says, after unmute, that another agent is still the only one.
func (l *Listener) onlyStill(a *agent) string {
	if l.only != nil && l.only != a {
		return fmt.Sprintf(" But only %s is heard in full until you type all.", l.only.Tag())
	}
	return ""
}

// questionWaits reports whether a question waits for its answer.
func (l *Listener) questionWaits() bool {
	for _, p := range l.pending() {
		if p.Event.Type == protocol.TypeAwaitingClarify {
			return true
		}
	}
	return false
}

// agentLine is agent a in the agents list: name, endpoint, state, terms
// honoured, prompts waiting and events so far.
func (l *Listener) agentLine(a *agent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %s", a.Tag(), protocol.Name(transport.Shown(a.Endpoint())), a.State())
	if l.quiet(a) {
		b.WriteString(", muted (critical events and prompts only)")
	}
	n := 0
	for _, p := range l.pending() {
		if p.a == a {
			n++
		}
	}
	fmt.Fprintf(&b, "; %s waiting; %s so far; %s", prose.Count(n, "prompt", "prompts"), prose.Count(a.Events(), "event", "events"), termsWords(a))
	return b.String()
}

// MaxAgents bounds the agents listened to at once when they are found
// while running (--local): each holds its own queue and memory of recent
// events, so hundreds of sockets made by one hostile producer would
// otherwise grow the run's memory with each. Agents being closed to make
// room (makeRoom) are not counted; they are at most MaxAgents more.
const MaxAgents = 64

// makeRoom reports whether an agent found now may be added: fewer than
// MaxAgents are listened to, or one found earlier has said nothing at all
// (not subscribed, no event) and is closed to make room, the one found
// first. A socket that accepts and then never answers so holds no place a
// producer that speaks needs, however many such sockets there are.
func (l *Listener) makeRoom() bool {
	closing := 0
	var silent *agent
	for _, a := range l.agents() {
		switch {
		case a.Ended():
		case a.closing:
			closing++
		case silent == nil && a.found && a.Events() == 0 && a.State() != "subscribed":
			silent = a
		}
	}
	if l.group.Live()-closing < MaxAgents {
		return true
	}
	if silent == nil || closing >= MaxAgents {
		return false
	}
	silent.closing = true
	go silent.c.CloseBecause("The agent said nothing since it was found; closed to make room for another.")
	return true
}

// change carries out an agent added or gone while running.
func (l *Listener) change(ctx context.Context, ch AgentChange) {
	if ch.Note != "" {
		l.say(ch.Note)
		return
	}
	if ch.Gone {
		for _, a := range l.agents() {
			if a.Endpoint() == ch.Spec.Endpoint && !a.Ended() {
				l.say(fmt.Sprintf("Agent %s has gone.", a.Tag()))
				go a.c.CloseBecause("The agent has gone.")
			}
		}
		return
	}
	spec := ch.Spec
	if !l.makeRoom() {
		name := spec.Label
		if name == "" {
			name = subscriber.EndpointName(spec.Endpoint)
		}
		l.say(fmt.Sprintf("Not subscribing to the agent %s: already listening to %d agents, the most at once.", name, MaxAgents))
		return
	}
	if !spec.FromFile {
		spec.Terms = l.cfg.Terms
	}
	a := l.startAgent(ctx, spec)
	a.found = true
	l.multi = l.multi || len(l.agents()) > 1
	l.say(fmt.Sprintf("New agent: %s.", a.Tag()))
}

// Close closes every agent's subscription.
func (l *Listener) Close() { l.group.Close() }
