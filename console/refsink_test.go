package console

import (
	"context"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/subscriber"
)

// refNext is a sink after an agent's: it records the announcements it was
// given through a pointer, and through a copy.
type refNext struct {
	refs, copies []announce.Announcement
	at           []*announce.Announcement
}

func (r *refNext) Announce(a announce.Announcement) error { r.copies = append(r.copies, a); return nil }

func (r *refNext) AnnounceRef(a *announce.Announcement) error {
	r.refs, r.at = append(r.refs, *a), append(r.at, a)
	return nil
}

// An agent's sink passes an announcement on through a pointer to a sink
// that takes one (announce.RefSink), the agent's label set in it, and
// leaves the announcement as it found it for the sinks after it: the
// agent's label put back.
func TestAgentSinkPassesTheAnnouncementOn(t *testing.T) {
	t.Parallel()
	l := New(testConfig(false), line.NewWriter(&strings.Builder{}, nil, line.WriterOptions{NoTime: true}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := l.Join(AgentSpec{Label: "mail", Endpoint: "http://127.0.0.1:1"}, func(cfg subscriber.Config) *subscriber.Client {
		return subscriber.New(ctx, idleConn{}, "", cfg)
	}).Client()
	defer func() { cancel(); <-c.Done() }()
	next := &refNext{}
	s := &agentSink{l: l, a: l.agents()[0], next: next, ref: next}
	an := announce.Announcement{Text: "Sorting the inbox.", Source: "before", Agent: "Mail"}
	if err := s.AnnounceRef(&an); err != nil {
		t.Fatal(err)
	}
	if len(next.refs) != 1 || len(next.copies) != 0 || next.at[0] != &an {
		t.Fatalf("passed on %d through a pointer (to the announcement: %v), %d copies; want the one through its pointer",
			len(next.refs), len(next.at) == 1 && next.at[0] == &an, len(next.copies))
	}
	if got := next.refs[0]; got.Source != "mail" || got.Text != "Sorting the inbox." {
		t.Errorf("passed on with source %q, text %q; want the agent's label and the text", got.Source, got.Text)
	}
	if an.Source != "before" || an.Agent != "Mail" {
		t.Errorf("left the announcement with source %q, agent %q; want it as it was (before, Mail)", an.Source, an.Agent)
	}
	// A sink that takes copies is given one.
	plain := &agentSink{l: l, a: l.agents()[0], next: announceOnly{next}}
	if err := plain.AnnounceRef(&an); err != nil || len(next.copies) != 1 || next.copies[0].Source != "mail" {
		t.Errorf("a sink taking copies got %d, %v", len(next.copies), err)
	}
}

// announceOnly hides every method of its sink but Announce.
type announceOnly struct{ s announce.Sink }

func (a announceOnly) Announce(an announce.Announcement) error { return a.s.Announce(an) }
