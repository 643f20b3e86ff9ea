package tui

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// agentItems are n events, one a second, from the agents named in turn;
// number 4 is critical.
func agentItems(n int, agents ...string) []Item {
	items := make([]Item, n)
	for i := range items {
		a := agents[i%len(agents)]
		it := Item{At: t0.Add(time.Duration(i) * time.Second), Priority: announce.Normal, Kind: "output", Agent: a, AgentID: a,
			SessionID: "s-" + a, Text: fmt.Sprintf("%s-%03d", a, i+1),
			Event: &protocol.Event{Type: protocol.TypeOutputStreaming, EventID: fmt.Sprintf("ev-%03d", i+1), SessionID: "s-" + a}}
		if i == 3 {
			it.Priority, it.Kind, it.Text = announce.Critical, "errored", fmt.Sprintf("%s-critical", a)
			it.Event.Type = protocol.TypeSessionErrored
		}
		items[i] = it
	}
	return items
}

func threeAgents() AgentsMsg {
	return AgentsMsg{
		{Label: "mail", Endpoint: "http://127.0.0.1:8081", State: "connected", Terms: "rate at most 20/s, verbosity normal", Pending: 1, Events: 240},
		{Label: "web", Endpoint: "ws://127.0.0.1:8082", State: "reconnecting", Events: 12, Muted: true},
		{Label: "code", Endpoint: "unix:/run/user/1000/aaep/code.sock", State: "connected", Events: 3},
	}
}

// selectedRow is the row of the frame that starts with ">".
func selectedRow(view string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l, ">") {
			return l
		}
	}
	return ""
}

// With one agent the list is as it always was: the agent's name before the
// text, giving way before the type (TestRowShowsItsText). With a second
// agent seen, the agent gets a column of its own after the urgency, kept
// ahead of the type and the time; on a narrow screen it narrows, then moves
// before the text: every row still says who said it, at every width, and
// no row is wider than the screen.
func TestAgentColumn(t *testing.T) {
	two := agentItems(6, "mail", "web-browser-agent-with-a-long-name")
	for _, tc := range []struct {
		width   int
		want    string // the selected row begins so (after "> ")
		notWant []string
	}{
		{160, " 09:00:05.000 NORMAL     web-browser-age… output.streaming       s-web-browser… web-browser-agent-with-a-long-name-006", nil},
		{100, " 09:00:05 NORMAL     web-browser-age… output.streaming web-browser-agent-with-a-long-name-006", []string{"s-web"}},
		{80, " 09:00:05 NORMAL     web-browser-age… web-browser-agent-with-a-long-name-006", []string{"output.streaming"}},
		{60, " NORMAL     web-bro… web-browser-agent-with-a-long-name-006", []string{"09:00"}},
		{40, " NORMAL     web-bro…: web-browser", []string{"09:00"}},
	} {
		m := New(testOptions(t.TempDir(), &recorder{}))
		m.cur = &cursorPos{}
		m.Update(tea.WindowSizeMsg{Width: tc.width, Height: 24})
		m.Update(ItemsMsg(two))
		row := selectedRow(m.View())
		if w := ansi.StringWidth(row); w > tc.width {
			t.Errorf("width %d: row %d wide: %q", tc.width, w, row)
		}
		if !strings.HasPrefix(row, ">"+tc.want) {
			t.Errorf("width %d: row\n%q\nwant it to begin\n%q", tc.width, row, ">"+tc.want)
		}
		for _, w := range tc.notWant {
			if strings.Contains(row, w) {
				t.Errorf("width %d: row still has %q: %q", tc.width, w, row)
			}
		}
	}
	// One agent, or none yet: no column.
	m := New(testOptions(t.TempDir(), &recorder{}))
	m.cur = &cursorPos{}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(ItemsMsg(agentItems(6, "mail")))
	if row := selectedRow(m.View()); strings.Contains(row, "mail ") || m.severalAgents() {
		t.Errorf("one agent has a column: %q", row)
	}
	// One agent listed, named otherwise than its events, is still one.
	m.Update(AgentsMsg(threeAgents()[2:]))
	if m.severalAgents() {
		t.Errorf("one agent listed brings the column")
	}
	// Agents the listener tells of count too, before any event of theirs.
	m.Update(threeAgents())
	if row := selectedRow(m.View()); !strings.HasPrefix(row, "> 09:00:05 NORMAL     mail mail-006") {
		t.Errorf("three agents listed, no column: %q", row)
	}
}

// The agent filter key lists only the selected event's agent; critical
// events of the other agents stay listed, their prompts stay shown; the
// key again, or the clear-filter key, lists every agent's. The filter term
// agent: does the same, typed.
func TestAgentFilter(t *testing.T) {
	m := New(testOptions(t.TempDir(), &recorder{}))
	m.cur = &cursorPos{}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(ItemsMsg(agentItems(9, "mail", "web", "code"))) // number 4, mail's, is critical
	m.Update(PromptsMsg{{Number: 1, Agent: "web", Topic: "Open the bank's page?"}})
	m.Update(keyMsg("up")) // code-008 → web-008? the list: …, web-008, code-009
	m.Update(keyMsg("f"))  // only web
	shown := func() (out []string) {
		for _, seq := range m.visible { // paused: those held back too
			out = append(out, m.ring.get(seq).line)
		}
		return out
	}
	if got, want := shown(), []string{"web-002", "mail-critical", "web-005", "web-008"}; !slices.Equal(got, want) {
		t.Errorf("only web lists %q, want %q", got, want)
	}
	v := m.View()
	for _, want := range []string{"| only agent web |", "CONFIRMATION NEEDED, prompt 1 from web", "Listing only web's events; critical events of the other agents are still listed"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	// Events arriving meanwhile are filtered the same way.
	m.Update(ItemsMsg(agentItems(12, "mail", "web", "code")[9:]))
	if got := shown(); !slices.Equal(got, []string{"web-002", "mail-critical", "web-005", "web-008", "web-011"}) {
		t.Errorf("after more events, only web lists %q", got)
	}
	m.Update(ItemsMsg{{At: t0, Priority: announce.Critical, Kind: "errored", Agent: "code", Text: "disk full"}})
	if want := "CRITICAL from code, arrived while paused: disk full (end shows it)"; m.message != want {
		t.Errorf("paused, a critical event of another agent is told as %q, want %q", m.message, want)
	}
	if got := shown(); got[len(got)-1] != "disk full" {
		t.Errorf("only web hides code's critical event: %q", got)
	}
	m.Update(keyMsg("f"))
	if len(shown()) != 13 || !strings.Contains(m.message, "every agent's") {
		t.Errorf("f again lists %d (%s)", len(shown()), m.message)
	}
	m.Update(keyMsg("f"))
	m.Update(keyMsg("x"))
	if len(shown()) != 13 || m.agentOnly != "" {
		t.Errorf("x lists %d, agent filter %q", len(shown()), m.agentOnly)
	}
	m.Update(keyMsg("/"))
	typeKeys(m, "agent:code")
	m.Update(keyMsg("enter"))
	if got := shown(); !slices.Equal(got, []string{"code-003", "mail-critical", "code-006", "code-009", "code-012", "disk full"}) {
		t.Errorf("agent:code lists %q", got)
	}
}

// The agents view is a table with a caption in words; the cursor is on the
// selected agent. From it the keys ask the listener, typed, to mute or
// unmute, hear only, hear all or quit the agent selected, and list only
// its events. Quitting asks for the key again, naming the agent; any other
// key keeps it. Outside the view the agent's keys act on nothing.
func TestAgentsView(t *testing.T) {
	rec := &recorder{}
	m := New(testOptions(t.TempDir(), rec))
	m.cur = &cursorPos{}
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 24})
	m.Update(ItemsMsg(agentItems(9, "mail", "web", "code")))
	m.Update(threeAgents())
	m.Update(keyMsg("u")) // not in the agents view: nothing is sent
	if len(rec.actions()) != 0 || !strings.Contains(m.message, "press A for the agents view") {
		t.Fatalf("u in the list: %+v, %q", rec.actions(), m.message)
	}
	m.Update(keyMsg("A"))
	v := m.View()
	for _, want := range []string{
		"Agents: 3, the selected one marked >. Keys: u mute or unmute, O hear only it, H hear all, f list only its events, X quit it.",
		"  Agent  State         Sound  Prompts    Events  Endpoint                            Terms",
		"> mail   connected     heard  1 waiting  240     http://127.0.0.1:8081               rate at most 20/s, verbosity normal",
		"  web    reconnecting  muted  none       12      ws://127.0.0.1:8082",
		"  code   connected     heard  none       3       unix:/run/user/1000/aaep/code.sock",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("agents view lacks\n%q:\n%s", want, v)
		}
	}
	if row := strings.Split(v, "\n")[m.cur.row(len(strings.Split(v, "\n")))]; !strings.HasPrefix(row, "> mail") {
		t.Errorf("cursor on %q, not on the selected agent", row)
	}
	// The message line says the selected agent whole: on a narrow screen
	// the table's row is cut, the message wraps.
	if want := "mail: connected, heard, 1 prompt waiting, 240 events, endpoint http://127.0.0.1:8081, terms: rate at most 20/s, verbosity normal."; m.message != want {
		t.Errorf("message %q\nwant    %q", m.message, want)
	}
	m.Update(tea.WindowSizeMsg{Width: 70, Height: 24})
	if v := m.View(); !strings.Contains(v, "terms: rate at most 20/s, verbosity normal.") {
		t.Errorf("narrow, the agent's terms are not on screen:\n%s", v)
	}
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 24})
	for i, k := range []string{"u", "down", "u", "O", "H", "X", "down", "X", "up", "X", "X"} {
		m.Update(keyMsg(k))
		if i == 5 && m.message != "Press X again to quit web: its subscription closes, the other agents go on. Any other key keeps it." {
			t.Errorf("the first X says %q", m.message)
		}
	}
	want := []Action{{Kind: ActionMute, Agent: "mail"}, {Kind: ActionUnmute, Agent: "web"}, {Kind: ActionOnly, Agent: "web"},
		{Kind: ActionAll}, {Kind: ActionQuitAgent, Agent: "web"}}
	if got := rec.actions(); !slices.Equal(got, want) {
		t.Errorf("actions %+v\nwant    %+v", got, want)
	}
	// A new list keeps the selection on the same agent.
	m.Update(AgentsMsg(threeAgents()[1:]))
	if a := m.agents[m.agentSel]; a.raw != "web" {
		t.Errorf("selection moved to %q", a.raw)
	}
	m.Update(keyMsg("f"))
	if m.view != viewEvents || m.agentOnly != "web" {
		t.Errorf("f in the agents view: view %s, only %q", m.view, m.agentOnly)
	}
}

// row is the screen row the cursor is on, given the frame's rows.
func (c *cursorPos) row(rows int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return rows - 1 - c.up
}

// An agent's action says the words line mode reads for it (what it
// carries out is its Command, tested in command_test.go).
func TestAgentActionWords(t *testing.T) {
	for _, tt := range []struct {
		a    Action
		says string
	}{
		{Action{Kind: ActionMute, Agent: "mail"}, "mute mail"},
		{Action{Kind: ActionUnmute, Agent: "mail"}, "unmute mail"},
		{Action{Kind: ActionOnly, Agent: "web"}, "only web"},
		{Action{Kind: ActionAll}, "all"},
		{Action{Kind: ActionQuitAgent, Agent: "web"}, "quit web"},
		{Action{Kind: ActionQuitAgent, Agent: "Demo Assistant"}, "quit Demo Assistant"},
		{Action{Kind: ActionQuitAgent}, "quit "},
		{Action{Kind: ActionMute}, "mute "},
	} {
		if got := tt.a.String(); got != tt.says {
			t.Errorf("%+v says %q, want %q", tt.a, got, tt.says)
		}
	}
}

// hostileLabel is an agent label as a hostile producer might name itself:
// escape sequences that clear the screen and set the title, and bidi
// controls that reorder what follows.
const hostileLabel = "ev\x1b[2Jil\x1b]0;pwned\x07\u202egnp.exe\u2066x\u2069\u009b31m"

// A hostile agent label never reaches the screen raw: not in the agent
// column, the agent filter's status and messages, the agents view, a
// prompt, nor a line printed above the view. The action about that agent
// carries the label as the listener gave it, so it finds the agent.
func TestHostileAgentLabel(t *testing.T) {
	rec := &recorder{}
	opts := testOptions(t.TempDir(), rec)
	opts.History = true
	m := New(opts)
	m.cur = &cursorPos{}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	items := agentItems(6, "mail", hostileLabel)
	m.Update(ItemsMsg(items))
	m.Update(PromptsMsg{{Number: 1, Agent: "mail", Topic: "Send it?"}, {Number: 2, Agent: hostileLabel, Topic: "Run " + hostileLabel + "?", Details: []string{hostileLabel}}})
	m.Update(AgentsMsg{{Label: hostileLabel, Endpoint: "http://" + hostileLabel, State: hostileLabel, Terms: hostileLabel}, {Label: "mail"}})
	var screens []string
	see := func() { screens = append(screens, m.View(), m.message) }
	see()
	for _, k := range []string{"f", "A", "u", "X", "d"} {
		m.Update(keyMsg(k))
		see()
	}
	m.Update(keyMsg("x"))
	m.Update(keyMsg("A"))
	m.Update(keyMsg("f"))
	see()
	screens = append(screens, m.toPrint...)
	for _, s := range screens {
		if strings.ContainsAny(s, "\x1b\x07\u009b\u202e\u2066\u2069") {
			t.Errorf("raw label on screen:\n%q", s)
		}
	}
	if !strings.Contains(strings.Join(screens, "\n"), "ev[2Jil") && !strings.Contains(strings.Join(screens, "\n"), "evil") {
		t.Errorf("the label is not shown at all:\n%s", strings.Join(screens, "\n"))
	}
	if got := rec.actions(); len(got) != 1 || got[0] != (Action{Kind: ActionMute, Agent: hostileLabel}) {
		t.Errorf("actions %+v, want a mute of the label as given", got)
	}
}

// The agents' keys, as the help lists them, on the list of keyTests.
func testAgentsKey(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
	tm.Send(threeAgents())
	press(tm, "A")
	waitScreen(t, tm, "> mail   connected")
	press(tm, "down")
	waitScreen(t, tm, "> web ")
	press(tm, "A")
	waitSelected(t, tm, "event-050")
}

func testAgentFilterKey(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
	tm.Send(ItemsMsg(agentItems(3, "mail")))
	press(tm, "up", "up", "up", "f") // event-050, Demo's
	waitScreen(t, tm, "| only agent Demo")
	waitScreen(t, tm, "50 of 53 events shown")
	press(tm, "f")
	waitScreen(t, tm, "53 of 53 events shown")
}

func testAgentActionKey(k string, want Action) func(*testing.T, *teatest.TestModel, *recorder, string) {
	return func(t *testing.T, tm *teatest.TestModel, rec *recorder, _ string) {
		tm.Send(threeAgents())
		press(tm, "A", k)
		if k == "X" {
			waitScreen(t, tm, "Press X again to quit mail")
			press(tm, "X")
		}
		waitScreen(t, tm, "Sending: "+want.String()+".")
		if got := rec.actions(); !slices.Equal(got, []Action{want}) {
			t.Errorf("actions: %+v", got)
		}
	}
}

// Prompts show the agent that asked: the headline names it, and with
// several agents the prompts also waiting do too; PromptFrom names a
// prompt by the listener's label. The footer names the agents key once
// there are several.
func TestPromptsNameTheirAgent(t *testing.T) {
	ev := &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Producer: protocol.Producer{AgentID: "a", AgentName: "Mailer"}, Action: "Send the mail"}
	if p := PromptFrom("mail", &session.Prompt{Number: 3, Event: ev}); p.Agent != "mail" {
		t.Errorf("PromptFrom names %q", p.Agent)
	}
	if p := PromptFrom("", &session.Prompt{Number: 3, Event: ev}); p.Agent != "Mailer" {
		t.Errorf("PromptFrom without a label names %q", p.Agent)
	}
	m := New(testOptions(t.TempDir(), &recorder{}))
	m.cur = &cursorPos{}
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 24})
	m.Update(PromptsMsg{{Number: 1, Agent: "mail", Topic: "Send it?"}, {Number: 2, Agent: "web", Topic: "Open it?"}})
	if v := m.View(); !strings.Contains(v, "prompt 1 from mail: Send it?") || !strings.Contains(v, "Also waiting: 2 (Open it?)") || strings.Contains(v, "A agents") {
		t.Errorf("one agent seen:\n%s", v)
	}
	m.Update(ItemsMsg(agentItems(2, "mail", "web")))
	if v := m.View(); !strings.Contains(v, "Also waiting: 2 from web (Open it?)") || !strings.Contains(v, "? all keys | A agents | space") {
		t.Errorf("two agents seen:\n%s", v)
	}
}

// Through a running program: the agents the listener sets reach the view
// at Flush, and a key in the agents view comes out of Actions as the
// action "mute mail".
func TestProgramAgents(t *testing.T) {
	in, keys := io.Pipe()
	out := &frameWatch{seen: make(chan time.Time, 1)}
	pr := Start(RunOptions{Options: Options{Theme: ThemeNone, Renderer: lipgloss.NewRenderer(io.Discard)}, In: in, Out: out})
	cmds := pr.Actions()
	defer func() {
		keys.Close()
		go func() {
			for range cmds { // the quit the closing program sends
			}
		}()
		if err := pr.Close(); err != nil {
			t.Error(err)
		}
	}()
	out.expect("Agents: 2")
	pr.SetAgents([]Agent{{Label: "mail", State: "connected"}, {Label: "web", State: "connected"}})
	if err := pr.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.Write([]byte("A")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-out.seen:
	case <-time.After(3 * time.Second):
		t.Fatal("the agents view never showed the two agents")
	}
	if _, err := keys.Write([]byte("u")); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-cmds:
		if want := (Action{Kind: ActionMute, Agent: "mail"}); c != want {
			t.Errorf("action %+v, want %+v", c, want)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("no command from u")
	}
}

// The agents' keys are remapped like every other, by the names docs/tui.md
// gives; the caption and the quit question name the keys bound.
func TestRemapAgentKeys(t *testing.T) {
	keys := DefaultKeyMap()
	if err := keys.Remap(strings.NewReader("agents = ctrl+a\nagent-filter = F\nmute = z\nonly = o\nall-agents = ctrl+h\nquit-agent = K\n")); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	opts := testOptions(t.TempDir(), rec)
	opts.Keys = &keys
	m := New(opts)
	m.cur = &cursorPos{}
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 24})
	m.Update(threeAgents())
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlA})
	if v := m.View(); !strings.Contains(v, "Keys: z mute or unmute, o hear only it, ctrl+h hear all, F list only its events, K quit it.") {
		t.Errorf("caption not as bound:\n%s", v)
	}
	for _, k := range []string{"z", "o", "K", "K", "A", "u"} {
		m.Update(keyMsg(k))
	}
	m.Update(tea.KeyMsg{Type: tea.KeyCtrlH})
	want := []Action{{Kind: ActionMute, Agent: "mail"}, {Kind: ActionOnly, Agent: "mail"}, {Kind: ActionQuitAgent, Agent: "mail"}, {Kind: ActionAll}}
	if got := rec.actions(); !slices.Equal(got, want) {
		t.Errorf("actions %+v\nwant    %+v", got, want)
	}
}

// A listener's message about one agent is that agent's line in the list.
func TestSayFor(t *testing.T) {
	pr := &Program{}
	if err := pr.SayFor(t0, "mail", "Connection lost; reconnecting."); err != nil {
		t.Fatal(err)
	}
	if it := pr.buf[0]; it.Agent != "mail" || it.Kind != "status" || it.Text != "Connection lost; reconnecting." {
		t.Errorf("item %+v", it)
	}
}

// Producer text that pads itself with blanks, plain or look-alike, cannot
// push words onto a row of their own in the lines printed above the view,
// which the terminal wraps, nor widen a row of the list, a prompt or a
// message: every run of blanks is one space.
func TestPaddedTextFolds(t *testing.T) {
	pad := "HOST" + strings.Repeat(" \u2003\u3000\u205f\u00a0\u2800\t", 30) + "12:00:00 CRITICAL Bank: confirm"
	opts := testOptions(t.TempDir(), &recorder{})
	opts.History = true
	m := New(opts)
	m.cur = &cursorPos{}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(ItemsMsg{{At: t0, Priority: announce.Critical, Kind: "prompt", Agent: "bank", Text: pad}})
	m.Update(PromptsMsg{{Number: 1, Agent: "bank", Topic: pad, Default: pad, Details: []string{pad}}})
	screens := []string{m.View()}
	for seq := m.ring.first(); seq <= m.ring.last(); seq++ {
		screens = append(screens, m.historyLine(m.ring.get(seq)))
	}
	if len(screens) == 1 {
		t.Fatal("no line to print above the view; the test proves nothing")
	}
	for _, s := range screens {
		for _, row := range strings.Split(s, "\n") {
			i := strings.Index(row, "HOST")
			if i < 0 {
				continue
			}
			blanks := 0
			for _, r := range row[i:] {
				if !protocol.IsBlank(r) {
					blanks = 0
				} else if blanks++; blanks > 1 {
					t.Errorf("a run of blanks after the producer's text begins: %q", row)
					break
				}
			}
		}
	}
}
