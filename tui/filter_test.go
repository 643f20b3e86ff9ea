package tui

import (
	"strings"
	"testing"
)

func TestFilter(t *testing.T) {
	items := testItems(20)
	tests := []struct {
		expr string
		want int
	}{
		{"", 20},
		{"type:tool.*", 16},
		{"type:aaep:agent.progress.updated", 3},
		{"type:agent.session.*", 1},
		{"-type:tool.*", 4},
		{"urgency:background", 3},
		{"urgency:critical,background", 4},
		{"session:s-", 20},
		{"session:x", 0},
		{"tool:read_*", 16},
		{"kind:errored", 1},
		{"EVENT-01", 9},
		{"event-01 type:tool.invoked", 7},
	}
	r := newRing(100)
	for _, it := range items {
		r.push(it)
	}
	for _, tt := range tests {
		f, err := ParseFilter(tt.expr)
		if err != nil {
			t.Fatalf("%q: %v", tt.expr, err)
		}
		n := 0
		for seq := r.first(); seq <= r.last(); seq++ {
			if f.match(r.get(seq)) {
				n++
			}
		}
		if n != tt.want {
			t.Errorf("%q matches %d, want %d", tt.expr, n, tt.want)
		}
	}
	for _, bad := range []string{"type:", "urgency:loud", "type:[a"} {
		if _, err := ParseFilter(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestRingDropsOldest(t *testing.T) {
	r := newRing(3)
	for _, it := range testItems(5) {
		r.push(it)
	}
	if r.len() != 3 || r.first() != 3 || r.last() != 5 {
		t.Fatalf("len %d first %d last %d", r.len(), r.first(), r.last())
	}
	if r.get(2) != nil || r.get(3).Text != "event-003" || r.get(5).Text != "event-005" || r.get(6) != nil {
		t.Error("wrong entries held")
	}
}

func TestRemap(t *testing.T) {
	k := DefaultKeyMap()
	err := k.Remap(strings.NewReader("# mine\n\npause = space F\nquit = ctrl+q\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Pause.Keys(); len(got) != 2 || got[0] != " " || got[1] != "F" {
		t.Errorf("pause keys %q", got)
	}
	if k.Quit.Help().Key != "ctrl+q" || k.Quit.Help().Desc != "quit" {
		t.Errorf("quit help %+v", k.Quit.Help())
	}
	inHelp := 0
	for _, col := range k.FullHelp() {
		inHelp += len(col)
	}
	if len(k.named()) != inHelp {
		t.Errorf("%d actions can be remapped, %d keys are in the help; every key of the help should be", len(k.named()), inHelp)
	}
	for _, bad := range []string{"jump = j", "pause =", "pause"} {
		if err := k.Remap(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
