package tui

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
)

// R opens the dialog pre-filled with the terms in force; enter sends a set
// command for each field changed, and only those.
func testRenegotiateKey(t *testing.T, tm *teatest.TestModel, rec *recorder, _ string) {
	tm.Send(TermsMsg{Rate: 20, Verbosity: "normal", Languages: []string{"en"}})
	waitScreen(t, tm, "terms: rate at most 20/s, verbosity normal, languages en")
	press(tm, "R")
	waitScreen(t, tm, "RENEGOTIATE: change fields")
	waitScreen(t, tm, "> "+formRate+"20")
	press(tm, "ctrl+u")
	typeText(tm, "5")
	press(tm, "tab", "tab") // languages
	waitScreen(t, tm, "> "+formLanguages+"en")
	typeText(tm, ", yo")
	press(tm, "tab")
	typeText(tm, "agent.tool.*")
	press(tm, "enter")
	// The listener takes one change at a time: the next goes once the
	// producer has answered the one before.
	waitScreen(t, tm, "Asking for set rate 5 first; 2 more changes follow, one at a time as the producer answers.")
	if got := strings.Join(rec.all(), "|"); got != "set rate 5" {
		t.Errorf("commands: %q", got)
	}
	tm.Send(TermsMsg{Rate: 5, Verbosity: "normal", Languages: []string{"en"}})
	waitScreen(t, tm, "Sending: set lang en,yo.")
	tm.Send(TermsMsg{Rate: 5, Verbosity: "normal", Languages: []string{"en", "yo"}})
	waitScreen(t, tm, "Sending: set include agent.tool.*.")
	tm.Send(TermsMsg{Rate: 5, Verbosity: "normal", Languages: []string{"en", "yo"}, Include: []string{"aaep:agent.tool.*"}})
	waitScreen(t, tm, "terms: rate at most 5/s, verbosity normal, languages en,yo, include aaep:agent.tool.*")
	if got := strings.Join(rec.all(), "|"); got != "set rate 5|set lang en,yo|set include agent.tool.*" {
		t.Errorf("commands: %q", got)
	}
}

// formModel is a model with the dialog open, on a screen wide enough for
// every label.
func formModel(t *testing.T, terms *Terms) (*Model, *recorder) {
	t.Helper()
	rec := &recorder{}
	m := New(testOptions(t.TempDir(), rec))
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	m.Update(ItemsMsg(testItems(5)))
	if terms != nil {
		m.Update(TermsMsg(*terms))
	}
	m.Update(keyMsg("R"))
	return m, rec
}

func TestRenegotiateForm(t *testing.T) {
	for _, tt := range []struct {
		name    string
		terms   *Terms
		keys    []string // typed into the form, before enter
		want    []string // commands sent
		message string
		open    bool // the form stays open to be mended
	}{
		{name: "unchanged sends nothing", terms: &Terms{Rate: 3, Verbosity: "terse"},
			message: "Nothing changed: no renegotiation sent."},
		{name: "no terms yet, nothing typed", message: "Nothing changed"},
		{name: "verbosity", terms: &Terms{Verbosity: "normal"}, keys: []string{"tab", "ctrl+u", "d", "e", "t", "a", "i", "l", "e", "d"},
			want: []string{"set verbosity detailed"}},
		{name: "shift+tab wraps to exclude", keys: []string{"shift+tab", "p", "r", "o", "g", "r", "e", "s", "s", ".", "*"},
			want: []string{"set exclude progress.*"}},
		{name: "a rate limit cannot be lifted", terms: &Terms{Rate: 9}, keys: []string{"ctrl+u"},
			message: `Not sent: the rate must be a whole number of events a second, 1 or more, not "" (a limit cannot be lifted while listening).`, open: true},
		{name: "rate zero", keys: []string{"0"}, message: `1 or more, not "0"`, open: true},
		{name: "languages emptied", terms: &Terms{Languages: []string{"en"}}, keys: []string{"tab", "tab", "ctrl+u"},
			message: "Not sent: give at least one language, such as en.", open: true},
		{name: "emptied include", terms: &Terms{Include: []string{"tool.*"}}, keys: []string{"down", "down", "down", "ctrl+u"},
			want: []string{"set include"}},
		{name: "list spaces tidied", keys: []string{"up", "up", "up", "y", "o", " ", " ", "e", "n", ","}, want: []string{"set lang yo,en"}},
		{name: "rate not a number", keys: []string{"x"}, message: `Not sent: the rate must be a whole number of events a second, 1 or more, not "x"`, open: true},
		{name: "verbosity two words", keys: []string{"tab", "v", " ", "w"}, message: `Not sent: the verbosity must be terse, normal or detailed, not "v w".`, open: true},
		{name: "verbosity unknown", terms: &Terms{Verbosity: "normal"}, keys: []string{"tab", "ctrl+u", "l", "o", "u", "d"},
			message: `Not sent: the verbosity must be terse, normal or detailed, not "loud".`, open: true},
		{name: "verbose is detailed", terms: &Terms{Verbosity: "normal"}, keys: []string{"tab", "ctrl+u", "v", "e", "r", "b", "o", "s", "e"},
			want: []string{"set verbosity verbose"}},
		{name: "language list with a space", keys: []string{"tab", "tab", "e", "n", " ", "g", "b"}, want: []string{"set lang en,gb"}},
		{name: "include with a space inside", keys: []string{"tab", "tab", "tab", "a", "b", "\t", "c"}, want: []string{"set include ab,c"}},
		{name: "esc cancels", keys: []string{"5", "esc"}, message: "Renegotiation cancelled"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, rec := formModel(t, tt.terms)
			for _, k := range tt.keys {
				m.Update(keyMsg(k))
			}
			if m.mode == modeForm {
				m.Update(keyMsg("enter"))
			}
			if got := rec.all(); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("commands %q, want %q", got, tt.want)
			}
			if tt.message != "" && !strings.Contains(m.message, tt.message) {
				t.Errorf("message %q, want %q", m.message, tt.message)
			}
			if open := m.mode == modeForm; open != tt.open {
				t.Errorf("form open: %v, want %v", open, tt.open)
			}
		})
	}
}

// The real cursor rests in the active field, after what is typed there.
func TestRenegotiateCursorInField(t *testing.T) {
	m, _ := formModel(t, &Terms{Verbosity: "normal"})
	m.cur = &cursorPos{}
	m.Update(keyMsg("tab"))
	lines := strings.Split(m.View(), "\n")
	up, col, on := m.cur.get()
	row := lines[len(lines)-1-up]
	if !on || row != "> "+formVerbosity+"normal" {
		t.Fatalf("cursor on %q (on %v)", row, on)
	}
	if want := len("> " + formVerbosity + "normal"); col != want {
		t.Errorf("cursor column %d, want %d", col, want)
	}
	m.Update(keyMsg("left"))
	m.View()
	if _, col2, _ := m.cur.get(); col2 != col-1 {
		t.Errorf("after left the cursor is at %d, want %d", col2, col-1)
	}
}

// statusModel is a model connected over SSE, on a screen width wide.
func statusModel(t *testing.T, width int) *Model {
	opts := testOptions(t.TempDir(), &recorder{})
	opts.Endpoint, opts.Transport = "http://127.0.0.1:8080", "SSE"
	m := New(opts)
	m.Update(tea.WindowSizeMsg{Width: width, Height: 20})
	m.Update(ItemsMsg(testItems(30)))
	return m
}

// The second status line tells the transport, the endpoint and the terms.
func TestStatusLines(t *testing.T) {
	m := statusModel(t, 200)
	lines := strings.Split(m.View(), "\n")
	if want := "SSE http://127.0.0.1:8080 | terms: not negotiated yet"; lines[1] != want {
		t.Errorf("second status line %q, want %q", lines[1], want)
	}
	m.Update(TermsMsg{Verbosity: "terse", Languages: []string{"yo", "en"}, Include: []string{"tool.*"}, Exclude: []string{"progress.*"}})
	lines = strings.Split(m.View(), "\n")
	if want := "SSE http://127.0.0.1:8080 | terms: rate not limited, verbosity terse, languages yo,en, include tool.*, exclude progress.*"; lines[1] != want {
		t.Errorf("second status line %q, want %q", lines[1], want)
	}
}

// Rate in counts every event received in the last whole second; rate shown
// only those listed, so a filter or a pause shows in the difference.
func TestRateInAndShown(t *testing.T) {
	m := New(Options{Theme: ThemeNone, Renderer: lipgloss.NewRenderer(io.Discard), Location: time.UTC})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 20})
	f, err := ParseFilter("type:tool.*")
	if err != nil {
		t.Fatal(err)
	}
	m.applyFilter(f)
	batch := func(sec, n int) ItemsMsg {
		items := testItems(n)
		for i := range items {
			items[i].At = t0.Add(time.Duration(sec)*time.Second + time.Duration(i)*time.Millisecond)
		}
		return items
	}
	m.Update(batch(0, 9)) // 7 tool events, 1 progress, 1 critical (always shown)
	m.Update(batch(1, 1))
	if s := m.statusLine(); !strings.Contains(s, "9/s in, 8/s shown") {
		t.Errorf("status %q", s)
	}
	m.pause()
	m.Update(batch(2, 4))
	m.Update(batch(3, 1))
	if s := m.statusLine(); !strings.Contains(s, "4/s in, 0/s shown") {
		t.Errorf("paused status %q", s)
	}
	m.Update(batch(9, 1)) // a gap: nothing in the last whole second
	if s := m.statusLine(); !strings.Contains(s, "0/s in, 0/s shown") {
		t.Errorf("status after a gap %q", s)
	}
}

// Whatever is typed or pasted into the dialog, it sends only set actions
// of the dialog's terms, for the fields that changed, with no control
// character.
func FuzzTermsForm(f *testing.F) {
	f.Add("5", "terse", "yo, en", "tool.*", "progress.*")
	f.Add("", "", "", "", "")
	f.Add("-1", "a b", "\n", "x\x1b[2J", "\tquit")
	f.Add("99999999999999999999", "normal", ",,,", " * ", "é,日本")
	f.Fuzz(func(t *testing.T, rate, verbosity, langs, include, exclude string) {
		m := New(Options{Capacity: 10, Theme: ThemeNone, Renderer: lipgloss.NewRenderer(io.Discard), Location: time.UTC,
			Act: func(a Action) bool {
				terms := []string{"rate", "verbosity", "lang", "include", "exclude"}
				if a.Kind != ActionSet || !slices.Contains(terms, a.Term) || a.Prompt != 0 || strings.IndexFunc(a.Text, unicode.IsControl) >= 0 {
					t.Errorf("sent %+v", a)
				}
				return true
			}})
		m.Update(TermsMsg{Rate: 1, Verbosity: "normal"})
		m.Update(keyMsg("R"))
		for _, v := range []string{rate, verbosity, langs, include, exclude} {
			m.Update(keyMsg("ctrl+u"))
			m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(v), Paste: true})
			m.Update(keyMsg("tab"))
		}
		m.Update(keyMsg("enter"))
		_ = m.View()
	})
}

// Connection and terms share a row when they fit; else the terms take rows
// of their own, wrapped between words, and the list gives up the rows.
func TestStatusWrapsTerms(t *testing.T) {
	m := statusModel(t, 80)
	wide := m.listHeight()
	m.Update(TermsMsg{Rate: 5, Verbosity: "normal", Languages: []string{"en-US"}, Exclude: []string{"aaep:agent.progress.*"}})
	lines := strings.Split(m.View(), "\n")
	want := []string{"SSE http://127.0.0.1:8080", "terms: rate at most 5/s, verbosity normal, languages en-US, exclude", goesOn + "aaep:agent.progress.*"}
	if got := lines[1:4]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("status rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m.listHeight() != wide-2 || len(lines) != 20 {
		t.Errorf("list height %d then %d; %d lines drawn", wide, m.listHeight(), len(lines))
	}
}
