// who.go says who speaks, for speech and braille when several agents are
// watched: the agent's name, only when it changes, always when it matters.

package announce

import (
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/rivo/uniseg"
)

// maxNameClusters bounds the name said before an announcement: a producer
// choosing a long name must not make every prompt slow to hear.
const maxNameClusters = 32

// who remembers the agent named last, for a Pacer with SayAgents.
type who struct {
	last string
}

// name puts the agent's name before an ("mail: Using search.") when it
// differs from the last name said, or when an is critical or reminds of a
// prompt: whoever asks must always be clear. The name is the producer's
// text (or a label standing for it): sanitized to one line, bounded, and
// marked as theirs in an.Theirs, whose spans move along. An announcement
// of ours (no agent) is left as it is and changes nothing.
func (w *who) name(an *Announcement) {
	name := shortName(protocol.Name(an.Agent))
	if name == "" {
		return
	}
	always := an.Priority >= Critical || an.Kind == "prompt-reminder"
	if name == w.last && !always {
		return
	}
	w.last = name
	prepend(an, name+": ")
	an.Theirs = append([]protocol.Span{{Start: 0, End: len(name)}}, an.Theirs...)
}

// shortName cuts name to maxNameClusters grapheme clusters, the last
// being "…" when it was cut.
func shortName(name string) string {
	if uniseg.GraphemeClusterCount(name) <= maxNameClusters {
		return name
	}
	rest, state := name, -1
	for range maxNameClusters - 1 {
		_, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
	}
	return name[:len(name)-len(rest)] + "…"
}

// prepend puts words of ours before an's text, moving the marks of the
// producer's words along. Text with no marks at all (nil: nobody said
// whose words it holds) is marked as all theirs, as outputs take it.
func prepend(an *Announcement, ours string) {
	if an.Theirs == nil && an.Text != "" {
		an.Theirs = []protocol.Span{{Start: 0, End: len(an.Text)}}
	}
	an.Text = ours + an.Text
	moved := make([]protocol.Span, len(an.Theirs))
	for i, sp := range an.Theirs {
		moved[i] = protocol.Span{Start: sp.Start + len(ours), End: sp.End + len(ours)}
	}
	an.Theirs = moved
}
