package console

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
)

// The Config fields a capture played sets tell its agents as aaep-replay
// play always has: two connections sharing a label are both named by it
// (NameByLabel: a connection started again is the same agent), lines are
// at the updates' (recorded) times (UpdateTime), and an agent's End is
// said as it came, the run going on (PlainEnd).
func TestPlayFields(t *testing.T) {
	t.Parallel()
	recorded := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tell := func(play bool) string {
		cfg := testConfig(true)
		cfg.Now = func() time.Time { return recorded.Add(time.Hour) } // the wall clock, not the recording's
		client := cfg.Client
		cfg.Client = func(spec AgentSpec) subscriber.Config {
			c := client(spec)
			c.Now = func() time.Time { return recorded }
			return c
		}
		cfg.Verbatim, cfg.HideSentReplies, cfg.NameByLabel, cfg.UpdateTime, cfg.PlainEnd = play, play, play, play, play
		var out strings.Builder
		l := New(cfg, line.NewWriter(&out, nil, line.WriterOptions{Location: time.UTC}))
		for range 2 {
			conn := framesConn{frames: make(chan []byte, 1)}
			conn.frames <- []byte(`{"@context":"` + protocol.ContextURL + `","aaep_version":"1.0.0","type":"session.started",` +
				`"event_id":"evt_1","session_id":"sess_1","timestamp":"2026-11-23T12:00:00Z","producer":{"agent_id":"a1","agent_name":"Mail"},` +
				`"urgency":"normal","summary_normal":"Sorting the inbox."}`)
			close(conn.frames)
			c := l.Join(AgentSpec{Label: "bank", Endpoint: "file:capture"}, func(cfg subscriber.Config) *subscriber.Client {
				return subscriber.New(context.Background(), conn, "", cfg)
			}).Client()
			<-c.Done()
		}
		l.Drain()
		return out.String()
	}
	live, play := tell(false), tell(true)
	t.Logf("live:\n%s\nplay:\n%s", live, play)
	for _, tt := range []struct {
		what       string
		live, play bool
		word       string
	}{
		{"a line at the wall clock's time", true, false, "13:00:00"},
		{"an agent named apart from its namesake", true, false, "bank #2"},
		{"the other agents still listened to", true, false, "still listening"},
		{"every agent ended", true, false, "Every agent has ended"},
	} {
		if strings.Contains(live, tt.word) != tt.live || strings.Contains(play, tt.word) != tt.play {
			t.Errorf("%s (%q): live %v, play %v; want %v, %v", tt.what, tt.word, strings.Contains(live, tt.word), strings.Contains(play, tt.word), tt.live, tt.play)
		}
	}
}
