package capture

import (
	"fmt"
	"testing"
)

func TestTypeFilter(t *testing.T) {
	msg := func(typ, extra string) []byte {
		return []byte(fmt.Sprintf(`{"type":%q,"event_id":"evt_1"%s}`, typ, extra))
	}
	for _, tt := range []struct {
		expr string
		msg  []byte
		keep bool
	}{
		{"", msg("aaep:agent.progress.updated", ""), true},
		{"tool.*", msg("aaep:agent.tool.invoked", ""), true},
		{"agent.tool.*", msg("aaep:agent.tool.completed", ""), true},
		{"aaep:agent.tool.*", msg("aaep:agent.tool.completed", ""), true},
		{"tool.*", msg("aaep:agent.progress.updated", ""), false},
		{"TOOL.*", msg("aaep:agent.tool.invoked", ""), true},
		{"-progress.*", msg("aaep:agent.progress.updated", ""), false},
		{"-progress.*", msg("aaep:agent.state.changed", ""), true},
		{"*, -output.streaming", msg("aaep:agent.output.streaming", ""), false},
		{"session.*,tool.*", msg("aaep:agent.session.started", ""), true},
		// Critical events and messages that are not events are always kept.
		{"tool.*", msg("aaep:agent.awaiting.confirmation", ""), true},
		{"-awaiting.*", msg("aaep:agent.awaiting.clarification", ""), true},
		{"tool.*", msg("aaep:agent.session.errored", ""), true},
		{"-progress.*", msg("aaep:agent.progress.updated", `,"urgency":"critical"`), true},
		{"-progress.*", msg("aaep:agent.progress.updated", `,"summary_normal":"critical"`), false},
		{"tool.*", msg("confirmation.reply", ""), true},
		{"tool.*", msg("subscription.accepted", ""), true},
		{"tool.*", []byte(`{"transport":"connected"}`), true},
		{"tool.*", msg("https://example.org/ext#thing.done", ""), false},
		{"https://example.org/*", msg("https://example.org/ext#thing.done", ""), true},
	} {
		f, err := ParseTypeFilter(tt.expr)
		if err != nil {
			t.Fatalf("%q: %v", tt.expr, err)
		}
		if got := f.Keep(tt.msg); got != tt.keep {
			t.Errorf("filter %q keeps %s: %v, want %v", tt.expr, tt.msg, got, tt.keep)
		}
	}
	for _, bad := range []string{"tool.[", "-", "a, -"} {
		if _, err := ParseTypeFilter(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if f, _ := ParseTypeFilter(" , "); !f.Empty() {
		t.Error("blank patterns make a filter")
	}
}

func FuzzParseTypeFilter(f *testing.F) {
	for _, s := range []string{"tool.*", "-progress.*,*", "[a-", "aaep:agent.tool.invoked", "\\", "-"} {
		f.Add(s, "aaep:agent.tool.invoked")
	}
	f.Fuzz(func(t *testing.T, expr, typ string) {
		tf, err := ParseTypeFilter(expr)
		if err != nil {
			return
		}
		_ = tf.Match(typ)
		_ = tf.Keep([]byte(fmt.Sprintf(`{"type":%q}`, typ)))
		if tf.Empty() && !tf.Match(typ) {
			t.Errorf("empty filter %q refuses %q", expr, typ)
		}
	})
}
