package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// Terms are the subscription terms in force: what was negotiated with the
// producer at the handshake or at the last renegotiation. The zero value
// means nothing is known yet.
type Terms struct {
	Rate      int      // most events a second the producer sends; 0: no limit
	Verbosity string   // terse, normal, verbose…
	Languages []string // preferred languages, most wanted first
	Include   []string // event type globs sent; empty: all
	Exclude   []string // event type globs not sent
	// Several, when set, says the listener watches several agents, each
	// with terms of its own (the agents view lists them), and none is
	// chosen: the other fields are not shown.
	Several bool
}

// TermsMsg tells the model the terms now in force.
type TermsMsg Terms

// words are the terms on one line, in words.
func (t Terms) words() string {
	var parts []string
	if t.Rate > 0 {
		parts = append(parts, fmt.Sprintf("rate at most %d/s", t.Rate))
	} else {
		parts = append(parts, "rate not limited")
	}
	if t.Verbosity != "" {
		parts = append(parts, "verbosity "+t.Verbosity)
	}
	if len(t.Languages) > 0 {
		parts = append(parts, "languages "+strings.Join(t.Languages, ","))
	}
	if len(t.Include) > 0 {
		parts = append(parts, "include "+strings.Join(t.Include, ","))
	}
	if len(t.Exclude) > 0 {
		parts = append(parts, "exclude "+strings.Join(t.Exclude, ","))
	}
	return strings.Join(parts, ", ")
}

// rateMeter counts events per second of their arrival time: the rate shown
// is the count of the last whole second.
type rateMeter struct {
	sec   int64
	count int
	rate  int
}

func (r *rateMeter) add(at time.Time) {
	r.roll(at)
	r.count++
}

// roll moves the meter to the second of at.
func (r *rateMeter) roll(at time.Time) {
	s := at.Unix()
	if s == r.sec {
		return
	}
	if s == r.sec+1 {
		r.rate = r.count
	} else {
		r.rate = 0
	}
	r.sec, r.count = s, 0
}

// SetTerms shows the terms now in force; it takes effect at Flush.
func (pr *Program) SetTerms(t Terms) {
	pr.in.mu.Lock()
	pr.in.terms, pr.in.termsSet = &t, true
	pr.in.mu.Unlock()
}

// connectionLines are the status's second row: how the listener is
// connected and on what terms. When they do not fit in one row the terms
// get rows of their own, wrapped between words, three at most.
func (m *Model) connectionLines() []string {
	conn, terms := m.connection(), m.termsLine()
	if one := conn + " | " + terms; ansi.StringWidth(one) <= m.width {
		return []string{one}
	}
	rows := append([]string{conn}, markGoingOn(strings.Split(ansi.Wordwrap(terms, m.width-goesOnWidth, ","), "\n"))...)
	return rows[:min(len(rows), 1+maxTermsRows)]
}

// connectionRows are the connection and terms rows the screen has room
// for: the status line, the prompt, the message, the footer, the details
// pane and a row of the list come first, so on a small screen these rows
// give way and nothing scrolls off. The help leaves them out.
func (m *Model) connectionRows() []string {
	if m.mode == modeHelp {
		return nil
	}
	rows := m.connectionLines()
	room := m.height - 3 - m.promptLines() - len(m.wrapRows(m.message, maxMessageRows))
	if m.showDetail {
		room -= m.detailHeight()
	}
	return rows[:min(len(rows), max(room, 0))]
}

// maxTermsRows bounds the rows the terms take on a narrow screen.
const maxTermsRows = 3

func (m *Model) termsLine() string {
	if m.terms == nil {
		return "terms: not negotiated yet"
	}
	if m.terms.Several {
		return "terms: several agents, each its own (" + keyName(m.keys.Agents) + ": the agents view)"
	}
	return "terms: " + m.terms.words()
}

// connection is the transport and endpoint; with several agents, each
// agent's label and endpoint.
func (m *Model) connection() string {
	if len(m.agents) > 1 {
		parts := make([]string, len(m.agents))
		for i, a := range m.agents {
			parts[i] = a.Label + " " + a.Endpoint
		}
		return fmt.Sprintf("%d agents: %s", len(m.agents), strings.Join(parts, ", "))
	}
	var b strings.Builder
	if m.opts.Transport != "" {
		b.WriteString(m.opts.Transport)
	}
	if m.opts.Endpoint != "" {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		b.WriteString(m.opts.Endpoint)
	}
	if b.Len() == 0 {
		b.WriteString("Not connected")
	}
	return b.String()
}
