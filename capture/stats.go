// stats.go: figures about a capture, per session and per agent.

package capture

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/textout"
	"github.com/aaep-term/aaep-term/protocol"
)

// Stats is what a capture holds, counted per session and per agent. It is
// built by BuildStats from a full check, so violations are counted too.
type Stats struct {
	Source      string          `json:"source"`
	Kind        string          `json:"kind"`
	Records     int             `json:"records"`
	Sessions    []*SessionStats `json:"sessions"`
	Agents      []*AgentStats   `json:"agents"`
	Total       Counts          `json:"total"`
	Other       int             `json:"messages_outside_sessions"` // handshake, replies, unreadable frames
	Diagnostics int             `json:"unreadable_lines"`
	// CutShort is true for a gzip file that ends early: the figures cover
	// what comes before the cut.
	CutShort bool `json:"cut_short,omitempty"`
}

// SessionStats is the figures of one session.
type SessionStats struct {
	ID    string `json:"session_id"` // sanitized
	Agent string `json:"agent"`      // sanitized agent_id
	// Connection names the connection of a version-2 capture the session
	// came by (its label, else its endpoint); "" in version 1.
	Connection string `json:"connection,omitempty"`
	// Ended is the terminal event type (compact form), "" while open.
	Ended string `json:"ended,omitempty"`
	Counts
}

// AgentStats is the figures of every session of one agent (producer agent_id).
type AgentStats struct {
	ID   string `json:"agent_id"`   // sanitized
	Name string `json:"agent_name"` // sanitized, "" when never given
	// Connection names the connection of a version-2 capture (label, else
	// endpoint): an agent is counted per connection, so two instances of
	// one producer are two agents. "" in version 1.
	Connection string `json:"connection,omitempty"`
	Sessions   int    `json:"sessions"`
	Counts
}

// Counts is what Stats counts for a session, an agent or the whole capture.
type Counts struct {
	// DurationS is the time from the first to the last event, in seconds, by
	// receive time (or event timestamps for plain JSONL); summed for agents.
	DurationS     float64            `json:"duration_s"`
	Events        int                `json:"events"`
	ByType        map[string]int     `json:"events_by_type"`
	Tools         ToolStats          `json:"tool_calls"`
	Confirmations ConfirmationStats  `json:"confirmations"`
	Clarify       ClarificationStats `json:"clarifications"`
	Output        OutputStats        `json:"streamed_output"`
	Violations    int                `json:"violations"`
	Warnings      int                `json:"warnings"`
	latencies     []float64          // tool latencies, ms
	decideTimes   []float64          // confirmation decision times, ms
}

// ToolStats counts tool calls by outcome. Rates are fractions of Calls.
type ToolStats struct {
	Calls      int         `json:"calls"`
	Success    int         `json:"success"`
	Error      int         `json:"error"`
	Timeout    int         `json:"timeout"`
	Unfinished int         `json:"unfinished"` // invoked, never completed
	SuccessPct float64     `json:"success_pct"`
	ErrorPct   float64     `json:"error_pct"`
	TimeoutPct float64     `json:"timeout_pct"`
	LatencyMS  Percentiles `json:"latency_ms"`
}

// ConfirmationStats counts confirmation prompts by outcome. Accepted and
// Rejected come from replies recorded in the capture; TimedOut counts
// prompts with no reply whose timeout had passed by a later event of the
// session; Unanswered the rest.
type ConfirmationStats struct {
	Asked      int         `json:"asked"`
	Accepted   int         `json:"accepted"`
	Rejected   int         `json:"rejected"`
	TimedOut   int         `json:"timed_out"`
	Unanswered int         `json:"unanswered"`
	DecideMS   Percentiles `json:"time_to_decide_ms"`
}

// ClarificationStats counts questions and the answers recorded.
type ClarificationStats struct {
	Asked    int `json:"asked"`
	Answered int `json:"answered"`
}

// OutputStats is the size of streamed output.
type OutputStats struct {
	Outputs  int `json:"outputs"` // distinct output_id values
	Chunks   int `json:"chunks"`
	Bytes    int `json:"bytes"` // of chunk text, as sent
	Complete int `json:"complete"`
}

// Percentiles summarises a set of durations, in milliseconds, by nearest rank.
type Percentiles struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

func percentiles(v []float64) Percentiles {
	if len(v) == 0 {
		return Percentiles{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	rank := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return math.Round(s[max(i, 0)]*1000) / 1000
	}
	return Percentiles{N: len(s), P50: rank(0.5), P90: rank(0.9), P99: rank(0.99), Max: rank(1)}
}

// statSession is the working state of one session while stats are built.
type statSession struct {
	out       *SessionStats
	first     float64 // seconds, of the first event
	last      float64
	timed     bool
	tools     map[string]float64 // pairing key -> time of tool.invoked
	outputs   map[string]bool
	prompts   map[string]*statPrompt // by reply token
	questions map[string]bool        // by reply token; true once answered
}

type statPrompt struct {
	at       float64   // when it arrived, seconds
	deadline time.Time // timestamp + timeout_seconds; zero when unknown
	deadT    float64   // at + timeout_seconds
	decided  bool
}

// BuildStats reads all of r through a full check and returns its figures.
// Memory grows with the number of sessions and tool calls, not with the
// length of streamed output.
func BuildStats(r *Reader, source string, o CheckOptions) (*Stats, error) {
	c, err := NewChecker(o)
	if err != nil {
		return nil, err
	}
	st := &Stats{Source: protocol.Sanitize(source), Kind: r.Kind()}
	b := &statBuilder{st: st, sessions: map[string]*statSession{}, byID: map[string]*statSession{}, tokens: map[string]*statSession{}, name: r.ConnName}
	if err := c.CheckAll(r, b.step); err != nil {
		return nil, err
	}
	for _, v := range c.Finish() {
		b.violation(v, nil)
	}
	d, more := r.Diagnostics()
	st.Diagnostics = len(d) + more
	if r.CutShort() {
		st.CutShort = true
		st.Diagnostics-- // the note of the cut is not a line
	}
	b.finish()
	return st, nil
}

type statBuilder struct {
	st       *Stats
	order    []*statSession
	sessions map[string]*statSession // by sessionKey: agent and session ID
	byID     map[string]*statSession // by sanitized session ID, the latest: for violations that name no agent
	tokens   map[string]*statSession // tokenKey -> session that asked
	lastT    float64
	name     func(conn string) string // a connection's name, "" for none
}

// agentKey is how stats know an agent: by connection and agent_id.
func agentKey(conn, agent string) string { return conn + "\x00" + agent }

// stepTime is the time of a step in seconds: its receive time, else its event's timestamp.
func stepTime(s Step) (float64, bool) {
	if s.Record.HasT {
		return s.Record.T, true
	}
	if s.Event != nil && !s.Event.Timestamp.IsZero() {
		return float64(s.Event.Timestamp.UnixNano()) / 1e9, true
	}
	return 0, false
}

func (b *statBuilder) step(s Step) {
	b.st.Records++
	ev := s.Event
	var ss *statSession
	if ev != nil && s.Record.Dir == In && ev.SessionID != "" {
		ss = b.session(s.Record.Conn, ev)
	}
	for _, v := range s.Violations {
		b.violation(v, ss)
	}
	t, timed := stepTime(s)
	if timed {
		b.lastT = t
	}
	if ss == nil {
		if s.Msg != nil {
			b.reply(s, t, timed)
		}
		b.st.Other++
		return
	}
	if timed {
		if !ss.timed {
			ss.first, ss.timed = t, true
		}
		ss.last = t
	}
	c := &ss.out.Counts
	c.Events++
	c.ByType[ev.Type]++
	b.closeTimedOut(ss, ev.Timestamp, t, timed)
	switch ev.Type {
	case protocol.TypeToolInvoked:
		c.Tools.Calls++
		ss.tools[toolKey(ev)] = t
	case protocol.TypeToolCompleted:
		start, open := ss.tools[toolKey(ev)]
		delete(ss.tools, toolKey(ev))
		switch ev.Status {
		case "success":
			c.Tools.Success++
		case "error":
			c.Tools.Error++
		case "timeout":
			c.Tools.Timeout++
		}
		switch {
		case ev.DurationMS > 0:
			c.latencies = append(c.latencies, float64(ev.DurationMS))
		case open && timed:
			c.latencies = append(c.latencies, (t-start)*1000)
		}
	case protocol.TypeOutputStreaming:
		c.Output.Chunks++
		c.Output.Bytes += len(ev.Chunk)
		if !ss.outputs[ev.OutputID] {
			ss.outputs[ev.OutputID] = true
			c.Output.Outputs++
		}
		if ev.Complete {
			c.Output.Complete++
		}
	case protocol.TypeAwaitingConfirmation:
		c.Confirmations.Asked++
		p := &statPrompt{at: t, deadT: t + float64(ev.TimeoutSeconds)}
		if !ev.Timestamp.IsZero() && ev.TimeoutSeconds > 0 {
			p.deadline = ev.Timestamp.Add(time.Duration(ev.TimeoutSeconds) * time.Second)
		}
		if ev.TimeoutSeconds <= 0 {
			p.deadT = math.Inf(1)
		}
		ss.prompts[ev.ReplyToken] = p
		b.tokens[tokenKey(s.Record.Conn, ev.ReplyToken)] = ss
	case protocol.TypeAwaitingClarify:
		c.Clarify.Asked++
		ss.questions[ev.ReplyToken] = false
		b.tokens[tokenKey(s.Record.Conn, ev.ReplyToken)] = ss
	}
	if ev.IsTerminal() {
		ss.out.Ended = ev.Type
	}
}

// closeTimedOut counts the prompts of ss whose timeout has passed by an
// event with timestamp ts arriving at t.
func (b *statBuilder) closeTimedOut(ss *statSession, ts time.Time, t float64, timed bool) {
	for tok, p := range ss.prompts {
		if p.decided {
			continue
		}
		if (!p.deadline.IsZero() && !ts.IsZero() && !ts.Before(p.deadline)) || (timed && t >= p.deadT) {
			ss.out.Confirmations.TimedOut++
			delete(ss.prompts, tok)
		}
	}
}

// reply counts a message the subscriber sent (or any non-event message).
func (b *statBuilder) reply(s Step, t float64, timed bool) {
	tok, _ := s.Msg["reply_token"].(string)
	ss := b.tokens[tokenKey(s.Record.Conn, tok)]
	if ss == nil || tok == "" {
		return
	}
	switch s.Type {
	case protocol.TypeConfirmationReply:
		p := ss.prompts[tok]
		if p == nil || p.decided {
			return
		}
		p.decided = true
		c := &ss.out.Confirmations
		switch s.Msg["decision"] {
		case protocol.DecisionAccept:
			c.Accepted++
		case protocol.DecisionReject:
			c.Rejected++
		default:
			p.decided = false
			return
		}
		if timed {
			ss.out.decideTimes = append(ss.out.decideTimes, (t-p.at)*1000)
		}
		delete(ss.prompts, tok)
	case protocol.TypeClarificationReply:
		if answered, ok := ss.questions[tok]; ok && !answered {
			ss.questions[tok] = true
			ss.out.Clarify.Answered++
		}
	}
}

func (b *statBuilder) session(conn string, ev *protocol.Event) *statSession {
	id, key := protocol.Sanitize(ev.SessionID), sessionKey(conn, ev)
	if ss := b.sessions[key]; ss != nil {
		return ss
	}
	ss := &statSession{
		out:     &SessionStats{ID: id, Agent: protocol.Sanitize(ev.Producer.AgentID), Connection: b.name(conn), Counts: Counts{ByType: map[string]int{}}},
		tools:   map[string]float64{},
		outputs: map[string]bool{},
		prompts: map[string]*statPrompt{}, questions: map[string]bool{},
	}
	b.sessions[key], b.byID[agentKey(conn, id)] = ss, ss
	b.order = append(b.order, ss)
	if name := ev.Producer.AgentName.String(); name != "" {
		b.agentNames(ss.out, name)
	}
	return ss
}

// agentNames remembers the first name each agent gave.
func (b *statBuilder) agentNames(ss *SessionStats, name string) {
	for _, a := range b.st.Agents {
		if a.ID == ss.Agent && a.Connection == ss.Connection {
			return
		}
	}
	b.st.Agents = append(b.st.Agents, &AgentStats{ID: ss.Agent, Name: name, Connection: ss.Connection, Counts: Counts{ByType: map[string]int{}}})
}

// violation counts v, for session ss when its step is an event of ss, else
// for the latest session of the ID v names.
func (b *statBuilder) violation(v Violation, ss *statSession) {
	if ss == nil && v.Session != "" {
		ss = b.byID[agentKey(v.Conn, v.Session)]
	}
	var c *Counts
	if ss != nil {
		c = &ss.out.Counts
	}
	for _, cc := range []*Counts{c, &b.st.Total} {
		if cc == nil {
			continue
		}
		if v.Severity == SeverityViolation {
			cc.Violations++
		} else {
			cc.Warnings++
		}
	}
}

// finish closes every session and sums them up per agent and in all.
func (b *statBuilder) finish() {
	agents := map[string]*AgentStats{}
	for _, a := range b.st.Agents {
		agents[agentKey(a.Connection, a.ID)] = a
	}
	b.st.Total.ByType = map[string]int{}
	for _, ss := range b.order {
		c := &ss.out.Counts
		c.Tools.Unfinished = len(ss.tools)
		for range ss.prompts {
			c.Confirmations.Unanswered++
		}
		if ss.timed {
			c.DurationS = ss.last - ss.first
		}
		a := agents[agentKey(ss.out.Connection, ss.out.Agent)]
		if a == nil {
			a = &AgentStats{ID: ss.out.Agent, Connection: ss.out.Connection, Counts: Counts{ByType: map[string]int{}}}
			agents[agentKey(a.Connection, a.ID)] = a
			b.st.Agents = append(b.st.Agents, a)
		}
		a.Sessions++
		v, w := c.Violations, c.Warnings
		a.Counts.add(c)
		a.Violations += v
		a.Warnings += w
		b.st.Total.add(c)
		c.seal()
		b.st.Sessions = append(b.st.Sessions, ss.out)
	}
	for _, a := range b.st.Agents {
		a.seal()
	}
	// Total violations were counted as they came, sessions' or not.
	b.st.Total.seal()
	sort.SliceStable(b.st.Agents, func(i, j int) bool {
		x, y := b.st.Agents[i], b.st.Agents[j]
		return x.Connection < y.Connection || x.Connection == y.Connection && x.ID < y.ID
	})
}

// add adds o's counts to c, except violations and warnings.
func (c *Counts) add(o *Counts) {
	c.DurationS += o.DurationS
	c.Events += o.Events
	for k, v := range o.ByType {
		c.ByType[k] += v
	}
	c.Tools.Calls += o.Tools.Calls
	c.Tools.Success += o.Tools.Success
	c.Tools.Error += o.Tools.Error
	c.Tools.Timeout += o.Tools.Timeout
	c.Tools.Unfinished += o.Tools.Unfinished
	c.Confirmations.Asked += o.Confirmations.Asked
	c.Confirmations.Accepted += o.Confirmations.Accepted
	c.Confirmations.Rejected += o.Confirmations.Rejected
	c.Confirmations.TimedOut += o.Confirmations.TimedOut
	c.Confirmations.Unanswered += o.Confirmations.Unanswered
	c.Clarify.Asked += o.Clarify.Asked
	c.Clarify.Answered += o.Clarify.Answered
	c.Output.Outputs += o.Output.Outputs
	c.Output.Chunks += o.Output.Chunks
	c.Output.Bytes += o.Output.Bytes
	c.Output.Complete += o.Output.Complete
	c.latencies = append(c.latencies, o.latencies...)
	c.decideTimes = append(c.decideTimes, o.decideTimes...)
}

// seal computes the rates and percentiles.
func (c *Counts) seal() {
	if n := float64(c.Tools.Calls); n > 0 {
		c.Tools.SuccessPct = round1(100 * float64(c.Tools.Success) / n)
		c.Tools.ErrorPct = round1(100 * float64(c.Tools.Error) / n)
		c.Tools.TimeoutPct = round1(100 * float64(c.Tools.Timeout) / n)
	}
	c.Tools.LatencyMS = percentiles(c.latencies)
	c.Confirmations.DecideMS = percentiles(c.decideTimes)
	c.DurationS = math.Round(c.DurationS*1000) / 1000
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// WriteText writes the figures as plain text: a heading line per session
// and agent, then one fact per line, in words, with no escape sequences and
// no alignment by spaces.
func (s *Stats) WriteText(w io.Writer) error {
	ew := bufio.NewWriter(w)
	textout.Fprintf(ew, "Figures for %s: %d records, %d %s, %d %s.\n", s.Source, s.Records,
		len(s.Sessions), prose.Plural(len(s.Sessions), "session", "sessions"),
		len(s.Agents), prose.Plural(len(s.Agents), "agent", "agents"))
	if s.Diagnostics > 0 {
		textout.Fprintf(ew, "%d %s could not be read.\n", s.Diagnostics, prose.Plural(s.Diagnostics, "line", "lines"))
	}
	if s.CutShort {
		textout.Fprintf(ew, "Warning: the gzip file ends early (it was cut short); these figures cover what comes before the cut.\n")
	}
	textout.Fprintf(ew, "\nIn all:\n")
	s.Total.write(ew)
	for _, a := range s.Agents {
		name := a.ID
		if a.Name != "" && a.Name != a.ID {
			name = fmt.Sprintf("%s (%s)", a.Name, a.ID)
		}
		if a.Connection != "" {
			name += " on connection " + a.Connection
		}
		textout.Fprintf(ew, "\nAgent %s, %d %s:\n", name, a.Sessions, prose.Plural(a.Sessions, "session", "sessions"))
		a.Counts.write(ew)
	}
	for _, ss := range s.Sessions {
		end := "still open at the end of the capture"
		if ss.Ended != "" {
			end = "ended with " + strings.TrimPrefix(ss.Ended, "aaep:")
		}
		agent := ss.Agent
		if ss.Connection != "" {
			agent += " on connection " + ss.Connection
		}
		textout.Fprintf(ew, "\nSession %s of agent %s, %s:\n", ss.ID, agent, end)
		ss.Counts.write(ew)
	}
	return ew.Flush()
}

func (c *Counts) write(ew io.Writer) {
	textout.Fprintf(ew, "Duration: %s.\n", secondsWords(c.DurationS))
	textout.Fprintf(ew, "Events: %d.\n", c.Events)
	types := make([]string, 0, len(c.ByType))
	for t := range c.ByType {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		textout.Fprintf(ew, "  %s: %d.\n", strings.TrimPrefix(t, "aaep:"), c.ByType[t])
	}
	tl := c.Tools
	if tl.Calls > 0 {
		textout.Fprintf(ew, "Tool calls: %d; %d succeeded (%s percent), %d failed (%s percent), %d timed out (%s percent), %d unfinished.\n",
			tl.Calls, tl.Success, pct(tl.SuccessPct), tl.Error, pct(tl.ErrorPct), tl.Timeout, pct(tl.TimeoutPct), tl.Unfinished)
		if tl.LatencyMS.N > 0 {
			textout.Fprintf(ew, "Tool latency over %d %s: median %s, 90th percentile %s, 99th percentile %s, longest %s.\n",
				tl.LatencyMS.N, prose.Plural(tl.LatencyMS.N, "call", "calls"), ms(tl.LatencyMS.P50), ms(tl.LatencyMS.P90), ms(tl.LatencyMS.P99), ms(tl.LatencyMS.Max))
		}
	} else {
		textout.Fprintf(ew, "Tool calls: none.\n")
	}
	cf := c.Confirmations
	if cf.Asked > 0 {
		textout.Fprintf(ew, "Confirmations: %d asked; %d accepted, %d rejected, %d timed out, %d unanswered.\n",
			cf.Asked, cf.Accepted, cf.Rejected, cf.TimedOut, cf.Unanswered)
		if cf.DecideMS.N > 0 {
			textout.Fprintf(ew, "Time to decide over %d %s: median %s, 90th percentile %s, longest %s.\n",
				cf.DecideMS.N, prose.Plural(cf.DecideMS.N, "decision", "decisions"), ms(cf.DecideMS.P50), ms(cf.DecideMS.P90), ms(cf.DecideMS.Max))
		}
	} else {
		textout.Fprintf(ew, "Confirmations: none.\n")
	}
	if c.Clarify.Asked > 0 {
		textout.Fprintf(ew, "Questions: %d asked, %d answered.\n", c.Clarify.Asked, c.Clarify.Answered)
	}
	if c.Output.Chunks > 0 {
		textout.Fprintf(ew, "Streamed output: %d %s in %d %s, %d bytes, %d completed.\n", c.Output.Outputs, prose.Plural(c.Output.Outputs, "output", "outputs"),
			c.Output.Chunks, prose.Plural(c.Output.Chunks, "chunk", "chunks"), c.Output.Bytes, c.Output.Complete)
	} else {
		textout.Fprintf(ew, "Streamed output: none.\n")
	}
	textout.Fprintf(ew, "Violations: %d; warnings: %d.\n", c.Violations, c.Warnings)
}

func secondsWords(s float64) string { return fmt.Sprintf("%.3f seconds", s) }
func ms(v float64) string           { return fmt.Sprintf("%.0f ms", v) }
func pct(v float64) string          { return fmt.Sprintf("%.1f", v) }
