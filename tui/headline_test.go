package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// A prompt's headline always shows what it asks, its risk and its default,
// whatever the producer's names and words are long: a 900-character agent
// name (or action, or risk) is cut where it is shown, at 80x24 and 40x12
// alike, and the screen keeps its size.
func TestHeadlineKeepsActionRiskAndDefault(t *testing.T) {
	long := strings.Repeat("Bank", 225) // 900 characters
	for _, tc := range []struct {
		name string
		p    Prompt
		want []string
	}{
		{"long agent name", Prompt{Number: 1, Agent: long, Topic: "WIRE $9,000", Risk: "high", Default: "reject"},
			[]string{"prompt 1", "WIRE $9,000", "Risk high", "Default reject", "left"}},
		{"long agent name in words", Prompt{Number: 4, Agent: strings.Repeat("Bank ", 180), Topic: "WIRE $9,000", Risk: "high", Default: "reject"},
			[]string{"prompt 4", "WIRE $9,000", "Risk high", "Default reject", "left"}},
		{"long action", Prompt{Number: 2, Agent: "bank", Topic: "WIRE $9,000 " + long, Risk: "high", Default: "reject"},
			[]string{"prompt 2", "bank", "WIRE $9,000", "Risk high", "Default reject", "left"}},
		{"long risk and default", Prompt{Number: 3, Agent: long, Topic: "WIRE $9,000", Risk: "high" + long, Default: "reject" + long},
			[]string{"prompt 3", "WIRE $9,000", "Risk high", "Default reject", "left"}},
	} {
		for _, size := range []struct{ w, h int }{{80, 24}, {40, 12}} {
			m := New(testOptions(t.TempDir(), &recorder{}))
			m.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
			tc.p.Deadline = t0.Add(2 * time.Minute)
			m.Update(PromptsMsg{tc.p})
			head, _ := m.promptRows()
			shown := unwrapped(head)
			for _, w := range tc.want {
				if !strings.Contains(shown, w) {
					t.Errorf("%s at %dx%d: the headline does not show %q:\n%s", tc.name, size.w, size.h, w, strings.Join(head, "\n"))
				}
			}
			view := m.View()
			rows := strings.Split(view, "\n")
			if len(rows) > size.h {
				t.Errorf("%s at %dx%d: %d rows", tc.name, size.w, size.h, len(rows))
			}
			for _, r := range rows {
				if w := ansi.StringWidth(r); w > size.w {
					t.Errorf("%s at %dx%d: a row %d wide: %q", tc.name, size.w, size.h, w, r)
				}
			}
			if !strings.Contains(unwrapped(rows), "Risk high") {
				t.Errorf("%s at %dx%d: the screen does not show the risk:\n%s", tc.name, size.w, size.h, view)
			}
		}
	}
}

// A key answers what was on screen: its action carries the digest of the
// prompt heading the screen and when that prompt first headed it. A prompt
// that takes the head (another withdrawn before it) is shown from then on,
// so the listener can refuse a key pressed moments later.
func TestKeyAnswersWhatWasShown(t *testing.T) {
	now := t0
	rec := &recorder{}
	opts := testOptions(t.TempDir(), rec)
	opts.Now = func() time.Time { return now }
	m := New(opts)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(PromptsMsg{{Number: 1, Agent: "bank", Topic: "Save the draft", Digest: "d1"}})
	now = now.Add(10 * time.Second)
	m.Update(PromptsMsg{{Number: 1, Agent: "bank", Topic: "Save the draft", Digest: "d1"}}) // the same: no new time
	m.Update(keyMsg("a"))
	now = now.Add(10 * time.Second)
	m.Update(PromptsMsg{{Number: 2, Agent: "bank", Topic: "WIRE $9,000", Digest: "d2"}}) // switched
	now = now.Add(150 * time.Millisecond)
	m.Update(keyMsg("a"))
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.acts) != 2 {
		t.Fatalf("actions %+v", rec.acts)
	}
	if a := rec.acts[0]; a.Prompt != 1 || a.Words != "d1" || !a.Shown.Equal(t0) {
		t.Errorf("the key on prompt 1: %+v, want its digest and shown at %v", a, t0)
	}
	if a := rec.acts[1]; a.Prompt != 2 || a.Words != "d2" || !a.Shown.Equal(t0.Add(20*time.Second)) {
		t.Errorf("the key on prompt 2: %+v, want its digest and shown when it took the head", a)
	}
}
