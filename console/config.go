// Package console turns the ordered updates of one or several AAEP
// subscriptions (a subscriber.Group) into announcements on the user's
// outputs, and carries out the commands the user gives: typed lines, the
// TUI's actions, a braille display's keys. It is the one loop aaep-listen
// runs live; the commands only choose its outputs and settle its Config.
package console

import (
	"net/http"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// Config is what a console needs from the command that runs it, settled
// once from its flags.
type Config struct {
	// Name is the command's, in its own lines ("Start aaep-listen again")
	// and at the start of an output's failure on IO's ErrOut.
	Name string
	// Version is the command's, given to the agents started as acp:COMMAND.
	Version string
	// IO is the terminal: In brings typed commands (unless EventsOnStdin),
	// ErrOut the outputs' failures.
	IO  *term.IO
	Now func() time.Time

	// Announce is the announcers' configuration but for OnError (the
	// console's): verbosity, per-type overrides, languages. Unless
	// FixedVerbosity (the settings file chose it), "set verbosity" in a
	// run of one agent changes it for agents that come later.
	Announce       announce.Config
	FixedVerbosity bool
	// Terms are the terms asked of an agent found while running (AgentChange)
	// that has none of its own.
	Terms session.Terms

	// Multi: lines name their agent (several agents, or one with a label,
	// or agents may come). Expected, BatchMax and Settle are the group's
	// (subscriber.GroupConfig).
	Multi    bool
	Expected int
	BatchMax int
	Settle   time.Duration

	// EventsOnStdin: standard input carries the events (the endpoint -),
	// not commands.
	EventsOnStdin bool
	// RulesAnswer: a --policy file or --auto-reply may answer prompts
	// when nobody types.
	RulesAnswer bool
	// ACPMode and ACPTask are the mode and first task of every agent
	// started as acp:COMMAND without its own (AgentSpec).
	ACPMode, ACPTask string

	// Client is the client configuration of the agent spec describes.
	Client func(spec AgentSpec) subscriber.Config

	// How a capture played (aaep-replay play, Player) is told apart from
	// a live run; NewPlayer sets them all.
	//
	// Verbatim: every status is said word for word as it comes, with no
	// quiet start.
	Verbatim bool
	// HideSentReplies: replies the client sent are not told (the player
	// names what the recorded subscriber sent, its own way).
	HideSentReplies bool
	// NameByLabel: lines name an agent by its label as given (a
	// connection of the capture, which may start again), not by the name
	// the group tells apart.
	NameByLabel bool
	// UpdateTime: each line of an update is at the update's time (the
	// recorded clock), not Now.
	UpdateTime bool
	// PlainEnd: an agent's End is said as it comes and the run goes on.
	PlainEnd bool
}

// AgentSpec is one agent to listen to, as the command line or --agents
// gives it.
type AgentSpec struct {
	Label    string // ours, checked by agentspec; "" for none
	Endpoint string
	// Terms are the terms asked of this agent (the flags', or the
	// --agents entry's); Verbosity how its events are worded.
	Terms     session.Terms
	Verbosity string
	Muted     bool
	// From an --agents entry: its token and headers (added to the
	// flags'), and its policy (in place of --policy).
	Token    string
	Header   http.Header
	Policy   *policy.Policy
	FromFile bool // Terms were settled from the file
	// Found: --local found it; its label comes from a socket's name, not
	// from the user, so policy rules never match it by label.
	Found bool
	// From an --agents entry of an acp: agent: its mode, first task and
	// working directory, in place of --agent-mode, --task and the
	// listener's directory; "" for those.
	ACPMode, ACPTask, ACPDir string
}
